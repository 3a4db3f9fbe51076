"""Image de-identification: metadata removal, EXIF orientation, masking, the OpenCV detectors and OCR.

Offline and CPU-only. Tests on real photos use ``../shared/fixtures`` (report photos with patient
name, outpatient number, hospital, doctors, dates and invoice number visible; real QR photos) and
skip with a reason when it is absent. Identifier tokens read from the real photos are compared in
memory and never printed: assertion messages carry counts and categories only.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, PngImagePlugin

from medrealmm.deid.image.base import Box, make_detector
from medrealmm.deid.image.mask import encode_clean, load_image, mask_boxes, metadata_report, save_clean
from medrealmm.deid.image.pipeline import ImagePipeline

try:
    from tests.conftest import shared_dir
except ImportError:      # tests run with tests/ itself on sys.path
    from conftest import shared_dir  # type: ignore[no-redef]

SECRET = "4711"     # planted in every metadata block; must not survive anywhere

# --------------------------------------------------------------------------------------- helpers


def _picture(w: int = 64, h: int = 48) -> Image.Image:
    """An asymmetric picture: a red block at the top-left, a blue block at the bottom-right."""
    a = np.full((h, w, 3), 200, np.uint8)
    a[2:12, 3:20] = (255, 0, 0)
    a[h - 10:h - 2, w - 14:w - 3] = (0, 0, 255)
    return Image.fromarray(a)


def _exif(orientation: int = 1) -> Image.Exif:
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = f"SecretCam-{SECRET}"           # Make
    exif[0x013B] = f"Zhang San {SECRET}"           # Artist
    exif[0x0132] = "2024:05:31 09:52:00"           # DateTime
    gps = exif.get_ifd(0x8825)
    gps[1] = "N"
    gps[2] = (31.0, 14.0, 47.11)
    gps[3] = "E"
    gps[4] = (121.0, 28.0, 47.11)
    gps[27] = f"ASCII\x00\x00\x00home-{SECRET}".encode()   # GPSProcessingMethod
    return exif


XMP = (f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       f'<rdf:Description dc:creator="patient-{SECRET}" xmlns:dc="http://purl.org/dc/elements/1.1/"/>'
       f'</rdf:RDF></x:xmpmeta>').encode()
ICC = b"\x00\x00\x02\x0cfake-icc-profile-" + SECRET.encode() + b"\x00" * 500


def _jpeg_with_everything(orientation: int = 1, image: Image.Image | None = None) -> bytes:
    buf = io.BytesIO()
    (image or _picture()).save(buf, "JPEG", quality=95, exif=_exif(orientation).tobytes(), icc_profile=ICC,
                               xmp=XMP, comment=f"comment-{SECRET}")
    return buf.getvalue()


def _png_with_everything(orientation: int = 1, image: Image.Image | None = None) -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", f"张三-{SECRET}")
    info.add_text("Comment", f"zipped-{SECRET}", zip=True)
    info.add_itxt("Description", f"门诊号 9005{SECRET}", lang="zh", tkey="说明")
    info.add_itxt("XML:com.adobe.xmp", XMP.decode())
    buf = io.BytesIO()
    (image or _picture()).save(buf, "PNG", pnginfo=info, exif=_exif(orientation).tobytes(), icc_profile=ICC)
    return buf.getvalue()


def _webp_with_everything() -> bytes:
    buf = io.BytesIO()
    _picture().save(buf, "WEBP", quality=90, exif=_exif(1).tobytes(), icc_profile=ICC, xmp=XMP)
    return buf.getvalue()


def _jpeg_segments(data: bytes) -> list[int]:
    """Marker bytes of the JPEG segments before the scan (raw scan, independent of PIL)."""
    assert data[:2] == b"\xff\xd8"
    out, i = [], 2
    while i < len(data):
        assert data[i] == 0xFF, f"bad marker at {i}"
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append(marker)
        if marker == 0xDA:
            break
        i += 2 + length
    return out


def _png_chunks(data: bytes) -> list[bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, i = [], 8
    while i < len(data):
        length, ctype = struct.unpack(">I4s", data[i:i + 8])
        out.append(ctype)
        i += 12 + length
    return out


def _webp_chunks(data: bytes) -> list[bytes]:
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    out, i = [], 12
    while i + 8 <= len(data):
        ctype, size = data[i:i + 4], struct.unpack("<I", data[i + 4:i + 8])[0]
        out.append(ctype)
        i += 8 + size + (size & 1)
    return out


def _assert_clean(data: bytes) -> None:
    """No metadata of any kind survives, checked by PIL and by a raw scan of the container."""
    assert SECRET.encode() not in data
    with Image.open(io.BytesIO(data)) as im:
        assert len(im.getexif()) == 0
        assert not {"exif", "icc_profile", "xmp", "comment", "XML:com.adobe.xmp"} & set(im.info)
        assert not getattr(im, "text", {})
        fmt = im.format
    if fmt == "JPEG":
        markers = _jpeg_segments(data)
        app = [m for m in markers if 0xE0 <= m <= 0xEF or m == 0xFE]
        assert app == [0xE0], f"JPEG APP/COM segments: {[hex(m) for m in app]}"     # JFIF only
        jfif = data.index(b"\xff\xe0")
        assert data[jfif + 4:jfif + 9] == b"JFIF\x00"
    elif fmt == "PNG":
        assert set(_png_chunks(data)) <= {b"IHDR", b"IDAT", b"IEND"}, _png_chunks(data)
    elif fmt == "WEBP":
        assert not {b"EXIF", b"XMP ", b"ICCP"} & set(_webp_chunks(data))
    assert metadata_report(data)["blocks"] in ([], ["JFIF"])


# --------------------------------------------------------------------------------------- metadata


@pytest.mark.parametrize("make,names", [
    (_jpeg_with_everything, {"JFIF", "EXIF", "EXIF.GPS", "XMP", "ICC", "COMMENT"}),
    (_png_with_everything, {"TEXT", "EXIF", "EXIF.GPS", "XMP", "ICC"}),
    (_webp_with_everything, {"EXIF", "EXIF.GPS", "XMP", "ICC"}),
])
def test_metadata_report_lists_names_never_values(make, names):
    data = make()
    report = metadata_report(data)
    assert names <= set(report["blocks"]), report["blocks"]
    assert {"Orientation", "Make", "Artist", "GPSInfo", "GPS.GPSLatitude"} <= set(report["exif_tags"])
    assert SECRET not in json.dumps(report, ensure_ascii=False)
    assert "2024" not in json.dumps(report) and "31.0" not in json.dumps(report)


@pytest.mark.parametrize("make", [_jpeg_with_everything, _png_with_everything, _webp_with_everything])
@pytest.mark.parametrize("out_suffix", [".jpg", ".png", ".webp"])
def test_written_files_carry_no_metadata(tmp_path, make, out_suffix):
    data = make()
    assert SECRET.encode() in data                       # the input really has it
    pipe = ImagePipeline([], pad=0)
    (res,) = pipe.process([data])
    assert {"EXIF", "ICC", "XMP"} <= set(res.metadata_removed)
    out = tmp_path / f"clean{out_suffix}"
    sha = pipe.write(res, out)
    written = out.read_bytes()
    assert re.fullmatch(r"[0-9a-f]{64}", sha)
    _assert_clean(written)
    with Image.open(out) as im:
        assert im.size == res.size


def test_save_clean_and_encode_clean_reject_nothing_silently(tmp_path):
    arr = np.asarray(_picture())
    for suffix in (".jpg", ".jpeg", ".png", ".webp"):
        save_clean(arr, tmp_path / f"x{suffix}")
        _assert_clean((tmp_path / f"x{suffix}").read_bytes())
    buf = io.BytesIO()
    save_clean(arr, buf, "PNG")
    _assert_clean(buf.getvalue())
    with pytest.raises(ValueError):
        save_clean(arr, tmp_path / "x.unknown")
    assert metadata_report(encode_clean(arr, "JPEG"))["blocks"] == ["JFIF"]


# inverse of what exif_transpose applies for each orientation: the stored pixels of an upright picture
_STORE = {1: None, 2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
          4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_90,
          7: Image.Transpose.TRANSVERSE, 8: Image.Transpose.ROTATE_270}


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_is_applied_first(orientation):
    upright = _picture()
    stored = upright if _STORE[orientation] is None else upright.transpose(_STORE[orientation])
    data = _png_with_everything(orientation, stored)     # PNG: lossless, so pixels compare exactly
    arr, info = load_image(data)
    assert info.orientation == orientation
    assert info.stored_size == stored.size and info.size == upright.size
    np.testing.assert_array_equal(arr, np.asarray(upright))
    # the pipeline masks in the displayed frame and writes no orientation tag
    box = Box(3, 2, 20, 12, "FACE", "stub")
    (res,) = ImagePipeline([_Stub([[box]])], pad=0).process([data])
    assert res.orientation == orientation and res.size == upright.size
    assert (res.image[2:12, 3:20] == 0).all()
    assert len(Image.open(io.BytesIO(encode_clean(res.image, "JPEG"))).getexif()) == 0


def test_jpeg_orientation_and_odd_modes():
    upright = _picture(80, 40)
    arr, info = load_image(_jpeg_with_everything(6, upright.transpose(Image.Transpose.ROTATE_90)))
    assert info.orientation == 6 and arr.shape == (40, 80, 3)
    assert arr[5, 10, 0] > 200 and arr[5, 10, 2] < 60      # red block back at the top-left
    rgba = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    buf = io.BytesIO()
    rgba.save(buf, "PNG")
    arr, _ = load_image(buf.getvalue())
    assert arr.shape == (10, 10, 3) and (arr == 255).all()   # transparency flattened onto white
    grey = Image.new("L", (7, 5), 17)
    buf = io.BytesIO()
    grey.save(buf, "PNG")
    arr, _ = load_image(buf.getvalue())
    assert arr.shape == (5, 7, 3) and (arr == 17).all()


# --------------------------------------------------------------------------------------- masking


def test_mask_boxes_blacks_out_exactly_inside():
    img = np.full((40, 50, 3), 123, np.uint8)
    boxes = [Box(5, 6, 15, 16, "NAME", "t"), Box(40, 30, 60, 45, "QR", "t"), Box(-10, -10, 2, 3, "FACE", "t")]
    out = mask_boxes(img, boxes)
    assert out is not img and (img == 123).all()           # the input is untouched
    inside = np.zeros((40, 50), bool)
    inside[6:16, 5:15] = True
    inside[30:40, 40:50] = True                              # clipped at the image edge
    inside[0:3, 0:2] = True
    assert (out[inside] == 0).all()
    assert (out[~inside] == 123).all()


def test_box_clip_and_pad():
    b = Box(-5, 10, 30, 90, "NAME", "t", 0.5)
    assert b.clip(20, 50) == Box(0, 10, 20, 50, "NAME", "t", 0.5)
    assert Box(30, 30, 40, 40, "QR", "t").clip(20, 20) is None
    assert Box(-9, -9, -1, -1, "QR", "t").clip(20, 20) is None
    assert Box(2, 2, 4, 4, "QR", "t").pad(3) == Box(-1, -1, 7, 7, "QR", "t")
    with pytest.raises(ValueError):
        Box(3, 3, 3, 9, "QR", "t")
    assert Box(1, 2, 3, 4, "NAME", "ocr", 0.91234).audit() == {"box": [1, 2, 3, 4], "category": "NAME",
                                                                "detector": "ocr", "score": 0.9123}


class _Stub:
    name = "stub"

    def __init__(self, boxes: list[list[Box]]):
        self.boxes = boxes
        self.calls = 0

    def detect(self, images):
        self.calls += 1
        assert len(images) == len(self.boxes)
        return self.boxes


def test_pipeline_pads_clips_batches_and_logs_no_text(caplog):
    imgs = []
    for i in range(3):
        buf = io.BytesIO()
        _picture(30, 20).save(buf, "PNG")
        imgs.append(buf.getvalue())
    stub = _Stub([[Box(25, 15, 40, 30, "NAME", "stub")], [], [Box(0, 0, 2, 2, "QR", "stub")]])
    pipe = ImagePipeline([stub], pad=2, batch_size=3)
    with caplog.at_level(logging.DEBUG):
        res = pipe.process(imgs)
    assert stub.calls == 1                                   # one batched call
    assert res[0].boxes == [Box(23, 13, 30, 20, "NAME", "stub")]
    assert (res[0].image[13:20, 23:30] == 0).all() and (res[0].image[:13] != 0).any()
    assert res[1].boxes == [] and res[2].boxes == [Box(0, 0, 4, 4, "QR", "stub")]
    assert {"load", "stub", "mask"} <= set(res[0].timings)
    assert res[0].categories() == {"NAME": 1} and 0 < res[0].masked_share < 1
    json.dumps(res[0].audit())
    assert "boxes {'NAME': 1}" in caplog.text


class _Failing:
    name = "failing"

    def detect(self, images):
        raise RuntimeError("detector broke")


def test_pipeline_overlap_same_boxes_and_helper_errors_stop_the_batch():
    """Detectors after the first run on a helper thread (overlap): same boxes and order as one after
    the other, and an error on the helper thread still stops the batch."""
    buf = io.BytesIO()
    _picture(30, 20).save(buf, "PNG")
    first = _Stub([[Box(1, 1, 5, 5, "NAME", "stub")]])
    second = _Stub([[Box(10, 10, 14, 14, "QR", "stub")]])
    seq = ImagePipeline([first, second], pad=0, overlap=False).process([buf.getvalue()])
    ovl = ImagePipeline([first, second], pad=0, overlap=True).process([buf.getvalue()])
    assert seq[0].boxes == ovl[0].boxes == [Box(1, 1, 5, 5, "NAME", "stub"), Box(10, 10, 14, 14, "QR", "stub")]
    assert (seq[0].image == ovl[0].image).all()
    with pytest.raises(RuntimeError, match="detector broke"):
        ImagePipeline([first, _Failing()], pad=0, overlap=True).process([buf.getvalue()])
    with pytest.raises(RuntimeError, match="detector broke"):
        ImagePipeline([_Failing(), second], pad=0, overlap=True).process([buf.getvalue()])


def test_make_detector_rejects_unknown_kind_and_keys():
    with pytest.raises(ValueError, match="unknown image detector kind"):
        make_detector({"kind": "nope"})
    with pytest.raises(ValueError, match="needs `model"):
        make_detector({"kind": "yunet"})
    with pytest.raises(FileNotFoundError):
        make_detector({"kind": "yunet", "model": "/nonexistent/yunet.onnx"})
    for cfg in ({"kind": "qr_opencv", "upscal": 2}, {"kind": "yunet", "model": "x.onnx", "treshold": 0.5},
                {"kind": "ocr", "det_limit": 960}):
        with pytest.raises(ValueError, match="unknown keys"):      # a typo must not silently mean a default
            make_detector(cfg)


def test_a_detector_typo_fails_when_the_deid_group_is_read():
    """Each built-in kind's own keys are checked when ``deid`` is read (at start), naming the entry; a kind
    registered by other code keeps its keys as given."""
    from medrealmm.config_schema import ConfigError
    from medrealmm.deid.settings import DeidSettings

    face = {"kind": "yunet", "model": None, "score_treshold": 0.5}
    with pytest.raises(ConfigError, match=r"deid\.image\.detectors\.face: yunet detector\.score_treshold: unknown"):
        DeidSettings.of({"image": {"detectors": {"face": face}}}, "deid")
    plugin = DeidSettings.of({"image": {"detectors": {"mine": {"kind": "plugin", "anything": 1}, "off": None}}}, "deid")
    assert {n: s.entry() for n, s in plugin.image.enabled().items()} == {"mine": {"kind": "plugin", "anything": 1}}


# --------------------------------------------------------------------------------------- form rules (no OCR)


def test_form_rules_on_report_lines():
    from medrealmm.deid.image.ocr_form_rules import form_spans, label_only

    def values(t):
        return [(s.category, t[s.start:s.end]) for s in form_spans(t)]

    assert values("姓名孟丁") == [("NAME", "孟丁")]
    assert values("姓  名 孟丁 性别男") == [("NAME", "孟丁")]              # the next field ends the value
    assert values("送检医生董薇检验时间2016-08-24") == [("NAME", "董薇"), ("DATE", "2016-08-24")]
    assert values("接收时间 2016-08-24 11:07") == [("DATE", "2016-08-24 11:07")]
    assert values("门诊号90051065") == [("MRN", "90051065")]
    assert values("独墅湖科教创新区医院化验报告单") == [("HOSPITAL", "独墅湖科教创新区医院")]
    assert values("No:20160824XXS0025")[0][1] == "20160824XXS0025"
    for lab in ("9 单核细胞百分比 12.70 ↑ 3.50~10.00 %", "0.00~1.50 10~12/L 4.00~5.501012/", "年龄2岁",
                "注：本报告单仅供临床医师参考，不做任何证明。", "检查时间较长", "金额：175.05"):
        assert values(lab) == [], lab
    assert label_only("审核医生：") == "NAME" and label_only("住院号/床号：") == "MRN"
    assert label_only("日期：") == "DATE" and label_only("性别：") is None and label_only("姓名孟丁") is None


def test_ocr_line_geometry_maps_characters_to_pixels():
    from medrealmm.deid.image.ocr_engine import REC_HEIGHT
    from medrealmm.deid.image.ocr_geometry import OcrLine, reading_order

    # a line read right to left in the image (upside-down page): reading order starts at the right
    quad = np.array([[10, 10], [410, 10], [410, 50], [10, 50]], np.float64)   # tl, tr, br, bl
    ordered = reading_order(quad, np.array([-1.0, 0.0]))
    assert tuple(ordered[0]) == (410, 50) and tuple(ordered[1]) == (10, 50)
    text = "姓名张三"
    pos = np.array([0.125, 0.375, 0.625, 0.875])
    line = OcrLine(ordered.astype(np.float64), text, 0.99, pos, crop_width=4 * REC_HEIGHT)
    t0, t1 = line.span_fraction(2, 4)
    assert 0.45 <= t0 <= 0.52 and t1 >= 0.99
    box = line.sub_quad(t0, t1, 0, 0)
    x0, x1 = box[:, 0].min(), box[:, 0].max()
    assert 0 <= x0 <= 12 and 190 <= x1 <= 215               # the left half of the image: the value
    assert "姓名" not in repr(line)                           # text never in repr


# --------------------------------------------------------------------------------------- real fixtures


@pytest.fixture(scope="module")
def shared() -> Path:
    return shared_dir()


@pytest.fixture(scope="module")
def reports(shared) -> list[Path]:
    files = sorted((shared / "fixtures/images/reports").glob("*.jpg"))
    if not files:
        pytest.skip("no report photos in ../shared/fixtures/images/reports")
    return files


@pytest.fixture(scope="module")
def yunet(shared):
    model = shared / "models/yunet/face_detection_yunet_2026may.onnx"
    if not model.is_file():
        pytest.skip(f"YuNet model not found: {model}")
    return make_detector({"kind": "yunet", "model": str(model)})


def test_yunet_no_face_on_reports_but_a_real_face_in_any_rotation(yunet, reports):
    imgs = [load_image(p)[0] for p in reports]
    assert all(b == [] for b in yunet.detect(imgs)), "a face was found on a report photo"
    from matplotlib import cbook

    try:
        face_path = cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)
    except (OSError, ValueError) as e:    # pragma: no cover - a matplotlib without its sample data
        pytest.skip(f"no real face photo available (matplotlib sample data): {e}")
    face, _ = load_image(face_path)
    for k in (0, 1, 3):                                     # upright and sideways pixels
        img = np.ascontiguousarray(np.rot90(face, k))
        (boxes,) = yunet.detect([img])
        assert len(boxes) == 1 and boxes[0].category == "FACE"
        b = boxes[0]
        assert b.area > 0.08 * img.shape[0] * img.shape[1]
        masked = mask_boxes(img, boxes)
        assert yunet.detect([masked]) == [[]]               # nothing left to find


def _qr_state(img: np.ndarray) -> tuple[int, int]:
    """(decoded, detected) by OpenCV's ArUco QR detector at 1x and 2x."""
    from medrealmm.deid.image.opencv_detectors import qr_decodes

    return qr_decodes(img)


