"""The answer reader against the golden answers, the meaning flips it once made, and the meaning
guard: our own English read back is the identity, and a word that changes the logic inserted into
a claim is never silently ignored."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biaslab.suites.fallacy.lexicon import FILLERS, LOGIC_WORDS, Lexicon
from biaslab.suites.fallacy.reading import meaning_guard, read_answer, remark_kind
from biaslab.suites.fallacy.render import view_text
from biaslab.suites.fallacy.themes import THEME_KEYS, Names, draw_names, get_theme
from biaslab.suites.fallacy.views import Literal, MView, Term, parse_pyetr
from tests.fallacy.golden_answers import GOLDEN, KINDS, NAMES, Golden
from tests.fallacy.strategies import views


def lexicon(names: Names) -> Lexicon:
    return Lexicon.from_names(names, get_theme(names.theme).kind)


SHOP = lexicon(NAMES["shop"])


def test_the_golden_file_is_large_and_varied() -> None:
    assert len(GOLDEN) >= 150
    assert len({g.answer for g in GOLDEN}) == len(GOLDEN)
    assert {g.expect for g in GOLDEN} >= set(KINDS) | {"{0}"}


@pytest.mark.parametrize("golden", GOLDEN, ids=[g.answer[:60] for g in GOLDEN])
def test_golden_answers_read_as_a_careful_coder_reads_them(golden: Golden) -> None:
    reading = read_answer(golden.answer, lexicon(NAMES[golden.names]))
    if golden.expect in KINDS:
        assert reading.view is None and reading.status == golden.expect, reading
        assert reading.error, reading  # an unparsed answer always says why
    else:
        assert reading.view == parse_pyetr(golden.expect), reading
        expected_mode = "nothing" if golden.expect == "{0}" else ("strict", "lenient")
        assert reading.mode in expected_mode, reading


def test_the_golden_answers_that_state_a_claim_are_read_at_least_95_percent() -> None:
    claims = [g for g in GOLDEN if g.states_claim]
    read = [g for g in claims if read_answer(g.answer, lexicon(NAMES[g.names])).parsed]
    assert len(claims) >= 120
    assert len(read) / len(claims) >= 0.95, [g.answer for g in claims if g not in read]


# ------------------------------------------------------------------ the meaning flips, one each


@pytest.mark.parametrize(
    ("answer", "not_this", "this"),
    [
        # "both" was a filler: "cannot both be" read as "neither is"
        (
            "Answer: the lamp and the kettle cannot both be bright",
            "{~P1(c1())~P1(c2())}",
            "{~P1(c1()),~P1(c2())}",
        ),
        # "never both loud and cracked" read as "not loud, and cracked"
        (
            "Answer: the bell is never both loud and cracked",
            "{~P3(c3())P4(c3())}",
            "{~P3(c3()),~P4(c3())}",
        ),
        # "implies" skipped by the lenient reading: a conditional read as a conjunction
        (
            "Answer: the lamp being bright implies that the kettle is hot",
            "{P1(c1())P2(c2())}",
            "{P1(c1())P2(c2())}^{P1(c1())}",
        ),
        (
            "Answer: the kettle is hot whenever the lamp is bright",
            "{P1(c1())P2(c2())}",
            "{P1(c1())P2(c2())}^{P1(c1())}",
        ),
        (
            "Answer: given that the lamp is bright, the kettle is hot",
            "{P1(c1())P2(c2())}",
            "{P1(c1())P2(c2())}^{P1(c1())}",
        ),
        # a lead-in dropped the condition before it
        (
            "Answer: if the lamp is bright, we can conclude that the kettle is hot",
            "{P2(c2())}",
            "{P1(c1())P2(c2())}^{P1(c1())}",
        ),
        # a remark after ';' was dropped although it is a claim
        (
            "Answer: the lamp is bright; the kettle is hot, which follows from premise 2",
            "{P1(c1())}",
            "{P1(c1())P2(c2())}",
        ),
        # "A or B, and C" read as "A or (B and C)"
        (
            "Answer: either the lamp is bright or the kettle is hot, and the bell is loud",
            "{P1(c1()),P2(c2())P3(c3())}",
            "{P1(c1())P3(c3()),P2(c2())P3(c3())}",
        ),
        # "assuming" skipped by the lenient reading: a conditional read as a conjunction
        (
            "Answer: the kettle is hot, assuming the lamp is bright",
            "{P1(c1())P2(c2())}",
            "{P1(c1())P2(c2())}^{P1(c1())}",
        ),
        # a second sentence on the answer line was dropped
        ("Answer: The lamp is bright. The bell is cracked.", "{P1(c1())}", "{P1(c1())P4(c3())}"),
    ],
)
def test_a_flip_the_reader_once_made_is_gone(answer: str, not_this: str, this: str) -> None:
    reading = read_answer(answer, SHOP)
    assert reading.view != parse_pyetr(not_this)
    assert reading.view == parse_pyetr(this), reading


@pytest.mark.parametrize(
    ("answer", "word"),
    [
        ("Answer: the lamp is not not bright", "double negation"),  # was read as "not bright"
        ("Answer: the lamp is both bright", "both"),  # was read as "bright"
        ("Answer: either the lamp is bright", "either"),  # was read as "bright"
        ("Answer: the lamp is bright only", "if"),
        ("Answer: all samples are not cracked", "ambiguous"),  # "none" or "not all"?
        ("Answer: the lamp is bright, not the kettle", "not"),
    ],
)
def test_a_word_that_changes_the_logic_makes_the_answer_unreadable(answer: str, word: str) -> None:
    reading = read_answer(answer, SHOP)
    assert reading.view is None and reading.status == "unreadable", reading
    assert reading.error is not None and word in reading.error, reading


@pytest.mark.parametrize(
    "answer",
    [
        "Answer: the lamp is not necessarily bright",  # "necessarily" was a filler: ~bright
        "Answer: the lamp is bright, but this cannot be determined",  # the claim taken back
    ],
)
def test_an_answer_that_claims_nothing_is_not_read_as_a_claim(answer: str) -> None:
    reading = read_answer(answer, SHOP)
    assert reading.view is None and reading.status == "hedged", reading


def test_a_claim_with_an_unknown_remark_is_never_read_as_nothing_follows() -> None:
    reading = read_answer("Answer: the lamp is bright, and we cannot say more of it", SHOP)
    assert reading.status != "nothing"


def test_can_is_a_hedge_only_where_it_claims_a_possibility() -> None:
    assert read_answer("Answer: the lamp can be bright", SHOP).status == "hedged"
    negative = read_answer("Answer: neither the lamp nor the kettle can be bright", SHOP)
    assert negative.view == parse_pyetr("{~P1(c1())~P1(c2())}")
    # a "can be" in a later clause is not turned into a claim by an earlier "neither"
    later = read_answer(
        "Answer: neither the lamp nor the kettle is bright, and the bell can be loud", SHOP
    )
    assert later.status == "hedged", later
    claim = read_answer("Answer: the lamp is bright, but nothing else can be concluded", SHOP)
    assert claim.view == parse_pyetr("{P1(c1())}")


@pytest.mark.parametrize(
    ("remark", "kind"),
    [
        ("", ""),
        (", but nothing else can be concluded", "disclaimer"),
        (", but we cannot determine which", "disclaimer"),
        (" (from premises 1 and 2)", "justification"),
        (", because the kettle is hot", "justification"),
        (", but the kettle might be hot", "hedge"),
        (" (the final answer)", "empty"),
        (", though the kettle is hot", "other"),
        ("; the kettle is not hot", "other"),
    ],
)
def test_remarks_after_a_claim_are_told_apart(remark: str, kind: str) -> None:
    assert remark_kind(remark, SHOP) == kind


def test_no_filler_is_a_word_that_changes_the_logic() -> None:
    assert not FILLERS & LOGIC_WORDS


# ------------------------------------------------------------------ the meaning guard

SETTINGS = settings(
    max_examples=int(os.environ.get("FALLACY_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
GROUND = views(
    predicates=("P1", "P2", "P3"),
    constants=("c1", "c2", "c3"),
    variables=("x",),
    max_states=1,
    suppositions=False,
).filter(lambda view: not view.quantified)
ANY = views(predicates=("P1", "P2", "P3"), constants=("c1", "c2"), variables=("x", "y"))


def _names(view: MView, theme_key: str, rng: random.Random) -> Names:
    return draw_names(get_theme(theme_key), view.constants(), view.predicates(), rng)


def _renderable(view: MView) -> bool:
    return not any(s == view.supposition for s in view.stage)


@SETTINGS
@given(ANY, st.sampled_from(THEME_KEYS), st.randoms(use_true_random=False))
def test_our_own_english_reads_back_as_the_same_view(
    view: MView, theme_key: str, rng: random.Random
) -> None:
    if not _renderable(view):
        return
    names = _names(view, theme_key, rng)
    reading = read_answer(f"Answer: {view_text(view, names)}.", lexicon(names))
    assert reading.status == "strict" and reading.view == view.without_issues(), reading
    assert meaning_guard(view.without_issues(), lexicon(names)) is None


@SETTINGS
@given(
    ANY,
    st.sampled_from(THEME_KEYS),
    st.randoms(use_true_random=False),
    st.sampled_from(sorted(LOGIC_WORDS - {"not-both", "not-either", "not-the-case"})),
    st.integers(min_value=0),
)
def test_a_logic_word_inserted_anywhere_is_never_silently_ignored(
    view: MView, theme_key: str, rng: random.Random, word: str, where: int
) -> None:
    """Inserted into our own English, a word that changes the logic either changes the reading
    or makes the answer unparsed: the reading is never the one without the word."""
    if not _renderable(view):
        return
    names = _names(view, theme_key, rng)
    words = view_text(view, names).split(" ")
    position = where % (len(words) + 1)
    text = " ".join([*words[:position], word, *words[position:]])
    reading = read_answer(f"Answer: {text}.", lexicon(names))
    assert reading.view != view.without_issues(), (text, reading)


@SETTINGS
@given(GROUND, st.sampled_from(THEME_KEYS), st.randoms(use_true_random=False), st.integers(0))
def test_not_after_a_copula_negates_exactly_that_literal(
    view: MView, theme_key: str, rng: random.Random, which: int
) -> None:
    """For a claim without alternatives or supposition, "not" inserted after the k-th "is"
    negates the k-th literal and nothing else: the change is the one the word makes."""
    names = _names(view, theme_key, rng)
    text = view_text(view, names)
    (state,) = view.stage
    parts = text.split(" and ")  # one literal each, in the order written
    k = which % len(parts)
    literal_text = parts[k]
    if " is not " in literal_text:
        return  # "is not not P" is unreadable, tested above
    target = next(
        lit for lit in state if lit.positive and _literal_text(lit, names) == literal_text
    )
    parts[k] = literal_text.replace(" is ", " is not ", 1)
    reading = read_answer(f"Answer: {' and '.join(parts)}", lexicon(names))
    expected = MView.build([(state - {target}) | {target.negated()}])
    assert reading.view == expected, (parts, reading)


def _literal_text(lit: Literal, names: Names) -> str:
    subject = names.objects[lit.term.name] if not lit.term.variable else lit.term.name
    return f"{subject} is {names.properties[lit.predicate]}"


def test_the_guard_refuses_a_reading_our_english_cannot_write() -> None:
    lamp = Term("c1")
    # "if the lamp is bright, then the lamp is bright": no consequent to write
    tautology = MView.build([[Literal("P1", lamp)]], [Literal("P1", lamp)])
    assert meaning_guard(tautology, SHOP) is not None
