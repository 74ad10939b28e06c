"""The stratified permutation null: valid level for memoryless answerers, power for planted bias."""

from __future__ import annotations

import numpy as np
import pytest

from biaslab.stats import count_null, permutation_null, strata_codes
from biaslab.stats.permutation import NULL_SUFFIXES, null_fields


def gap_metric(condition: np.ndarray):  # type: ignore[no-untyped-def]
    """BiasGap-shaped metric: mean answer on condition-1 rows minus mean on condition-2 rows."""
    a, b = condition == 1, condition == 2

    def metric(perm: np.ndarray) -> np.ndarray:
        return perm[:, a].mean(axis=1) - perm[:, b].mean(axis=1)

    return metric


def synthetic(seed: int, n: int = 400, planted: float = 0.0) -> tuple[np.ndarray, ...]:
    """Turns with a stratum (what the update alone determines) and a condition (from the prior).

    Accuracy depends strongly on the stratum, and condition 1 is concentrated in the easy stratum,
    so the raw gap is large even for a memoryless answerer; ``planted`` adds accuracy to condition
    1 beyond its stratum (a real dependence on the prior)."""
    rng = np.random.default_rng(seed)
    stratum = rng.integers(0, 3, size=n)
    p_c1 = np.array([0.8, 0.3, 0.1])[stratum]
    condition = np.where(rng.random(n) < p_c1, 1, 2)
    accuracy = np.array([0.9, 0.5, 0.2])[stratum] + planted * (condition == 1)
    correct = (rng.random(n) < np.clip(accuracy, 0, 1)).astype(float)
    return correct, stratum, condition


def test_memoryless_answerer_holds_the_level_over_seeds() -> None:
    pvalues, raw = [], []
    for seed in range(200):
        correct, stratum, condition = synthetic(seed)
        result = permutation_null(correct, stratum, gap_metric(condition), seed=seed, n_perm=400)
        assert result.defined and result.pvalue is not None
        pvalues.append(result.pvalue)
        raw.append(result.statistic)
    rate = np.mean(np.array(pvalues) < 0.05)
    assert 0.02 <= rate <= 0.09, rate
    assert np.mean(raw) > 0.2  # the raw gap would call every one of them biased


def test_without_strata_the_memoryless_answerer_looks_biased() -> None:
    """Why strata matter: exchanging across strata confounds difficulty with the condition."""
    rejected = 0
    for seed in range(20):
        correct, _, condition = synthetic(seed)
        result = permutation_null(correct, None, gap_metric(condition), seed=seed, n_perm=400)
        rejected += result.pvalue is not None and result.pvalue < 0.05
    assert rejected >= 18


def test_planted_dependence_is_detected() -> None:
    correct, stratum, condition = synthetic(7, n=2_000, planted=0.25)
    result = permutation_null(correct, stratum, gap_metric(condition), seed=1, n_perm=2_000)
    assert result.pvalue is not None and result.pvalue < 0.001
    assert result.excess is not None and 0.15 < result.excess < 0.35
    assert result.null_lo is not None and result.null_hi is not None
    assert result.null_lo <= result.null_mean <= result.null_hi  # type: ignore[operator]


def test_within_stratum_exchange_keeps_each_strata_answers() -> None:
    """Every permuted answer vector is a rearrangement inside each stratum."""
    stratum = np.array([0, 0, 0, 1, 1, 2])
    values = np.array([1.0, 2.0, 3.0, 10.0, 20.0, 99.0])
    seen: list[np.ndarray] = []

    def metric(perm: np.ndarray) -> np.ndarray:
        seen.append(perm.copy())
        return perm[:, 0]

    permutation_null(values, stratum, metric, seed=0, n_perm=50)
    permuted = np.concatenate(seen[1:])
    assert sorted(np.unique(permuted[:, :3])) == [1.0, 2.0, 3.0]
    assert (np.sort(permuted[:, :3], axis=1) == [1.0, 2.0, 3.0]).all()
    assert (np.sort(permuted[:, 3:5], axis=1) == [10.0, 20.0]).all()
    assert (permuted[:, 5] == 99.0).all()
    assert len({tuple(row) for row in permuted[:, :3]}) > 1


