"""Typed results: every statistic, p-value, CI and n travel together, and never as NaN."""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

# --------------------------------------------------------------------------------------------------
# Result models
# --------------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """Numpy scalars/tuples -> Python values, so pydantic validates and JSON stays plain."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | list) and not isinstance(value, str):
        return type(value)(_plain(v) for v in value)
    return value


def _is_bad_float(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


class _Frozen(BaseModel):
    """Immutable, no unknown keys: results are values that can be hashed, compared and dumped."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class StatResult(_Frozen):
    """Common shape of every estimate/test.

    ``defined=False`` means the data cannot support the statistic; ``reason`` then says why and
    ``statistic``, ``pvalue`` and ``ci`` are ``None``. ``pvalue`` is ``None`` for pure estimates.
    ``ci`` is ``None`` when the method has no interval; ``ci_reason`` explains a missing interval
    that the method would normally give (e.g. too many undefined bootstrap resamples).
    """

    method: str
    n: int
    statistic: float | None = None
    pvalue: float | None = None
    ci: tuple[float, float] | None = None
    ci_level: float | None = None
    ci_reason: str | None = None
    defined: bool = True
    reason: str | None = None
    notes: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _sanitise(cls, data: Any) -> Any:
        """Never let NaN/inf through as a number: null it; for statistic/p-value mark undefined."""
        if not isinstance(data, dict):
            return data
        out = {k: _plain(v) for k, v in data.items()}
        for key in ("statistic", "pvalue"):
            if _is_bad_float(out.get(key)):
                bad = out[key]
                out[key] = None
                if out.get("defined", True):
                    out["defined"] = False
                    out["reason"] = (
                        f"{key} is not finite ({bad}) as returned by {out.get('method')}"
                    )
        ci = out.get("ci")
        if ci is not None and any(_is_bad_float(v) for v in ci):
            out["ci"] = None
            out["ci_reason"] = out.get("ci_reason") or f"confidence interval not finite ({ci})"
        for key, value in out.items():
            if _is_bad_float(value):
                out[key] = None
        if out.get("defined", True) is False:
            out["statistic"] = None
            out["pvalue"] = None
            out["ci"] = None
        return out

    @model_validator(mode="after")
    def _check(self) -> StatResult:
        if self.defined and self.statistic is None:
            raise ValueError("a defined result needs a statistic")
        if not self.defined and not self.reason:
            raise ValueError("an undefined result needs a reason")
        return self


class PairedTable(_Frozen):
    """2×2 table of paired binary outcomes: a = both True, b = x only, c = y only, d = neither."""

    a: int
    b: int
    c: int
    d: int

    @property
    def n(self) -> int:
        """Number of pairs."""
        return self.a + self.b + self.c + self.d


class McNemarResult(StatResult):
    """McNemar test on the discordant counts; ``n`` is the number of pairs (b + c unless given)."""

    b: int
    c: int
    n_discordant: int
    alternative: Literal["two-sided", "greater", "less"]


class AdjustedPValues(_Frozen):
    """Multiplicity-adjusted p-values aligned with the input; ``None`` entries pass through."""

    method: str
    n: int
    alpha: float
    pvalues: tuple[float | None, ...]
    adjusted: tuple[float | None, ...]
    reject: tuple[bool | None, ...]
    defined: bool = True
    reason: str | None = None


class BootstrapResult(StatResult):
    """A point estimate with a seeded cluster-bootstrap percentile CI."""

    n_clusters: int
    n_boot: int
    n_boot_undefined: int = 0


class OddsRatioResult(BootstrapResult):
    """odds(correct | A) / odds(correct | B) with the 2×2 counts it came from."""

    correct_a: int
    wrong_a: int
    correct_b: int
    wrong_b: int
    haldane: bool


class MeanDiffResult(BootstrapResult):
    """mean(A) − mean(B), e.g. BiasGap = Acc(C1) − Acc(C2)."""

    mean_a: float | None
    mean_b: float | None
    n_a: int
    n_b: int


class ICCResult(StatResult):
    """ICC(2,1) with the two-way ANOVA mean squares; ``n`` is the number of targets (rows)."""

    n_raters: int
    ms_rows: float | None = None
    ms_cols: float | None = None
    ms_error: float | None = None
    f: float | None = None
    df1: int | None = None
    df2: int | None = None
    n_boot: int = 0
    n_boot_undefined: int = 0


class KruskalResult(StatResult):
    """Kruskal–Wallis H with its chi-square p-value; ``n`` is the total number of observations."""

    n_groups: int
    df: int | None = None


class CVResult(StatResult):
    """Coefficient of variation with the mean and SD it was computed from."""

    mean: float | None = None
    sd: float | None = None


class CorrelationResult(StatResult):
    """A correlation coefficient; ``n`` is the number of (x, y) pairs."""


class ExponentialFitResult(StatResult):
    """y = a·exp(b·x): ``statistic`` is the Pearson r of x and log y (with its p-value), ``a`` and
    ``b`` the least-squares curve, ``r2`` its coefficient of determination on the original scale."""

    a: float | None = None
    b: float | None = None
    r2: float | None = None


class ProportionTestResult(StatResult):
    """Two-sample z-test for proportions; ``statistic`` is z, ``diff`` = p1 − p2."""

    proportions: tuple[float, float] | None = None
    diff: float | None = None


class SlopeResult(StatResult):
    """Slope of y on x (``statistic``) from OLS or a random-intercept mixed model."""

    intercept: float | None = None
    se: float | None = None
    n_groups: int | None = None
    cov_type: str | None = None
    converged: bool | None = None
    group_var: float | None = None
    warnings: tuple[str, ...] = ()
