"""Build the bundled synthetic sample benchmark: ``cases.jsonl``, ``raw_logs.jsonl`` and the images its
patients upload.

Why this exists: MedRealMM's real consultations cannot be redistributed, yet every stage of the
pipeline (prompt building, inference, per-criterion judging, scoring, reports) needs a small set of
realistic multimodal cases to run end to end and in tests. This module writes such a set. Every
case and every image is SYNTHETIC, written and drawn by the medrealmm authors: there are no real
patients here. The images imitate what patients upload in Chinese online consultations (lab
reports, prescriptions, skin photos, tongue photos, an ECG strip, ultrasound and CT pictures,
medicine boxes, a questionnaire screenshot) with identifiers already blacked out, as Phase 1
de-identification would leave them.

The contents are data, in ``tools/sample/cases.yaml`` (dialogues, replies, rubrics, labels and the
parameters of every picture); :mod:`tools.sample.draw` draws the pictures. This module reads the
data, checks it, and writes the files. Both live outside the runtime package: nothing at runtime builds
the sample, it reads the committed files under ``medrealmm/data/sample/``.

The output is deterministic: fixed seeds derived from file names, PNGs without timestamps and
JPEGs without EXIF saved with fixed parameters, so a rebuild gives the same bytes in the same
rendering environment (same font file, FreeType, libjpeg-turbo, zlib, Pillow and NumPy; see
:func:`render_environment`). The generated files are committed, so nothing at runtime needs the
CJK font that drawing Chinese text requires.

Run ``python -m tools.sample.builder [--out DIR]`` from the repository root.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from functools import partial
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import PIL
import yaml
from PIL import Image, features

from tools.sample.draw import MAX_SIDE, Fonts, paint

__all__ = ["FONT_CANDIDATES", "FONT_ENV", "INTENTS", "STAGES", "FontNotFoundError", "Fonts", "build",
           "case_line", "check_consistency", "environment_differences", "find_cjk_font", "image_specs",
           "load_source", "main", "noise_logs", "raw_logs", "render_environment", "require_cjk_font", "sample_cases"]

log = logging.getLogger(__name__)

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "medrealmm" / "data" / "sample"
SOURCE_FILE = Path(__file__).resolve().parent / "cases.yaml"
SOURCE = "medrealmm sample"
JPEG_QUALITY = 85
FONT_ENV = "MEDREALMM_CJK_FONT"

# (path, face index inside a .ttc). The first entry is the font the committed files were drawn with.
FONT_CANDIDATES: tuple[tuple[str, int], ...] = (
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),  # Debian/Ubuntu fonts-wqy-zenhei
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),  # Debian fonts-noto-cjk (SC face)
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),  # Debian fonts-wqy-microhei
    ("/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc", 2),  # Arch noto-fonts-cjk
    ("/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc", 2),  # Fedora
    ("/usr/share/fonts/wenquanyi/wqy-zenhei/wqy-zenhei.ttc", 0),  # Fedora wqy-zenhei
    ("/System/Library/Fonts/PingFang.ttc", 0),  # macOS
    ("C:/Windows/Fonts/msyh.ttc", 0),  # Windows
)

# The environment the committed sample was rendered in. A rebuild elsewhere is still a valid
# sample, but only this environment reproduces the committed bytes exactly.
REFERENCE_ENV: dict[str, str] = {
    "font": "wqy-zenhei.ttc",  # Debian fonts-wqy-zenhei 0.9.45-8
    "font_sha256": "79c18ebe7b811951e8311bad7103ebeae8c337ed9988ea69e8a78a66cfe029b9",
    "freetype2": "2.14.3",
    "libjpeg_turbo": "3.2.0",
    "zlib": "1.2.13",
    "pillow": "13.0",
    "numpy": "2.3",
}

# The label sets of medrealmm.mccp.annotate (DEFAULT_INTENTS / DEFAULT_STAGES, defined there), which the cases of
# tools/sample/cases.yaml are labelled with: intent = the patient's goal, stage = what the physician's next reply
# has to do.
INTENTS = ("症状咨询", "检查结果解读", "用药咨询", "治疗咨询", "疾病咨询", "就医指导", "复诊随访")
STAGES = ("病史采集", "患者问答", "诊断与解释", "治疗建议", "诊断与解释及治疗建议", "检查建议", "随访复诊")


# --------------------------------------------------------------------------------------------------
# Fonts and the rendering environment
# --------------------------------------------------------------------------------------------------


class FontNotFoundError(RuntimeError):
    """No CJK font is installed, so Chinese text cannot be drawn."""


def find_cjk_font() -> tuple[Path, int] | None:
    """The first CJK font found: ``$MEDREALMM_CJK_FONT`` (``path[:index]``), then the usual paths."""
    env = os.environ.get(FONT_ENV)
    if env:
        head, sep, tail = env.rpartition(":")
        path, index = (head, int(tail)) if sep and tail.isdigit() else (env, 0)
        if Path(path).is_file():
            return Path(path), index
        log.warning("%s=%s is not a font file; searching the usual paths", FONT_ENV, env)
    for path, index in FONT_CANDIDATES:
        if Path(path).is_file():
            return Path(path), index
    return None


def require_cjk_font() -> tuple[Path, int]:
    found = find_cjk_font()
    if found is None:
        raise FontNotFoundError(
            "no CJK font found to draw the sample images' Chinese text. On Debian/Ubuntu install one with "
            "`apt-get install fonts-wqy-zenhei` (the font the committed sample was drawn with) or "
            f"`fonts-noto-cjk`, or point {FONT_ENV} at a .ttf/.ttc file. Searched: "
            + ", ".join(p for p, _ in FONT_CANDIDATES)
        )
    return found


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def render_environment(font: tuple[Path, int] | None = None) -> dict[str, str]:
    """What decides the output bytes: the font file, the libraries Pillow draws and encodes with, and the
    Pillow and NumPy versions (resampling, blurs, random streams)."""
    font = font or find_cjk_font()
    return {
        "font": font[0].name if font else "",
        "font_sha256": _file_sha256(font[0]) if font else "",
        "freetype2": str(features.version("freetype2")),
        "libjpeg_turbo": str(features.version("libjpeg_turbo")),
        "zlib": str(features.version("zlib")),
        "pillow": ".".join(PIL.__version__.split(".")[:2]),
        "numpy": ".".join(np.__version__.split(".")[:2]),
    }


def environment_differences(env: dict[str, str] | None = None) -> dict[str, tuple[str, str]]:
    """``{key: (reference, here)}`` for every way this environment differs from the reference one."""
    env = env or render_environment()
    return {k: (v, env.get(k, "")) for k, v in REFERENCE_ENV.items() if env.get(k, "") != v}



# --------------------------------------------------------------------------------------------------
# The contents: tools/sample/cases.yaml
# --------------------------------------------------------------------------------------------------

Painter = Callable[[Fonts], Image.Image]

CASE_KEYS = ("id", "department", "intent", "stage", "patient", "turns", "y_orig", "rubric", "images")


def load_source(path: Path = SOURCE_FILE) -> dict[str, Any]:
    """The data file, parsed (with libyaml when PyYAML has it)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    if not isinstance(data, dict) or set(data) != {"cases", "noise_logs"}:
        raise ValueError(f"{path}: expected the top-level keys cases and noise_logs")
    return data


