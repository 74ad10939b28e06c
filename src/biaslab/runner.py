"""Config -> items -> Inspect task, shared by ``biaslab run`` and ``inspect eval biaslab/<suite>``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from biaslab.schema import Item, ItemList, RejectedRow
from biaslab.suites.registry import Suite, get_suite


@dataclass(frozen=True)
class Generated:
    suite: Suite
    config: dict[str, Any]
    seed: int
    items: list[Item]
    #: rows of an imported file that made no item, and the generator's summary of the import
    rejected_rows: list[RejectedRow] | None = None
    summary: str | None = None
    notes: dict[str, Any] | None = None


def generate_items(
    suite_name: str,
    *,
    preset: str | None,
    n: int | None,
    seed: int,
    params: Mapping[str, object],
) -> Generated:
    suite, config, count = resolved_config(suite_name, preset=preset, n=n, params=params)
    shared = _SHARED.get()
    key = (suite_name, json.dumps(config.model_dump(mode="json"), sort_keys=True), seed, count)
    if shared is not None and key in shared:
        return shared[key]
    generated = _generated(suite, config, seed, count, suite_name)
    if shared is not None:
        shared[key] = generated
    return generated


#: items already made while building one grid (see :func:`generation_shared`), or None
_SHARED: ContextVar[dict[tuple[str, str, int, int], Generated] | None] = ContextVar(
    "biaslab_generation_shared", default=None
)


@contextmanager
def generation_shared() -> Iterator[None]:
    """Within, tasks asking for the same suite, config, seed and size share one generation.

    ``run all`` builds one task per model, all with the same items: without this the fallacy
    problems of a 6-model grid were searched for six times. The sharing ends with the block, so a
    file a later command imports is read again."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def _generated(suite: Suite, config: Any, seed: int, count: int, suite_name: str) -> Generated:
    from biaslab import progress

    with progress.reporting(f"generating {suite_name} items"):
        items = suite.generate(config, seed, count)
    rejected, summary, notes = (
        (items.rejected_rows or None, items.summary, items.notes or None)
        if isinstance(items, ItemList)
        else (None, None, None)
    )
    return Generated(
        suite=suite,
        config=config.model_dump(mode="json"),
        seed=seed,
        items=items,
        rejected_rows=rejected,
        summary=summary,
        notes=notes,
    )


def resolved_config(
    suite_name: str, *, preset: str | None, n: int | None, params: Mapping[str, object]
) -> tuple[Suite, Any, int]:
    """(suite, its resolved config, the number of items asked for): every check of the arguments
    that needs no generation, each a one-line :class:`~biaslab.errors.BiaslabError`."""
    suite = get_suite(suite_name)
    config = suite.resolve_config(preset, {k: _as_param(v) for k, v in params.items()})
    count = suite.default_n if n is None else n
    if count < 1:
        from biaslab.errors import BiaslabError

        raise BiaslabError(f"--n must be at least 1, got {count}")
    return suite, config, count


#: the number of samples of a finished run whose task is being built (see :func:`items_on_demand`)
_ON_DEMAND: ContextVar[int | None] = ContextVar("biaslab_items_on_demand", default=None)


@contextmanager
def items_on_demand(samples: int | None) -> Iterator[None]:
    """Build the suite task within with items generated only if Inspect asks for a sample.

    For a task whose run already finished in the log directory (``samples``: how many samples its
    log holds), so that an eval set that skips it generates nothing. ``None``: generate now, as
    usual (argument errors then surface before any eval starts)."""
    token = _ON_DEMAND.set(samples)
    try:
        yield
    finally:
        _ON_DEMAND.reset(token)


_SAID: set[str] = set()


def _say_once(summary: str | None) -> None:
    """An import's summary (rows skipped) on stderr, once per process however many models run."""
    if summary and summary not in _SAID:
        _SAID.add(summary)
        print(f"biaslab: {summary}", file=sys.stderr)


def _as_param(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def suite_task(
    suite_name: str,
    *,
    preset: str | None = None,
    n: int | None = None,
    seed: int = 0,
    logprobs: bool = True,
    params: Mapping[str, object] | None = None,
) -> Any:
    """The Inspect Task for a suite's generated items: the suite's own task shape, or the label
    conversation. Either way the task carries the metadata that identifies the run."""
    from biaslab.errors import BiaslabError
    from biaslab.tasks import TaskArgumentError, TaskSettings, build_task, task_metadata

    samples = _ON_DEMAND.get()
    try:
        if samples is None:
            generated = generate_items(
                suite_name, preset=preset, n=n, seed=seed, params=params or {}
            )
            suite, config, items = generated.suite, generated.config, generated.items
            _say_once(generated.summary)
        else:
            suite, resolved, _ = resolved_config(
                suite_name, preset=preset, n=n, params=params or {}
            )
            config = resolved.model_dump(mode="json")
            items = _deferred_items(suite_name, preset, n, seed, params or {}, samples)
    except BiaslabError as exc:
        raise TaskArgumentError(str(exc)) from None
    settings = TaskSettings(
        suite=suite_name,
        config=config,
        seed=seed,
        generator_version=suite.generator_version,
        logprobs=logprobs,
        params=dict(params or {}),
    )
    builder = suite.task or build_task
    task = builder(items, settings)
    task.metadata = {**(task.metadata or {}), **task_metadata(settings)}
    return task


def _deferred_items(
    suite_name: str,
    preset: str | None,
    n: int | None,
    seed: int,
    params: Mapping[str, object],
    samples: int,
) -> Any:
    """Items generated when first touched (see :func:`items_on_demand`)."""
    from biaslab.tasks import DeferredItems

    def make() -> list[Item]:
        from biaslab.errors import BiaslabError
        from biaslab.tasks import TaskArgumentError

        try:
            generated = generate_items(suite_name, preset=preset, n=n, seed=seed, params=params)
        except BiaslabError as exc:  # one line, as when the task is built with its items
            raise TaskArgumentError(str(exc)) from None
        _say_once(generated.summary)
        return generated.items

    return DeferredItems(samples, make)
