"""Each wrapper in biaslab.stats against a worked example or an independent computation."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from statsmodels.stats.anova import anova_lm

from biaslab import stats as S
from biaslab.stats import bootstrap as stats_bootstrap
from biaslab.stats import regression as stats_regression
from biaslab.stats.bootstrap import _resample_blocks


def chi2_1df_sf(x: float) -> float:
    """P(chi2_1 > x) = erfc(sqrt(x/2)), no scipy involved."""
    return math.erfc(math.sqrt(x / 2.0))


def normal_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def num(value: float | None) -> float:
    """A number a defined result must carry (keeps the assertions below type-checked)."""
    assert value is not None
    return value


def inside(res: S.StatResult, strict: bool = False) -> bool:
    """The point estimate lies within the result's CI."""
    assert res.ci is not None
    lo, est, hi = res.ci[0], num(res.statistic), res.ci[1]
    return lo < est < hi if strict else lo <= est <= hi


def assert_undefined(res: S.StatResult | S.AdjustedPValues) -> None:
    assert res.defined is False
    assert res.reason
    if isinstance(res, S.StatResult):
        assert res.statistic is None and res.pvalue is None and res.ci is None
    assert not any(non_finite(v) for v in res.model_dump().values())


def non_finite(value: object) -> bool:
    """True when a dumped field holds NaN/inf anywhere (JSON would silently turn it into null)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, tuple | list):
        return any(non_finite(v) for v in value)
    return False


def arms_from_counts(
    correct_a: int, wrong_a: int, correct_b: int, wrong_b: int, n_clusters: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows for two arms with round-robin cluster ids shared across arms."""
    ya = np.array([True] * correct_a + [False] * wrong_a)
    yb = np.array([True] * correct_b + [False] * wrong_b)
    ca = np.arange(len(ya)) % n_clusters
    cb = np.arange(len(yb)) % n_clusters
    return ya, yb, ca, cb


