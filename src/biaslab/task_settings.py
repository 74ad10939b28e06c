"""What a suite's task builder is given besides its items, and the metadata every log carries.

Kept apart from :mod:`biaslab.tasks` so the suite registry can name it without importing the task
layer (which looks suites up in the registry)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TaskSettings:
    """What a suite's task builder is given besides the items (all recorded in the log)."""

    suite: str
    config: dict[str, Any]
    seed: int
    generator_version: str = ""
    logprobs: bool = True
    params: dict[str, Any] = field(default_factory=dict)


def task_metadata(settings: TaskSettings) -> dict[str, Any]:
    """The task metadata every biaslab log carries (what :mod:`biaslab.identity` reads)."""
    return {
        "biaslab_suite": settings.suite,
        "biaslab_seed": settings.seed,
        "biaslab_config": settings.config,
        "biaslab_generator_version": settings.generator_version,
    }


_ROLES_AT_EVAL: ContextVar[bool] = ContextVar("biaslab_roles_at_eval", default=False)


@contextmanager
def roles_given_at_eval() -> Iterator[None]:
    """Build tasks whose model roles are passed when the eval starts (``biaslab run``, ``run all``,
    a caller of ``inspect_ai.eval``): such a builder must not judge the roles from Inspect's
    context, which may still hold an earlier eval's (Inspect sets them before it builds a task only
    under ``inspect eval``)."""
    token = _ROLES_AT_EVAL.set(True)
    try:
        yield
    finally:
        _ROLES_AT_EVAL.reset(token)


def roles_come_at_eval() -> bool:
    """Whether the task being built gets its model roles from its caller (see above)."""
    return _ROLES_AT_EVAL.get()