def test_qr_boxes_on_every_real_qr_photo_and_nothing_readable_after(shared, caplog):
    qrs = sorted((shared / "fixtures/images/qr").glob("*.webp"))
    if not qrs:
        pytest.skip("no QR photos in ../shared/fixtures/images/qr")
    wechat_dir = shared / "models/wechat_qrcode"
    with caplog.at_level(logging.WARNING):
        det = make_detector({"kind": "qr_opencv", "wechat_model_dir": str(wechat_dir)})
    import cv2

    has_wechat = hasattr(cv2, "wechat_qrcode_WeChatQRCode")
    if not has_wechat:
        assert "opencv-contrib" in caplog.text              # asked for WeChat: told why it is not used
    pipe = ImagePipeline([det], pad=4)
    results = pipe.process(qrs)
    decoded_before = 0
    for path, res in zip(qrs, results, strict=True):
        assert [b.category for b in res.boxes] == ["QR"], path.name
        orig, _ = load_image(path)
        dec, found = _qr_state(orig)
        decoded_before += dec
        assert found >= 1
        assert _qr_state(res.image) == (0, 0), path.name
        if has_wechat:
            w = cv2.wechat_qrcode_WeChatQRCode(*(str(wechat_dir / f) for f in (
                "detect.prototxt", "detect.caffemodel", "sr.prototxt", "sr.caffemodel")))
            assert w.detectAndDecode(np.ascontiguousarray(res.image[:, :, ::-1]))[0] in ((), [])
    assert decoded_before >= 1          # at least one code was readable before masking


