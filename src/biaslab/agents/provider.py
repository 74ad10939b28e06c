"""The ``biaslab/<name>`` Inspect model provider: reference agents, and the embedded local model.

``biaslab/oracle``, ``biaslab/sticky?p=0.9`` … answer from the conversation text alone (parameters may
also come as Inspect model args, ``-M p=0.9``). ``biaslab/local`` is delegated to the embedded
llama.cpp model, which goes through Inspect's OpenAI-compatible provider.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    TopLogprob,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from biaslab.agents.base import Agent, Distribution, Message, Request, make_agent

_LOG_FLOOR = -1e4  # stands in for log(0): JSON has no -inf


def _message_text(message: ChatMessage) -> str:
    return message.text


def request_from_messages(messages: list[ChatMessage]) -> Request:
    return Request(
        messages=tuple(
            Message(role=m.role, text=_message_text(m))
            for m in messages
            if m.role in ("system", "user", "assistant")
        )
    )


def _logprob(p: float) -> float:
    return math.log(p) if p > 0 else _LOG_FLOOR


def answer_logprobs(label: str, distribution: Distribution, top: int | None) -> Logprobs:
    """Token-level logprobs shaped like a real provider's: "Answer:" then the label token, whose
    ``top_logprobs`` carry the agent's label distribution."""
    ranked = sorted(distribution.items(), key=lambda kv: (-kv[1], kv[0]))
    alternatives = [TopLogprob(token=f" {lab}", logprob=_logprob(p)) for lab, p in ranked]
    if top is not None:
        alternatives = alternatives[: max(top, 1)]
    return Logprobs(
        content=[
            Logprob(token="Answer:", logprob=0.0, top_logprobs=[]),
            Logprob(
                token=f" {label}",
                logprob=_logprob(distribution.get(label, 0.0)),
                top_logprobs=alternatives,
            ),
        ]
    )


class ReferenceAgentAPI(ModelAPI):
    """An Inspect ModelAPI around a :class:`~biaslab.agents.base.Agent`."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.agent: Agent = make_agent(model_name, model_args)

    def max_connections(self) -> int:
        return 32

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        request = request_from_messages(input)
        text, distribution = self.agent.respond(request)
        logprobs = None
        if (config.logprobs or config.top_logprobs) and distribution is not None:
            label = text.removeprefix("Answer: ")
            logprobs = answer_logprobs(label, distribution, config.top_logprobs)
        choice = ChatCompletionChoice(
            message=ChatMessageAssistant(content=text, model=self.model_name, source="generate"),
            stop_reason="stop",
            logprobs=logprobs,
        )
        # usage in whitespace-separated words: agents have no tokenizer, and Inspect would
        # otherwise be tempted to count tokens with one that downloads its vocabulary
        words_in = sum(len(m.text.split()) for m in request.messages)
        words_out = len(text.split())
        usage = ModelUsage(
            input_tokens=words_in, output_tokens=words_out, total_tokens=words_in + words_out
        )
        return ModelOutput(model=self.model_name, choices=[choice], usage=usage)


def biaslab_model_api(
    model_name: str,
    base_url: str | None = None,
    api_key: str | None = None,
    config: GenerateConfig = GenerateConfig(),
    **model_args: Any,
) -> ModelAPI:
    """Pick the implementation for ``biaslab/<model_name>``."""
    if model_name == "local" or model_name.startswith("local?"):
        from biaslab.local.provider import LocalModelAPI

        return LocalModelAPI(model_name, base_url, api_key, config, **model_args)
    return ReferenceAgentAPI(model_name, base_url, api_key, config, **model_args)
