"""Reference agents answered in-process: generated items -> the tidy frame an Inspect run would give.

Validating the bias metrics needs thousands of agent conversations (20 seeds x 2 difficulties x 3
topologies x 5 agents); through Inspect each costs a task, a log and its reading. The reference
agents are deterministic functions of the messages (:class:`~biaslab.agents.base.Request`), so the
same answers come from calling the agent directly with the messages the label conversation would
send: the system prompt, each turn's prompt, and the agent's own earlier replies (``Answer: <label>``,
as the Inspect provider returns them). Records are built by the task's own :func:`turn_record` from
the provider's own :func:`answer_logprobs`, and rows are laid out as
:func:`biaslab.frames.answer_rows` lays them out. ``tests/defeasible/test_inprocess.py`` checks
that the frame equals the one read from Inspect logs of the same run, answer for answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from biaslab.agents.base import Message, Request, make_agent
from biaslab.agents.provider import answer_logprobs
from biaslab.schema import Item
from biaslab.seeding import stable_hash
from biaslab.tasks import TOP_LOGPROBS, turn_record


def _flat(prefix: str, data: dict[str, Any]) -> dict[str, Any]:
    """Non-mapping values of ``data`` with a key prefix (what the frame keeps of item/turn meta)."""
    return {f"{prefix}{key}": value for key, value in data.items() if not isinstance(value, dict)}


def conversation_rows(item: Item, spec: str, run_key: str, seed: int) -> list[dict[str, Any]]:
    """One row per answered turn of ``item`` asked to agent ``spec``, as the frame holds them."""
    agent = make_agent(spec)
    messages: list[Message] = [Message("system", item.system)] if item.system else []
    identity = {
        "suite": item.suite,
        "model": f"biaslab/{spec}",
        "roles": "",
        "run_key": run_key,
        "seed": seed,
        "item_id": item.id,
        "epoch": 1,
    }
    item_meta = _flat("item_", dict(item.meta))
    rows = []
    for turn in item.turns:
        messages.append(Message("user", turn.prompt))
        text, distribution = agent.respond(Request(tuple(messages)))
        logprobs = None
        if distribution is not None:
            logprobs = answer_logprobs(text.removeprefix("Answer: "), distribution, TOP_LOGPROBS)
        record = turn_record(turn, text, logprobs).model_dump(mode="json")
        messages.append(Message("assistant", text))
        rows.append(
            {
                **identity,
                **{k: v for k, v in record.items() if k not in identity},
                "sample_error": None,
                **item_meta,
                **_flat("", dict(turn.meta)),
            }
        )
    return rows


def agent_frame(
    items: Sequence[Item], specs: Iterable[str], *, seed: int, config_key: str = ""
) -> pd.DataFrame:
    """The tidy frame of every item asked to every agent (``run_key`` = a stable hash of the agent,
    seed and ``config_key``: what determines the answers)."""
    rows = []
    for spec in specs:
        run_key = f"{stable_hash('inprocess', spec, seed, config_key):016x}"
        for item in items:
            rows += conversation_rows(item, spec, run_key, seed)
    return pd.DataFrame(rows)


__all__ = ["agent_frame", "conversation_rows"]
