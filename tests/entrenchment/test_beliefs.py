"""Reading beliefs from judge replies and splitting reasoning into steps."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from biaslab.suites.entrenchment.beliefs import read_belief, read_beliefs, split_steps, strip_echo


@pytest.mark.parametrize(
    ("text", "value", "rescaled"),
    [
        ("0.7", 0.7, False),
        ("70%", 0.7, False),
        ("70", 0.7, True),
        ('{"belief": 0.25}', 0.25, False),
        ('```json\n{"belief": 0.4}\n```', 0.4, False),
        ('\ufeff {"probability": "35%"}', 0.35, False),
        ('Sure! {"belief": 0.9} is my answer.', 0.9, False),
        ("My belief: 0.15", 0.15, False),
        ("[0.3]", 0.3, False),
        ("10", 0.1, True),
        ('{"belief": "1.5%"}', 0.015, False),
    ],
)
def test_readable_replies(text: str, value: float, rescaled: bool) -> None:
    reading = read_belief(text)
    assert reading.value == pytest.approx(value)
    assert reading.rescaled is rescaled


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I cannot say.",
        '{"belief": "high"}',
        '{"belief": true}',
        '{"belief": -0.2}',
        '{"belief": 250}',
        '{"belief": NaN}',
        "between 20% and 40%",
        "0.3 or 0.6",
        '{"answer": "yes"}',
        "1.5",  # a percentage, a 0-10 score or a typo: not guessed at
        '{"belief": 7}',
        "belief: 2.5",
        "250%",
        "I would put it at about 62%.",  # a number inside a sentence is never a belief
        "It is 1",
    ],
)
def test_unreadable_replies_are_unparsed_with_a_reason(text: str) -> None:
    reading = read_belief(text)
    assert reading.value is None and reading.error


@given(st.text())
def test_reading_never_raises(text: str) -> None:
    reading = read_belief(text)
    assert reading.value is None or 0.0 <= reading.value <= 1.0
    many = read_beliefs(text, 3)
    assert many.values is None or len(many.values) == 3


def test_trajectory_replies() -> None:
    ok = read_beliefs('{"beliefs": [{"id": 1, "belief": 0.6}, {"id": 0, "belief": 0.5}]}', 2)
    assert ok.values == (0.5, 0.6)
    assert read_beliefs("[0.1, 0.2, 0.3]", 3).values == (0.1, 0.2, 0.3)
    assert read_beliefs("[10, 20, 30]", 3).values == pytest.approx((0.1, 0.2, 0.3))
    assert read_beliefs("[0, 50, 100]", 3).values == pytest.approx((0.0, 0.5, 1.0))
    signed = read_beliefs('["50%", 80, 0]', 3)  # a percent sign fits either scale
    assert signed.rescaled and signed.values == pytest.approx((0.5, 0.8, 0.0))
    assert read_beliefs('"belief": 0.2, then "belief": 0.4', 2).values == (0.2, 0.4)
    short = read_beliefs("[0.1, 0.2]", 3)
    assert short.values is None and short.count == 2 and "3 needed" in (short.error or "")
    dupes = read_beliefs('[{"id": 0, "belief": 0.1}, {"id": 0, "belief": 0.2}]', 2)
    assert dupes.values is None and "twice" in (dupes.error or "")
    gap = read_beliefs('[{"id": 0, "belief": 0.1}, {"id": 2, "belief": 0.2}]', 2)
    assert gap.values is None


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("[0.5, 60, 0.7]", "mixed scales: 0.5 and 60"),
        ('{"beliefs": [{"id": 0, "belief": 1}, {"id": 1, "belief": 40}]}', "mixed scales"),
        ('"belief": 0.2, "belief": 30', "mixed scales"),
        ("[2, 5, 8]", "ambiguous scale: 8"),
    ],
)
def test_a_list_on_two_scales_is_refused_not_guessed(text: str, error: str) -> None:
    readings = read_beliefs(text, 3 if text.startswith("[") else 2)
    assert readings.values is None and error in (readings.error or "")


def test_steps_split_on_blank_lines_and_merge_fragments() -> None:
    text = (
        "## Thinking\n\nFirst, the costs of the policy are high for small firms in rural areas.\n\n"
        "Second, the benefits reach many people who now lack any protection at all.\n   \n"
        "So yes.\n"
    )
    steps = split_steps(text, min_chars=40)
    assert len(steps.steps) == 2
    assert steps.steps[0].startswith("## Thinking\nFirst")
    assert steps.steps[1].endswith("So yes.")  # a short last fragment joins the previous step
    assert split_steps("", min_chars=40).steps == ()


def test_steps_are_capped_by_merging_neighbours_evenly() -> None:
    text = "\n\n".join(
        f"Paragraph number {i} says something long enough to count." for i in range(10)
    )
    capped = split_steps(text, min_chars=10, max_steps=4)
    assert capped.n_raw == 10 and capped.capped and len(capped.steps) == 4
    assert sum(s.count("Paragraph") for s in capped.steps) == 10
    assert sorted(s.count("Paragraph") for s in capped.steps) == [2, 2, 3, 3]  # even groups


def test_echoes_of_equal_length_are_stripped_in_one_order_whatever_the_hash_seed() -> None:
    """Two prompt sentences of the same length that overlap in the reply: which is removed first
    decides what is left, so the order must not follow set iteration (the string-hash seed)."""
    import subprocess
    import sys

    prompt = "one two three four five six\nfour five six seven eight n"
    reply = "one two three four five six seven eight n Belief: 0.3"
    code = (
        "from biaslab.suites.entrenchment.beliefs import strip_echo; "
        f"print(repr(strip_echo({reply!r}, {prompt!r})))"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout.strip()
        for seed in range(6)
    }
    assert seen == {repr(strip_echo(reply, prompt))}
