"""The twenty-five horses problem and its variants, with the answer derived rather than assumed.

Problem (n, k, m): n animals of distinct, fixed speeds; a race holds at most k of them and reveals only
their finishing order. What is the minimum number of races that identifies the m fastest, *in order*,
whatever the results turn out to be (a game against an adversary who picks each race's order)?

Where the answers come from:

* **Exhaustive minimax search** (:func:`solve_min_races`): states are the known partial orders
  (transitively closed, animals that m others beat are dropped), compared up to isomorphism by the
  canonical forms of their connected components; the searcher picks a race, the adversary any
  finishing order consistent with what is known. Races whose first adversary reply (candidates for
  the open place finish first) already needs more races than are left are skipped before any
  child is built. This settles every small case outright, e.g. (16, 4, 3) = 7 — the original
  repository's "n + 2 = 6" for 16 horses and 4 lanes is wrong — and even the classic (25, 5, 3) = 7
  (about a second).
* **Theorems** (:func:`min_races`) for the large cases the generator emits:

  - m = 1: ⌈(n − 1)/(k − 1)⌉. Each race beats at most k − 1 previously unbeaten animals, and a
    knock-out tournament achieves it.
  - m ≥ 2 and (k − 1) divides (n − 1) with n > k: at least R₀ + 1 races, R₀ = (n − 1)/(k − 1).
    Adversary: unbeaten animals finish ahead of beaten ones, and among unbeaten ones the animal
    with the most wins finishes first. Finishing in R₀ races forces every race to hold k unbeaten
    animals, so the last race contains the previous race's winner and the champion has won twice;
    each runner-up behind it was never raced again, so two animals have only the champion above
    them and second place is unknown.
  - n = k², m = 2 (k ≥ 2) or m = 3 (k ≥ 5): exactly k + 2 — the bound above plus the classic
    scheme (k heats, a race of the heat winners, one race of the ≤ 5 remaining candidates), which
    :func:`classic_scheme` runs and the tests check.
  - m = 2, (k − 1) | (n − 1), n > k, and the knock-out of :func:`knockout_height` no deeper than k
    races: exactly R₀ + 1 — the bound above, and a knock-out of R₀ full races (the champion is
    then known) followed by one race of the animals that finished second behind the champion:
    any other animal lost to someone besides the champion, and the champion ran at most
    ``knockout_height`` ≤ k races, so the candidates fit in one race (:func:`knockout_top2` runs it
    and the tests check it).

The tests re-run the search on every exhaustive entry of :data:`HORSE_GRID`, check the theorems
against the search on every small case they cover, and run the scheme for every large entry.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from biaslab.errors import BiaslabError

Poset = tuple[int, ...]
"""``above[i]`` is the bitmask of animals known to be faster than animal ``i`` (transitively closed)."""

CLASSIC = (25, 5, 3)

#: Results of :func:`solve_min_races` that the generator may emit (re-checked by the tests).
EXHAUSTIVE: dict[tuple[int, int, int], int] = {
    (9, 3, 3): 6,
    (13, 4, 3): 6,
    (16, 4, 2): 6,
    (16, 4, 3): 7,
    (20, 5, 3): 6,
}


# --------------------------------------------------------------------------------------------------
# closed forms
# --------------------------------------------------------------------------------------------------


def min_races(n: int, k: int, m: int) -> int:
    """The derived minimum for (n, k, m); raises ``BiaslabError`` where nothing is proven."""
    _check_triple(n, k, m)
    if m == 1:
        return winner_races(n, k)
    if (n, k, m) in EXHAUSTIVE:
        return EXHAUSTIVE[(n, k, m)]
    if n == k * k and (m == 2 or (m == 3 and k >= 5)):
        return k + 2
    if m == 2 and top2_lower_bound(n, k) > winner_races(n, k) and knockout_height(n, k) <= k:
        return winner_races(n, k) + 1
    raise BiaslabError(f"no derived answer for n={n}, k={k}, m={m} (run solve_min_races)")


def winner_races(n: int, k: int) -> int:
    """Races needed to find the single fastest: each race beats at most k − 1 unbeaten animals."""
    return 0 if n <= 1 else math.ceil((n - 1) / (k - 1))


def top2_lower_bound(n: int, k: int) -> int:
    """The adversary bound for m ≥ 2 (module docstring): R₀ + 1 when (k − 1) | (n − 1) and n > k."""
    base = winner_races(n, k)
    return base + 1 if n > k and (n - 1) % (k - 1) == 0 else base


def knockout_height(n: int, k: int) -> int:
    """The most races any animal can run in the knock-out of :func:`knockout_top2` (race the first
    k unbeaten animals in the queue, the winner rejoins at its end): the tree's height, which does
    not depend on who wins."""
    queue = [0] * n  # races run so far by the animal in each place of the queue
    while len(queue) > 1:
        runners, queue = queue[:k], queue[k:]
        queue.append(max(runners) + 1)
    return queue[0]


def _check_triple(n: int, k: int, m: int) -> None:
    if not (k >= 2 and n >= 2 and 1 <= m <= n):
        raise BiaslabError(f"invalid horse problem n={n}, k={k}, m={m} (need k ≥ 2, 1 ≤ m ≤ n)")


# --------------------------------------------------------------------------------------------------
# partial orders
# --------------------------------------------------------------------------------------------------


def record_race(above: Sequence[int], order: Sequence[int]) -> Poset:
    """Add a finishing order (fastest first) to the known relations and close them transitively:
    an animal at or below the runner in place p (and in no later place) gains every runner before
    place p and everything known above them. One pass over the animals, which matters for the
    hundreds of animals in the schemes' races."""
    reach, upper = 0, []
    for runner in order:
        upper.append(reach)  # everything now known above the runner in this place
        reach |= above[runner] | (1 << runner)
    place = {runner: p for p, runner in enumerate(order)}
    runners = sum(1 << r for r in order)
    later_first = range(len(order) - 1, 0, -1)
    result = list(above)
    for x, mask in enumerate(above):
        if x in place:  # runners known above it finished ahead of it
            result[x] = mask | upper[place[x]]
        elif mask & runners:
            hit = mask & runners
            last = next((p for p in later_first if (hit >> order[p]) & 1), 0)
            result[x] = mask | upper[last]
    return tuple(result)


