"""Correlation, calibration and proportions (scipy, statsmodels)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy import stats as sps
from statsmodels.stats.proportion import proportions_ztest

from biaslab.stats._inputs import (
    _binary,
    _check_counts,
    _check_level,
    _floats,
    _nonfinite_reason,
    _same_length,
)
from biaslab.stats.results import (
    CorrelationResult,
    ExponentialFitResult,
    ProportionTestResult,
    StatResult,
)

# --------------------------------------------------------------------------------------------------
# Correlation, calibration, proportions
# --------------------------------------------------------------------------------------------------


def _pair_check(
    x: npt.ArrayLike, y: npt.ArrayLike, min_n: int
) -> tuple[np.ndarray, np.ndarray, str | None]:
    xa, ya = _floats(x), _floats(y)
    _same_length("x", xa, "y", ya)
    if len(xa) < min_n:
        return xa, ya, f"need at least {min_n} pairs, got {len(xa)}"
    for arr, name in ((xa, "x"), (ya, "y")):
        if (bad := _nonfinite_reason(arr, name)) is not None:
            return xa, ya, bad
    for arr, name in ((xa, "x"), (ya, "y")):
        if np.all(arr == arr[0]):
            return xa, ya, f"{name} is constant: correlation undefined"
    return xa, ya, None


def spearman(x: npt.ArrayLike, y: npt.ArrayLike) -> CorrelationResult:
    """Spearman rank correlation (scipy ``spearmanr``), two-sided t-approximation p-value."""
    xa, ya, why = _pair_check(x, y, 3)
    if why is not None:
        return CorrelationResult(method="Spearman rho", n=len(xa), defined=False, reason=why)
    res = sps.spearmanr(xa, ya)
    return CorrelationResult(
        method="Spearman rho", n=len(xa), statistic=float(res.statistic), pvalue=float(res.pvalue)
    )


def pearson(x: npt.ArrayLike, y: npt.ArrayLike, *, ci: float = 0.95) -> CorrelationResult:
    """Pearson correlation (scipy ``pearsonr``) with its Fisher-z CI (needs ≥ 4 pairs)."""
    _check_level(ci)
    xa, ya, why = _pair_check(x, y, 3)
    if why is not None:
        return CorrelationResult(method="Pearson r", n=len(xa), defined=False, reason=why)
    res = sps.pearsonr(xa, ya)
    interval: tuple[float, float] | None = None
    ci_reason = None
    if len(xa) >= 4:
        lo_hi = res.confidence_interval(confidence_level=ci)
        interval = (float(lo_hi.low), float(lo_hi.high))
    else:
        ci_reason = "Fisher-z CI needs at least 4 pairs"
    return CorrelationResult(
        method="Pearson r",
        n=len(xa),
        statistic=float(res.statistic),
        pvalue=float(res.pvalue),
        ci=interval,
        ci_level=ci,
        ci_reason=ci_reason,
    )


def exponential_fit(x: npt.ArrayLike, y: npt.ArrayLike) -> ExponentialFitResult:
    """y = a·exp(b·x) by non-linear least squares (scipy ``curve_fit``, started from the
    log-linear fit), with the Pearson correlation of x and log y as the statistic and its p-value
    (a straight line on a log y-axis, as capability-trend plots draw it). Rows with y ≤ 0 have no
    logarithm and are left out (counted in the notes)."""
    from scipy.optimize import curve_fit

    xa, ya = _floats(x), _floats(y)
    _same_length("x", xa, "y", ya)
    keep = ya > 0
    dropped = int((~keep).sum())
    notes = (f"{dropped} row(s) with y <= 0 left out of the log fit",) if dropped else ()
    xk, yk = xa[keep], ya[keep]
    method = "exponential fit y = a*exp(b*x); r = Pearson(x, log y)"
    common: dict[str, Any] = {"method": method, "n": len(xk), "notes": notes}
    xa_, log_y, why = _pair_check(xk, np.log(yk) if len(yk) else yk, 3)
    if why is not None:
        return ExponentialFitResult(**common, defined=False, reason=why)
    res = sps.pearsonr(xa_, log_y)
    slope, intercept = np.polyfit(xa_, log_y, 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (a, b), _ = curve_fit(
                lambda t, a, b: a * np.exp(b * t),
                xa_,
                yk,
                p0=(float(np.exp(intercept)), float(slope)),
                maxfev=10_000,
            )
        fitted = a * np.exp(b * xa_)
        ss_res = float(((yk - fitted) ** 2).sum())
        ss_tot = float(((yk - yk.mean()) ** 2).sum())
        r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else None
    except (RuntimeError, ValueError) as exc:
        return ExponentialFitResult(
            **common,
            statistic=float(res.statistic),
            pvalue=float(res.pvalue),
            notes=(*notes, f"curve_fit failed: {exc}"),
        )
    return ExponentialFitResult(
        **common,
        statistic=float(res.statistic),
        pvalue=float(res.pvalue),
        a=float(a),
        b=float(b),
        r2=r2,
    )


def brier(probs: npt.ArrayLike, outcomes: npt.ArrayLike) -> StatResult:
    """Brier score mean((p − o)²) of probabilities for binary outcomes (lower is better)."""
    p = _floats(probs)
    o = _binary(outcomes, "outcomes").astype(float)
    _same_length("probs", p, "outcomes", o)
    if len(p) == 0:
        return StatResult(method="Brier score", n=0, defined=False, reason="no forecasts")
    if (bad := _nonfinite_reason(p, "probs")) is not None:
        return StatResult(method="Brier score", n=len(p), defined=False, reason=bad)
    if ((p < 0) | (p > 1)).any():
        raise ValueError("probs must lie in [0, 1]")
    return StatResult(method="Brier score", n=len(p), statistic=float(np.mean((p - o) ** 2)))


def two_proportion_ztest(
    count: Sequence[int],
    nobs: Sequence[int],
    *,
    alternative: Literal["two-sided", "larger", "smaller"] = "two-sided",
) -> ProportionTestResult:
    """Pooled two-sample z-test for p1 = p2 (statsmodels ``proportions_ztest``), for unpaired arms.

    ``alternative`` uses statsmodels' names: "larger" means p1 > p2. ``n`` is nobs[0] + nobs[1].
    """
    if len(count) != 2 or len(nobs) != 2:
        raise ValueError("count and nobs must each have exactly two entries")
    _check_counts(count_1=count[0], count_2=count[1], nobs_1=nobs[0], nobs_2=nobs[1])
    k1, k2, n1, n2 = int(count[0]), int(count[1]), int(nobs[0]), int(nobs[1])
    if k1 > n1 or k2 > n2:
        raise ValueError("count cannot exceed nobs")
    common: dict[str, Any] = {"method": "two-proportion z-test (pooled)", "n": n1 + n2}
    if n1 == 0 or n2 == 0:
        return ProportionTestResult(**common, defined=False, reason="a group has no observations")
    p1, p2 = k1 / n1, k2 / n2
    common.update(proportions=(p1, p2), diff=p1 - p2)
    if k1 + k2 in (0, n1 + n2):
        return ProportionTestResult(
            **common,
            defined=False,
            reason="pooled proportion is 0 or 1: standard error is 0",
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        z, p = proportions_ztest([k1, k2], [n1, n2], alternative=alternative)
    return ProportionTestResult(**common, statistic=float(z), pvalue=float(p))
