"""The suite's own Inspect task: per item, the reasoning (one or more calls to the model under
test), then every judgement of every prefix, made concurrently with ``inspect_ai.util.collect``.

The judge is the ``judge`` model role (``--model-role judge=…``, or ``biaslab run --judge``);
without one the sample fails with Inspect's own error rather than silently self-judging. Each
record is appended to the sample store as soon as it exists (:func:`biaslab.records.append_record`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from inspect_ai import Task
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
    model_roles,
)
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from biaslab.errors import BiaslabError
from biaslab.records import append_record, stored_records
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
from biaslab.task_settings import roles_come_at_eval
from biaslab.tasks import TaskArgumentError, TaskSettings, item_dataset, task_metadata


def asker(model: Model) -> Ask:
    """An :data:`Ask` over an Inspect model. A call with a cache policy (every judge call) uses
    it; one without (the model under test) keeps whatever caching the eval configured."""

    async def ask(
        messages: list[ChatMessage], config: GenerateConfig, cache: CachePolicy | None
    ) -> ModelOutput:
        if cache is None:
            return await model.generate(messages, config=config)
        return await model.generate(messages, config=config, cache=cache)

    return ask


def judge_model() -> Model:
    """The ``judge`` role's model; its absence is one line naming the options."""
    if "judge" not in model_roles():
        raise BiaslabError(NO_JUDGE)
    return get_model(role="judge", required=True)


@solver
def trajectory_solver(config: dict[str, Any]) -> Solver:
    """Reason, record the trajectory, then judge every prefix (see :mod:`.pipeline`)."""
    resolved = Config.model_validate(config)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        view = ItemView.of(Item.model_validate(state.metadata["item"]))
        judge = judge_model()
        ask_model = asker(get_model())
        ask_judge = asker(judge)
        reasoning = await reason(view, resolved, ask_model)
        if reasoning.transcript:
            state.messages = list(reasoning.transcript)
        append_record(state.store, trajectory_record(view, reasoning, resolved))
        requests = judge_requests(view, reasoning, resolved)
        batches = await collect(
            *[
                run_request(view, reasoning, request, ask_model if request.to_model else ask_judge)
                for request in requests
            ]
        )
        for batch in batches:
            for record in batch:
                append_record(state.store, record)
        return state

    return solve


@scorer(metrics={"unparsed": [mean()], "steps": [mean()], "failed": [mean()]})
def trajectory_scorer() -> Scorer:
    """Share of unparsed beliefs, step count, and whether the trajectory could not be judged."""

    async def score(state: TaskState, target: Target) -> Score:
        records = stored_records(state.store)
        beliefs = [r for r in records if r.get("record") == "belief"]
        trajectory = next((r for r in records if r.get("record") == "trajectory"), {})
        judged = [
            r for r in beliefs if r.get("replicate") == 0 and r.get("belief_construct") == "judge"
        ]
        final = max(judged, key=lambda r: r["step"], default=None)
        return Score(
            value={
                "unparsed": sum(not r["parsed"] for r in beliefs) / max(len(beliefs), 1),
                "steps": float(trajectory.get("n_steps", 0)),
                "failed": float(
                    bool(trajectory.get("failure")) or any(r["failed"] for r in beliefs)
                ),
            },
            answer=None if final is None or final["belief"] is None else f"{final['belief']:.3f}",
        )

    return score


NO_JUDGE = (
    "the entrenchment suite needs a judge model: inspect eval --model-role judge=MODEL "
    "(or 'judge={model: MODEL, temperature: 0.3}'), or biaslab run --judge MODEL (or --self-judge)"
)


def _check_judge_role() -> None:
    """Under ``inspect eval`` Inspect sets the eval's model roles before it builds the task, so a
    missing judge is refused here in one line (a :class:`TaskArgumentError`), not as a traceback
    from the first sample. Any other builder (``biaslab run``, a notebook that builds the task and
    passes ``model_roles`` to ``inspect_ai.eval``) gets its roles later, and Inspect's context may
    still hold an earlier eval's: the roles are read only while Inspect itself is building the
    task (:func:`_inside_inspects_task_resolution`); elsewhere a missing judge fails each sample
    with :data:`NO_JUDGE` (:func:`judge_model`)."""
    if roles_come_at_eval() or not _inside_inspects_task_resolution():
        return
    if "judge" not in model_roles():
        raise TaskArgumentError(NO_JUDGE)


#: the Inspect function that sets an eval's model roles and then builds its tasks (``eval``,
#: ``eval_set`` and ``inspect eval`` all build through it)
_RESOLVER = ("inspect_ai._eval.eval", "eval_resolve_tasks")


def _inside_inspects_task_resolution() -> bool:
    """Whether this task is being built by Inspect's ``eval_resolve_tasks``, i.e. right after it set
    this eval's roles. Inspect offers no public way to ask whether roles were set for the eval at
    hand (its context variable outlives the eval that set it), so the call stack is read."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if (frame.f_globals.get("__name__"), code.co_name) == _RESOLVER:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def build_task(items: Sequence[Item], settings: TaskSettings) -> Task:
    """The entrenchment task for a list of generated items."""
    _check_judge_role()
    config = Config.model_validate(settings.config)
    return Task(
        name=settings.suite,
        dataset=item_dataset(settings.suite, items),
        solver=trajectory_solver(config=config.model_dump(mode="json")),
        scorer=trajectory_scorer(),
        config=GenerateConfig(max_tokens=config.reasoner_max_tokens),
        metadata=task_metadata(settings),
    )
