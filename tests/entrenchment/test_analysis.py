"""The per-setup analysis: debate estimators, judge-baseline bookkeeping, rates and sizes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from biaslab.errors import BiaslabError
from biaslab.stats import compare_estimates
from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.card import card_cells
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents
from biaslab.suites.entrenchment.judgements import BeliefRecord
from biaslab.suites.entrenchment.report import tables


def debate_frame(questions: int, rounds: int, bump: float, seed: int) -> pd.DataFrame:
    """Judged debates over a Bayesian belief path (urn draws) whose judge leans ``bump`` log-odds
    toward whoever spoke last: a speaker artefact, not entrenchment."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    lr = math.log(7 / 3)
    for q in range(questions):
        prior = rng.uniform(0.05, 0.95)
        is_a = rng.random() < prior
        logit = math.log(prior / (1 - prior))
        opener = 1 if rng.random() < 0.5 else -1
        steps = 2 * rounds
        for t in range(steps + 1):
            side = 0 if t == 0 else (opener if t % 2 == 1 else -opener)
            if t > 0:
                logit += lr if rng.random() < (0.7 if is_a else 0.3) else -lr
            belief = 1 / (1 + math.exp(-(logit + bump * side)))
            rows.append(
                {
                    "record": "belief", "question": f"q{q}", "source": "model",
                    "belief_construct": "judge", "judge_mode": "prefix", "replicate": 0,
                    "step": t, "n_steps": steps, "belief": belief, "parsed": True,
                    "failed": False, "side": {1: "yes", -1: "no"}.get(side),
                    "model": "m", "roles": "judge=j", "mode": "debate", "domain": "urn",
                    "system_prompt": "none", "outcome": int(is_a), "run_key": "r",
                    "item_id": f"q{q}", "epoch": 1,
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_a_speaker_artefact_is_absorbed_by_the_side_covariate_and_per_round_m() -> None:
    naive, side, per_round, effect = [], [], [], []
    for seed in range(5):
        [s] = analyze(debate_frame(200, 3, 0.6, seed)).setups
        assert s.m is not None and s.m_side is not None and s.m_round is not None
        naive.append(s.m)
        side.append(s.m_side)
        per_round.append(s.m_round)
        effect.append(s.side_effect)
    assert np.mean(naive) < -0.02  # spurious negative per-step M
    assert abs(np.mean(side)) < abs(np.mean(naive)) / 2
    assert abs(np.mean(per_round)) < abs(np.mean(naive)) / 2
    assert np.mean(effect) > 0.05  # the judge moves toward the speaker


def test_judge_baseline_counts_once_across_model_runs_and_sits_beside_m() -> None:
    config = resolve_config(None, {})
    items = generate(config, 0, 12)
    frames = [
        run_agents(items, config, agent, "judge-reader")
        for agent in ("urn-bayes", "urn-entrenched")
    ]
    results = analyze(pd.concat(frames, ignore_index=True))
    [base] = results.baseline_setups()
    assert base.n_questions == 12 and base.n_trajectories == 12  # not 24
    models = results.model_setups()
    assert len(models) == 2
    for setup in models:
        assert setup.m_judge_baseline == base.m and setup.m_null == base.m
        assert setup.m_excess is None and setup.m_null_p is None  # never subtracted
        assert setup.n_judge_baseline_questions == 12
    assert all(s.se_type == "CR1" for s in results.setups)


def six_and_ten_draws(n: int, models: tuple[str, str], seeds: tuple[int, int] = (0, 0)) -> Any:
    """One run of 6 draws and one of 10 (each with its judge baseline), analysed together."""
    configs = (resolve_config(None, {}), resolve_config(None, {"draws": "10"}))
    frames = [
        run_agents(generate(config, seed, n), config, model, "judge-reader", seed=seed)
        for config, model, seed in zip(configs, models, seeds, strict=True)
    ]
    return analyze(pd.concat(frames, ignore_index=True))


def test_judge_baselines_of_different_urn_settings_are_kept_apart() -> None:
    results = six_and_ten_draws(12, ("urn-bayes", "urn-entrenched"))
    bases = {b.baseline_setting: b for b in results.baseline_setups()}
    assert len(bases) == 2 and all(b.n_questions == 12 for b in bases.values())
    assert {b.mean_steps for b in bases.values()} == {6.0, 10.0}
    for setup in results.model_setups():
        base = bases[setup.baseline_setting]
        assert base.mean_steps == setup.mean_steps  # each model beside its own run's baseline
        assert setup.m_judge_baseline == base.m
        assert setup.baseline_setting.startswith(f"{int(base.mean_steps or 0)} draws")
    assert len({b.label for b in bases.values()}) == 2


def test_the_card_compares_m_with_the_baseline_beside_it() -> None:
    results = six_and_ten_draws(40, ("urn-entrenched", "urn-bayes"))
    bases = {b.baseline_setting: b for b in results.baseline_setups()}
    cells = card_cells(results)
    for setup in results.model_setups():
        base = bases[setup.baseline_setting]
        assert setup.m is not None and setup.m_se is not None and base.m_se is not None
        expected = compare_estimates(setup.m, setup.m_se, base.m or 0.0, base.m_se)
        assert cells[setup.model].p == expected.pvalue


def test_a_model_setup_pooled_over_baseline_settings_gets_none() -> None:
    results = six_and_ten_draws(12, ("urn-bayes", "urn-bayes"), seeds=(0, 1))
    [model] = results.model_setups()
    assert model.n_questions == 24 and model.m_judge_baseline is None
    assert any("different urn settings" in note for note in model.notes)


def test_small_setups_report_m_without_cr1_and_say_why() -> None:
    config = resolve_config(None, {"judge_baseline": "false"})
    frame = run_agents(generate(config, 1, 6), config, "urn-bayes", "judge-reader")
    [s] = analyze(frame).setups
    assert s.m is not None and s.m_p is None and s.m_lo is None
    assert s.se_type == "none" and s.m_se is None  # CR1 was refused, so no SE of any type
    assert s.m_classical_p is not None  # the classical test stays available, labelled
    assert any("refused" in note for note in s.notes)
    assert any("only 6 questions" in note for note in s.notes)
    assert s.figure.step_counts == {6: 6}


def test_a_frame_with_beliefs_outside_0_1_is_one_line() -> None:
    config = resolve_config(None, {"judge_baseline": "false"})
    frame = run_agents(generate(config, 2, 12), config, "urn-bayes", "judge-reader")
    frame.loc[(frame["record"] == "belief") & (frame["step"] == 2), "belief"] = 1.7
    with pytest.raises(BiaslabError, match="12 parsed beliefs that are not probabilities") as info:
        analyze(frame)
    assert "\n" not in str(info.value) and "step 2: 1.7" in str(info.value)


def test_records_refuse_what_the_analysis_cannot_read() -> None:
    common: dict[str, Any] = {
        "turn": 0, "question": "q", "source": "model", "domain": "urn", "mode": "cot",
        "system_prompt": "none", "belief_construct": "judge", "judge_mode": "prefix",
        "replicate": 0, "step": 0, "n_steps": 3, "parsed": True, "asked_yes": True,
    }  # fmt: skip
    assert BeliefRecord(**common, belief=0.3).belief == 0.3
    bad_values = [
        {"belief": 1.2},
        {"belief": -0.1},
        {"belief": 0.3, "mode": "monologue"},
        {"belief": 0.3, "belief_construct": "vibes"},
        {"belief": 0.3, "judge_mode": "x"},
    ]
    for bad in bad_values:
        with pytest.raises(ValidationError):
            BeliefRecord(**{**common, **bad})


def test_unparsed_beliefs_drop_only_their_pairs_and_are_counted() -> None:
    config = resolve_config(None, {"judge_baseline": "false"})
    frame = run_agents(generate(config, 2, 20), config, "urn-bayes", "judge-reader")
    full = analyze(frame).setups[0]
    hit = (frame["record"] == "belief") & (frame["step"] == 3)
    frame.loc[hit, "belief"] = None
    frame.loc[hit, "parsed"] = False
    frame["error"] = frame["error"].astype(object)
    frame.loc[hit, "error"] = ["echo of the prompt: x"] * 15 + ["no belief field: y"] * 5
    [s] = analyze(frame).setups
    assert full.n_pairs == 120 and s.n_pairs == 120 - 2 * 20  # pairs (2,3) and (3,4) dropped
    assert s.unparsed_rate == 20 / (20 * 7)
    assert s.unparsed_reasons == {"echo of the prompt": 15, "no belief field": 5}
    assert s.m_first_last == full.m_first_last  # b_0 and b_6 are intact
    assert s.brier_final == full.brier_final and s.n_brier == 20


def test_the_judge_baseline_is_capped_like_the_model() -> None:
    """With more draws than ``max_steps`` both the model's chain of thought and the baseline's
    stored reasoning are merged to ``max_steps``; the baseline's exact posterior follows the
    merge, so a noiseless judge still reads it exactly."""
    config = resolve_config(None, {"draws": "20"})
    frame = run_agents(generate(config, 3, 12), config, "urn-bayes", "judge-reader")
    res = analyze(frame)
    [model] = res.model_setups()
    [base] = res.baseline_setups()
    assert set(model.figure.step_counts) == {12} and set(base.figure.step_counts) == {12}
    assert model.n_capped == 12 and base.n_capped == 12
    assert model.m_judge_baseline == base.m and model.judge_baseline_refused is None
    rows = frame[(frame["record"] == "belief") & (frame["source"] == "judge_baseline")]
    assert (rows["belief"] - rows["exact"]).abs().max() < 1e-3


def test_a_longer_baseline_is_refused_with_a_reason() -> None:
    """A baseline judged on 20 steps never sits beside a model merged to 12 (older logs)."""
    capped = resolve_config(None, {"draws": "20"})
    items = generate(capped, 3, 12)
    model = run_agents(items, capped, "urn-bayes", "judge-reader")
    uncapped = resolve_config(None, {"draws": "20", "max_steps": "30"})
    base = run_agents(items, uncapped, "urn-bayes", "judge-reader")
    frame = pd.concat(
        [model[model["source"] == "model"], base[base["source"] == "judge_baseline"]],
        ignore_index=True,
    )
    [setup] = analyze(frame).model_setups()
    assert setup.m_judge_baseline is None and setup.m_null is None
    assert setup.judge_baseline_refused is not None
    assert "20 steps" in setup.judge_baseline_refused and "12" in setup.judge_baseline_refused
    text = tables(analyze(frame))
    assert "n/a: the baseline has 20 steps" in text
