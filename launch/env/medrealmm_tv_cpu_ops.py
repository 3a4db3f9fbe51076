"""Let PyPI's torchvision import beside a CPU-only torch.

PyPI's torchvision wheels are CUDA builds: their ``_C`` extension links CUDA libraries that a
``+cpu`` torch lacks, so ``import torchvision`` fails with "operator torchvision::nms does not
exist" (its meta registrations need the op schema). transformers' Qwen-VL image processors import
torchvision, so the CPU test environment needs it.

``install()`` (run from a ``.pth`` file that ``launch/setup.sh`` writes) adds an import hook that
waits for torchvision's first import. Only if the real extension cannot be loaded does it declare
the ``nms`` / ``qnms`` schemas and give ``nms`` a plain torch CPU kernel. Nothing else changes.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys

_registered = None  # keeps the torch.library.Library alive


def greedy_nms(boxes, scores, iou_threshold: float):
    """Greedy NMS in torch: indices of kept boxes, highest score first (torchvision's contract)."""
    import torch

    order = torch.argsort(scores, descending=True, stable=True)
    keep: list[int] = []
    b = boxes.to(torch.float64)
    area = (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)
    alive = torch.ones(len(order), dtype=torch.bool)
    for pos in range(len(order)):
        if not alive[pos]:
            continue
        i = int(order[pos])
        keep.append(i)
        rest = order[pos + 1:]
        lt = torch.maximum(b[i, :2], b[rest, :2])
        rb = torch.minimum(b[i, 2:], b[rest, 2:])
        inter = (rb - lt).clamp(min=0).prod(dim=1)
        iou = inter / (area[i] + area[rest] - inter)
        alive[pos + 1:] &= ~(iou > iou_threshold)
    return torch.tensor(keep, dtype=torch.long)


def _extension_works(package_dir: str) -> bool:
    import glob

    import torch

    for lib in glob.glob(os.path.join(package_dir, "_C*.so")):
        try:
            torch.ops.load_library(lib)
            return True
        except (OSError, ImportError, RuntimeError):
            return False
    return False


def _declare_cpu_ops() -> None:
    global _registered
    import torch

    lib = torch.library.Library("torchvision", "DEF")
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define("qnms(Tensor qdets, Tensor scores, float iou_threshold) -> Tensor")
    lib.impl("nms", greedy_nms, "CPU")
    _registered = lib


class _Loader(importlib.abc.Loader):
    def __init__(self, real, package_dir: str):
        self.real, self.package_dir = real, package_dir

    def __getattr__(self, name):
        return getattr(self.real, name)

    def create_module(self, spec):
        return self.real.create_module(spec)

    def exec_module(self, module):
        patched = not _extension_works(self.package_dir)
        if patched:
            _declare_cpu_ops()
        self.real.exec_module(module)
        if patched:
            boxes = sys.modules.get("torchvision.ops.boxes")
            if boxes is not None:
                boxes._assert_has_ops = lambda: None
            module.medrealmm_cpu_ops = True


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "torchvision" or _registered is not None or "torchvision" in sys.modules:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not spec.submodule_search_locations:
            return spec
        spec.loader = _Loader(spec.loader, next(iter(spec.submodule_search_locations)))
        return spec


def install() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
