"""The transformers backend on the tiny random Qwen2-VL and Qwen3 models (CPU, a few seconds each).

The tiny models' random weights are so small that greedy decoding ignores the prompt (it emits the
same token for every input), which would make "batched equals one by one" hold trivially. The
fixtures therefore scale every weight matrix except the embeddings by 8: the outputs then depend
on every prompt token and image pixel, so a padding or ordering bug changes the text.
"""

from __future__ import annotations

import base64
import io
import time

import pytest

from medrealmm.inference.base import ChatRequest, Completion, Sampling
from medrealmm.inference.tiny_models import ensure_tiny_model

pytestmark = pytest.mark.engine

TEXTS = ["医生您好，我最近皮肤起了红疹，很痒", "孩子发烧三天，咳嗽", "hi", "评分标准：回复是否指出异常指标",
         "舌苔薄白，脉细", "case 1: yes / no", "失眠焦虑两个月，情绪低落", "甲状腺彩超提示低回声结节",
         "处方上的药物每日两次", "建议您到医院皮肤科面诊", "血红蛋白偏低", "请帮我看看这张化验单"]


def data_url(color, size=(60, 40)) -> str:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def chat(text: str, n_images: int = 0, *, seed_color: int = 0, system: bool = False) -> list[dict]:
    parts = [{"type": "image_url",
              "image_url": {"url": data_url(((seed_color + 70 * i) % 256, 90, 200 - 40 * i),
                                            (50 + 20 * i, 40 + 10 * i))}} for i in range(n_images)]
    msgs = [{"role": "system", "content": "你是一名全科医生。"}] if system else []
    if n_images:
        msgs.append({"role": "user", "content": parts + [{"type": "text", "text": text}]})
    else:  # plain string content, as text-only cases are sent
        msgs.append({"role": "user", "content": text})
    return msgs


def sharpen(backend) -> None:
    import torch

    with torch.no_grad():
        for name, p in backend.model.named_parameters():
            if p.dim() == 2 and "embed" not in name:
                p.mul_(8.0)


@pytest.fixture(scope="session")
def tiny_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("tiny-models")


@pytest.fixture(scope="module")
def vl(tiny_cache):
    from medrealmm.inference.transformers_backend import TransformersBackend

    be = TransformersBackend("tiny-vl", str(ensure_tiny_model("vl", tiny_cache)), batch_size=4)
    sharpen(be)
    yield be
    be.close()


@pytest.fixture(scope="module")
def text_model(tiny_cache):
    from medrealmm.inference.transformers_backend import TransformersBackend

    be = TransformersBackend("tiny-text", str(ensure_tiny_model("text", tiny_cache)), batch_size=3)
    sharpen(be)
    yield be
    be.close()


GREEDY = Sampling(temperature=0.0, max_tokens=12)


def mixed_requests() -> list[ChatRequest]:
    return [ChatRequest(chat(t, i % 3, seed_color=37 * i, system=i % 4 == 0), GREEDY)
            for i, t in enumerate(TEXTS)]


def test_vl_mixed_batch_matches_one_by_one(vl):
    reqs = mixed_requests()
    t = time.perf_counter()
    batched = vl.chat(reqs, desc="tiny-vl")
    elapsed = time.perf_counter() - t
    assert len(batched) == len(reqs)
    for c in batched:
        assert c.error is None and isinstance(c.text, str) and c.text
        assert c.finish_reason in ("stop", "length") and c.cached_tokens is None
        assert 0 < c.completion_tokens <= 12 and c.prompt_tokens > 0
    # distinct outputs: equality below checks order and padding, not a constant answer
    assert len({c.text for c in batched}) >= len(reqs) - 1
    single = [vl.chat([r])[0] for r in reqs]
    # exact: left padding + attention mask (and Qwen2-VL's mask-aware rope positions) leave each
    # row's computation unchanged in float32 on CPU; a drift would show up as different tokens here
    assert [c.text for c in batched] == [c.text for c in single]
    assert [c.prompt_tokens for c in batched] == [c.prompt_tokens for c in single]
    assert [c.completion_tokens for c in batched] == [c.completion_tokens for c in single]
    assert elapsed < 20


def test_padding_changes_logits_only_by_rounding(vl, text_model):
    """The first-token logits of a left-padded batch equal the unbatched ones up to float32 rounding."""
    import torch

    for be in (vl, text_model):
        n_img = 3 if be.is_vision else 1
        items = [be._prepare(i, ChatRequest(chat(t, i % n_img, seed_color=37 * i), GREEDY))
                 for i, t in enumerate(TEXTS[:8])]
        with torch.inference_mode():
            enc = be._encode(items)
            batched = be.model(**enc).logits[:, -1]
            single = torch.cat([be.model(**be._encode([p])).logits[:, -1] for p in items])
        assert (enc["attention_mask"] == 0).any()  # some rows really are padded
        assert (batched - single).abs().max().item() < 1e-5 * max(1.0, single.abs().max().item())