def test_rows_of_several_columns_move_together() -> None:
    values = np.column_stack([np.arange(6.0), np.arange(6.0) * 10])

    def metric(perm: np.ndarray) -> np.ndarray:
        assert perm.shape[1:] == (6, 2)
        assert (perm[..., 1] == perm[..., 0] * 10).all()
        return perm[:, 0, 0]

    result = permutation_null(values, None, metric, seed=3, n_perm=100)
    assert result.defined


def test_same_seed_same_bytes_and_seed_matters() -> None:
    correct, stratum, condition = synthetic(3)
    first = permutation_null(correct, stratum, gap_metric(condition), seed=11, n_perm=500)
    again = permutation_null(correct, stratum, gap_metric(condition), seed=11, n_perm=500)
    other = permutation_null(correct, stratum, gap_metric(condition), seed=12, n_perm=500)
    assert first.model_dump_json() == again.model_dump_json()
    assert first.null_mean != other.null_mean


def test_reads_gives_the_null_of_the_metric_that_picks_those_rows() -> None:
    """A metric told which rows it reads (repeats and any order allowed) gets those rows alone,
    and its null is the full-row metric's bit for bit: same random stream, same values."""
    correct, stratum, condition = synthetic(5, n=300)
    values = np.stack([correct, condition.astype(float)], axis=1)  # two columns move together
    reads = np.array([290, 3, 3, 150, 17, 0, 299, 42])
    weights = np.arange(1.0, len(reads) + 1)

    def on_reads(perm: np.ndarray) -> np.ndarray:
        assert perm.shape[1:] == (len(reads), 2)
        return (perm[..., 0] * weights).sum(axis=1) + perm[:, 0, 1]

    def on_all_rows(perm: np.ndarray) -> np.ndarray:
        return on_reads(perm[:, reads])

    for seed in (0, 1):
        full = permutation_null(values, stratum, on_all_rows, seed=seed, n_perm=700)
        read = permutation_null(values, stratum, on_reads, seed=seed, n_perm=700, reads=reads)
        assert read.model_dump_json() == full.model_dump_json()
    with pytest.raises(ValueError, match="row positions"):
        permutation_null(values, stratum, on_reads, seed=0, reads=[300])


def test_two_sided_and_less() -> None:
    correct, stratum, condition = synthetic(7, n=2_000, planted=0.25)
    metric = gap_metric(condition)
    less = permutation_null(correct, stratum, metric, seed=1, n_perm=500, alternative="less")
    both = permutation_null(correct, stratum, metric, seed=1, n_perm=500, alternative="two-sided")
    assert less.pvalue is not None and less.pvalue > 0.99
    assert both.pvalue is not None and both.pvalue < 0.01


def test_undefined_cases_never_raise() -> None:
    empty = permutation_null(np.array([]), None, lambda p: p.sum(axis=1), seed=0)
    assert not empty.defined and empty.reason
    nan = permutation_null(np.ones(4), None, lambda p: np.full(len(p), np.nan), seed=0)
    assert not nan.defined
    singletons = permutation_null(np.arange(3.0), np.arange(3), lambda p: p[:, 0], seed=0)
    assert singletons.pvalue == 1.0 and singletons.excess == 0.0
    assert singletons.n_exchangeable == 0 and singletons.notes
    fields = null_fields("bias_gap", nan)
    assert fields == {"bias_gap": None, **{"bias_gap" + s: None for s in NULL_SUFFIXES}}


def test_null_fields_carry_the_shared_names() -> None:
    correct, stratum, condition = synthetic(1)
    result = permutation_null(correct, stratum, gap_metric(condition), seed=0, n_perm=200)
    fields = null_fields("x", result)
    assert list(fields) == ["x", "x_null", "x_null_lo", "x_null_hi", "x_excess", "x_null_p"]
    assert fields["x_excess"] == pytest.approx(fields["x"] - fields["x_null"])  # type: ignore[operator]


def test_strata_codes_depend_on_keys_not_row_order() -> None:
    a = strata_codes({"gold": ["yes", "no", "yes", "unknown"], "hops": [1, 1, 1, 2]})
    b = strata_codes([["unknown", "yes", "no", "yes"], [2, 1, 1, 1]])
    assert a.tolist() == [b[1], b[2], b[3], b[0]]
    assert a[0] == a[2] and len(set(a.tolist())) == 3


