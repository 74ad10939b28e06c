"""``biaslab run all``: every suite's default preset, for several models and seeds, as one Inspect
eval set.

A grid of models x suites x seeds is what Inspect's ``eval_set`` is for: the log directory is the
unit of work, a rerun of the same command skips the tasks that finished and retries (reusing
finished samples) the ones that did not, and ``max_tasks`` runs several tasks at once against any
provider. We only build the task list: one task per (suite, seed, model), with the judge role set
on the suites that need one, so no other suite's runs carry a role they do not use (roles are part
of a run's identity).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError
from biaslab.runs import missing_role_message


@dataclass(frozen=True)
class GridSpec:
    models: tuple[str, ...]
    seeds: tuple[int, ...]
    suites: tuple[str, ...]
    params: Mapping[str, Mapping[str, str]]  # suite -> key -> value
    n: int | None = None
    judge: str | None = None
    self_judge: bool = False


def split_params(pairs: Mapping[str, str], suites: Sequence[str]) -> dict[str, dict[str, str]]:
    """``{"defeasible.topology": "linear"}`` -> ``{"defeasible": {"topology": "linear"}}``; a key
    without a known suite prefix is a one-line error. ``SUITE.n`` sets that suite's size."""
    out: dict[str, dict[str, str]] = {suite: {} for suite in suites}
    for key, value in pairs.items():
        suite, dot, name = key.partition(".")
        if not dot or suite not in out or not name:
            raise BiaslabError(
                f"bad parameter {key!r} for run all: use -p SUITE.KEY=VALUE with SUITE one of "
                f"{', '.join(suites)}"
            )
        if name == "n" and not (value.isdigit() and int(value) >= 1):
            raise BiaslabError(
                f"bad parameter {key}={value!r}: the size must be a positive integer"
            )
        out[suite][name] = value
    return out


def judge_for(spec: GridSpec, suite_roles: Sequence[str], model: str, suite: str) -> dict[str, str]:
    if "judge" not in suite_roles:
        return {}
    if spec.self_judge:
        return {"judge": model}
    if spec.judge is None:
        raise BiaslabError(missing_role_message(suite, "judge"))
    return {"judge": spec.judge}


@dataclass(frozen=True)
class Cell:
    """One task of the grid: a suite for one seed and one model, with its roles."""

    suite: str
    seed: int
    model: str
    roles: Mapping[str, str]
    arguments: Mapping[str, Any]  # what the suite's task function is called with


def grid_cells(spec: GridSpec) -> list[Cell]:
    """Every (suite, seed, model) of the grid; a missing role is an error before any task is
    built."""
    from biaslab.suites.registry import get_suite

    cells = []
    for suite in spec.suites:
        roles_needed = get_suite(suite).roles
        for seed in spec.seeds:
            for model in spec.models:
                params = dict(spec.params.get(suite, {}))
                n = int(params.pop("n")) if "n" in params else spec.n
                arguments = {"preset": None, "n": n, "seed": seed, **params}
                roles = judge_for(spec, roles_needed, model, suite)
                cells.append(Cell(suite, seed, model, roles, arguments))
    return cells


def finished_cells(cells: Sequence[Cell], log_dir: Path | str, limit: Any) -> list[int | None]:
    """Per cell, the sample count of a successful log of the same run already in ``log_dir``
    (the run's identity as :class:`biaslab.runs.RunSpec` matches it), else None."""
    from biaslab.orchestrate import recorded_task_args, task_factory
    from biaslab.runs import RunSpec, finished_sample_counts

    specs = [
        RunSpec(
            cell.suite,
            recorded_task_args(task_factory(cell.suite), cell.arguments),
            cell.model,
            dict(cell.roles),
            limit,
        )
        for cell in cells
    ]
    return finished_sample_counts(str(log_dir), specs)


def grid_tasks(cells: Sequence[Cell], finished: Sequence[int | None] | None = None) -> list[Any]:
    """One Inspect task per cell, built by each suite's registered task function (so ``inspect
    eval-set`` records the same tasks and arguments). A cell whose run already finished
    (``finished``: its sample count) gets items generated only if the eval set runs it after all,
    so a re-run of a finished grid generates no items and starts no worker pool."""
    from inspect_ai import task_with

    from biaslab.orchestrate import task_factory
    from biaslab.runner import generation_shared, items_on_demand
    from biaslab.task_settings import roles_given_at_eval

    tasks = []
    with generation_shared():  # every model of a (suite, seed) asks for the same items
        for number, cell in enumerate(cells):
            factory = task_factory(cell.suite)
            samples = finished[number] if finished is not None else None
            with roles_given_at_eval(), items_on_demand(samples):
                task = factory(**cell.arguments)
            if cell.roles:
                task_with(task, model=cell.model, model_roles=dict(cell.roles))
            else:
                task_with(task, model=cell.model)
            tasks.append(task)
    return tasks


def run_grid(
    spec: GridSpec, log_dir: Path | str, options: Mapping[str, Any]
) -> tuple[bool, list[Any]]:
    """Run the grid as one eval set in ``log_dir``; returns (every task succeeded, log headers).
    Inspect decides what to skip; runs already finished in ``log_dir`` are found first so their
    tasks are built without generating items (:func:`grid_tasks`)."""
    from inspect_ai import eval_set

    cells = grid_cells(spec)
    tasks = grid_tasks(cells, finished_cells(cells, log_dir, options.get("limit")))
    success, logs = eval_set(tasks, log_dir=str(log_dir), model=None, **options)
    return bool(success), list(logs)
