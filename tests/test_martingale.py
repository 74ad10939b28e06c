"""The Martingale-score estimators against statsmodels directly, hand-computed sandwiches and a
simulated two-urn domain whose exact posterior is known (Bayesian, entrenched, over-reactive agents
and a noisy judge)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.regression.linear_model import OLS

from biaslab import stats as S
from biaslab.errors import BiaslabError
from biaslab.stats.martingale import MIN_CLUSTERS

LR = math.log(0.7 / 0.3)


def urn_beliefs(
    seed: int,
    questions: int = 100,
    draws: int = 6,
    *,
    disconfirming_weight: float = 1.0,
    scale: float = 1.0,
    noise: float = 0.0,
    replicates: int = 1,
    shared: float = 0.0,
) -> list[np.ndarray]:
    """(questions x draws+1) belief arrays: the urn is drawn from the stated prior, each agent moves
    its log-odds by the draw's log likelihood ratio, weighted against its current leaning or scaled;
    judge replicates add independent logit noise of SD ``noise`` and one shared draw of SD
    ``shared``."""
    rng = np.random.default_rng(seed)
    prior = rng.uniform(0.05, 0.95, questions)
    urn_a = rng.random(questions) < prior
    logit = np.log(prior / (1 - prior))
    path = [logit.copy()]
    for _ in range(draws):
        red = rng.random(questions) < np.where(urn_a, 0.7, 0.3)
        step = np.where(red, LR, -LR) * scale
        against = np.sign(step) != np.sign(logit)
        logit = logit + np.where(against & (logit != 0), disconfirming_weight, 1.0) * step
        path.append(logit.copy())
    logits = np.array(path).T
    if shared:
        logits = logits + rng.normal(0.0, shared, logits.shape)
    return [
        1.0 / (1.0 + np.exp(-(logits + rng.normal(0.0, noise, logits.shape))))
        for _ in range(replicates)
    ]


def step_pairs(beliefs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, t = beliefs.shape
    return beliefs[:, :-1].ravel(), beliefs[:, 1:].ravel(), np.repeat(np.arange(q), t - 1)


def num(value: float | None) -> float:
    assert value is not None
    return value


def test_m_and_cr1_match_statsmodels_directly() -> None:
    [b] = urn_beliefs(1, disconfirming_weight=0.5)
    x, post, g = step_pairs(b)
    res = S.martingale_score(x, post, g)
    design = np.column_stack([np.ones_like(x), x])
    ref = OLS(post - x, design).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
    assert res.statistic == pytest.approx(ref.params[1], rel=1e-12)
    assert res.se == pytest.approx(ref.bse[1], rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalues[1], rel=1e-9)
    assert res.df == 99 and res.n == 600 and res.n_clusters == 100
    classical = OLS(post - x, design).fit()
    assert res.classical_se == pytest.approx(classical.bse[1], rel=1e-12)
    assert res.classical_p == pytest.approx(classical.pvalues[1], rel=1e-9)


def test_cr1_by_the_sandwich_formula() -> None:
    """Var = G/(G−1)·(n−1)/(n−2)·Σ_g u_g² / S_xx², u_g = Σ_{i∈g} (x_i − x̄) e_i; t(G − 1)."""
    [b] = urn_beliefs(2, questions=40)
    x, post, g = step_pairs(b)
    y = post - x
    xc = x - x.mean()
    slope = (xc * (y - y.mean())).sum() / (xc**2).sum()
    resid = y - (y.mean() - slope * x.mean()) - slope * x
    u = np.bincount(g, weights=xc * resid)
    n, clusters = len(x), 40
    var = clusters / (clusters - 1) * (n - 1) / (n - 2) * (u**2).sum() / (xc**2).sum() ** 2
    res = S.martingale_score(x, post, g)
    assert res.statistic == pytest.approx(slope, rel=1e-10)
    assert res.se == pytest.approx(math.sqrt(var), rel=1e-10)
    t = slope / math.sqrt(var)
    assert res.pvalue == pytest.approx(2 * sps.t.sf(abs(t), clusters - 1), rel=1e-8)
    half = sps.t.ppf(0.975, clusters - 1) * math.sqrt(var)
    assert res.ci == pytest.approx((slope - half, slope + half), rel=1e-9)


def test_classical_se_type_is_the_papers_t_test() -> None:
    [b] = urn_beliefs(3)
    x, post, g = step_pairs(b)
    res = S.martingale_score(x, post, g, se_type="classical")
    assert res.se_type == "classical"
    assert res.se == res.classical_se and res.pvalue == res.classical_p
    assert res.df == len(x) - 2


def test_m_is_invariant_to_relabelling_the_options() -> None:
    [b] = urn_beliefs(4, disconfirming_weight=0.7)
    x, post, g = step_pairs(b)
    a = S.martingale_score(x, post, g)
    flipped = S.martingale_score(1 - x, 1 - post, g)
    assert flipped.statistic == pytest.approx(num(a.statistic), abs=1e-12)
    assert flipped.se == pytest.approx(num(a.se), rel=1e-9)
    assert flipped.intercept == pytest.approx(-num(a.intercept) - num(a.statistic), abs=1e-12)


def test_cr1_on_singleton_clusters_is_close_to_hc1() -> None:
    [b] = urn_beliefs(5, questions=300, draws=1)
    x, post, g = step_pairs(b)
    res = S.martingale_score(x, post, g)
    hc1 = OLS(post - x, np.column_stack([np.ones_like(x), x])).fit(cov_type="HC1")
    # the factors differ by G/(G−1)·(n−1)/(n−2) over n/(n−2): (300/299)(299/298)/(300/298) = 1
    assert res.se == pytest.approx(hc1.bse[1], rel=1e-9)


def test_cr1_is_refused_below_ten_questions_and_warned_below_thirty() -> None:
    [b] = urn_beliefs(6, questions=MIN_CLUSTERS - 1)
    x, post, g = step_pairs(b)
    res = S.martingale_score(x, post, g)
    assert res.defined and res.statistic is not None
    assert res.pvalue is None and res.ci is None and res.se is None
    assert "refused" in (res.ci_reason or "")
    assert res.classical_p is not None  # the classical test stays available, labelled
    [b] = urn_beliefs(6, questions=20)
    res = S.martingale_score(*step_pairs(b))
    assert res.pvalue is not None and any("only 20 questions" in n for n in res.notes)


def test_degenerate_inputs_are_undefined_not_errors() -> None:
    res = S.martingale_score([0.5, 0.5, 0.5], [0.6, 0.4, 0.5], [0, 1, 2])
    assert not res.defined and "same" in (res.reason or "")
    assert not S.martingale_score([0.2, 0.3], [0.4, 0.5], [0, 1]).defined
    exact = S.martingale_score([0.2, 0.4, 0.6], [0.2, 0.4, 0.6], [0, 1, 2])
    assert exact.statistic == pytest.approx(0.0) and exact.se is None
    with pytest.raises(ValueError, match="non-finite"):
        S.martingale_score([0.2, float("nan"), 0.3], [0.1, 0.2, 0.3], [0, 1, 2])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        S.martingale_score([0.2, 1.3, 0.3], [0.1, 0.2, 0.3], [0, 1, 2])
    # bad beliefs are also a BiaslabError: one line on the command line, not a traceback
    with pytest.raises(BiaslabError, match=r"posterior beliefs must lie in \[0, 1\]"):
        S.martingale_iv(
            [0.2, 0.3, 0.4], [0.1, -0.2, 0.3], [0.2, 0.3, 0.4], [0.1, 0.2, 0.3], [0, 1, 2]
        )


def test_minimum_detectable_effect_formula() -> None:
    assert S.minimum_detectable_effect(0.01, 99) == pytest.approx(
        (sps.t.ppf(0.975, 99) + sps.t.ppf(0.8, 99)) * 0.01
    )
    assert S.minimum_detectable_effect(None, 10) is None
    [b] = urn_beliefs(7)
    res = S.martingale_score(*step_pairs(b))
    assert res.mde == pytest.approx(S.minimum_detectable_effect(res.se, res.df))


def test_side_covariate_is_reported_with_its_own_test() -> None:
    [b] = urn_beliefs(8)
    x, post, g = step_pairs(b)
    side = np.where(np.arange(len(x)) % 2 == 0, 1.0, -1.0)
    moved = np.clip(post + 0.02 * side, 0.0, 1.0)
    res = S.martingale_score(x, moved, g, covariates={"side": side})
    design = np.column_stack([np.ones_like(x), x, side])
    ref = OLS(moved - x, design).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
    estimate, se, p = res.coefficients["side"]
    assert estimate == pytest.approx(ref.params[2]) and se == pytest.approx(ref.bse[2])
    assert p == pytest.approx(ref.pvalues[2])
    assert res.statistic == pytest.approx(ref.params[1])


def test_iv_is_the_covariance_ratio_with_a_cluster_sandwich() -> None:
    a, b = urn_beliefs(9, noise=0.5, replicates=2)
    xa, pa, g = step_pairs(a)
    xb, pb, _ = step_pairs(b)
    res = S.martingale_iv(xa, pa, xb, pb, g)
    ya, yb = pa - xa, pb - xb
    # just-identified IV on the stacked rows: Cov(y, z) / Cov(x, z)
    y = np.concatenate([ya, yb])
    stacked = (
        np.cov(y, np.concatenate([xb, xa]))[0, 1]
        / np.cov(np.concatenate([xa, xb]), np.concatenate([xb, xa]))[0, 1]
    )
    assert res.statistic == pytest.approx(stacked, rel=1e-9)
    # independent sandwich: (Z'X)^-1, cluster sums of Z'u
    x = np.column_stack([np.ones(len(y)), np.concatenate([xa, xb])])
    z = np.column_stack([np.ones(len(y)), np.concatenate([xb, xa])])
    groups = np.concatenate([g, g])
    beta = np.linalg.solve(z.T @ x, z.T @ y)
    u = y - x @ beta
    meat = sum(np.outer(s, s) for s in (np.array([(z[groups == k] * u[groups == k, None]).sum(0)
                                                   for k in range(100)])))  # fmt: skip
    inv = np.linalg.inv(z.T @ x)
    n, k, clusters = len(y), 2, 100
    var = inv @ meat @ inv.T * clusters / (clusters - 1) * (n - 1) / (n - k)
    assert res.se == pytest.approx(math.sqrt(var[1, 1]), rel=1e-8)
    assert res.coefficients["instrument_r"][0] == pytest.approx(np.corrcoef(xa, xb)[0, 1])


def test_iv_refuses_uncorrelated_replicates() -> None:
    xa = np.tile([0.2, 0.8, 0.2, 0.8], 10)
    xb = np.tile([0.2, 0.2, 0.8, 0.8], 10)  # exactly orthogonal to xa after centring
    res = S.martingale_iv(xa, xa, xb, xb, np.arange(40))
    assert not res.defined and "uncorrelated" in (res.reason or "")


def test_binned_means_and_fit_line() -> None:
    [b] = urn_beliefs(10, disconfirming_weight=0.5)
    x, post, g = step_pairs(b)
    bins = S.binned_means(x, post, g, bins=5)
    assert bins is not None and sum(bins.counts) == len(x) and len(bins.means) == 5
    assert bins.wald_p is not None and bins.wald_p < 0.01
    line = S.fit_line(x, post, g, points=5)
    res = S.martingale_score(x, post, g)
    assert line is not None
    slope = (line.y[-1] - line.y[0]) / (line.x[-1] - line.x[0])
    assert slope == pytest.approx(num(res.statistic))
    assert all(lo < y < hi for lo, y, hi in zip(line.lo, line.y, line.hi, strict=True))


def rejection_rate(seeds: range, **agent: float) -> tuple[float, float]:
    rejected, estimates = 0, []
    for seed in seeds:
        res = S.martingale_score(*step_pairs(urn_beliefs(seed, **agent)[0]))
        rejected += int(num(res.pvalue) < 0.05)
        estimates.append(num(res.statistic))
    return rejected / len(seeds), float(np.mean(estimates))


def test_bayesian_agent_rejects_at_the_nominal_rate_with_cr1() -> None:
    rate, mean = rejection_rate(range(300))
    assert 0.02 <= rate <= 0.09
    assert abs(mean) < 0.003


def test_classical_se_is_far_too_conservative_for_a_bayesian_agent() -> None:
    rejected = 0
    for seed in range(200):
        res = S.martingale_score(*step_pairs(urn_beliefs(seed)[0]), se_type="classical")
        rejected += int(num(res.pvalue) < 0.05)
    assert rejected / 200 < 0.025


def test_entrenched_is_positive_and_overreactive_is_negative() -> None:
    rate, mean = rejection_rate(range(30), disconfirming_weight=0.5)
    assert rate == 1.0 and mean > 0.03
    rate, mean = rejection_rate(range(30), scale=2.0)
    assert rate > 0.9 and mean < -0.03


def test_judge_noise_biases_m_down_and_the_instrument_recovers_it() -> None:
    naive, iv, truth = [], [], []
    for seed in range(30):
        clean = urn_beliefs(seed, disconfirming_weight=0.5)[0]
        a, b = urn_beliefs(seed, disconfirming_weight=0.5, noise=0.5, replicates=2)
        xa, pa, g = step_pairs(a)
        xb, pb, _ = step_pairs(b)
        naive.append(num(S.martingale_score(xa, pa, g).statistic))
        iv.append(num(S.martingale_iv(xa, pa, xb, pb, g).statistic))
        truth.append(num(S.martingale_score(*step_pairs(clean)).statistic))
    assert np.mean(naive) < np.mean(truth) - 0.02
    assert abs(np.mean(iv) - np.mean(truth)) < 0.015


def mean_iv(seeds: range, **noise: float) -> tuple[float, float]:
    """Mean naive M and mean M_IV of a Bayesian agent (true M = 0) under two judge replicates."""
    naive, iv = [], []
    for seed in seeds:
        a, b = urn_beliefs(seed, replicates=2, **noise)
        xa, pa, g = step_pairs(a)
        xb, pb, _ = step_pairs(b)
        naive.append(num(S.martingale_score(xa, pa, g).statistic))
        iv.append(num(S.martingale_iv(xa, pa, xb, pb, g).statistic))
    return float(np.mean(naive)), float(np.mean(iv))


def test_the_instrument_leaves_shared_noise_and_log_odds_shrinkage() -> None:
    """What M_IV does not remove (its documented limits): noise the replicates share, and the
    shrinkage of log-odds noise (the judged belief is a nonlinear function of the truth)."""
    naive, iv = mean_iv(range(40), noise=np.sqrt(0.125), shared=np.sqrt(0.125))  # ρ = 0.5
    assert naive < -0.04 and naive / 2 - 0.01 < iv < -0.01  # about half the bias stays
    naive, iv = mean_iv(range(40), noise=1.0)  # independent, but large, log-odds noise
    assert naive < -0.1 and iv > 0.005  # over-corrected: a positive bias of its own
