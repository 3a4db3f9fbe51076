"""Loading (EXIF orientation first), masking (black boxes and polygons), writing with no metadata at all.

Text lines on a tilted photo are filled as the OCR quadrilateral, not its bounding rectangle (which
covers the neighbouring rows); codes and faces are rectangles.

Photos carry identifiers outside their pixels too: EXIF (GPS position, capture time, camera serial,
owner name), XMP, IPTC, ICC profiles (device descriptions), comments and PNG text chunks. We never
copy any of them: the output is a fresh file built from the masked pixel array alone. The audit trail
records which metadata blocks the input had, by *name* only — their values can identify.
"""

from __future__ import annotations

import io
import logging
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
from PIL import Image, ImageOps

from medrealmm.deid.image.base import Box

log = logging.getLogger(__name__)

ImageSource = bytes | bytearray | memoryview | str | Path

_EXIF_ORIENTATION = 0x0112
_EXIF_IFD = 0x8769
_GPS_IFD = 0x8825
_INTEROP_IFD = 0xA005

_FORMATS = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".webp": "WEBP", ".bmp": "BMP",
            ".tif": "TIFF", ".tiff": "TIFF"}


@dataclass(frozen=True)
class ImageInfo:
    """What loading learned about a file; holds no metadata *values*, so it can go to the audit trail."""

    format: str | None
    stored_size: tuple[int, int]          # (width, height) as stored in the file
    size: tuple[int, int]                 # (width, height) after EXIF orientation
    orientation: int                      # EXIF orientation value that was applied (1 = none)
    metadata: tuple[str, ...] = field(default=())   # names of the metadata blocks the input had

    def audit(self) -> dict[str, Any]:
        return {"format": self.format, "stored_size": list(self.stored_size), "size": list(self.size),
                "orientation": self.orientation, "metadata": list(self.metadata)}


def _read_bytes(src: ImageSource) -> bytes:
    if isinstance(src, (bytes, bytearray, memoryview)):
        return bytes(src)
    return Path(src).read_bytes()


def load_image(src: ImageSource) -> tuple[np.ndarray, ImageInfo]:
    """Decode to an RGB uint8 array with EXIF orientation applied before anything else looks at it.

    Detectors and masks work in the displayed frame; masking the stored frame of a rotated photo
    would put the rectangles in the wrong place once a viewer honours the orientation tag.
    """
    data = _read_bytes(src)
    report = metadata_report(data)
    with Image.open(io.BytesIO(data)) as im:
        im.seek(0)                                   # first frame only (animated GIF/WebP)
        fmt = im.format
        stored = im.size
        try:
            orientation = int(im.getexif().get(_EXIF_ORIENTATION, 1) or 1)
        except Exception:  # noqa: BLE001 - a broken EXIF block must not stop de-identification
            orientation = 1
        if orientation not in range(1, 9):
            orientation = 1
        upright = ImageOps.exif_transpose(im) if orientation != 1 else im
        rgb = _to_rgb(upright)
        arr = np.array(rgb, dtype=np.uint8)
    info = ImageInfo(format=fmt, stored_size=(int(stored[0]), int(stored[1])),
                     size=(int(arr.shape[1]), int(arr.shape[0])), orientation=orientation,
                     metadata=tuple(report["blocks"]))
    return np.ascontiguousarray(arr), info


def _to_rgb(im: Image.Image) -> Image.Image:
    """RGB, with transparency flattened onto white (a masked image has no use for alpha)."""
    if im.mode == "RGB":
        return im.copy()
    if im.mode in ("RGBA", "LA", "PA") or (im.mode == "P" and "transparency" in im.info):
        rgba = im.convert("RGBA")
        bg = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(bg, rgba).convert("RGB")
    if im.mode in ("I;16", "I;16B", "I;16L", "I"):
        a = np.asarray(im, dtype=np.float64)
        hi = a.max() or 1.0
        return Image.fromarray((a / hi * 255.0).astype(np.uint8)).convert("RGB")
    return im.convert("RGB")