def clustered_arms(
    n_clusters: int, rows_per_arm: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Two arms with a strong per-cluster random effect on accuracy (high intra-cluster correlation)."""
    rng = np.random.default_rng(seed)
    effect = rng.normal(0.0, 1.5, n_clusters)
    ca = np.repeat(np.arange(n_clusters), rows_per_arm)
    cb = ca.copy()
    pa = 1.0 / (1.0 + np.exp(-(1.0 + effect[ca])))
    pb = 1.0 / (1.0 + np.exp(-(-0.2 + effect[cb])))
    return rng.random(len(ca)) < pa, rng.random(len(cb)) < pb, ca, cb


# --------------------------------------------------------------------------------------------------
# Result models
# --------------------------------------------------------------------------------------------------


def test_results_never_carry_nan_as_numbers() -> None:
    res = S.StatResult(method="m", n=3, statistic=float("nan"), pvalue=0.5)
    assert_undefined(res)
    assert "not finite" in (res.reason or "")
    res2 = S.StatResult(method="m", n=3, statistic=1.0, ci=(0.0, float("inf")))
    assert res2.defined and res2.ci is None and res2.ci_reason
    res3 = S.SlopeResult(method="m", n=3, statistic=1.0, se=float("nan"))
    assert res3.se is None


def test_results_are_frozen_and_round_trip_json() -> None:
    res = S.mcnemar(150, 86, method="chi2")
    with pytest.raises(ValidationError):
        res.pvalue = 0.0
    again = S.McNemarResult.model_validate_json(res.model_dump_json())
    assert again == res
    assert json.loads(res.model_dump_json())["n_discordant"] == 236
    with pytest.raises(ValidationError):
        S.StatResult(method="m", n=1, statistic=1.0, unknown=2)  # type: ignore[call-arg]


def test_result_invariants_are_enforced() -> None:
    with pytest.raises(ValidationError):
        S.StatResult(method="m", n=1, defined=False)  # undefined needs a reason
    with pytest.raises(ValidationError):
        S.StatResult(method="m", n=1)  # defined needs a statistic


# --------------------------------------------------------------------------------------------------
# McNemar
# --------------------------------------------------------------------------------------------------

# Agresti (2007), An Introduction to Categorical Data Analysis, Table 8.1: presidential approval in
# two surveys of the same 1600 people: approve/approve 794, approve/disapprove 150,
# disapprove/approve 86, disapprove/disapprove 570. z = (86 - 150)/sqrt(236) = -4.17, z^2 = 17.36.
AGRESTI = (794, 150, 86, 570)


def test_mcnemar_chi2_matches_agresti_without_correction() -> None:
    res = S.mcnemar(150, 86, method="chi2", correction=False)
    assert res.statistic == pytest.approx(64**2 / 236)
    assert res.statistic == pytest.approx(17.36, abs=0.005)
    assert math.sqrt(num(res.statistic)) == pytest.approx(4.17, abs=0.005)
    assert res.pvalue == pytest.approx(chi2_1df_sf(64**2 / 236))
    assert res.n == 236 and res.n_discordant == 236


def test_mcnemar_chi2_continuity_correction_by_hand() -> None:
    res = S.mcnemar(150, 86, method="chi2", correction=True)
    assert res.statistic == pytest.approx(63**2 / 236)
    assert res.pvalue == pytest.approx(chi2_1df_sf(63**2 / 236))
    assert "continuity" in res.method


def test_mcnemar_exact_by_hand() -> None:
    # two-sided exact: 2 * P(X <= 2), X ~ Bin(10, 1/2) = 2 * (1 + 10 + 45) / 1024
    res = S.mcnemar(2, 8, method="exact")
    assert res.pvalue == pytest.approx(112 / 1024)
    assert res.statistic == 2
    assert S.mcnemar(8, 2).pvalue == pytest.approx(112 / 1024)


def test_paired_table_and_mcnemar_paired_from_arrays() -> None:
    a, b, c, d = AGRESTI
    x = np.array([1] * a + [1] * b + [0] * c + [0] * d, dtype=bool)
    y = np.array([1] * a + [0] * b + [1] * c + [0] * d, dtype=bool)
    table = S.paired_table(x, y)
    assert (table.a, table.b, table.c, table.d, table.n) == (794, 150, 86, 570, 1600)
    res = S.mcnemar_paired(x, y, method="chi2", correction=False)
    assert res.n == 1600 and res.b == 150 and res.c == 86
    assert res.statistic == pytest.approx(17.356, abs=1e-3)
    assert S.paired_table([1, 0], [0.0, 1.0]).b == 1
    with pytest.raises(ValueError):
        S.paired_table([1, 0, 1], [1, 0])
    with pytest.raises(ValueError):
        S.paired_table([1, 2], [1, 0])


def test_mcnemar_one_sided_exact_at_the_boundary() -> None:
    # n* = b + c = 10 is still exact: P(X >= 8 | Bin(10, 1/2)) = (45 + 10 + 1) / 1024
    res = S.mcnemar_one_sided(8, 2, alternative="greater")
    assert "exact" in res.method
    assert res.pvalue == pytest.approx(56 / 1024)
    assert res.statistic == 8
    less = S.mcnemar_one_sided(2, 8, alternative="less")
    assert less.pvalue == pytest.approx(56 / 1024)


def test_mcnemar_one_sided_normal_just_past_the_boundary() -> None:
    # n* = 11 switches to z = (b - c)/sqrt(b + c) against N(0, 1)
    res = S.mcnemar_one_sided(9, 2, alternative="greater")
    z = 7 / math.sqrt(11)
    assert "normal" in res.method
    assert res.statistic == pytest.approx(z)
    assert res.pvalue == pytest.approx(normal_sf(z))
    less = S.mcnemar_one_sided(9, 2, alternative="less")
    assert less.pvalue == pytest.approx(1 - normal_sf(z))


def test_mcnemar_one_sided_threshold_is_configurable() -> None:
    assert "normal" in S.mcnemar_one_sided(8, 2, exact_max=9).method
    assert "exact" in S.mcnemar_one_sided(30, 20, exact_max=100).method


def test_mcnemar_greater_means_b_exceeds_c() -> None:
    assert num(S.mcnemar_one_sided(40, 10).pvalue) < 0.001
    assert num(S.mcnemar_one_sided(10, 40).pvalue) > 0.999


def test_mcnemar_degenerate_and_invalid() -> None:
    assert_undefined(S.mcnemar(0, 0))
    assert_undefined(S.mcnemar(0, 0, method="chi2"))
    assert_undefined(S.mcnemar_one_sided(0, 0))
    assert_undefined(S.mcnemar_paired([True, False], [True, False]))
    with pytest.raises(ValueError):
        S.mcnemar(-1, 3)
    with pytest.raises(ValueError):
        S.mcnemar_one_sided(1, 3, alternative="two-sided")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------
# Multiplicity
# --------------------------------------------------------------------------------------------------


def test_holm_by_hand_with_undefined_passthrough() -> None:
    # sorted 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 1*0.04) = 0.03, 0.06, 0.06
    res = S.adjust_pvalues([0.01, None, 0.04, float("nan"), 0.03], method="holm")
    assert res.n == 3
    assert res.adjusted[1] is None and res.adjusted[3] is None
    assert res.adjusted[0] == pytest.approx(0.03)
    assert res.adjusted[2] == pytest.approx(0.06)
    assert res.adjusted[4] == pytest.approx(0.06)
    assert res.reject == (True, None, False, None, False)


def test_benjamini_hochberg_by_hand() -> None:
    # p*m/rank: 0.01*3/1 = 0.03, 0.03*3/2 = 0.045, 0.04*3/3 = 0.04; step-up min -> 0.03, 0.04, 0.04
    res = S.adjust_pvalues([0.01, 0.04, 0.03], method="fdr_bh", alpha=0.05)
    assert res.adjusted == pytest.approx((0.03, 0.04, 0.04))
    assert res.reject == (True, True, True)
    assert res.method == "Benjamini-Hochberg"


def test_adjust_pvalues_degenerate() -> None:
    assert_undefined(S.adjust_pvalues([None, None]))
    assert_undefined(S.adjust_pvalues([]))
    with pytest.raises(ValueError):
        S.adjust_pvalues([1.5])


# --------------------------------------------------------------------------------------------------
# Odds ratio and cluster bootstrap
# --------------------------------------------------------------------------------------------------


def test_odds_ratio_point_estimate_by_hand() -> None:
    ya, yb, ca, cb = arms_from_counts(30, 10, 20, 20)
    res = S.odds_ratio(ya, yb, ca, cb, n_boot=2000, seed=1)
    assert res.statistic == pytest.approx((30 / 10) / (20 / 20))
    assert (res.correct_a, res.wrong_a, res.correct_b, res.wrong_b) == (30, 10, 20, 20)
    assert res.n == 80 and res.n_clusters == 10 and res.n_boot == 2000
    assert inside(res)
    assert res.ci_level == 0.95


def test_odds_ratio_haldane_is_explicit() -> None:
    ya, yb, ca, cb = arms_from_counts(30, 0, 20, 20)
    plain = S.odds_ratio(ya, yb, ca, cb, n_boot=500, seed=1)
    assert_undefined(plain)
    assert "wrong_a" in (plain.reason or "")
    corrected = S.odds_ratio(ya, yb, ca, cb, n_boot=500, seed=1, haldane=True)
    assert corrected.statistic == pytest.approx((30.5 / 0.5) / (20.5 / 20.5))
    assert corrected.haldane and "Haldane" in corrected.method
    assert corrected.n_boot_undefined == 0


def test_odds_ratio_bootstrap_is_seeded() -> None:
    ya, yb, ca, cb = clustered_arms(60, 8, seed=0)
    r1 = S.odds_ratio(ya, yb, ca, cb, n_boot=2000, seed=7)
    r2 = S.odds_ratio(ya, yb, ca, cb, n_boot=2000, seed=7)
    r3 = S.odds_ratio(ya, yb, ca, cb, n_boot=2000, seed=8)
    assert r1 == r2
    assert r1.ci != r3.ci
    assert inside(r1, strict=True)
    ss = np.random.SeedSequence(7)
    assert S.odds_ratio(ya, yb, ca, cb, n_boot=2000, seed=ss).ci == r1.ci
    with pytest.raises(TypeError):
        S.odds_ratio(ya, yb, ca, cb, n_boot=10, seed=np.random.default_rng(0))  # type: ignore[arg-type]


def test_cluster_bootstrap_respects_clusters() -> None:
    # arms drawn from disjoint clusters, so the within-cluster correlation inflates the OR's variance
    # (shared clusters would partly cancel it, which is exactly why the paper resamples them jointly)
    ya, yb, ca, cb = clustered_arms(80, 6, seed=3)
    cb = cb + 80
    base = S.odds_ratio(ya, yb, ca, cb, n_boot=4000, seed=11)
    # duplicate every row inside its own cluster: same clusters, same information
    dup = S.odds_ratio(
        np.repeat(ya, 2), np.repeat(yb, 2), np.repeat(ca, 2), np.repeat(cb, 2), n_boot=4000, seed=11
    )
    # the same duplicated rows, wrongly treating each row as its own cluster
    rows = S.odds_ratio(
        np.repeat(ya, 2),
        np.repeat(yb, 2),
        np.arange(2 * len(ya)),
        np.arange(2 * len(ya), 2 * len(ya) + 2 * len(yb)),
        n_boot=4000,
        seed=11,
    )
    assert base.ci and dup.ci and rows.ci

    def width(ci: tuple[float, float]) -> float:
        return math.log(ci[1]) - math.log(ci[0])

    assert dup.statistic == pytest.approx(base.statistic)
    # doubling every cluster's counts leaves each resampled OR unchanged, so the CI is the same
    assert width(dup.ci) == pytest.approx(width(base.ci), rel=1e-6)
    assert width(rows.ci) < 0.7 * width(base.ci)


def test_odds_ratio_undefined_resamples_are_counted() -> None:
    # all of A's errors sit in one of 20 clusters: a resample misses it with prob (19/20)^20 = 36 %
    ya = np.ones(200, dtype=bool)
    ca = np.arange(200) % 20
    ya[ca == 0] = False
    yb = np.arange(200) % 2 == 0
    cb = np.arange(200) % 20
    res = S.odds_ratio(ya, yb, ca, cb, n_boot=3000, seed=5)
    assert res.defined and res.statistic is not None
    assert res.ci is None and res.ci_reason and "undefined" in res.ci_reason
    assert 0.30 < res.n_boot_undefined / 3000 < 0.42
    loose = S.odds_ratio(ya, yb, ca, cb, n_boot=3000, seed=5, max_undefined_frac=0.5)
    assert loose.ci is not None and loose.n_boot_undefined == res.n_boot_undefined
    fixed = S.odds_ratio(ya, yb, ca, cb, n_boot=3000, seed=5, haldane=True)
    assert fixed.ci is not None and fixed.n_boot_undefined == 0


def test_odds_ratio_degenerate() -> None:
    assert_undefined(S.odds_ratio([], [1, 0], [], [1, 2], seed=0))
    ya, yb, ca, cb = arms_from_counts(5, 5, 0, 7)
    assert_undefined(S.odds_ratio(ya, yb, ca, cb, seed=0))
    one = S.odds_ratio([1, 0, 1], [0, 1], ["c"] * 3, ["c"] * 2, seed=0)
    assert one.defined and one.ci is None and "one cluster" in (one.ci_reason or "")
    with pytest.raises(ValueError):
        S.odds_ratio([1, 0], [1, 0], [1], [1, 2], seed=0)


def test_odds_ratio_bootstrap_at_benchmark_scale() -> None:
    # speed is measured in bench/bench_stats.py; here only the behaviour at that scale
    rng = np.random.default_rng(0)
    clusters = rng.integers(0, 500, 10_000)
    arm = rng.random(10_000) < 0.5
    correct = rng.random(10_000) < np.where(arm, 0.9, 0.6)
    args = (correct[arm], correct[~arm], clusters[arm], clusters[~arm])
    res = S.odds_ratio(*args, n_boot=10_000, seed=0)
    assert res.ci is not None and res.n_clusters == 500
    assert res.ci[0] < res.statistic < res.ci[1]


def test_bootstrap_mean_matches_analytic_cluster_se() -> None:
    rng = np.random.default_rng(4)
    g = 200
    effect = rng.normal(0, 1, g)
    clusters = np.repeat(np.arange(g), 5)
    values = effect[clusters] + rng.normal(0, 1, len(clusters))
    res = S.bootstrap_mean(values, clusters, n_boot=5000, seed=1)
    assert res.statistic == pytest.approx(values.mean())
    # independent: cluster-robust SE of a mean = sqrt(sum_g (S_g - n_g*mean)^2) / N
    resid = pd.Series(values - values.mean()).groupby(clusters).sum().to_numpy()
    se = math.sqrt((resid**2).sum()) / len(values)
    assert res.ci is not None
    assert (res.ci[1] - res.ci[0]) / (2 * 1.96 * se) == pytest.approx(1.0, abs=0.1)


def test_bootstrap_mean_diff_is_bias_gap() -> None:
    ya, yb, ca, cb = clustered_arms(50, 6, seed=9)
    res = S.bootstrap_mean_diff(ya, yb, ca, cb, n_boot=2000, seed=2)
    assert res.statistic == pytest.approx(ya.mean() - yb.mean())
    assert res.mean_a == pytest.approx(ya.mean()) and res.n_a == len(ya)
    assert inside(res)
    assert S.bootstrap_mean_diff(ya, yb, ca, cb, n_boot=2000, seed=2) == res


def test_bootstrap_means_degenerate() -> None:
    assert_undefined(S.bootstrap_mean([], [], seed=0))
    assert_undefined(S.bootstrap_mean([1.0, float("nan")], [1, 2], seed=0))
    assert_undefined(S.bootstrap_mean_diff([], [1.0], [], [1], seed=0))
    one = S.bootstrap_mean([1.0, 2.0], ["a", "a"], seed=0)
    assert one.defined and one.ci is None and one.ci_reason


def test_block_boundaries_do_not_change_the_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory blocking must not bias anything: every resample draws exactly G clusters."""
    monkeypatch.setattr(stats_bootstrap, "_BLOCK_ELEMENTS", 70)
    rng = np.random.default_rng(0)
    total = 0
    for start, w in _resample_blocks(rng, 10, 25):
        assert (w.sum(axis=1) == 10).all()
        assert start == total
        total += len(w)
    assert total == 25


# --------------------------------------------------------------------------------------------------
# ICC(2,1)
# --------------------------------------------------------------------------------------------------

# Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges.
SHROUT_FLEISS = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    dtype=float,
)


