"""Train the QR-code/barcode YOLO detector from scratch on synthetic pages, offline.

    python -m medrealmm.deid.train_qr out_dir=outputs/deid/yolo_qr n_train=300 n_val=60 epochs=40 \\
        imgsz=320 model=yolov8n.yaml seed=0 [real_dir=/path/to/qr_photos]

Why synthetic and from scratch: no code-detection weights or photo sets can be downloaded where the
benchmark runs, and a tiny model learns QR finder patterns and bar rhythms from drawn pages quickly.

Everything lands under ``out_dir``: ``dataset/`` (YOLO images/labels/data.yaml, reused when its
parameters match), ``runs/train/`` (ultralytics' run), ``best.pt``, ``progress.jsonl`` (one line per
epoch), and ``metrics.json`` (held-out synthetic mAP50, mAP50-95, precision and recall, overall and
per class; real-photo recall when ``real_dir`` is given).

Real-photo recall: ``real_dir`` holds photos, each with a same-name ``.txt`` holding its decoded
content (so each photo is known to show a QR code). The reference location of a QR in a photo is
what ``cv2.QRCodeDetectorAruco`` finds there; a reference QR is *recalled* when a predicted QR box
covers it: IoU >= 0.5, or the box contains >= 90% of the reference box (a generous box still masks
the code). Photos where OpenCV finds no QR have no reference and are counted apart. OpenCV's own
figures on the same photos (QR found at all; content decoded and equal to the ``.txt``) are the
baseline.

Deterministic given ``seed`` as far as ultralytics allows (``deterministic=True``, no dataloader workers,
no RAM cache): two CPU runs with one seed gave identical weights. A Hydra config group (``conf/deid/``)
can call :func:`train` later.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import shutil
import sys
import time
import types
import typing
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from medrealmm.atomic import write_bytes, write_text

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".webp", ".jpg", ".jpeg", ".png", ".bmp")
DATASET_VERSION = 2  # bump when synth_codes changes what it draws, so cached datasets are rebuilt


@dataclass
class TrainQRConfig:
    """Options of ``python -m medrealmm.deid.train_qr`` (each settable as ``key=value``)."""

    out_dir: str = "outputs/deid/yolo_qr"
    n_train: int = 300
    n_val: int = 60
    epochs: int = 40
    imgsz: int = 320
    model: str = "yolov8n.yaml"        # an ultralytics model YAML (from scratch) or a local .pt to fine-tune
    seed: int = 0
    batch: int = 16
    device: str = "auto"               # cpu | cuda:0 | auto
    threads: int = 0                   # torch CPU threads while training; 0 keeps the current count
    patience: int = 100                # epochs without improvement before stopping early
    cache: str = "false"               # false | ram | disk (ram caching is not deterministic)
    mosaic: float = 1.0
    close_mosaic: int = 10             # last epochs without mosaic
    amp: bool = False                  # on GPU ultralytics' AMP check wants a downloaded model
    real_dir: str | None = None        # real QR photos with same-name .txt (see the module docstring)
    real_conf: float = 0.25            # score threshold for the real-photo recall
    config_dir: str | None = None      # YOLO_CONFIG_DIR (default ~/.cache/medrealmm/ultralytics)


# --------------------------------------------------------------------------------------------------
# command line


def _field_type(f: dataclasses.Field, hints: dict[str, Any]) -> tuple[type, bool]:
    t = hints[f.name]
    optional = False
    if isinstance(t, types.UnionType) or typing.get_origin(t) is typing.Union:
        args = [a for a in typing.get_args(t) if a is not type(None)]
        optional, t = True, args[0]
    return t, optional


def _parse_value(raw: str, t: type, optional: bool) -> Any:
    if optional and raw.lower() in ("null", "none", "~", ""):
        return None
    if t is bool:
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"not a boolean: {raw!r}")
    return t(raw)


def parse_overrides(argv: Sequence[str]) -> TrainQRConfig:
    """``key=value`` overrides (Hydra style, ``+``/``++`` prefixes tolerated) onto the defaults."""
    hints = typing.get_type_hints(TrainQRConfig)
    by_name = {f.name: f for f in dataclasses.fields(TrainQRConfig)}
    values: dict[str, Any] = {}
    for arg in argv:
        key, sep, raw = arg.partition("=")
        key = key.lstrip("+")
        if not sep or key not in by_name:
            raise ValueError(f"bad override {arg!r}; expected key=value with key in {sorted(by_name)}")
        t, optional = _field_type(by_name[key], hints)
        try:
            values[key] = _parse_value(raw, t, optional)
        except ValueError as e:
            raise ValueError(f"bad value for {key}: {e}") from e
    return TrainQRConfig(**values)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help", "help") for a in argv):
        print(__doc__)
        print("options (defaults):")
        for k, v in asdict(TrainQRConfig()).items():
            print(f"  {k}={v}")
        return 0
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        cfg = parse_overrides(argv)
    except ValueError as e:
        print(f"train_qr: {e}", file=sys.stderr)
        return 2
    metrics = train(cfg)
    print(json.dumps(summary(metrics), indent=2, ensure_ascii=False))
    return 0


def summary(metrics: dict[str, Any]) -> dict[str, Any]:
    """The headline figures of a :func:`train` result."""
    out = {k: metrics[k] for k in ("weights", "train_seconds") if k in metrics}
    out.update({k: metrics["val"][k] for k in ("mAP50", "mAP50-95", "precision", "recall")})
    out["per_class_mAP50"] = {n: c["mAP50"] for n, c in metrics["val"]["per_class"].items()}
    if metrics.get("real"):
        r = metrics["real"]
        out["real"] = {"yolo_recall": r["yolo"]["recall"], "opencv_found": r["opencv_aruco"]["found_rate"],
                       "photos": r["photos"]}
    return out


# --------------------------------------------------------------------------------------------------
# training


def _dataset(cfg: TrainQRConfig, out: Path) -> Path:
    """Generate the synthetic set, or reuse the one already there when it was made with these parameters."""
    from medrealmm.deid.image.synth_codes import generate_dataset

    ds = out / "dataset"
    params = {"n_train": cfg.n_train, "n_val": cfg.n_val, "seed": cfg.seed, "version": DATASET_VERSION}
    stamp = ds / "params.json"
    if stamp.is_file() and (ds / "data.yaml").is_file() and json.loads(stamp.read_text()) == params:
        log.info("reusing synthetic dataset %s", ds)
        return ds / "data.yaml"
    if ds.exists():
        shutil.rmtree(ds)
    t0 = time.perf_counter()
    data_yaml = generate_dataset(ds, cfg.n_train, cfg.n_val, seed=cfg.seed)
    write_text(stamp, json.dumps(params))
    log.info("generated %d train + %d val synthetic images in %.1fs", cfg.n_train, cfg.n_val,
             time.perf_counter() - t0)
    return data_yaml


def _cache_arg(value: str) -> bool | str:
    v = str(value).lower()
    if v in ("false", "0", "no", "off", "none", ""):
        return False
    if v in ("ram", "true", "1", "yes", "on"):
        return "ram"
    if v == "disk":
        return "disk"
    raise ValueError(f"cache={value!r}: one of false, ram, disk")


def _check_model(model: str) -> str:
    """A model YAML (ultralytics' own, like yolov8n.yaml, or a local file) or an existing local .pt;
    never a bare .pt name, which ultralytics would try to download."""
    if model.endswith((".yaml", ".yml")):
        return model
    if Path(model).expanduser().is_file():
        return str(Path(model).expanduser().resolve())
    raise FileNotFoundError(f"model={model!r}: give a model YAML to train from scratch (yolov8n.yaml, "
                            "yolo11n.yaml) or an existing local .pt; nothing is downloaded")


def train(cfg: TrainQRConfig) -> dict[str, Any]:
    """Generate data, train, validate on the held-out synthetic split and (optionally) on real photos.

    Returns the metrics also written to ``<out_dir>/metrics.json``; the weights are ``<out_dir>/best.pt``.
    """
    from medrealmm.deid.image.yolo import import_ultralytics, resolve_device

    cache = _cache_arg(cfg.cache)
    model_src = _check_model(cfg.model)
    out = Path(cfg.out_dir).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    data_yaml = _dataset(cfg, out)
    import_ultralytics(cfg.config_dir)
    import torch
    from ultralytics import YOLO

    device = resolve_device(cfg.device)
    threads = cfg.threads or torch.get_num_threads()
    progress = _EpochLog(out / "progress.jsonl")
    _fit(YOLO, cfg, model_src, data_yaml, out, progress, device=device, threads=threads, cache=cache)
    train_seconds = time.perf_counter() - progress.t_start
    run_best = out / "runs" / "train" / "weights" / "best.pt"
    if not run_best.is_file():
        run_best = run_best.with_name("last.pt")
    best = out / "best.pt"
    write_bytes(best, run_best.read_bytes())
    metrics = _evaluate(cfg, best, data_yaml, device=device, threads=threads, train_seconds=train_seconds)
    write_text(out / "metrics.json", json.dumps(metrics, indent=2, ensure_ascii=False))
    log.info("wrote %s and %s", best, out / "metrics.json")
    return metrics


class _EpochLog:
    """ultralytics' ``on_fit_epoch_end`` callback: a row in ``progress.jsonl`` and a log line per epoch."""

    def __init__(self, path: Path):
        self.path = path
        path.write_text("")             # a live log, appended to while training runs
        self.t_start = time.perf_counter()
        self.logged: set[int] = set()

    def __call__(self, trainer: Any) -> None:
        if trainer.epoch + 1 in self.logged or trainer.epoch + 1 > trainer.epochs:  # final_eval fires it again
            return
        self.logged.add(trainer.epoch + 1)
        losses = trainer.label_loss_items(trainer.tloss, prefix="train") if trainer.tloss is not None else {}
        row = {"epoch": trainer.epoch + 1, "epochs": trainer.epochs,
               "seconds": round(time.perf_counter() - self.t_start, 1),
               **{k: round(float(v), 4) for k, v in losses.items()},
               **{k: round(float(v), 4) for k, v in (trainer.metrics or {}).items()}}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        nan = float("nan")
        log.info("epoch %d/%d  %.0fs  box %.3f cls %.3f  mAP50 %.3f mAP50-95 %.3f", row["epoch"],
                 row["epochs"], row["seconds"], row.get("train/box_loss", nan),
                 row.get("train/cls_loss", nan), row.get("metrics/mAP50(B)", nan),
                 row.get("metrics/mAP50-95(B)", nan))


def _fit(yolo: Any, cfg: TrainQRConfig, model_src: str, data_yaml: Path, out: Path, progress: _EpochLog, *,
         device: str, threads: int, cache: Any) -> None:
    """Train with ultralytics under ``out/runs/train``, torch's thread count kept at ``threads``."""
    import torch

    from medrealmm.deid.image.yolo import torch_threads_kept

    def on_start(trainer: Any) -> None:  # after ultralytics' select_device resized the thread pool
        torch.set_num_threads(threads)

    with torch_threads_kept():
        model = yolo(model_src, task="detect")
        model.add_callback("on_pretrain_routine_start", on_start)
        model.add_callback("on_fit_epoch_end", progress)
        log.info("training %s on %s: %d epochs, imgsz %d, %d threads", cfg.model, device, cfg.epochs,
                 cfg.imgsz, threads)
        model.train(data=str(data_yaml), epochs=cfg.epochs, imgsz=cfg.imgsz, batch=cfg.batch, device=device,
                    project=str(out / "runs"), name="train", exist_ok=True, pretrained=False, seed=cfg.seed,
                    deterministic=True, plots=False, amp=cfg.amp, cache=cache, patience=cfg.patience,
                    mosaic=cfg.mosaic, close_mosaic=min(cfg.close_mosaic, cfg.epochs), workers=0,
                    verbose=False)


def _evaluate(cfg: TrainQRConfig, best: Path, data_yaml: Path, *, device: str, threads: int,
              train_seconds: float) -> dict[str, Any]:
    """The metrics: validation on the held-out synthetic split and, with ``real_dir``, recall on real photos."""
    val = validate(best, data_yaml, imgsz=cfg.imgsz, batch=cfg.batch, device=device, threads=threads,
                   config_dir=cfg.config_dir)
    metrics: dict[str, Any] = {"weights": str(best), "config": asdict(cfg), "device": device,
                               "threads": threads, "train_seconds": round(train_seconds, 1), "val": val}
    if cfg.real_dir:
        from medrealmm.deid.image.base import make_detector

        det = make_detector({"kind": "yolo", "weights": str(best),
                             "classes": {"qr": "QR", "barcode": "BARCODE"}, "conf": cfg.real_conf,
                             "imgsz": cfg.imgsz, "device": device,
                             "config_dir": cfg.config_dir})
        with _threads(threads):
            metrics["real"] = real_photo_recall(det, cfg.real_dir)
    return metrics


@contextlib.contextmanager
def _threads(n: int) -> Iterator[None]:
    """Run a block with torch at ``n`` threads, restoring the previous count after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def validate(weights: str | Path, data_yaml: str | Path, *, imgsz: int, batch: int = 16, device: str = "cpu",
             threads: int | None = None, config_dir: str | None = None) -> dict[str, Any]:
    """mAP50, mAP50-95, precision and recall of ``weights`` on the ``val`` split, overall and per class
    (validating with ``threads`` torch threads when given)."""
    from medrealmm.deid.image.yolo import import_ultralytics, torch_threads_kept

    import_ultralytics(config_dir)
    import torch
    from ultralytics import YOLO

    with torch_threads_kept():
        model = YOLO(str(weights), task="detect")
        if threads:  # after ultralytics' select_device has resized the pool
            model.add_callback("on_val_start", lambda validator: torch.set_num_threads(threads))
        m = model.val(data=str(data_yaml), split="val", imgsz=imgsz, batch=batch, device=device, plots=False,
                      verbose=False, save_json=False, project=str(Path(weights).parent / "runs"), name="val",
                      exist_ok=True, workers=0)
    box = m.box
    per_class = {}
    for i, c in enumerate(box.ap_class_index):
        p, r, ap50, ap = box.class_result(i)
        per_class[m.names[int(c)]] = {"precision": round(float(p), 4), "recall": round(float(r), 4),
                                      "mAP50": round(float(ap50), 4), "mAP50-95": round(float(ap), 4)}
    return {"mAP50": round(float(box.map50), 4), "mAP50-95": round(float(box.map), 4),
            "precision": round(float(box.mp), 4), "recall": round(float(box.mr), 4), "per_class": per_class}


# --------------------------------------------------------------------------------------------------
# real photos


def real_photos(real_dir: str | Path) -> list[tuple[Path, str]]:
    """(image, decoded content) for every image in ``real_dir`` with a same-name ``.txt``."""
    folder = Path(real_dir).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(f"real_dir {folder} is not a folder")
    out = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in IMAGE_SUFFIXES and p.with_suffix(".txt").is_file():
            out.append((p, p.with_suffix(".txt").read_text(encoding="utf-8", errors="replace")))
    if not out:
        raise FileNotFoundError(f"no images with a same-name .txt in {folder}")
    return out


def opencv_qr_boxes(bgr: np.ndarray) -> tuple[list[tuple[float, float, float, float]], list[str]]:
    """QR boxes and decoded texts ``cv2.QRCodeDetectorAruco`` finds in a BGR image (the reference)."""
    import cv2

    det = cv2.QRCodeDetectorAruco()
    ok, texts, points, _ = det.detectAndDecodeMulti(bgr)
    if not ok or points is None:
        ok, points = det.detect(bgr)
        if not ok or points is None:
            return [], []
        texts = [det.decode(bgr, points)[0] or ""]
        points = points.reshape(1, 4, 2)
    boxes = [(float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))
             for q in np.asarray(points).reshape(-1, 4, 2)]
    return boxes, [t or "" for t in texts]


def covers(pred: tuple[float, ...], ref: tuple[float, ...], *, iou: float = 0.5, contain: float = 0.9
           ) -> bool:
    """Whether a predicted box masks a reference box: IoU >= ``iou``, or >= ``contain`` of the reference
    lies inside it."""
    ix = max(0.0, min(pred[2], ref[2]) - max(pred[0], ref[0]))
    iy = max(0.0, min(pred[3], ref[3]) - max(pred[1], ref[1]))
    inter = ix * iy
    a_pred = (pred[2] - pred[0]) * (pred[3] - pred[1])
    a_ref = (ref[2] - ref[0]) * (ref[3] - ref[1])
    if a_ref <= 0:
        return False
    return inter / (a_pred + a_ref - inter) >= iou or inter / a_ref >= contain


def real_photo_recall(detector: Any, real_dir: str | Path) -> dict[str, Any]:
    """YOLO QR recall on real photos against OpenCV's QR locations, with OpenCV's own rates as baseline.

    ``detector`` is any :class:`~medrealmm.deid.image.base.ImageDetector` (its QR boxes are used).
    """
    import cv2

    photos = real_photos(real_dir)
    bgrs = []
    for path, _ in photos:
        im = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if im is None:
            raise OSError(f"cannot read {path}")
        bgrs.append(im)
    t0 = time.perf_counter()
    predicted = detector.detect([cv2.cvtColor(b, cv2.COLOR_BGR2RGB) for b in bgrs])
    yolo_seconds = time.perf_counter() - t0
    per_photo, n_ref, n_hit, n_found, n_decoded, n_any = [], 0, 0, 0, 0, 0
    classic = cv2.QRCodeDetector()
    n_classic_found = n_classic_decoded = 0
    for (path, truth), bgr, boxes in zip(photos, bgrs, predicted, strict=True):
        refs, texts = opencv_qr_boxes(bgr)
        qr_boxes = [(b.x0, b.y0, b.x1, b.y1) for b in boxes if b.category == "QR"]
        hits = sum(any(covers(p, r) for p in qr_boxes) for r in refs)
        decoded = any(t.strip() and t.strip() == truth.strip() for t in texts)
        c_text, c_pts, _ = classic.detectAndDecode(bgr)
        n_classic_found += c_pts is not None
        n_classic_decoded += bool(c_text) and c_text.strip() == truth.strip()
        n_ref += len(refs)
        n_hit += hits
        n_found += bool(refs)
        n_decoded += decoded
        n_any += bool(qr_boxes)
        per_photo.append({"photo": path.name, "size": [int(bgr.shape[1]), int(bgr.shape[0])],
                          "opencv_boxes": [[round(v, 1) for v in r] for r in refs],
                          "yolo_qr_boxes": [list(b) for b in qr_boxes],
                          "yolo_scores": [round(b.score, 3) for b in boxes if b.category == "QR"],
                          "recalled": hits, "opencv_decoded": decoded})
    n = len(photos)
    return {
        "photos": n,
        "rule": "reference = cv2.QRCodeDetectorAruco box; recalled when a predicted QR box has IoU>=0.5 "
                "with it or contains >=90% of it",
        "yolo": {"recall": round(n_hit / n_ref, 4) if n_ref else None, "recalled": n_hit, "references": n_ref,
                 "photos_with_any_qr_box": n_any, "unreferenced_photos": n - n_found,
                 "seconds": round(yolo_seconds, 3)},
        "opencv_aruco": {"found_rate": round(n_found / n, 4), "decoded_rate": round(n_decoded / n, 4)},
        "opencv_classic": {"found_rate": round(n_classic_found / n, 4),
                           "decoded_rate": round(n_classic_decoded / n, 4)},
        "per_photo": per_photo,
    }


if __name__ == "__main__":
    sys.exit(main())