def test_images_reach_the_model(vl):
    text = "请帮我看看这张化验单"
    none, one, two = vl.chat([ChatRequest(chat(text, n), GREEDY) for n in (0, 1, 2)])
    assert none.prompt_tokens < one.prompt_tokens < two.prompt_tokens
    red, blue = vl.chat([ChatRequest(chat(text, 1, seed_color=c), GREEDY) for c in (250, 10)])
    assert red.prompt_tokens == blue.prompt_tokens and red.text != blue.text  # pixels matter


def test_max_pixels_limits_image_tokens(vl):
    image = {"type": "image_url", "image_url": {"url": data_url((9, 9, 9), (400, 400))}}
    big = [{"role": "user", "content": [image, {"type": "text", "text": "看"}]}]
    default = vl.chat([ChatRequest(big, Sampling(max_tokens=1))])[0]
    vl.max_pixels = 8 * 28 * 28
    try:
        small = vl.chat([ChatRequest(big, Sampling(max_tokens=1))])[0]
    finally:
        vl.max_pixels = None
    # the tiny processor caps an image at 64 merged patches; max_pixels=8 patches cuts that down
    assert default.prompt_tokens - small.prompt_tokens >= 50


def test_seeded_sampling_is_reproducible(vl):
    def run(seed):
        s = Sampling(temperature=1.0, top_p=0.95, top_k=50, max_tokens=10, seed=seed)
        return [c.text for c in vl.chat([ChatRequest(chat(t, i % 2), s) for i, t in enumerate(TEXTS[:6])])]

    first = run(1)
    assert run(1) == first
    assert run(2) != first


def test_max_tokens_and_stop_strings(vl):
    out = vl.chat([ChatRequest(chat(t), Sampling(max_tokens=3)) for t in TEXTS[:3]])
    assert all(c.finish_reason == "length" and c.completion_tokens == 3 for c in out)
    long = vl.chat([ChatRequest(chat(TEXTS[0]), Sampling(max_tokens=20))])[0]
    stop = long.text[6:8]
    cut = long.text[:long.text.index(stop)]
    c = vl.chat([ChatRequest(chat(TEXTS[0]), Sampling(max_tokens=20, stop=(stop,)))])[0]
    assert (c.text, c.finish_reason) == (cut, "stop")  # stop string itself excluded, like vLLM
    assert c.completion_tokens < 20


def test_finish_reason_from_eos(vl):
    eos, pad = vl.tokenizer.convert_tokens_to_ids("<|im_end|>"), vl.tokenizer.pad_token_id
    assert eos in vl.eos_ids and pad in vl.eos_ids  # Qwen style: <|endoftext|> pads and also ends
    body = vl.tokenizer.encode("建议您", add_special_tokens=False)
    c = vl._completion(body + [eos, pad, pad], 7, Sampling(max_tokens=len(body) + 3))
    assert (c.finish_reason, c.completion_tokens, c.prompt_tokens) == ("stop", len(body) + 1, 7)
    assert c.text == "建议您"
    c = vl._completion(body, 7, Sampling(max_tokens=len(body)))
    assert (c.finish_reason, c.completion_tokens, c.text) == ("length", len(body), "建议您")


def test_mixed_settings_are_grouped_in_request_order(vl):
    settings = [GREEDY, Sampling(max_tokens=4), Sampling(temperature=0.8, max_tokens=6, seed=3),
                Sampling(max_tokens=12, repetition_penalty=1.3),
                Sampling(max_tokens=12, presence_penalty=1.5)]
    reqs = [ChatRequest(chat(t, i % 2), settings[i % len(settings)],
                        chat_template_kwargs={"enable_thinking": False} if i % 3 == 0 else {})
            for i, t in enumerate(TEXTS[:10])]
    batched = vl.chat(reqs)
    assert all(c.error is None for c in batched)
    assert [c.completion_tokens for i, c in enumerate(batched) if i % 5 == 1] == [4, 4]
    greedy = [i for i in range(len(reqs)) if reqs[i].sampling.temperature == 0]
    for i in greedy:  # deterministic requests: grouping must not change their answers
        assert batched[i].text == vl.chat([reqs[i]])[0].text


