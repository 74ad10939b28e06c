"""Every judge prompt reads back to what it shows; agents read stated beliefs from the text."""

from __future__ import annotations

import pytest

from biaslab.suites.entrenchment import prompts, urn
from biaslab.suites.entrenchment.reasoner import stated_belief

STEPS = ("First point, with a comma.", "Second point: more.\nIt spans lines.")
PROPOSITION = 'Claim: "Cities should plant trees." Is this claim right?\n\nBackground: x'


@pytest.mark.parametrize("replicate", range(len(prompts.JUDGE_WORDINGS)))
@pytest.mark.parametrize("shown", [0, 1, 2])
def test_prefix_and_logprob_prompts_read_back(replicate: int, shown: int) -> None:
    text = prompts.judge_prompt(PROPOSITION, ("no", "yes"), "yes", STEPS[:shown], None, replicate)
    view = prompts.read_judge_prompt(text)
    assert view is not None and view.kind == "prefix"
    assert view.options == ("no", "yes") and view.target == "yes"
    assert view.steps == tuple(" ".join(s.split()) for s in STEPS[:shown])
    lp = prompts.logprob_prompt(
        PROPOSITION, ("yes", "no"), "no", STEPS[:shown], None, ("no", "yes")
    )
    view = prompts.read_judge_prompt(lp)
    assert view is not None and view.kind == "logprob" and view.target == "no"
    assert "Answer: <label>" in lp


def test_trajectory_and_debate_prompts_read_back() -> None:
    text = prompts.trajectory_prompt(PROPOSITION, ("yes", "no"), "no", STEPS, ("yes", "no"), 1)
    view = prompts.read_judge_prompt(text)
    assert view is not None and view.kind == "trajectory" and view.n_expected == 2
    assert '[Speech 1, for "yes"]' in text and '[Speech 2, for "no"]' in text
    assert len(view.steps) == 2
    assert prompts.read_judge_prompt("What is 2 + 2?") is None


def test_replicate_wordings_differ() -> None:
    texts = {
        prompts.judge_prompt(PROPOSITION, ("yes", "no"), "yes", STEPS, None, r) for r in range(3)
    }
    assert len(texts) == 3


def test_stated_beliefs_are_read_for_the_option_asked() -> None:
    options = (urn.YES_OPTION, urn.NO_OPTION)
    texts = [
        "the probability of urn A was 0.62 before any draw",
        "The probability of urn A is now 0.8.",
    ]
    assert stated_belief(texts, options, "urn A") == pytest.approx(0.8)
    assert stated_belief(texts, options, "urn B") == pytest.approx(0.2)
    assert stated_belief(texts[:1], options, "urn A") == pytest.approx(0.62)
    assert stated_belief(["The probability of urn B is 30%."], options, "urn A") == pytest.approx(
        0.7
    )
    assert stated_belief(["nothing here"], options, "urn A") is None


def test_self_report_prompts_are_recognised() -> None:
    ask = prompts.self_report_prompt("no")
    assert prompts.is_self_report(ask) and prompts.self_report_target(ask) == "no"
    opening = f"Is it so?\n\n{ask}"  # b_0: the reasoning prompt, then the same question
    assert prompts.is_self_report(opening) and prompts.self_report_target(opening) == "no"
    assert not prompts.is_self_report(prompts.cot_prompt("Is it so?"))