def mask_boxes(image: np.ndarray, boxes: Iterable[Box], color: tuple[int, int, int] = (0, 0, 0)) -> np.ndarray:
    """A copy of ``image`` with each box (clipped to the image) filled solid ``color``: its quad
    where it has one (a tilted text line), else its rectangle.

    Solid fill rather than blur or pixelation: blurred text and faces can be recovered.
    """
    out = np.array(image, copy=True)
    h, w = out.shape[:2]
    out[coverage(boxes, w, h)] = color if out.ndim == 3 else color[0]
    return out


def coverage(boxes: Iterable[Box], width: int, height: int) -> np.ndarray:
    """The height x width boolean mask :func:`mask_boxes` fills (overlaps counted once)."""
    cover = np.zeros((height, width), dtype=bool)
    for box in boxes:
        b = box.clip(width, height)
        if b is None:
            continue
        if b.quad is None:
            cover[b.y0:b.y1, b.x0:b.x1] = True
        else:
            cover[b.y0:b.y1, b.x0:b.x1] |= quad_pixels(b)
    return cover


_HALF_DIAGONAL = 0.7072


def quad_pixels(box: Box) -> np.ndarray:
    """Which pixels of the box's rectangle its quad touches (a boolean array of the rectangle's shape).

    A pixel counts when its centre lies within half a pixel diagonal of every edge's line (each
    pixel the polygon touches, not only those whose centre is inside: a mask errs towards covering). The quad
    must be convex (OCR line quads are); a non-convex or degenerate one fills the whole rectangle.
    """
    if box.quad is None:
        return np.ones((box.y1 - box.y0, box.x1 - box.x0), dtype=bool)
    q = np.asarray(box.quad, dtype=np.float64)
    ys = np.arange(box.y0, box.y1, dtype=np.float64)[:, None]
    xs = np.arange(box.x0, box.x1, dtype=np.float64)[None, :]
    edges = np.roll(q, -1, axis=0) - q
    cross = edges[:, 0] * np.roll(edges[:, 1], -1) - edges[:, 1] * np.roll(edges[:, 0], -1)
    if not (np.all(cross > 0) or np.all(cross < 0)):
        return np.ones((box.y1 - box.y0, box.x1 - box.x0), dtype=bool)
    sign = 1.0 if cross[0] > 0 else -1.0
    inside = np.ones((box.y1 - box.y0, box.x1 - box.x0), dtype=bool)
    for (px, py), (dx, dy) in zip(q, edges, strict=True):
        norm = float(np.hypot(dx, dy))
        # signed distance to the edge's line, positive inside (y down: clockwise quads have cross > 0)
        dist = sign * (dx * (ys - py) - dy * (xs - px)) / norm
        inside &= dist >= -_HALF_DIAGONAL
    return inside


_OUTPUT_FOR = {"JPG": "JPEG", "MPO": "JPEG", "JPEG": "JPEG", "PNG": "PNG", "WEBP": "WEBP", "BMP": "BMP",
               "TIFF": "TIFF", "GIF": "PNG"}


def format_for(path: str | Path, format: str | None = None) -> str:
    """The output format: ``format`` if given (MPO phone JPEGs become JPEG), else from the suffix."""
    if format:
        fmt = _OUTPUT_FOR.get(format.upper())
        if fmt is None:
            raise ValueError(f"unsupported output format {format!r}")
        return fmt
    fmt = _FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ValueError(f"cannot tell the image format from {Path(path).suffix!r}; pass format=")
    return fmt


def encode_clean(image: np.ndarray, format: str = "PNG", quality: int = 92) -> bytes:
    """Encode the pixels alone: a new PIL image from the array carries no info, EXIF, ICC or text."""
    fmt = format_for("x", format)
    arr = np.ascontiguousarray(image)
    if arr.dtype != np.uint8:
        raise ValueError(f"expected a uint8 image, got {arr.dtype}")
    im = Image.fromarray(arr)
    if im.mode not in ("RGB", "L"):
        im = im.convert("RGB")
    buf = io.BytesIO()
    if fmt == "JPEG":
        # No exif/icc/comment/dpi arguments: PIL then writes SOI, JFIF APP0, tables, SOF, SOS only.
        im.save(buf, "JPEG", quality=quality, optimize=True)
    elif fmt == "PNG":
        im.save(buf, "PNG", optimize=False)          # IHDR, IDAT, IEND: no pnginfo, no pHYs
    elif fmt == "WEBP":
        im.save(buf, "WEBP", quality=quality)   # fresh image: no exif/icc/xmp to carry
    elif fmt in ("BMP", "TIFF"):
        im.save(buf, fmt)
    else:
        raise ValueError(f"unsupported output format {fmt!r}")
    data = buf.getvalue()
    leftover = [b for b in metadata_report(data)["blocks"] if b not in _HARMLESS]
    if leftover:                                     # defensive: a PIL change must not leak metadata
        raise RuntimeError(f"encoder wrote metadata blocks {leftover}")
    return data


