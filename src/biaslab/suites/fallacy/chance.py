"""The chance level of the fallacy rate: how often a wrong answer of the same shape is ETR's.

For one problem, the *candidates* are the categorical conclusions over the problem's own atoms up
to the size of ETR's conclusion: conjunctions of 1..s literals over distinct ground atoms ``P(c)``,
each either way round, where s is the number of atoms of ETR's conclusion for the premises in the
order shown (if that is not categorical, of the conclusion in the other order; else 1:
:func:`shape_size`). The problem's atoms are those its
premises mention with a constant, and ``P(c)`` for every predicate P the premises apply to a
variable and every constant c (so "c is Q" after "every P is Q" is among them). A candidate is
*wrong* when some literal of it is not entailed, and a *fallacy* when it is also ETR-endorsed.

The chance level of the problem is fallacies / wrong candidates: the probability that an answerer
who errs on this problem, picking its wrong answer at random among the candidates, commits an
ETR fallacy. A model's FallacyRate is set beside the mean of these over the problems it got wrong
(:mod:`biaslab.suites.fallacy.analysis`).

Counting is exact and cheap. Wrong candidates of size j number ``C(A, j)·2^j − C(L, j)`` (A atoms,
L entailed literals; consistent premises never entail a literal and its negation). An endorsed
ground candidate must be a subset of a state of ETR's first step (PyETR's ``query`` answers a
ground target only with a subset of a state, Koralus 2022, Definition 30), so only those subsets
and ETR's own conclusions are asked about; a test checks the count against asking PyETR about
every candidate.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from biaslab.suites.fallacy.views import Literal, MView, Term

Atom = tuple[str, str]  # (predicate, constant)


def problem_atoms(premises: Iterable[MView]) -> list[Atom]:
    """The ground atoms candidates are built from, sorted."""
    views = list(premises)
    constants = sorted(set().union(*(v.constants() for v in views)))
    atoms: set[Atom] = set()
    for view in views:
        for lit in view.literals():
            if lit.term.variable:
                atoms.update((lit.predicate, c) for c in constants)
            else:
                atoms.add((lit.predicate, lit.term.name))
    return sorted(atoms)


def shape_size(shown: MView | None, other: MView | None) -> int:
    """s: the atoms of ETR's conclusion in the order shown, else in the other order, else 1."""
    for view in (shown, other):
        if view is not None and view.categorical:
            return view.n_atoms
    return 1


def candidate_count(atoms: int, size: int) -> int:
    return sum(math.comb(atoms, j) * 2**j for j in range(1, size + 1))


def wrong_count(atoms: int, entailed: int, size: int) -> int:
    return candidate_count(atoms, size) - sum(math.comb(entailed, j) for j in range(1, size + 1))


def wrong_count_of_size(atoms: int, entailed: int, size: int) -> int:
    """Wrong candidates of exactly ``size`` literals."""
    return math.comb(atoms, size) * 2**size - math.comb(entailed, size)


def candidate_view(literals: Iterable[Literal]) -> MView:
    return MView.build([list(literals)])


def literal(atom: Atom, positive: bool) -> Literal:
    return Literal(atom[0], Term(atom[1]), positive)


@dataclass(frozen=True)
class SizeCount:
    """The candidates of exactly ``size`` literals: how many are wrong, how many of those are
    ETR-predicted (robust label, paper label)."""

    size: int
    wrong: int
    fallacies_robust: int
    fallacies_paper: int


@dataclass(frozen=True)
class ChanceLevel:
    """The candidate counts of one problem (shares are None when no candidate is wrong), in
    total over sizes 1..size and per exact size (``by_size``, up to the larger of the two
    orders' shape sizes, so an answer of j literals can be set beside the candidates of its own
    shape)."""

    atoms: int
    size: int
    entailed: int
    candidates: int
    wrong: int
    fallacies_paper: int
    fallacies_robust: int
    by_size: tuple[SizeCount, ...] = ()

    @property
    def share_paper(self) -> float | None:
        return self.fallacies_paper / self.wrong if self.wrong else None

    @property
    def share_robust(self) -> float | None:
        return self.fallacies_robust / self.wrong if self.wrong else None


def endorsable(
    states: Iterable[frozenset[Literal]], atoms: Sequence[Atom], size: int
) -> set[frozenset[Literal]]:
    """Every candidate that is a subset of one of ``states`` (the only ones ETR can endorse)."""
    allowed = set(atoms)
    found: set[frozenset[Literal]] = set()
    for state in states:
        ground = sorted(
            (lit for lit in state if not lit.term.variable and lit.atom_key in allowed),
            key=Literal.sort_key,
        )
        for j in range(1, min(size, len(ground)) + 1):
            for subset in itertools.combinations(ground, j):
                if len({lit.atom_key for lit in subset}) == j:
                    found.add(frozenset(subset))
    return found


def random_candidate(rng: random.Random, atoms: Sequence[Atom], size: int) -> list[Literal]:
    """A candidate drawn uniformly from all candidates (of every size up to ``size``)."""
    weights = [math.comb(len(atoms), j) * 2**j for j in range(1, size + 1)]
    j = rng.choices(range(1, size + 1), weights=weights)[0]
    chosen = rng.sample(sorted(atoms), j)
    return [literal(atom, rng.random() < 0.5) for atom in sorted(chosen)]
