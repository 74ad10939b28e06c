import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biaslab.answers import (
    format_instruction,
    label_probabilities,
    labels_from_prompt,
    parse_answer,
)

YNU = ("yes", "no", "unknown")
EFFECT = ("strengthening", "weakening", "no effect")


@pytest.mark.parametrize(
    ("reply", "labels", "expected"),
    [
        ("Answer: yes", YNU, "yes"),
        ("answer = NO.", YNU, "no"),
        ("**Answer:** Unknown", YNU, "unknown"),
        ("Reasoning... maybe yes.\nAnswer: no", YNU, "no"),
        ("Answer: yes\nOn reflection, Answer: no", YNU, "no"),
        ("No", YNU, "no"),
        ("  yes. ", YNU, "yes"),
        ("It is hard to say.\nUnknown.", YNU, "unknown"),
        ("yes or no, I cannot decide", YNU, None),
        ("", YNU, None),
        ("The update has no effect.\nAnswer: no effect", EFFECT, "no effect"),
        ("Answer: weakening", EFFECT, "weakening"),
        ("Answer: maybe", YNU, None),
    ],
)
def test_parse_answer(reply: str, labels: tuple[str, ...], expected: str | None) -> None:
    assert parse_answer(reply, labels) == expected


def test_synonyms_map_to_labels() -> None:
    assert parse_answer("Answer: weakens", EFFECT, {"weakens": "weakening"}) == "weakening"


@given(st.text(max_size=200))
def test_parser_never_crashes_and_returns_a_label_or_none(reply: str) -> None:
    assert parse_answer(reply, YNU) in (*YNU, None)


def test_instruction_round_trip() -> None:
    prompt = "Question: does it?\n" + format_instruction(EFFECT)
    assert labels_from_prompt(prompt) == EFFECT
    assert labels_from_prompt("no instruction here") is None


def test_label_probabilities_renormalise_over_labels() -> None:
    probs = label_probabilities(
        [{"Answer": 0.0}, {" yes": math.log(0.6), " no": math.log(0.2), " maybe": math.log(0.2)}],
        YNU,
    )
    assert probs is not None
    assert probs["yes"] == pytest.approx(0.75)
    assert probs["no"] == pytest.approx(0.25)
    assert probs["unknown"] == 0.0


def test_label_probabilities_accept_subword_tokens() -> None:
    probs = label_probabilities([{"str": math.log(0.5), "we": math.log(0.5)}], EFFECT)
    assert probs == {"strengthening": 0.5, "weakening": 0.5, "no effect": 0.0}
    assert label_probabilities([{"hello": 0.0}], YNU) is None


HORSES = ("five", "six", "seven", "eight", "nine")
TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen")
DIGITS = ("5", "6", "7", "8", "9")
OPTIONS = ("a", "b")
EXPLANATION = (
    "First race the 25 horses in five heats of five. Then race the five heat winners: the winner "
    "of that race is the fastest horse overall. The second and third places can only come from "
    "five remaining candidates, so one more race settles them."
)


@pytest.mark.parametrize(
    ("reply", "labels", "expected"),
    [
        ("Answer: 7", HORSES, "seven"),
        ("**7** races", HORSES, "seven"),
        ("The answer is seven.", HORSES, "seven"),
        (f"{EXPLANATION}\n\nAnswer: 7", HORSES, "seven"),
        (f"{EXPLANATION}\nSo the minimum is **7 races**.", HORSES, "seven"),
        ("Answer: **7**", HORSES, "seven"),
        ("7", HORSES, "seven"),
        ("Answer: seven races", HORSES, "seven"),
        ("The answer is 12.", TEENS, "twelve"),
        ("Answer: twelve", TEENS, "twelve"),
        ("Answer: seven", DIGITS, "7"),
        ("Answer: 7", DIGITS, "7"),
        ("**Answer: 8**", DIGITS, "8"),
        # never misread: not a whole number, not a label, or several labels at once
        ("Answer: 17", HORSES, None),
        ("Answer: 7.5", HORSES, None),
        ("Answer: seventy", HORSES, None),
        ("Answer: twenty-seven", HORSES, None),
        (
            "It takes 5 heats, then 1 race of the winners and 1 more: 7 races or maybe 8.",
            HORSES,
            None,
        ),
        ("Answer: 3", HORSES, None),
        ("I need 25 horses and 5 lanes.", HORSES, None),
        ("It takes 7 races.", HORSES, "seven"),
    ],
)
def test_number_labels_accept_digits_and_words(
    reply: str, labels: tuple[str, ...], expected: str | None
) -> None:
    assert parse_answer(reply, labels) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "2 of the 3 options look plausible, I cannot say.",
        "Answer: 2 of the 3 options",
        "There are 3 premises.\nSo 2 of them are true",
        "1",
        "Answer: 0",
    ],
)
def test_digits_never_answer_word_questions(reply: str) -> None:
    assert parse_answer(reply, YNU) is None
    assert parse_answer(reply, EFFECT) is None
    assert parse_answer(reply, ("first", "second")) is None


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("(b)", "b"),
        ("B", "b"),
        ("Answer: b", "b"),
        ("Answer: (a)", "a"),
        ("Answer: **B**", "b"),
        ("Answer: Option B", "b"),
        ("The answer is (b).", "b"),
        ("Linda is more likely a bank teller than a feminist bank teller.\nSo (a) is right.", "a"),
        ("A single event is always at least as probable as a conjunction.\nI choose option a", "a"),
        ("Both describe Linda well, but the conjunction cannot be more probable.\nB.", "b"),
        ("b) Linda is a bank teller and is active in the feminist movement.", "b"),
        # articles and pronouns are not options
        ("A bank teller is more probable.", None),
        ("Answer: A bank teller", None),
        ("I think it is a hard question.", None),
        ("(a) and (b) are both possible.", None),
        ("Answer: c", None),
    ],
)
def test_single_letter_option_labels(reply: str, expected: str | None) -> None:
    assert parse_answer(reply, OPTIONS) == expected


