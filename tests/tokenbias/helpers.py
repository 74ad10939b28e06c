"""Shared helpers: answer generated items with a reference agent, build the analysis frame."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import biaslab.suites.tokenbias.reasoner  # noqa: F401  (registers the reasoner and agent)
from biaslab.agents.base import Message, Request, make_agent
from biaslab.answers import parse_answer
from biaslab.schema import Item


def request_for(item: Item) -> Request:
    messages = [Message("system", item.system)] if item.system else []
    return Request((*messages, Message("user", item.turns[0].prompt)))


def answer_rows(items: Sequence[Item], agent_spec: str) -> list[dict[str, Any]]:
    """One analysis row per item: the columns ``analyze`` needs plus the parsed answer."""
    agent = make_agent(agent_spec)
    rows = []
    for item in items:
        text, _ = agent.respond(request_for(item))
        turn = item.turns[0]
        answer = parse_answer(text, turn.labels)
        rows.append(
            {
                "model": agent_spec,
                "family": item.meta["family"],
                "hypothesis": item.meta["hypothesis"],
                "mode": item.meta["mode"],
                "pair_id": item.meta["pair_id"],
                "variant": item.meta["variant"],
                "correct": answer == turn.gold,
                "parsed": answer is not None,
            }
        )
    return rows


def accuracy(rows: Sequence[dict[str, Any]], **where: str) -> float:
    chosen = [r for r in rows if all(r[k] == v for k, v in where.items())]
    assert chosen, where
    return sum(r["correct"] for r in chosen) / len(chosen)
