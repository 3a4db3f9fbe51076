"""The segmenter under the statistical layer: rjieba imported once, and its dictionary's word frequencies
(shared by :mod:`medrealmm.deid.text_statistical` and :mod:`medrealmm.deid.text_stat_slots`)."""

from __future__ import annotations

import functools
from typing import Any


@functools.lru_cache(maxsize=1)
def segmenter() -> Any:
    """The rjieba module, imported once (its dictionary loads on the first call)."""
    import rjieba

    rjieba.tag("预热")  # build the prefix dictionary now, not inside the first timed batch
    return rjieba


@functools.lru_cache(maxsize=65536)
def word_frequency(word: str) -> int:
    """How often ``word`` occurs as a word in jieba's dictionary corpus (0: not a dictionary word)."""
    jb = segmenter()
    return jb.suggest_freq(word) if jb.has_word(word) else 0
