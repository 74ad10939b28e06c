"""The horse answers are derived, not assumed: exhaustive search, theorems, and the classic scheme.

Every (n, k, m) the generator can emit (``HORSE_GRID``) is checked here one by one: by re-running the
exhaustive search, or by checking the matching theorem's two halves (a constructive strategy that
achieves the number, and a lower bound that the search confirms on every small case it covers).
"""

from __future__ import annotations

import math
import random

import pytest

from biaslab.errors import BiaslabError
from biaslab.suites.tokenbias.families import HORSE_GRID
from biaslab.suites.tokenbias.horses import (
    CLASSIC,
    EXHAUSTIVE,
    canonical_key,
    classic_scheme,
    drop_beaten,
    is_solved,
    knockout_height,
    knockout_top2,
    min_races,
    record_race,
    solve_min_races,
    top2_lower_bound,
    winner_races,
)

SLOW_EXHAUSTIVE = {(16, 4, 3), (20, 5, 3)}
FAST_EXHAUSTIVE = sorted(set(EXHAUSTIVE) - SLOW_EXHAUSTIVE)


# ------------------------------------------------------------------ the search on known results


@pytest.mark.parametrize("n", range(2, 8))
def test_search_second_largest_matches_kislitsyn(n: int) -> None:
    """With two lanes, finding the top two takes n + ⌈log2 n⌉ − 2 comparisons."""
    assert solve_min_races(n, 2, 2) == n + math.ceil(math.log2(n)) - 2


@pytest.mark.parametrize(("n", "comparisons"), [(2, 1), (3, 3), (4, 5), (5, 7)])
def test_search_full_order_with_two_lanes_is_sorting(n: int, comparisons: int) -> None:
    """Top n (or n − 1) in order with two lanes is comparison sorting: S(n) = 1, 3, 5, 7."""
    assert solve_min_races(n, 2, n) == comparisons
    assert solve_min_races(n, 2, n - 1) == comparisons


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("n", range(2, 13))
def test_winner_formula_matches_search(n: int, k: int) -> None:
    assert solve_min_races(n, k, 1) == winner_races(n, k) == min_races(n, k, 1)


@pytest.mark.parametrize(
    ("n", "k"), [(3, 2), (4, 2), (5, 2), (7, 3), (9, 3), (10, 4), (13, 4), (16, 4), (11, 6)]
)
def test_top2_adversary_bound_holds_on_searchable_cases(n: int, k: int) -> None:
    assert (n - 1) % (k - 1) == 0 and n > k
    assert solve_min_races(n, k, 2) >= top2_lower_bound(n, k) == winner_races(n, k) + 1


@pytest.mark.parametrize("k", [2, 3, 4])
def test_square_top2_formula_matches_search(k: int) -> None:
    assert solve_min_races(k * k, k, 2) == k + 2 == min_races(k * k, k, 2)


@pytest.mark.parametrize(
    ("n", "k"), [(5, 3), (7, 3), (9, 3), (11, 3), (7, 4), (10, 4), (13, 4), (9, 5), (11, 6)]
)
def test_knockout_top2_formula_matches_search(n: int, k: int) -> None:
    """Top 2 with (k − 1) | (n − 1): the adversary bound R₀ + 1 is reached by the knock-out."""
    assert knockout_height(n, k) <= k
    assert solve_min_races(n, k, 2) == winner_races(n, k) + 1 == min_races(n, k, 2)


def test_knockout_height_is_the_depth_of_the_queue_tournament() -> None:
    assert knockout_height(25, 5) == 2  # five heats, then the heat winners
    assert knockout_height(27, 3) == 3
    assert knockout_height(29, 3) == 4  # too deep for three lanes: not emitted
    assert knockout_height(1, 5) == 0
    with pytest.raises(BiaslabError, match="no derived answer"):
        min_races(29, 3, 2)


# ------------------------------------------------------------------ every emitted (n, k, m)


@pytest.mark.parametrize("triple", FAST_EXHAUSTIVE)
def test_exhaustive_table_entries(triple: tuple[int, int, int]) -> None:
    assert solve_min_races(*triple) == EXHAUSTIVE[triple]


@pytest.mark.slow
def test_sixteen_horses_four_lanes_top_three_is_seven() -> None:
    """The original repository's answer n + 2 = 6 for n = 4 is wrong: the search proves 7."""
    assert solve_min_races(16, 4, 3) == 7 == min_races(16, 4, 3)


