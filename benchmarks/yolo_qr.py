"""QR/barcode YOLO trained from scratch on synthetic pages vs OpenCV's QR detector, on real QR photos.

Trains the detector with the project's command (``medrealmm.deid.train_qr``) on CPU, reports mAP50
on the held-out synthetic split and QR recall on the real photos in ``../shared/fixtures/images/qr``
(reference boxes and the baseline both come from ``cv2.QRCodeDetectorAruco`` on the same photos, in
the same run; see train_qr's docstring for the matching rule), and copies the weights to
``--weights-out``. Everything is written outside the project.

    .venv/bin/python benchmarks/yolo_qr.py [--epochs 40] [--n-train 300] [--imgsz 320]
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import time
from pathlib import Path

from medrealmm.deid.train_qr import TrainQRConfig, train

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "fixtures" / "images" / "qr"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/yolo_qr/run")
    ap.add_argument("--weights-out", default="/tmp/yolo_qr/best.pt")
    ap.add_argument("--n-train", type=int, default=300)
    ap.add_argument("--n-val", type=int, default=60)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--model", default="yolov8n.yaml")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--real-dir", default=str(REAL))
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    real = Path(args.real_dir)
    if not real.is_dir():
        raise SystemExit(f"real QR photos not found at {real} (../shared fixtures); pass --real-dir")
    cfg = TrainQRConfig(out_dir=args.out, n_train=args.n_train, n_val=args.n_val, epochs=args.epochs,
                        imgsz=args.imgsz, model=args.model, seed=args.seed, threads=args.threads,
                        real_dir=str(real), config_dir=str(Path(args.out) / "ultralytics-config"))
    t0 = time.perf_counter()
    m = train(cfg)
    total = time.perf_counter() - t0
    Path(args.weights_out).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(m["weights"], args.weights_out)

    v, r = m["val"], m["real"]
    print()
    print(f"model {args.model}, {args.n_train} train / {args.n_val} val synthetic images, "
          f"{args.epochs} epochs, imgsz {args.imgsz}, {m['threads']} torch threads on {m['device']}")
    print(f"training {m['train_seconds']:.0f} s, whole run {total:.0f} s")
    print(f"held-out synthetic: mAP50 {v['mAP50']:.3f}  mAP50-95 {v['mAP50-95']:.3f}  "
          f"P {v['precision']:.3f}  R {v['recall']:.3f}")
    for name, c in v["per_class"].items():
        print(f"  {name:8s} mAP50 {c['mAP50']:.3f}  mAP50-95 {c['mAP50-95']:.3f}  P {c['precision']:.3f}  "
              f"R {c['recall']:.3f}")
    y = r["yolo"]
    print(f"real QR photos ({r['photos']}): {r['rule']}")
    print(f"  YOLO (conf {cfg.real_conf})           recall {y['recall']}  ({y['recalled']}/{y['references']} "
          f"OpenCV-located QRs; {y['photos_with_any_qr_box']}/{r['photos']} photos with any QR box; "
          f"{y['seconds']:.2f} s for the batch)")
    print(f"  OpenCV QRCodeDetectorAruco  found {r['opencv_aruco']['found_rate']:.3f}  decoded "
          f"{r['opencv_aruco']['decoded_rate']:.3f}")
    print(f"  OpenCV QRCodeDetector       found {r['opencv_classic']['found_rate']:.3f}  decoded "
          f"{r['opencv_classic']['decoded_rate']:.3f}")
    for p in r["per_photo"]:
        print(f"    {p['photo']:24s} recalled {p['recalled']}  yolo scores {p['yolo_scores']}")
    print(f"weights: {args.weights_out}; metrics: {Path(args.out) / 'metrics.json'}")
    print(json.dumps({"mAP50": v["mAP50"], "real_recall": y["recall"],
                      "opencv_found": r["opencv_aruco"]["found_rate"], "train_seconds": m["train_seconds"]}))


if __name__ == "__main__":
    main()
