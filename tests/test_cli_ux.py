"""Discoverability: `medrealmm list`, a short `run --help`, bash completion that works per command."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT, cli


def test_list_shows_every_config_with_a_description(tmp_path) -> None:
    r = cli(["list", "models"], cwd=tmp_path)
    names = {p.stem for p in (ROOT / "conf" / "model").glob("*.yaml")}
    for n in names:
        assert f"\n{n} " in r.stdout, n
    assert "API (network)" in r.stdout and "medgemma_27b" in r.stdout and "Paper Table 4" in r.stdout
    assert "paper" in cli(["list", "presets"], cwd=tmp_path).stdout
    bad = cli(["list", "nonsense"], cwd=tmp_path, check=False)
    assert bad.returncode == 2 and "usage: medrealmm list" in bad.stderr


def test_run_help_is_short_and_names_the_common_options(tmp_path) -> None:
    out = cli(["run", "--help"], cwd=tmp_path).stdout
    assert len(out.splitlines()) < 40
    for opt in ("model=", "judge=", "data.path=", "data.limit=", "run.modes=", "preset=", "medrealmm list"):
        assert opt in out, opt


def test_bash_completion_completes_commands_groups_and_keys(tmp_path) -> None:
    script = cli(["completion", "bash"], cwd=tmp_path).stdout
    probe = tmp_path / "probe.sh"
    probe.write_text(f'''export PATH={sys.executable.rsplit("/", 1)[0]}:$PATH
{script}
try() {{ COMP_LINE="$1"; COMP_POINT=${{#COMP_LINE}}; read -ra COMP_WORDS <<< "$COMP_LINE"
        COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); _medrealmm_complete; echo "${{COMPREPLY[*]}}"; }}
try "medrealmm vie"
try "medrealmm run model=medg"
try "medrealmm judge judge.max_r"
try "medrealmm list jud"
''', encoding="utf-8")
    lines = subprocess.run(["bash", str(probe)], capture_output=True, text=True, timeout=120, cwd=tmp_path).stdout.splitlines()
    assert lines == ["view", "model=medgemma_27b", "judge.max_retries=", "judges"], lines


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path) -> None:
    """`medrealmm list models | head`: the pipe closes before the listing is written; exit quietly (141, as
    a program stopped by SIGPIPE)."""
    code = ("import os, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1); "
            "from medrealmm.cli import main; main(['list', 'models'])")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 141 and r.stderr == ""


def test_every_command_is_one_row_of_the_table() -> None:
    from medrealmm.cli import COMMANDS, DIRECT, EVALUATION, READ_ONLY

    assert set(EVALUATION) | {"validate", "report", "rubric-revise", "store-gc", "deid-review"} <= set(COMMANDS)
    assert "store-verify" in READ_ONLY and "run" not in READ_ONLY and not set(DIRECT) & set(COMMANDS)
