"""Reference-agent plumbing, tested with a toy reasoner so it does not depend on any suite."""

from __future__ import annotations

import asyncio
import math

import pytest
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, GenerateConfig, get_model

from biaslab.agents.base import (
    Message,
    Request,
    make_agent,
    parse_agent_spec,
    register_reasoner,
)
from biaslab.answers import format_instruction, label_probabilities
from biaslab.errors import BiaslabError

YNU = ("yes", "no", "unknown")


class ParityReasoner:
    """Toy suite: 'PARITY n' asks whether n is even; prior = previous answer in the chat."""

    suite = "parity-test"

    def accepts(self, request: Request) -> bool:
        return request.prompt.startswith("PARITY")

    def gold(self, request: Request) -> str:
        return "yes" if int(request.prompt.split()[1]) % 2 == 0 else "no"

    def prior_answer(self, request: Request) -> str | None:
        return request.turns[-1][1] if request.turns else None


register_reasoner(ParityReasoner())


def ask(number: int, history: tuple[Message, ...] = ()) -> Request:
    prompt = f"PARITY {number}\n{format_instruction(YNU)}"
    return Request(messages=(*history, Message("user", prompt)))


def test_oracle_answers_gold_with_a_peaked_distribution() -> None:
    text, dist = make_agent("oracle").respond(ask(4))
    assert text == "Answer: yes"
    assert dist is not None and max(dist, key=dist.__getitem__) == "yes"
    assert sum(dist.values()) == pytest.approx(1.0)
    assert make_agent("oracle").respond(ask(3))[0] == "Answer: no"


def test_random_is_deterministic_per_request_and_covers_labels() -> None:
    agent = make_agent("random")
    answers = {agent.respond(ask(n))[0] for n in range(60)}
    assert answers == {f"Answer: {label}" for label in YNU}
    assert [agent.respond(ask(n))[0] for n in range(20)] == [
        agent.respond(ask(n))[0] for n in range(20)
    ]


def test_always_yes() -> None:
    assert make_agent("always-yes").respond(ask(3))[0] == "Answer: yes"


def _after_yes(number: int) -> Request:
    history = (Message("user", ask(2).prompt), Message("assistant", "Answer: yes"))
    return ask(number, history)


def test_sticky_keeps_a_prior_yes_with_probability_p() -> None:
    always = make_agent("sticky?p=1")
    never = make_agent("sticky", {"p": 0})
    assert all(always.respond(_after_yes(n))[0] == "Answer: yes" for n in range(1, 40, 2))
    assert all(never.respond(_after_yes(n))[0] == "Answer: no" for n in range(1, 40, 2))
    half = make_agent("sticky?p=0.5")
    kept = sum(half.respond(_after_yes(n))[0] == "Answer: yes" for n in range(1, 400, 2))
    assert 60 < kept < 140  # ~100 of 200


def test_agent_spec_errors_are_one_line() -> None:
    assert parse_agent_spec("sticky?p=0.3") == ("sticky", {"p": "0.3"})
    with pytest.raises(BiaslabError, match="unknown agent 'nope'"):
        make_agent("nope")
    with pytest.raises(BiaslabError, match=r"between 0\.0 and 1\.0"):
        make_agent("sticky?p=2")
    with pytest.raises(BiaslabError, match="no parameter 'q'"):
        make_agent("oracle?q=1")
    with pytest.raises(BiaslabError, match="expected key=value"):
        make_agent("sticky?p")


def test_question_without_labels_is_refused() -> None:
    text, dist = make_agent("oracle").respond(Request(messages=(Message("user", "hi"),)))
    assert dist is None and "cannot" in text


def test_inspect_provider_returns_logprobs_for_the_answer_token() -> None:
    model = get_model("biaslab/sticky?p=1", memoize=False)
    history = [ChatMessageUser(content=ask(2).prompt), ChatMessageAssistant(content="Answer: yes")]
    output = asyncio.run(
        model.generate(
            [*history, ChatMessageUser(content=ask(5).prompt)],
            config=GenerateConfig(logprobs=True, top_logprobs=3),
        )
    )
    assert output.completion == "Answer: yes"
    logprobs = output.choices[0].logprobs
    assert logprobs is not None
    answer_token = logprobs.content[-1]
    assert answer_token.token.strip() == "yes"
    assert answer_token.top_logprobs is not None and len(answer_token.top_logprobs) == 3
    total = sum(math.exp(t.logprob) for t in answer_token.top_logprobs)
    assert total == pytest.approx(1.0)
    options = [{t.token: t.logprob for t in answer_token.top_logprobs}]
    probs = label_probabilities(options, YNU)
    assert probs is not None and probs["yes"] == pytest.approx(0.98)


def test_inspect_provider_omits_logprobs_unless_asked() -> None:
    model = get_model("biaslab/oracle", memoize=False)
    output = asyncio.run(model.generate([ChatMessageUser(content=ask(2).prompt)]))
    assert output.completion == "Answer: yes"
    assert output.choices[0].logprobs is None


def test_model_args_reach_the_agent() -> None:
    model = get_model("biaslab/sticky", memoize=False, p=0.25)
    assert model.api.agent.p == 0.25  # type: ignore[attr-defined]
