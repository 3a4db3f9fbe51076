"""Benchmark: image de-identification on real report and QR photos, against raw rapidocr in the same run.

For each real report photo (``../shared/fixtures/images/reports``) the whole pipeline runs — load
with EXIF orientation, OCR (detect, orient, recognise), text + form rules, OpenCV QR/barcode and
YuNet face detectors, masking, metadata-free save — and, interleaved in the same process, the stock
``RapidOCR()(img)`` call with the DESIGN.md settings (``Det.limit_type=max, Det.limit_side_len=960``)
as the baseline. Reported:

- speed: per-stage seconds per photo, photos/s, and the ratio to raw rapidocr (target >= 1 photo/s);
- privacy: identifier tokens (dates, numbers, names after labels, hospitals) read by the stock
  pipeline at full resolution on the original vs on the masked output, per category (target 0 after);
- utility: share of lab values (decimals, reference ranges) still readable after masking;
- QR: decodes and detections on the real QR photos before vs after masking (target 0 decodes after).

    .venv/bin/python benchmarks/deid_images.py                  # 3 timed passes, prints PASS/FAIL
    .venv/bin/python benchmarks/deid_images.py --repeat 1 --out /tmp/deid_out   # also save masked files
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
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


def main() -> int:
    global _WECHAT_DIR
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=None, help="the shared folder with fixtures/ and models/ (default ../shared)")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes over the report photos")
    ap.add_argument("--threads", type=int, default=0, help="onnxruntime intra-op threads (0: its default)")
    ap.add_argument("--out", default=None, help="write the masked images here (PNG) to look at them")
    args = ap.parse_args()

    import logging

    logging.basicConfig(level=logging.WARNING)
    from rapidocr import RapidOCR

    from medrealmm.deid.image.base import make_detector
    from medrealmm.deid.image.mask import encode_clean, load_image
    from medrealmm.deid.image.ocr import verify
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
    raw_params = {"Det.limit_type": "max", "Det.limit_side_len": 960, "Global.log_level": "warning"}
    if args.threads:
        raw_params["EngineConfig.onnxruntime.intra_op_num_threads"] = args.threads
    raw = RapidOCR(params=raw_params)
    from medrealmm.deid.image.ocr import rapidocr_engine

    raw_nospin = rapidocr_engine(raw_params, threads=args.threads or None, spin=False)
    raw_full = RapidOCR(params={**raw_params, "Det.limit_side_len": ocr.params["Det.limit_side_len"]})
    bgr = [np.ascontiguousarray(load_image(p)[0][:, :, ::-1]) for p in reports]

    print(f"cpus: {os.cpu_count()}  onnxruntime threads: {args.threads or 'default'}  "
          f"report photos: {len(reports)}  QR photos: {len(qrs)}  passes: {args.repeat}")
    raw(bgr[0])                       # warm all three (model load, first-run allocations)
    raw_nospin(bgr[0])
    raw_full(bgr[0])
    pipe.process(reports[:1])

    stages: dict[str, list[float]] = {}
    raw_times: list[float] = []
    nospin_times: list[float] = []
    full_times: list[float] = []
    ours_times: list[float] = []
    results = []
    for rep in range(args.repeat):
        baselines = {"raw": (raw, raw_times), "nospin": (raw_nospin, nospin_times), "full": (raw_full, full_times)}
        order = ("raw", "nospin", "full", "ours")
        for which in order if rep % 2 == 0 else order[::-1]:           # alternate to cancel drift
            if which in baselines:
                eng, times = baselines[which]
                t0 = time.perf_counter()
                for im in bgr:
                    eng(im)
                times.append(time.perf_counter() - t0)
            else:
                t0 = time.perf_counter()
                results = pipe.process(reports)
                for r in results:
                    t1 = time.perf_counter()
                    encode_clean(r.image, "JPEG")
                    r.timings["save"] = time.perf_counter() - t1
                ours_times.append(time.perf_counter() - t0)
                for r in results:
                    for k, v in r.timings.items():
                        stages.setdefault(k, []).append(v)

    n = len(reports)
    raw_s = statistics.median(raw_times) / n
    nospin_s = statistics.median(nospin_times) / n
    full_s = statistics.median(full_times) / n
    ours_s = statistics.median(ours_times) / n
    print(f"\nspeed (seconds per photo, median over passes; stages are per-photo task times, means — with "
          f"{ocr.workers} OCR workers pages and recognition batches overlap, so stages sum to more than the total)")
    order = ["load", "ocr_det", "ocr_orient", "ocr_rec", "ocr_rules", "codes", "faces", "mask", "save"]
    for k in order + sorted(set(stages) - set(order)):
        if k in stages:
            print(f"  {k:12s} {statistics.mean(stages[k]):7.3f}")
    print(f"  {'pipeline':12s} {ours_s:7.3f}   ({1 / ours_s:.2f} photos/s)")
    print(f"  {'raw rapidocr':12s} {raw_s:7.3f}   ({1 / raw_s:.2f} photos/s, DESIGN settings: max side 960)")
    print(f"  {'raw, no spin':12s} {nospin_s:7.3f}   (the same, onnxruntime thread spinning off as in ours)")
    print(f"  {'raw, max ' + str(ocr.params['Det.limit_side_len']):12s} {full_s:7.3f}   (stock pipeline at our "
          f"detection resolution)")
    print(f"  ratio pipeline / raw rapidocr: {ours_s / raw_s:.2f}  (/ raw without spinning: {ours_s / nospin_s:.2f}; "
          f"/ raw at our detection resolution: {ours_s / full_s:.2f})")

    print("\nprivacy (identifier tokens read by stock rapidocr at full resolution: original -> masked)")
    cats = ["DATE", "NUMBER", "NAME", "HOSPITAL"]
    before = dict.fromkeys(cats, 0)
    after = dict.fromkeys(cats, 0)
    lab_b = lab_a = 0
    for p, r in zip(reports, results):
        orig = load_image(p)[0]
        v = verify(orig, r.image)
        for c in cats:
            before[c] += v.before[c]
            after[c] += v.after[c]
        lab_b += v.lab_before
        lab_a += v.lab_after
        print(f"  {p.name:36s} before {v.before}  after {v.after}  lab values kept {v.lab_after}/{v.lab_before}"
              f"  masked {r.masked_share:.1%}  boxes {r.categories()}")
        if args.out:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            (Path(args.out) / (p.stem + ".png")).write_bytes(encode_clean(r.image, "PNG"))
    print(f"  total: before {before}  after {after}")
    lab_share = lab_a / lab_b if lab_b else 1.0
    print(f"\nutility: lab values still readable after masking: {lab_a}/{lab_b} = {lab_share:.1%}")

    print("\nQR photos (OpenCV ArUco 1x/2x" + (", WeChat" if _WECHAT_DIR else "; WeChat needs opencv-contrib")
          + "): decoded/detected")
    qr_results = pipe.process(qrs)
    dec_before = dec_after = det_before = det_after = 0
    for p, r in zip(qrs, qr_results):
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
        (f"speed >= 1 photo/s ({1 / ours_s:.2f})", 1 / ours_s >= 1.0),
        (f"0 identifiers readable after masking ({sum(after.values())})", sum(after.values()) == 0),
        (f"0 QR decodes after masking ({dec_after})", dec_after == 0),
    ]
    print()
    for name, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    print(f"info  QR detections after masking: {det_after}; lab values kept {lab_share:.1%}; "
          f"pipeline / raw rapidocr = {ours_s / raw_s:.2f}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
