"""Benchmark: image de-identification on real report and QR photos, against raw rapidocr in the same run.

For each real report photo (``../shared/fixtures/images/reports``) the whole pipeline runs — load
with EXIF orientation, OCR (detect, orient, recognise), text + form rules, OpenCV QR/barcode and
YuNet face detectors, masking, metadata-free save — and, interleaved in the same process, the stock
``RapidOCR()(img)`` call with the DESIGN.md settings (``Det.limit_type=max, Det.limit_side_len=960``)
as the baseline. Reported:

- speed: per-stage seconds per photo, photos/s, and the ratio to raw rapidocr (target >= 1 photo/s);
- geometry, on each photo as taken and turned (sideways, upside down, tilted 40 degrees): the same
  detections masked two ways — axis-aligned rectangles (the mask before polygons) and the OCR
  quadrilaterals (the mask now) — with, for each, the share of the image masked, how many of the
  identifier tokens (dates, numbers, names after labels, hospitals) the stock pipeline reads at full
  resolution on the photo as taken it still reads on the masked one (target 0), and the share of the
  lab values (decimals, reference ranges) it reads on the unmasked turned photo still readable;
- QR: decodes and detections on the real QR photos before vs after masking (target 0 decodes after).

    .venv/bin/python benchmarks/deid_images.py                  # 3 timed passes, prints PASS/FAIL
    .venv/bin/python benchmarks/deid_images.py --repeat 1 --out /tmp/deid_out   # also save masked files
    .venv/bin/python benchmarks/deid_images.py --skip-speed --variants tilt40   # geometry only
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _shared(arg: str | None) -> Path:
    p = Path(arg) if arg else ROOT.parent / "shared"
    if not (p / "fixtures" / "images" / "reports").is_dir():
        sys.exit(f"real fixtures not found under {p}; pass --shared /path/to/shared")
    return p


def _qr_counts(img: np.ndarray) -> tuple[int, int]:
    from medrealmm.deid.image.opencv_detectors import qr_decodes

    return qr_decodes(img, wechat_dir=_WECHAT_DIR)


_WECHAT_DIR: Path | None = None


def _tilt(img: np.ndarray, degrees: float) -> np.ndarray:
    """The photo turned ``degrees`` counter-clockwise on a white canvas big enough to hold it."""
    from PIL import Image

    turned = Image.fromarray(img).rotate(degrees, resample=Image.Resampling.BICUBIC, expand=True,
                                         fillcolor=(255, 255, 255))
    return np.ascontiguousarray(np.array(turned))


VARIANTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "upright": lambda a: a,
    "rot90": lambda a: np.ascontiguousarray(np.rot90(a, 1)),
    "rot180": lambda a: np.ascontiguousarray(np.rot90(a, 2)),
    "tilt40": lambda a: _tilt(a, 40.0),
}
"""How each real report photo is shown to the pipeline: as taken, sideways, upside down, tilted 40 degrees."""


@dataclass
class Tally:
    """Sums over photos for one mask geometry: masked share, identifiers left, lab values kept, and
    lab-value lines under the mask (reading the masked photo again also loses values to reader
    noise; a line under the mask is lost to the mask)."""

    shares: list[float] = field(default_factory=list)
    before: int = 0
    leaked: int = 0
    lab_before: int = 0
    lab_after: int = 0
    lab_lines: int = 0
    lab_lines_masked: int = 0

    def add(self, share: float, v: object, lab_lines: int, lab_lines_masked: int) -> None:
        self.shares.append(share)
        self.before += sum(v.before.values())          # type: ignore[attr-defined]
        self.leaked += sum(v.after.values())           # type: ignore[attr-defined]
        self.lab_before += v.lab_before                # type: ignore[attr-defined]
        self.lab_after += v.lab_after                  # type: ignore[attr-defined]
        self.lab_lines += lab_lines
        self.lab_lines_masked += lab_lines_masked

    def merge(self, other: Tally) -> None:
        self.shares += other.shares
        for k in ("before", "leaked", "lab_before", "lab_after", "lab_lines", "lab_lines_masked"):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    @property
    def lab_share(self) -> float:
        return self.lab_after / self.lab_before if self.lab_before else 1.0

    @property
    def share(self) -> float:
        return statistics.mean(self.shares) if self.shares else 0.0


def _lab_lines_masked(texts: list[str], quads: list[np.ndarray], cover: np.ndarray) -> tuple[int, int]:
    """Lines with a lab value, and how many of them the mask touches (over 5% of the line's area)."""
    from medrealmm.deid.image.base import Box
    from medrealmm.deid.image.mask import coverage
    from medrealmm.deid.image.ocr_verify import lab_values

    h, w = cover.shape
    n = hit = 0
    for text, q in zip(texts, quads, strict=True):
        box = Box.from_quad(q, "LAB", "stock")
        if not lab_values([text]) or box is None:
            continue
        line = coverage([box], w, h)
        n += 1
        hit += int((line & cover).sum() > 0.05 * max(int(line.sum()), 1))
    return n, hit


def _geometry(pipe: object, reports: list[Path], variants: list[str], out: str | None) -> dict[str, Tally]:
    """Each photo in each variant: detect once, mask as rectangles and as quads, read both back."""
    from medrealmm.deid.image.mask import coverage, encode_clean, load_image
    from medrealmm.deid.image.ocr_verify import stock_read_quads, verify

    tallies: dict[str, Tally] = {}
    upright_read: dict[Path, tuple[list[str], list[np.ndarray]]] = {}
    for name in variants:
        rect_t, poly_t = tallies.setdefault(f"{name}/rect", Tally()), tallies.setdefault(f"{name}/poly", Tally())
        for p in reports:
            upright = load_image(p)[0]
            if p not in upright_read:
                upright_read[p] = stock_read_quads(upright)
            arr = VARIANTS[name](upright)
            h, w = arr.shape[:2]
            found = pipe.detect([arr])[0]                                            # type: ignore[attr-defined]
            poly_img, poly_boxes = pipe.mask(arr, found)                             # type: ignore[attr-defined]
            rect_img, rect_boxes = pipe.mask(arr, [replace(b, quad=None) for b in found])   # type: ignore
            texts, quads = upright_read[p] if name == "upright" else stock_read_quads(arr)
            ref = upright_read[p][0]       # identifiers: those read on the photo as taken
            vr = verify(None, rect_img, before=texts, reference=ref)
            vp = verify(None, poly_img, before=texts, reference=ref)
            cr, cp = coverage(rect_boxes, w, h), coverage(poly_boxes, w, h)
            lr, lp = _lab_lines_masked(texts, quads, cr), _lab_lines_masked(texts, quads, cp)
            rect_t.add(float(cr.mean()), vr, *lr)
            poly_t.add(float(cp.mean()), vp, *lp)
            print(f"  {name:7s} {p.name:34s} ids {sum(vr.before.values()):2d}  left rect/poly "
                  f"{sum(vr.after.values())}/{sum(vp.after.values())}  "
                  f"masked {cr.mean():6.1%} -> {cp.mean():6.1%}  "
                  f"lab values {vr.lab_after}/{vr.lab_before} -> {vp.lab_after}/{vp.lab_before}  "
                  f"lab lines under the mask {lr[1]}/{lr[0]} -> {lp[1]}/{lp[0]}  "
                  f"boxes {len(found)} ({sum(b.quad is not None for b in found)} quads)")
            if out:
                Path(out).mkdir(parents=True, exist_ok=True)
                (Path(out) / f"{p.stem}.{name}.rect.png").write_bytes(encode_clean(rect_img, "PNG"))
                (Path(out) / f"{p.stem}.{name}.poly.png").write_bytes(encode_clean(poly_img, "PNG"))
    return tallies


def _geometry_table(tallies: dict[str, Tally], variants: list[str]) -> tuple[Tally, Tally]:
    """Print one row per variant and geometry, and return the totals (rectangles, polygons)."""
    total = {"rect": Tally(), "poly": Tally()}
    print(f"\n  {'variant':8s} {'mask':5s} {'masked (mean)':>13s} {'ids read':>9s} {'ids left':>9s} "
          f"{'lab values readable':>24s} {'lab lines under mask':>21s}")

    def row(name: str, geo: str, t: Tally) -> None:
        print(f"  {name:8s} {geo:5s} {t.share:13.1%} {t.before:9d} {t.leaked:9d} "
              f"{t.lab_after:>10d}/{t.lab_before:<4d} = {t.lab_share:6.1%} "
              f"{t.lab_lines_masked:>14d}/{t.lab_lines:<4d}")

    for name in variants:
        for geo in ("rect", "poly"):
            row(name, geo, tallies[f"{name}/{geo}"])
            total[geo].merge(tallies[f"{name}/{geo}"])
    for geo in ("rect", "poly"):
        row("all", geo, total[geo])
    return total["rect"], total["poly"]


def _speed(pipe: object, ocr: object, reports: list[Path], repeat: int, threads: int) -> tuple[float, float]:
    """Timed passes of the pipeline and of stock rapidocr, interleaved; (ours, raw) seconds per photo."""
    from rapidocr import RapidOCR

    from medrealmm.deid.image.mask import encode_clean, load_image
    from medrealmm.deid.image.ocr_engine import rapidocr_engine

    raw_params = {"Det.limit_type": "max", "Det.limit_side_len": 960, "Global.log_level": "warning"}
    if threads:
        raw_params["EngineConfig.onnxruntime.intra_op_num_threads"] = threads
    raw = RapidOCR(params=raw_params)
    raw_nospin = rapidocr_engine(raw_params, threads=threads or None, spin=False)
    side = ocr.params["Det.limit_side_len"]                                          # type: ignore[attr-defined]
    raw_full = RapidOCR(params={**raw_params, "Det.limit_side_len": side})
    bgr = [np.ascontiguousarray(load_image(p)[0][:, :, ::-1]) for p in reports]
    raw(bgr[0])                       # warm all three (model load, first-run allocations)
    raw_nospin(bgr[0])
    raw_full(bgr[0])
    pipe.process(reports[:1])                                                        # type: ignore[attr-defined]

    stages: dict[str, list[float]] = {}
    raw_times: list[float] = []
    nospin_times: list[float] = []
    full_times: list[float] = []
    ours_times: list[float] = []
    cpu: dict[str, list[float]] = {}     # process CPU seconds per pass: the work, whatever else runs on the machine
    for rep in range(repeat):
        baselines = {"raw": (raw, raw_times), "nospin": (raw_nospin, nospin_times), "full": (raw_full, full_times)}
        order = ("raw", "nospin", "full", "ours")
        for which in order if rep % 2 == 0 else order[::-1]:           # alternate to cancel drift
            if which in baselines:
                eng, times = baselines[which]
                t0, c0 = time.perf_counter(), time.process_time()
                for im in bgr:
                    eng(im)
                times.append(time.perf_counter() - t0)
                cpu.setdefault(which, []).append(time.process_time() - c0)
            else:
                t0, c0 = time.perf_counter(), time.process_time()
                results = pipe.process(reports)                                      # type: ignore[attr-defined]
                for r in results:
                    t1 = time.perf_counter()
                    encode_clean(r.image, "JPEG")
                    r.timings["save"] = time.perf_counter() - t1
                ours_times.append(time.perf_counter() - t0)
                cpu.setdefault("ours", []).append(time.process_time() - c0)
                for r in results:
                    for k, v in r.timings.items():
                        stages.setdefault(k, []).append(v)

    n = len(reports)
    raw_s = statistics.median(raw_times) / n
    nospin_s = statistics.median(nospin_times) / n
    full_s = statistics.median(full_times) / n
    ours_s = statistics.median(ours_times) / n
    workers = ocr.workers                                                            # type: ignore[attr-defined]
    print(f"\nspeed (seconds per photo, median over passes; stages are per-photo task times, means — with "
          f"{workers} OCR workers pages and recognition batches overlap, so stages sum to more than the total)")
    order = ["load", "ocr_det", "ocr_orient", "ocr_rec", "ocr_rules", "codes", "faces", "mask", "save"]
    for k in order + sorted(set(stages) - set(order)):
        if k in stages:
            print(f"  {k:12s} {statistics.mean(stages[k]):7.3f}")
    print(f"  {'pipeline':12s} {ours_s:7.3f}   ({1 / ours_s:.2f} photos/s)")
    print(f"  {'raw rapidocr':12s} {raw_s:7.3f}   ({1 / raw_s:.2f} photos/s, DESIGN settings: max side 960)")
    print(f"  {'raw, no spin':12s} {nospin_s:7.3f}   (the same, onnxruntime thread spinning off as in ours)")
    print(f"  {'raw, max ' + str(side):12s} {full_s:7.3f}   (stock pipeline at our detection resolution)")
    print(f"  ratio pipeline / raw rapidocr: {ours_s / raw_s:.2f}  (/ raw without spinning: {ours_s / nospin_s:.2f}; "
          f"/ raw at our detection resolution: {ours_s / full_s:.2f})")
    c = {k: statistics.median(v) / n for k, v in cpu.items()}
    cores = os.cpu_count() or 1
    print(f"  CPU seconds per photo (all threads; the work itself, little changed by other jobs on the machine): "
          f"pipeline {c['ours']:.2f}, raw {c['raw']:.2f}, raw no spin {c['nospin']:.2f}, raw max {side} {c['full']:.2f}; "
          f"so on {cores} idle cores the pipeline can do at most {cores / c['ours']:.2f} photos/s")
    return ours_s, raw_s


def main() -> int:
    global _WECHAT_DIR
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=None, help="the shared folder with fixtures/ and models/ (default ../shared)")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes over the report photos")
    ap.add_argument("--threads", type=int, default=0, help="onnxruntime intra-op threads (0: its default)")
    ap.add_argument("--out", default=None, help="write the masked images here (PNG) to look at them")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help=f"comma-separated photo variants for the geometry section ({', '.join(VARIANTS)})")
    ap.add_argument("--skip-speed", action="store_true", help="no timed passes (geometry and QR only)")
    args = ap.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        ap.error(f"unknown variants {unknown}; known: {sorted(VARIANTS)}")

    import logging

    logging.basicConfig(level=logging.WARNING)
    from medrealmm.deid.image.base import make_detector
    from medrealmm.deid.image.mask import encode_clean, load_image
    from medrealmm.deid.image.pipeline import ImagePipeline

    shared = _shared(args.shared)
    reports = sorted((shared / "fixtures/images/reports").glob("*.jpg"))
    qrs = sorted((shared / "fixtures/images/qr").glob("*.webp"))
    yunet = shared / "models/yunet/face_detection_yunet_2026may.onnx"
    import cv2

    has_wechat = hasattr(cv2, "wechat_qrcode_WeChatQRCode") and (shared / "models/wechat_qrcode").is_dir()
    _WECHAT_DIR = shared / "models/wechat_qrcode" if has_wechat else None
    threads = {"threads": args.threads} if args.threads else {}
    ocr = make_detector({"kind": "ocr", **threads})
    detectors = [ocr, make_detector({"kind": "qr_opencv"})]
    if yunet.is_file():
        detectors.append(make_detector({"kind": "yunet", "model": str(yunet)}))
    pipe = ImagePipeline(detectors, pad=4, progress=False)

    print(f"cpus: {os.cpu_count()}  onnxruntime threads: {args.threads or 'default'}  "
          f"report photos: {len(reports)}  QR photos: {len(qrs)}  passes: {0 if args.skip_speed else args.repeat}")
    speed = None if args.skip_speed else _speed(pipe, ocr, reports, max(1, args.repeat), args.threads)

    print("\ngeometry: the same detections masked as axis-aligned rectangles (rect, the mask before) and as "
          "OCR quadrilaterals (poly, the mask now); identifier tokens stock rapidocr reads at full resolution "
          "on the photo as taken, and how many it still reads on the masked turned photo; lab values read on "
          "the unmasked turned photo still readable")
    tallies = _geometry(pipe, reports, variants, args.out)
    rect, poly = _geometry_table(tallies, variants)
    print(f"\nutility: lab values still readable after masking: axis-aligned {rect.lab_after}/{rect.lab_before} = "
          f"{rect.lab_share:.1%} -> polygons {poly.lab_after}/{poly.lab_before} = {poly.lab_share:.1%}; "
          f"masked area (mean per photo) {rect.share:.1%} -> {poly.share:.1%}")
    if "upright" in variants:
        up_r, up_p = tallies["upright/rect"], tallies["upright/poly"]
        print(f"         upright photos only: {up_r.lab_share:.1%} -> {up_p.lab_share:.1%}")

    print("\nQR photos (OpenCV ArUco 1x/2x" + (", WeChat" if _WECHAT_DIR else "; WeChat needs opencv-contrib")
          + "): decoded/detected")
    qr_results = pipe.process(qrs)
    dec_before = dec_after = det_before = det_after = 0
    for p, r in zip(qrs, qr_results, strict=True):
        orig = load_image(p)[0]
        d0, n0 = _qr_counts(orig)
        d1, n1 = _qr_counts(r.image)
        dec_before += d0
        det_before += n0
        dec_after += d1
        det_after += n1
        print(f"  {p.name:24s} before {d0}/{n0}  after {d1}/{n1}  boxes {r.categories()}")
        if args.out:
            (Path(args.out) / (p.stem + ".png")).write_bytes(encode_clean(r.image, "PNG"))
    print(f"  total: decoded {dec_before} -> {dec_after}, detected {det_before} -> {det_after}")

    checks = [
        (f"0 identifiers readable after polygon masking, all variants ({poly.leaked} of {poly.before})",
         poly.leaked == 0),
        (f"lab values readable with polygons >= with rectangles ({poly.lab_share:.1%} vs {rect.lab_share:.1%})",
         poly.lab_after >= rect.lab_after),
        (f"0 QR decodes after masking ({dec_after})", dec_after == 0),
    ]
    if speed is not None:
        checks.insert(0, (f"speed >= 1 photo/s ({1 / speed[0]:.2f})", 1 / speed[0] >= 1.0))
    print()
    for name, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    ratio = f"; pipeline / raw rapidocr = {speed[0] / speed[1]:.2f}" if speed else ""
    print(f"info  QR detections after masking: {det_after}; identifiers left with rectangles: {rect.leaked}{ratio}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
