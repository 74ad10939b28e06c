"""The robust ETR label of an answer does not depend on the names of its arbitrary objects."""

from __future__ import annotations

import itertools
import random

import pytest

from biaslab.suites.fallacy import solve
from biaslab.suites.fallacy.search import Limits, find_problem
from biaslab.suites.fallacy.views import MView

NAMES = ("x", "y", "z", "w", "a", "q")


def renamed(view: MView, names: tuple[str, ...]) -> MView:
    current = sorted(view.variables())
    temporary = view.rename({n: f"_{i}" for i, n in enumerate(current)})
    return temporary.rename({f"_{i}": n for i, n in enumerate(names)})


@pytest.mark.parametrize("seed", [500, 510])  # problems where the paper's label depends on names
def test_robust_label_is_invariant_to_variable_renaming(seed: int) -> None:
    found = find_problem(random.Random(seed), 6, Limits(quantified=True))
    premises = list(found.premises)
    conclusions = [found.known.conclusion.view, found.known.reversed_conclusion.view]
    answers = [p.without_issues() for p in premises if p.variables()]
    answers += [c.without_issues() for c in conclusions if c is not None and c.variables()]
    assert answers
    paper_varies = False
    for answer in answers:
        k = len(answer.variables())
        labels = [
            solve.label_answer(premises, conclusions, renamed(answer, names))
            for names in itertools.permutations(NAMES, k)
        ]
        assert len({label.etr_robust for label in labels}) == 1, answer
        assert len({label.correct for label in labels}) == 1, answer
        # the robust label contains the paper's, whatever the names
        assert all(label.etr_robust for label in labels if label.etr_paper)
        paper_varies |= len({label.etr_paper for label in labels}) > 1
    assert paper_varies  # the case the robust label exists for is really in these problems


def test_namings_are_the_same_set_for_every_renaming() -> None:
    found = find_problem(random.Random(505), 6, Limits(quantified=True))
    view = next(p for p in found.premises if p.variables())
    base = {n.to_pyetr() for n in solve.namings(view)}
    assert len(base) <= solve.MAX_NAMINGS
    for names in itertools.permutations(NAMES, len(view.variables())):
        assert {n.to_pyetr() for n in solve.namings(renamed(view, names))} == base