def test_malformed_input_raises() -> None:
    with pytest.raises(ValueError):
        permutation_null(np.ones(3), np.ones(2), lambda p: p[:, 0], seed=0)
    with pytest.raises(ValueError):
        permutation_null(np.ones(3), None, lambda p: p[:, 0], seed=0, n_perm=0)
    with pytest.raises(ValueError):
        permutation_null(np.ones(3), None, lambda p: p[:2, 0], seed=0)
    with pytest.raises(TypeError):
        permutation_null(np.ones(3), None, lambda p: p[:, 0], seed=np.random.default_rng(0))  # type: ignore[arg-type]


def test_count_null_has_the_row_shuffles_distribution() -> None:
    """A metric of how many right answers land on condition-2 rows: per-stratum hypergeometric
    draws give the null that row shuffles within strata give (same observed value, same mean
    and band within Monte Carlo error), from another random stream."""
    correct, stratum, condition = synthetic(5, n=1_500)
    c2 = condition == 2
    n_c2 = int(c2.sum())
    rows = permutation_null(
        correct, stratum, lambda p: (p[:, c2] == 1).sum(axis=1) / n_c2, seed=4, n_perm=4_000
    )
    counts = count_null(correct == 1, c2, stratum, lambda t: t / n_c2, seed=4, n_perm=4_000)
    assert counts.statistic == rows.statistic
    assert (counts.n, counts.n_strata, counts.n_exchangeable) == (
        rows.n,
        rows.n_strata,
        rows.n_exchangeable,
    )
    assert counts.null_mean is not None and rows.null_mean is not None
    assert counts.null_mean == pytest.approx(rows.null_mean, abs=0.003)
    assert counts.null_lo == pytest.approx(rows.null_lo, abs=0.01)
    assert counts.null_hi == pytest.approx(rows.null_hi, abs=0.01)
    assert counts.pvalue == pytest.approx(rows.pvalue, abs=0.05)
    assert "hypergeometric" in counts.method


def test_count_null_is_deterministic_and_seeded() -> None:
    correct, stratum, condition = synthetic(8)
    args = (correct == 1, condition == 2, stratum, lambda t: t / 1.0)
    first = count_null(*args, seed=np.random.SeedSequence(21), n_perm=500)
    again = count_null(*args, seed=np.random.SeedSequence(21), n_perm=500)
    other = count_null(*args, seed=np.random.SeedSequence(22), n_perm=500)
    assert first.model_dump_json() == again.model_dump_json()
    assert first.null_mean != other.null_mean


def share_of(n: int):  # type: ignore[no-untyped-def]
    return lambda total: total / n


def test_count_null_holds_the_level_and_detects_planted_dependence() -> None:
    rejected = 0
    for seed in range(40):
        correct, stratum, condition = synthetic(seed)
        c1 = condition == 1
        res = count_null(correct == 1, c1, stratum, share_of(int(c1.sum())), seed=seed)
        rejected += res.pvalue is not None and res.pvalue < 0.05
    assert rejected <= 6  # 5% of 40 is 2; binomial upper tail
    correct, stratum, condition = synthetic(1, n=2_000, planted=0.25)
    c1 = condition == 1
    planted = count_null(correct == 1, c1, stratum, lambda t: t / int(c1.sum()), seed=1)
    assert planted.pvalue is not None and planted.pvalue < 0.01


def test_count_null_fixed_strata_and_undefined_cases() -> None:
    # every stratum all-hit, all-miss or wholly counted: no draw can differ from the observed
    hits = np.array([1, 1, 0, 0, 1, 0], dtype=bool)
    counted = np.array([1, 0, 1, 0, 1, 1], dtype=bool)
    strata = np.array([0, 0, 1, 1, 2, 2])
    fixed = count_null(hits, counted, strata, lambda t: t * 1.0, seed=0, n_perm=50)
    assert fixed.statistic == 2.0 and fixed.null_mean == 2.0 and fixed.pvalue == 1.0
    assert not count_null([], [], None, lambda t: t * 1.0, seed=0).defined
    nan = count_null(hits, counted, strata, lambda t: np.full(len(t), np.nan), seed=0)
    assert not nan.defined and nan.reason
    with pytest.raises(ValueError, match="differ in length"):
        count_null(hits, counted[:3], strata, lambda t: t * 1.0, seed=0)