def test_words_still_win_over_letters_and_numbers_in_mixed_label_sets() -> None:
    assert parse_answer("Answer: no effect", ("a", "no effect", "7")) == "no effect"
    assert parse_answer("Answer: 7", ("a", "no effect", "7")) == "7"
    assert parse_answer("Answer: a", ("a", "no effect", "7")) == "a"


@given(st.text(max_size=200))
def test_parser_never_crashes_on_number_and_letter_labels(reply: str) -> None:
    assert parse_answer(reply, HORSES) in (*HORSES, None)
    assert parse_answer(reply, OPTIONS) in (*OPTIONS, None)


def test_label_probabilities_read_digit_tokens_for_number_labels() -> None:
    probs = label_probabilities(
        [{"Answer": 0.0}, {":": 0.0}, {" 7": math.log(0.7), " 8": math.log(0.2), " 17": -3.0}],
        HORSES,
    )
    assert probs is not None
    assert probs["seven"] == pytest.approx(0.7 / 0.9)
    assert probs["eight"] == pytest.approx(0.2 / 0.9)
    assert probs["five"] == 0.0


def test_label_probabilities_read_letter_tokens() -> None:
    probs = label_probabilities(
        [{" (": 0.0}, {"b": math.log(0.8), "a": math.log(0.2)}, {")": 0.0}], OPTIONS
    )
    assert probs == pytest.approx({"a": 0.2, "b": 0.8})
    assert label_probabilities([{"(b": math.log(0.5), "(a": math.log(0.5)}], OPTIONS) == {
        "a": 0.5,
        "b": 0.5,
    }


def test_number_words_are_what_the_parser_reads() -> None:
    from biaslab.answers import number_word

    assert [number_word(v) for v in (0, 7, 19, 20, 21, 99)] == [
        "zero",
        "seven",
        "nineteen",
        "twenty",
        "twenty-one",
        "ninety-nine",
    ]
    labels = tuple(number_word(v) for v in range(18, 25))
    for value in range(18, 25):
        assert parse_answer(f"Answer: {value}", labels) == number_word(value)
        assert parse_answer(f"The answer is {number_word(value)}.", labels) == number_word(value)
    with pytest.raises(ValueError):
        number_word(100)


# ------------------------------------------------------------------ hedges, sums and negations


@pytest.mark.parametrize(
    ("reply", "labels", "expected"),
    [
        # an "=" settles a sum; otherwise two numbers on the answer line are not guessed at
        ("Answer: 5 + 1 + 1 = 7", HORSES, "seven"),
        ("Answer: 5 heats + 1 final + 1 decider = 7 races", HORSES, "seven"),
        ("The answer is 5 heats, then 2 more, so 7.", HORSES, None),
        ("Answer: 7 or 8", HORSES, None),
        ("Answer: six to seven", HORSES, None),
        ("Answer: 6? No, 7.", HORSES, None),
        ("Answer: (a) or (b)", OPTIONS, None),
        ("Answer: a or b", OPTIONS, None),
        # one label, said twice or next to numbers that are no labels, is still that label
        ("Answer: seven (7)", HORSES, "seven"),
        ("Answer: 7 races for 25 horses", HORSES, "seven"),
        ("Answer: b. It is a conjunction, so it cannot be more probable.", OPTIONS, "b"),
    ],
)
def test_an_answer_line_naming_several_labels_is_unparsed(
    reply: str, labels: tuple[str, ...], expected: str | None
) -> None:
    assert parse_answer(reply, labels) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("I'd say (a) is wrong, so b", "b"),
        ("The conjunction cannot be more likely, therefore (a).", "a"),
        ("Thus B.", "b"),
        ("Therefore, (a) is less probable.", None),
        ("The answer is not (b).", None),
        ("I would not pick B.", None),
        ("Option A is wrong.", None),
        ("(b) is incorrect here", None),
        ("Not (a).", None),
        # a negation further away, or about something else, leaves the option alone
        ("So (a) is right.", "a"),
        ("A conjunction is never more probable than its part.\nSo (a) is right.", "a"),
        ("So (a), since a conjunction is never more probable.", "a"),
    ],
)
def test_a_negated_option_is_unparsed_and_a_concluding_letter_is_read(
    reply: str, expected: str | None
) -> None:
    assert parse_answer(reply, OPTIONS) == expected


