"""`medrealmm plan` counts the prompt tokens a run sends: the same totals vLLM's CPU engine records in the
run's manifest, for generation (text and images, both modes) and for judging (exact with the Online
baseline, whose replies are known before the run)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import cli, run_dir, shared_dir

BASE = ["preset=smoke", "data.limit=3", "run.modes=[multimodal,text]"]


def planned(out: Path, cache: Path, cwd: Path, *extra: str) -> dict[str, tuple[int, int]]:
    """(requests, prefill tokens) per role, read off the plan's workload lines."""
    r = cli(["plan", *BASE, f"paths.outputs={out}", f"paths.cache={cache}", *extra], cwd=cwd)
    rows = re.findall(r"^\s+(model|judge)\s+\S+\s+([\d,]+) requests; prefill ([\d,]+) tokens", r.stdout, re.M)
    assert len(rows) == 2, r.stdout
    assert "submit: slurm/submit.sh" in r.stdout and "assumptions (H100, per GPU)" in r.stdout
    return {role: (int(n.replace(",", "")), int(t.replace(",", ""))) for role, n, t in rows}


def manifest(out: Path) -> dict:
    return json.loads((run_dir(out) / "manifest.json").read_text(encoding="utf-8"))


@pytest.mark.engine
def test_generation_prompt_tokens_equal_the_engines(tmp_path: Path, tiny_cache: Path) -> None:
    out = tmp_path / "out"
    plan = planned(out, tiny_cache, tmp_path)
    cli(["generate", *BASE, f"paths.outputs={out}", f"paths.cache={tiny_cache}"], cwd=tmp_path)
    stats = manifest(out)["stats"]["generation"]
    assert plan["model"] == (stats["planned"], stats["prompt_tokens"])
    assert stats["prompt_tokens"] > 1000


@pytest.mark.engine
def test_judge_prompt_tokens_equal_the_engines_for_the_online_baseline(tmp_path: Path, tiny_cache: Path) -> None:
    out = tmp_path / "out"
    extra = ["model=online", "judge.sees_images=true", "judge.max_retries=0", "judge.max_unscored_share=1.0",
             "run.scoring.unscored_policy=drop_criteria"]
    plan = planned(out, tiny_cache, tmp_path, *extra)
    assert plan["model"] == (0, 0)
    cli(["run", *BASE, f"paths.outputs={out}", f"paths.cache={tiny_cache}", *extra], cwd=tmp_path, check=False)
    stats = manifest(out)["stats"]["judging"]
    assert stats["requests"] == plan["judge"][0]          # no retries: every request is a planned one
    assert plan["judge"] == (stats["requests"], stats["prompt_tokens"])


def test_image_tokens_follow_the_real_qwen2_5_vl_processor() -> None:
    """Qwen2.5-VL: one token per 28 x 28 pixels after resizing to multiples of 28 within the pixel limits."""
    import io

    from PIL import Image

    from medrealmm.inference.token_count import PromptCounter
    from medrealmm.inference.tiny_models import CHAT_TEMPLATE

    shared = shared_dir()

    def png(w: int, h: int) -> bytes:
        buf = io.BytesIO()
        Image.new("RGB", (w, h), "white").save(buf, format="PNG")
        return buf.getvalue()

    images = {"a": png(280, 280), "b": png(560, 280)}
    counter = PromptCounter(str(shared / "models" / "qwen2_5_vl_tokenizer"), chat_template=CHAT_TEMPLATE,
                            image_bytes=images.__getitem__)
    msg = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "a"}},
                                        {"type": "image_url", "image_url": {"url": "b"}},
                                        {"type": "text", "text": "请看化验单"}]}]
    text, image = counter.count(msg)
    assert image == 100 + 200 - 2                 # each placeholder token becomes the image's tokens
    assert counter.count([{"role": "user", "content": "请看化验单"}]) == (text - 6, 0)   # two vision blocks of 3
    capped = PromptCounter(str(shared / "models" / "qwen2_5_vl_tokenizer"), chat_template=CHAT_TEMPLATE,
                           image_bytes=images.__getitem__, mm_processor_kwargs={"max_pixels": 28 * 28 * 50})
    assert capped.count(msg)[1] < image           # the config's pixel cap reaches the count, as in vLLM
