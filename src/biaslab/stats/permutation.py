"""Stratified permutation nulls: what a bias metric would be if answers carried no dependence on
anything but the strata.

A bias metric is only evidence next to the value an agent *without* the bias would get. The null
here keeps everything that defines the metric's cells fixed (e.g. each turn's congruence condition)
and exchanges the model's answers among rows that share a stratum (e.g. turns whose update alone
determines the same gold answer), so the null agent has the model's own accuracy profile per
stratum but no memory. Each suite states its strata in its results' ``decisions``.

Vectorised: each block of permutations is one ``Generator.permuted`` call per stratum on a
(permutations x rows) index matrix, and the metric receives all permuted answer arrays of a block at
once. Hand-written because neither scipy's ``permutation_test`` (no strata, one statistic call per
batch of resamples of whole samples) nor statsmodels offers stratified exchange of rows with a
vectorised statistic. A metric that depends on the answers only through how many hits land on
some rows (an accuracy, a rate, an odds ratio with fixed controls) needs no rows at all:
:func:`count_null` draws one hypergeometric count per stratum (numpy's ``hypergeometric``), which
has the same distribution as the shuffles.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from biaslab.stats._inputs import Seed, _check_level, _rng
from biaslab.stats.results import StatResult

__all__ = [
    "NULL_SUFFIXES",
    "CountMetric",
    "NullResult",
    "PermutationNullResult",
    "count_null",
    "null_fields",
    "permutation_null",
    "strata_codes",
]

Alternative = Literal["greater", "less", "two-sided"]
#: a vectorised metric: permuted answers of shape (B, n) or (B, n, k) -> B statistics (NaN = undefined)
Metric = Callable[[np.ndarray], np.ndarray]

DEFAULT_PERMUTATIONS = 2_000
_BLOCK_ELEMENTS = 4_000_000  # index-matrix elements per block (~32 MB as int64); bounds memory only
#: the suffixes every bias metric ``X`` carries in results: X_null, X_null_lo, X_null_hi, X_excess, X_null_p
NULL_SUFFIXES = ("_null", "_null_lo", "_null_hi", "_excess", "_null_p")


class PermutationNullResult(StatResult):
    """Observed metric (``statistic``) beside its stratified permutation null.

    ``null_mean`` and ``null_lo``/``null_hi`` (the central ``null_level`` band) describe the metric
    under exchange within strata; ``excess`` = statistic − null_mean; ``pvalue`` is the permutation
    p-value (1 + #as extreme) / (1 + #defined permutations) in the ``alternative`` direction.
    ``n`` is the number of rows; ``n_exchangeable`` the rows in strata with at least two rows (the
    only rows a permutation can move).
    """

    alternative: Alternative
    n_perm: int
    n_perm_undefined: int = 0
    n_strata: int
    n_exchangeable: int
    null_mean: float | None = None
    null_lo: float | None = None
    null_hi: float | None = None
    null_level: float | None = None
    excess: float | None = None


def strata_codes(columns: Mapping[str, Sequence[Any]] | Sequence[Sequence[Any]]) -> np.ndarray:
    """Dense stratum codes from one or more aligned key columns (a row's stratum is its tuple of
    keys). Codes follow the sorted order of the key tuples' text, so they never depend on row
    order, hashing or set iteration."""
    cols = list(columns.values()) if isinstance(columns, Mapping) else list(columns)
    if not cols:
        raise ValueError("need at least one stratum column")
    n = len(cols[0])
    if any(len(c) != n for c in cols):
        raise ValueError("stratum columns differ in length")
    keys = ["\x1f".join(repr(col[i]) for col in cols) for i in range(n)]
    _, codes = np.unique(np.asarray(keys, dtype=object).astype(str), return_inverse=True)
    return codes.astype(np.intp).ravel()


def _strata_members(codes: np.ndarray) -> tuple[list[np.ndarray], int]:
    """Row positions of every stratum with two or more rows (the only ones a permutation moves),
    in code order, and the number of strata."""
    order = np.argsort(codes, kind="stable")
    groups, starts = np.unique(codes[order], return_index=True)
    bounds = [*starts.tolist(), len(codes)]
    members = [order[bounds[i] : bounds[i + 1]] for i in range(len(groups))]
    return [m for m in members if len(m) >= 2], len(groups)


def _permuted_indices(
    n: int,
    members: list[np.ndarray],
    size: int,
    rng: np.random.Generator,
    reads: np.ndarray | None = None,
) -> np.ndarray:
    """(size x r) row indices at the ``reads`` positions (distinct, ascending; default all ``n``
    rows), each row of the matrix an independent permutation within strata.

    One ``Generator.permuted`` call per stratum, every stratum drawn whatever ``reads`` holds, so
    the random stream, and the indices at the positions read, never depend on ``reads``. Sorting
    (stratum, uniform draw) keys for all strata at once was measured 1.7-1.9 times slower (2,000
    permutations of 2k-20k rows in 60-1,000 strata): the shuffles' own work dominates, not the
    loop over strata.
    """
    positions = np.arange(n, dtype=np.intp) if reads is None else reads
    idx = np.broadcast_to(positions, (size, len(positions))).copy()
    column = None
    if reads is not None:
        column = np.full(n, -1, dtype=np.intp)
        column[reads] = np.arange(len(reads))
    for rows in members:
        shuffled = rng.permuted(np.broadcast_to(rows, (size, len(rows))), axis=1)
        if column is None:
            idx[:, rows] = shuffled
            continue
        at = column[rows]
        wanted = at >= 0
        if wanted.any():
            idx[:, at[wanted]] = shuffled[:, wanted]
    return idx


def _p_value(null: np.ndarray, observed: float, centre: float, alternative: Alternative) -> float:
    tol = 1e-12 * max(1.0, abs(observed))
    if alternative == "greater":
        extreme = int((null >= observed - tol).sum())
    elif alternative == "less":
        extreme = int((null <= observed + tol).sum())
    else:
        extreme = int((np.abs(null - centre) >= abs(observed - centre) - tol).sum())
    return (1 + extreme) / (1 + len(null))


def _check_null_arguments(level: float, n_perm: int, alternative: str) -> None:
    """The checks both nulls make before drawing anything."""
    _check_level(level)
    if n_perm < 1:
        raise ValueError(f"n_perm must be >= 1, got {n_perm}")
    if alternative not in ("greater", "less", "two-sided"):
        raise ValueError(f"alternative must be greater, less or two-sided, got {alternative!r}")


def permutation_null(
    values: npt.ArrayLike,
    strata: npt.ArrayLike | None,
    metric: Metric,
    *,
    seed: Seed,
    n_perm: int = DEFAULT_PERMUTATIONS,
    alternative: Alternative = "greater",
    level: float = 0.95,
    max_undefined_frac: float = 0.05,
    name: str = "metric",
    reads: npt.ArrayLike | None = None,
) -> PermutationNullResult:
    """The metric on the observed answers beside its null under exchange of answers within strata.

    ``values`` holds one answer per row (shape (n,) or (n, k) for several aligned answer columns
    that move together, e.g. an answer and its confidence); ``strata`` one integer code per row
    (see :func:`strata_codes`; ``None`` = one stratum). ``metric`` maps permuted answers of shape
    (B, n[, k]) to B statistics and must not depend on row order other than through the answers;
    NaN marks a permutation on which it is undefined. The default ``alternative="greater"`` asks
    whether the observed metric exceeds what exchangeable answers give (the direction of a bias).

    ``reads`` (row positions, in the order the metric wants them) says the metric looks at those
    rows only: it then receives the permuted answers of those rows alone, shape (B, len(reads)[,
    k]). The null is the same, from the same random stream, as a metric of all rows that picks
    those rows itself; only the copying of rows it never looks at is saved.
    """
    _check_null_arguments(level, n_perm, alternative)
    answers = np.asarray(values)
    if answers.ndim not in (1, 2):
        raise ValueError("values must be 1-D (one answer per row) or 2-D (rows x columns)")
    n = answers.shape[0]
    codes = np.zeros(n, dtype=np.intp) if strata is None else np.asarray(strata).ravel()
    if len(codes) != n:
        raise ValueError(f"values and strata differ in length ({n} vs {len(codes)})")
    method = f"stratified permutation null ({n_perm} permutations within strata, {alternative})"
    common: dict[str, Any] = {
        "method": method,
        "n": n,
        "alternative": alternative,
        "n_perm": n_perm,
        "null_level": level,
    }
    members, common["n_strata"] = _strata_members(codes)
    common["n_exchangeable"] = int(sum(len(m) for m in members))
    if n == 0:
        return PermutationNullResult(**common, defined=False, reason=f"no rows for {name}")
    read = _read_positions(reads, n)
    observed_rows = answers if read is None else answers[read[0]][read[1]]
    observed = float(np.asarray(metric(observed_rows[np.newaxis, ...]), dtype=float).ravel()[0])
    if not np.isfinite(observed):
        return PermutationNullResult(
            **common, defined=False, reason=f"{name} is undefined on the observed answers"
        )
    rng = _rng(seed)
    draws = np.empty(n_perm, dtype=np.float64)
    # the block size decides which draws fill which permutation: it depends on the rows only
    block = max(1, _BLOCK_ELEMENTS // max(n * (answers.shape[1] if answers.ndim == 2 else 1), 1))
    for start in range(0, n_perm, block):
        size = min(block, n_perm - start)
        if read is None:
            idx = _permuted_indices(n, members, size, rng)
        else:
            idx = _permuted_indices(n, members, size, rng, read[0])[:, read[1]]
        out = np.asarray(metric(answers[idx]), dtype=float).ravel()
        if out.shape != (size,):
            raise ValueError(f"metric returned shape {out.shape}, expected ({size},)")
        draws[start : start + size] = out
    return _summarised(draws, observed, common, alternative, level, max_undefined_frac, name)


def _read_positions(reads: npt.ArrayLike | None, n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(distinct positions read, ascending; where each of ``reads`` sits among them), or None
    for all rows."""
    if reads is None:
        return None
    wanted = np.asarray(reads, dtype=np.intp).ravel()
    if len(wanted) and (wanted.min() < 0 or wanted.max() >= n):
        raise ValueError(f"reads must be row positions in [0, {n})")
    distinct, back = np.unique(wanted, return_inverse=True)
    return distinct, back.ravel()


def _summarised(
    draws: np.ndarray,
    observed: float,
    common: dict[str, Any],
    alternative: Alternative,
    level: float,
    max_undefined_frac: float,
    name: str,
) -> PermutationNullResult:
    """The observed metric beside the mean, central band and p-value of its null draws."""
    n_perm = len(draws)
    finite = draws[np.isfinite(draws)]
    n_undefined = n_perm - len(finite)
    common["n_perm_undefined"] = n_undefined
    if len(finite) == 0 or n_undefined > max_undefined_frac * n_perm:
        return PermutationNullResult(
            **common,
            statistic=observed,
            defined=True,
            notes=(
                f"{n_undefined} of {n_perm} permutations left {name} undefined; no null reported",
            ),
        )
    centre = float(finite.mean())
    tail = (1.0 - level) / 2.0
    lo, hi = (float(v) for v in np.quantile(finite, [tail, 1.0 - tail]))
    notes: tuple[str, ...] = ()
    if common["n_exchangeable"] == 0:
        notes = ("no stratum has two rows: the null is the observed value itself",)
    return PermutationNullResult(
        **common,
        statistic=observed,
        pvalue=_p_value(finite, observed, centre, alternative),
        null_mean=centre,
        null_lo=lo,
        null_hi=hi,
        excess=observed - centre,
        notes=notes,
    )


#: a metric of counts: hits among the counted rows, shape (B,) -> B statistics (NaN = undefined)
CountMetric = Callable[[np.ndarray], np.ndarray]


def count_null(
    hits: npt.ArrayLike,
    counted: npt.ArrayLike,
    strata: npt.ArrayLike | None,
    metric: CountMetric,
    *,
    seed: Seed,
    n_perm: int = DEFAULT_PERMUTATIONS,
    alternative: Alternative = "greater",
    level: float = 0.95,
    max_undefined_frac: float = 0.05,
    name: str = "metric",
) -> PermutationNullResult:
    """:func:`permutation_null` for a metric that depends on the answers only through how many
    hits fall on the counted rows, drawn from per-stratum counts instead of row shuffles.

    ``hits`` marks the rows whose answer is a hit (a property of the answer that moves with it
    within its stratum, e.g. "right" where every row of a stratum has the same gold); ``counted``
    the rows whose hits the metric counts; ``metric`` maps totals of hits on counted rows (B,) to
    B statistics. Under exchange within a stratum of N rows holding K hits, the hits landing on
    its m counted rows are hypergeometric (K, N - K, m), independently across strata, so each
    permutation is one draw per stratum: the same null distribution as shuffling the rows, with
    another random stream. The observed value is ``metric`` of the observed total.
    """
    _check_null_arguments(level, n_perm, alternative)
    hit = np.asarray(hits, dtype=bool).ravel()
    count = np.asarray(counted, dtype=bool).ravel()
    n = len(hit)
    codes = np.zeros(n, dtype=np.intp) if strata is None else np.asarray(strata).ravel()
    if len(count) != n or len(codes) != n:
        raise ValueError(
            f"hits, counted and strata differ in length ({n}, {len(count)}, {len(codes)})"
        )
    method = (
        f"stratified permutation null ({n_perm} permutations within strata, drawn as "
        f"per-stratum hypergeometric counts, {alternative})"
    )
    common: dict[str, Any] = {
        "method": method,
        "n": n,
        "alternative": alternative,
        "n_perm": n_perm,
        "null_level": level,
    }
    _, dense = np.unique(codes, return_inverse=True)
    dense = dense.ravel()
    size = np.bincount(dense)
    common["n_strata"] = len(size)
    common["n_exchangeable"] = int(size[size >= 2].sum())
    if n == 0:
        return PermutationNullResult(**common, defined=False, reason=f"no rows for {name}")
    observed_total = np.array([int((hit & count).sum())])
    observed = float(np.asarray(metric(observed_total), dtype=float).ravel()[0])
    if not np.isfinite(observed):
        return PermutationNullResult(
            **common, defined=False, reason=f"{name} is undefined on the observed answers"
        )
    good = np.bincount(dense, weights=hit, minlength=len(size)).astype(np.int64)
    sample = np.bincount(dense, weights=count, minlength=len(size)).astype(np.int64)
    # strata whose count cannot vary: all or no rows hit, or every row counted (or none)
    random = (good > 0) & (good < size) & (sample > 0) & (sample < size)
    fixed_total = int((hit & count & ~random[dense]).sum())
    rng = _rng(seed)
    totals = np.full(n_perm, fixed_total, dtype=np.int64)
    if random.any():
        draws = rng.hypergeometric(
            good[random], (size - good)[random], sample[random], size=(n_perm, int(random.sum()))
        )
        totals += draws.sum(axis=1)
    null = np.asarray(metric(totals), dtype=float).ravel()
    if null.shape != (n_perm,):
        raise ValueError(f"metric returned shape {null.shape}, expected ({n_perm},)")
    return _summarised(null, observed, common, alternative, level, max_undefined_frac, name)


class NullResult(Protocol):
    """What :func:`null_fields` reads: a permutation null or an exact one
    (:class:`biaslab.stats.proportions.ExactNullResult`)."""

    @property
    def defined(self) -> bool: ...
    @property
    def statistic(self) -> float | None: ...
    @property
    def pvalue(self) -> float | None: ...
    @property
    def null_mean(self) -> float | None: ...
    @property
    def null_lo(self) -> float | None: ...
    @property
    def null_hi(self) -> float | None: ...
    @property
    def excess(self) -> float | None: ...


def null_fields(name: str, result: NullResult | None) -> dict[str, float | None]:
    """The shared result fields for bias metric ``name``: ``name``, ``name_null``,
    ``name_null_lo``, ``name_null_hi``, ``name_excess``, ``name_null_p`` (``None`` where undefined)."""
    if result is None or not result.defined:
        return {name: None, **{name + suffix: None for suffix in NULL_SUFFIXES}}
    return {
        name: result.statistic,
        f"{name}_null": result.null_mean,
        f"{name}_null_lo": result.null_lo,
        f"{name}_null_hi": result.null_hi,
        f"{name}_excess": result.excess,
        f"{name}_null_p": result.pvalue,
    }
