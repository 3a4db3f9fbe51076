"""``medrealmm view`` in a real headless browser (Debian's chromium through chromium-driver, which
.ci/run installs): navigate, filter, open a case, enlarge an image, compare two judges; injected HTML
in case text stays text; no console errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import cli
from tests.test_run_records import dataset_file, sample_records

PAYLOAD = "<img src=x onerror=\"window.__pwned=1\">"
SCRIPT = "<script>window.__pwned=2</script>"


@pytest.fixture(scope="module")
def viewer(tmp_path_factory) -> Path:
    from tests.support.openai_server import OpenAIServer

    tmp = tmp_path_factory.mktemp("viewer")
    recs = sample_records(tmp, 6)
    recs[0]["department"] = PAYLOAD
    recs[1]["y_orig"] = SCRIPT + recs[1]["y_orig"]
    recs[2]["rubric"][0]["text"] = PAYLOAD + recs[2]["rubric"][0]["text"]
    data = dataset_file(tmp, recs)
    out = tmp / "out"
    common = ["data=jsonl", f"data.path={data}", "data.name=mine", f"paths.outputs={out}"]
    with OpenAIServer() as srv:
        for model, judge in (("online", "qwen2_5_vl_3b"), ("online", "qwen2_5_vl_72b"), ("qwen2_5_vl_3b", "qwen2_5_vl_3b")):
            extra = [] if model == "online" else ["backend=openai", f"backend.base_url={srv.base_url}"]
            cli(["run", f"model={model}", f"judge={judge}", "backend@judge_backend=openai",
                 f"judge_backend.base_url={srv.base_url}", "judge_backend.check_model=false",
                 "judge_backend.backoff_s=0.01", *extra, *common], cwd=tmp)
    labels = tmp / "physicians.csv"   # three physicians on the first case: met on positives, not met on negatives
    rows = ["case_id,criterion_id,physician_id,verdict"]
    for c in recs[0]["rubric"]:
        rows += [f"{recs[0]['id']},{c['id']},dr_{x},{'met' if c['weight'] > 0 else 'not_met'}" for x in "abc"]
    labels.write_text("\n".join(rows) + "\n", encoding="utf-8")
    r = cli(["view", *common, f"report.physicians.csv={labels}", "report.physicians.item_defaults.model=online",
             "report.physicians.item_defaults.mode=multimodal", "report.physicians.item_defaults.sample=0"], cwd=tmp)
    index = Path(r.stdout.strip().splitlines()[-1])
    assert index.is_file() and index.name == "index.html"
    return index


def test_viewer_files_are_static_and_lazy(viewer: Path) -> None:
    folder = viewer.parent
    idx = (folder / "data" / "index.js").read_text(encoding="utf-8")
    assert idx.startswith('MR.receive("index", ')
    index = json.loads(idx[len('MR.receive("index", '):-3])
    assert len(index["runs"]) == 3 and len(index["cases"]) == 6
    assert '"y_orig":' not in idx and '"turns":' not in idx    # case details only in the lazily loaded chunks
    assert list((folder / "data" / "cases").glob("*.js")) and list((folder / "img").iterdir())
    assert "http" not in (folder / "index.html").read_text() + (folder / "viewer.js").read_text().replace(
        "https://", "")                                          # no network


@pytest.fixture(scope="module")
def browser():
    chromium, driver_bin = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_bin:
        pytest.skip("Debian's chromium and chromium-driver are not installed (.ci/run installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--allow-file-access-from-files", "--window-size=1400,1000"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(driver_bin), options=opts)
    d.set_page_load_timeout(60)
    yield d
    d.quit()


def test_navigate_filter_open_enlarge_compare(viewer: Path, browser, tmp_path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    d = browser
    wait = WebDriverWait(d, 20)
    d.get(viewer.as_uri())
    rows = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=run-row]"))
    assert len(rows) == 3
    d.save_screenshot(str(tmp_path / "1-leaderboard.png"))
    online = next(r for r in rows if "online" in r.text and "qwen2.5-vl-3b" in r.text)
    online.click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=case-row]"))
    assert d.find_element(By.CSS_SELECTOR, "[data-testid=n-cases]").text == "6"
    # the injected department is an option like any other, shown as text
    Select(d.find_element(By.CSS_SELECTOR, "[data-testid=filter-department]")).select_by_visible_text(PAYLOAD)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=n-cases]").text == "1")
    assert PAYLOAD in d.find_element(By.CSS_SELECTOR, "[data-testid=cases]").text
    Select(d.find_element(By.CSS_SELECTOR, "[data-testid=filter-department]")).select_by_visible_text("all")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=n-cases]").text == "6")
    Select(d.find_element(By.CSS_SELECTOR, "[data-testid=sort]")).select_by_value("-score")
    wait.until(lambda d: "sort=-score" in d.current_url)
    d.save_screenshot(str(tmp_path / "2-cases.png"))
    # open the case whose y_orig and criterion carry payloads, enlarge an image, compare the two judges
    d.find_elements(By.CSS_SELECTOR, "[data-testid=case-row]")[0].click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=criterion]"))
    assert d.find_elements(By.CSS_SELECTOR, "[data-testid=turn]") and d.find_element(By.CSS_SELECTOR, "[data-testid=reply]").text
    thumbs = d.find_elements(By.CSS_SELECTOR, "[data-testid=thumb]")
    if thumbs:
        thumbs[0].click()
        wait.until(lambda d: d.find_element(By.ID, "modal").is_displayed())
        assert d.execute_script("return document.getElementById('modal-img').naturalWidth") > 0
        d.save_screenshot(str(tmp_path / "3-enlarged.png"))
        d.find_element(By.ID, "modal").click()
        wait.until(lambda d: not d.find_element(By.ID, "modal").is_displayed())
    compare = Select(d.find_element(By.CSS_SELECTOR, "[data-testid=compare]"))
    other_judge = next(o for o in compare.options if o.text.startswith("[other judge]"))
    compare.select_by_visible_text(other_judge.text)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=disagreements]"))
    assert d.find_element(By.CSS_SELECTOR, "[data-testid=score-b]").text
    d.save_screenshot(str(tmp_path / "4-compare.png"))
    # every payload case: text on the page, never markup
    for k in range(6):
        d.get(viewer.as_uri() + f"#/case/{k}/0")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=criterion]"))
    body = d.find_element(By.TAG_NAME, "body").text
    assert d.execute_script("return window.__pwned === undefined")
    d.get(viewer.as_uri() + "#/case/1/0")
    wait.until(lambda d: SCRIPT in d.find_element(By.CSS_SELECTOR, "[data-testid=yorig]").text)
    d.get(viewer.as_uri() + "#/case/2/0")
    wait.until(lambda d: PAYLOAD in d.find_element(By.CSS_SELECTOR, "[data-testid=rubric]").text)
    assert d.execute_script("return window.__pwned === undefined") and body
    # physicians' majority against the judge (the test server's judge says "met" on every criterion)
    d.get(viewer.as_uri() + "#/find?" + "model=online&mode=multimodal&judge=qwen2.5-vl-3b")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=case-row]"))
    d.get(viewer.as_uri() + "#/case/0/" + d.current_url.split("#/run/")[1].split("?")[0])
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=physician-disagreements]"))
    n_neg = sum(1 for tr in d.find_elements(By.CSS_SELECTOR, "[data-testid=criterion]")
                if tr.find_elements(By.TAG_NAME, "td")[1].text.startswith("-"))
    assert d.find_element(By.CSS_SELECTOR, "[data-testid=physician-disagreements]").text.startswith(f"{n_neg} criteria")
    assert "3/3" in d.find_element(By.CSS_SELECTOR, "[data-testid=rubric]").text
    # a report's "cases →" link: the run by model/mode/judge, the row's department as the filter
    from urllib.parse import urlencode

    d.get(viewer.as_uri() + "#/find?" + urlencode({"model": "online", "mode": "multimodal", "judge": "qwen2.5-vl-72b",
                                                    "department": PAYLOAD}))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=n-cases]"))
    assert d.find_element(By.CSS_SELECTOR, "[data-testid=n-cases]").text == "1"
    assert "qwen2.5-vl-72b" in d.find_element(By.TAG_NAME, "h1").text
    severe = [e for e in d.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]]
    assert not severe, severe
