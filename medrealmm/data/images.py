"""Image checks and image-file export shared by every dataset format.

A benchmark run sends every image to a model; a missing, corrupt, hostile or out-of-tree image must
be found when the dataset is loaded, with the case and the field named, not hours later inside an
inference engine. Validation also fills ``ImageRef.sha256`` so that stored results are keyed on
the image content rather than on a path that can change.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath

from PIL import Image, UnidentifiedImageError

from medrealmm.atomic import write_bytes
from medrealmm.schema import Case, CaseError, ImageRef

log = logging.getLogger(__name__)

DEFAULT_MAX_IMAGE_PIXELS = 40_000_000
DEFAULT_IMAGE_FORMATS: tuple[str, ...] = ("JPEG", "PNG", "WEBP", "BMP", "GIF")
_WARNINGS_LOCK = threading.Lock()

# PIL format name -> file extension used when an image needs a new file name.
FORMAT_EXTENSIONS = {
    "JPEG": ".jpg",
    "PNG": ".png",
    "WEBP": ".webp",
    "BMP": ".bmp",
    "GIF": ".gif",
    "TIFF": ".tif",
    "MPO": ".jpg",
}


_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"BM", "BMP"),
)


def _sniff_known(data: bytes) -> str | None:
    """The format a file claims by its magic bytes (used to call an unopenable file corrupt)."""
    for sig, name in _SIGNATURES:
        if data.startswith(sig):
            return name
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def _sniff_unreadable(data: bytes) -> str | None:
    """Name formats PIL cannot open, so the error says what the file is rather than 'unknown'."""
    head = data[:512].lstrip()
    if head.startswith(b"%PDF"):
        return "PDF"
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in data[:4096]):
        return "SVG"
    if head[:15].lower().startswith((b"<!doctype html", b"<html")):
        return "HTML"
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        if brand in (b"heic", b"heix", b"hevc", b"heim", b"heis", b"mif1", b"msf1"):
            return "HEIC"
        if brand in (b"avif", b"avis"):
            return "AVIF"
        return "MP4/QuickTime"
    if not data:
        return "empty file"
    return None


def resolve_image_path(root: Path, rel: str) -> Path:
    """Resolve ``rel`` against ``root`` and refuse anything that leaves the root.

    Resolving follows symlinks and ``..``, so a link inside the dataset that points at
    ``/etc/passwd`` is caught as well as a literal ``../x.png``. Raises ``ValueError``.
    """
    if not rel:
        raise ValueError("empty image path")
    if Path(rel).is_absolute() or PurePosixPath(rel).is_absolute() or re.match(r"^[A-Za-z]:[\\/]", rel):
        raise ValueError(
            f"image path {rel!r} is absolute: outside the dataset root; "
            "paths must be relative to the dataset root"
        )
    root_resolved = root.resolve()
    target = (root_resolved / rel).resolve()
    if not target.is_relative_to(root_resolved):
        raise ValueError(
            f"image path {rel!r} resolves to {str(target)!r}, outside the dataset root {str(root_resolved)!r}"
        )
    return target


def check_image_bytes(
    data: bytes,
    *,
    max_pixels: int = DEFAULT_MAX_IMAGE_PIXELS,
    allowed_formats: Iterable[str] = DEFAULT_IMAGE_FORMATS,
) -> str:
    """Check one image's bytes; return its PIL format name or raise ``ValueError`` saying why not.

    The pixel count is checked from the header before anything is decoded, so a 20000x20000
    "decompression bomb" costs nothing; only then is the image verified and fully decoded on a
    fresh handle (``verify`` alone misses truncated pixel data).
    """
    allowed = {f.upper() for f in allowed_formats}
    fmt, width, height = _read_header(data, max_pixels, allowed)
    if fmt not in allowed:
        raise ValueError(f"unsupported image format {fmt} (allowed: {', '.join(sorted(allowed))})")
    if width <= 0 or height <= 0:
        raise ValueError(f"image has an empty size {width}x{height}")
    if width * height > max_pixels:
        raise ValueError(
            f"image too large: {width}x{height} = {width * height:,} pixels exceeds the "
            f"decompression-bomb guard of {max_pixels:,} (data.max_image_pixels)"
        )
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.verify()
        with Image.open(io.BytesIO(data)) as img:
            img.load()
    except Image.DecompressionBombError as e:
        raise ValueError(f"image too large (decompression-bomb guard): {e}") from None
    except Exception as e:  # noqa: BLE001 - truncated/corrupt data surfaces as OSError, SyntaxError, ...
        raise ValueError(f"corrupt or truncated {fmt} image: {type(e).__name__}: {e}") from None
    return fmt


def _read_header(data: bytes, max_pixels: int, allowed: set[str]) -> tuple[str, int, int]:
    """The image's format and size from its header alone (nothing decoded), or ValueError saying why not."""
    # PIL warns above its global MAX_IMAGE_PIXELS and refuses above twice that. Its warning is turned
    # into an error (unless the configured limit is larger: then our own check decides). The warnings
    # filter is process-global, so the header read is serialised; it costs microseconds.
    pil_limit = Image.MAX_IMAGE_PIXELS or 0
    with _WARNINGS_LOCK, warnings.catch_warnings():
        warnings.simplefilter(
            "error" if pil_limit and max_pixels <= pil_limit else "ignore", Image.DecompressionBombWarning
        )
        try:
            with Image.open(io.BytesIO(data)) as img:
                return (img.format or "unknown").upper(), img.size[0], img.size[1]
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as e:
            raise ValueError(
                f"image too large (decompression-bomb guard, limit {max_pixels:,} pixels): {e}"
            ) from None
        except UnidentifiedImageError:
            raise _unidentified(data, allowed) from None
        except Exception as e:  # noqa: BLE001 - PIL raises many types on hostile headers
            raise ValueError(f"corrupt image header: {type(e).__name__}: {e}") from None


