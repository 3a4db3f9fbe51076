"""Where the Hydra configs live, the custom resolvers, and composing a config without a CLI.

``conf/`` at the top of the repository is the source of truth; ``medrealmm/conf`` links to it so
the configs ship inside the package too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def conf_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "conf", here / "conf"):
        if (candidate / "config.yaml").is_file():
            return candidate
    raise FileNotFoundError(f"medrealmm configs not found next to {here}; reinstall the package")


def register_resolvers() -> None:
    from omegaconf import OmegaConf

    if not OmegaConf.has_resolver("mr.join"):
        OmegaConf.register_new_resolver("mr.join", lambda xs, sep="+": sep.join(str(x) for x in xs))
    if not OmegaConf.has_resolver("mr.dataset_name"):
        OmegaConf.register_new_resolver("mr.dataset_name", dataset_name)


def dataset_name(path: Any, default: str = "data") -> str:
    """A dataset's name from its path, for output folders: the file's stem, or its folder's name when the
    file is a generic ``cases.jsonl``/``data.parquet`` (``/data/derm_2026/cases.jsonl`` -> ``derm_2026``)."""
    from pathlib import Path

    if not path or str(path) in ("???", "None"):
        return default
    p = Path(str(path)).expanduser()
    generic = {"cases", "data", "test", "train", "dev", "validation", "eval", "benchmark"}
    name = p.name if (p.suffix == "" or p.is_dir()) else (p.parent.name if p.stem.lower() in generic else p.stem)
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name).strip("._")
    return safe or default


def to_plain(cfg: Any, *, missing_ok: bool = False) -> dict[str, Any]:
    """Resolved plain dict (what the pipeline consumes), without Hydra's own node. ``missing_ok``:
    mandatory values left unset (``???``, e.g. ``data.path``) stay as they are instead of failing,
    for commands that only read finished runs."""
    from omegaconf import OmegaConf

    out = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=not missing_ok)
    assert isinstance(out, dict)
    out.pop("hydra", None)
    return out


def compose(overrides: list[str] | None = None) -> dict[str, Any]:
    """The config a ``medrealmm run`` with these overrides would use (for tests and notebooks)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    register_resolvers()
    with initialize_config_dir(config_dir=str(conf_dir()), version_base=None):
        cfg = hydra_compose(config_name="config", overrides=list(overrides or []))
    return to_plain(cfg)


def plain(obj: Any) -> Any:
    """A plain dict/list from an OmegaConf node (Hydra config); anything else as it is."""
    from omegaconf import DictConfig, ListConfig, OmegaConf

    if isinstance(obj, (DictConfig, ListConfig)):
        return OmegaConf.to_container(obj, resolve=True)
    return obj
