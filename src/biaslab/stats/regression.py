"""Slopes: OLS with classical or cluster-robust SE, and random-intercept mixed models (statsmodels)."""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy import stats as sps
from statsmodels.regression.linear_model import OLS
from statsmodels.regression.mixed_linear_model import MixedLM

from biaslab.stats._inputs import (
    _check_level,
    _cluster_codes,
    _floats,
    _nonfinite_reason,
    _same_length,
)
from biaslab.stats.results import SlopeResult, StatResult

_MAX_WARNINGS = 10


# --------------------------------------------------------------------------------------------------
# Slopes
# --------------------------------------------------------------------------------------------------


def _slope_inputs(y: npt.ArrayLike, x: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, str | None]:
    ya, xa = _floats(y), _floats(x)
    _same_length("y", ya, "x", xa)
    if len(ya) < 3:
        return ya, xa, f"need at least 3 observations, got {len(ya)}"
    for arr, name in ((ya, "y"), (xa, "x")):
        if (bad := _nonfinite_reason(arr, name)) is not None:
            return ya, xa, bad
    if np.all(xa == xa[0]):
        return ya, xa, "x is constant: slope not identified"
    return ya, xa, None


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def ols_slope(
    y: npt.ArrayLike,
    x: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    ci: float = 0.95,
) -> SlopeResult:
    """OLS slope of y on x (statsmodels), with cluster-robust SE when ``clusters`` is given.

    Cluster-robust inference uses statsmodels' small-sample correction and t(G − 1) reference, the
    usual choice when the number of clusters G is modest; a single cluster makes it undefined.
    """
    _check_level(ci)
    ya, xa, why = _slope_inputs(y, x)
    codes: np.ndarray | None = None
    g: int | None = None
    if clusters is not None:
        codes, g = _cluster_codes(clusters, "clusters")
        _same_length("y", ya, "clusters", codes)
    cov_type = "cluster" if clusters is not None else "nonrobust"
    common: dict[str, Any] = {
        "method": f"OLS slope ({'cluster-robust' if clusters is not None else 'classical'} SE)",
        "n": len(ya),
        "n_groups": g,
        "cov_type": cov_type,
        "ci_level": ci,
    }
    if why is None and g is not None and g < 2:
        why = "only one cluster: cluster-robust SE undefined"
    if why is not None:
        return SlopeResult(**common, defined=False, reason=why)
    design = np.column_stack([np.ones_like(xa), xa])
    model = OLS(ya, design)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if codes is not None:
            res = model.fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
        else:
            res = model.fit()
        bse = float(res.bse[1])
        pval = float(res.pvalues[1])
        lo, hi = (float(v) for v in res.conf_int(alpha=1.0 - ci)[1])
    slope = float(res.params[1])
    notes: tuple[str, ...] = ()
    if g is not None and g < 10:
        notes = (f"only {g} clusters: cluster-robust SE is unreliable",)
    # An exact linear fit leaves only rounding noise as residuals: its SE/p-value would be spurious.
    perfect = float(res.ssr) <= 1e-20 * float(res.centered_tss)
    if perfect or not (math.isfinite(bse) and bse > 0):
        return SlopeResult(
            **common,
            statistic=slope,
            intercept=float(res.params[0]),
            ci_reason="residual variance is 0 (perfect linear fit): no standard error"
            if perfect
            else "standard error is 0 or not finite",
            notes=notes,
        )
    return SlopeResult(
        **common,
        statistic=slope,
        pvalue=pval,
        ci=(lo, hi),
        intercept=float(res.params[0]),
        se=bse,
        notes=notes,
    )


