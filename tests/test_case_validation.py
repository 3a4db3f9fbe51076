"""Every kind of bad case is reported with its case id, field and file — strict or not."""

from __future__ import annotations

import io
import json
import logging
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from medrealmm.data import check_image_bytes, read_jsonl, validate_images
from medrealmm.schema import Case, CaseError

# ---------------------------------------------------------------- helpers (tiny datasets, real images)


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (16, 12), color=(200, 40, 40)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, fmt)
    return buf.getvalue()


def noisy_jpeg(size: int = 64) -> bytes:
    img = Image.frombytes("RGB", (size, size), bytes((i * 37 + i // 7) % 256 for i in range(size * size * 3)))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=90)
    return buf.getvalue()


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def bomb_png(width: int, height: int) -> bytes:
    """A valid 1-bit grayscale PNG of ``width`` x ``height`` that is a few kB on disk.

    Built chunk by chunk so the test never holds the decoded image (hundreds of MB) in memory.
    """
    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte + packed bits
    comp = zlib.compressobj(9)
    block = row * 500
    parts = [comp.compress(block) for _ in range(height // 500)]
    parts.append(comp.compress(row * (height % 500)))
    parts.append(comp.flush())
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", b"".join(parts))
        + png_chunk(b"IEND", b"")
    )


def raw_case(cid: str = "case-1", images: tuple[str, ...] = ("images/a.png",), **over: Any) -> dict[str, Any]:
    case = {
        "id": cid,
        "department": "皮肤科",
        "intent": "diagnosis",
        "stage": "initial",
        "patient": {"age": 30, "sex": "female"},
        "turns": [
            {
                "role": "patient",
                "text": "医生您好，我手背起了红疹，很痒。",
                "images": [{"path": p} for p in images],
            },
            {"role": "doctor", "text": "请问出现多久了？"},
            {"role": "patient", "text": "三天了，用了药膏没好。"},
        ],
        "y_orig": "考虑接触性皮炎，建议停用可疑药膏。",
        "rubric": [
            {"id": "r1", "text": "询问过敏史或接触史", "weight": 5, "tags": ["history"]},
            {"id": "r2", "text": "未建议就医而给出确定诊断", "weight": -3},
        ],
        "meta": {"source": "test"},
    }
    case.update(over)
    return case


def write_dataset(
    root: Path, cases: list[dict[str, Any]] | list[str], images: dict[str, bytes] | None = None
) -> Path:
    """``root/cases.jsonl`` + the given image files; ``cases`` may hold raw lines (str) for bad JSON."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in (images or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    lines = [c if isinstance(c, str) else json.dumps(c, ensure_ascii=False) for c in cases]
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


GOOD_IMAGES = {"images/a.png": image_bytes("PNG")}


def load_one_bad(
    tmp_path: Path, bad: dict[str, Any] | str, images: dict[str, bytes] | None = None, **opts: Any
):
    """A dataset of one good case and ``bad``; returns (lenient dataset, strict error)."""
    root = write_dataset(tmp_path / "ds", [raw_case("good-1"), bad], {**GOOD_IMAGES, **(images or {})})
    lenient = read_jsonl(root, strict=False, **opts)
    with pytest.raises(CaseError) as info:
        read_jsonl(root, strict=True, **opts)
    return lenient, info.value


def assert_named(err: CaseError, case_id: str | None, field: str, file: Path, *words: str) -> None:
    assert err.case_id == case_id
    assert err.field == field
    assert err.file == str(file)
    text = str(err)
    if case_id:
        assert case_id in text
    assert field in text and str(file) in text
    for w in words:
        assert w.lower() in text.lower(), f"{w!r} not in {text!r}"


# ---------------------------------------------------------------- schema errors

SCHEMA_CASES = [
    (
        "no-positive",
        {"rubric": [{"id": "r1", "text": "给出错误剂量", "weight": -2}]},
        "rubric",
        "no positive weight",
    ),
    (
        "dup-criteria",
        {"rubric": [{"id": "r1", "text": "a", "weight": 2}, {"id": "r1", "text": "b", "weight": 1}]},
        "rubric",
        "duplicate criterion id",
    ),
    ("empty-dialogue", {"turns": []}, "turns", "dialogue"),
    (
        "zero-weight",
        {"rubric": [{"id": "r1", "text": "a", "weight": 0}, {"id": "r2", "text": "b", "weight": 3}]},
        "rubric.0.weight",
        "non-zero",
    ),
    ("bad-role", {"turns": [{"role": "nurse", "text": "hi"}]}, "turns.0.role", ""),
]


@pytest.mark.parametrize("cid,override,field,words", SCHEMA_CASES, ids=[c[0] for c in SCHEMA_CASES])
def test_schema_errors_are_named(tmp_path: Path, cid: str, override: dict, field: str, words: str) -> None:
    lenient, err = load_one_bad(tmp_path, raw_case(cid, **override))
    cases_file = tmp_path / "ds" / "cases.jsonl"
    assert_named(err, cid, field, cases_file, words)
    assert [c.id for c in lenient.cases] == ["good-1"]
    assert len(lenient.errors) == 1 and lenient.errors[0].case_id == cid


def test_bad_json_line_names_line_and_file(tmp_path: Path) -> None:
    lenient, err = load_one_bad(tmp_path, '{"id": "broken", "department": ')
    assert "line 2" in str(err) and "invalid JSON" in str(err)
    assert err.file == str(tmp_path / "ds" / "cases.jsonl")
    assert [c.id for c in lenient.cases] == ["good-1"]


def test_non_object_line(tmp_path: Path) -> None:
    _, err = load_one_bad(tmp_path, '["a", "list"]')
    assert "line 2" in str(err) and "expected a JSON object" in str(err)


def test_duplicate_case_id(tmp_path: Path) -> None:
    lenient, err = load_one_bad(tmp_path, raw_case("good-1"))
    assert_named(err, "good-1", "id", tmp_path / "ds" / "cases.jsonl", "duplicate case id")
    assert len(lenient.cases) == 1 and len(lenient.errors) == 1


# ---------------------------------------------------------------- image errors


def _image_case(tmp_path: Path, path: str, files: dict[str, bytes] | None = None, **opts: Any):
    return load_one_bad(
        tmp_path,
        raw_case("img-case", images=("images/ok.png", path)),
        {"images/ok.png": image_bytes(), **(files or {})},
        **opts,
    )


FIELD = "turns.0.images.1.path"


def test_missing_image(tmp_path: Path) -> None:
    lenient, err = _image_case(tmp_path, "images/nope.png")
    assert_named(err, "img-case", FIELD, tmp_path / "ds" / "cases.jsonl", "not found", "nope.png")
    assert [c.id for c in lenient.cases] == ["good-1"]


def test_truncated_jpeg(tmp_path: Path) -> None:
    data = noisy_jpeg()
    _, err = _image_case(tmp_path, "images/cut.jpg", {"images/cut.jpg": data[: len(data) // 2]})
    assert_named(err, "img-case", FIELD, tmp_path / "ds" / "cases.jsonl", "truncated", "JPEG")


@pytest.mark.parametrize("offset", [20, 40, 46], ids=["ihdr", "idat-type", "idat-data"])
def test_corrupt_png(tmp_path: Path, offset: int) -> None:
    data = bytearray(image_bytes("PNG"))
    data[offset] ^= 0xFF  # the signature still says PNG, the chunk or its checksum does not hold
    _, err = _image_case(tmp_path, "images/bad.png", {"images/bad.png": bytes(data)})
    assert_named(err, "img-case", FIELD, tmp_path / "ds" / "cases.jsonl", "corrupt", "PNG")


def test_unsupported_tiff(tmp_path: Path) -> None:
    _, err = _image_case(tmp_path, "images/scan.tif", {"images/scan.tif": image_bytes("TIFF")})
    assert_named(err, "img-case", FIELD, tmp_path / "ds" / "cases.jsonl", "unsupported image format TIFF")


def test_unsupported_svg(tmp_path: Path) -> None:
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'
    )
    _, err = _image_case(tmp_path, "images/x.svg", {"images/x.svg": svg})
    assert_named(err, "img-case", FIELD, tmp_path / "ds" / "cases.jsonl", "unsupported image format SVG")


def test_allowed_formats_is_configurable(tmp_path: Path) -> None:
    root = write_dataset(
        tmp_path / "ds", [raw_case("c", images=("images/a.gif",))], {"images/a.gif": image_bytes("GIF")}
    )
    assert len(read_jsonl(root, strict=True).cases) == 1
    with pytest.raises(CaseError, match="unsupported image format GIF"):
        read_jsonl(root, strict=True, allowed_image_formats=["jpeg", "png"])


def test_path_outside_root_dotdot(tmp_path: Path) -> None:
    (tmp_path / "x.png").write_bytes(image_bytes())  # it exists: the error must be about the root
    _, err = _image_case(tmp_path, "../x.png")
    assert_named(err, "img-case", FIELD, tmp_path / "ds" / "cases.jsonl", "outside the dataset root")


def test_path_outside_root_absolute(tmp_path: Path) -> None:
    outside = tmp_path / "abs.png"
    outside.write_bytes(image_bytes())
    _, err = _image_case(tmp_path, str(outside))
    assert_named(
        err, "img-case", FIELD, tmp_path / "ds" / "cases.jsonl", "outside the dataset root", "absolute"
    )


def test_path_outside_root_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "secret.png"
    outside.write_bytes(image_bytes())
    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "images" / "link.png").symlink_to(outside)
    _, err = _image_case(tmp_path, "images/link.png")
    assert_named(err, "img-case", FIELD, tmp_path / "ds" / "cases.jsonl", "outside the dataset root")


def test_symlink_inside_root_is_fine(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "images" / "real.png").write_bytes(image_bytes())
    (root / "images" / "link.png").symlink_to(root / "images" / "real.png")
    write_dataset(root, [raw_case("c", images=("images/link.png",))])
    assert len(read_jsonl(root, strict=True).cases) == 1


@pytest.mark.parametrize(
    "side,word",
    [(20000, "decompression"), (10000, "decompression"), (7000, "7000x7000")],
    ids=["pil-error", "pil-warning", "own-check"],
)
def test_decompression_bomb_rejected_from_header(tmp_path: Path, side: int, word: str) -> None:
    data = bomb_png(side, side)
    assert len(data) < 2_000_000  # small file, huge claimed size
    _, err = _image_case(tmp_path, "images/bomb.png", {"images/bomb.png": data})
    assert_named(err, "img-case", FIELD, tmp_path / "ds" / "cases.jsonl", "too large", word)


def test_max_pixels_is_configurable(tmp_path: Path) -> None:
    root = write_dataset(
        tmp_path / "ds",
        [raw_case("c", images=("images/a.png",))],
        {"images/a.png": image_bytes(size=(100, 100))},
    )
    assert len(read_jsonl(root, strict=True).cases) == 1
    with pytest.raises(CaseError, match="100x100"):
        read_jsonl(root, strict=True, max_image_pixels=5000)


def test_check_image_bytes_direct() -> None:
    assert check_image_bytes(image_bytes("WEBP")) == "WEBP"
    with pytest.raises(ValueError, match="cannot identify"):
        check_image_bytes(b"\x00\x01 definitely not an image")
    with pytest.raises(ValueError, match="empty file"):
        check_image_bytes(b"")


# ---------------------------------------------------------------- validate_images on Case objects


def test_validate_images_fills_sha256_and_handles_embedded(tmp_path: Path) -> None:
    import hashlib

    data = image_bytes("JPEG")
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.png").write_bytes(image_bytes())
    raw = raw_case("c", images=("images/a.png",))
    raw["turns"][2]["images"] = [{"path": "embedded.jpg", "data": data}]
    case = Case.parse(raw)
    checked = validate_images(case, tmp_path, "f.jsonl", 40_000_000, ["PNG", "JPEG"])
    assert checked.turns[0].images[0].sha256 == hashlib.sha256(image_bytes()).hexdigest()
    assert checked.turns[2].images[0].sha256 == hashlib.sha256(data).hexdigest()
    assert case.turns[0].images[0].sha256 is None  # the input is frozen and untouched

    bad = Case.parse(
        {**raw, "turns": [{"role": "patient", "text": "x", "images": [{"path": "e.jpg", "data": b"junk"}]}]}
    )
    with pytest.raises(CaseError) as info:
        validate_images(bad, tmp_path, "f.jsonl", 40_000_000, ["PNG", "JPEG"])
    assert info.value.field == "turns.0.images.0.data" and info.value.case_id == "c"


def test_no_root_and_no_bytes() -> None:
    case = Case.parse(raw_case("c"))
    with pytest.raises(CaseError, match="no root"):
        validate_images(case, None, None, 40_000_000, ["PNG"])


# ---------------------------------------------------------------- lenient vs strict policy


def test_lenient_keeps_good_cases_and_logs_each_bad_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = write_dataset(
        tmp_path / "ds",
        [
            raw_case("good-1"),
            raw_case("bad-weight", rubric=[{"id": "r", "text": "t", "weight": 0}]),
            "not json at all",
            raw_case("bad-image", images=("images/missing.png",)),
            raw_case("good-2"),
        ],
        GOOD_IMAGES,
    )
    with caplog.at_level(logging.WARNING, logger="medrealmm.data"):
        ds = read_jsonl(root, strict=False)
    assert [c.id for c in ds.cases] == ["good-1", "good-2"]
    assert [e.case_id for e in ds.errors] == ["bad-weight", None, "bad-image"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 3
    assert "bad-weight" in warnings[0] and "rubric.0.weight" in warnings[0] and "cases.jsonl" in warnings[0]
    assert "line 3" in warnings[1]
    assert "bad-image" in warnings[2] and "turns.0.images.0.path" in warnings[2]


def test_strict_raises_the_first_error_in_file_order(tmp_path: Path) -> None:
    root = write_dataset(
        tmp_path / "ds",
        [
            raw_case("good-1"),
            raw_case("bad-image", images=("images/missing.png",)),
            raw_case("bad-weight", rubric=[{"id": "r", "text": "t", "weight": 0}]),
        ],
        GOOD_IMAGES,
    )
    with pytest.raises(CaseError) as info:
        read_jsonl(root, strict=True, workers=4)
    assert info.value.case_id == "bad-image"