def test_icc_2_1_shrout_fleiss_table_2() -> None:
    res = S.icc_2_1(SHROUT_FLEISS, n_boot=1000, seed=0)
    assert round(num(res.statistic), 2) == 0.29
    # their Table 3 mean squares: BMS 11.24, JMS 32.49, EMS 1.02
    assert res.ms_rows == pytest.approx(11.24, abs=0.005)
    assert res.ms_cols == pytest.approx(32.49, abs=0.005)
    assert res.ms_error == pytest.approx(1.02, abs=0.005)
    assert res.n == 6 and res.n_raters == 4 and res.df1 == 5 and res.df2 == 15
    assert inside(res)
    assert "targets" in res.method


def test_icc_2_1_cross_checked_with_statsmodels_anova() -> None:
    n, k = SHROUT_FLEISS.shape
    long = pd.DataFrame(
        {
            "y": SHROUT_FLEISS.ravel(),
            "target": np.repeat(np.arange(n), k),
            "judge": np.tile(np.arange(k), n),
        }
    )
    table = anova_lm(smf.ols("y ~ C(target) + C(judge)", data=long).fit(), typ=2)
    ms = table["sum_sq"] / table["df"]
    msr, msc, mse = ms["C(target)"], ms["C(judge)"], ms["Residual"]
    expected = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    res = S.icc_2_1(SHROUT_FLEISS, n_boot=0, seed=0)
    assert res.statistic == pytest.approx(expected)
    assert res.f == pytest.approx(table.loc["C(target)", "F"])
    assert res.pvalue == pytest.approx(table.loc["C(target)", "PR(>F)"])
    assert res.ci is None and res.ci_reason == "no bootstrap requested"


