"""The pipeline's requests and readings, without Inspect: the self-report template and the
judge-logprob answer token."""

from __future__ import annotations

from biaslab.suites.entrenchment import prompts
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.pipeline import ItemView, Reasoning, judge_requests

STEPS = ("Draw 1 is red, which favours urn A.", "Draw 2 is white, which favours urn B.")


def self_reports(system_prompt: str) -> list[list[tuple[str, str]]]:
    config = resolve_config(
        None, {"constructs": "self_report", "system_prompt": system_prompt, "draws": "2"}
    )
    view = ItemView.of(generate(config, 0, 1)[0])
    requests = judge_requests(view, Reasoning(STEPS, None, 2), config)
    assert [r.step for r in requests] == [0, 1, 2] and all(r.to_model for r in requests)
    return [[(m.role, m.text) for m in r.messages] for r in requests]


def test_self_report_b0_is_the_later_steps_template_with_nothing_written() -> None:
    for system_prompt in ("none", "critical"):
        first, *later = self_reports(system_prompt)
        for messages in later:
            *system, (_, prompt), (_, written), (role, ask) = messages
            assert role == "user" and prompts.is_self_report(ask)
            assert system == first[:-1] and written in ("\n\n".join(STEPS[:k]) for k in (1, 2))
            # b_0: the same reasoning prompt and the same question, nothing in between
            assert first[-1] == ("user", f"{prompt}\n\n{ask}")
        assert [role for role, _ in first] == (["system"] if system_prompt != "none" else []) + [
            "user"
        ]