_HARMLESS = frozenset({"JFIF"})
"""JFIF APP0 only says 'this is a JFIF file' plus a pixel aspect; every baseline JPEG has it."""


def save_clean(image: np.ndarray, path: str | Path | IO[bytes], format: str | None = None,
               quality: int = 92) -> None:
    """Write ``image`` as a new file with no metadata at all (format from the suffix unless given)."""
    if isinstance(path, (str, Path)):
        data = encode_clean(image, format_for(path, format), quality)
        Path(path).write_bytes(data)
    else:
        path.write(encode_clean(image, format or "PNG", quality))


# --------------------------------------------------------------------------- metadata report (names only)

def metadata_report(src: ImageSource) -> dict[str, Any]:
    """Which metadata blocks a file has — names only, never values (values can identify).

    Keys: ``format``; ``blocks`` (e.g. ``["JFIF", "EXIF", "EXIF.GPS", "XMP", "ICC"]``); ``exif_tags``
    (tag names such as ``Orientation``, ``GPSInfo``, ``Make``); ``text_keys`` (PNG text chunk keywords).
    """
    data = _read_bytes(src)
    blocks: list[str] = []
    text_keys: list[str] = []
    fmt: str | None
    if data[:3] == b"\xff\xd8\xff":
        fmt = "JPEG"
        blocks = _jpeg_blocks(data)
    elif data[:8] == b"\x89PNG\r\n\x1a\n":
        fmt = "PNG"
        blocks, text_keys = _png_blocks(data)
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        fmt = "WEBP"
        blocks = _webp_blocks(data)
    else:
        fmt = None
        blocks = _pil_blocks(data)
    exif_tags = _exif_tag_names(data)
    if exif_tags and "EXIF" not in blocks:
        blocks.append("EXIF")
    if "GPSInfo" in exif_tags and "EXIF.GPS" not in blocks:
        blocks.append("EXIF.GPS")
    if fmt is None:
        try:
            with Image.open(io.BytesIO(data)) as im:
                fmt = im.format
        except Exception:  # noqa: BLE001, S110 - not an image PIL knows: the format stays unknown
            pass
    return {"format": fmt, "blocks": _dedupe(blocks), "exif_tags": sorted(set(exif_tags)),
            "text_keys": _dedupe(text_keys)}


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for x in items:
        seen.setdefault(x, None)
    return list(seen)


def _jpeg_blocks(data: bytes) -> list[str]:
    """Walk the JPEG marker segments up to the scan and name every APPn/COM segment."""
    out: list[str] = []
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            break
        marker = data[i + 1]
        if marker == 0xFF:                          # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        if marker == 0xD9:                          # EOI
            break
        seglen = struct.unpack(">H", data[i + 2:i + 4])[0]
        body = data[i + 4:i + 2 + seglen]
        if 0xE0 <= marker <= 0xEF:
            out.append(_app_name(marker - 0xE0, body))
        elif marker == 0xFE:
            out.append("COMMENT")
        if marker == 0xDA:                          # start of scan: metadata segments come before it
            break
        i += 2 + seglen
    return out


