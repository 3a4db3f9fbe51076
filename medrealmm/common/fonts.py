"""A font for the report figures that can draw Simplified Chinese.

Department names, model names and quoted replies are Chinese; matplotlib's default DejaVu Sans has no
CJK glyphs and silently draws boxes (tofu) with only a warning. The font comes with the package's
dependencies (Noto Sans SC, SIL OFL 1.1, in the ``pylopdf-fonts-zh-cn`` wheel) and is registered with
matplotlib by file, so figures never depend on the system's fonts or on matplotlib's font cache (a
font installed after the cache was built is invisible to it). ``report.font`` picks another font.

matplotlib is imported inside the functions: importing this module (e.g. by the CLI's ``--help``)
stays cheap.
"""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.font_manager import FontEntry

log = logging.getLogger(__name__)

#: Text every candidate font must cover (department names from the benchmark).
PROBE = "皮肤科心血管内科"

#: Known Simplified-Chinese families, best first (Noto/Source Han are the most complete; the
#: WenQuanYi fonts are what a minimal Debian/Ubuntu image usually has).
KNOWN_FAMILIES: tuple[str, ...] = (
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "SimHei",
    "Microsoft YaHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "Heiti SC",
    "STHeiti",
    "Noto Serif CJK SC",
    "AR PL UMing CN",
    "AR PL UKai CN",
    "Droid Sans Fallback",
    "Arial Unicode MS",
)

_FONT_SUFFIXES = (".ttf", ".otf", ".ttc", ".otc")

#: Fonts that map every code point to a placeholder glyph (matplotlib ships "Last Resort"): they
#: "cover" everything and draw nothing readable.
_PLACEHOLDER_FONTS = ("last resort",)


class NoCJKFont(RuntimeError):
    """No font able to draw Simplified Chinese could be found (or the one asked for cannot)."""


_HOW_TO_FIX = ("Leave `report.font` unset to use the bundled Noto Sans SC (reinstall the environment with "
               "`bash launch/setup.sh` if the `pylopdf-fonts-zh-cn` package is missing), or point it at a font "
               "file that covers Chinese: `report.font=/path/to/font.otf`.")


def bundled_font() -> Path | None:
    """The Simplified-Chinese font file shipped through the Python lock, if installed."""
    try:
        import pylopdf_fonts_zh_cn
    except ImportError:
        return None
    path = Path(pylopdf_fonts_zh_cn.sans_path())
    return path if path.is_file() else None


def _looks_like_path(value: str) -> bool:
    return os.sep in value or "/" in value or value.lower().endswith(_FONT_SUFFIXES)


def _missing_chars(path: str, face_index: int, text: str) -> list[str]:
    """Characters of ``text`` the face maps to glyph 0 (.notdef), i.e. would draw as a box."""
    from matplotlib import ft2font

    font = ft2font.FT2Font(path, face_index=face_index)
    return [ch for ch in dict.fromkeys(text) if not ch.isspace() and font.get_char_index(ord(ch)) == 0]


def _entries(family: str) -> list[FontEntry]:
    """The installed faces of ``family``, the regular upright one first."""
    from matplotlib import font_manager

    wanted = family.casefold()
    found = [e for e in font_manager.fontManager.ttflist if e.name.casefold() == wanted]

    def rank(e: FontEntry) -> tuple[int, float]:
        weight = e.weight if isinstance(e.weight, (int, float)) else 400
        return (e.style != "normal", abs(float(weight) - 400.0))

    return sorted(found, key=rank)


def covers(family_or_path: str | os.PathLike[str], text: str) -> bool:
    """Whether the font (an installed family name, or a font file) has a glyph for every character.

    Whitespace is ignored. An unknown family or an unreadable file covers nothing.
    """
    value = os.fspath(family_or_path)
    if _looks_like_path(value):
        if not Path(value).is_file():
            return False
        try:
            return not _missing_chars(value, 0, text)
        except (OSError, RuntimeError, ValueError):
            return False
    entries = _entries(value)
    if not entries:
        return False
    entry = entries[0]
    return not _missing_chars(entry.fname, getattr(entry, "index", 0) or 0, text)


