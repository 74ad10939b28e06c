"""Reading answers without an LLM: realistic answers, the premises' own English read back into
the same views, and what must stay unparsed."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biaslab.suites.fallacy.grammar import read_sentence
from biaslab.suites.fallacy.lexicon import Lexicon
from biaslab.suites.fallacy.reading import read_answer
from biaslab.suites.fallacy.render import sentence, view_text
from biaslab.suites.fallacy.search import Limits, find_problem
from biaslab.suites.fallacy.themes import THEME_KEYS, Names, draw_names, get_theme
from biaslab.suites.fallacy.views import MView, parse_pyetr
from tests.fallacy.strategies import views

CARDS = Names(
    "cards",
    {"c1": "the ace", "c2": "the king", "c3": "the ten"},
    {"P1": "red", "P2": "striped", "P3": "gilded", "P4": "torn"},
)
PROGRAMS = Names(
    "programs", {"c1": "Kestrel", "c2": "Quill"}, {"P1": "self-updating", "P2": "dormant"}
)


def lexicon(names: Names) -> Lexicon:
    return Lexicon.from_names(names, get_theme(names.theme).kind)


GOLDEN = [
    ("Answer: the ace is red.", "{P1(c1())}"),
    ("**Answer:** The ace is either red or striped", "{P1(c1()),P2(c1())}"),
    ("Answer: at least one of the ace or the king is red", "{P1(c1()),P1(c2())}"),
    ("Answer: if the ace is red, then it is striped", "{P1(c1())P2(c1())}^{P1(c1())}"),
    ("Answer: there exists a red card that is also striped", "∃x {P1(x)P2(x)}"),
    ("Answer: there is a card that is red and striped", "∃x {P1(x)P2(x)}"),
    ("Answer: something is red and striped", "∃x {P1(x)P2(x)}"),
    (
        "Answer: The ace and the king are both red, and the ten is not gilded.",
        "{P1(c1())P1(c2())~P3(c3())}",
    ),
    ("Answer: The ace, the king and the ten are red", "{P1(c1())P1(c2())P1(c3())}"),
    ("Answer: Ace must be red", "{P1(c1())}"),
    ("Answer: the ace isn't red", "{~P1(c1())}"),
    ("Answer: the ace is red, striped, and gilded", "{P1(c1())P2(c1())P3(c1())}"),
    ("Answer: the ace is neither red nor striped", "{~P1(c1())~P2(c1())}"),
    ("Answer: the ace is red and not striped", "{P1(c1())~P2(c1())}"),
    ("Answer: the ace is red or the king is striped", "{P1(c1()),P2(c2())}"),
    (
        "Answer: either the ace is red, or the king is striped and the ten is torn",
        "{P1(c1()),P2(c2())P4(c3())}",
    ),
    (
        "Answer: From the premises, we can conclude that the ace is red and striped.",
        "{P1(c1())P2(c1())}",
    ),
    (
        "Answer: the ace is either red or striped, but we cannot determine which",
        "{P1(c1()),P2(c1())}",
    ),
    ("Answer: every red card is striped", "∀x {P1(x)P2(x)}^{P1(x)}"),
    ("Answer: all cards that are red are striped", "∀x {P1(x)P2(x)}^{P1(x)}"),
    ("Answer: no card is torn", "∀x {~P4(x)}"),
    ("Answer: for all x, if x is red, then x is striped", "∀x {P1(x)P2(x)}^{P1(x)}"),
    ("Answer: There is some x such that x is red and x is not torn", "∃x {P1(x)~P4(x)}"),
    ("Reasoning ...\nAnswer:\nThe king is gilded.", "{P3(c2())}"),
    # negation scope: "not" takes the next property; "not both" / "not either" the whole list
    ("Answer: the ace is not red and striped", "{~P1(c1())P2(c1())}"),
    ("Answer: the ace is not red or striped", "{~P1(c1()),P2(c1())}"),
    ("Answer: the ace is not both red and striped", "{~P1(c1()),~P2(c1())}"),
    ("Answer: the ace and the king are not both red", "{~P1(c1()),~P1(c2())}"),
    ("Answer: the ace is not either red or striped", "{~P1(c1())~P2(c1())}"),
    ("Answer: it is not the case that the ace is red", "{~P1(c1())}"),
    (
        "Answer: it is not the case that the ace is red and the king is striped",
        "{~P1(c1()),~P2(c2())}",
    ),
    (
        "Answer: it isn't true that either the ace is red or the king is striped",
        "{~P1(c1())~P2(c2())}",
    ),
    # modal words: "must" asserts, "cannot be" / "must not be" deny
    ("Answer: the ace must not be red", "{~P1(c1())}"),
    ("Answer: the ace cannot be red", "{~P1(c1())}"),
    ("Answer: the ace can not be striped", "{~P2(c1())}"),
    ("Answer: the ace necessarily is red", "{P1(c1())}"),
    # either … or, inclusive unless "but not both"
    ("Answer: either the ace is red or it is striped", "{P1(c1()),P2(c1())}"),
    ("Answer: either the ace or the king is red", "{P1(c1()),P1(c2())}"),
    (
        "Answer: either the ace is red and the king is striped, or the ten is torn",
        "{P1(c1())P2(c2()),P4(c3())}",
    ),
    (
        "Answer: either the ace is red or the king is striped, but not both",
        "{P1(c1())~P2(c2()),~P1(c1())P2(c2())}",
    ),
    ("Answer: the ace is red or striped but not both", "{P1(c1())~P2(c1()),~P1(c1())P2(c1())}"),
    # two claims joined by a comma or a semicolon are both claimed
    ("Answer: the ace is red; the king is striped", "{P1(c1())P2(c2())}"),
    ("Answer: nothing follows.", "{0}"),
    ("Answer: We cannot conclude anything", "{0}"),
    ("Answer: Nothing definite can be concluded", "{0}"),
    ("Answer: No conclusion can be drawn.", "{0}"),
]


@pytest.mark.parametrize(("answer", "expected"), GOLDEN)
def test_realistic_answers(answer: str, expected: str) -> None:
    reading = read_answer(answer, lexicon(CARDS))
    assert reading.view == parse_pyetr(expected), (reading, answer)
    assert reading.mode == ("nothing" if expected == "{0}" else "strict")


def test_names_with_hyphens_underscores_and_spaces_are_the_same() -> None:
    for answer in (
        "Answer: Kestrel is self-updating",
        "Answer: kestrel is self_updating",
        "Answer: Kestrel is self updating",
    ):
        assert read_answer(answer, lexicon(PROGRAMS)).view == parse_pyetr("{P1(c1())}")


def test_lenient_reading_is_flagged() -> None:
    reading = read_answer(
        "Answer: the ace is red, and the king is obviously striped", lexicon(CARDS)
    )
    assert reading.mode == "lenient" and reading.view == parse_pyetr("{P1(c1())P2(c2())}")


@pytest.mark.parametrize(
    "answer",
    [
        "Answer: blah blah ace red",  # no copula: garbage that names an object and a property
        "Answer: the ace red, the king not striped",
        "Answer: the ace is clearly red and not the king",  # a negation before an object
        "Answer: it is wrong that the ace is red",  # a word that changes the logic
        "Answer: the ace is red whatever the king turns out to be about it",  # too many unknowns
        "Answer: every card is red, we know",
    ],
)
def test_the_lenient_reading_does_not_turn_garbage_into_a_formula(answer: str) -> None:
    reading = read_answer(answer, lexicon(CARDS))
    assert reading.view is None and reading.status == "unreadable", reading


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ("Answer: I can't tell", "undecided"),
        ("Answer: whether the ace is red cannot be determined", "undecided"),
        ("Answer: unknown", "undecided"),
        ("Answer: There is not enough information", "undecided"),
        ("Answer: I don't know", "undecided"),
        ("Answer: the ace might be red", "hedged"),
        ("Answer: the ace could be striped and the king is red", "hedged"),
        ("Answer: possibly the ace is red", "hedged"),
        ("Answer: the ace is red, but I am not sure", "hedged"),
        ("Answer: the ace is red (this may be wrong)", "hedged"),
        ("Answer: the ace seems to be red and the king probably striped", "hedged"),
        ("Answer: I'm sorry, but I can't help with that.", "refusal"),
        ("I'm sorry, I cannot answer this question.", "refusal"),  # no answer line
        ("Answer: As an AI, I decline to speculate", "refusal"),
        ("The ace is red.", "no_answer"),
        ("", "no_answer"),
        ("Answer: the ace is blue", "unreadable"),
    ],
)
def test_no_conclusion_answers_are_recorded_by_kind_never_as_nothing_follows(
    answer: str, status: str
) -> None:
    reading = read_answer(answer, lexicon(CARDS))
    assert reading.view is None and reading.mode is None and reading.status == status, reading


def test_nothing_follows_is_a_parsed_answer_and_undecided_is_not() -> None:
    nothing = read_answer("Answer: Nothing follows.", lexicon(CARDS))
    undecided = read_answer("Answer: I cannot tell.", lexicon(CARDS))
    assert nothing.status == "nothing" and nothing.view == parse_pyetr("{0}")
    assert undecided.status == "undecided" and undecided.view is None


@pytest.mark.parametrize(
    "answer",
    [
        "I cannot help with that.",  # no answer line
        "",
        "Answer:",
        "Answer: I refuse to answer.",
        "Answer: the ace is blue",  # not a property of the problem
        "Answer: the queen is red",  # not an object of the problem
        "Answer: if the ace is red or the king is red, then the ten is torn",  # disjunctive antecedent
        "Answer: x is red",  # an unquantified variable
    ],
)
def test_unreadable_answers_stay_unparsed(answer: str) -> None:
    reading = read_answer(answer, lexicon(CARDS))
    assert reading.view is None and reading.mode is None


def test_a_claim_is_never_read_as_nothing_follows() -> None:
    reading = read_answer("Answer: the ace is red, so nothing else follows", lexicon(CARDS))
    assert reading.view == parse_pyetr("{P1(c1())}")


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    views(predicates=("P1", "P2", "P3"), constants=("c1", "c2"), variables=("x", "y"), issues=True),
    st.sampled_from(THEME_KEYS),
    st.randoms(use_true_random=False),
)
def test_rendered_views_read_back_to_the_same_view(
    view: MView, theme_key: str, rng: random.Random
) -> None:
    if any(s == view.supposition for s in view.stage):
        return  # "if A, then A" has no consequent to write
    names = draw_names(get_theme(theme_key), view.constants(), view.predicates(), rng)
    text = view_text(view, names)
    assert read_sentence(text, lexicon(names)) == view.without_issues(), text
    assert read_sentence(sentence(view, names), lexicon(names)) == view.without_issues()


@pytest.mark.parametrize("index", range(6))
def test_generated_premises_and_conclusions_read_back(index: int) -> None:
    found = find_problem(random.Random(100 + index), 5 + index, Limits(quantified=index % 2 == 1))
    names = draw_names(
        get_theme(THEME_KEYS[index]),
        set().union(*(p.constants() for p in found.premises)),
        set().union(*(p.predicates() for p in found.premises)),
        random.Random(index),
    )
    for premise in found.premises:
        assert read_sentence(sentence(premise, names), lexicon(names)) == premise.without_issues()
    conclusion = found.known.conclusion.view
    assert conclusion is not None
    assert (
        read_sentence(view_text(conclusion, names), lexicon(names)) == conclusion.without_issues()
    )