def _unidentified(data: bytes, allowed: set[str]) -> ValueError:
    """Why PIL could not identify the bytes: a known format's corrupt file, an unsupported format, or neither."""
    known = _sniff_known(data)
    if known:
        return ValueError(f"corrupt {known} image: it has a {known} signature but cannot be opened")
    kind = _sniff_unreadable(data)
    if kind:
        return ValueError(f"unsupported image format {kind} (allowed: {', '.join(sorted(allowed))})")
    return ValueError(f"not a readable image: cannot identify the format of {len(data)} bytes")


def validate_images(
    case: Case,
    root: Path | None,
    file: str | None,
    max_pixels: int = DEFAULT_MAX_IMAGE_PIXELS,
    allowed_formats: Iterable[str] = DEFAULT_IMAGE_FORMATS,
) -> Case:
    """Check every image of ``case`` and return the case with ``sha256`` filled on each image.

    Embedded bytes (``ImageRef.data``) are checked as they are; otherwise the file at
    ``root / path`` must exist inside ``root``. Raises :class:`CaseError` with the field
    ``turns.<t>.images.<i>.path`` (or ``.data`` for embedded bytes) and ``file``.
    """
    allowed = tuple(allowed_formats)
    new_turns = []
    changed = False
    for t, turn in enumerate(case.turns):
        new_images = []
        turn_changed = False
        for i, ref in enumerate(turn.images):
            where = f"turns.{t}.images.{i}"
            field = f"{where}.data" if ref.data is not None else f"{where}.path"
            data = _image_data(ref, root, case_id=case.id, field=field, file=file)
            try:
                check_image_bytes(data, max_pixels=max_pixels, allowed_formats=allowed)
            except ValueError as e:
                raise CaseError(
                    f"{e} (image {ref.path!r})", case_id=case.id, field=field, file=file
                ) from None
            digest = hashlib.sha256(data).hexdigest()
            if ref.sha256 != digest:
                if ref.sha256 is not None:
                    log.debug(
                        "case %s %s: stored sha256 differs from the image content; using the content's",
                        case.id,
                        where,
                    )
                ref = ref.model_copy(update={"sha256": digest})
                turn_changed = changed = True
            new_images.append(ref)
        new_turns.append(turn.model_copy(update={"images": tuple(new_images)}) if turn_changed else turn)
    return case.model_copy(update={"turns": tuple(new_turns)}) if changed else case


