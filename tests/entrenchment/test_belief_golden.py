"""Golden judge replies, written for this project in the shapes real judges produce: a belief is
read only from the JSON field or a final ``Belief:``/``Answer:`` line, and every stray number —
step numbers, ids, percentages and years inside sentences, figures echoed from the question or a
step — leaves the reply unparsed with a reason of the right kind."""

from __future__ import annotations

import pytest

from biaslab.suites.entrenchment import prompts
from biaslab.suites.entrenchment.beliefs import (
    ECHO,
    NO_FIELD,
    error_kind,
    read_belief,
    read_beliefs,
)

QUESTION = (
    "Will the national parliament pass a law setting a tax rate of 20% on sugary drinks "
    "before 1 June 2027?"
)
STEPS = (
    "Polls from 2025 show that 61% of voters support the levy, and two of the three "
    "coalition parties have endorsed it.",
    "The finance committee has scheduled only 3 sessions before the summer recess, which "
    "leaves little time for amendments.",
)
PROMPT = prompts.judge_prompt(QUESTION, ("yes", "no"), "yes", STEPS)

READ: list[tuple[str, float]] = [
    ('{"belief": 0.62}', 0.62),
    ('```json\n{"belief": 0.4}\n```', 0.4),
    (
        "The committee schedule (3 sessions) is a real obstacle, though 61% support helps.\n"
        '{"belief": 0.45}',
        0.45,
    ),
    ('Step 2 weighs against it. {"belief": 0.3, "confidence": "medium"}', 0.3),
    ('{"reasoning": "Step 1 gives 61% support; step 2 limits time.", "belief": 0.55}', 0.55),
    ('{"belief": 0.65', 0.65),  # cut short at the token limit
    ("Support is broad but time is short.\n\nBelief: 0.35", 0.35),
    ("Weighing both steps...\n**Final answer:** 70%", 0.7),
    ("Answer: 0.8", 0.8),
    ("0.25", 0.25),
    ("40%", 0.4),
    # an echo of the question is removed, the JSON after it read
    (f"Question: {QUESTION}\n" + '{"belief": 0.5}', 0.5),
]

STRAY: list[tuple[str, str]] = [
    ("[Step 1] The claim is right: a majority supports the levy.", NO_FIELD),
    ("Given the calendar, the rate will likely exceed 3% by June.", NO_FIELD),
    ('{"id": 1, "verdict": "the reasoning is one-sided"', NO_FIELD),
    ('{"id": 1, "verdict": "the reasoning is one-sided"}', NO_FIELD),
    ("Step 2 is the stronger argument, so I lean towards no.", NO_FIELD),
    ("By 2027 the law is more likely than not to pass.", NO_FIELD),
    ("Roughly 2 in 3 chances, I'd say.", NO_FIELD),
    ("About 61% of voters support it, so yes is plausible.", NO_FIELD),
    ("Answer: yes", NO_FIELD),
    # echoes: the question's 20% and 2027, a step's 61% and 3, the JSON template
    (f"Question: {QUESTION}", ECHO),
    (PROMPT, ECHO),
    (f"Reasoning so far:\n[Step 1] {STEPS[0]}\n[Step 2] {STEPS[1]}", ECHO),
    ('Reply with JSON only: {"belief": <a number from 0 to 1>}', ECHO),
]


@pytest.mark.parametrize(("reply", "value"), READ)
def test_a_belief_is_read_from_the_asked_place(reply: str, value: float) -> None:
    reading = read_belief(reply, PROMPT)
    assert reading.value == pytest.approx(value), reading.error


@pytest.mark.parametrize(("reply", "kind"), STRAY)
def test_stray_numbers_are_never_a_belief(reply: str, kind: str) -> None:
    reading = read_belief(reply, PROMPT)
    assert reading.value is None, f"read {reading.value} from {reply!r}"
    assert error_kind(reading.error) == kind, reading.error


def test_an_echoed_step_stating_a_belief_is_not_read() -> None:
    """The urn agents end each step with the probability they hold; a judge that copies the
    step gives that number, not its own belief."""
    step = "A red ball is drawn. The probability of urn A is now 0.6200."
    prompt = prompts.judge_prompt("Which urn?", ("urn A", "urn B"), "urn A", [step])
    assert read_belief(f"[Step 1] {step}", prompt).value is None
    assert read_belief(f"[Step 1] {step}", None).value is None  # a sentence, not a field
    assert read_belief(f'[Step 1] {step}\n{{"belief": 0.7}}', prompt).value == pytest.approx(0.7)


def test_without_the_prompt_an_echo_is_still_no_field() -> None:
    assert read_belief(f"Question: {QUESTION}").value is None


def test_a_trajectory_reply_that_echoes_steps_is_not_counted() -> None:
    """Paper mode counts ``"belief": x`` pairs; pairs copied from the prompt do not count."""
    prompt = prompts.trajectory_prompt(QUESTION, ("yes", "no"), "yes", STEPS)
    reply = prompt + '\n{"beliefs": [{"id": 0, "belief": 0.5}, {"id": 1, "belief": 0.6}, '
    reply += '{"id": 2, "belief": 0.4}]}'
    assert read_beliefs(reply, 3, prompt).values == pytest.approx((0.5, 0.6, 0.4))
    only_echo = read_beliefs(prompt, 3, prompt)
    assert only_echo.values is None and error_kind(only_echo.error) == ECHO


def test_every_reason_has_a_kind() -> None:
    replies = [r for r, _ in STRAY] + ["", '{"belief": "high"}', '{"belief": 250}', "7"]
    kinds = {error_kind(read_belief(r, PROMPT).error) for r in replies}
    assert "other" not in kinds
    assert {"empty reply", "belief not a number", "out of range", "ambiguous scale"} <= kinds
