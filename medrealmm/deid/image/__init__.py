"""Image de-identification: detectors (faces, QR/barcodes, OCR'd identifiers) behind one interface,
black-box masking and metadata removal.

- :mod:`.base` — the :class:`Box` a detector returns and the registry that builds detectors from config;
- :mod:`.pipeline` — :class:`ImagePipeline`: load (EXIF orientation), detect, mask, save without metadata;
- :mod:`.mask` — filling boxes and quadrilaterals, metadata-free encoding, what metadata a file held;
- :mod:`.opencv_detectors` (QR/barcodes, YuNet faces), :mod:`.yolo` (trained code detector), and the
  OCR detector :mod:`.ocr`, built from :mod:`.ocr_engine` (rapidocr's models), :mod:`.ocr_geometry`
  (line quadrilaterals, rows, tilt), :mod:`.ocr_form_rules` (identifiers in form lines) and checked by
  :mod:`.ocr_verify` (identifiers still readable after masking). These import OpenCV, onnxruntime or
  torch, so they are loaded when a detector of theirs is built (:func:`make_detector`), not here.
"""

from medrealmm.deid.image.base import IMAGE_CATEGORIES, Box, ImageDetector, make_detector, register
from medrealmm.deid.image.mask import ImageSource, coverage, encode_clean, load_image, mask_boxes, save_clean
from medrealmm.deid.image.pipeline import ImagePipeline, ImageResult

__all__ = [
    "IMAGE_CATEGORIES",
    "Box",
    "ImageDetector",
    "ImagePipeline",
    "ImageResult",
    "ImageSource",
    "coverage",
    "encode_clean",
    "load_image",
    "make_detector",
    "mask_boxes",
    "register",
    "save_clean",
]