def test_icc_2_1_penalises_rater_offsets() -> None:
    base = np.array([[1.0], [3.0], [4.0], [8.0]]) @ np.ones((1, 3))
    exact = S.icc_2_1(base, n_boot=200, seed=0)
    assert exact.statistic == pytest.approx(1.0)
    assert exact.pvalue is None and exact.notes  # MSE = 0: no F-test, said so
    assert exact.ci == pytest.approx((1.0, 1.0))
    shifted = base + np.array([0.0, 2.0, 4.0])
    assert num(S.icc_2_1(shifted, n_boot=0, seed=0).statistic) < 0.9


def test_icc_2_1_bootstrap_is_seeded() -> None:
    a = S.icc_2_1(SHROUT_FLEISS, n_boot=500, seed=3)
    assert a == S.icc_2_1(SHROUT_FLEISS, n_boot=500, seed=3)
    assert a.ci != S.icc_2_1(SHROUT_FLEISS, n_boot=500, seed=4).ci


def test_icc_2_1_degenerate() -> None:
    assert_undefined(S.icc_2_1(np.full((4, 3), 2.0), seed=0))
    assert_undefined(S.icc_2_1(np.ones((1, 3)), seed=0))
    assert_undefined(S.icc_2_1(np.ones((3, 1)), seed=0))
    with_nan = SHROUT_FLEISS.copy()
    with_nan[0, 0] = np.nan
    assert_undefined(S.icc_2_1(with_nan, seed=0))


