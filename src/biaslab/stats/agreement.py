"""Agreement across seeds: ICC(2,1), Kruskal-Wallis, coefficient of variation."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats as sps

from biaslab.stats._inputs import Seed, _check_level, _floats, _nonfinite_reason, _rng
from biaslab.stats.bootstrap import _BLOCK_ELEMENTS, _percentile_ci
from biaslab.stats.results import CVResult, ICCResult, KruskalResult

# --------------------------------------------------------------------------------------------------
# Reliability across seeds
# --------------------------------------------------------------------------------------------------


def _icc_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ICC(2,1), MS_rows, MS_cols, MS_error) for a (..., n, k) stack of complete matrices."""
    n, k = x.shape[-2], x.shape[-1]
    grand = x.mean(axis=(-2, -1), keepdims=True)
    row_means = x.mean(axis=-1, keepdims=True)
    col_means = x.mean(axis=-2, keepdims=True)
    ss_rows = k * ((row_means - grand) ** 2).sum(axis=(-2, -1))
    ss_cols = n * ((col_means - grand) ** 2).sum(axis=(-2, -1))
    ss_error = ((x - row_means - col_means + grand) ** 2).sum(axis=(-2, -1))
    ms_r = ss_rows / (n - 1)
    ms_c = ss_cols / (k - 1)
    ms_e = ss_error / ((n - 1) * (k - 1))
    denom = ms_r + (k - 1) * ms_e + k * (ms_c - ms_e) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        icc = np.where(denom > 0, (ms_r - ms_e) / denom, np.nan)
    return icc, ms_r, ms_c, ms_e


def icc_2_1(
    matrix: npt.ArrayLike,
    *,
    n_boot: int = 1_000,
    seed: Seed,
    ci: float = 0.95,
) -> ICCResult:
    """ICC(2,1): two-way random effects, absolute agreement, single measure (Shrout & Fleiss 1979).

    ``matrix`` is targets × raters (in the seed-stability analysis: model-condition cells × seeds).
    ICC = (MSR − MSE) / (MSR + (k−1)·MSE + k·(MSC − MSE)/n) from the two-way ANOVA mean squares.
    ``pvalue`` is the F-test of ICC = 0 (F = MSR/MSE on (n−1, (n−1)(k−1)) df). The CI is a
    percentile bootstrap over *targets* (rows resampled with replacement, raters kept), as in the
    confirmation-bias paper's 1,000-resample CI; it is withheld (``ci_reason``) if more than 5 % of
    resamples are degenerate (all-identical ratings). A complete matrix is required.
    """
    _check_level(ci, n_boot)
    x = np.asarray(matrix, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"matrix must be 2-D (targets × raters), got shape {x.shape}")
    n, k = x.shape
    method = "ICC(2,1) two-way random, absolute agreement, single measure"
    method += f"; bootstrap over targets ({n_boot} resamples)" if n_boot else ""
    common: dict[str, Any] = {"method": method, "n": n, "n_raters": k, "n_boot": n_boot}
    if n < 2 or k < 2:
        return ICCResult(
            **common, defined=False, reason=f"need ≥2 targets and ≥2 raters, got {n}×{k}"
        )
    if (bad := _nonfinite_reason(x, "matrix")) is not None:
        return ICCResult(**common, defined=False, reason=bad + "; ICC(2,1) needs complete ratings")
    icc, ms_r, ms_c, ms_e = (float(v) for v in _icc_parts(x))
    parts: dict[str, Any] = {"ms_rows": ms_r, "ms_cols": ms_c, "ms_error": ms_e}
    if not math.isfinite(icc):
        return ICCResult(
            **common, **parts, defined=False, reason="all ratings identical (zero variance)"
        )
    df1, df2 = n - 1, (n - 1) * (k - 1)
    f = ms_r / ms_e if ms_e > 0 else None
    p = float(sps.f.sf(f, df1, df2)) if f is not None else None
    notes = () if f is not None else ("MSE = 0 (perfectly additive ratings): no F-test",)
    out: dict[str, Any] = {
        **common,
        **parts,
        "statistic": icc,
        "pvalue": p,
        "f": f,
        "df1": df1,
        "df2": df2,
        "ci_level": ci,
        "notes": notes,
    }
    if n_boot == 0:
        return ICCResult(**out, ci_reason="no bootstrap requested")
    rng = _rng(seed)
    draws = np.empty(n_boot, dtype=np.float64)
    block = max(1, _BLOCK_ELEMENTS // (n * k))
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        rows = rng.integers(0, n, size=(size, n))
        draws[start : start + size] = _icc_parts(x[rows])[0]
    interval, n_undef, ci_reason = _percentile_ci(draws, ci, 0.05)
    return ICCResult(**out, ci=interval, ci_reason=ci_reason, n_boot_undefined=n_undef)


def kruskal(groups: Sequence[npt.ArrayLike] | Mapping[Any, npt.ArrayLike]) -> KruskalResult:
    """Kruskal–Wallis H test (scipy): do the groups (e.g. seeds) share one distribution?"""
    arrays = [_floats(g) for g in (groups.values() if isinstance(groups, Mapping) else groups)]
    n = int(sum(len(a) for a in arrays))
    common: dict[str, Any] = {"method": "Kruskal-Wallis H", "n": n, "n_groups": len(arrays)}
    if len(arrays) < 2:
        return KruskalResult(**common, defined=False, reason="need at least two groups")
    if any(len(a) == 0 for a in arrays):
        return KruskalResult(**common, defined=False, reason="a group is empty")
    pooled = np.concatenate(arrays)
    if (bad := _nonfinite_reason(pooled, "groups")) is not None:
        return KruskalResult(**common, defined=False, reason=bad)
    if np.all(pooled == pooled[0]):
        return KruskalResult(
            **common, defined=False, reason="all values identical (no ranks to compare)"
        )
    res = sps.kruskal(*arrays)
    return KruskalResult(
        **common, statistic=float(res.statistic), pvalue=float(res.pvalue), df=len(arrays) - 1
    )


def coefficient_of_variation(
    values: npt.ArrayLike, *, ddof: int = 1, percent: bool = True
) -> CVResult:
    """CV = SD / |mean| (× 100 when ``percent``, as the seed-stability table reports it).

    Undefined when the mean is 0 (the ratio explodes) or there are too few values for the SD.
    """
    v = _floats(values)
    method = f"coefficient of variation (SD ddof={ddof} / |mean|{' x 100' if percent else ''})"
    common: dict[str, Any] = {"method": method, "n": len(v)}
    if len(v) <= ddof:
        return CVResult(**common, defined=False, reason=f"need more than {ddof} value(s)")
    if (bad := _nonfinite_reason(v, "values")) is not None:
        return CVResult(**common, defined=False, reason=bad)
    mean, sd = float(v.mean()), float(v.std(ddof=ddof))
    if mean == 0.0:
        return CVResult(**common, mean=mean, sd=sd, defined=False, reason="mean is 0")
    cv = sd / abs(mean) * (100.0 if percent else 1.0)
    return CVResult(**common, statistic=cv, mean=mean, sd=sd)