def _ean13(digits12: str, module: int = 3, height: int = 80, quiet: int = 12) -> np.ndarray:
    """An EAN-13 barcode drawn from its encoding tables (no barcode library needed)."""
    left_l = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111",
              "0001011"]
    left_g = ["0100111", "0110011", "0011011", "0100001", "0011101", "0111001", "0000101", "0010001", "0001001",
              "0010111"]
    right = ["1110010", "1100110", "1101100", "1000010", "1011100", "1001110", "1010000", "1000100", "1001000",
             "1110100"]
    parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]
    d = [int(c) for c in digits12]
    d.append((10 - (sum(d[0::2]) + 3 * sum(d[1::2])) % 10) % 10)
    bits = "101" + "".join((left_l if p == "L" else left_g)[x] for p, x in zip(parity[d[0]], d[1:7], strict=True)) + "01010"
    bits += "".join(right[x] for x in d[7:]) + "101"
    img = np.full((height + 2 * quiet, (len(bits) + 2 * quiet) * module, 3), 255, np.uint8)
    for i, b in enumerate(bits):
        if b == "1":
            img[quiet:quiet + height, (quiet + i) * module:(quiet + i + 1) * module] = 0
    return img


def test_small_qr_and_a_rotated_barcode_on_a_page():
    import cv2

    segno = pytest.importorskip("segno")
    page = np.full((960, 1280, 3), 235, np.uint8)
    buf = io.BytesIO()
    segno.make_qr(f"MRN:9005{SECRET}", error="m").save(buf, kind="png", scale=2, border=2)
    qr = np.asarray(Image.open(buf).convert("RGB"))
    page[700:700 + qr.shape[0], 1000:1000 + qr.shape[1]] = qr            # a ~50 px QR code
    bar = _ean13("690123456789")
    page[300:300 + bar.shape[0], 200:200 + bar.shape[1]] = bar
    m = cv2.getRotationMatrix2D((640, 480), 20, 1.0)
    page = cv2.warpAffine(page, m, (1280, 960), borderValue=(235, 235, 235))
    bd = cv2.barcode.BarcodeDetector()
    assert bd.detectAndDecode(page)[0]                      # readable before
    (res,) = ImagePipeline([make_detector({"kind": "qr_opencv"})], pad=4).process([encode_clean(page, "PNG")])
    assert {"QR", "BARCODE"} <= set(res.categories())
    assert not bd.detectAndDecode(res.image)[0] and not bd.detectMulti(res.image)[0]
    assert _qr_state(res.image) == (0, 0)


