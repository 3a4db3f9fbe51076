"""``deid.text``'s detector switches reach the detector the stage and detect_text build."""

from __future__ import annotations

from pathlib import Path

import pytest

from medrealmm.deid.text_detect import build_text_detector, default_text_config

pytest.importorskip("pycrfsuite", reason="python-crfsuite is in requirements/cpu.txt (bash launch/setup.sh)")

TEXT = "收到，郑洋，您说的情况我了解了；上周在湘雅医院复查，白细胞6.5"


def test_learned_crf_is_off_by_default_and_joins_when_asked() -> None:
    default = build_text_detector(default_text_config())
    assert default.learned is None
    assert not any("crf" in s.detector for s in default.find(TEXT))
    with_crf = build_text_detector({**default_text_config(), "learned": True})
    spans = with_crf.find(TEXT)
    assert any("crf" in s.detector for s in spans)
    assert "6.5" not in "".join(TEXT[s.start:s.end] for s in spans)


def test_a_missing_model_stops_before_any_text(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="learned_model: no CRF model at"):
        build_text_detector({**default_text_config(), "learned": True, "learned_model": str(tmp_path / "none.crfsuite")})
