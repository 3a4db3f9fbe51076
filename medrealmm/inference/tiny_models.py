"""Tiny random Qwen-style models built offline in seconds, for tests, CI and the `smoke` preset.

The weights are random, so the texts are nonsense, but every real code path runs: tokenizer,
chat template, image processor, vLLM and transformers engines, structured outputs. The BPE
tokenizer is trained on the fly (no hub) on a little Chinese and JSON text so that Chinese prompts
stay short. Builds are deterministic and cached under a folder whose name carries a build version.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

BUILD_VERSION = 1
KINDS = ("text", "vl")
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>",
                  "<|vision_end|>", "<|image_pad|>", "<|video_pad|>", "<think>", "</think>"]

# Qwen-style template: optional system turn, string or list content, one image placeholder per image part.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] in ('image', 'image_url') %}{{ '<|vision_start|><|image_pad|><|vision_end|>' }}"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "{{ '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

_CORPUS_ZH = (
    "医生您好，我最近皮肤起了红疹，很痒，这是化验单和照片，请帮我看看。孩子发烧三天，咳嗽，血常规白细胞偏高。"
    "建议您到医院皮肤科面诊，必要时做真菌镜检。根据您上传的检查报告，血红蛋白偏低，提示贫血可能。"
    "舌苔薄白，脉细，属于气血两虚，可以考虑中药调理。失眠焦虑两个月，情绪低落，需要评估抑郁症状。"
    "甲状腺彩超提示低回声结节，边界清楚，建议定期复查。处方上的药物每日两次，饭后服用，注意不良反应。"
    "评分标准：回复是否指出异常指标，是否建议进一步检查，是否存在不安全的用药建议。理由：满足，不满足。"
)


def _corpus():
    yield _CORPUS_ZH * 4
    for i in range(300):
        yield json.dumps({"rationale": f"理由{i}：回复提到了检查结果", "met": i % 2 == 0}, ensure_ascii=False)
        yield f"case {i}: the reply mentions the image, yes / no, met / not met."


def build_tokenizer(vocab_size: int = 3000):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(_corpus(), trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>", model_max_length=8192)
    fast.chat_template = CHAT_TEMPLATE
    return fast


def _ids(tok) -> dict[str, int]:
    return {t: tok.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}


def _text_config(tok) -> dict:
    ids = _ids(tok)
    return dict(vocab_size=((len(tok) + 63) // 64) * 64, hidden_size=64, intermediate_size=128,
                num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                max_position_embeddings=8192, bos_token_id=ids["<|endoftext|>"],
                eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"])


def build_text(out: Path) -> None:
    import torch
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    tok = build_tokenizer()
    ids = _ids(tok)
    cfg = Qwen3Config(**_text_config(tok), head_dim=32, tie_word_embeddings=True)
    model = Qwen3ForCausalLM(cfg)
    model.generation_config = GenerationConfig(eos_token_id=[ids["<|im_end|>"], ids["<|endoftext|>"]],
                                               pad_token_id=ids["<|endoftext|>"])
    model.save_pretrained(out)
    tok.save_pretrained(out)


def build_vl(out: Path) -> None:
    import torch
    from transformers import (GenerationConfig, Qwen2VLConfig, Qwen2VLForConditionalGeneration,
                              Qwen2VLProcessor)
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil
    from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor

    torch.manual_seed(0)
    tok = build_tokenizer()
    ids = _ids(tok)
    text = _text_config(tok)
    # head_dim = 64 / 2 = 32 -> mrope sections must sum to 16
    text["rope_parameters"] = {"rope_type": "default", "rope_theta": 1e6, "mrope_section": [4, 6, 6]}
    vision = dict(depth=1, embed_dim=32, hidden_size=64, num_heads=2, mlp_ratio=2, patch_size=14,
                  spatial_merge_size=2, temporal_patch_size=2, in_channels=3)
    cfg = Qwen2VLConfig(text_config=text, vision_config=vision, tie_word_embeddings=True,
                        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
                        vision_start_token_id=ids["<|vision_start|>"],
                        vision_end_token_id=ids["<|vision_end|>"])
    model = Qwen2VLForConditionalGeneration(cfg)
    model.generation_config = GenerationConfig(eos_token_id=[ids["<|im_end|>"], ids["<|endoftext|>"]],
                                               pad_token_id=ids["<|endoftext|>"])
    model.save_pretrained(out)
    # few visual tokens per image keeps CPU runs fast: at most 64 merged patches
    pixels = dict(min_pixels=4 * 28 * 28, max_pixels=64 * 28 * 28)
    proc = Qwen2VLProcessor(image_processor=Qwen2VLImageProcessorPil(**pixels), tokenizer=tok,
                            video_processor=Qwen2VLVideoProcessor(**pixels), chat_template=CHAT_TEMPLATE)
    proc.save_pretrained(out)
    tok.save_pretrained(out)


def ensure_tiny_model(kind: str, cache_dir: str | os.PathLike) -> Path:
    """Return the folder of the tiny model ``kind``, building it first if it is not there yet."""
    if kind not in KINDS:
        raise ValueError(f"unknown tiny model {kind!r}; choose one of {KINDS}")
    out = Path(cache_dir).expanduser() / f"tiny-{kind}-v{BUILD_VERSION}"
    if (out / ".complete").exists():
        return out
    import fcntl

    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".tiny-{kind}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent test workers build once
        if not (out / ".complete").exists():
            log.info("building tiny random %s model in %s", kind, out)
            tmp = out.with_name(out.name + ".tmp")
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
            (build_text if kind == "text" else build_vl)(tmp)
            (tmp / ".complete").write_text("ok\n")
            shutil.rmtree(out, ignore_errors=True)
            tmp.rename(out)
    return out


def tiny_engine_config(kind: str, *, max_model_len: int = 4096, max_num_seqs: int = 16,
                       kv_cache_gib: int = 1) -> tuple[dict, dict]:
    """The ``model`` and ``backend`` config of a tiny model on vLLM's CPU engine, sized for tests
    (a small context and KV cache, so several engines fit on a 2-core CI machine one after another)."""
    import yaml

    from medrealmm.config import conf_dir

    role = yaml.safe_load((conf_dir() / "model" / f"tiny_{kind}.yaml").read_text(encoding="utf-8"))
    backend = yaml.safe_load((conf_dir() / "backend" / "vllm.yaml").read_text(encoding="utf-8"))
    role["engine"] = {**(role.get("engine") or {}), "max_model_len": max_model_len, "max_num_seqs": max_num_seqs}
    backend["cpu"]["kv_cache_gib"] = kv_cache_gib
    return role, backend