def _turn(entry: dict[str, Any], case_id: str) -> dict[str, Any]:
    """``{patient: text, images: [names]}`` or ``{doctor: text}`` -> a turn of the case schema."""
    roles = [r for r in ("patient", "doctor") if r in entry]
    if len(roles) != 1 or set(entry) - {"patient", "doctor", "images"}:
        raise ValueError(f"{case_id}: a turn is {{patient: text}} or {{doctor: text}} (plus images: [...]), "
                         f"not {sorted(entry)}")
    turn: dict[str, Any] = {"role": roles[0], "text": entry[roles[0]]}
    if entry.get("images"):
        turn["images"] = [{"path": f"images/{name}"} for name in entry["images"]]
    return turn


def _case(entry: dict[str, Any]) -> dict[str, Any]:
    """One entry of the data file -> one line of ``cases.jsonl`` (keys in the committed order)."""
    unknown = set(entry) - set(CASE_KEYS)
    if unknown:
        raise ValueError(f"{entry.get('id')}: unknown keys {sorted(unknown)} (a case has {', '.join(CASE_KEYS)})")
    criteria = [{"id": f"c{i}", "text": c["text"], "weight": c["weight"], "tags": list(c["tags"])}
                for i, c in enumerate(entry["rubric"], 1)]
    return {"id": entry["id"], "department": entry["department"], "intent": entry["intent"],
            "stage": entry["stage"], "patient": {"age": entry["patient"]["age"], "sex": entry["patient"]["sex"]},
            "turns": [_turn(t, entry["id"]) for t in entry["turns"]], "y_orig": entry["y_orig"],
            "rubric": criteria, "meta": {"synthetic": True, "source": SOURCE}}


