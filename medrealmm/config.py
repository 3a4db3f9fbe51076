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
