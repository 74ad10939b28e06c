"""One Inspect task shape for every suite: ask each turn of an item in order, keep the model's own
answers in the history, parse every reply, score every turn.

Per-turn records (parsed answer, gold, correctness, label probabilities) are written to the sample
store as they arrive and copied into the score's metadata, so a conversation cut short by an error
keeps what it had already answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Logprobs
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from biaslab.answers import label_probabilities, parse_answer
from biaslab.schema import Item, Turn

TURNS_KEY = "biaslab_turns"
TOP_LOGPROBS = 5


def item_sample(item: Item) -> Sample:
    messages: list[ChatMessage] = []
    if item.system:
        messages.append(ChatMessageSystem(content=item.system))
    messages.append(ChatMessageUser(content=item.turns[0].prompt))
    return Sample(
        id=item.id,
        input=messages,
        target=item.turns[-1].gold,
        metadata={"item": item.model_dump(mode="json")},
    )


def _alternatives(logprobs: Logprobs | None) -> list[dict[str, float]]:
    if logprobs is None:
        return []
    alternatives: list[dict[str, float]] = []
    for position in logprobs.content:
        options = {alt.token: alt.logprob for alt in position.top_logprobs or []}
        options.setdefault(position.token, position.logprob)
        alternatives.append(options)
    return alternatives


def turn_record(turn: Turn, completion: str, logprobs: Logprobs | None) -> dict[str, Any]:
    """What the analysis needs of one answered turn."""
    predicted = parse_answer(completion, turn.labels)
    return {
        "index": turn.index,
        "kind": turn.kind,
        "gold": turn.gold,
        "predicted": predicted,
        "parsed": predicted is not None,
        "correct": predicted == turn.gold,
        "label_probs": label_probabilities(_alternatives(logprobs), turn.labels),
        "completion": completion,
    }


@solver
def conversation_solver(logprobs: bool = True) -> Solver:
    """Ask the item's turns one by one (one ``generate`` per question)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        item = Item.model_validate(state.metadata["item"])
        records: list[dict[str, Any]] = state.store.get(TURNS_KEY, [])
        for turn in item.turns:
            if turn.index > 0:
                state.messages.append(ChatMessageUser(content=turn.prompt))
            if logprobs:
                state = await generate(state, logprobs=True, top_logprobs=TOP_LOGPROBS)
            else:
                state = await generate(state)
            choice = state.output.choices[0] if state.output.choices else None
            records.append(
                turn_record(turn, state.output.completion, choice.logprobs if choice else None)
            )
            state.store.set(TURNS_KEY, records)
        return state

    return solve


@scorer(metrics={"accuracy": [mean(), stderr()], "unparsed": [mean()]})
def turns_scorer() -> Scorer:
    """Accuracy over the item's turns (unparsed counts as wrong and is also reported)."""

    async def score(state: TaskState, target: Target) -> Score:
        records: list[dict[str, Any]] = state.store.get(TURNS_KEY, [])
        n = max(len(records), 1)
        return Score(
            value={
                "accuracy": sum(r["correct"] for r in records) / n,
                "unparsed": sum(not r["parsed"] for r in records) / n,
            },
            answer=" | ".join(str(r["predicted"]) for r in records),
            metadata={"turns": records},
        )

    return score


def build_task(
    suite: str,
    items: Sequence[Item],
    *,
    config: dict[str, Any],
    seed: int,
    logprobs: bool = True,
    generator_version: str = "",
) -> Task:
    """The Inspect task for a list of generated items."""
    return Task(
        name=suite,
        dataset=MemoryDataset([item_sample(item) for item in items], name=suite),
        solver=conversation_solver(logprobs=logprobs),
        scorer=turns_scorer(),
        metadata={
            "biaslab_suite": suite,
            "biaslab_seed": seed,
            "biaslab_config": config,
            "biaslab_generator_version": generator_version,
        },
    )
