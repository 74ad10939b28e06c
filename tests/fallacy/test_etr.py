"""The PyETR bridge: the paper's Example 49, the cached endorsement check, the work budget."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from biaslab.suites.fallacy import etr
from biaslab.suites.fallacy.deciders import decide
from biaslab.suites.fallacy.views import MView, parse_pyetr
from tests.fallacy.strategies import views
from tests.fallacy.test_deciders import EXAMPLE_49, pyetr_views

_EXAMPLE_49_CHECKS = """
from pyetr.inference import default_inference_procedure, default_procedure_does_it_follow

from biaslab.suites.fallacy.deciders import decide
from tests.fallacy.test_deciders import EXAMPLE_49, MARY_HAS_AN_ACE, pyetr_views

p1, p2 = pyetr_views(*EXAMPLE_49)
(ace,) = pyetr_views(MARY_HAS_AN_ACE)
assert default_procedure_does_it_follow([p1, p2], ace)  # ETR endorses "Mary has an ace"
assert decide([p1, p2], ace).entailed is False  # ... which does not follow
forward = default_inference_procedure([p1, p2])
backward = default_inference_procedure([p2, p1])
assert forward.query(ace).is_equivalent_under_arb_sub(ace)  # forward, ETR concludes it
assert not backward.query(ace).is_equivalent_under_arb_sub(ace)  # reversed, it does not
assert backward.is_equivalent_under_arb_sub(pyetr_views("∃b {Has(Sally(),b)King(b*)}")[0])
"""


def test_example_49_etr_endorses_a_fallacy_that_reversal_blocks() -> None:
    """Run as the suite runs PyETR: with the workers' fixed hash seed. PyETR's exact comparison
    names fresh variables in set order, so under some other hash seeds its own
    ``default_procedure_does_it_follow`` does not endorse the paper's conclusion (see
    :mod:`biaslab.suites.fallacy.etr`)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from biaslab.suites.fallacy.workers import HASH_SEED

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONHASHSEED": HASH_SEED}
    done = subprocess.run(
        [sys.executable, "-c", _EXAMPLE_49_CHECKS],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_example_49_monadic_with_issue_marks() -> None:
    premises = [
        parse_pyetr("∃x ∃y {Ace(Mary())King(x*),Jack(y)Queen(John())}"),
        parse_pyetr("{King(Sally()*)}"),
    ]
    found = etr.conclusion(premises)
    assert found.categorical and found.view == parse_pyetr("{Ace(Mary())}")
    assert etr.does_it_follow(premises, parse_pyetr("{Ace(Mary())}"))
    unmarked = [p.without_issues() for p in premises]
    assert etr.conclusion(unmarked).view is not None and etr.conclusion(unmarked).view.is_verum  # type: ignore[union-attr]


def test_affirming_the_consequent_is_etr_predicted() -> None:
    premises = [parse_pyetr("{P1(c1())P2(c1())}^{P1(c1())}"), parse_pyetr("{P2(c1())}")]
    found = etr.conclusion(premises)
    assert found.view == parse_pyetr("{P1(c1())}")
    assert decide([etr.to_view(p) for p in premises], etr.to_view(found.view)).entailed is False


def test_the_conclusion_is_renamed_canonically() -> None:
    premises = [parse_pyetr("∃q {P1(q*)P2(q)}"), parse_pyetr("∃r {P1(r*)P3(r)}")]
    found = etr.conclusion(premises)
    assert found.view is not None
    assert found.view == found.view.canonical()
    assert set(found.view.variables()) <= {"x", "y", "z", "w"}


CATEGORICAL = views(max_states=1, suppositions=False, variables=("x",))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        views(max_states=2, max_literals=2, variables=("x",), issues=True), min_size=1, max_size=3
    ),
    CATEGORICAL,
)
def test_endorsement_is_does_it_follow(premises: list[MView], target: MView) -> None:
    try:
        expected = etr.does_it_follow(premises, target)
        endorsement = etr.Endorsement(premises)
    except (etr.OverBudget, ValueError):
        assume(False)
        return
    assert endorsement.follows(target) is expected


def test_the_budget_stops_a_runaway_inference() -> None:
    premises = [
        parse_pyetr("∀x {~P1(x*)}"),
        parse_pyetr("∀x {P1(x*)P2(x*)P3(x)}^{P3(x)}"),
        parse_pyetr("∃x ∃y {P2(c1()*)P2(x*)P2(y*)}"),
        parse_pyetr("∀x {P2(c1()*)~P2(x*)}"),
    ]
    etr.conclusion(premises)  # the views are built (and cached) outside every budget
    with etr.budget(10**9):
        etr.conclusion(premises)
        used = etr._Work.count
    assert used > 100  # a quantified inference with real work
    with pytest.raises(etr.OverBudget), etr.budget(used - 1):
        etr.conclusion(premises)
    with etr.budget(used):  # the count is a property of the computation: it fits exactly
        etr.conclusion(premises)


def test_outside_the_fragment() -> None:
    (view,) = pyetr_views(EXAMPLE_49[1])
    with pytest.raises(etr.OutsideFragment):
        etr.from_view(view)


def test_the_budget_refuses_the_subsets_of_too_many_pairs() -> None:
    """``query`` lists every subset of its matching pairs at once; within a budget a set larger
    than the cap is over budget before one subset is made (24 pairs are 16 million sets)."""
    import pyetr.view

    etr._install_counter()
    with etr.budget(), pytest.raises(etr.OverBudget, match="subsets of 21 pairs"):
        pyetr.view.powerset(range(etr.MAX_SUBSET_PAIRS + 1))
    with etr.budget():
        assert len(pyetr.view.powerset(range(3))) == 8  # what PyETR's own gives
    assert len(pyetr.view.powerset(range(3))) == 8  # outside a budget: PyETR's own
