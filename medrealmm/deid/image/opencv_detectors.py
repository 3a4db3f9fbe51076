"""Face, QR and barcode detectors built on OpenCV 5 (``cv2`` is imported lazily, in constructors).

OpenCV 5 wheels no longer ship Haar cascades; what remains and runs offline on a CPU is YuNet
(``cv2.FaceDetectorYN`` with an ONNX file), the ArUco-based QR detector, the classic QR detector, the
1-D barcode detector and, in contrib builds only, the WeChat CNN QR detector. A QR code or barcode on
a report encodes the patient's order or record number, so we mask every code we *detect*; decoding
is not needed to mask and its content is never logged.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from medrealmm.deid.image.base import Box, register
from medrealmm.deid.settings import CodeSettings, YuNetSettings, detector_settings

log = logging.getLogger(__name__)


def _quad_box(points: np.ndarray, category: str, detector: str, score: float, scale: float,
              grow: float, width: int, height: int) -> Box | None:
    """Axis-aligned box around a polygon detected on a copy scaled by ``scale``, grown by ``grow``
    of its size on each side (a quiet zone / hairline margin), clipped to the image."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2) / scale
    if not np.all(np.isfinite(pts)):
        return None
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    gx, gy = (x1 - x0) * grow, (y1 - y0) * grow
    x0, y0, x1, y1 = int(np.floor(x0 - gx)), int(np.floor(y0 - gy)), int(np.ceil(x1 + gx)), int(np.ceil(y1 + gy))
    if x1 <= x0 or y1 <= y0:
        return None
    return Box(x0, y0, x1, y1, category, detector, score).clip(width, height)


def _iou(a: Box, b: Box) -> float:
    ix = max(0, min(a.x1, b.x1) - max(a.x0, b.x0))
    iy = max(0, min(a.y1, b.y1) - max(a.y0, b.y0))
    inter = ix * iy
    return inter / float(a.area + b.area - inter) if inter else 0.0


def dedupe_boxes(boxes: Sequence[Box], iou: float = 0.5) -> list[Box]:
    """Drop boxes of the same category that overlap a higher-scoring (or larger) one by ``iou``."""
    out: list[Box] = []
    for b in sorted(boxes, key=lambda b: (-b.score, -b.area)):
        if all(o.category != b.category or _iou(o, b) < iou for o in out):
            out.append(b)
    return out


def _rotate(img: np.ndarray, k: int) -> np.ndarray:
    """Rotate by k * 90 degrees counter-clockwise (a view-free copy cv2 can read)."""
    return np.ascontiguousarray(np.rot90(img, k))


def _unrotate_points(pts: np.ndarray, k: int, width: int, height: int) -> np.ndarray:
    """Map points found on ``np.rot90(img, k)`` back to the frame of ``img`` (width x height)."""
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2).copy()
    for j in range(k % 4, 0, -1):
        # one CCW turn maps (x, y) in a frame of width W to (y, W - x); undo the turns last first
        src_width = width if (j - 1) % 2 == 0 else height
        x, y = p[:, 0].copy(), p[:, 1].copy()
        p[:, 0], p[:, 1] = src_width - y, x
    return p


