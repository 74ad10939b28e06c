"""Monadic views: text and constructors agree with PyETR, canonical names are canonical."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biaslab.suites.fallacy import etr
from biaslab.suites.fallacy.views import (
    Literal,
    MView,
    Term,
    parse_pyetr,
    prefix,
    restore_issues,
    shared_issues,
)
from tests.fallacy.strategies import views

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(views(issues=True))
def test_text_and_constructors_agree_with_pyetr(view: MView) -> None:
    from pyetr import View

    parsed = View.from_str(view.to_pyetr())
    assert etr.to_view(view) == parsed
    assert etr.from_view(parsed) == view
    assert parse_pyetr(view.to_pyetr()) == view
    assert parse_pyetr(parsed.to_str()) == view


@SETTINGS
@given(views(issues=True), st.randoms(use_true_random=False))
def test_canonical_text_ignores_variable_names(view: MView, rng: random.Random) -> None:
    names = sorted(view.variables())
    fresh = rng.sample(["q", "r", "s", "t", "u", "w"], len(names))
    renamed = view.rename(dict(zip(names, fresh, strict=True)))
    assert renamed.canonical().to_pyetr() == view.canonical().to_pyetr()
    assert renamed.equivalent_up_to_renaming(view)
    assert etr.to_view(renamed).is_equivalent_under_arb_sub(etr.to_view(view))


def test_prefix_follows_dependencies() -> None:
    view = parse_pyetr("∀x ∃y ∀z {P1(x)P2(y)P1(z)}")
    assert prefix(view) == [("forall", "x"), ("exists", "y"), ("forall", "z")]
    assert view.dependencies == frozenset({("y", "x")})
    independent = parse_pyetr("∃y ∀x {P1(x)P2(y)}")
    assert prefix(independent) == [("exists", "y"), ("forall", "x")]


def test_atoms_count_a_negated_atom_separately() -> None:
    view = parse_pyetr("{P1(c1())~P1(c1()),P1(c1())}^{P1(c1())}")
    assert view.n_atoms == 2  # P1(c1) and ~P1(c1), as PyETR's len(view.atoms)
    assert view.n_atoms == len(etr.to_view(view).atoms)


def test_parse_rejects_text_outside_the_fragment() -> None:
    for text in ("{Has(a(),b())}", "∃x {P(y)}", "{P(a())}^{Q(a()),R(a())}", "{P(f(a()))}"):
        try:
            parse_pyetr(text)
        except ValueError:
            continue
        raise AssertionError(f"{text} was accepted")


def test_shared_predicates_are_at_issue() -> None:
    first = parse_pyetr("∃x {P1(c1())P2(x),P3(c2())P4(x)}")
    second = parse_pyetr("{P2(c3())}")
    marked = shared_issues([first, second])
    assert marked[0].to_pyetr() == "∃x {P1(c1())P2(x*),P3(c2())P4(x)}"
    assert marked[1].to_pyetr() == "{P2(c3()*)}"


def test_restore_issues_marks_atoms_marked_in_a_source() -> None:
    answer = MView.build([[Literal("P1", Term("c1")), Literal("P2", Term("c1"))]])
    source = parse_pyetr("{P1(c1()*)~P2(c2()*)}")
    assert restore_issues(answer, [source]).issues == {Literal("P1", Term("c1"))}
