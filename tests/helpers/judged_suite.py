"""A tiny suite that owns its task and needs a judge: for tests of the platform only.

Each item asks the model one yes/no question; the solver then asks the judge role, twice and
concurrently, whether the answer is right (two replicates with distinct cache scopes), and records
one typed record for the answer and one per judgement. Importing this module registers the suite as
``judged`` (``biaslab run judged --model M --judge J``); ``inspect eval
tests/helpers/judged_suite.py@judged --model M --model-role judge=J`` builds the same task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task, task
from inspect_ai.model import CachePolicy, ChatMessageUser, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect
from pydantic import BaseModel, ConfigDict

from biaslab.answers import format_instruction, parse_answer
from biaslab.records import AnswerRecord, append_record, stored_records
from biaslab.schema import Item, Turn
from biaslab.suites.registry import SUITE_MODULES, Suite
from biaslab.tasks import TaskSettings, item_dataset

NAME = "judged"
REPLICATES = 2


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid")
    size: int = 3


class AnswerRow(AnswerRecord):
    record: Literal["answer"] = "answer"
    predicted: str | None
    gold: str
    correct: bool


class JudgementRow(AnswerRecord):
    record: Literal["judgement"] = "judgement"
    replicate: int
    verdict: str | None


def resolve_config(preset: str | None, params: Mapping[str, str]) -> Config:
    return Config(**{k: int(v) for k, v in params.items()})


def generate(config: Config, seed: int, n: int) -> list[Item]:
    items = []
    for index in range(n):
        a, b = seed + index, config.size
        prompt = f"Is {a} + {b} greater than {b}?\n{format_instruction(('yes', 'no'))}"
        gold = "yes" if a > 0 else "no"
        turn = Turn(index=0, prompt=prompt, kind="sum", labels=("yes", "no"), gold=gold)
        items.append(Item(suite=NAME, id=f"{NAME}-{seed}-{index}", turns=(turn,)))
    return items


def judge_prompt(question: str, answer: str) -> str:
    return f"Question: {question}\nReply: {answer}\nIs the reply right?\n" + format_instruction(
        ("yes", "no")
    )


@solver
def answer_then_judge() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        item = Item.model_validate(state.metadata["item"])
        turn = item.turns[0]
        state = await generate(state)
        predicted = parse_answer(state.output.completion, turn.labels or ())
        append_record(
            state.store,
            AnswerRow(predicted=predicted, gold=turn.gold, correct=predicted == turn.gold),
        )
        judge = get_model(role="judge", required=True)
        prompt = judge_prompt(turn.prompt, state.output.completion)

        async def ask(replicate: int) -> str:
            cache = CachePolicy(expiry=None, scopes={"replicate": str(replicate)})
            output = await judge.generate([ChatMessageUser(content=prompt)], cache=cache)
            return output.completion

        replies = await collect(*(ask(r) for r in range(REPLICATES)))
        for replicate, reply in enumerate(replies):
            verdict = parse_answer(reply, ("yes", "no"))
            append_record(state.store, JudgementRow(replicate=replicate, verdict=verdict))
        return state

    return solve


@scorer(metrics=[mean()])
def answered() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        rows = [r for r in stored_records(state.store) if r["record"] == "answer"]
        return Score(value=float(bool(rows) and rows[0]["correct"]))

    return score


def build(items: Sequence[Item], settings: TaskSettings) -> Task:
    return Task(name=NAME, dataset=item_dataset(NAME, items), solver=answer_then_judge(),
                scorer=answered())  # fmt: skip


class Results(BaseModel):
    n_answers: int
    n_judgements: int


def analyze(frame: Any) -> Results:
    return Results(
        n_answers=int((frame["record"] == "answer").sum()),
        n_judgements=int((frame["record"] == "judgement").sum()),
    )


SUITE = Suite(
    name=NAME,
    description="platform test suite with a judge role",
    generator_version="judged-1",
    default_preset="default",
    default_n=3,
    presets={"default": {}},
    parameter_docs={"size": "an integer"},
    resolve_config=resolve_config,
    generate=generate,
    label_stats=lambda items: {"n": len(items)},
    analyze=analyze,
    tables=lambda results: str(results),
    report=lambda results, out: f"## judged\n\n{results}",
    task=build,
    roles=("judge",),
)


@task(name=NAME)
def judged(preset: str | None = None, n: int | None = None, seed: int = 0, **params: Any) -> Task:
    from biaslab.runner import suite_task

    return suite_task(NAME, preset=preset, n=n, seed=seed, params=params)


TASK = judged
SUITE_MODULES.setdefault(NAME, "tests.helpers.judged_suite")
assert Path(__file__).name == "judged_suite.py"
