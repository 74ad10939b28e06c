"""A small version of the README's calibration table: the calibration agents through the suite's
pipeline and analysis (in-process; the Inspect path gives the same records, see test_task.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents
from biaslab.suites.entrenchment.results import SetupResult

SEEDS = range(4)
N = 60


def setups(
    seed: int, judge: str, replicates: int, agents: tuple[str, ...]
) -> dict[str, SetupResult]:
    config = resolve_config(None, {"judge_replicates": str(replicates)})
    items = generate(config, seed, N)
    model = [i for i in items if i.meta["source"] == "model"]
    base = [i for i in items if i.meta["source"] == "judge_baseline"]
    frames = [run_agents(model, config, agent, judge, seed=seed) for agent in agents]
    frames.append(run_agents(base, config, "urn-bayes", judge, seed=seed))
    results = analyze(pd.concat(frames, ignore_index=True))
    return {s.model.removeprefix("biaslab/"): s for s in results.setups}


def test_calibration_agents_through_the_pipeline() -> None:
    agents = ("urn-bayes", "urn-entrenched?w=0.5", "urn-overreactive?c=2")
    clean = [setups(seed, "judge-reader", 1, agents) for seed in SEEDS]
    noisy = [setups(seed, "judge-reader?noise=0.5", 2, agents[:2]) for seed in SEEDS]
    bayes = [r["urn-bayes"] for r in clean]
    assert sum(s.m_p is not None and s.m_p < 0.05 for s in bayes) <= 1
    assert abs(np.mean([s.m for s in bayes])) < 0.01
    for s in (r["urn-entrenched?w=0.5"] for r in clean):
        assert s.m is not None and s.m > 0 and s.m_p is not None and s.m_p < 0.01
        assert s.m_first_last is not None and s.m_first_last > s.m  # entrenchment adds up
    assert all((r["urn-overreactive?c=2"].m or 0) < 0 for r in clean)
    # noise pushes M down (the judge baseline shows it too); the instrument undoes it
    for agent in agents[:2]:
        truth = np.mean([r[agent].m for r in clean])
        naive = np.mean([r[agent].m for r in noisy])
        iv = np.mean([r[agent].m_iv for r in noisy])
        assert naive < truth - 0.02
        assert abs(iv - truth) < 0.02
    assert all((r["urn-bayes"].m_judge_baseline or 0) < -0.01 for r in noisy)
    assert all(r["urn-bayes"].m_null == r["urn-bayes"].m_judge_baseline for r in noisy)


def test_the_judge_baseline_shows_what_m_iv_leaves_and_why() -> None:
    """M_IV corrects only the noise the replicates do not share; the baseline (exact posterior
    known) measures the replicates' error correlation and its own M_IV shows the residual."""
    residual = {}
    for rho in (0.0, 0.5):
        runs = [
            setups(seed, f"judge-reader?noise=0.5&rho={rho}", 2, ("urn-bayes",)) for seed in SEEDS
        ]
        bases = [r["urn-bayes (built in)"] for r in runs]
        for run, base in zip(runs, bases, strict=True):
            model = run["urn-bayes"]
            assert base.replicate_error_r is not None and base.n_error_pairs == N * 7
            assert abs(base.replicate_error_r - rho) < 0.12
            assert model.judge_baseline_error_r == base.replicate_error_r
            assert model.m_iv_judge_baseline == base.m_iv and base.m_iv is not None
            assert model.m_iv_judge_baseline_lo == base.m_iv_lo
            assert base.judge_logit_rmse == pytest.approx(0.5, abs=0.06)
        residual[rho] = np.mean([b.m_iv for b in bases])
    assert abs(residual[0.0]) < 0.01
    assert residual[0.5] < -0.01  # half the noise shared: about half the naive bias stays