def _image_data(ref: ImageRef, root: Path | None, *, case_id: str, field: str, file: str | None) -> bytes:
    """The image's bytes: embedded, or the file at ``root / path`` (which must lie inside ``root``)."""
    if ref.data is not None:
        return ref.data
    if root is None:
        raise CaseError(
            f"image {ref.path!r} has no embedded bytes and the dataset has no root folder to resolve it against",
            case_id=case_id,
            field=field,
            file=file,
        )
    try:
        target = resolve_image_path(root, ref.path)
    except ValueError as e:
        raise CaseError(str(e), case_id=case_id, field=field, file=file) from None
    if not target.is_file():
        raise CaseError(f"image file not found: {str(target)!r}", case_id=case_id, field=field, file=file)
    try:
        return target.read_bytes()
    except OSError as e:
        raise CaseError(f"cannot read image {str(target)!r}: {e}", case_id=case_id, field=field, file=file) from None


def image_format(data: bytes) -> str | None:
    """PIL's format name for ``data`` from the header only, or None."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            return img.format
    except Exception:  # noqa: BLE001
        return None


_UNSAFE = re.compile(r"[^\w.\-]+")


def safe_name(text: str) -> str:
    """A file-name-safe rendering of a case id (keeps CJK word characters)."""
    name = _UNSAFE.sub("_", text).strip("._") or "case"
    if name != text:  # keep distinct ids distinct after replacement
        name = f"{name}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"
    return name[:120]


def derived_image_path(case_id: str, turn: int, index: int, data: bytes, original: str | None = None) -> str:
    """``images/<case>/t<turn>_<index><ext>``: where an embedded image is written as a file.

    The extension is the original one when it matches the content, else the detected format's.
    """
    fmt = image_format(data)
    ext = FORMAT_EXTENSIONS.get(fmt or "", "")
    if original:
        orig_ext = PurePosixPath(original).suffix.lower()
        if orig_ext and (not ext or _same_format(orig_ext, ext)):
            ext = orig_ext
    return f"images/{safe_name(case_id)}/t{turn}_{index}{ext or '.bin'}"


def _same_format(a: str, b: str) -> bool:
    jpeg = {".jpg", ".jpeg", ".jpe", ".jfif"}
    return a == b or (a in jpeg and b in jpeg) or ({a, b} <= {".tif", ".tiff"})


def _is_safe_relative(path: str) -> bool:
    if not path or "\\" in path or re.match(r"^[A-Za-z]:", path):
        return False
    p = PurePosixPath(path)
    return not p.is_absolute() and ".." not in p.parts and p.parts[:1] != (".",) and all(p.parts)


def export_images(
    cases: Sequence[Case], read_bytes: Callable[[ImageRef], bytes], out_dir: Path, *, embed: bool = False
) -> list[Case]:
    """Write every image of ``cases`` under ``out_dir`` and return the cases pointing at them.

    A relative, safe path is kept (so JSONL -> Parquet -> JSONL keeps the same paths); a path that
    is unsafe, or already used in this export by different bytes (HF releases often name every
    image ``image.jpg``), is replaced by :func:`derived_image_path`. With ``embed`` the files are
    not written and the bytes go into ``ImageRef.data`` instead.
    """
    used: dict[str, str] = {}
    out: list[Case] = []
    for case in cases:
        turns = []
        for t, turn in enumerate(case.turns):
            images = []
            for i, ref in enumerate(turn.images):
                data = read_bytes(ref)
                digest = hashlib.sha256(data).hexdigest()
                path = ref.path
                if not _is_safe_relative(path) or used.get(path, digest) != digest:
                    path = derived_image_path(case.id, t, i, data, ref.path)
                    n = 1
                    base = path
                    while used.get(path, digest) != digest:
                        stem, dot, ext = base.rpartition(".")
                        path = f"{stem}-{n}{dot}{ext}"
                        n += 1
                if path not in used and not embed:
                    target = out_dir / path
                    if not (target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == digest):
                        target.parent.mkdir(parents=True, exist_ok=True)
                        write_bytes(target, data)
                used[path] = digest
                images.append(ImageRef(path=path, data=data if embed else None, sha256=digest))
            turns.append(turn.model_copy(update={"images": tuple(images)}))
        out.append(case.model_copy(update={"turns": tuple(turns)}))
    return out