# --------------------------------------------------------------------------------------- OCR on a real report


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(self.format(record))


@pytest.fixture(scope="module")
def report_run(reports):
    """The upright blood-test report through OCR + codes, with every log line and stream captured."""
    from medrealmm.deid.image.ocr import OcrDetector

    path = next((p for p in reports if p.name == "bloodtest-np2016-2.jpg"), reports[0])
    ocr = OcrDetector()
    pipe = ImagePipeline([ocr, make_detector({"kind": "qr_opencv"})], pad=4)
    handler = _Capture()
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            (res,) = pipe.process([path])
            lines = ocr.read([res.image])[0]          # what is still readable, by our own reader
    finally:
        root.removeHandler(handler)
        root.setLevel(old)
    from medrealmm.deid.image.ocr_verify import identifier_tokens, stock_read

    original, _ = load_image(path)
    before = stock_read(original)              # the reference reader: stock rapidocr, full resolution
    return {"path": path, "result": res, "original": original, "ocr": ocr, "after_lines": lines,
            "before": before, "tokens": identifier_tokens(before),
            "logs": "\n".join(handler.records) + out.getvalue() + err.getvalue()}


def test_ocr_masks_every_identifier_it_can_read_and_keeps_lab_values(report_run):
    from medrealmm.deid.image.ocr_verify import verify

    res = report_run["result"]
    v = verify(None, res.image, before=report_run["before"])
    # the original shows a date, numbers (outpatient no., invoice no., sample no.), names, a hospital
    assert v.before["DATE"] >= 1 and v.before["NUMBER"] >= 3 and v.before["NAME"] >= 2 and v.before["HOSPITAL"] >= 1
    assert v.after == {"DATE": 0, "NUMBER": 0, "NAME": 0, "HOSPITAL": 0}, v.after
    assert v.lab_before >= 20 and v.lab_share >= 0.85, (v.lab_after, v.lab_before)
    assert {"NAME", "DATE", "HOSPITAL"} <= set(res.categories()) and res.masked_share < 0.2
    ocr_boxes = [b for b in res.audit()["boxes"] if b["detector"] == "ocr"]
    assert ocr_boxes and all(len(b["polygon"]) == 4 for b in ocr_boxes)      # quads, not only rectangles
    lab_lines = [ln for ln in report_run["after_lines"] if re.search(r"\d+\.\d+\s*[~～-]\s*\d+\.\d+", ln.text)]
    assert len(lab_lines) >= 10                               # reference ranges still read after masking


