"""Prompt tokens of a request as vLLM counts them, without loading a model's weights.

``medrealmm plan`` sizes a sweep from these counts, so they follow vLLM's own preprocessing: the chat
template renders the messages (image parts as the template's placeholders), the text is tokenized
without extra special tokens, and each image placeholder becomes the number of tokens the model's
processor gives that image under the config's ``mm_processor_kwargs`` (vLLM passes them to the same
processor). Only the tokenizer and processor files are read.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from typing import Any

from medrealmm.inference.transformers_backend import has_image_processor, to_qwen_messages, to_text_messages

log = logging.getLogger(__name__)

__all__ = ["PromptCounter"]


class PromptCounter:
    """Counts prompt tokens (text and image) of chat requests for one model folder."""

    def __init__(self, path: str, *, chat_template: str | None = None, mm_processor_kwargs: dict | None = None,
                 trust_remote_code: bool = False, image_bytes: Callable[[str], bytes] | None = None):
        from pathlib import Path

        from transformers import AutoProcessor, AutoTokenizer

        self.path = path
        if chat_template and "{" not in chat_template and Path(chat_template).expanduser().is_file():
            chat_template = Path(chat_template).expanduser().read_text()
        self.chat_template = chat_template
        self.mm_kwargs = dict(mm_processor_kwargs or {})
        self.is_vision = has_image_processor(path, trust_remote_code)
        if self.is_vision:
            self.processor = AutoProcessor.from_pretrained(path, trust_remote_code=trust_remote_code)
            self.tokenizer = self.processor.tokenizer
        else:
            self.processor = None
            self.tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=trust_remote_code)
        self.image_bytes = image_bytes
        owner = self.processor if self.processor is not None else self.tokenizer
        if not (chat_template or getattr(owner, "chat_template", None)):
            raise ValueError(f"{path} has no chat template (chat_template.jinja or in its tokenizer config); "
                             "set model.chat_template to one")

    def count(self, messages: list[dict[str, Any]], chat_template_kwargs: dict | None = None) -> tuple[int, int]:
        """``(text_tokens, image_tokens)`` of one request; ``messages`` carry images as ``image_url``
        parts whose url is what :attr:`image_bytes` reads (a path or an image reference)."""
        kwargs = dict(chat_template_kwargs or {})
        if self.chat_template:
            kwargs["chat_template"] = self.chat_template
        if self.processor is None:
            text = self.tokenizer.apply_chat_template(to_text_messages(messages), tokenize=False,
                                                      add_generation_prompt=True, **kwargs)
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"]), 0
        msgs = to_qwen_messages(messages)
        text = self.processor.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True, **kwargs)
        images = [self._image(p["image"]) for m in msgs if isinstance(m.get("content"), list)
                  for p in m["content"] if p.get("type") == "image"]
        plain = len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        if not images:
            return plain, 0
        full = len(self.processor(text=[text], images=images, add_special_tokens=False, **self.mm_kwargs)
                   ["input_ids"][0])
        return plain, full - plain

    def _image(self, ref: str):
        from PIL import Image

        if self.image_bytes is None:
            raise ValueError("PromptCounter: requests with images need image_bytes")
        img = Image.open(io.BytesIO(self.image_bytes(ref)))
        return img.convert("RGB")