# --------------------------------------------------------------------------------------------------
# Kruskal-Wallis, CV
# --------------------------------------------------------------------------------------------------


def test_kruskal_by_hand() -> None:
    # ranks 1..6, R1 = 6, R2 = 15: H = 12/(6*7) * (36/3 + 225/3) - 3*7 = 27/7
    res = S.kruskal([[1, 2, 3], [4, 5, 6]])
    assert res.statistic == pytest.approx(27 / 7)
    assert res.pvalue == pytest.approx(chi2_1df_sf(27 / 7))
    assert res.n == 6 and res.n_groups == 2 and res.df == 1
    assert S.kruskal({"s1": [1, 2, 3], "s2": [4, 5, 6]}) == res


def test_kruskal_degenerate() -> None:
    assert_undefined(S.kruskal([[1, 2, 3]]))
    assert_undefined(S.kruskal([[1, 2], []]))
    assert_undefined(S.kruskal([[0.5, 0.5], [0.5, 0.5, 0.5]]))
    assert_undefined(S.kruskal([[1, float("nan")], [2, 3]]))


def test_coefficient_of_variation_by_hand() -> None:
    res = S.coefficient_of_variation([1, 2, 3])
    assert res.statistic == pytest.approx(50.0)  # SD 1 / mean 2 * 100
    assert res.mean == 2 and res.sd == pytest.approx(1.0)
    assert S.coefficient_of_variation([1, 2, 3], percent=False).statistic == pytest.approx(0.5)


