"""`medrealmm deid` end to end on records we write: text and images masked, nothing identifying
written anywhere (outputs, logs), stage-4a removal, resume, review sheets and reviewer decisions."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

try:
    from tests.conftest import cli
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]

NAME, ID, PHONE, HOSPITAL = "王建国", "110105199003071234", "13912345678", "北京协和医院"
# 11010519900307123X is the checksum-valid form of this ID; compute it so the rules accept it
_W = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
ID = ID[:17] + "10X98765432"[sum(int(a) * w for a, w in zip(ID[:17], _W, strict=True)) % 11]
SECRETS = (NAME, ID, PHONE, HOSPITAL, "report_王建国.jpg")


def cjk_font(size: int) -> ImageFont.FreeTypeFont:
    from medrealmm.common.fonts import bundled_font

    path = bundled_font()
    assert path is not None, "the bundled CJK font (pylopdf-fonts-zh-cn) is not installed"
    return ImageFont.truetype(str(path), size)


def report_image(path: Path) -> None:
    """A lab report with a name, an ID and lab values, with EXIF metadata that must go."""
    img = Image.new("RGB", (900, 500), "white")
    d = ImageDraw.Draw(img)
    f = cjk_font(34)
    d.text((40, 30), f"{HOSPITAL}检验报告单", fill="black", font=f)
    d.text((40, 110), f"姓名：{NAME}    性别：男    年龄：34岁", fill="black", font=f)
    d.text((40, 190), f"身份证号：{ID}", fill="black", font=f)
    d.text((40, 290), "白细胞计数  6.5  10^9/L", fill="black", font=f)
    d.text((40, 370), "血红蛋白  135  g/L", fill="black", font=f)
    exif = Image.Exif()
    exif[0x010E] = f"patient {NAME}"       # ImageDescription
    exif[0x013B] = NAME                    # Artist
    img.save(path, exif=exif, quality=95)


def qr_image(path: Path) -> None:
    import segno

    qr = segno.make_qr(f"tel:{PHONE}")
    qr.save(str(path), scale=8, border=4)


def records(folder: Path) -> Path:
    (folder / "images").mkdir(parents=True)
    report_image(folder / "images" / "report_王建国.jpg")
    qr_image(folder / "images" / "qr.png")
    big = Image.new("RGB", (300, 300), "white")
    ImageDraw.Draw(big).text((10, 10), "x", fill="black")
    big.save(folder / "images" / "blank.png")
    rubric = [{"id": "c1", "text": "建议复查血常规", "weight": 5}]
    rows = [
        {"id": "case-1", "department": "血液科", "patient": {"age": 34, "sex": "male", "name": NAME},
         "turns": [{"role": "patient", "text": f"医生您好，我叫{NAME}，电话{PHONE}，身份证{ID}，昨天在{HOSPITAL}查了血，"
                                               "白细胞6.5，发烧3天了，吃了布洛芬0.3g。",
                    "images": [{"path": "images/report_王建国.jpg"}]},
                   {"role": "doctor", "text": "您好，请问还有其他症状吗？"},
                   {"role": "patient", "text": "扫这个码可以看我的报告", "images": [{"path": "images/qr.png"}]}],
         "y_orig": f"{NAME}您好，白细胞正常，建议多喝水，3天后复查。", "rubric": rubric},
        {"id": "case-2", "department": "儿科", "turns": [{"role": "patient", "text": "孩子咳嗽两周了，体温38.5℃。"}],
         "y_orig": "建议查血常规。", "rubric": rubric},
        {"id": "case-bad", "turns": [{"role": "patient", "text": "x", "images": [{"path": "images/missing.jpg"}]}]},
    ]
    (folder / "cases.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                        encoding="utf-8")
    return folder / "cases.jsonl"


@pytest.fixture(scope="module")
def deid_run(tmp_path_factory) -> tuple[Path, Path, str]:
    tmp = tmp_path_factory.mktemp("deid")
    src = records(tmp / "in")
    out = tmp / "out"
    r = cli(["deid", f"deid.input={src}", f"deid.out_dir={out}", "deid.image.detectors.face.enabled=false",
             "hydra.verbose=true"], cwd=tmp)
    return src, out, r.stdout + r.stderr


def all_output_text(out: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in out.rglob("*")
                     if p.is_file() and p.suffix in (".jsonl", ".json", ".html", ".csv", ".log", ".yaml"))


def test_text_is_masked_and_clinical_values_stay(deid_run) -> None:
    _, out, _ = deid_run
    cases = {json.loads(line)["id"]: json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()}
    assert set(cases) == {"case-1", "case-2"}
    t0 = cases["case-1"]["turns"][0]["text"]
    for ph in ("[NAME]", "[PHONE]", "[ID]", "[HOSPITAL]"):
        assert ph in t0, (ph, t0)
    for keep in ("白细胞6.5", "3天", "0.3g", "昨天"):
        assert keep in t0
    assert "[NAME]" in cases["case-1"]["y_orig"]
    assert cases["case-1"]["patient"] == {"age": 34, "sex": "male"}
    errors = (out / "errors.jsonl").read_text().splitlines()
    assert len(errors) == 1 and json.loads(errors[0])["case_id"] == "case-bad"


def test_nothing_identifying_in_outputs_or_logs(deid_run) -> None:
    _, out, logs = deid_run
    text = all_output_text(out) + logs
    for secret in SECRETS:
        assert secret not in text, secret
    audit = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    cats = {s["category"] for a in audit for t in a["texts"] for s in t["spans"]}
    assert {"NAME", "PHONE", "ID", "HOSPITAL"} <= cats
    assert "patient.name" in audit[0]["dropped_fields"]


def test_images_are_masked_without_metadata(deid_run) -> None:
    _, out, _ = deid_run
    case = json.loads((out / "cases.jsonl").read_text().splitlines()[0])
    paths = [out / im["path"] for t in case["turns"] for im in t["images"]]
    assert len(paths) == 2 and all(p.is_file() for p in paths)
    assert all("王" not in p.name for p in paths)
    report, qr = paths
    with Image.open(report) as im:
        assert not im.getexif() and "exif" not in im.info and "icc_profile" not in im.info
    from medrealmm.deid.image.opencv_detectors import qr_decodes

    assert qr_decodes(np.asarray(Image.open(qr).convert("RGB"))) == (0, 0), "the QR code is still there"
    audit = json.loads((out / "audit.jsonl").read_text().splitlines()[0])
    cats = {b["category"] for im in audit["images"] for b in im["boxes"]}
    assert "QR" in cats and cats & {"NAME", "ID", "HOSPITAL"}


def test_rerun_resumes_from_parts(deid_run, tmp_path: Path) -> None:
    src, out, _ = deid_run
    before = (out / "cases.jsonl").read_bytes()
    parts = sorted(p.name for p in (out / "parts").iterdir())
    r = cli(["deid", f"deid.input={src}", f"deid.out_dir={out}", "deid.image.detectors.face.enabled=false"],
            cwd=tmp_path)
    assert (out / "cases.jsonl").read_bytes() == before
    assert sorted(p.name for p in (out / "parts").iterdir()) == parts
    assert r.returncode == 0


def test_review_sheets_and_decisions(deid_run, tmp_path: Path) -> None:
    _, out, _ = deid_run
    cli(["deid-review", f"deid.out_dir={out}", "deid.review.share=1.0"], cwd=tmp_path)
    sheets = sorted((out / "review").glob("batch-*.html"))
    assert sheets and "case-2" in sheets[0].read_text(encoding="utf-8")
    with open(out / "review" / "decisions_template.csv", encoding="utf-8") as fh:
        assert [r["case_id"] for r in csv.DictReader(fh)] == ["case-1", "case-2"]
    case = json.loads((out / "cases.jsonl").read_text().splitlines()[0])
    text = case["turns"][1]["text"]                     # the doctor's turn, nothing masked yet
    start = text.index("其他")
    img = case["turns"][0]["images"][0]["path"]
    decisions = tmp_path / "decisions.csv"
    decisions.write_text("case_id,decision,field,start,end,category,image,x0,y0,x1,y1\n"
                         f"case-1,remask,turns.1.text,{start},{start + 2},NAME,,,,,\n"
                         f"case-1,remask,,,,NAME,{img},0,0,50,50\n"
                         "case-2,reject,,,,,,,,,\n", encoding="utf-8")
    cli(["deid-review", f"deid.out_dir={out}", f"deid.review.decisions={decisions}"], cwd=tmp_path)
    cases = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
    assert [c["id"] for c in cases] == ["case-1"]
    assert "[NAME]" in cases[0]["turns"][1]["text"]
    assert np.asarray(Image.open(out / img).convert("L"))[:44, :44].max() <= 12    # black, up to JPEG noise
    removed = [json.loads(line) for line in (out / "removed.jsonl").read_text().splitlines()]
    assert {"id": "case-2", "reason": "rejected by reviewer"} in removed
    bad = tmp_path / "bad.csv"
    bad.write_text("case_id,decision\ncase-9,accept\n", encoding="utf-8")
    r = cli(["deid-review", f"deid.out_dir={out}", f"deid.review.decisions={bad}"], cwd=tmp_path, check=False)
    assert r.returncode == 2 and "row 1" in r.stderr and "case-9" in r.stderr


def test_missing_face_model_is_a_clear_error(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    (src / "cases.jsonl").write_text('{"id": "a", "turns": [{"role": "patient", "text": "x"}]}\n')
    r = cli(["deid", f"deid.input={src}", f"deid.out_dir={tmp_path / 'out'}"], cwd=tmp_path, check=False)
    assert r.returncode == 2 and "deid.image.detectors.face.model" in r.stderr


@pytest.mark.engine
def test_agent_pass_runs_on_a_real_engine_and_never_logs_identifiers(tmp_path: Path, tiny_cache: Path) -> None:
    """The LLM pass on the tiny random text model (vLLM CPU): its answers are junk (JSON through
    structured outputs, naming nothing in the text), so the agent adds nothing; every text records the
    agent's status in the audit, the rules' masking is kept, and nothing identifying is logged."""
    src = tmp_path / "in"
    src.mkdir()
    rubric = [{"id": "c1", "text": "建议复查", "weight": 5}]
    rows = [{"id": f"a{i}", "department": "内科", "turns": [{"role": "patient", "text": f"我叫{NAME}，电话{PHONE}。"}],
             "y_orig": "您好", "rubric": rubric} for i in range(3)]
    (src / "cases.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    r = cli(["deid", "preset=smoke", "model=tiny_text", f"paths.cache={tiny_cache}", f"deid.input={src}",
             f"deid.out_dir={out}", "deid.text.agent=true", "deid.image.detectors.face.enabled=false"], cwd=tmp_path)
    for secret in (NAME, PHONE):
        assert secret not in r.stdout + r.stderr and secret not in all_output_text(out)
    audit = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    assert len(audit) == 3
    texts = [t for a in audit for t in a["texts"]]
    assert texts and all(t.get("agent") in ("ok", "unparseable") or str(t.get("agent")).startswith("engine_error")
                         for t in texts)
    cases = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
    assert all("[NAME]" in c["turns"][0]["text"] and "[PHONE]" in c["turns"][0]["text"] for c in cases)
