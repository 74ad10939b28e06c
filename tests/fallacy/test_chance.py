"""The chance level's counting shortcut against asking PyETR and the decider about every
candidate of small generated problems."""

from __future__ import annotations

import itertools
import random

import pytest

from biaslab.suites.fallacy import etr
from biaslab.suites.fallacy.chance import (
    candidate_count,
    candidate_view,
    literal,
    problem_atoms,
    random_candidate,
    shape_size,
    wrong_count,
)
from biaslab.suites.fallacy.deciders import decide
from biaslab.suites.fallacy.search import Limits, find_problem
from biaslab.suites.fallacy.solve import analyse
from biaslab.suites.fallacy.views import MView, parse_pyetr, restore_issues


def brute_force(
    premises: tuple[MView, ...], conclusions: list[MView], size: int
) -> tuple[int, int, int, int]:
    """(candidates, wrong, paper fallacies, robust fallacies) by asking about every candidate."""
    atoms = problem_atoms(premises)
    views = [etr.to_view(p) for p in premises]
    total = wrong = paper = robust = 0
    for j in range(1, size + 1):
        for chosen in itertools.combinations(atoms, j):
            for signs in itertools.product((True, False), repeat=j):
                total += 1
                candidate = candidate_view(
                    literal(a, s) for a, s in zip(chosen, signs, strict=True)
                )
                if decide(views, etr.to_view(candidate), unbounded=False).finite.entailed:
                    continue
                wrong += 1
                endorsed = etr.does_it_follow(premises, candidate)
                restored = restore_issues(candidate, [*premises, *conclusions])
                paper += endorsed
                robust += (
                    endorsed
                    or etr.does_it_follow(premises, restored)
                    or any(
                        candidate.equivalent_up_to_renaming(c.without_issues()) for c in conclusions
                    )
                )
    return total, wrong, paper, robust


@pytest.mark.parametrize("index", [0, 1, 2, 3, 5, 8])
def test_counting_matches_asking_about_every_candidate(index: int) -> None:
    found = find_problem(random.Random(index), 4 + index % 3, Limits())
    facts = analyse(found.premises, found.known)
    conclusions = [
        c.view for c in (facts.conclusion, facts.reversed_conclusion) if c.view is not None
    ]
    for chance, size in (
        (facts.chance, shape_size(facts.conclusion.view, facts.reversed_conclusion.view)),
        (facts.chance_reversed, shape_size(facts.reversed_conclusion.view, facts.conclusion.view)),
    ):
        assert chance is not None and chance.size == size
        expected = brute_force(found.premises, conclusions, size)
        counts = (chance.candidates, chance.wrong, chance.fallacies_paper, chance.fallacies_robust)
        assert counts == expected
    assert facts.chance is not None and facts.chance.fallacies_robust >= 1  # ETR's conclusion


def test_counts_by_hand() -> None:
    assert candidate_count(3, 2) == 3 * 2 + 3 * 4
    assert wrong_count(3, 1, 2) == candidate_count(3, 2) - 1  # one entailed literal: one right


def test_problem_atoms_include_instances_of_quantified_predicates() -> None:
    premises = [parse_pyetr("∀x {P1(x)P2(x)}^{P1(x)}"), parse_pyetr("{P1(c1())P3(c2())}")]
    assert problem_atoms(premises) == [
        ("P1", "c1"),
        ("P1", "c2"),
        ("P2", "c1"),
        ("P2", "c2"),
        ("P3", "c2"),
    ]


def test_random_candidates_are_uniform_over_all_candidates() -> None:
    atoms = [("P1", "c1"), ("P2", "c1"), ("P1", "c2")]
    rng = random.Random(0)
    draws = [frozenset(random_candidate(rng, atoms, 2)) for _ in range(24_000)]
    counts = {}
    for draw in draws:
        counts[draw] = counts.get(draw, 0) + 1
    assert len(counts) == candidate_count(3, 2)  # 18 candidates, all drawn
    expected = len(draws) / candidate_count(3, 2)
    assert all(abs(c - expected) < 0.15 * expected for c in counts.values())


@pytest.mark.parametrize("index", [0, 3])
def test_counts_per_exact_size_match_asking_about_every_candidate(index: int) -> None:
    found = find_problem(random.Random(index), 4 + index % 3, Limits())
    facts = analyse(found.premises, found.known)
    conclusions = [
        c.view for c in (facts.conclusion, facts.reversed_conclusion) if c.view is not None
    ]
    assert facts.chance is not None and facts.chance.by_size
    assert facts.chance_reversed is not None
    assert facts.chance.by_size == facts.chance_reversed.by_size  # the same for both orders
    previous = (0, 0, 0, 0)
    for count in facts.chance.by_size:
        total = brute_force(found.premises, conclusions, count.size)
        wrong, paper, robust = (total[k] - previous[k] for k in (1, 2, 3))
        assert (count.wrong, count.fallacies_paper, count.fallacies_robust) == (
            wrong,
            paper,
            robust,
        )
        previous = total
    assert sum(c.wrong for c in facts.chance.by_size if c.size <= facts.chance.size) == (
        facts.chance.wrong
    )