def test_coefficient_of_variation_degenerate() -> None:
    assert_undefined(S.coefficient_of_variation([-1, 1]))
    assert_undefined(S.coefficient_of_variation([3.0]))
    assert_undefined(S.coefficient_of_variation([]))


# --------------------------------------------------------------------------------------------------
# Correlation, Brier, proportions
# --------------------------------------------------------------------------------------------------


def average_ranks(v: list[float]) -> list[float]:
    order = sorted(range(len(v)), key=lambda i: v[i])
    ranks = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def test_spearman_by_hand_without_ties() -> None:
    # d = 0, -1, 1, -1, 1 -> sum d^2 = 4 -> rho = 1 - 6*4/(5*(25-1)) = 0.8
    res = S.spearman([10, 20, 30, 40, 50], [1, 3, 2, 5, 4])
    assert res.statistic == pytest.approx(0.8)
    assert res.n == 5


def test_spearman_with_ties_is_pearson_of_average_ranks() -> None:
    x = [1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0]
    y = [2.0, 1.0, 4.0, 4.0, 3.0, 7.0, 6.0, 9.0]
    rx, ry = average_ranks(x), average_ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    rho = num / den
    res = S.spearman(x, y)
    assert res.statistic == pytest.approx(rho)
    t = rho * math.sqrt((len(x) - 2) / (1 - rho**2))
    assert res.pvalue is not None and res.pvalue < 0.05 and t > 2.4


def test_pearson_against_numpy() -> None:
    x = [1.0, 2.0, 3.0, 4.0, 6.0]
    y = [2.0, 1.0, 4.0, 3.0, 7.0]
    res = S.pearson(x, y)
    assert res.statistic == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert inside(res, strict=True)


def test_correlations_degenerate() -> None:
    assert_undefined(S.spearman([1, 1, 1, 1], [1, 2, 3, 4]))
    assert_undefined(S.spearman([1, 2], [2, 1]))
    assert_undefined(S.spearman([1, 2, float("nan")], [2, 1, 3]))
    assert_undefined(S.pearson([1, 2, 3], [5, 5, 5]))
    with pytest.raises(ValueError):
        S.spearman([1, 2, 3], [1, 2])


