"""M by setup factor (one pooled OLS with CR1) and |M| against accuracy across setups."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biaslab.analysis import Analysis
from biaslab.report import write_report
from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.factors import factor_regression
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents

AGENTS = ("urn-bayes", "urn-entrenched?w=0.5", "urn-overreactive?c=2")


@pytest.fixture(scope="module")
def three_models() -> pd.DataFrame:
    config = resolve_config(None, {"judge_baseline": "false"})
    items = generate(config, 2, 40)
    return pd.concat(
        [run_agents(items, config, agent, "judge-reader") for agent in AGENTS], ignore_index=True
    )


def test_one_factor_shifts_are_the_differences_of_the_setups_m(three_models: pd.DataFrame) -> None:
    """With one factor the pooled model is saturated: each level's shift is exactly its setup's
    M minus the reference setup's, and CR1 by question tells the agents apart."""
    res = analyze(three_models)
    by_model = {s.model: s for s in res.model_setups()}
    assert res.factors is not None and res.factors.n_setups == 3
    reference = by_model["biaslab/urn-bayes"]
    assert res.factors.m_reference == pytest.approx(reference.m, abs=1e-9)
    effects = {e.level: e for e in res.factors.effects}
    assert set(effects) == {"biaslab/urn-entrenched?w=0.5", "biaslab/urn-overreactive?c=2"}
    for level, effect in effects.items():
        assert effect.factor == "model" and effect.reference == "biaslab/urn-bayes"
        assert effect.shift == pytest.approx(by_model[level].m - reference.m, abs=1e-9)
        assert effect.lo is not None and effect.hi is not None
        assert effect.lo < effect.shift < effect.hi and effect.p is not None
    assert effects["biaslab/urn-entrenched?w=0.5"].lo > 0  # entrenchment detected
    assert effects["biaslab/urn-overreactive?c=2"].hi < 0


def test_a_confounded_factor_is_left_out_and_named() -> None:
    rng = np.random.default_rng(0)
    setups = []
    for index in range(3):
        prior = rng.uniform(0.1, 0.9, 60)
        pairs = {
            "prior": prior,
            "post": np.clip(prior + rng.normal(0, 0.05, 60), 0, 1),
            "question": np.array([f"q{i % 20}" for i in range(60)], dtype=object),
        }
        keys = dict.fromkeys(
            ("model", "judge", "domain", "variant", "mode", "system_prompt", "belief_construct",
             "judge_mode", "reasoner_settings", "judge_settings"), "x",
        )  # fmt: skip
        keys["model"] = f"m{index}"
        keys["judge_settings"] = f"temperature={index}"  # moves with the model
        setups.append((keys, pairs))
    res = factor_regression(setups)
    assert res.left_out == ("judge_settings (confounded with the other factors)",)
    assert {e.factor for e in res.effects} == {"model"} and len(res.effects) == 2


def test_too_few_setups_say_why(three_models: pd.DataFrame) -> None:
    one = three_models[three_models["model"] == "biaslab/urn-bayes"]
    res = analyze(one)
    assert res.factors is not None and not res.factors.effects
    assert "at least 3 setups" in res.factors.note
    assert res.accuracy is not None and res.accuracy.spearman_r is None


def test_accuracy_link_and_report_sections(three_models: pd.DataFrame, tmp_path: Path) -> None:
    res = analyze(three_models)
    assert res.accuracy is not None and res.accuracy.n_setups == 3
    assert res.accuracy.spearman_r is not None and -1 <= res.accuracy.spearman_r <= 1
    md = write_report(Analysis({"entrenchment": res}, source="x"), tmp_path / "r").read_text()
    assert "### abs(M) and accuracy across setups" in md and "entrenchment_m_brier.svg" in md
    assert (tmp_path / "r" / "entrenchment_m_brier.svg").is_file()
    assert "### M by setup factor" in md and "urn-entrenched?w=0.5" in md
