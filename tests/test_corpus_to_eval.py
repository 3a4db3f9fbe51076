"""Raw multimodal logs -> `medrealmm corpus` -> `medrealmm mccp` (tiny VLM on vLLM CPU) -> cases ->
`medrealmm run`: every instance validates against the benchmark schema and runs through the core."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from medrealmm.mccp.instances import read_instances, to_case
from medrealmm.schema import Criterion

try:
    from tests.conftest import cli
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]

pytestmark = pytest.mark.engine


def raw_logs(folder: Path, n: int = 6) -> Path:
    (folder / "images").mkdir(parents=True)
    lines = []
    for i in range(n):
        Image.new("RGB", (64, 48), (200, 40 * (i % 5), 90)).save(folder / "images" / f"r{i}.png")
        Image.new("RGB", (32, 32), "yellow").save(folder / "images" / f"sticker{i}.png")
        events = [
            {"speaker": "system", "content": "您已进入问诊"},
            {"speaker": "patient", "content": f"医生您好，我皮肤起红疹{i + 2}天了，很痒。"},
            {"speaker": "doctor", "content": "您好，请问皮疹在什么部位？有没有发烧？"},
            {"speaker": "patient", "content": "在手臂上，没有发烧。这是照片。"},
            {"speaker": "patient", "modality": "image", "content": f"images/r{i}.png", "origin": "patient_upload"},
            {"speaker": "patient", "modality": "image", "content": f"images/sticker{i}.png", "origin": "sticker"},
            {"speaker": "doctor", "content": "看起来像湿疹，最近有没有接触新的洗涤剂或者化妆品？"},
            {"speaker": "patient", "content": "换了一种洗衣液。需要吃药吗？"},
            {"speaker": "doctor", "content": "建议先停用新洗衣液，外用炉甘石洗剂，一周后不好转再来复诊。"},
        ]
        lines.append({"id": f"log-{i}", "department": "皮肤科", "patient": {"age": 30 + i, "sex": "female"},
                      "events": events})
    path = folder / "logs.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def test_raw_logs_become_cases_that_the_core_evaluates(tmp_path: Path, tiny_cache: Path) -> None:
    logs = raw_logs(tmp_path / "raw")
    out = tmp_path / "outputs"
    common = ["preset=smoke", f"paths.outputs={out}", f"paths.cache={tiny_cache}"]
    cli(["corpus", *common, f"corpus.input={logs}"], cwd=tmp_path)
    kept = out / "corpus" / "sample" / "consultations.jsonl"
    assert len(kept.read_text(encoding="utf-8").splitlines()) == 6

    cli(["mccp", *common, f"mccp.input={kept}", "mccp.agents.sampling.max_tokens=200",
         "mccp.annotate.sampling.max_tokens=120"], cwd=tmp_path)
    mccp = out / "mccp" / "sample"
    instances = read_instances(mccp / "instances.jsonl")
    discarded = [json.loads(x) for x in (mccp / "discarded.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(instances) + len(discarded) == 6 and all(d["reason"] for d in discarded)
    for folder in (out / "corpus" / "sample", mccp):                       # every stage leaves a manifest
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["config"] and manifest["git"] and manifest["packages"]
    assert "model" in json.loads((mccp / "manifest.json").read_text(encoding="utf-8"))["engines"]
    if not instances:
        pytest.skip("the tiny random agents kept no challenge point this time (plumbing checked above)")

    # a fixed rubric stands in for Phase 3 here (tests/test_rubric_engine.py runs the rubric stage itself)
    rubric = [Criterion(id="c1", text="建议停用可疑的洗涤用品", weight=5),
              Criterion(id="c2", text="未经检查直接开口服激素", weight=-3)]
    cases = [to_case(inst, rubric) for inst in instances]
    for case in cases:
        assert case.turns[-1].role == "patient" and case.y_orig
        assert all(im.path.startswith("images/r") for im in case.images)   # the sticker stayed behind
    bench = tmp_path / "raw" / "cases.jsonl"                               # image paths are relative to raw/
    bench.write_text("".join(c.model_dump_json(exclude_none=True) + "\n" for c in cases), encoding="utf-8")
    cli(["run", *common, "data=jsonl", f"data.path={bench}", "data.name=fromlogs"], cwd=tmp_path)
    summary = json.loads(next((out / "runs" / "fromlogs").glob("*/runs/*/summary.json")).read_text(encoding="utf-8"))
    assert summary["cases"] == len(cases) and summary["rejected_cases"] == 0
