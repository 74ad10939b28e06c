"""Wilson intervals, the exact Poisson-binomial null and the exponential fit, against references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from biaslab.stats import (
    bernoulli_null,
    exponential_fit,
    null_fields,
    pearson,
    wilson_interval,
)


def wilson_by_formula(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson (1927): (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)."""
    z = sps.norm.ppf(0.5 + level / 2)
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def test_wilson_published_value_five_of_ten() -> None:
    result = wilson_interval(5, 10)
    assert result.statistic == 0.5 and result.n == 10
    assert result.ci == pytest.approx((0.2366, 0.7634), abs=1e-4)


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (7, 19), (40, 40), (383, 400)])
def test_wilson_matches_the_closed_form(k: int, n: int) -> None:
    result = wilson_interval(k, n, level=0.9)
    assert result.ci == pytest.approx(wilson_by_formula(k, n, 0.9), abs=1e-12)
    assert result.ci is not None and 0.0 <= result.ci[0] <= k / n <= result.ci[1] <= 1.0


def test_wilson_degenerate_and_invalid() -> None:
    empty = wilson_interval(0, 0)
    assert not empty.defined and empty.reason == "no observations" and empty.ci is None
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    with pytest.raises(ValueError):
        wilson_interval(-1, 2)


def test_bernoulli_null_with_equal_chances_is_the_binomial() -> None:
    outcomes = [1] * 7 + [0] * 13
    result = bernoulli_null(outcomes, [0.2] * 20)
    assert result.statistic == pytest.approx(0.35)
    assert result.null_mean == pytest.approx(0.2)
    assert result.excess == pytest.approx(0.15)
    assert result.pvalue == pytest.approx(sps.binom.sf(6, 20, 0.2))
    lo, hi = sps.binom.ppf([0.025, 0.975], 20, 0.2)
    assert (result.null_lo, result.null_hi) == (lo / 20, hi / 20)


def test_bernoulli_null_band_for_many_rows() -> None:
    # scipy's poisson_binom.ppf cannot take more than 63 probabilities; the band uses the cdf
    outcomes = [1] * 90 + [0] * 210
    result = bernoulli_null(outcomes, [0.25] * 300)
    lo, hi = sps.binom.ppf([0.025, 0.975], 300, 0.25)
    assert (result.null_lo, result.null_hi) == (lo / 300, hi / 300)
    assert result.pvalue == pytest.approx(sps.binom.sf(89, 300, 0.25))


def test_bernoulli_null_keeps_precision_far_in_the_tail() -> None:
    result = bernoulli_null([1] * 212, [0.2] * 212)  # every error a fallacy
    assert result.pvalue == pytest.approx(0.2**212, rel=1e-9)
    assert result.pvalue > 0


def test_bernoulli_null_by_hand_for_two_rows() -> None:
    # P(K=0)=0.4, P(K=1)=0.5, P(K=2)=0.1 for chances 0.2 and 0.5
    result = bernoulli_null([1, 1], [0.2, 0.5])
    assert result.pvalue == pytest.approx(0.1)
    assert bernoulli_null([1, 0], [0.2, 0.5]).pvalue == pytest.approx(0.6)
    assert bernoulli_null([0, 0], [0.2, 0.5], alternative="less").pvalue == pytest.approx(0.4)
    assert bernoulli_null([1, 0], [0.2, 0.5], alternative="two-sided").pvalue == pytest.approx(1.0)


def test_bernoulli_null_holds_its_level_for_a_chance_answerer() -> None:
    rng = np.random.default_rng(0)
    rejections = 0
    for _ in range(400):
        chances = rng.uniform(0.05, 0.6, size=60)
        outcomes = rng.random(60) < chances
        result = bernoulli_null(outcomes, chances)
        rejections += result.pvalue is not None and result.pvalue < 0.05
    assert rejections / 400 <= 0.06  # exact discrete test: at most the nominal rate


def test_bernoulli_null_feeds_the_shared_fields() -> None:
    fields = null_fields("fallacy_rate", bernoulli_null([1, 1, 0, 1], [0.1, 0.2, 0.3, 0.4]))
    assert fields["fallacy_rate"] == pytest.approx(0.75)
    assert fields["fallacy_rate_null"] == pytest.approx(0.25)
    assert fields["fallacy_rate_excess"] == pytest.approx(0.5)
    assert set(fields) == {
        "fallacy_rate",
        "fallacy_rate_null",
        "fallacy_rate_null_lo",
        "fallacy_rate_null_hi",
        "fallacy_rate_excess",
        "fallacy_rate_null_p",
    }
    assert null_fields("x", bernoulli_null([], []))["x_null"] is None


def test_bernoulli_null_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        bernoulli_null([1, 0], [0.5])
    with pytest.raises(ValueError):
        bernoulli_null([1, 0], [0.5, 1.5])
    with pytest.raises(ValueError):
        bernoulli_null([2, 0], [0.5, 0.5])


def test_exponential_fit_recovers_an_exact_curve() -> None:
    x = np.linspace(1000, 1400, 12)
    y = 0.05 * np.exp(0.004 * (x - 1000))
    result = exponential_fit(x, y)
    assert result.statistic == pytest.approx(1.0)
    assert result.a * math.exp(result.b * 1000) == pytest.approx(0.05, rel=1e-6)  # type: ignore[operator]
    assert result.b == pytest.approx(0.004, rel=1e-6)
    assert result.r2 == pytest.approx(1.0)


def test_exponential_fit_r_is_pearson_of_log_y() -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 10, 30)
    y = np.exp(0.2 * x + rng.normal(0, 0.5, 30))
    result = exponential_fit(x, y)
    reference = pearson(x, np.log(y))
    assert result.statistic == pytest.approx(reference.statistic)
    assert result.pvalue == pytest.approx(reference.pvalue)


def test_exponential_fit_leaves_out_non_positive_values_and_says_so() -> None:
    result = exponential_fit([1, 2, 3, 4, 5], [0.0, 0.2, 0.4, 0.9, 1.7])
    assert result.n == 4 and result.notes and "left out" in result.notes[0]
    assert not exponential_fit([1, 2], [0.1, 0.2]).defined
