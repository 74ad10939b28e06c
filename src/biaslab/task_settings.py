"""What a suite's task builder is given besides its items, and the metadata every log carries.

Kept apart from :mod:`biaslab.tasks` so the suite registry can name it without importing the task
layer (which looks suites up in the registry)."""

from __future__ import annotations

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
