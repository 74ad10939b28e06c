"""The pipeline's requests and readings, without Inspect's eval loop: the self-report template,
the judge-logprob answer token, malformed items and the cache policy handed to Inspect."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from inspect_ai.model import CachePolicy, GenerateConfig, Logprob, Logprobs, ModelOutput, TopLogprob

from biaslab.answers import label_probabilities
from biaslab.errors import BiaslabError
from biaslab.suites.entrenchment import prompts
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.pipeline import (
    ItemView,
    Reasoning,
    answer_probabilities,
    judge_requests,
    token_alternatives,
)
from biaslab.suites.entrenchment.task import asker

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


def logprob_output(tokens: list[tuple[str, dict[str, float]]]) -> ModelOutput:
    """A reply whose tokens carry the given alternatives (probabilities)."""
    content = [
        Logprob(
            token=token,
            logprob=math.log(max(alts.get(token, 1.0), 1e-9)),
            top_logprobs=[TopLogprob(token=t, logprob=math.log(p)) for t, p in alts.items()],
        )
        for token, alts in tokens
    ]
    text = "".join(t for t, _ in tokens)
    output = ModelOutput.from_content("mockllm/model", text)
    output.choices[0].logprobs = Logprobs(content=content)
    return output


def test_the_logprob_belief_is_read_at_the_answer_token_not_the_last_label() -> None:
    output = logprob_output(
        [
            ("Answer", {}),
            (":", {}),
            (" yes", {" yes": 0.8, " no": 0.2}),
            (" —", {}),
            (" no", {" no": 0.9, " yes": 0.1}),  # "no doubt": a label word after the answer
            (" doubt", {}),
        ]
    )
    assert answer_probabilities(output, ("yes", "no")) == pytest.approx({"yes": 0.8, "no": 0.2})
    # the suite reads through the shared reader, which anchors on the last "Answer:"
    assert label_probabilities(token_alternatives(output)[1], ("yes", "no")) == pytest.approx(
        {"yes": 0.8, "no": 0.2}
    )
    thinking = logprob_output(
        [("No", {"No": 0.7, "Yes": 0.3}), (" idea.", {}), (" Answer:", {}),
         (" yes", {" yes": 0.6, " no": 0.4})]
    )  # fmt: skip
    assert answer_probabilities(thinking, ("yes", "no")) == pytest.approx({"yes": 0.6, "no": 0.4})
    bare = logprob_output([("no", {"no": 0.75, "yes": 0.25})])  # no marker: the shared rule
    assert answer_probabilities(bare, ("yes", "no")) == pytest.approx({"yes": 0.25, "no": 0.75})
    assert (
        answer_probabilities(logprob_output([("Answer:", {}), (" maybe", {})]), ("yes", "no"))
        is None
    )


def test_a_malformed_item_is_one_line() -> None:
    item = generate(resolve_config(None, {}), 0, 1)[0]
    bad = item.model_copy(update={"meta": {**item.meta, "mode": "monologue"}})
    with pytest.raises(BiaslabError, match="entrenchment item: mode 'monologue' is not one of cot"):
        ItemView.of(bad)


def test_the_asker_passes_a_policy_and_otherwise_leaves_caching_to_the_eval() -> None:
    seen: list[dict[str, Any]] = []

    class Recorder:
        async def generate(self, messages: Any, **kwargs: Any) -> ModelOutput:
            seen.append(kwargs)
            return ModelOutput.from_content("mockllm/model", "ok")

    ask = asker(Recorder())  # type: ignore[arg-type]
    policy = CachePolicy(expiry=None, scopes={"replicate": "1"})
    asyncio.run(ask([], GenerateConfig(), policy))
    asyncio.run(ask([], GenerateConfig(), None))
    assert seen[0]["cache"] is policy
    assert "cache" not in seen[1]  # Inspect then falls back to the eval's own cache setting
