"""The suite's pipeline run in-process against reference agents, without Inspect's eval loop.

For calibration over many seeds (the 50-seed table in the README): the same items, the same
:mod:`.pipeline` functions and the same agents' ``ModelAPI`` as ``inspect eval`` uses, so the
records are the ones the Inspect task would store (a test checks the two frames agree); only the
eval loop, logging and caching are skipped. Rows carry the identity columns the frame would have
(``model``, ``roles``, ``run_key`` = a hash of the run's settings, ``item_id``, ``epoch``) and the
item metadata as ``item_<key>`` columns.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from typing import Any

import pandas as pd
from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, ModelOutput

from biaslab.agents.provider import ReferenceAgentAPI
from biaslab.schema import Item
from biaslab.suites.entrenchment.config import Config
from biaslab.suites.entrenchment.pipeline import (
    Ask,
    ItemView,
    judge_requests,
    reason,
    run_request,
    trajectory_record,
)


def _asker(api: ReferenceAgentAPI) -> Ask:
    async def ask(
        messages: list[ChatMessage], config: GenerateConfig, cache: CachePolicy | None
    ) -> ModelOutput:
        return await api.generate(messages, [], "none", config)

    return ask


async def _item_records(
    item: Item, config: Config, ask_model: Ask, ask_judge: Ask
) -> list[dict[str, Any]]:
    view = ItemView.of(item)
    reasoning = await reason(view, config, ask_model)
    records: list[dict[str, Any]] = [
        trajectory_record(view, reasoning, config).model_dump(mode="json")
    ]
    for request in judge_requests(view, reasoning, config):
        batch = await run_request(
            view, reasoning, request, ask_model if request.to_model else ask_judge
        )
        records += [r.model_dump(mode="json") for r in batch]
    return records


def run_agents(
    items: Sequence[Item],
    config: Config,
    model: str,
    judge: str,
    *,
    seed: int = 0,
    ask_model: Ask | None = None,
) -> pd.DataFrame:
    """The tidy frame of ``model`` reasoning and ``judge`` judging every item (reference agents
    only, given as ``biaslab/<name>`` or ``<name>``). With ``ask_model``, the reasoner is that
    function instead (held-out agents kept out of the agent registry), named ``model``."""
    model_name, judge_name = model.removeprefix("biaslab/"), judge.removeprefix("biaslab/")
    if ask_model is None:
        ask_model = _asker(ReferenceAgentAPI(model_name))
    ask_judge = _asker(ReferenceAgentAPI(judge_name))
    identity_text = json.dumps([model, judge, config.model_dump(mode="json"), seed], default=str)
    identity = {
        "suite": "entrenchment",
        "model": model if "/" in model else f"biaslab/{model_name}",
        "roles": f"judge=biaslab/{judge_name}",
        "run_key": hashlib.sha256(identity_text.encode()).hexdigest()[:16],
        "seed": seed,
        "epoch": 1,
    }

    async def everything() -> list[list[dict[str, Any]]]:
        return [await _item_records(item, config, ask_model, ask_judge) for item in items]

    rows: list[dict[str, Any]] = []
    for item, records in zip(items, asyncio.run(everything()), strict=True):
        meta = {f"item_{k}": v for k, v in item.meta.items() if not isinstance(v, dict)}
        for record in records:
            rows.append({**identity, "item_id": item.id, **record, "sample_error": None, **meta})
    return pd.DataFrame(rows)