def _app_name(n: int, body: bytes) -> str:
    if n == 0 and body.startswith(b"JFIF\x00"):
        return "JFIF"
    if n == 0 and body.startswith(b"JFXX\x00"):
        return "JFXX"                               # JFIF extension: an embedded thumbnail
    if n == 1 and body.startswith(b"Exif\x00"):
        return "EXIF"
    if n == 1 and (body.startswith(b"http://ns.adobe.com/xap/1.0/") or b"<x:xmpmeta" in body[:200]):
        return "XMP"
    if n == 1 and body.startswith(b"http://ns.adobe.com/xmp/extension/"):
        return "XMP.extended"
    if n == 2 and body.startswith(b"ICC_PROFILE\x00"):
        return "ICC"
    if n == 2 and body.startswith(b"MPF\x00"):
        return "MPF"                                # multi-picture format: extra images (thumbnails)
    if n == 13 and body.startswith(b"Photoshop 3.0\x00"):
        return "IPTC/Photoshop"
    if n == 14 and body.startswith(b"Adobe"):
        return "Adobe"
    return f"APP{n}"


_PNG_META = {b"tEXt": "TEXT", b"zTXt": "TEXT", b"iTXt": "TEXT", b"eXIf": "EXIF", b"iCCP": "ICC",
             b"tIME": "TIME", b"pHYs": "pHYs", b"sRGB": "sRGB", b"gAMA": "gAMA", b"cHRM": "cHRM",
             b"sBIT": "sBIT", b"sPLT": "sPLT", b"hIST": "hIST", b"caBX": "C2PA", b"acTL": "APNG"}
_PNG_STRUCTURE = {b"IHDR", b"IDAT", b"IEND", b"PLTE", b"tRNS"}


def _png_blocks(data: bytes) -> tuple[list[str], list[str]]:
    out: list[str] = []
    keys: list[str] = []
    i = 8
    while i + 8 <= len(data):
        length, ctype = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + length]
        if ctype not in _PNG_STRUCTURE:
            out.append(_PNG_META.get(ctype, "chunk:" + ctype.decode("latin-1", "replace")))
            if ctype in (b"tEXt", b"zTXt", b"iTXt"):
                key = body.split(b"\x00", 1)[0][:79].decode("latin-1", "replace")
                keys.append("".join(c if c.isprintable() else "?" for c in key))
                if key == "XML:com.adobe.xmp":
                    out.append("XMP")
        if ctype == b"IEND":
            break
        i += 12 + length
    return out, keys


def _webp_blocks(data: bytes) -> list[str]:
    out: list[str] = []
    i = 12
    names = {b"EXIF": "EXIF", b"XMP ": "XMP", b"ICCP": "ICC"}
    while i + 8 <= len(data):
        ctype, size = data[i:i + 4], struct.unpack("<I", data[i + 4:i + 8])[0]
        if ctype in names:
            out.append(names[ctype])
        i += 8 + size + (size & 1)
    return out


def _pil_blocks(data: bytes) -> list[str]:
    try:
        with Image.open(io.BytesIO(data)) as im:
            keys = [k for k in im.info if k in ("exif", "icc_profile", "xmp", "comment", "XML:com.adobe.xmp")]
            extra = ["TEXT"] if getattr(im, "text", None) else []
    except Exception:  # noqa: BLE001 - the report is best effort; the writer never copies metadata anyway
        return []
    names = {"exif": "EXIF", "icc_profile": "ICC", "xmp": "XMP", "XML:com.adobe.xmp": "XMP", "comment": "COMMENT"}
    return [names[k] for k in keys] + extra


def _exif_tag_names(data: bytes) -> list[str]:
    """Names of the EXIF tags present (main IFD and its Exif/GPS sub-IFDs); no values."""
    from PIL.ExifTags import GPSTAGS, TAGS

    try:
        with Image.open(io.BytesIO(data)) as im:
            exif = im.getexif()
            names = [TAGS.get(t, f"0x{t:04x}") for t in exif]
            for ifd_tag, table in ((_EXIF_IFD, TAGS), (_GPS_IFD, GPSTAGS), (_INTEROP_IFD, TAGS)):
                try:
                    sub = exif.get_ifd(ifd_tag)
                except Exception:  # noqa: BLE001, S112 - a malformed sub-IFD: list what can be read
                    continue
                prefix = "GPS." if ifd_tag == _GPS_IFD else ""
                names += [prefix + table.get(t, f"0x{t:04x}") for t in sub]
            return names
    except Exception:  # noqa: BLE001 - malformed EXIF: the raw scan still names the block
        return []