def test_logs_hold_no_recognised_text(report_run):
    logs = report_run["logs"]
    assert "boxes" in logs                                    # the pipeline did log (counts, categories)
    tokens = report_run["tokens"]
    assert sum(len(t) for t in tokens.values()) >= 5
    leaked = [cat for cat, toks in tokens.items() for t in toks if t in logs]
    assert not leaked, f"identifier tokens of categories {leaked} appear in the logs"
    cjk_runs = re.findall(r"[\u4e00-\u9fff]{2,}", logs)
    assert not cjk_runs, f"{len(cjk_runs)} runs of Chinese text in the logs"


def test_injected_span_finder_and_rules_switches(report_run):
    """The text rules are injectable: with no rules nothing is masked; a custom finder is used."""
    from medrealmm.deid.image.ocr import OcrDetector
    from medrealmm.deid.settings import OcrSettings
    from medrealmm.deid.spans import Span

    ocr = report_run["ocr"]
    lines = ocr.read([report_run["original"]])[0]
    none = OcrDetector(OcrSettings(form_rules=False), find_spans=lambda t: [])
    assert none.boxes_from_lines(lines) == []

    def digits(text: str) -> list[Span]:
        return [Span(m.start(), m.end(), "ID", "test") for m in re.finditer(r"\d{8}", text)]

    custom = OcrDetector(OcrSettings(form_rules=False), find_spans=digits)
    boxes = custom.boxes_from_lines(lines)
    assert boxes and {b.category for b in boxes} == {"ID"}
    assert len(boxes) < len(ocr.boxes_from_lines(lines))


