"""Image de-identification: load (EXIF orientation first), detect, mask with black boxes, write clean.

Every detector sees the whole batch at once (the OCR recogniser batches text lines across images).
A detector failure stops the batch: an image we could not check must not go out unmasked.
Logs carry counts, categories, sizes and timings only — never recognised text, which may be an
identifier — and the metadata report lists block *names*, never values.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from medrealmm.deid.image.base import Box, ImageDetector
from medrealmm.deid.image.mask import ImageSource, coverage, encode_clean, format_for, load_image, mask_boxes

log = logging.getLogger(__name__)


@dataclass
class ImageResult:
    """One de-identified image: pixels with boxes (OCR lines: their quads) blacked out, and what the
    audit trail needs."""

    index: int                               # position in the input sequence
    image: np.ndarray = field(repr=False)    # masked RGB, EXIF orientation applied
    boxes: list[Box]                         # padded and clipped, in ``image`` coordinates (quads too)
    timings: dict[str, float]                # seconds per stage: load, <detector stages>, mask, save
    metadata_removed: list[str]              # names of the metadata blocks the input had (JFIF, EXIF, XMP …)
    original_size: tuple[int, int]           # (width, height) as stored in the input file
    size: tuple[int, int]                    # (width, height) after orientation: the frame of ``boxes``
    orientation: int                         # EXIF orientation that was applied (1 = none)
    format: str | None = None                # input format (JPEG, PNG, WEBP …)

    def categories(self) -> dict[str, int]:
        return dict(sorted(Counter(b.category for b in self.boxes).items()))

    @property
    def masked_share(self) -> float:
        """Share of the image area under a mask (overlaps counted once)."""
        h, w = self.image.shape[:2]
        cover = coverage(self.boxes, w, h)
        return float(cover.mean()) if cover.size else 0.0

    def audit(self) -> dict[str, Any]:
        return {"index": self.index, "boxes": [b.audit() for b in self.boxes], "categories": self.categories(),
                "metadata_removed": list(self.metadata_removed), "original_size": list(self.original_size),
                "size": list(self.size), "orientation": self.orientation, "format": self.format,
                "timings": {k: round(v, 4) for k, v in self.timings.items()}}


class ImagePipeline:
    """Runs ``detectors`` over batches of images and masks what they find, grown by ``pad`` pixels
    (a quad along its own edges, a rectangle along x and y).

    ``progress``: a tqdm bar over images (None: only for ``progress_min`` images or more).
    ``overlap``: run the other detectors on a helper thread while the first one (put the OCR first) runs.
    """

    def __init__(self, detectors: Sequence[ImageDetector], pad: int = 4, *, batch_size: int = 8,
                 progress: bool | None = None, progress_min: int = 20, overlap: bool = True) -> None:
        if pad < 0:
            raise ValueError(f"pad must be >= 0, got {pad}")
        self.detectors = list(detectors)
        self.pad = int(pad)
        self.batch_size = max(1, int(batch_size))
        self.progress, self.progress_min = progress, int(progress_min)
        self.overlap = bool(overlap)

    # -------------------------------------------------------------------------------------------

    def process(self, images: Sequence[ImageSource]) -> list[ImageResult]:
        """De-identify ``images`` (file paths or encoded bytes), in order."""
        return list(self.iter_process(images))

    def iter_process(self, images: Sequence[ImageSource]) -> Iterator[ImageResult]:
        """Like :meth:`process`, yielding results batch by batch (bounded memory for long runs)."""
        n = len(images)
        show = self.progress if self.progress is not None else n >= self.progress_min
        bar = None
        if show:
            from tqdm.auto import tqdm

            bar = tqdm(total=n, desc="deid images", unit="img")
        try:
            for b0 in range(0, n, self.batch_size):
                batch = self._batch(images[b0:b0 + self.batch_size], b0)
                if bar is not None:
                    bar.update(len(batch))
                yield from batch
        finally:
            if bar is not None:
                bar.close()

    def _batch(self, sources: Sequence[ImageSource], offset: int) -> list[ImageResult]:
        t_batch = time.perf_counter()
        arrays: list[np.ndarray] = []
        infos = []
        timings: list[dict[str, float]] = []
        for src in sources:
            t0 = time.perf_counter()
            arr, info = load_image(src)
            arrays.append(arr)
            infos.append(info)
            timings.append({"load": time.perf_counter() - t0})
        found = self._detect(arrays, timings)
        results: list[ImageResult] = []
        for i, (arr, info) in enumerate(zip(arrays, infos, strict=True)):
            t0 = time.perf_counter()
            h, w = arr.shape[:2]
            masked, boxes = self.mask(arr, found[i])
            timings[i]["mask"] = time.perf_counter() - t0
            res = ImageResult(index=offset + i, image=masked, boxes=boxes, timings=timings[i],
                              metadata_removed=list(info.metadata), original_size=info.stored_size, size=info.size,
                              orientation=info.orientation, format=info.format)
            results.append(res)
            if log.isEnabledFor(logging.DEBUG):
                log.debug("image %d: %dx%d orientation %d, metadata removed %s, boxes %s, timings %s",
                          res.index, w, h, res.orientation, res.metadata_removed or "none", res.categories(),
                          {k: round(v, 3) for k, v in res.timings.items()})
        total = Counter(b.category for r in results for b in r.boxes)
        log.info("images %d-%d: %d boxes %s in %.2f s", offset, offset + len(results) - 1, sum(total.values()),
                 dict(sorted(total.items())), time.perf_counter() - t_batch)
        return results

    def detect(self, arrays: Sequence[np.ndarray]) -> list[list[Box]]:
        """What every detector finds in decoded RGB arrays, unpadded (benchmarks compare masks on it)."""
        return self._detect(arrays, [{} for _ in arrays])

    def mask(self, image: np.ndarray, found: Sequence[Box]) -> tuple[np.ndarray, list[Box]]:
        """``image`` with ``found`` grown by ``pad`` and clipped, filled black; and those final boxes."""
        h, w = image.shape[:2]
        boxes = [c for b in found if (c := b.pad(self.pad).clip(w, h)) is not None]
        return mask_boxes(image, boxes), boxes

    def _detect(self, arrays: Sequence[np.ndarray], timings: list[dict[str, float]]) -> list[list[Box]]:
        """Each detector over the whole batch; per-image seconds added to ``timings``.

        With ``overlap``, the detectors after the first (codes, faces: OpenCV, which releases the GIL)
        run on a helper thread while the first (OCR) runs here, so they fill the cores the OCR leaves
        idle (its page barrier, its last recognition batch, its rules) instead of running after it.
        Results and their order are the same either way; an error in any detector still stops the batch."""
        runs: list[tuple[list[list[Box]], float, Any]] = []
        rest = self.detectors[1:]
        if self.overlap and rest:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(1, thread_name_prefix="deid-det") as pool:
                fut = pool.submit(lambda: [self._run(det, arrays) for det in rest])
                try:
                    runs.append(self._run(self.detectors[0], arrays))
                finally:
                    others = fut.result()          # waits; re-raises a helper-thread error
                runs += others
        else:
            runs = [self._run(det, arrays) for det in self.detectors]
        found: list[list[Box]] = [[] for _ in arrays]
        for det, (boxes, elapsed, per_image) in zip(self.detectors, runs, strict=True):
            if len(boxes) != len(arrays):
                raise RuntimeError(f"detector {det.name!r} returned {len(boxes)} results for {len(arrays)} images")
            for i, bs in enumerate(boxes):
                found[i].extend(bs)
                if isinstance(per_image, list) and len(per_image) == len(arrays):
                    for k, v in per_image[i].items():
                        timings[i][k] = timings[i].get(k, 0.0) + float(v)
                else:
                    timings[i][det.name] = timings[i].get(det.name, 0.0) + elapsed / len(arrays)
        return found

    @staticmethod
    def _run(det: ImageDetector, arrays: Sequence[np.ndarray]) -> tuple[list[list[Box]], float, Any]:
        """One detector over the batch: its boxes, its seconds, and its per-image timings if it keeps them."""
        t0 = time.perf_counter()
        boxes = det.detect(arrays)
        elapsed = time.perf_counter() - t0
        per_image = getattr(det, "last_timings", None)
        return boxes, elapsed, list(per_image) if isinstance(per_image, list) else None

    # -------------------------------------------------------------------------------------------

    def write(self, result: ImageResult, path: str | Path, format: str | None = None) -> str:
        """Write the masked image with no metadata; returns the SHA-256 of the bytes written.

        The format comes from ``format``, else the path's suffix, else the input's format.
        """
        path = Path(path)
        t0 = time.perf_counter()
        try:
            fmt = format_for(path, format)
        except ValueError:
            fmt = format_for("x", result.format or "PNG")
        data = encode_clean(result.image, fmt)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        result.timings["save"] = time.perf_counter() - t0
        return hashlib.sha256(data).hexdigest()