def _family_of_file(path: Path) -> str:
    """Register a font file with matplotlib and return the family name it is known by."""
    from matplotlib import font_manager, ft2font

    if not path.is_file():
        raise NoCJKFont(f"report font {str(path)!r} does not exist (or is not a file). {_HOW_TO_FIX}")
    try:
        first = ft2font.FT2Font(str(path))
        names = [font_manager.ttfFontProperty(first).name]
        names += [font_manager.ttfFontProperty(ft2font.FT2Font(str(path), face_index=i)).name
                  for i in range(1, first.num_faces)]
        font_manager.fontManager.addfont(str(path))
    except (OSError, RuntimeError, ValueError) as e:
        raise NoCJKFont(f"report font {str(path)!r} cannot be read as a font: {e}. {_HOW_TO_FIX}") from e
    # A collection (e.g. NotoSansCJK.ttc: JP, KR, SC, TC, HK) is best drawn with its Simplified face.
    known = [f for f in KNOWN_FAMILIES if f in names]
    return known[0] if known else names[0]


def _scan_installed() -> str | None:
    """Any installed face whose cmap covers the probe: the last resort when no known family is there."""
    from matplotlib import font_manager

    entries = sorted(font_manager.fontManager.ttflist,
                     key=lambda e: (e.style != "normal", e.name.casefold(), e.fname))
    seen: set[tuple[str, int]] = set()
    for entry in entries:
        key = (entry.fname, getattr(entry, "index", 0) or 0)
        if key in seen or entry.name.casefold().startswith(_PLACEHOLDER_FONTS):
            continue
        seen.add(key)
        try:
            if not _missing_chars(key[0], key[1], PROBE):
                return entry.name
        except (OSError, RuntimeError, ValueError):
            continue
    return None


@functools.lru_cache(maxsize=None)
def cjk_font(preferred: str | None = None) -> str:
    """The matplotlib family name to draw the report's Chinese text with.

    ``preferred`` (the ``report.font`` setting) may be a family name or a .ttf/.otf/.ttc file; it is
    used if it covers Chinese and is an error otherwise, so a misconfiguration is not silently
    replaced. Without it, the bundled Noto Sans SC file is registered and used: the same glyphs on
    every machine. Only if that package is missing are the installed fonts searched (known CJK
    families, then any face that covers the probe text). Raises :class:`NoCJKFont` with how to fix it.
    """
    if preferred:
        family = _family_of_file(Path(preferred).expanduser()) if _looks_like_path(preferred) else preferred
        entries = _entries(family)
        if not entries:
            raise NoCJKFont(f"report font family {preferred!r} is not installed (matplotlib does not "
                            f"know it). {_HOW_TO_FIX}")
        family = entries[0].name  # as matplotlib spells it
        if not covers(family, PROBE):
            raise NoCJKFont(f"report font {preferred!r} (family {family!r}) cannot draw Chinese "
                            f"(no glyphs for {PROBE!r}). {_HOW_TO_FIX}")
        log.debug("report font: %s (from %s)", family, preferred)
        return family
    bundled = bundled_font()
    if bundled is not None:
        family = _family_of_file(bundled)
        log.debug("report font: %s (bundled, %s)", family, bundled)
        return family
    log.warning("the bundled CJK font (package pylopdf-fonts-zh-cn) is not installed; searching the "
                "system's fonts (reinstall with `bash launch/setup.sh`)")
    for family in KNOWN_FAMILIES:
        if _entries(family) and covers(family, PROBE):
            log.debug("report font: %s", family)
            return family
    family = _scan_installed()
    if family is not None:
        log.info("report font: %s (found by scanning the installed fonts for Chinese glyphs)", family)
        return family
    raise NoCJKFont(f"no font can draw Chinese: the bundled one is not installed and no system font covers "
                    f"{PROBE!r} (tried {', '.join(KNOWN_FAMILIES)} and every font matplotlib knows). {_HOW_TO_FIX}")