@pytest.mark.slow
def test_twenty_horses_five_lanes_top_three_is_six() -> None:
    assert solve_min_races(20, 5, 3) == 6 == min_races(20, 5, 3)


@pytest.mark.slow
def test_classic_twenty_five_horses_is_seven_by_search() -> None:
    assert solve_min_races(*CLASSIC) == 7 == min_races(*CLASSIC)


def _knockout(speeds: list[float], k: int) -> tuple[int, tuple[int, ...]]:
    """Race k unbeaten animals at a time until one is left (the m = 1 upper bound)."""
    above: tuple[int, ...] = (0,) * len(speeds)
    unbeaten, races = list(range(len(speeds))), 0
    while len(unbeaten) > 1:
        runners, unbeaten = unbeaten[:k], unbeaten[k:]
        order = sorted(runners, key=lambda x: -speeds[x])
        above = record_race(above, order)
        unbeaten.append(order[0])
        races += 1
    return races, above


def _top(speeds: list[float], m: int) -> list[int]:
    return sorted(range(len(speeds)), key=lambda x: -speeds[x])[:m]


def _determined_top(above: tuple[int, ...], m: int) -> list[int]:
    return sorted(
        (i for i, mask in enumerate(above) if mask.bit_count() < m),
        key=lambda i: above[i].bit_count(),
    )


def _trials(n: int) -> int:
    """Random speed orders per triple: 20 up to 100 animals; 2 beyond, where one run costs O(n²)
    and the schemes are the code that the many small triples already exercise."""
    return 20 if n <= 100 else 2


@pytest.mark.parametrize("triple", HORSE_GRID, ids=lambda t: "-".join(map(str, t)))
def test_every_emitted_triple_is_verified(triple: tuple[int, int, int]) -> None:
    n, k, m = triple
    answer = min_races(n, k, m)
    assert answer - 4 >= 1, "the five-label window must fit"
    if triple in EXHAUSTIVE:
        assert triple in FAST_EXHAUSTIVE or triple in SLOW_EXHAUSTIVE  # re-searched above
        return
    rng = random.Random(f"{n}-{k}-{m}")
    for _ in range(_trials(n)):
        speeds = [rng.random() for _ in range(n)]
        if m == 1:
            races, above = _knockout(speeds, k)
        elif n == k * k:
            assert answer == k + 2 == top2_lower_bound(n, k)
            races, above = classic_scheme(speeds, k, m)
        else:
            assert m == 2 and answer == top2_lower_bound(n, k) == winner_races(n, k) + 1
            races, above = knockout_top2(speeds, k)  # fewer when the champion had a bye
        assert races == answer or (races < answer and m == 2 and n != k * k)
        assert is_solved(above, m)
        assert _determined_top(above, m) == _top(speeds, m)


def test_classic_scheme_cannot_run_four_lanes_top_three() -> None:
    with pytest.raises(BiaslabError):
        classic_scheme([float(i) for i in range(16)], 4, 3)


def test_min_races_refuses_underived_and_invalid_cases() -> None:
    with pytest.raises(BiaslabError, match="no derived answer"):
        min_races(17, 4, 3)
    with pytest.raises(BiaslabError, match="invalid horse problem"):
        min_races(5, 1, 1)


# ------------------------------------------------------------------ partial-order plumbing


def test_record_race_closes_transitively_and_drop_beaten_prunes() -> None:
    above = record_race((0,) * 4, (0, 1))
    above = record_race(above, (1, 2, 3))
    assert above[3] == 0b0111 and above[2] == 0b0011
    assert is_solved(above, 4)
    assert drop_beaten(above, 2) == (0, 1)


def test_canonical_key_ignores_labels() -> None:
    rng = random.Random(3)
    above: tuple[int, ...] = (0,) * 7
    for race in ((0, 1, 2), (3, 4, 5), (0, 3, 6)):
        above = record_race(above, race)
    for _ in range(10):
        perm = list(range(7))
        rng.shuffle(perm)
        relabelled = [0] * 7
        for old, new in enumerate(perm):
            relabelled[new] = sum(1 << perm[x] for x in range(7) if (above[old] >> x) & 1)
        assert canonical_key(tuple(relabelled)) == canonical_key(above)
