"""A reference agent as an lm-evaluation-harness model (``--model biaslab-agent``).

The harness hands a model one context string per request; with ``--apply_chat_template`` it first
asks the model to render the chat (system + user messages). This model renders the chat as JSON and
reads it back, so the agent sees exactly the messages an Inspect run gives it (the system prompt
and the question) and answers in-process, with no network and no weights. ``model_args``
``model=biaslab/<agent>`` names the agent; the harness records that as the model's name.
"""

from __future__ import annotations

import json
from typing import Any

from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

from biaslab.agents.base import Agent, Message, Request, make_agent


@register_model("biaslab-agent")
class HarnessAgent(LM):
    def __init__(self, model: str = "biaslab/oracle", **_: Any) -> None:
        super().__init__()
        self.agent: Agent = make_agent(model.removeprefix("biaslab/"))

    @property
    def tokenizer_name(self) -> str:
        return "biaslab-agent-json-chat"

    def chat_template(self, chat_template: bool | str = False) -> str:
        return "json"

    def apply_chat_template(
        self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True
    ) -> str:
        return json.dumps(chat_history)

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        replies = []
        for request in requests:
            context = request.args[0]
            messages = json.loads(context)
            text, _ = self.agent.respond(
                Request(tuple(Message(role=m["role"], text=m["content"]) for m in messages))
            )
            replies.append(text)
        return replies

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError("biaslab tasks are generate_until")

    def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError("biaslab tasks are generate_until")


def _index_included_tasks_only() -> None:
    """The harness indexes all of its ~14,000 built-in task files on every run (two thirds of a
    test run's CPU time) before it loads the one task named; the tests name only tasks of their
    ``--include_path``, so the harness's task manager is told to leave its own catalogue out.
    Everything after the index (loading, running, filtering, scoring, logging) is the harness's."""
    import functools

    from lm_eval.tasks import manager

    manager.TaskManager.__init__ = functools.partialmethod(  # type: ignore[method-assign]
        manager.TaskManager.__init__, include_defaults=False
    )


if __name__ == "__main__":  # ``python -m tests.helpers.harness_agent run --model biaslab-agent …``
    from lm_eval.__main__ import cli_evaluate

    _index_included_tasks_only()
    cli_evaluate()
