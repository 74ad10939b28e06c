"""Which pool of distinct problems each family × hypothesis draws from, and the horse problems.

A block (one family × hypothesis) is split into strata that get equal shares of its pairs by block
randomisation — conjunction styles, syllogism validity, horse problems asking for the fastest or
for the fastest few in order — and each stratum has its own pool
(:mod:`biaslab.suites.tokenbias.pools`) and builder. A pool counts problems as a reasoner counts
them (:mod:`biaslab.suites.tokenbias.problems`): names, towns and framings are drawn per pair and
are not part of its size. The records themselves live in
:mod:`~biaslab.suites.tokenbias.conjunction` and :mod:`~biaslab.suites.tokenbias.syllogism`; the
horse answer is :func:`biaslab.suites.tokenbias.horses.min_races`.

The classic horse problem (25 horses, 5 lanes, top 3) is one problem: with ``-p
horses_numbers=classic`` or a twin that changes the numbers, every pair shows it as its original,
and the pool is that of the twins (the other animals or numbers). The analysis counts such a block
as one cluster (:mod:`biaslab.suites.tokenbias.clusters`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.config import (
    Config,
    FamilyName,
    HorsesNumbers,
    HypothesisName,
    LindaStyle,
)
from biaslab.suites.tokenbias.conjunction import (
    Conjunction,
    build_conjunction,
    celebrity_pool,
    conjunction_pool,
)
from biaslab.suites.tokenbias.horses import CLASSIC, knockout_height, min_races
from biaslab.suites.tokenbias.pools import Choice, Choices, Pool, Product
from biaslab.suites.tokenbias.syllogism import Syllogism, build_syllogism, syllogism_pool

HORSE = wl.Animal("horse", "horses")
#: answers the grid may have: ≥ 5 so a five-label window can put the answer in any position
MIN_ANSWER, MAX_ANSWER = 5, 30
#: "find the fastest": n ≤ 100 animals and 3–12 lanes (the formula holds for any size; these keep
#: the problems everyday-sized, and there are already over 500 of them)
FASTEST_ANIMALS, FASTEST_LANES = 100, range(3, 13)
#: "the m fastest in order": 3–24 lanes, with as many animals as the theorems cover (n ≤ 668)
RANKED_LANES = range(3, 25)


@dataclass(frozen=True)
class HorseProblem:
    """n animals, races of at most k, find the m fastest in order; told plainly or about a farm."""

    n: int
    k: int
    m: int
    animal: wl.Animal = HORSE
    owner: str = ""
    place: str = ""

    @property
    def answer(self) -> int:
        return min_races(self.n, self.k, self.m)

    @property
    def numbers(self) -> tuple[int, int, int]:
        return self.n, self.k, self.m


Problem = Conjunction | Syllogism | HorseProblem
Numbers = tuple[int, int, int]


def _grid() -> tuple[Numbers, ...]:
    """Every (n, k, m) the generator may emit, each with a derived answer (tested one by one in
    tests/tokenbias/test_horses.py): the fastest one for every n ≤ 100 with k = 3..12 lanes; the
    top 2 or 3 for squares n = k² and a few searched cases; and the knock-out cases for the top 2,
    (k − 1) | (n − 1) with k = 3..24 lanes. Answers run from 5 to 30 races."""
    largest = max(RANKED_LANES)
    fastest = [(n, k, 1) for k in FASTEST_LANES for n in range(k + 1, FASTEST_ANIMALS + 1)]
    squares = [(k * k, k, m) for k in range(4, largest + 1) for m in (2, 3) if m < 3 or k >= 5]
    searched = [(9, 3, 3), (13, 4, 3), (16, 4, 3), (20, 5, 3), (30, 6, 1), (20, 4, 1)]
    knockout = [
        (n, k, 2)
        for k in RANKED_LANES
        for n in range(k + 1, (MAX_ANSWER - 1) * (k - 1) + 2)
        if (n - 1) % (k - 1) == 0 and knockout_height(n, k) <= k
    ]
    grid = sorted(set(squares + searched + fastest + knockout))
    return tuple(t for t in grid if MIN_ANSWER <= min_races(*t) <= MAX_ANSWER)


HORSE_GRID: tuple[Numbers, ...] = _grid()
#: the grid's two kinds of problem: find the fastest, or the m ≥ 2 fastest in order
FASTEST: tuple[Numbers, ...] = tuple(t for t in HORSE_GRID if t[2] == 1)
RANKED: tuple[Numbers, ...] = tuple(t for t in HORSE_GRID if t[2] >= 2)
#: the numbers a twin of the classic problem may have ("the m fastest, ranked in order" stays)
OTHER_THAN_CLASSIC: tuple[Numbers, ...] = tuple(t for t in RANKED if t != CLASSIC)


def horses_numbers(config: Config) -> HorsesNumbers:
    """The original's numbers: classic whenever the twin changes them (the hypothesis is about the
    famous numbers), else the configured ones (default varied)."""
    if config.horses_twin != "animal":
        return "classic"
    return config.horses_numbers or "varied"


def build_horses(numbers: Numbers, rng: random.Random) -> HorseProblem:
    """A horse problem with ``numbers``, told plainly or about a farm (a framing drawn per pair)."""
    n, k, m = numbers
    if rng.random() < 0.5:
        return HorseProblem(n, k, m)
    owner = rng.choice(wl.people()).name
    return HorseProblem(n, k, m, owner=owner, place=rng.choice(wl.places()))


@dataclass(frozen=True)
class HorseTwin:
    """What the H3 horse twin changes: its animal and/or its numbers."""

    animal: wl.Animal | None = None
    numbers: Numbers | None = None


def horse_twin(config: Config, choices: Choices, rng: random.Random) -> HorseTwin:
    """The twin a stratum's pool choice describes. Where the original is the one classic problem,
    the pool is over the twins (``animal``, ``twin_numbers``), so they are distinct; otherwise the
    original's numbers are distinct and the twin's animal is drawn per pair."""
    how = config.horses_twin
    animal = None
    if how != "numbers":
        index = choices.get("animal")
        animal = wl.animals()[index] if index is not None else rng.choice(wl.animals())
    numbers = OTHER_THAN_CLASSIC[choices["twin_numbers"]] if how != "animal" else None
    return HorseTwin(animal, numbers)


# --------------------------------------------------------------------------------------------------
# strata of a block
# --------------------------------------------------------------------------------------------------

Builder = Callable[[Choices, random.Random], Problem]


@dataclass(frozen=True)
class Stratum:
    """One share of a block: its label, its pool of distinct problems and how one is built."""

    label: str
    pool: Pool
    build: Builder


def strata(config: Config, family: FamilyName, hypothesis: HypothesisName) -> tuple[Stratum, ...]:
    """The strata of a block, in a fixed order (pairs are spread over them by block randomisation)."""
    if family == "linda":
        return _linda_strata(config, hypothesis)
    if family == "syllogism":
        validities = {"valid": (True,), "invalid": (False,)}.get(config.validity, (True, False))
        return tuple(_syllogism_stratum(config, hypothesis, valid) for valid in validities)
    return _horse_strata(config)


def _horse_strata(config: Config) -> tuple[Stratum, ...]:
    if horses_numbers(config) == "varied":
        return tuple(
            _numbers_stratum(label, grid)
            for label, grid in (("fastest", FASTEST), ("ranked", RANKED))
        )
    twins: list[Choice] = []
    if config.horses_twin != "numbers":
        twins.append(Choice("animal", len(wl.animals())))
    if config.horses_twin != "animal":
        twins.append(Choice("twin_numbers", len(OTHER_THAN_CLASSIC)))

    def classic(choices: Choices, rng: random.Random) -> Problem:
        return build_horses(CLASSIC, rng)

    return (Stratum("classic", Product(tuple(twins)), classic),)


def _numbers_stratum(label: str, grid: tuple[Numbers, ...]) -> Stratum:
    def build(choices: Choices, rng: random.Random) -> Problem:
        return build_horses(grid[choices["numbers"]], rng)

    return Stratum(label, Product((Choice("numbers", len(grid)),)), build)


def _linda_strata(config: Config, hypothesis: HypothesisName) -> tuple[Stratum, ...]:
    connectors = config.connectors
    if hypothesis == "H3":

        def celebrity(choices: Choices, rng: random.Random) -> Problem:
            return build_conjunction("celebrity", choices, "relevant", connectors, rng)

        return (Stratum("celebrity", celebrity_pool(), celebrity),)
    shown = "relevant" if hypothesis == "H1" else config.added_event

    def stratum(style: LindaStyle) -> Stratum:
        def build(choices: Choices, rng: random.Random) -> Problem:
            return build_conjunction(style, choices, shown, connectors, rng)

        return Stratum(style, conjunction_pool(style, shown, connectors), build)

    return tuple(stratum(style) for style in config.styles)


def _syllogism_stratum(config: Config, hypothesis: HypothesisName, valid: bool) -> Stratum:
    h4 = hypothesis == "H4"
    wording = "classic" if h4 else config.quantifiers
    sourced = hypothesis == "H5"

    def build(choices: Choices, rng: random.Random) -> Problem:
        return build_syllogism(valid, h4, wording, sourced, choices, rng)

    return Stratum("valid" if valid else "invalid", syllogism_pool(valid, h4), build)
