"""Plain transformers engine: batched ``generate`` for models vLLM cannot serve (or for debugging).

Slower than vLLM, but it runs any checkpoint transformers can load, needs no engine process, and
gives exact control over the prompt. Requests arrive in the OpenAI chat format (see ``base``);
image parts are turned into Qwen-style ``{"type": "image"}`` parts, fetched and resized with
``qwen_vl_utils.process_vision_info`` and fed to the model's processor.

Choices that matter for reproducibility and for comparing with vLLM:

- Left padding, and prompts are tokenized without extra special tokens (the chat template already
  writes them), so a batched prompt is the same token sequence as the unbatched one.
- The checkpoint's own sampling defaults (``generation_config.json``: temperature, top_p,
  repetition_penalty, ...) are dropped; only its token ids are kept. The request's ``Sampling`` is
  the whole story, as with vLLM.
- Stop strings: ``generate`` stops a row as soon as one appears (``stop_strings`` + tokenizer), then
  the text is truncated post hoc before the stop string, which vLLM's output also excludes.
- ``presence_penalty`` is applied by a small logits processor (vLLM semantics: generated tokens
  only). ``repetition_penalty`` is transformers' own, which also counts prompt tokens (as vLLM
  does) and, in a padded batch, the pad token; that can only lower the pad/EOS token's score.
- Requests are grouped by settings (all but the seed), sorted by prompt size within a group (less
  padding) and cut into chunks of ``batch_size``. Sampling is seeded per chunk (the chunk's first
  request's seed + chunk index): the same batch gives the same outputs, but a sampled answer
  depends on its chunk, not on the request's seed alone. Greedy answers do not depend on the
  batch: padded and unpadded logits differ by float rounding only (~1e-7 in float32 on CPU).
- ``json_schema`` is ignored (no constrained decoding here); ``describe()`` says so.
"""

from __future__ import annotations

import gc
import json
import logging
from pathlib import Path
from typing import Any

from medrealmm.inference.base import ChatRequest, Completion, Sampling
from medrealmm.inference.model_files import fingerprint, resolve_local

log = logging.getLogger(__name__)

# generation_config.json keys kept from the checkpoint: which tokens end or pad a sequence
_TOKEN_ID_KEYS = ("eos_token_id", "pad_token_id", "bos_token_id", "decoder_start_token_id")


def has_image_processor(path: str, trust_remote_code: bool = False) -> bool:
    """Whether the model folder ships an image processor, i.e. takes images as input."""
    folder = resolve_local(path)
    if folder is not None:
        if (folder / "preprocessor_config.json").is_file():
            return True
        proc = folder / "processor_config.json"
        if proc.is_file():
            try:
                return "image_processor" in json.loads(proc.read_text())
            except (OSError, ValueError):
                return True
        return False
    try:  # not a local folder: ask transformers (it may download)
        from transformers import AutoProcessor

        p = AutoProcessor.from_pretrained(path, trust_remote_code=trust_remote_code)
        return getattr(p, "image_processor", None) is not None
    except Exception:
        return False


def _image_url(part: dict[str, Any]) -> Any:
    url = part.get("image_url")
    return url.get("url") if isinstance(url, dict) else url


def count_images(messages: list[dict[str, Any]]) -> int:
    n = 0
    for m in messages:
        if isinstance(m.get("content"), list):
            n += sum(1 for p in m["content"] if p.get("type") in ("image_url", "image", "input_image"))
    return n