def sample_cases(source: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The synthetic consultations, written by the medrealmm authors (no real patient), sorted by id."""
    source = source or load_source()
    return sorted((_case(e) for e in source["cases"]), key=lambda c: c["id"])


def image_specs(source: dict[str, Any] | None = None) -> dict[str, Painter]:
    """Every image of the sample: file name -> painter. ``.png`` are documents, ``.jpg`` photos."""
    source = source or load_source()
    specs: dict[str, Painter] = {}
    for entry in source["cases"]:
        for name, spec in (entry.get("images") or {}).items():
            if name in specs:
                raise ValueError(f"{entry['id']}: image {name} is drawn twice")
            specs[name] = partial(paint, name, spec=spec)
    return specs


def noise_logs(source: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Consultations the corpus funnel must drop, each for a reason of its own (plus one with identifiers for
    the de-identification stage): the bundled raw logs are not all clean."""
    return list((source or load_source())["noise_logs"])


# --------------------------------------------------------------------------------------------------
# Writing the dataset
# --------------------------------------------------------------------------------------------------


def encode_image(img: Image.Image, name: str) -> bytes:
    """Encode with fixed parameters: PNG without ancillary chunks, baseline JPEG q85 without EXIF."""
    if max(img.size) > MAX_SIDE:
        raise ValueError(f"{name}: {img.size} is larger than {MAX_SIDE} px on its longest side")
    buf = BytesIO()
    if name.endswith(".png"):
        img.save(buf, format="PNG", optimize=False, compress_level=9)
    elif name.endswith(".jpg"):
        img.convert("RGB").save(buf, format="JPEG", quality=JPEG_QUALITY, optimize=True, progressive=False,
                                subsampling="4:2:0")
    else:
        raise ValueError(f"{name}: images are .png (documents) or .jpg (photos)")
    return buf.getvalue()


def case_line(raw: dict[str, Any]) -> str:
    return json.dumps(raw, ensure_ascii=False, separators=(", ", ": "))


def check_consistency(cases: Sequence[dict[str, Any]], specs: dict[str, Painter]) -> None:
    """Every referenced image is drawn, every drawn image is referenced, every case validates and carries
    an intent and a stage from :data:`INTENTS` and :data:`STAGES`."""
    from medrealmm.schema import Case

    referenced: list[str] = []
    for raw in cases:
        Case.parse(raw, file="tools/sample/cases.yaml")
        if raw["intent"] not in INTENTS or raw["stage"] not in STAGES:
            raise ValueError(f"{raw['id']}: intent {raw['intent']!r} / stage {raw['stage']!r} not in INTENTS / STAGES")
        referenced += [im["path"].removeprefix("images/") for t in raw["turns"] for im in t.get("images", ())]
    missing, unused = set(referenced) - set(specs), set(specs) - set(referenced)
    if missing or unused or len(referenced) != len(set(referenced)):
        raise ValueError(f"images out of step with the cases: missing {sorted(missing)}, "
                         f"unused {sorted(unused)}, or one image used twice")




def raw_logs(cases: Sequence[dict[str, Any]], noise: Sequence[dict[str, Any]] | None = None) -> str:
    """The sample as raw consultation logs (``medrealmm corpus corpus.input=sample``): every case as the
    whole consultation — a system line, its turns as events with their images, the physician's reply and
    a closing exchange — then the noise logs (:func:`noise_logs`), so the corpus → mccp → rubric path can be walked."""
    logs = []
    for c in cases:
        events: list[dict[str, Any]] = [{"speaker": "system", "content": "您已进入在线问诊，医生将尽快回复。"}]
        for t in c["turns"]:
            if (t.get("text") or "").strip():
                events.append({"speaker": t["role"], "content": t["text"]})
            for im in t.get("images") or ():
                events.append({"speaker": t["role"], "modality": "image", "content": im["path"],
                               "origin": "patient_upload" if t["role"] == "patient" else "doctor_upload"})
        events += [{"speaker": "doctor", "content": c["y_orig"]}, {"speaker": "patient", "content": "好的，谢谢医生。"},
                   {"speaker": "doctor", "content": "不客气，祝早日康复。"}]
        patient = {k: v for k, v in (c.get("patient") or {}).items() if v is not None}
        logs.append({"id": f"log-{c['id']}", "department": c["department"], "patient": patient, "events": events})
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in [*logs, *(noise_logs() if noise is None else noise)])


