"""Finite pools of distinct problems, and draws from them without repeats.

A pool describes every original a generator can write for one family × hypothesis as a tree of
choices: a :class:`Product` of independent choices, or a :class:`Union` of alternatives whose own
choices differ (a profile's activities, a story's connectors). Each original is one index in
``range(pool.size)`` and :meth:`decode` turns the index into the choices, so a pool's size is exact
and distinct indices are distinct problems (the tests check that they also render to distinct
prompts). Draws are rejection sampling from a per-pair random stream against the indices earlier
pairs took, so pair ``i`` depends only on pairs ``0..i-1``: a set of 10 pairs is the start of the set
of 1,000.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from biaslab.errors import BiaslabError

Choices = dict[str, int]


@dataclass(frozen=True)
class Choice:
    """``size`` options for one named slot."""

    name: str
    size: int


@dataclass(frozen=True)
class Product:
    """Independent choices: every combination of its parts."""

    parts: tuple[Part, ...]

    @cached_property
    def size(self) -> int:
        return math.prod(part.size for part in self.parts)

    def decode(self, index: int) -> Choices:
        if not 0 <= index < self.size:
            raise IndexError("index beyond the pool")
        choices: Choices = {}
        for part in reversed(self.parts):
            index, rest = divmod(index, part.size)
            choices |= _decode(part, rest)
        return choices


@dataclass(frozen=True)
class Union:
    """Alternatives, each with its own choices; ``name`` records which one was taken."""

    name: str
    options: tuple[Part, ...]

    @cached_property
    def size(self) -> int:
        return sum(option.size for option in self.options)

    def decode(self, index: int) -> Choices:
        if index < 0:
            raise IndexError("index beyond the pool")
        for number, option in enumerate(self.options):
            if index < option.size:
                return {self.name: number, **_decode(option, index)}
            index -= option.size
        raise IndexError("index beyond the pool")


Part = Choice | Product | Union
Pool = Product | Union


def _decode(part: Part, index: int) -> Choices:
    return {part.name: index} if isinstance(part, Choice) else part.decode(index)


def draw_distinct(size: int, taken: set[int], rng: random.Random) -> int:
    """An index of ``range(size)`` not in ``taken`` (uniform among the free ones)."""
    if len(taken) >= size:
        raise BiaslabError(f"pool of {size:,} distinct problems exhausted")
    while True:
        index = rng.randrange(size)
        if index not in taken:
            taken.add(index)
            return index


def capacity(pools: list[Pool]) -> int:
    """How many pairs strata assigned by block randomisation over ``pools`` can always supply:
    every stratum gets at most ⌈n / strata⌉ pairs, so the smallest pool bounds the rest."""
    return len(pools) * min(pool.size for pool in pools) if pools else 0


def check_capacity(n: int, pools: list[Pool], describe: Callable[[], str]) -> None:
    """A one-line error naming the pool size when ``n`` pairs cannot all be distinct."""
    available = capacity(pools)
    if n > available:
        raise BiaslabError(
            f"tokenbias: --n {n} exceeds the {available:,} distinct originals that {describe()} "
            "can supply; lower --n or widen the pool with -p"
        )
