"""Harness output written by hand, in the shape lm-evaluation-harness gives it (``samples_<task>_
<date>.jsonl`` beside ``results_<date>.json`` in a folder named after the model), so the reader is
tested without the harness installed. The real harness is run in ``test_lm_eval.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from biaslab.agents.base import Message, Request, make_agent

DATE = "2026-01-02T03-04-05.000006"


def agent_replies(docs: list[dict[str, Any]], agent: str, repeats: int = 1) -> list[list[str]]:
    """What ``biaslab/<agent>`` replies to each document (system + user message, as a chat)."""
    answerer = make_agent(agent)
    replies = []
    for doc in docs:
        messages = [Message("system", doc["system"])] if doc["system"] else []
        messages.append(Message("user", doc["prompt"]))
        text, _ = answerer.respond(Request(tuple(messages)))
        replies.append([text] * repeats)
    return replies


def write_samples(
    folder: Path,
    task: str,
    docs: list[dict[str, Any]],
    replies: list[list[str]],
    model: str | None,
    date: str = DATE,
) -> Path:
    """One samples file (and, with ``model``, its results json) as the harness lays them out."""
    folder.mkdir(parents=True, exist_ok=True)
    samples = folder / f"samples_{task}_{date}.jsonl"
    lines = []
    for doc_id, (doc, resps) in enumerate(zip(docs, replies, strict=True)):
        sample = {
            "doc_id": doc_id,
            "doc": doc,
            "target": doc["gold"],
            "arguments": {"gen_args_0": {"arg_0": doc["prompt"], "arg_1": {"until": []}}},
            "resps": [resps],
            "filtered_resps": [resps[0]],
            "filter": "answer-line",
            "metrics": ["exact_match"],
        }
        lines.append(json.dumps(sample) + "\n")
    samples.write_text("".join(lines), encoding="utf-8")
    if model is not None:
        results = {"model_name": model, "config": {"model": "some-backend", "model_args": {}}}
        (folder / f"results_{date}.json").write_text(json.dumps(results), encoding="utf-8")
    return samples


def read_docs(task_folder: Path, task: str) -> list[dict[str, Any]]:
    lines = (task_folder / f"{task}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]