def to_qwen_messages(messages: list[dict[str, Any]], *, max_pixels: int | None = None,
                     min_pixels: int | None = None) -> list[dict[str, Any]]:
    """OpenAI image parts -> Qwen ``{"type": "image", "image": url}`` parts (pixel limits per image)."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            parts = []
            for p in content:
                t = p.get("type")
                if t == "text":
                    parts.append({"type": "text", "text": p.get("text", "")})
                elif t in ("image_url", "image"):
                    img = _image_url(p) if t == "image_url" else p.get("image")
                    if img is None:
                        raise ValueError(f"image part without an image: {str(p)[:100]}")
                    part: dict[str, Any] = {"type": "image", "image": img}
                    if max_pixels is not None:
                        part["max_pixels"] = max_pixels
                    if min_pixels is not None:
                        part["min_pixels"] = min_pixels
                    parts.append(part)
                else:
                    raise ValueError(f"unsupported content part type {t!r}")
            content = parts
        out.append({**m, "content": content})
    return out


def to_text_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Text parts joined with newlines into a string, as vLLM's "string" content format does."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            bad = [p.get("type") for p in content if p.get("type") != "text"]
            if bad:
                raise ValueError(f"unsupported content part type {bad[0]!r}")
            content = "\n".join(p.get("text", "") for p in content)
        out.append({**m, "content": content})
    return out


def _group_key(req: ChatRequest) -> str:
    """Requests that can share one ``generate`` call: same settings except the seed."""
    s: Sampling = req.sampling
    sampling = (("greedy",) if s.temperature <= 0 else ("sample", s.temperature, s.top_p, s.top_k))
    return repr((sampling, s.max_tokens, s.repetition_penalty, s.presence_penalty, tuple(s.stop),
                 sorted((req.chat_template_kwargs or {}).items())))


def _presence_penalty_processor(penalty: float, prompt_len: int):
    """vLLM-style presence penalty: subtract ``penalty`` once from every token already generated."""
    import torch
    from transformers import LogitsProcessor

    class PresencePenalty(LogitsProcessor):
        def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
            gen = input_ids[:, prompt_len:]
            if gen.shape[1] == 0:
                return scores
            seen = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, gen, True)
            return scores - penalty * seen.to(scores.dtype)  # type: ignore[return-value]  # a FloatTensor

    return PresencePenalty()


class _Prepared:
    """One request rendered to prompt text plus its images; ``size`` orders a group by length."""

    __slots__ = ("index", "text", "images", "size")

    def __init__(self, index: int, text: str, images: list[Any], size: int):
        self.index, self.text, self.images, self.size = index, text, images, size


def _device_and_dtype(device: str, dtype: str) -> tuple[str, str]:
    """``auto`` resolved: CUDA when present, else CPU; bfloat16 on CUDA, float32 on CPU (bf16 on CPU is slow
    or unsupported on many CPUs)."""
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if dtype == "auto":
        dtype = "bfloat16" if device.startswith("cuda") else "float32"
    return device, dtype


def _read_template(chat_template: str | None) -> str | None:
    """A chat template given as a file path is read; a template string is kept as it is."""
    if chat_template and "{" not in chat_template and Path(chat_template).expanduser().is_file():
        # a path, not the template itself (a long template string is no file name: stat() would fail on it)
        return Path(chat_template).expanduser().read_text()
    return chat_template


class TransformersBackend:
    """One transformers model (vision-language or text-only) answering batches of chats."""

    def __init__(self, name: str, path: str, *, device: str = "auto", dtype: str = "auto",
                 batch_size: int = 8, attn_implementation: str | None = None,
                 trust_remote_code: bool = False, max_pixels: int | None = None,
                 min_pixels: int | None = None, chat_template: str | None = None, seed: int = 0):
        import torch
        import transformers

        self.name, self.path = name, path
        self.batch_size = max(1, int(batch_size))
        self.max_pixels, self.min_pixels, self.seed = max_pixels, min_pixels, seed
        self.attn_implementation, self.trust_remote_code = attn_implementation, trust_remote_code
        self.device, self.dtype = _device_and_dtype(device, dtype)
        self.chat_template = _read_template(chat_template)
        self.is_vision = has_image_processor(path, trust_remote_code)
        self._load_model()
        self._keep_token_ids()
        ip = getattr(self.processor, "image_processor", None)
        # qwen_vl_utils resizes to multiples of patch_size * 2 (14 for Qwen2/2.5-VL, 16 for Qwen3-VL)
        self.image_patch_size = int(getattr(ip, "patch_size", None) or 14)
        self.versions = {"transformers_version": transformers.__version__,
                         "torch_version": torch.__version__}

    def _load_model(self) -> None:
        """The processor (a vision-language model) or tokenizer, and the model, in eval mode on the device."""
        import torch

        path, trust = self.path, self.trust_remote_code
        on_cuda = self.device.startswith("cuda")
        load: dict[str, Any] = {"dtype": getattr(torch, self.dtype), "trust_remote_code": trust}
        if self.attn_implementation:
            load["attn_implementation"] = self.attn_implementation
        if on_cuda:  # "cuda" spreads a large model over all visible GPUs; "cuda:1" pins one
            load["device_map"] = "auto" if self.device == "cuda" else self.device
        log.info("loading %s (%s) with transformers on %s, %s, %s", self.name, path, self.device, self.dtype,
                 "vision-language" if self.is_vision else "text-only")
        if self.is_vision:
            from transformers import AutoModelForImageTextToText, AutoProcessor

            self.processor = AutoProcessor.from_pretrained(path, trust_remote_code=trust)
            self.tokenizer = self.processor.tokenizer
            self.model = AutoModelForImageTextToText.from_pretrained(path, **load)
        else:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            self.processor = None
            self.tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=trust)
            self.model = AutoModelForCausalLM.from_pretrained(path, **load)
        if not on_cuda:
            self.model.to(self.device)  # type: ignore[arg-type]  # transformers' stub wraps .to oddly
        self.model.eval()
        self.tokenizer.padding_side = "left"  # decoder-only: new tokens must follow the prompt directly

    def _keep_token_ids(self) -> None:
        """Keep only the checkpoint's token ids (which tokens end or pad a sequence): sampling comes from
        each request. The dropped sampling defaults are logged and kept for ``describe()``."""
        from transformers import GenerationConfig

        original = self.model.generation_config.to_dict()
        ids = {k: original.get(k) for k in _TOKEN_ID_KEYS if original.get(k) is not None}
        ids.setdefault("eos_token_id", self.tokenizer.eos_token_id)
        if self.tokenizer.pad_token_id is None:
            eos = ids["eos_token_id"]
            self.tokenizer.pad_token_id = eos[0] if isinstance(eos, list) else eos
        ids.setdefault("pad_token_id", self.tokenizer.pad_token_id)
        self.model.generation_config = GenerationConfig(**ids)
        eos = ids["eos_token_id"]
        self.eos_ids = set(eos if isinstance(eos, list) else [eos]) - {None}
        self.dropped_generation_defaults = {
            k: v for k, v in original.items()
            if k in ("do_sample", "temperature", "top_p", "top_k", "min_p", "repetition_penalty",
                     "presence_penalty", "max_new_tokens", "max_length") and v is not None}
        if self.dropped_generation_defaults:
            log.info("ignoring the checkpoint's generation defaults %s", self.dropped_generation_defaults)

    # ---------------------------------------------------------------- prompt building

    def _prepare(self, index: int, req: ChatRequest) -> _Prepared:
        """Render one request to prompt text and load its images; raises on a bad request."""
        kwargs = self._template_kwargs(dict(req.chat_template_kwargs or {}))
        if self.chat_template:
            kwargs["chat_template"] = self.chat_template
        n_images = count_images(req.messages)
        if not self.is_vision:
            if n_images:
                raise ValueError(f"model {self.name!r} is text-only and has no vision input; "
                                 f"the request has {n_images} image(s)")
            text = self.tokenizer.apply_chat_template(to_text_messages(req.messages), tokenize=False,
                                                      add_generation_prompt=True, **kwargs)
            return _Prepared(index, text, [], len(text))
        from qwen_vl_utils import process_vision_info

        msgs = to_qwen_messages(req.messages, max_pixels=self.max_pixels, min_pixels=self.min_pixels)
        images: list[Any] = []
        if n_images:
            images = process_vision_info(msgs, image_patch_size=self.image_patch_size)[0] or []
        text = self.processor.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True, **kwargs)
        merged = (self.image_patch_size * 2) ** 2
        return _Prepared(index, text, images, len(text) + sum(i.width * i.height // merged for i in images))

    def generation_prompt(self, chat_template_kwargs: dict[str, Any] | None = None) -> str:
        """The prompt the chat template renders for one user message: tells whether it opens ``<think>``."""
        kwargs = self._template_kwargs(dict(chat_template_kwargs or {}))
        if self.chat_template:
            kwargs["chat_template"] = self.chat_template
        owner = self.processor if self.is_vision else self.tokenizer
        return owner.apply_chat_template([{"role": "user", "content": [{"type": "text", "text": "你好"}]}]
                                         if self.is_vision else [{"role": "user", "content": "你好"}],
                                         tokenize=False, add_generation_prompt=True, **kwargs)

    def _template_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Drop kwargs the processor's template does not use (e.g. ``enable_thinking`` for a model
        without thinking mode): a processor would take them for processor arguments and warn for
        every request. vLLM drops them the same way; tokenizers ignore them anyway."""
        if not kwargs or self.processor is None:
            return kwargs
        try:
            from transformers.utils.chat_template_utils import _get_template_variables

            template = self.chat_template or self.processor.chat_template
            if isinstance(template, dict):
                template = template.get("default")
            known = _get_template_variables(template)
        except Exception:  # private helper moved or template unreadable: pass everything on
            return kwargs
        if set(kwargs) - known:
            log.debug("chat template of %s ignores %s", self.name, sorted(set(kwargs) - known))
        return {k: v for k, v in kwargs.items() if k in known}

    def _encode(self, items: list[_Prepared]):
        texts = [p.text for p in items]
        if self.processor is None:
            return self.tokenizer(texts, padding=True, add_special_tokens=False, return_tensors="pt")
        # one list of images per prompt: Qwen processors flatten it, others (Gemma 3) need the nesting
        images = [p.images for p in items] if any(p.images for p in items) else None
        return self.processor(text=texts, images=images, padding=True, add_special_tokens=False,
                              return_tensors="pt")

    # ---------------------------------------------------------------- generation

    def _generate(self, items: list[_Prepared], req: ChatRequest, seed: int) -> list[Completion]:
        import torch

        s = req.sampling
        enc = self._encode(items).to(self.model.device)
        if "pixel_values" in enc and enc["pixel_values"].is_floating_point():
            enc["pixel_values"] = enc["pixel_values"].to(self.model.dtype)
        prompt_len = enc["input_ids"].shape[1]
        gen: dict[str, Any] = {"max_new_tokens": s.max_tokens, "repetition_penalty": s.repetition_penalty}
        if s.temperature > 0:
            gen.update(do_sample=True, temperature=s.temperature, top_p=s.top_p,
                       top_k=s.top_k if s.top_k and s.top_k > 0 else 0)
        else:
            gen["do_sample"] = False
        if s.stop:
            gen.update(stop_strings=list(s.stop), tokenizer=self.tokenizer)
        if s.presence_penalty:
            from transformers import LogitsProcessorList

            gen["logits_processor"] = LogitsProcessorList(
                [_presence_penalty_processor(s.presence_penalty, prompt_len)])
        torch.manual_seed(seed)
        with torch.inference_mode():
            out = self.model.generate(**enc, **gen)  # type: ignore[misc]  # a tensor without return_dict_in_generate
        prompt_tokens = enc["attention_mask"].sum(dim=1).tolist()
        return [self._completion(row[prompt_len:].tolist(), int(n), s)
                for row, n in zip(out.cpu(), prompt_tokens, strict=True)]  # type: ignore[union-attr]

    def _completion(self, ids: list[int], prompt_tokens: int, s: Sampling) -> Completion:
        """Text, finish reason and token count of one generated row (EOS counts as a token, as in vLLM)."""
        end = next((i for i, t in enumerate(ids) if t in self.eos_ids), None)
        body = ids if end is None else ids[:end]
        text = self.tokenizer.decode(body, skip_special_tokens=True)
        n, finish = (len(ids), "length") if end is None else (end + 1, "stop")
        hits = [text.find(x) for x in s.stop if x and x in text]
        if hits:  # generation stopped at (or ran past) a stop string: cut before it, like vLLM
            text, finish = text[:min(hits)], "stop"
            # the pad after a stopped row may be an EOS id: count only the tokens that were needed
            while n > 1 and any(x in self.tokenizer.decode(body[:n - 1], skip_special_tokens=True)
                                for x in s.stop if x):
                n -= 1
            n = min(n, len(body))
        return Completion(text=text, finish_reason=finish, prompt_tokens=prompt_tokens,
                          cached_tokens=None, completion_tokens=n)

    def chat(self, requests: list[ChatRequest], desc: str = "") -> list[Completion]:
        from tqdm.auto import tqdm

        results: list[Completion | None] = [None] * len(requests)
        groups: dict[str, list[_Prepared]] = {}
        for i, r in enumerate(requests):
            try:
                groups.setdefault(_group_key(r), []).append(self._prepare(i, r))
            except Exception as e:
                results[i] = Completion(text=None, error=f"{type(e).__name__}: {e}")
        chunks: list[list[_Prepared]] = []
        for items in groups.values():  # similar lengths together: less padding
            items = sorted(items, key=lambda p: p.size)
            chunks += [items[k:k + self.batch_size] for k in range(0, len(items), self.batch_size)]
        for c, chunk in enumerate(tqdm(chunks, desc=desc or None, disable=not desc, unit="batch")):
            req = requests[chunk[0].index]
            seed = (req.sampling.seed if req.sampling.seed is not None else self.seed) + c
            try:
                outs = self._generate(chunk, req, seed)
            except Exception as e:  # one bad prompt (or OOM) fails the chunk: isolate it
                log.warning("transformers batch of %d failed (%s: %s); retrying one by one",
                            len(chunk), type(e).__name__, e)
                outs = []
                for p in chunk:
                    r = requests[p.index]
                    try:
                        outs += self._generate([p], r, r.sampling.seed if r.sampling.seed is not None
                                               else self.seed)
                    except Exception as e1:
                        outs.append(Completion(text=None, error=f"{type(e1).__name__}: {e1}"))
            for p, o in zip(chunk, outs, strict=True):
                results[p.index] = o
        return [r if r is not None else Completion(text=None, error="no result") for r in results]

    # ---------------------------------------------------------------- manifest

    def describe(self) -> dict[str, Any]:
        return {"backend": "transformers", **self.versions, "device": self.device, "dtype": self.dtype,
                "batch_size": self.batch_size, "structured_outputs": False,
                "vision": self.is_vision, "attn_implementation": self.attn_implementation,
                "max_pixels": self.max_pixels, "min_pixels": self.min_pixels,
                "chat_template_override": self.chat_template is not None, "seed": self.seed,
                "ignored_generation_defaults": self.dropped_generation_defaults,
                "model": fingerprint(self.path)}

    def close(self) -> None:
        for attr in ("model", "processor", "tokenizer"):
            if hasattr(self, attr):
                delattr(self, attr)
        gc.collect()
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except Exception:  # pragma: no cover - torch missing or broken driver
            pass