def mixed_slope(
    y: npt.ArrayLike,
    x: npt.ArrayLike,
    groups: npt.ArrayLike,
    *,
    ci: float = 0.95,
    reml: bool = True,
) -> SlopeResult:
    """Fixed slope of y on x with a random intercept per group (statsmodels MixedLM), e.g. per hop.

    The random intercept absorbs each conversation's baseline. Fits that do not converge are still
    reported, with ``converged=False`` and the warnings statsmodels raised (deduplicated); a
    random-intercept variance on the boundary (0) is reported as converged with its warning. Linear
    algebra failures or a non-finite slope make the result undefined. ``n_groups`` is the number of
    groups; ``group_var`` the random-intercept variance.
    """
    _check_level(ci)
    ya, xa, why = _slope_inputs(y, x)
    codes, g = _cluster_codes(groups, "groups")
    _same_length("y", ya, "groups", codes)
    common: dict[str, Any] = {
        "method": f"MixedLM random intercept per group ({'REML' if reml else 'ML'})",
        "n": len(ya),
        "n_groups": g,
        "cov_type": "model",
        "ci_level": ci,
    }
    if why is None and g < 2:
        why = "only one group: random intercept not identified"
    if why is None and np.all(ya == ya[0]):
        why = "y is constant: no variance to model"
    if why is not None:
        return SlopeResult(**common, defined=False, reason=why)
    design = np.column_stack([np.ones_like(xa), xa])
    caught: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            res = MixedLM(ya, design, groups=codes).fit(reml=reml)
            slope = float(res.fe_params[1])
            intercept = float(res.fe_params[0])
            bse = float(res.bse_fe[1])
            pval = float(res.pvalues[1])
            lo, hi = (float(v) for v in np.asarray(res.conf_int(alpha=1.0 - ci))[1])
            group_var = float(np.asarray(res.cov_re).ravel()[0])
            converged = bool(res.converged)
        for w in record:  # numpy RuntimeWarnings are noise; keep statsmodels' own, once each
            msg = f"{w.category.__name__}: {w.message}"
            if not issubclass(w.category, RuntimeWarning) and msg not in caught:
                caught.append(msg)
    except (np.linalg.LinAlgError, ValueError, ZeroDivisionError) as exc:
        return SlopeResult(
            **common, defined=False, reason=f"fit failed: {type(exc).__name__}: {exc}"
        )
    if not math.isfinite(slope):
        return SlopeResult(
            **common,
            defined=False,
            reason="fit returned a non-finite slope",
            converged=converged,
            warnings=tuple(caught[:_MAX_WARNINGS]),
        )
    fields: dict[str, Any] = {
        **common,
        "statistic": slope,
        "intercept": _finite_or_none(intercept),
        "converged": converged,
        "group_var": _finite_or_none(group_var),
        "warnings": tuple(caught[:_MAX_WARNINGS]),
    }
    if not (math.isfinite(bse) and bse > 0):
        return SlopeResult(
            **fields, se=None, ci_reason="standard error not finite (singular Hessian)"
        )
    return SlopeResult(**fields, se=bse, pvalue=pval, ci=(lo, hi))


def compare_estimates(
    a: float,
    se_a: float,
    b: float,
    se_b: float,
    *,
    alternative: Literal["two-sided", "greater", "less"] = "greater",
) -> StatResult:
    """Wald z-test of a − b for two independent estimates with standard errors (e.g. a model's
    Martingale score against its judge's baseline on other data): z = (a − b)/√(se_a² + se_b²)."""
    common: dict[str, Any] = {"method": f"Wald z-test of a difference ({alternative})", "n": 2}
    values = (a, se_a, b, se_b)
    if not all(math.isfinite(v) for v in values) or se_a < 0 or se_b < 0:
        return StatResult(**common, defined=False, reason="an estimate or SE is not finite")
    se = math.sqrt(se_a**2 + se_b**2)
    if se == 0:
        return StatResult(**common, defined=False, reason="both standard errors are 0")
    z = (a - b) / se
    if alternative == "greater":
        p = float(sps.norm.sf(z))
    elif alternative == "less":
        p = float(sps.norm.cdf(z))
    else:
        p = float(2 * sps.norm.sf(abs(z)))
    half = float(sps.norm.ppf(0.975)) * se
    low, high = a - b - half, a - b + half
    return StatResult(**common, statistic=z, pvalue=p, ci=(low, high), ci_level=0.95)