def test_brier_by_hand() -> None:
    res = S.brier([0.9, 0.2, 0.6], [1, 0, 0])
    assert res.statistic == pytest.approx((0.01 + 0.04 + 0.36) / 3)
    assert res.n == 3 and res.pvalue is None


def test_brier_degenerate_and_invalid() -> None:
    assert_undefined(S.brier([], []))
    assert_undefined(S.brier([0.5, float("nan")], [1, 0]))
    with pytest.raises(ValueError):
        S.brier([1.2], [1])
    with pytest.raises(ValueError):
        S.brier([0.2], [2])


def test_two_proportion_ztest_by_hand() -> None:
    res = S.two_proportion_ztest([10, 5], [20, 20])
    pooled = 15 / 40
    z = (0.5 - 0.25) / math.sqrt(pooled * (1 - pooled) * (1 / 20 + 1 / 20))
    assert res.statistic == pytest.approx(z)
    assert res.pvalue == pytest.approx(2 * normal_sf(z))
    assert res.diff == pytest.approx(0.25) and res.n == 40
    larger = S.two_proportion_ztest([10, 5], [20, 20], alternative="larger")
    assert larger.pvalue == pytest.approx(normal_sf(z))


def test_two_proportion_ztest_degenerate() -> None:
    assert_undefined(S.two_proportion_ztest([0, 0], [20, 30]))
    assert_undefined(S.two_proportion_ztest([20, 30], [20, 30]))
    assert_undefined(S.two_proportion_ztest([0, 3], [0, 30]))
    with pytest.raises(ValueError):
        S.two_proportion_ztest([5, 40], [20, 30])


# --------------------------------------------------------------------------------------------------
# Slopes
# --------------------------------------------------------------------------------------------------


def test_ols_slope_against_polyfit_and_classical_se() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=60)
    y = 2.0 + 3.0 * x + rng.normal(size=60)
    res = S.ols_slope(y, x)
    slope, intercept = np.polyfit(x, y, 1)
    assert res.statistic == pytest.approx(slope)
    assert res.intercept == pytest.approx(intercept)
    resid = y - (intercept + slope * x)
    se = math.sqrt((resid**2).sum() / (60 - 2) / ((x - x.mean()) ** 2).sum())
    assert res.se == pytest.approx(se)
    assert res.ci is not None and res.ci[0] < 3.0 < res.ci[1]


def test_ols_slope_cluster_robust_se_by_sandwich() -> None:
    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(25), 4)
    x = rng.normal(size=100) + rng.normal(size=25)[g]
    y = 1.0 + 0.5 * x + rng.normal(size=25)[g] + rng.normal(size=100)
    res = S.ols_slope(y, x, clusters=g)
    design = np.column_stack([np.ones(100), x])
    bread = np.linalg.inv(design.T @ design)
    beta = bread @ design.T @ y
    u = y - design @ beta
    meat = sum(
        np.outer(design[g == c].T @ u[g == c], design[g == c].T @ u[g == c]) for c in range(25)
    )
    n_obs, n_par, n_cl = 100, 2, 25
    cr1 = (n_cl / (n_cl - 1)) * ((n_obs - 1) / (n_obs - n_par))
    vcov = cr1 * bread @ meat @ bread
    assert res.se == pytest.approx(math.sqrt(vcov[1, 1]))
    assert res.n_groups == 25 and res.cov_type == "cluster"


def test_ols_slope_degenerate() -> None:
    assert_undefined(S.ols_slope([1, 2, 3], [4, 4, 4]))
    assert_undefined(S.ols_slope([1, 2], [1, 2]))
    assert_undefined(S.ols_slope([1, 2, 4, 5], [1, 2, 3, 4], clusters=["c"] * 4))
    assert_undefined(S.ols_slope([1, float("nan"), 4], [1, 2, 3]))
    perfect = S.ols_slope([1.0, 3.0, 5.0, 7.0], [0.0, 1.0, 2.0, 3.0])
    assert perfect.defined and perfect.statistic == pytest.approx(2.0)
    assert perfect.ci is None and perfect.ci_reason


