"""Inspect entry point: ``inspect eval biaslab/<suite>`` and ``--model biaslab/<agent>``."""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.model import ModelAPI, modelapi

from biaslab.runner import suite_task


@modelapi(name="biaslab")
def biaslab() -> type[ModelAPI]:
    from biaslab.agents.provider import biaslab_model_api

    return biaslab_model_api  # type: ignore[return-value]  # a factory is what Inspect calls


@task
def defeasible(
    preset: str | None = None,
    n: int | None = None,
    seed: int = 0,
    logprobs: bool = True,
    **params: Any,
) -> Task:
    """Defeasible reasoning and confirmation bias (DeReLab); -T key=value sets suite parameters."""
    return suite_task("defeasible", preset=preset, n=n, seed=seed, logprobs=logprobs, params=params)


@task
def fallacy(
    preset: str | None = None,
    n: int | None = None,
    seed: int = 0,
    logprobs: bool = True,
    **params: Any,
) -> Task:
    """Human-like fallacies (ETR): open-ended conclusions; -T key=value sets suite parameters."""
    return suite_task("fallacy", preset=preset, n=n, seed=seed, logprobs=logprobs, params=params)


@task
def tokenbias(
    preset: str | None = None,
    n: int | None = None,
    seed: int = 0,
    logprobs: bool = True,
    **params: Any,
) -> Task:
    """Token bias: matched original/twin problems; -T key=value sets suite parameters."""
    return suite_task("tokenbias", preset=preset, n=n, seed=seed, logprobs=logprobs, params=params)


@task
def entrenchment(
    preset: str | None = None,
    n: int | None = None,
    seed: int = 0,
    logprobs: bool = True,
    **params: Any,
) -> Task:
    """Belief entrenchment (Martingale score): reasoning judged step by step by the judge role
    (--model-role judge=MODEL); -T key=value sets suite parameters."""
    return suite_task(
        "entrenchment", preset=preset, n=n, seed=seed, logprobs=logprobs, params=params
    )
