"""Which pool of distinct originals each family × hypothesis draws from, and the horse problems.

A block (one family × hypothesis) is split into strata that get equal shares of its pairs by block
randomisation — conjunction styles, syllogism validity — and each stratum has its own pool
(:mod:`biaslab.suites.tokenbias.pools`) and builder. The records themselves live in
:mod:`~biaslab.suites.tokenbias.conjunction` and :mod:`~biaslab.suites.tokenbias.syllogism`; the
horse answer is :func:`biaslab.suites.tokenbias.horses.min_races`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.config import Config, FamilyName, HypothesisName
from biaslab.suites.tokenbias.conjunction import (
    Conjunction,
    build_conjunction,
    celebrity_pool,
    conjunction_pool,
)
from biaslab.suites.tokenbias.horses import CLASSIC, min_races
from biaslab.suites.tokenbias.pools import Choice, Choices, Pool, Product, Union
from biaslab.suites.tokenbias.syllogism import Syllogism, build_syllogism, syllogism_pool

HORSE = wl.Animal("horse", "horses")
Numbers = Literal["classic", "varied"]


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


def _grid() -> tuple[tuple[int, int, int], ...]:
    """Every (n, k, m) the generator may emit: derived answers only, each ≥ 5 so a five-label window
    can put the answer in any position (tested one by one in tests/tokenbias/test_horses.py)."""
    squares = [(k * k, k, m) for k in range(4, 11) for m in (1, 2, 3) if m < 3 or k >= 5]
    extra = [(9, 3, 3), (13, 4, 3), (16, 4, 3), (20, 5, 3), (30, 6, 1), (20, 4, 1)]
    grid = sorted(set(squares + extra))
    return tuple(t for t in grid if min_races(*t) >= 5)


HORSE_GRID: tuple[tuple[int, int, int], ...] = _grid()


def horse_numbers(numbers: Numbers) -> tuple[tuple[int, int, int], ...]:
    return (CLASSIC,) if numbers == "classic" else HORSE_GRID


@cache
def horse_pool(numbers: Numbers) -> Pool:
    """Numbers × framing: "There are n horses." or "<person> keeps n horses on a farm near <town>."""
    framing = Union(
        "framing",
        (
            Choice("plain", 1),
            Product((Choice("person", len(wl.people())), Choice("place", len(wl.places())))),
        ),
    )
    return Product((Choice("numbers", len(horse_numbers(numbers))), framing))


def build_horses(numbers: Numbers, choices: Choices) -> HorseProblem:
    n, k, m = horse_numbers(numbers)[choices["numbers"]]
    if choices["framing"] == 0:
        return HorseProblem(n, k, m)
    owner = wl.people()[choices["person"]].name
    return HorseProblem(n, k, m, owner=owner, place=wl.places()[choices["place"]])


def other_numbers(problem: HorseProblem, rng: random.Random) -> tuple[int, int, int]:
    """Grid numbers different from the problem's (the H3 numbers perturbation), keeping "the m
    fastest, ranked in order" wording (m ≥ 2 stays m ≥ 2) so only number tokens change."""
    same = problem.numbers
    return rng.choice([t for t in HORSE_GRID if t != same and (t[2] == 1) == (problem.m == 1)])


# --------------------------------------------------------------------------------------------------
# strata of a block
# --------------------------------------------------------------------------------------------------

Builder = Callable[[Choices, random.Random], Problem]


@dataclass(frozen=True)
class Stratum:
    """One share of a block: its label, its pool of distinct originals and how one is built."""

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
    numbers: Numbers = "classic" if config.horses_twin != "animal" else config.horses_numbers

    def horses(choices: Choices, rng: random.Random) -> Problem:
        return build_horses(numbers, choices)

    return (Stratum("horses", horse_pool(numbers), horses),)


def _linda_strata(config: Config, hypothesis: HypothesisName) -> tuple[Stratum, ...]:
    connectors = config.connectors
    if hypothesis == "H3":

        def celebrity(choices: Choices, rng: random.Random) -> Problem:
            return build_conjunction("celebrity", choices, "relevant", connectors, rng)

        return (Stratum("celebrity", celebrity_pool(), celebrity),)
    shown = "relevant" if hypothesis == "H1" else config.added_event

    def stratum(style: str) -> Stratum:
        def build(choices: Choices, rng: random.Random) -> Problem:
            return build_conjunction(style, choices, shown, connectors, rng)  # type: ignore[arg-type]

        return Stratum(style, conjunction_pool(style, shown, connectors), build)

    return tuple(stratum(style) for style in config.styles)


def _syllogism_stratum(config: Config, hypothesis: HypothesisName, valid: bool) -> Stratum:
    h4 = hypothesis == "H4"
    wording = "classic" if h4 else config.quantifiers
    sourced = hypothesis == "H5"

    def build(choices: Choices, rng: random.Random) -> Problem:
        return build_syllogism(valid, h4, wording, sourced, choices)

    pool = syllogism_pool(valid, h4, wording, sourced)
    return Stratum("valid" if valid else "invalid", pool, build)
