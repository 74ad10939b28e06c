"""Seeded, vectorised cluster bootstraps: odds ratio, mean, difference of means.

A resample x cluster count matrix times per-cluster sufficient statistics; only blocks of
resamples are looped over, to bound memory. Hand-written because no maintained library offers
vectorised *cluster* resampling with shared clusters across two arms."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from biaslab.stats._inputs import (
    Seed,
    _binary,
    _check_level,
    _cluster_codes,
    _floats,
    _nonfinite_reason,
    _rng,
    _same_length,
)
from biaslab.stats.results import BootstrapResult, MeanDiffResult, OddsRatioResult

# Upper bound on resample-matrix elements held at once (~32 MB as float64); bounds memory only.
_BLOCK_ELEMENTS = 4_000_000


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