@pytest.mark.parametrize("how", ["pixels-90", "pixels-180", "pixels-270", "exif-6", "tilt-40"])
def test_rotated_report_is_masked_too(report_run, how):
    from medrealmm.deid.image.ocr_verify import readable_tokens, stock_read

    upright = report_run["original"]
    if how == "tilt-40":      # a photo turned 40 degrees: masked as polygons along the tilted lines
        turned = Image.fromarray(upright).rotate(40, resample=Image.Resampling.BICUBIC, expand=True,
                                                 fillcolor=(255, 255, 255))
        data = encode_clean(np.array(turned), "PNG")
    elif how.startswith("pixels"):
        k = int(how.split("-")[1]) // 90
        data = encode_clean(np.ascontiguousarray(np.rot90(upright, k)), "PNG")
    else:   # stored sideways with an EXIF orientation tag: displayed upright
        stored = Image.fromarray(upright).transpose(Image.Transpose.ROTATE_90)
        data = _png_with_everything(6, stored)
    pipe = ImagePipeline([report_run["ocr"]], pad=4)
    (res,) = pipe.process([data])
    after = stock_read(res.image)
    leaked = readable_tokens(report_run["tokens"], after)
    assert sum(len(v) for v in leaked.values()) == 0, {k: len(v) for k, v in leaked.items()}
    assert len([t for t in after if re.search(r"\d+\.\d+", t)]) >= 15      # lab values still read
    if how == "exif-6":
        assert res.orientation == 6 and res.size == (upright.shape[1], upright.shape[0])
        assert {"EXIF", "TEXT", "ICC"} <= set(res.metadata_removed)
    if how == "tilt-40":
        from dataclasses import replace

        from medrealmm.deid.image.mask import coverage

        assert res.boxes and all(b.quad is not None for b in res.boxes)
        w, h = res.size
        rect = coverage([replace(b, quad=None) for b in res.boxes], w, h).mean()
        assert res.masked_share < 0.6 * rect, (res.masked_share, rect)    # rectangles would mask > 1.6x more


def test_clinical_images_are_left_alone(shared):
    files = sorted((shared / "fixtures/images/clinical").glob("*.jpg"))
    if not files:
        pytest.skip("no clinical images in ../shared/fixtures/images/clinical")
    dets = [make_detector({"kind": "qr_opencv"})]
    model = shared / "models/yunet/face_detection_yunet_2026may.onnx"
    if model.is_file():
        dets.append(make_detector({"kind": "yunet", "model": str(model)}))
    for res in ImagePipeline(dets).process(files):
        assert res.boxes == []
        assert np.array_equal(res.image, load_image(files[res.index])[0])