class YuNetFaceDetector:
    """Faces with YuNet (``cv2.FaceDetectorYN``): small, fast, no hub download — the model is a path.

    The image is scaled so its longer side is at most ``max_side`` (YuNet cost grows with area;
    faces that matter for identification are not tiny). ``rotations`` lists extra quarter-turns
    to try, for photos whose pixels (not EXIF) are rotated; boxes are grown by ``expand`` of the
    face size on each side so hairline, ears and chin are covered too.
    """

    def __init__(self, settings: YuNetSettings) -> None:
        import cv2

        s = settings
        if not s.model:
            raise ValueError("yunet detector needs `model: <path to face_detection_yunet_*.onnx>`")
        self.name = s.name
        self.model = Path(s.model)
        if not self.model.is_file():
            raise FileNotFoundError(f"YuNet model not found: {self.model}")
        self.max_side = int(s.max_side)
        self.rotations = tuple(int(r) % 360 for r in s.rotations)
        if any(r % 90 for r in self.rotations):
            raise ValueError(f"rotations must be multiples of 90, got {s.rotations}")
        self.expand = float(s.expand)
        self.score_threshold = float(s.score_threshold)
        self._net = cv2.FaceDetectorYN.create(str(self.model), "", (320, 320), self.score_threshold,
                                              float(s.nms_threshold), int(s.top_k))
        self.last_timings: list[dict[str, float]] = []

    def _faces(self, bgr: np.ndarray) -> np.ndarray:
        self._net.setInputSize((int(bgr.shape[1]), int(bgr.shape[0])))
        _, faces = self._net.detect(bgr)
        return np.zeros((0, 15), np.float32) if faces is None else faces

    def detect(self, images: Sequence[np.ndarray]) -> list[list[Box]]:
        import cv2

        out: list[list[Box]] = []
        self.last_timings = []
        for img in images:
            t0 = time.perf_counter()
            h, w = img.shape[:2]
            scale = min(1.0, self.max_side / float(max(h, w)))
            small = cv2.resize(img, (max(1, round(w * scale)), max(1, round(h * scale))),
                               interpolation=cv2.INTER_AREA) if scale < 1.0 else img
            bgr = np.ascontiguousarray(small[:, :, ::-1])
            sh, sw = bgr.shape[:2]
            boxes: list[Box] = []
            for rot in self.rotations:
                k = rot // 90
                faces = self._faces(_rotate(bgr, k) if k else bgr)
                for f in faces:
                    x, y, fw, fh = (float(v) for v in f[:4])
                    corners = np.array([[x, y], [x + fw, y], [x + fw, y + fh], [x, y + fh]])
                    if k:
                        corners = _unrotate_points(corners, k, sw, sh)
                    b = _quad_box(corners, "FACE", self.name, float(f[-1]), scale, self.expand, w, h)
                    if b is not None:
                        boxes.append(b)
            boxes = dedupe_boxes(boxes, 0.3)
            out.append(boxes)
            self.last_timings.append({"faces": time.perf_counter() - t0})
        return out