def test_a_negated_number_is_unparsed_but_words_keep_their_meaning() -> None:
    assert parse_answer("It is not 6 races.", HORSES) is None
    assert parse_answer("Answer: no", YNU) == "no"
    # word labels are words: "no" is itself a negation, and "does not" explains it
    assert parse_answer("Answer: No, it does not follow.", YNU) == "no"


# ------------------------------------------------------------------ the answer token for letters


def test_letter_probabilities_come_from_the_token_after_the_last_answer() -> None:
    """The article "a" later in the line must not become the answer token."""
    positions = [
        {"Answer": 0.0},
        {":": 0.0},
        {" b": math.log(0.7), " a": math.log(0.3)},
        {".": 0.0},
        {" It": 0.0},
        {" is": 0.0},
        {" a": math.log(0.9), " the": math.log(0.1)},
        {" conjunction": 0.0},
    ]
    assert label_probabilities(positions, OPTIONS) == pytest.approx({"a": 0.3, "b": 0.7})
    markup = [
        {"**": 0.0},
        {"Answer": 0.0},
        {":**": 0.0},
        {" Option": 0.0},
        {" B": math.log(0.6), " A": math.log(0.4)},
    ]
    assert label_probabilities(markup, OPTIONS) == pytest.approx({"a": 0.4, "b": 0.6})
    joined = [{"Answer": 0.0}, {": (b": math.log(0.8), ": (a": math.log(0.2)}, {")": 0.0}]
    assert label_probabilities(joined, OPTIONS) == pytest.approx({"a": 0.2, "b": 0.8})


def test_letter_probabilities_without_an_answer_line_only_for_a_bare_option() -> None:
    prose = [
        {"I": 0.0},
        {" think": 0.0},
        {" a": math.log(0.9), " the": math.log(0.1)},
        {" bank": 0.0},
    ]
    assert label_probabilities(prose, OPTIONS) is None
    assert label_probabilities(
        [{"B": math.log(0.9), "A": math.log(0.1)}], OPTIONS
    ) == pytest.approx({"a": 0.1, "b": 0.9})
    # after "Answer:" something that is no label: no answer token, not a later position
    stray = [{"Answer": 0.0}, {":": 0.0}, {" maybe": 0.0}, {" a": 0.0}]
    assert label_probabilities(stray, OPTIONS) is None


def test_the_answer_token_of_the_last_answer_line_wins() -> None:
    positions = [
        {"Answer": 0.0},
        {":": 0.0},
        {" seven": 0.0},
        {"\nOn": 0.0},
        {" reflection": 0.0},
        {",": 0.0},
        {" Answer": 0.0},
        {":": 0.0},
        {" 8": math.log(0.6), " 7": math.log(0.4)},
    ]
    assert label_probabilities(positions, HORSES) == pytest.approx(
        {"five": 0.0, "six": 0.0, "seven": 0.4, "eight": 0.6, "nine": 0.0}
    )


def test_labels_without_probability_give_no_distribution_not_an_error() -> None:
    """A provider may return -inf (or a logprob that underflows) for every label at the answer
    token: the answer then has no label probabilities."""
    assert (
        label_probabilities([{"Answer:": 0.0}, {" 7": float("-inf")}], ("seven", "eight")) is None
    )
    assert label_probabilities([{" 7": -1e6, " 8": -2e6}], ("seven", "eight")) is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["Answer:", " yes", " no", "Yes", " 7", "seven", " (b", "x", " "]),
            st.one_of(st.floats(max_value=0.0), st.just(float("-inf"))),
            max_size=4,
        ),
        max_size=6,
    )
)
def test_label_probabilities_never_raise(positions: list[dict[str, float]]) -> None:
    for labels in (("yes", "no"), ("seven", "eight"), ("a", "b")):
        found = label_probabilities(positions, labels)
        assert found is None or abs(sum(found.values()) - 1) < 1e-9
