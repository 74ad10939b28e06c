"""Proportions: the Wilson interval, and the exact null of a rate whose rows have known chances.

``wilson_interval`` wraps statsmodels' ``proportion_confint(method="wilson")``. ``bernoulli_null``
is the null of a rate k/n when row i would be a hit with its own probability p_i under the null
(e.g. the share of a problem's wrong answers that happen to be fallacies): the count of hits is
then Poisson-binomial, whose exact distribution scipy provides (``scipy.stats.poisson_binom``), so
the band and the p-value need no simulation and no seed. The result carries the shared null
fields (``null_mean``, ``null_lo``, ``null_hi``, ``excess``, ``pvalue``) that
:func:`biaslab.stats.null_fields` reads.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy.stats import poisson_binom
from statsmodels.stats.proportion import proportion_confint

from biaslab.stats._inputs import _binary, _check_counts, _check_level, _floats, _same_length
from biaslab.stats.results import StatResult

Alternative = Literal["greater", "less", "two-sided"]


class ProportionResult(StatResult):
    """A proportion count / nobs with its confidence interval."""

    count: int
    nobs: int


class ExactNullResult(StatResult):
    """Observed rate (``statistic``) beside its exact null: ``null_mean`` and the central
    ``null_level`` band ``null_lo``/``null_hi`` of the null rate, ``excess`` = statistic −
    null_mean, ``pvalue`` in the ``alternative`` direction."""

    alternative: Alternative
    hits: int
    null_mean: float | None = None
    null_lo: float | None = None
    null_hi: float | None = None
    null_level: float | None = None
    excess: float | None = None


def wilson_interval(count: int, nobs: int, *, level: float = 0.95) -> ProportionResult:
    """count / nobs with the Wilson score interval (statsmodels ``proportion_confint``)."""
    _check_level(level)
    _check_counts(count=count, nobs=nobs)
    if count > nobs:
        raise ValueError("count cannot exceed nobs")
    method = "proportion with Wilson score interval"
    if nobs == 0:
        return ProportionResult(
            method=method, n=0, count=0, nobs=0, defined=False, reason="no observations"
        )
    lo, hi = proportion_confint(count, nobs, alpha=1.0 - level, method="wilson")
    return ProportionResult(
        method=method,
        n=int(nobs),
        count=int(count),
        nobs=int(nobs),
        statistic=count / nobs,
        ci=(float(lo), float(hi)),
        ci_level=level,
    )


def bernoulli_null(
    outcomes: npt.ArrayLike,
    probabilities: npt.ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "greater",
    name: str = "rate",
) -> ExactNullResult:
    """The rate of ``outcomes`` (0/1 per row) beside its exact null, under which row i is a hit
    with probability ``probabilities[i]`` independently of the others.

    ``null_lo``/``null_hi`` are the quantiles of the null rate at (1 − level)/2 and
    (1 + level)/2; the p-value is P(K ≥ k) for "greater", P(K ≤ k) for "less" and twice the
    smaller tail (at most 1) for "two-sided", with K the null count and k the observed one.
    """
    _check_level(level)
    if alternative not in ("greater", "less", "two-sided"):
        raise ValueError(f"alternative must be greater, less or two-sided, got {alternative!r}")
    hits_array = _binary(outcomes, "outcomes")
    p = _floats(probabilities)
    _same_length("outcomes", hits_array, "probabilities", p)
    if ((p < 0) | (p > 1) | ~np.isfinite(p)).any():
        raise ValueError("probabilities must lie in [0, 1]")
    n, k = len(p), int(hits_array.sum())
    method = f"exact Poisson-binomial null ({alternative})"
    common: dict[str, Any] = {
        "method": method,
        "n": n,
        "alternative": alternative,
        "hits": k,
        "null_level": level,
    }
    if n == 0:
        return ExactNullResult(**common, defined=False, reason=f"no rows for {name}")
    # tails and quantiles from the pmf: scipy's sf is 1 - cdf (0 far in the upper tail) and its
    # generic ppf cannot take more than 63 probabilities
    pmf = poisson_binom(p).pmf(np.arange(n + 1))
    upper = min(1.0, float(pmf[k:].sum()))  # P(K >= k)
    lower = min(1.0, float(pmf[: k + 1].sum()))  # P(K <= k)
    cdf = np.cumsum(pmf)
    tail = (1.0 - level) / 2.0
    lo, hi = (int(np.searchsorted(cdf, q * (1 - 1e-12), side="left")) for q in (tail, 1.0 - tail))
    pvalue = {"greater": upper, "less": lower, "two-sided": min(1.0, 2 * min(upper, lower))}
    observed, centre = k / n, float(p.mean())
    return ExactNullResult(
        **common,
        statistic=observed,
        pvalue=pvalue[alternative],
        null_mean=centre,
        null_lo=float(lo) / n,
        null_hi=float(hi) / n,
        excess=observed - centre,
    )