def build(out: Path = DEFAULT_OUT, *, font: tuple[Path, int] | None = None) -> dict[str, int]:
    """Write ``cases.jsonl`` and ``images/`` under ``out``; return counts. Stale images are removed."""
    font = font or require_cjk_font()
    fonts = Fonts(*font)
    source = load_source()
    cases, specs = sample_cases(source), image_specs(source)
    check_consistency(cases, specs)
    images_dir = out / "images"
    images_dir.mkdir(parents=True, exist_ok=True)
    for stale in sorted(images_dir.iterdir()):
        if stale.suffix in (".png", ".jpg") and stale.name not in specs:
            log.info("removing stale %s", stale)
            stale.unlink()
    total = 0
    for name in sorted(specs):
        data = encode_image(specs[name](fonts), name)
        (images_dir / name).write_bytes(data)
        total += len(data)
        log.debug("wrote %s (%d bytes)", name, len(data))
    text = "".join(case_line(c) + "\n" for c in cases)
    (out / "cases.jsonl").write_text(text, encoding="utf-8", newline="\n")
    total += len(text.encode())
    logs = raw_logs(cases, noise_logs(source))
    (out / "raw_logs.jsonl").write_text(logs, encoding="utf-8", newline="\n")
    total += len(logs.encode())
    counts = {"cases": len(cases), "departments": len({c["department"] for c in cases}), "images": len(specs),
              "bytes": total}
    log.info("wrote %(cases)d cases (%(departments)d departments) and %(images)d images, %(bytes)d bytes",
             counts)
    log.info("font %s (face %d)", font[0], font[1])
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.sample.builder",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output folder (default: {DEFAULT_OUT})")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every file written")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(levelname)s %(message)s")
    try:
        build(args.out)
    except FontNotFoundError as e:
        log.error("%s", e)
        return 2
    diff = environment_differences()
    if diff:
        log.warning("rendering environment differs from the reference one, so the bytes will differ from the "
                    "committed sample: %s", diff)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