def test_mixed_slope_recovers_known_slope() -> None:
    rng = np.random.default_rng(8)
    n_groups, per = 80, 6
    groups = np.repeat(np.arange(n_groups), per)
    x = rng.integers(1, 7, n_groups * per).astype(float)
    y = 0.5 - 0.08 * x + rng.normal(0, 0.4, n_groups)[groups] + rng.normal(0, 0.2, len(x))
    res = S.mixed_slope(y, x, groups)
    assert res.defined and res.converged is True
    assert res.n == len(x) and res.n_groups == n_groups
    assert res.ci is not None and res.ci[0] < -0.08 < res.ci[1]
    assert res.statistic == pytest.approx(-0.08, abs=3 * num(res.se))
    assert res.group_var == pytest.approx(0.16, rel=0.5)
    # independent: with x varying within groups, the within (fixed-effects) slope is close
    xd = x - pd.Series(x).groupby(groups).transform("mean").to_numpy()
    yd = y - pd.Series(y).groupby(groups).transform("mean").to_numpy()
    within = float((xd * yd).sum() / (xd**2).sum())
    assert res.statistic == pytest.approx(within, abs=0.01)


def test_mixed_slope_boundary_fit_is_reported_with_warning() -> None:
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(30), 5)
    x = rng.integers(1, 6, 150).astype(float)
    y = 0.1 * x + rng.normal(0, 0.5, 150)  # no group effect: variance estimate on the boundary
    res = S.mixed_slope(y, x, groups)
    assert res.defined and res.converged is not None
    assert res.group_var is not None and res.group_var < 1e-3
    assert all(isinstance(w, str) for w in res.warnings)


def test_mixed_slope_degenerate(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_undefined(S.mixed_slope([1, 2, 3, 4], [1, 2, 3, 4], ["g"] * 4))
    assert_undefined(S.mixed_slope([1, 2, 3, 4], [1, 1, 1, 1], [1, 1, 2, 2]))
    assert_undefined(S.mixed_slope([2, 2, 2, 2], [1, 2, 3, 4], [1, 1, 2, 2]))

    def boom(*args: object, **kwargs: object) -> None:
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(stats_regression.MixedLM, "fit", boom)
    res = S.mixed_slope([1, 3, 2, 5, 4, 6], [1, 2, 3, 4, 5, 6], [1, 1, 2, 2, 3, 3])
    assert_undefined(res)
    assert "Singular" in (res.reason or "")


def test_compare_estimates_matches_a_hand_wald_test() -> None:
    res = S.compare_estimates(0.05, 0.01, 0.01, 0.02, alternative="greater")
    z = 0.04 / math.sqrt(0.01**2 + 0.02**2)
    assert res.statistic == pytest.approx(z)
    assert res.pvalue == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)))
    half = 1.959963984540054 * math.sqrt(0.01**2 + 0.02**2)
    assert res.ci == pytest.approx((0.04 - half, 0.04 + half))
    two = S.compare_estimates(0.05, 0.01, 0.01, 0.02, alternative="two-sided")
    assert two.pvalue == pytest.approx(2 * res.pvalue)
    assert not S.compare_estimates(1.0, 0.0, 0.5, 0.0).defined
    assert not S.compare_estimates(float("nan"), 0.1, 0.5, 0.1).defined


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(0.0, 1.0),
            st.sampled_from([0.0, 1.0, 0.05, 0.05 / 2, 0.05 / 3, 0.01, 0.025]),
        ),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from([0.05, 0.01, 0.1]),
)
def test_holm_agrees_with_statsmodels(pvalues: list[float], alpha: float) -> None:
    """Our Holm (written out to avoid statsmodels' per-call gc.collect) is statsmodels' Holm."""
    from unittest import mock

    from statsmodels.stats.multitest import multipletests

    ours = S.adjust_pvalues(pvalues, method="holm", alpha=alpha)
    # statsmodels' Holm branch collects garbage on every call, which changes no value but costs a
    # full collection of the test process's heap per example
    with mock.patch("gc.collect", return_value=0):
        reject, adjusted, _, _ = multipletests(pvalues, alpha=alpha, method="holm")
    assert list(ours.reject) == [bool(r) for r in reject]
    assert ours.adjusted == pytest.approx([float(a) for a in adjusted], abs=1e-15)
