"""``deid.text.workers``: the text detector in several processes gives exactly one process's spans."""

from __future__ import annotations

import json
from pathlib import Path

from medrealmm.deid.text_detect import PARALLEL_MIN_TEXTS, ParallelTextDetector, default_text_config, default_text_detector

try:
    from tests.conftest import cli
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]

SENTENCES = ["我叫王建国，电话13912345678，住在杭州市西湖区三墩镇杨柳村", "我哥李德华今年58岁，血压160/100。",
             "上周在湘雅医院住院，住院号A12345678", "孩子咳嗽两周了，体温38.5℃。", "收到，郑洋，您说的情况我了解了"]


def test_workers_give_the_same_spans_in_the_same_order() -> None:
    texts = [f"{s}（{i}）" for i in range(PARALLEL_MIN_TEXTS // len(SENTENCES) + 3) for s in SENTENCES]
    assert len(texts) >= PARALLEL_MIN_TEXTS
    detector = ParallelTextDetector(default_text_config(), workers=2)
    try:
        assert detector.detect(texts) == default_text_detector().detect(texts)
        pool = detector._pool
        assert pool is not None and len(pool._pool) == 2          # the batch really went to two processes
        assert detector.detect(texts[:3]) == default_text_detector().detect(texts[:3])   # small: in process
    finally:
        detector.close()
    assert detector._pool is None


def test_stage_output_does_not_depend_on_workers(tmp_path: Path) -> None:
    rows = [{"id": f"c{i}", "turns": [{"role": "patient", "text": s} for s in SENTENCES] * 30}
            for i in range(3)]
    src = tmp_path / "in" / "cases.jsonl"
    src.parent.mkdir()
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    outputs = []
    for workers in (1, 2):
        out = tmp_path / f"out{workers}"
        r = cli(["deid", f"deid.input={src}", f"deid.out_dir={out}", f"deid.text.workers={workers}",
                 "deid.image.detectors.face.enabled=false"], cwd=tmp_path)
        assert r.returncode == 0, r.stderr[-2000:]
        outputs.append((out / "cases.jsonl").read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1]
    assert "[NAME]" in outputs[0] and "王建国" not in outputs[0]


def test_default_is_one_worker_per_usable_core(monkeypatch) -> None:
    import os

    from medrealmm.common.cores import auto_workers, usable_cores
    from medrealmm.deid.settings import TextSettings

    assert TextSettings().workers == 0                            # conf/deid/default.yaml says 0 too
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)   # a 3-core CPU set
    assert usable_cores() == 3 and auto_workers(0) == 3 and auto_workers(5) == 5
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert auto_workers(0) == 8                                   # capped: each worker holds its own segmenter


def test_stage_starts_one_worker_per_usable_core(monkeypatch) -> None:
    import os

    from medrealmm.deid.build import text_masker
    from medrealmm.deid.settings import TextSettings

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    masker, _ = text_masker({"deid": {}}, TextSettings())
    try:
        assert isinstance(masker.rules, ParallelTextDetector) and masker.rules.workers == 2
    finally:
        masker.close()
    masker, _ = text_masker({"deid": {}}, TextSettings(workers=1))
    assert not isinstance(masker.rules, ParallelTextDetector)