def drop_beaten(above: Sequence[int], m: int) -> Poset:
    """Remove animals with ≥ m known superiors: they cannot place, and racing them tells nothing new."""
    alive = [i for i, mask in enumerate(above) if mask.bit_count() < m]
    if len(alive) == len(above):
        return tuple(above)
    index = {old: new for new, old in enumerate(alive)}
    keep = sum(1 << i for i in alive)
    return tuple(sum(1 << index[x] for x in _bits(above[old] & keep)) for old in alive)


def is_solved(above: Sequence[int], m: int) -> bool:
    """Top m known in order: exactly j animals have fewer than j known superiors, for j = 1..m."""
    counts = [mask.bit_count() for mask in above]
    return all(sum(c < j for c in counts) == min(j, len(counts)) for j in range(1, m + 1))


def races_lower_bound(above: Sequence[int], m: int, k: int) -> int:
    """Sound pruning bound: the candidates for the first undetermined place are pairwise incomparable
    and only leave that set by racing, at most k − 1 per race."""
    counts = [mask.bit_count() for mask in above]
    placed = _placed(counts, m)
    if placed >= m:
        return 0
    candidates = sum(c == placed for c in counts)
    return math.ceil((candidates - 1) / (k - 1))


def finishing_orders(race: Sequence[int], above: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every finishing order of ``race`` consistent with what is already known (the adversary's moves)."""
    known = tuple(sum(1 << j for j, y in enumerate(race) if (above[x] >> y) & 1) for x in race)
    for local in _local_orders(known):
        yield tuple(race[i] for i in local)


@lru_cache(maxsize=1 << 12)
def _local_orders(known: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The orders of runners 0..len(known)−1 in which nobody finishes ahead of a runner known to be
    faster (``known[i]``: the runners known faster than runner i)."""

    def extend(rest: list[int]) -> Iterator[tuple[int, ...]]:
        if not rest:
            yield ()
        for i in rest:
            if not any((known[i] >> j) & 1 for j in rest):
                for tail in extend([j for j in rest if j != i]):
                    yield (i, *tail)

    return tuple(extend(list(range(len(known)))))


# --------------------------------------------------------------------------------------------------
# isomorphism-invariant keys
# --------------------------------------------------------------------------------------------------

Form = tuple[tuple[int, tuple[int, ...]], ...]
"""A poset with marks in canonical order: per animal, its mark and the positions above it."""


@lru_cache(maxsize=1 << 18)
def canonical_key(above: Poset, marked: int = 0) -> tuple[Form, ...]:
    """A key equal exactly for isomorphic (poset, marked set) pairs: the sorted canonical forms of
    its connected components (animals linked by known relations), so that untouched parts of a
    state keep their cached forms and identical components never need to be told apart."""
    below = _below(above)
    return tuple(
        sorted(_component_form(*_restrict(above, marked, part)) for part in _parts(above, below))
    )


def _below(above: Sequence[int]) -> list[int]:
    below = [0] * len(above)
    for i, mask in enumerate(above):
        for j in _bits(mask):
            below[j] |= 1 << i
    return below


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _parts(above: Sequence[int], below: Sequence[int]) -> list[list[int]]:
    """The connected components of the comparability graph, each in increasing order."""
    left = (1 << len(above)) - 1
    parts = []
    while left:
        frontier = left & -left
        part = 0
        while frontier:
            part |= frontier
            reached = 0
            for i in _bits(frontier):
                reached |= above[i] | below[i]
            frontier = reached & ~part
        left &= ~part
        parts.append(list(_bits(part)))
    return parts


def _restrict(above: Sequence[int], marked: int, part: Sequence[int]) -> tuple[Poset, int]:
    """The component's relations and marks, renumbered 0.. in the order of ``part``."""
    index = {old: new for new, old in enumerate(part)}
    local = tuple(sum(1 << index[y] for y in _bits(above[x])) for x in part)
    return local, sum(((marked >> x) & 1) << i for i, x in enumerate(part))


@lru_cache(maxsize=1 << 18)
def _component_form(above: Poset, marked: int) -> Form:
    """The canonical form of a connected (poset, marks) pair by individualisation and refinement
    (the scheme of graph canonisers such as nauty, small enough here to write out): refine colours
    by what lies above and below; while a cell holds animals that are not twins (same animals above
    and below, same mark), fix each twin class's first animal in turn and refine again; the form
    is the smallest encoding over all the orders reached. Twins may be ordered freely, as swapping
    two is an automorphism."""
    n = len(above)
    below = _below(above)
    ups = [list(_bits(mask)) for mask in above]
    downs = [list(_bits(mask)) for mask in below]
    twin = _rank([(above[i], below[i], (marked >> i) & 1) for i in range(n)])
    start = _rank([(len(ups[i]), len(downs[i]), (marked >> i) & 1) for i in range(n)])
    best: Form | None = None
    pending = [start]
    while pending:
        colours = _refine(pending.pop(), ups, downs)
        cell = _first_split_cell(colours, twin)
        if not cell:
            order = sorted(range(n), key=lambda i: colours[i])
            form = _encode(above, marked, order)
            best = form if best is None or form < best else best
            continue
        for x in cell:
            pending.append([2 * c - (i == x) for i, c in enumerate(colours)])
    assert best is not None
    return best


def _refine(colours: list[int], ups: Sequence[list[int]], downs: Sequence[list[int]]) -> list[int]:
    colours = _rank(colours)
    while True:
        refined = _rank(
            [
                (
                    colours[i],
                    tuple(sorted(colours[x] for x in ups[i])),
                    tuple(sorted(colours[x] for x in downs[i])),
                )
                for i in range(len(colours))
            ]
        )
        if max(refined) == max(colours):
            return refined
        colours = refined


def _first_split_cell(colours: Sequence[int], twin: Sequence[int]) -> list[int]:
    """One animal per twin class of the first cell that holds animals that are not twins."""
    cells: dict[int, dict[int, int]] = {}
    for i, c in enumerate(colours):
        cells.setdefault(c, {}).setdefault(twin[i], i)
    for c in sorted(cells):
        if len(cells[c]) > 1:
            return list(cells[c].values())
    return []


def _rank(values: Sequence[object]) -> list[int]:
    order = {v: r for r, v in enumerate(sorted(set(values)))}  # type: ignore[type-var]
    return [order[v] for v in values]


def _encode(above: Sequence[int], marked: int, order: Sequence[int]) -> Form:
    position = {x: p for p, x in enumerate(order)}
    return tuple(
        ((marked >> x) & 1, tuple(sorted(position[y] for y in _bits(above[x])))) for x in order
    )


# --------------------------------------------------------------------------------------------------
# exhaustive minimax
# --------------------------------------------------------------------------------------------------


@dataclass
class _Search:
    """Iterative-deepening minimax over partial orders, memoised on canonical keys."""

    k: int
    m: int
    known_win: dict[tuple[Form, ...], int] = field(default_factory=dict)
    known_loss: dict[tuple[Form, ...], int] = field(default_factory=dict)
    nodes: int = 0

    def wins(self, above: Poset, budget: int) -> bool:
        """Whether the searcher can force a solution within ``budget`` races."""
        if is_solved(above, self.m):
            return True
        if budget == 0 or races_lower_bound(above, self.m, self.k) > budget:
            return False
        key = canonical_key(above)
        if self.known_win.get(key, budget + 1) <= budget:
            return True
        if self.known_loss.get(key, -1) >= budget:
            return False
        self.nodes += 1
        result = any(self._race_wins(above, race, budget) for race in self._races(above, budget))
        if result:
            self.known_win[key] = min(budget, self.known_win.get(key, budget))
        else:
            self.known_loss[key] = max(budget, self.known_loss.get(key, budget))
        return result

    def _race_wins(self, above: Poset, race: tuple[int, ...], budget: int) -> bool:
        children = [
            drop_beaten(record_race(above, o), self.m) for o in finishing_orders(race, above)
        ]
        bounds = [races_lower_bound(child, self.m, self.k) for child in children]
        if max(bounds) > budget - 1:
            return False
        distinct: dict[tuple[Form, ...], tuple[int, Poset]] = {}
        for bound, child in zip(bounds, children, strict=True):
            key = canonical_key(child)
            if self.known_loss.get(key, -1) >= budget - 1:
                return False
            distinct.setdefault(key, (bound, child))
        hardest = sorted(distinct.values(), key=_hardest_first)
        return all(self.wins(child, budget - 1) for _, child in hardest)

    def _races(self, above: Poset, budget: int) -> Iterator[tuple[int, ...]]:
        """Full races (more runners never hurt), one per orbit of the marked poset, skipping races
        whose order is already known and races the adversary defeats at once (below)."""
        n = len(above)
        size = min(self.k, n)
        related = [i for i in range(n) if above[i] or any((a >> i) & 1 for a in above)]
        fresh = [i for i in range(n) if i not in related]
        fewest = self._fewest_candidates(above, budget)
        candidates = _candidates_mask(above, self.m)
        fresh_candidates = sum((candidates >> i) & 1 for i in fresh)
        seen: set[tuple[Form, ...]] = set()
        for n_related in range(size + 1):
            n_fresh = size - n_related
            if n_fresh > len(fresh):
                continue
            from_fresh = min(n_fresh, fresh_candidates)
            for chosen in itertools.combinations(related, n_related):
                in_race = from_fresh + sum((candidates >> x) & 1 for x in chosen)
                if in_race < fewest:
                    continue
                race = (*chosen, *fresh[:n_fresh])
                if _known_order(race, above):
                    continue
                key = canonical_key(above, sum(1 << x for x in race))
                if key not in seen:
                    seen.add(key)
                    yield race

    def _fewest_candidates(self, above: Poset, budget: int) -> int:
        """The fewest candidates for the first undetermined place a race must hold to survive the
        adversary's first reply: candidates (pairwise incomparable, nothing but the placed animals
        above them) finish first among the runners, after any placed ones, so a race with j ≥ 1 of
        the c candidates leaves c − j + 1 (and j = 0 leaves c); while two or more are left the child
        needs ⌈(c − j) / (k − 1)⌉ races, which must fit in ``budget`` − 1."""
        counts = [mask.bit_count() for mask in above]
        placed = _placed(counts, self.m)
        c = sum(count == placed for count in counts)
        for j in range(c + 1):
            left = c if j == 0 else c - j + 1
            if left < 2 or math.ceil((left - 1) / (self.k - 1)) <= budget - 1:
                return j
        return c  # unreachable: j = c leaves one candidate


def _hardest_first(bound_child: tuple[int, Poset]) -> tuple[int, int, int]:
    """Children the adversary most likely wins first: the highest bound, then the most animals
    left, then the fewest known relations."""
    bound, child = bound_child
    return (-bound, -len(child), sum(mask.bit_count() for mask in child))


def _placed(counts: Sequence[int], m: int) -> int:
    """How many top places are determined (the j-th place is when exactly j animals have fewer
    than j known superiors)."""
    placed = 0
    while placed < m and sum(c <= placed for c in counts) == placed + 1:
        placed += 1
    return placed


def _candidates_mask(above: Sequence[int], m: int) -> int:
    counts = [mask.bit_count() for mask in above]
    placed = _placed(counts, m)
    return sum(1 << i for i, count in enumerate(counts) if count == placed)


def _known_order(race: Sequence[int], above: Sequence[int]) -> bool:
    return all(
        (above[x] >> y) & 1 or (above[y] >> x) & 1 for x, y in itertools.combinations(race, 2)
    )


def solve_min_races(n: int, k: int, m: int, max_races: int = 30) -> int:
    """The minimax number of races, by exhaustive search (feasible for roughly n ≤ 25)."""
    _check_triple(n, k, m)
    return races_needed((0,) * n, k, m, max_races)


def races_needed(above: Poset, k: int, m: int, max_races: int = 30) -> int:
    """The minimax number of further races once the relations ``above`` are known (transitively
    closed). Budgets are tried upwards from the state's lower bound, sharing one table of proven
    wins and losses, so each budget's search reuses what the smaller ones refuted."""
    search = _Search(k=k, m=m)
    start = drop_beaten(above, m)
    try:
        for budget in range(races_lower_bound(start, m, k), max_races + 1):
            if search.wins(start, budget):
                return budget
    finally:
        canonical_key.cache_clear()
        _component_form.cache_clear()
    raise BiaslabError(
        f"no strategy within {max_races} races for {len(above)} animals, k={k}, m={m}"
    )


# --------------------------------------------------------------------------------------------------
# the classic scheme (the constructive upper bound for n = k²)
# --------------------------------------------------------------------------------------------------


def classic_scheme(speeds: Sequence[float], k: int, m: int) -> tuple[int, Poset]:
    """Run heats, a race of heat winners and one race of the remaining candidates on the true
    ``speeds`` (higher is faster) for n = k² and m ≤ 3; return the races used and what is known."""
    n = len(speeds)
    if n != k * k or not 1 <= m <= 3 or (m == 3 and k < 5):
        raise BiaslabError(f"the classic scheme needs n = k² and m ≤ 3 (k ≥ 5 for m = 3), got {n}")
    above: Poset = (0,) * n
    races = 0

    def race(runners: Sequence[int]) -> list[int]:
        nonlocal above, races
        order = sorted(runners, key=lambda x: -speeds[x])
        above = record_race(above, order)
        races += 1
        return order

    heats = [race(range(h * k, (h + 1) * k)) for h in range(k)]
    by_heat = {heat[0]: heat for heat in heats}
    winners = race([heat[0] for heat in heats])
    if m > 1:
        # animal at place p (0-based) of the heat whose winner placed r can place at most r + p
        candidates = [
            by_heat[w][p] for r, w in enumerate(winners) for p in range(k) if 0 < r + p < m
        ]
        if len(candidates) > 1:
            race(candidates)
    return races, above


def knockout_top2(speeds: Sequence[float], k: int) -> tuple[int, Poset]:
    """The top-2 scheme for (k − 1) | (n − 1): the queue knock-out of :func:`knockout_height`, then
    one race of the animals that finished right behind the champion; the races used and what is
    known (on the true ``speeds``, higher is faster)."""
    n = len(speeds)
    if n <= k or (n - 1) % (k - 1) or knockout_height(n, k) > k:
        raise BiaslabError(
            f"the knock-out top-2 scheme needs (k - 1) | (n - 1) and depth <= k, got {n}"
        )
    above: Poset = (0,) * n
    runners_up: dict[int, list[int]] = {}  # winner -> who finished second behind it
    queue, races = list(range(n)), 0
    while len(queue) > 1:
        runners, queue = queue[:k], queue[k:]
        order = sorted(runners, key=lambda x: -speeds[x])
        above = record_race(above, order)
        races += 1
        runners_up.setdefault(order[0], []).append(order[1])
        queue.append(order[0])
    candidates = runners_up.get(queue[0], [])
    if len(candidates) > 1:
        above = record_race(above, sorted(candidates, key=lambda x: -speeds[x]))
        races += 1
    return races, above
