import math

import pytest
from hypothesis import given
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
