"""A YOLO detector (ultralytics) for faces or QR codes and barcodes, registered as kind ``yolo``.

Config (``make_detector({...})``)::

    kind: yolo
    weights: /path/to/best.pt      # local file; or a Hugging Face hub file downloaded beforehand
                                   # ("owner/repo/file.pt", resolved from the local hub cache only)
    classes: {qr: QR, barcode: BARCODE}   # model class name -> our category; other classes ignored
    conf: 0.25                     # score threshold
    iou: 0.5                       # NMS IoU
    imgsz: 640
    batch: 16
    device: auto                   # cpu | cuda:0 | auto (first GPU when there is one)
    max_det: 100
    config_dir: null               # YOLO_CONFIG_DIR; default ~/.cache/medrealmm/ultralytics
    name: yolo                     # detector name written on the boxes (audit trail)

Nothing here downloads: ultralytics runs with ``YOLO_OFFLINE=1``, its config dir holds a font so it
never fetches Arial.ttf, analytics are off (these are patient images), and weights must exist
locally. torch and ultralytics are imported on first use, never at module import.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from medrealmm.deid.image.base import Box, register
from medrealmm.deid.settings import YoloSettings, detector_settings

log = logging.getLogger(__name__)

TRAIN_HINT = ("train a QR/barcode detector offline with `python -m medrealmm.deid.train_qr out_dir=DIR` "
              "and set weights=DIR/best.pt, or download a YOLO .pt on a machine with internet "
              "(e.g. `hf download OWNER/REPO FILE.pt`) and copy it here")
# Ultralytics settings that would send data or start third-party loggers; a de-identification tool
# handling patient images turns them all off.
_QUIET_SETTINGS: dict[str, bool] = dict.fromkeys(
    ("sync", "clearml", "comet", "dvc", "mlflow", "raytune", "tensorboard", "wandb", "vscode_msg",
     "openvino_msg"), False)


_WARNED_DIRS: set[Path] = set()


class WeightsNotFound(FileNotFoundError):
    """The configured YOLO weights are not on this machine (nothing is ever downloaded)."""


def default_config_dir() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "medrealmm" / "ultralytics"


def prepare_config_dir(config_dir: str | os.PathLike[str] | None = None) -> Path:
    """Create the YOLO_CONFIG_DIR with matplotlib's DejaVu Sans standing in for Arial, so ultralytics
    finds a font locally instead of downloading one. Returns the folder."""
    root = Path(config_dir).expanduser() if config_dir else default_config_dir()
    _install_fonts(root / "Ultralytics")  # ultralytics keeps its files in $YOLO_CONFIG_DIR/Ultralytics
    return root


def _install_fonts(folder: Path) -> None:
    import matplotlib

    folder.mkdir(parents=True, exist_ok=True)
    dejavu = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (folder / name).is_file():
            tmp = folder / f".{name}.tmp{os.getpid()}"
            shutil.copyfile(dejavu, tmp)
            os.replace(tmp, folder / name)  # atomic: parallel workers never see half a font


@contextlib.contextmanager
def torch_threads_kept() -> Iterator[None]:
    """Undo ultralytics' process-wide ``torch.set_num_threads`` (its select_device sets cpu_count-1)."""
    import torch

    n = torch.get_num_threads()
    try:
        yield
    finally:
        if torch.get_num_threads() != n:
            torch.set_num_threads(n)


def import_ultralytics(config_dir: str | os.PathLike[str] | None = None) -> ModuleType:
    """Import ultralytics offline, with its config dir (fonts, settings) under ``config_dir``.

    The environment must be set before the first import; ultralytics' own ``OMP_NUM_THREADS=1`` is
    undone so it does not leak into later subprocesses, and analytics and logger integrations are off.
    """
    root = prepare_config_dir(config_dir)
    already = "ultralytics" in sys.modules
    os.environ["YOLO_OFFLINE"] = "1"
    if not already:
        os.environ["YOLO_CONFIG_DIR"] = str(root)
    # torch first, so its thread pool is sized before ultralytics sets OMP_NUM_THREADS=1
    import torch  # noqa: F401

    omp = os.environ.get("OMP_NUM_THREADS")
    import ultralytics
    from ultralytics.utils import SETTINGS, USER_CONFIG_DIR

    if omp is None:
        os.environ.pop("OMP_NUM_THREADS", None)
    if Path(USER_CONFIG_DIR).resolve() != (root / "Ultralytics").resolve() and root not in _WARNED_DIRS:
        _WARNED_DIRS.add(root)
        log.warning("ultralytics was imported before medrealmm set YOLO_CONFIG_DIR; it uses %s",
                    USER_CONFIG_DIR)
        with contextlib.suppress(OSError):
            _install_fonts(Path(USER_CONFIG_DIR))
    if any(SETTINGS.get(k) != v for k, v in _QUIET_SETTINGS.items()):
        SETTINGS.update(_QUIET_SETTINGS)
    return ultralytics


def resolve_weights(weights: str | os.PathLike[str]) -> Path:
    """The local file behind ``weights``: a path, or ``owner/repo/file.pt`` already in the Hugging Face
    cache (looked up locally only). Raises :class:`WeightsNotFound` naming what was tried."""
    raw = str(weights)
    if not raw:
        raise WeightsNotFound(f"no YOLO weights configured (weights=...); {TRAIN_HINT}")
    path = Path(raw).expanduser()
    if path.is_file():
        return path.resolve()
    tried = [str(path.resolve())]
    hub = raw.removeprefix("hf://")
    parts = hub.split("/")
    if not path.is_absolute() and len(parts) >= 3 and not raw.startswith("."):
        repo_id, filename = "/".join(parts[:2]), "/".join(parts[2:])
        cached = _hub_cache_lookup(repo_id, filename)
        if cached is not None:
            return cached
        tried.append(f"hub cache {hub_cache_dir()}: {repo_id} {filename}")
    raise WeightsNotFound(f"YOLO weights not found: {raw} (tried {'; '.join(tried)}). Nothing is downloaded; "
                          f"{TRAIN_HINT}")


