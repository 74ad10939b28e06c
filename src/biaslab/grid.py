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


def grid_tasks(spec: GridSpec) -> list[Any]:
    """One Inspect task per (suite, seed, model), built by each suite's registered task function
    (so ``inspect eval-set`` records the same tasks and arguments)."""
    from inspect_ai import task_with

    from biaslab.orchestrate import task_factory
    from biaslab.suites.registry import get_suite
    from biaslab.task_settings import roles_given_at_eval

    tasks = []
    for suite in spec.suites:
        factory = task_factory(suite)
        roles_needed = get_suite(suite).roles
        for seed in spec.seeds:
            for model in spec.models:
                roles = judge_for(spec, roles_needed, model, suite)
                params = dict(spec.params.get(suite, {}))
                n = int(params.pop("n")) if "n" in params else spec.n
                with roles_given_at_eval():
                    task = factory(preset=None, n=n, seed=seed, **params)
                if roles:
                    task_with(task, model=model, model_roles=dict(roles))
                else:
                    task_with(task, model=model)
                tasks.append(task)
    return tasks


def run_grid(
    spec: GridSpec, log_dir: Path | str, options: Mapping[str, Any]
) -> tuple[bool, list[Any]]:
    """Run the grid as one eval set in ``log_dir``; returns (every task succeeded, log headers)."""
    from inspect_ai import eval_set

    tasks = grid_tasks(spec)
    success, logs = eval_set(tasks, log_dir=str(log_dir), model=None, **options)
    return bool(success), list(logs)