def test_penalties_change_the_output(tiny_cache):
    """On the unsharpened model greedy repeats one token forever, so any penalty must show."""
    import torch

    from medrealmm.inference.transformers_backend import TransformersBackend, _presence_penalty_processor

    proc = _presence_penalty_processor(1.5, prompt_len=2)
    scores = torch.zeros(1, 6)
    out = proc(torch.tensor([[4, 5, 1, 3, 1]]), scores)  # prompt 4, 5 not penalized; 1 once
    assert out.tolist() == [[0.0, -1.5, 0.0, -1.5, 0.0, 0.0]]

    be = TransformersBackend("tiny-text", str(ensure_tiny_model("text", tiny_cache)))
    try:
        msgs = chat(TEXTS[0])
        plain, rep, pres = be.chat([ChatRequest(msgs, Sampling(max_tokens=8, **kw)) for kw in
                                    ({}, {"repetition_penalty": 5.0}, {"presence_penalty": 2.0})])
        assert len(set(plain.text)) == 1  # one token repeated
        assert rep.text != plain.text and pres.text != plain.text
    finally:
        be.close()


def test_bad_request_and_failed_chunk_are_isolated(vl, monkeypatch):
    bad = ChatRequest([{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,bm90IGFuIGltYWdl"}},
        {"type": "text", "text": "看"}]}], GREEDY)
    reqs = mixed_requests()[:5]
    out = vl.chat(reqs[:2] + [bad] + reqs[2:])
    assert out[2].text is None and out[2].error
    assert all(c.error is None and c.text for i, c in enumerate(out) if i != 2)

    encode = vl._encode

    def flaky(items):  # a prompt that breaks the processor takes its whole chunk down
        if any("BOOM" in p.text for p in items):
            raise RuntimeError("processor exploded")
        return encode(items)

    monkeypatch.setattr(vl, "_encode", flaky)
    boom = ChatRequest(chat("BOOM"), GREEDY)
    out = vl.chat(reqs[:3] + [boom])
    assert out[3].text is None and "processor exploded" in out[3].error
    assert [c.text for c in out[:3]] == [c.text for c in vl.chat(reqs[:3])]


def test_text_model_rejects_images_others_succeed(text_model):
    reqs = [ChatRequest(chat(t, system=True), GREEDY) for t in TEXTS[:4]]
    reqs.insert(2, ChatRequest(chat("看看这张照片", 1), GREEDY))
    reqs.append(ChatRequest([{"role": "user", "content": [{"type": "text", "text": "甲状腺"},
                                                          {"type": "text", "text": "结节"}]}], GREEDY))
    out = text_model.chat(reqs, desc="tiny-text")
    assert out[2].text is None and "no vision input" in out[2].error
    ok = [c for i, c in enumerate(out) if i != 2]
    assert all(c.error is None and c.text and c.finish_reason == "length" for c in ok)
    assert [c.text for c in ok] == [text_model.chat([r])[0].text for i, r in enumerate(reqs) if i != 2]


def test_describe(vl, text_model):
    for be, vision in ((vl, True), (text_model, False)):
        d = be.describe()
        assert d["backend"] == "transformers" and d["structured_outputs"] is False
        assert d["device"] == "cpu" and d["dtype"] == "float32" and d["vision"] is vision
        assert d["batch_size"] == be.batch_size
        assert d["transformers_version"] and d["torch_version"]
        assert d["model"]["resolved"] and "config.json" in d["model"]["files"]


def test_close_frees_the_model(tiny_cache):
    from medrealmm.inference.transformers_backend import TransformersBackend

    be = TransformersBackend("tiny-text", str(ensure_tiny_model("text", tiny_cache)))
    assert isinstance(be.chat([ChatRequest(chat("hi"), Sampling(max_tokens=2))])[0], Completion)
    be.close()
    assert not hasattr(be, "model")
    be.close()  # twice is harmless


def test_chat_template_override_and_kwargs(vl, text_model, caplog):
    from medrealmm.inference.tiny_models import CHAT_TEMPLATE

    template = "{% if preamble %}<|im_start|>system\n病历摘要如下<|im_end|>\n{% endif %}" + CHAT_TEMPLATE
    for be in (vl, text_model):
        be.chat_template = template
        try:
            s = Sampling(max_tokens=1)
            plain, longer, unknown = be.chat([
                ChatRequest(chat("hi"), s), ChatRequest(chat("hi"), s, chat_template_kwargs={"preamble": True}),
                ChatRequest(chat("hi"), s, chat_template_kwargs={"enable_thinking": False})])
        finally:
            be.chat_template = None
        assert longer.prompt_tokens > plain.prompt_tokens == unknown.prompt_tokens
    assert "processor_kwargs" not in caplog.text  # unused kwargs are dropped quietly
