"""Every config group has typed settings whose defaults equal its YAML, and a typo fails at start."""

from __future__ import annotations

from typing import Any

import pytest
from omegaconf import OmegaConf

from medrealmm.config import compose, conf_dir
from medrealmm.config_groups import GROUPS, check_config
from medrealmm.config_schema import ConfigError, Settings

TYPED = sorted(g for g, m in GROUPS.items() if isinstance(m, type) and issubclass(m, Settings))


def _raw_yaml(group: str) -> dict[str, Any]:
    raw = OmegaConf.to_container(OmegaConf.load(conf_dir() / group / "default.yaml"), resolve=False)
    assert isinstance(raw, dict)
    raw.pop("defaults", None)
    return raw


def _differences(yaml: Any, model: Any, where: str) -> list[str]:
    """Leaves where the YAML's literal value differs from the model's default (interpolations skipped)."""
    if isinstance(yaml, str) and "${" in yaml:
        return []
    if isinstance(yaml, dict) and isinstance(model, dict):
        out = [f"{where}.{k}: in the YAML, not in the model" for k in yaml if k not in model]
        out += [f"{where}.{k}: in the model, not in the YAML" for k in model if k not in yaml]
        for k in yaml.keys() & model.keys():
            out += _differences(yaml[k], model[k], f"{where}.{k}")
        return out
    return [] if yaml == model else [f"{where}: YAML {yaml!r} != model default {model!r}"]


@pytest.mark.parametrize("group", TYPED)
def test_yaml_mirrors_the_model_defaults(group: str) -> None:
    if not (conf_dir() / group / "default.yaml").is_file():
        pytest.skip(f"conf/{group}/ has no default.yaml")
    model = GROUPS[group]
    assert _differences(_raw_yaml(group), model().model_dump(), group) == []


@pytest.mark.parametrize("group", TYPED)
def test_a_typo_in_a_group_fails_at_start_naming_the_setting(group: str) -> None:
    cfg = compose([])
    check_config(cfg)
    cfg[group] = {**cfg[group], "no_such_setting": 1}
    with pytest.raises(ConfigError, match=rf"{group}\.no_such_setting: unknown setting"):
        check_config(cfg)


def test_the_default_composition_is_valid_for_every_group() -> None:
    check_config(compose([]))


@pytest.mark.parametrize(("command", "group"), [("deid", "deid"), ("deid-review", "deid"), ("corpus", "corpus"),
                                                 ("mccp", "mccp"), ("rubric-lint", "rubric"), ("report", "report"),
                                                 ("store-stats", "store"), ("run", "run")])
def test_each_command_checks_its_group_before_it_runs(command: str, group: str) -> None:
    from medrealmm.cli import COMMANDS

    check = COMMANDS[command].check
    assert check is not None and (check == () or group in check)


def test_a_typo_in_a_user_config_stops_the_command_with_one_line(tmp_path) -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "medrealmm.cli", "deid", "+deid.text.polcy.city=false",
                          f"paths.outputs={tmp_path}"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "deid.text.polcy: unknown setting" in out.stderr + out.stdout