def hub_cache_dir() -> Path:
    """Where ``hf download`` puts files (``HF_HUB_CACHE``, else ``$HF_HOME/hub``), read at call time."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "huggingface" / "hub"


def _hub_cache_lookup(repo_id: str, filename: str) -> Path | None:
    """The file of a model repo in the local hub cache (the revision ``refs/main`` names, else any
    snapshot holding it), without huggingface_hub and without the network."""
    repo = hub_cache_dir() / f"models--{repo_id.replace('/', '--')}"
    ref = repo / "refs" / "main"
    if ref.is_file():
        candidate = repo / "snapshots" / ref.read_text().strip() / filename
        if candidate.is_file():
            return candidate.resolve()
    for candidate in sorted((repo / "snapshots").glob(f"*/{filename}")):
        if candidate.is_file():
            return candidate.resolve()
    return None


def resolve_device(device: str | int | None) -> str:
    """``auto`` -> ``cuda:0`` when torch sees a GPU, else ``cpu``; anything else as given."""
    if device in (None, "", "auto"):
        import torch

        return "cuda:0" if torch.cuda.is_available() else "cpu"
    return str(device)


class YoloDetector:
    """Boxes from an ultralytics YOLO model, its class names mapped to our categories.

    The model loads on first :meth:`detect` (or :meth:`load`); weights are checked at construction
    so a bad path fails when the pipeline is configured, not halfway through a corpus.
    """

    def __init__(self, settings: YoloSettings) -> None:
        self.settings = settings
        self.name = settings.name
        self.weights = resolve_weights(settings.weights)
        self._model: Any = None
        self._device = ""
        self._class_map: dict[int, str] = {}

    def load(self) -> None:
        if self._model is not None:
            return
        s = self.settings
        import_ultralytics(s.config_dir)
        from ultralytics import YOLO

        self._device = resolve_device(s.device)
        with torch_threads_kept():
            model = YOLO(str(self.weights), task="detect")
            names: dict[int, str] = dict(model.names)
            wanted = {k.lower(): v for k, v in s.classes.items()}
            self._class_map = {i: wanted[n.lower()] for i, n in names.items() if n.lower() in wanted}
            if not self._class_map:
                raise ValueError(f"none of the model's classes {sorted(names.values())} is in classes="
                                 f"{dict(s.classes)} ({self.weights})")
            ignored = sorted(n for n in names.values() if n.lower() not in wanted)
            if ignored:
                log.info("%s: ignoring model classes %s", self.name, ignored)
            # The first predict builds ultralytics' predictor (select_device, which resizes torch's
            # thread pool); do it here, inside the guard, so detect() never changes threads.
            model.predict([np.zeros((32, 32, 3), np.uint8)], **self._predict_args())
        self._model = model

    def _predict_args(self) -> dict[str, Any]:
        s = self.settings
        return {"conf": s.conf, "iou": s.iou, "imgsz": s.imgsz, "batch": s.batch, "device": self._device,
                "max_det": s.max_det, "classes": sorted(self._class_map), "verbose": False, "save": False}

    def detect(self, images: Sequence[np.ndarray]) -> list[list[Box]]:
        """One list of boxes per RGB image, in order."""
        if not images:
            return []
        self.load()
        out: list[list[Box]] = []
        step = self.settings.batch
        with torch_threads_kept():
            for start in range(0, len(images), step):
                chunk = [_to_bgr(im) for im in images[start:start + step]]
                results = self._model.predict(chunk, **self._predict_args())
                for im, r in zip(chunk, results, strict=True):
                    out.append(self._boxes(r, im.shape[1], im.shape[0]))
        return out

    def _boxes(self, result: Any, width: int, height: int) -> list[Box]:
        b = result.boxes
        if b is None or len(b) == 0:
            return []
        xyxy = b.xyxy.cpu().numpy()
        cls = b.cls.cpu().numpy().astype(int)
        conf = b.conf.cpu().numpy()
        boxes = []
        for (x0, y0, x1, y1), c, p in zip(xyxy, cls, conf, strict=True):
            category = self._class_map.get(int(c))
            if category is None:
                continue
            bx0, by0 = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
            bx1, by1 = min(width, int(np.ceil(x1))), min(height, int(np.ceil(y1)))
            if bx1 > bx0 and by1 > by0:
                boxes.append(Box(bx0, by0, bx1, by1, category, self.name, float(p)))
        return boxes


def _to_bgr(image: np.ndarray) -> np.ndarray:
    """ultralytics reads numpy arrays as OpenCV BGR; ours are RGB (gray and RGBA tolerated)."""
    a = np.asarray(image)
    if a.dtype != np.uint8:
        raise ValueError(f"images must be uint8, got {a.dtype}")
    if a.ndim == 2:
        a = np.repeat(a[..., None], 3, axis=2)
    elif a.ndim != 3 or a.shape[2] not in (3, 4):
        raise ValueError(f"images must be H x W x 3 RGB, got shape {a.shape}")
    return np.ascontiguousarray(a[..., 2::-1])


@register("yolo")
def build_yolo(cfg: Mapping[str, Any]) -> YoloDetector:
    return YoloDetector(detector_settings(YoloSettings, cfg, "yolo"))