class OpenCVCodeDetector:
    """QR codes (ArUco-based and classic detectors, optional WeChat CNN) and 1-D barcodes.

    Detection runs on a grey copy whose longer side is at most ``max_side``; images smaller than
    ``upscale_below`` are also searched at ``upscale`` times their size, because a QR code in a
    report photo is often only a few dozen pixels wide. The classic QR detector (``classic``) is off
    by default: on the real QR photos it found a subset of what the ArUco detector found, at 3x the cost.
    Barcode boxes grow more (``barcode_grow``): the detector can return a box shorter than the bars,
    and any single scanline across the bars is enough to decode a 1-D code. Both finder-pattern QR detection and the
    gradient-based barcode detector are rotation invariant, so no rotated copies are needed.
    """

    def __init__(self, settings: CodeSettings | None = None) -> None:
        import cv2

        s = settings or CodeSettings()
        self.name = s.name
        self.qr, self.barcode, self.classic = bool(s.qr), bool(s.barcode), bool(s.classic)
        self.upscale, self.upscale_below, self.max_side = float(s.upscale), int(s.upscale_below), int(s.max_side)
        self.grow, self.barcode_grow = float(s.grow), float(s.barcode_grow)
        self._aruco = cv2.QRCodeDetectorAruco() if self.qr else None
        self._classic = cv2.QRCodeDetector() if self.qr and self.classic else None
        self._bar = cv2.barcode.BarcodeDetector() if self.barcode else None
        self._wechat = None
        if s.wechat_model_dir is not None:
            self._wechat = _make_wechat(Path(s.wechat_model_dir))
        self.last_timings: list[dict[str, float]] = []

    def _scales(self, h: int, w: int) -> list[float]:
        base = min(1.0, self.max_side / float(max(h, w)))
        scales = [base]
        if self.upscale > 1.0 and max(h, w) * base < self.upscale_below:
            scales.append(base * self.upscale)
        return scales

    def _detect_one(self, img: np.ndarray) -> list[Box]:
        import cv2

        h, w = img.shape[:2]
        grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
        boxes: list[Box] = []
        for s in self._scales(h, w):
            g = grey if s == 1.0 else cv2.resize(grey, (max(1, round(w * s)), max(1, round(h * s))),
                                                 interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
            polys: list[tuple[np.ndarray, str]] = []
            # the classic detector costs 4x ArUco on an upscaled copy and found nothing more there
            for det in (self._aruco, self._classic if s <= 1.0 else None):
                if det is None:
                    continue
                try:
                    ok, pts = det.detectMulti(g)
                except cv2.error:
                    ok, pts = False, None
                if ok and pts is not None:
                    polys += [(p, "QR") for p in pts]
            if self._bar is not None:
                try:
                    ok, pts = self._bar.detectMulti(g)
                except cv2.error:
                    ok, pts = False, None
                if ok and pts is not None:
                    polys += [(p, "BARCODE") for p in pts]
            for p, cat in polys:
                grow = self.barcode_grow if cat == "BARCODE" else self.grow
                b = _quad_box(p, cat, self.name, 1.0, s, grow, w, h)
                if b is not None:
                    boxes.append(b)
        if self._wechat is not None:
            try:
                _, pts = self._wechat.detectAndDecode(np.ascontiguousarray(img[:, :, ::-1]))
            except cv2.error:
                pts = ()
            for p in pts or ():
                b = _quad_box(p, "QR", self.name, 1.0, 1.0, self.grow, w, h)
                if b is not None:
                    boxes.append(b)
        return dedupe_boxes(boxes, 0.5)

    def detect(self, images: Sequence[np.ndarray]) -> list[list[Box]]:
        out: list[list[Box]] = []
        self.last_timings = []
        for img in images:
            t0 = time.perf_counter()
            out.append(self._detect_one(img))
            self.last_timings.append({"codes": time.perf_counter() - t0})
        return out


def _make_wechat(model_dir: Path) -> Any:
    """The WeChat CNN QR detector when this OpenCV build has it (contrib), else None with a warning."""
    import cv2

    ctor = getattr(cv2, "wechat_qrcode_WeChatQRCode", None)
    if ctor is None:
        log.warning("WeChat QR detector requested but this OpenCV build lacks cv2.wechat_qrcode "
                    "(it is in opencv-contrib-python-headless); using the ArUco and classic QR detectors only")
        return None
    files = [model_dir / f for f in ("detect.prototxt", "detect.caffemodel", "sr.prototxt", "sr.caffemodel")]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise FileNotFoundError(f"WeChat QR model files missing in {model_dir}: {missing}")
    return ctor(*(str(f) for f in files))


@register("yunet")
def _build_yunet(cfg: Mapping[str, Any]) -> YuNetFaceDetector:
    return YuNetFaceDetector(detector_settings(YuNetSettings, cfg, "yunet"))


@register("qr_opencv")
def _build_codes(cfg: Mapping[str, Any]) -> OpenCVCodeDetector:
    return OpenCVCodeDetector(detector_settings(CodeSettings, cfg, "qr_opencv"))


def qr_decodes(image: np.ndarray, *, wechat_dir: Path | None = None) -> tuple[int, int]:
    """(decoded, detected) QR codes in an RGB or grey image: OpenCV's ArUco QR detector at 1x and 2x
    (the best of the two), plus the WeChat detector when its model folder is given and OpenCV has it.
    The privacy check after masking: a masked code must neither decode nor be found."""
    import cv2

    det = cv2.QRCodeDetectorAruco()
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image
    decoded = detected = 0
    for s in (1.0, 2.0):
        g = grey if s == 1.0 else cv2.resize(grey, None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC)
        ok, texts, pts, _ = det.detectAndDecodeMulti(g)
        if ok and pts is not None:
            detected = max(detected, len(pts))
            decoded = max(decoded, sum(1 for t in texts if t))
    wechat = getattr(cv2, "wechat_qrcode_WeChatQRCode", None)
    if wechat is not None and wechat_dir is not None and image.ndim == 3:
        w = wechat(*(str(Path(wechat_dir) / f) for f in ("detect.prototxt", "detect.caffemodel", "sr.prototxt",
                                                         "sr.caffemodel")))
        texts, pts = w.detectAndDecode(np.ascontiguousarray(image[:, :, ::-1]))
        decoded = max(decoded, sum(1 for t in texts if t))
        detected = max(detected, len(pts))
    return decoded, detected
