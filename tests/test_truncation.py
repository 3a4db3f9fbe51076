"""Truncated replies are recorded, counted and never judged — on the tiny VLM through vLLM's CPU engine,
with a chat template that opens ``<think>`` itself (as several reasoning models' templates do) and with
replies cut at ``max_tokens``."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from medrealmm.inference.tiny_models import CHAT_TEMPLATE
from tests.conftest import cli, read_tables, run_dir

pytestmark = pytest.mark.engine

N = 3


def base(out: Path, cache: Path, *extra: str) -> list[str]:
    return ["run", "preset=smoke", f"data.limit={N}", f"paths.outputs={out}", f"paths.cache={cache}",
            "judge=tiny_text", *extra]


def test_a_template_that_opens_think_makes_unclosed_replies_truncated(tmp_path, tiny_cache) -> None:
    template = tmp_path / "think.jinja"
    template.write_text(CHAT_TEMPLATE.replace("'<|im_start|>assistant\\n'", "'<|im_start|>assistant\\n<think>\\n'"),
                        encoding="utf-8")
    out = tmp_path / "out"
    r = cli(base(out, tiny_cache, f"+model.chat_template={template}", "model.sampling.max_tokens=24"),
            cwd=tmp_path, check=False)
    t = read_tables(run_dir(out))
    g = t["generations"]
    assert g.height == N and g["error"].null_count() == N
    closed = g.filter(pl.col("truncated").is_null())
    # the random model almost never writes </think>; whatever did not is truncated, whatever did is an answer
    assert (g.filter(pl.col("truncated").is_not_null())["truncated"] == "reasoning_unclosed").all()
    assert set(t["verdicts"]["generation_key"]) <= set(closed["key"])         # never judged
    assert t["summary"]["n_truncated"].sum() == (N - closed.height if t["summary"].height else 0)
    assert json.loads((run_dir(out) / "summary.json").read_text())["truncated_replies"] == N - closed.height
    m = json.loads((run_dir(out) / "manifest.json").read_text())
    assert m["stats"]["generation"]["template_opens_think"] == 1
    if closed.height == 0:
        assert r.returncode == 2 and "truncated" in r.stderr and "max_truncated_share" in r.stderr


def test_replies_cut_at_max_tokens_are_truncated_and_can_be_retried(tmp_path, tiny_cache) -> None:
    out = tmp_path / "out"
    args = base(out, tiny_cache, "model.sampling.max_tokens=4", "model.reasoning.length_is_truncation=true",
                "run.max_truncated_share=1.0", "run.max_missing_share=1.0", "run.generation.retry_truncated=1")
    r = cli(args, cwd=tmp_path, check=False)
    t = read_tables(run_dir(out))
    g = t["generations"]
    assert g["truncated"].to_list() == ["max_tokens"] * N                     # 4 random tokens never end a reply
    assert t["verdicts"].height == 0 and t["case_scores"].height == 0
    m = json.loads((run_dir(out) / "manifest.json").read_text())
    assert m["stats"]["generation"]["truncated"] == N and m["stats"]["generation"]["truncated_retries"] == N
    assert r.returncode == 2                                                  # nothing left to score
    md = (run_dir(out) / "summary.md").read_text(encoding="utf-8")
    assert f"truncated replies (reasoning not closed or max_tokens reached; not judged): {N}" in md
