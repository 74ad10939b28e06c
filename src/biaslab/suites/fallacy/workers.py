"""The processes PyETR runs in: spawned with a fixed ``PYTHONHASHSEED``, memory-capped.

PyETR names the fresh arbitrary objects of an inference in set iteration order, which follows the
interpreter's string-hash seed, and its exact comparisons (``does_it_follow``) see those names. So
every PyETR computation of this suite runs in a worker process started with
``PYTHONHASHSEED=0``: the generator's pool (``concurrent.futures.ProcessPoolExecutor``, one
problem index per task, at most as many workers as cores) and one long-lived worker that labels
answers and serves the reference agents. The caller's own hash seed then changes nothing, and the
caller's process never imports PyETR (which would raise its recursion limit and switch pyparsing's
packrat cache on for everything else in it).

Each worker caps its address space (:data:`MEMORY_LIMIT`), so a runaway solver dies instead of
taking the machine down, and a generation worker is replaced after :data:`TASKS_PER_WORKER`
problems, so memory that PyETR or z3 keep between problems cannot pile up over a long run. A
worker that runs out of memory or dies is a one-line error, not a traceback.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.context
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from biaslab.errors import BiaslabError

HASH_SEED = "0"
MEMORY_LIMIT = 4 * 1024**3  # bytes of address space per worker
TASKS_PER_WORKER = 500  # problems a generation worker handles before a fresh one replaces it
_ENV_LOCK = threading.Lock()

T = TypeVar("T")
R = TypeVar("R")


class _PinnedProcess(multiprocessing.context.SpawnProcess):
    """A spawned process whose interpreter starts with ``PYTHONHASHSEED`` fixed."""

    def start(self) -> None:
        with _ENV_LOCK:  # the child copies os.environ when it is spawned
            previous = os.environ.get("PYTHONHASHSEED")
            os.environ["PYTHONHASHSEED"] = HASH_SEED
            try:
                super().start()
            finally:
                if previous is None:
                    del os.environ["PYTHONHASHSEED"]
                else:
                    os.environ["PYTHONHASHSEED"] = previous


class _PinnedContext(multiprocessing.context.SpawnContext):
    Process = _PinnedProcess


def _initialise() -> None:
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):  # not POSIX, or not allowed: run without the cap
        pass


def default_workers() -> int:
    """Generation workers: one per core, at most two."""
    return max(1, min(2, os.cpu_count() or 1))


def pool(workers: int, tasks_per_worker: int | None = None) -> ProcessPoolExecutor:
    if workers < 1:
        raise BiaslabError(f"fallacy: workers must be at least 1, got {workers}")
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_PinnedContext(),
        initializer=_initialise,
        max_tasks_per_child=tasks_per_worker,
    )


def map_ordered(function: Callable[[T], R], tasks: Iterable[T], workers: int) -> Iterator[R]:
    """``function`` over ``tasks`` in pinned workers, results in task order (a worker that runs
    out of memory or dies is a one-line :class:`BiaslabError`)."""
    try:
        with pool(workers, TASKS_PER_WORKER) as executor:
            yield from executor.map(function, tasks, chunksize=1)
    except MemoryError:
        raise BiaslabError(
            f"fallacy: a worker ran out of memory (limit {MEMORY_LIMIT // 1024**3} GiB per worker)"
        ) from None
    except BrokenProcessPool:
        raise BiaslabError("fallacy: a worker process died (out of memory or killed)") from None


class _Service:
    """One long-lived pinned worker for answer labels and agents (started on first use)."""

    executor: ProcessPoolExecutor | None = None
    lock = threading.Lock()


def call(function: Callable[..., R], *args: Any) -> R:
    """``function(*args)`` in the suite's long-lived pinned worker (restarted if it died)."""
    with _Service.lock:
        if _Service.executor is None:
            _Service.executor = pool(1)
        executor = _Service.executor
    try:
        return executor.submit(function, *args).result()
    except BrokenProcessPool:
        with _Service.lock:
            _Service.executor = None
        raise


def _shutdown() -> None:
    if _Service.executor is not None:
        _Service.executor.shutdown(wait=False, cancel_futures=True)


atexit.register(_shutdown)
