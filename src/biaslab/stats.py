"""The one statistics module: thin wrappers over scipy/statsmodels plus seeded cluster bootstraps.

Every function returns a small frozen pydantic result (so it serialises to JSON with ``model_dump``)
carrying the statistic, p-value, confidence interval where the method has one, ``n`` and the method
name. Degenerate but valid data (an empty cell, zero discordant pairs, a constant column, a single
cluster, a singular fit) never raises and never yields NaN: the result has ``defined=False``, a
``reason`` and ``statistic``/``pvalue``/``ci`` set to ``None``. As a last line of defence the result
models themselves turn any non-finite number a library returns into ``None`` (and, for the statistic
or p-value, into ``defined=False``). Malformed input — mismatched lengths, negative counts, outcomes
that are not 0/1, probabilities outside [0, 1] — is a programming error and raises ``ValueError``.

Conventions
-----------
* Paired binary outcomes ``x``, ``y`` form the table ``[[a, b], [c, d]]`` with rows = x (True first)
  and columns = y (True first): ``b`` = x True & y False, ``c`` = x False & y True (the token-bias
  paper's n12 and n21 when "1" means correct).
* Bootstraps resample whole clusters (conversations) with replacement, fully vectorised: a
  resample × cluster count matrix times per-cluster sufficient statistics. Only blocks of thousands
  of resamples are looped over, to bound memory. CIs are percentile intervals over the resamples on
  which the statistic is defined; the number of undefined resamples is always reported.
* ``seed`` is an ``int`` or a ``numpy.random.SeedSequence`` (e.g. from :mod:`biaslab.seeding`):
  the same seed gives the same CI bit for bit.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
import statsmodels.api as sm
from pydantic import BaseModel, ConfigDict, model_validator
from scipy import stats as sps
from statsmodels.regression.mixed_linear_model import MixedLM
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportions_ztest

__all__ = [
    "AdjustedPValues",
    "BootstrapResult",
    "CVResult",
    "CorrelationResult",
    "ICCResult",
    "KruskalResult",
    "McNemarResult",
    "MeanDiffResult",
    "OddsRatioResult",
    "PairedTable",
    "ProportionTestResult",
    "Seed",
    "SlopeResult",
    "StatResult",
    "adjust_pvalues",
    "bootstrap_mean",
    "bootstrap_mean_diff",
    "brier",
    "coefficient_of_variation",
    "icc_2_1",
    "kruskal",
    "mcnemar",
    "mcnemar_one_sided",
    "mcnemar_paired",
    "mixed_slope",
    "odds_ratio",
    "ols_slope",
    "paired_table",
    "pearson",
    "spearman",
    "two_proportion_ztest",
]

Seed = int | np.random.SeedSequence
"""Bootstrap seeds; a Generator is refused because it would make results depend on call order."""

# Upper bound on resample-matrix elements held at once (~32 MB as float64); bounds memory only.
_BLOCK_ELEMENTS = 4_000_000
_MAX_WARNINGS = 10


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


# --------------------------------------------------------------------------------------------------
# Input helpers
# --------------------------------------------------------------------------------------------------


def _floats(x: npt.ArrayLike) -> np.ndarray:
    return np.asarray(x, dtype=float).ravel()


def _binary(x: npt.ArrayLike, name: str) -> np.ndarray:
    """0/1 or bool array -> bool array; anything else (incl. NaN) is malformed input."""
    arr = np.asarray(x)
    if arr.dtype == bool:
        return arr.ravel()
    arr = np.asarray(arr, dtype=float).ravel()
    if arr.size and not np.isin(arr, (0.0, 1.0)).all():
        raise ValueError(f"{name} must contain only booleans or 0/1 values")
    return arr.astype(bool)


def _same_length(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} differ in length ({len(a)} vs {len(b)})")


def _nonfinite_reason(arr: np.ndarray, name: str) -> str | None:
    bad = int((~np.isfinite(arr)).sum())
    return f"{name} contains {bad} non-finite value(s) (NaN/inf)" if bad else None


def _check_counts(**counts: int) -> None:
    for name, value in counts.items():
        if int(value) != value or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def _check_level(ci: float, n_boot: int = 0) -> None:
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be in (0, 1), got {ci}")
    if n_boot < 0:
        raise ValueError(f"n_boot must be >= 0, got {n_boot}")


def _cluster_codes(clusters: npt.ArrayLike, name: str) -> tuple[np.ndarray, int]:
    """Arbitrary hashable cluster ids -> dense integer codes 0..G-1 and G."""
    codes, uniques = pd.factorize(pd.Series(np.asarray(clusters, dtype=object).ravel()))
    if (codes < 0).any():
        raise ValueError(f"{name} contains missing cluster ids")
    return codes.astype(np.intp), len(uniques)


def _rng(seed: Seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        raise TypeError(
            "pass an int or SeedSequence seed, not a Generator, so results are reproducible"
        )
    return np.random.default_rng(seed)


# --------------------------------------------------------------------------------------------------
# Vectorised cluster bootstrap engine
# --------------------------------------------------------------------------------------------------


def _resample_blocks(
    rng: np.random.Generator, n_clusters: int, n_boot: int
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (start, W) with W[r, g] = how often cluster g is drawn in resample start + r."""
    block = max(1, _BLOCK_ELEMENTS // max(n_clusters, 1))
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        idx = rng.integers(0, n_clusters, size=(size, n_clusters))
        idx += np.arange(size)[:, None] * n_clusters
        counts = np.bincount(idx.ravel(), minlength=size * n_clusters)
        yield start, counts.reshape(size, n_clusters).astype(np.float64)


def _boot_sums(per_cluster: np.ndarray, n_boot: int, seed: Seed) -> np.ndarray:
    """Resampled column sums of a (clusters × m) matrix of per-cluster sufficient statistics."""
    n_clusters, m = per_cluster.shape
    out = np.empty((n_boot, m), dtype=np.float64)
    for start, weights in _resample_blocks(_rng(seed), n_clusters, n_boot):
        out[start : start + len(weights)] = weights @ per_cluster
    return out


def _percentile_ci(
    draws: np.ndarray, level: float, max_undefined_frac: float
) -> tuple[tuple[float, float] | None, int, str | None]:
    """Percentile CI over the finite draws; (ci, n_undefined, reason-if-no-ci)."""
    finite = draws[np.isfinite(draws)]
    n_undefined = int(draws.size - finite.size)
    if finite.size == 0:
        return None, n_undefined, "the statistic is undefined in every bootstrap resample"
    if n_undefined > max_undefined_frac * draws.size:
        return (
            None,
            n_undefined,
            f"{n_undefined} of {draws.size} bootstrap resamples undefined "
            f"(> {max_undefined_frac:.0%}); a CI over the rest would be biased",
        )
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(finite, [alpha, 1.0 - alpha])
    return (float(lo), float(hi)), n_undefined, None


# --------------------------------------------------------------------------------------------------
# McNemar and multiplicity
# --------------------------------------------------------------------------------------------------


def paired_table(x: npt.ArrayLike, y: npt.ArrayLike) -> PairedTable:
    """Build the paired 2×2 table from two aligned boolean arrays (one entry per pair)."""
    xa, ya = _binary(x, "x"), _binary(y, "y")
    _same_length("x", xa, "y", ya)
    return PairedTable(
        a=int((xa & ya).sum()),
        b=int((xa & ~ya).sum()),
        c=int((~xa & ya).sum()),
        d=int((~xa & ~ya).sum()),
    )


def mcnemar(
    b: int,
    c: int,
    *,
    method: Literal["exact", "chi2"] = "exact",
    correction: bool = True,
    n_pairs: int | None = None,
) -> McNemarResult:
    """Two-sided McNemar test (statsmodels) from the discordant counts b and c.

    ``method="exact"`` is the binomial test (statistic = min(b, c)); ``"chi2"`` is the chi-square
    statistic, with the continuity correction (|b − c| − 1)²/(b + c) when ``correction`` (the
    confirmation-bias paper's choice). Only discordant pairs inform the test; pass ``n_pairs`` to
    record the total number of pairs as ``n``.
    """
    _check_counts(b=b, c=c)
    if method not in ("exact", "chi2"):
        raise ValueError(f"method must be 'exact' or 'chi2', got {method!r}")
    b, c = int(b), int(c)
    n = int(n_pairs) if n_pairs is not None else b + c
    name = (
        "McNemar exact binomial"
        if method == "exact"
        else ("McNemar chi2" + (" with continuity correction" if correction else ""))
    )
    common: dict[str, Any] = {
        "method": name,
        "n": n,
        "b": b,
        "c": c,
        "n_discordant": b + c,
        "alternative": "two-sided",
    }
    if b + c == 0:
        return McNemarResult(**common, defined=False, reason="zero discordant pairs (b + c = 0)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = sm_mcnemar([[0, b], [c, 0]], exact=method == "exact", correction=correction)
    return McNemarResult(**common, statistic=float(res.statistic), pvalue=float(res.pvalue))


def mcnemar_paired(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    method: Literal["exact", "chi2"] = "exact",
    correction: bool = True,
) -> McNemarResult:
    """Two-sided McNemar test straight from paired boolean arrays; ``n`` = number of pairs."""
    table = paired_table(x, y)
    return mcnemar(table.b, table.c, method=method, correction=correction, n_pairs=table.n)


def mcnemar_one_sided(
    b: int,
    c: int,
    *,
    alternative: Literal["greater", "less"] = "greater",
    exact_max: int = 10,
    n_pairs: int | None = None,
) -> McNemarResult:
    """One-sided McNemar test as in the token-bias paper (Jiang et al., 2024).

    With n* = b + c discordant pairs: exact binomial test (scipy ``binomtest``, b ~ Bin(n*, ½)) when
    n* ≤ ``exact_max`` (10), otherwise the standardised statistic z = (b − c)/√(b + c) against the
    standard normal (no continuity correction). ``alternative="greater"`` tests H1: π12 > π21, i.e.
    b (x True, y False) is more likely than c — with x = original correct and y = perturbed correct,
    the perturbation hurts. ``"less"`` tests π12 < π21. ``statistic`` is b for the exact test and z
    for the normal approximation; ``method`` says which was used.
    """
    _check_counts(b=b, c=c, exact_max=exact_max)
    if alternative not in ("greater", "less"):
        raise ValueError(f"alternative must be 'greater' or 'less', got {alternative!r}")
    b, c = int(b), int(c)
    n_star = b + c
    exact = n_star <= exact_max
    common: dict[str, Any] = {
        "method": "McNemar one-sided exact binomial"
        if exact
        else "McNemar one-sided normal approximation",
        "n": int(n_pairs) if n_pairs is not None else n_star,
        "b": b,
        "c": c,
        "n_discordant": n_star,
        "alternative": alternative,
    }
    if n_star == 0:
        return McNemarResult(**common, defined=False, reason="zero discordant pairs (b + c = 0)")
    if exact:
        p = sps.binomtest(b, n_star, 0.5, alternative=alternative).pvalue
        return McNemarResult(**common, statistic=float(b), pvalue=float(p))
    z = (b - c) / math.sqrt(n_star)
    p = sps.norm.sf(z) if alternative == "greater" else sps.norm.cdf(z)
    return McNemarResult(**common, statistic=z, pvalue=float(p))


def adjust_pvalues(
    pvalues: Sequence[float | None],
    *,
    method: Literal["holm", "fdr_bh"] = "holm",
    alpha: float = 0.05,
) -> AdjustedPValues:
    """Holm (FWER) or Benjamini–Hochberg (FDR) adjustment via statsmodels ``multipletests``.

    ``None``/NaN entries (undefined tests) are excluded from the family and come back as ``None``,
    so the output stays aligned with the input; ``n`` is the size of the adjusted family.
    """
    if method not in ("holm", "fdr_bh"):
        raise ValueError(f"method must be 'holm' or 'fdr_bh', got {method!r}")
    raw: list[float | None] = [
        None if p is None or not math.isfinite(float(p)) else float(p) for p in pvalues
    ]
    for p in raw:
        if p is not None and not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must lie in [0, 1], got {p}")
    keep = [i for i, p in enumerate(raw) if p is not None]
    adjusted: list[float | None] = [None] * len(raw)
    reject: list[bool | None] = [None] * len(raw)
    name = {"holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}[method]
    if not keep:
        return AdjustedPValues(
            method=name,
            n=0,
            alpha=alpha,
            pvalues=tuple(raw),
            adjusted=tuple(adjusted),
            reject=tuple(reject),
            defined=False,
            reason="no defined p-values to adjust",
        )
    rej, adj, _, _ = multipletests([raw[i] for i in keep], alpha=alpha, method=method)
    for j, i in enumerate(keep):
        adjusted[i] = float(adj[j])
        reject[i] = bool(rej[j])
    return AdjustedPValues(
        method=name,
        n=len(keep),
        alpha=alpha,
        pvalues=tuple(raw),
        adjusted=tuple(adjusted),
        reject=tuple(reject),
    )


# --------------------------------------------------------------------------------------------------
# Cluster-bootstrapped effect sizes
# --------------------------------------------------------------------------------------------------


def _two_arm_clusters(
    clusters_a: npt.ArrayLike, clusters_b: npt.ArrayLike, n_a: int, n_b: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Shared cluster codes for both arms: a conversation contributing to A and B moves as one."""
    ca = np.asarray(clusters_a, dtype=object).ravel()
    cb = np.asarray(clusters_b, dtype=object).ravel()
    if len(ca) != n_a or len(cb) != n_b:
        raise ValueError("each arm needs one cluster id per row")
    codes, g = _cluster_codes(np.concatenate([ca, cb]), "clusters")
    return codes[:n_a], codes[n_a:], g


def _log_odds_ratio(cells: np.ndarray) -> np.ndarray:
    """log OR from columns (correct_a, wrong_a, correct_b, wrong_b); NaN where any cell is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(cells)
        out = logs[..., 0] - logs[..., 1] - logs[..., 2] + logs[..., 3]
    return np.where((cells > 0).all(axis=-1), out, np.nan)


def odds_ratio(
    correct_a: npt.ArrayLike,
    correct_b: npt.ArrayLike,
    clusters_a: npt.ArrayLike,
    clusters_b: npt.ArrayLike,
    *,
    n_boot: int = 10_000,
    seed: Seed,
    ci: float = 0.95,
    haldane: bool = False,
    max_undefined_frac: float = 0.05,
) -> OddsRatioResult:
    """OR = odds(correct | A) / odds(correct | B) with a conversation-level cluster-bootstrap CI.

    The point estimate comes from the pooled 2×2 table. A zero cell makes the OR undefined (0 or
    ∞), so by default the result is undefined with a reason naming the empty cell — as the
    confirmation-bias paper reports "OR undefined when C1 contains zero errors". ``haldane=True``
    applies the Haldane–Anscombe correction instead: 0.5 is added to all four cells of the point
    table and of every bootstrap table, always (not only when a cell is zero), so the estimator is
    the same on every resample. The CI is the percentile interval (computed on log OR) over the
    resamples with a defined OR; if more than ``max_undefined_frac`` of them are undefined the CI is
    withheld with ``ci_reason``. ``n`` is the number of rows (A + B).
    """
    _check_level(ci, n_boot)
    ya, yb = _binary(correct_a, "correct_a"), _binary(correct_b, "correct_b")
    codes_a, codes_b, g = _two_arm_clusters(clusters_a, clusters_b, len(ya), len(yb))
    counts = {
        "correct_a": int(ya.sum()),
        "wrong_a": int((~ya).sum()),
        "correct_b": int(yb.sum()),
        "wrong_b": int((~yb).sum()),
    }
    add = 0.5 if haldane else 0.0
    method = "odds ratio" + (" (Haldane-Anscombe +0.5)" if haldane else "")
    method += f", cluster bootstrap percentile CI ({n_boot} resamples)"
    common: dict[str, Any] = {
        "method": method,
        "n": len(ya) + len(yb),
        "n_clusters": g,
        "n_boot": n_boot,
        "haldane": haldane,
        "ci_level": ci,
        **counts,
    }
    if len(ya) == 0 or len(yb) == 0:
        return OddsRatioResult(**common, defined=False, reason="an arm has no rows")
    zero = [k for k, v in counts.items() if v == 0]
    if zero and not haldane:
        return OddsRatioResult(
            **common,
            defined=False,
            reason=f"zero cell(s): {', '.join(zero)} = 0, so the odds ratio is 0 or infinite "
            "(use haldane=True for the Haldane-Anscombe estimate)",
        )
    cells = np.array(list(counts.values()), dtype=np.float64) + add
    point = float(np.exp(_log_odds_ratio(cells)))
    if n_boot == 0:
        return OddsRatioResult(**common, statistic=point, ci_reason="no bootstrap requested")
    if g < 2:
        return OddsRatioResult(
            **common, statistic=point, ci_reason="only one cluster: the bootstrap has no variation"
        )
    per_cluster = np.zeros((g, 4), dtype=np.float64)
    per_cluster[:, 0] = np.bincount(codes_a, weights=ya, minlength=g)
    per_cluster[:, 1] = np.bincount(codes_a, weights=~ya, minlength=g)
    per_cluster[:, 2] = np.bincount(codes_b, weights=yb, minlength=g)
    per_cluster[:, 3] = np.bincount(codes_b, weights=~yb, minlength=g)
    draws = _log_odds_ratio(_boot_sums(per_cluster, n_boot, seed) + add)
    interval, n_undef, ci_reason = _percentile_ci(draws, ci, max_undefined_frac)
    ci_out = (math.exp(interval[0]), math.exp(interval[1])) if interval else None
    return OddsRatioResult(
        **common, statistic=point, ci=ci_out, ci_reason=ci_reason, n_boot_undefined=n_undef
    )


def _mean_boot(
    parts: list[tuple[np.ndarray, np.ndarray]],
    g: int,
    n_boot: int,
    seed: Seed,
    combine: Callable[[list[np.ndarray]], np.ndarray],
) -> np.ndarray:
    """Bootstrap draws of combine([mean of each part]) under cluster resampling."""
    cols = []
    for values, codes in parts:
        cols.append(np.bincount(codes, weights=values, minlength=g))
        cols.append(np.bincount(codes, minlength=g).astype(np.float64))
    sums = _boot_sums(np.column_stack(cols), n_boot, seed)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = [sums[:, 2 * i] / sums[:, 2 * i + 1] for i in range(len(parts))]
    return combine(means)


def bootstrap_mean(
    values: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    n_boot: int = 10_000,
    seed: Seed,
    ci: float = 0.95,
) -> BootstrapResult:
    """Mean of ``values`` with a cluster-bootstrap percentile CI (e.g. accuracy by conversation)."""
    _check_level(ci, n_boot)
    v = _floats(values)
    codes, g = _cluster_codes(clusters, "clusters")
    _same_length("values", v, "clusters", codes)
    method = f"mean, cluster bootstrap percentile CI ({n_boot} resamples)"
    common: dict[str, Any] = {
        "method": method,
        "n": len(v),
        "n_clusters": g,
        "n_boot": n_boot,
        "ci_level": ci,
    }
    if len(v) == 0:
        return BootstrapResult(**common, defined=False, reason="no values")
    if (bad := _nonfinite_reason(v, "values")) is not None:
        return BootstrapResult(**common, defined=False, reason=bad)
    point = float(v.mean())
    if n_boot == 0 or g < 2:
        why = (
            "no bootstrap requested" if n_boot == 0 else "only one cluster: no bootstrap variation"
        )
        return BootstrapResult(**common, statistic=point, ci_reason=why)
    draws = _mean_boot([(v, codes)], g, n_boot, seed, lambda m: m[0])
    interval, n_undef, ci_reason = _percentile_ci(draws, ci, 0.0)
    return BootstrapResult(
        **common, statistic=point, ci=interval, ci_reason=ci_reason, n_boot_undefined=n_undef
    )


def bootstrap_mean_diff(
    values_a: npt.ArrayLike,
    values_b: npt.ArrayLike,
    clusters_a: npt.ArrayLike,
    clusters_b: npt.ArrayLike,
    *,
    n_boot: int = 10_000,
    seed: Seed,
    ci: float = 0.95,
    max_undefined_frac: float = 0.05,
) -> MeanDiffResult:
    """mean(A) − mean(B) with a cluster-bootstrap CI; BiasGap = Acc(C1) − Acc(C2) is the use case.

    Clusters are shared across arms, so a conversation's A and B rows are resampled together. A
    resample that draws no rows of one arm is undefined and counted in ``n_boot_undefined``.
    """
    _check_level(ci, n_boot)
    va, vb = _floats(values_a), _floats(values_b)
    codes_a, codes_b, g = _two_arm_clusters(clusters_a, clusters_b, len(va), len(vb))
    mean_a = float(va.mean()) if len(va) and np.isfinite(va).all() else None
    mean_b = float(vb.mean()) if len(vb) and np.isfinite(vb).all() else None
    method = f"difference of means, cluster bootstrap percentile CI ({n_boot} resamples)"
    common: dict[str, Any] = {
        "method": method,
        "n": len(va) + len(vb),
        "n_clusters": g,
        "n_boot": n_boot,
        "ci_level": ci,
        "mean_a": mean_a,
        "mean_b": mean_b,
        "n_a": len(va),
        "n_b": len(vb),
    }
    if len(va) == 0 or len(vb) == 0:
        return MeanDiffResult(**common, defined=False, reason="an arm has no rows")
    for arr, name in ((va, "values_a"), (vb, "values_b")):
        if (bad := _nonfinite_reason(arr, name)) is not None:
            return MeanDiffResult(**common, defined=False, reason=bad)
    assert mean_a is not None and mean_b is not None
    point = mean_a - mean_b
    if n_boot == 0 or g < 2:
        why = (
            "no bootstrap requested" if n_boot == 0 else "only one cluster: no bootstrap variation"
        )
        return MeanDiffResult(**common, statistic=point, ci_reason=why)
    draws = _mean_boot([(va, codes_a), (vb, codes_b)], g, n_boot, seed, lambda m: m[0] - m[1])
    interval, n_undef, ci_reason = _percentile_ci(draws, ci, max_undefined_frac)
    return MeanDiffResult(
        **common, statistic=point, ci=interval, ci_reason=ci_reason, n_boot_undefined=n_undef
    )


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
    model = sm.OLS(ya, design)
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
