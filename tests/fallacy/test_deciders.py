"""The two validity deciders on textbook cases, known pitfalls and random problems, against a
brute-force reference that evaluates views in every finite structure."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biaslab.suites.fallacy import etr
from biaslab.suites.fallacy.deciders import decide, domain_bound, entailed_literals
from biaslab.suites.fallacy.views import MView, parse_pyetr
from tests.fallacy.reference_logic import brute_force_entails, reference_entails
from tests.fallacy.strategies import views

EXAMPLE_49 = (
    "∃a ∃b ∃c ∃d ∃e ∃f {Ace(a*)Has(Mary(),a)Has(c,b)King(b*),Has(John(),d)Has(f,e)Jack(e)Queen(d)}",
    "∃g {King(g*)Has(Sally(),g)}",
)
MARY_HAS_AN_ACE = "∃h {Ace(h*)Has(Mary(),h)}"


def pyetr_views(*texts: str):  # type: ignore[no-untyped-def]
    from pyetr import View

    return [View.from_str(t) for t in texts]


CASES = [
    # (premises, conclusion, entailed)
    (("{P(a())Q(a())}^{P(a())}", "{P(a())}"), "{Q(a())}", True),  # modus ponens
    (("{P(a())Q(a())}^{P(a())}", "{~Q(a())}"), "{~P(a())}", True),  # modus tollens
    (("{P(a())Q(a())}^{P(a())}", "{Q(a())}"), "{P(a())}", False),  # affirming the consequent
    (("{A(a())B(a()),C(b())D(b())}", "{A(a())}"), "{B(a())}", False),  # disjunction fallacy (e13)
    (("{A(a())B(a()),C(b())D(b())}", "{~A(a())}"), "{C(b())D(b())}", True),  # its control (e3)
    (("∃a {P(a)Q(a())}",), "{Q(a())}", True),  # a bound variable named like a constant
    (("∀x {P(x)}",), "∃y {P(y)}", True),  # non-empty domain
    (("{P(s())}",), "∀x {P(x)}", False),
    (("∀x {B(x*)A(x)}^{B(x*)}", "∃x {B(x*)C(x)}"), "∃x {C(x)A(x)}", True),  # e57
    (("∃x {SGN(x)T(x*)}", "{T(m()*)}"), "{SGN(m())}", False),  # e47
    (("∀x ∃y {P(x)Q(y)}",), "∃y ∀x {P(x)Q(y)}", True),
    (("{P(a())}", "{~P(a())}"), "{Q(b())}", True),  # inconsistent premises entail everything
    (("{P(a())}",), "{0}", True),  # "nothing follows" always follows
]


@pytest.mark.parametrize(("premises", "conclusion", "entailed"), CASES)
def test_textbook_cases(premises: tuple[str, ...], conclusion: str, entailed: bool) -> None:
    decision = decide(pyetr_views(*premises), pyetr_views(conclusion)[0])
    assert decision.agree, decision
    assert decision.entailed is entailed


def test_example_49_in_the_papers_encoding_is_invalid() -> None:
    decision = decide(pyetr_views(*EXAMPLE_49), pyetr_views(MARY_HAS_AN_ACE)[0])
    assert decision.agree and decision.entailed is False
    assert "Bernays" in decision.finite.detail  # binary Has: decided through the BS class


def test_a_problem_that_stalls_unrenamed_z3_is_decided_quickly() -> None:
    premises = pyetr_views(
        "∃x {R(k2())R(x)}",
        "{P(k1())R(k1())~R(k1()*),Q(k1())Q(k1()*)~Q(k2()*)}^{R(k2())~P(k2())}",
        "∃x ∀y {P(k2())Q(x)~Q(y),P(k1())~Q(x*),P(x)~R(x)}",
        "∃x {P(x*)Q(x)R(x),Q(k2()*)~P(k1())~R(k1()),~R(k2())}",
    )
    from pyetr.inference import default_inference_procedure

    conclusion = default_inference_procedure(premises)
    start = time.perf_counter()
    decision = decide(premises, conclusion)
    assert time.perf_counter() - start < 5.0
    assert decision.agree and decision.entailed is False


def test_outside_the_decidable_fragment_the_finite_decider_abstains() -> None:
    decision = decide(pyetr_views("∀x ∃y {R(x,y)}"), pyetr_views("∃y ∀x {R(x,y)}")[0])
    assert decision.finite.entailed is None and "fragment" in decision.finite.detail
    assert decision.unbounded.entailed is False
    assert not decision.agree and decision.entailed is None


def test_monadic_bound_is_two_to_the_predicates() -> None:
    premises = pyetr_views("∀x {P(x)Q(x)}^{P(x)}", "{P(a())}", "{R(b())}")
    size, why = domain_bound(premises, pyetr_views("{Q(a())}")[0])
    assert size == 2 and "Bernays" in why  # ∀-only premises: constants suffice, tighter than 2^3
    size, why = domain_bound(pyetr_views("∀x ∃y {P(x)Q(y)}"), pyetr_views("{R(a())}")[0])
    assert (size, why) == (8, "monadic, 3 unary predicates")


def test_entailed_literals() -> None:
    premises = pyetr_views("{P1(c1())P2(c1())}^{P1(c1())}", "{P1(c1())}", "{P3(c2()),~P3(c2())}")
    atoms = [("P1", "c1"), ("P2", "c1"), ("P3", "c2"), ("P2", "c2")]
    assert entailed_literals(premises, atoms) == {("P1", "c1", True), ("P2", "c1", True)}


SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SMALL = views(
    predicates=("P1",), constants=("c1", "c2"), variables=("x",), max_states=2, max_literals=2
)


@SETTINGS
@given(
    st.lists(views(max_states=2, max_literals=2), min_size=1, max_size=3),
    views(max_states=2, max_literals=2),
)
def test_both_deciders_agree_with_the_reference(premises: list[MView], conclusion: MView) -> None:
    decision = decide([etr.to_view(p) for p in premises], etr.to_view(conclusion))
    expected = reference_entails(premises, conclusion)
    assert decision.finite.entailed is expected, (premises, conclusion)
    assert decision.unbounded.entailed in (expected, None)


def test_reference_agrees_on_the_textbook_cases() -> None:
    for premises, conclusion, entailed in CASES:
        try:
            views_ = [parse_pyetr(p) for p in premises]
            target = parse_pyetr(conclusion)
        except ValueError:
            continue  # outside the monadic reader (nullary or 0-state views)
        if len(set().union(*(v.predicates() for v in [*views_, target]))) > 3:
            continue  # 2^(2^k) type structures: the reference stays small
        assert reference_entails(views_, target) is entailed, (premises, conclusion)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(SMALL, min_size=1, max_size=2), SMALL)
def test_type_structures_miss_no_counter_model_up_to_two_to_the_k_plus_m(
    premises: list[MView], conclusion: MView
) -> None:
    bound = 2 ** len(set().union(*(v.predicates() for v in [*premises, conclusion]))) + 2
    assert reference_entails(premises, conclusion) is brute_force_entails(
        premises, conclusion, bound
    )
