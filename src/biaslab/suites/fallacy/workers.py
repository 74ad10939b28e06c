"""The processes PyETR runs in: spawned with a fixed ``PYTHONHASHSEED``, memory-capped.

PyETR names the fresh arbitrary objects of an inference in set iteration order, which follows the
interpreter's string-hash seed, and its exact comparisons (``does_it_follow``) see those names. So
every PyETR computation of this suite runs in a worker process started with
``PYTHONHASHSEED=0``: one ``concurrent.futures.ProcessPoolExecutor`` that searches problems (one
problem index per task, at most as many workers as cores), labels answers and serves the
reference agents. The caller's own hash seed then changes nothing, and the
caller's process never imports PyETR (which would raise its recursion limit and switch pyparsing's
packrat cache on for everything else in it).

Each worker caps its address space (:data:`MEMORY_LIMIT`), so a runaway solver dies instead of
taking the machine down. A worker that runs out of memory or dies is a one-line error, not a
traceback.

One pool serves the whole process (generation, answer labels, agents): it starts on first use,
not at import, so a command that generates nothing starts no worker; and each spawned worker pays
~1.7 CPU-s importing PyETR and z3, which a fresh pool per call paid again every time. Its workers
start one at a time as tasks wait, up to the number asked for. The pool is retired (its queued
tasks finish, then its workers end) and a fresh one started when a call asks for another number of
workers, when it broke, and when it has been given :data:`TASKS_PER_WORKER` tasks per worker, so
memory that PyETR or z3 keep between problems cannot pile up over a long run. That last is done
here rather than with ``max_tasks_per_child``: on Python 3.11 to 3.13 a pool with a backlog stops
for good once a worker ends at that limit (CPython gh-115634). A map is cut at the retirement
point: its tasks up to there finish before its next ones go to the fresh pool, so the two pools
never run side by side for it.

Every task is a pure function of its arguments under the fixed hash seed (the caches it fills
hold immutable values), so what a worker did before never changes a result. Workers ignore
SIGINT (the caller owns cancellation: Ctrl-C unwinds the caller, which stops the workers of the
call it was in at once, running tasks included) and end themselves when the caller's process is
gone however it ended (SIGKILL included), so no worker outlives the process that started it.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.connection
import multiprocessing.context
import os
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from biaslab.errors import BiaslabError

HASH_SEED = "0"
MEMORY_LIMIT = 4 * 1024**3  # bytes of address space per worker
TASKS_PER_WORKER = 500  # tasks per worker a pool is given before a fresh pool replaces it
_ENV_LOCK = threading.Lock()
_DIED = "fallacy: a worker process died (out of memory or killed)"

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
    _ignore_sigint()
    _cap_memory()
    _exit_with_parent()


def _ignore_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _cap_memory() -> None:
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):  # not POSIX, or not allowed: run without the cap
        pass


def _exit_with_parent() -> None:
    """A daemon thread that ends this worker once its parent is gone. A spawned worker holds both
    ends of its task queue, so a parent killed outright (SIGKILL, SIGTERM's default action) would
    otherwise leave it waiting for tasks forever; the parent's sentinel is closed by the kernel
    whatever ended the parent."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def default_workers() -> int:
    """Generation workers: one per core, at most two."""
    return max(1, min(2, os.cpu_count() or 1))


def pool(workers: int) -> ProcessPoolExecutor:
    """A new pinned pool (:func:`map_ordered` and :func:`call` share one, see :func:`shared`)."""
    if workers < 1:
        raise BiaslabError(f"fallacy: workers must be at least 1, got {workers}")
    executor = ProcessPoolExecutor(
        max_workers=workers, mp_context=_PinnedContext(), initializer=_initialise
    )
    table = getattr(executor, "_processes", None)  # empty until the first task: keep this dict
    _WORKER_TABLES[executor] = table if table is not None else {}
    return executor


#: each pool's table of worker processes (pid -> process), the very dict its manager thread keeps
#: up to date: ``shutdown`` drops the executor's own reference to it, and a retired pool's
#: running tasks must still be stoppable (:func:`_stop_now`)
_WORKER_TABLES: weakref.WeakKeyDictionary[ProcessPoolExecutor, dict[int, Any]] = (
    weakref.WeakKeyDictionary()
)
#: pools stopped on purpose (a caller's error or Ctrl-C): another thread's task that failed with
#: one was not at fault, and :func:`call` runs it again on the current pool
_STOPPED: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()


class _Shared:
    """The process's pool, its number of workers, the tasks it may still be given, and the lock
    that guards the three."""

    executor: ProcessPoolExecutor | None = None
    workers = 0
    left = 0
    lock = threading.Lock()


def shared(workers: int | None = None) -> ProcessPoolExecutor:
    """The process's pool of ``workers`` (``None``: whichever is alive, else one of
    :func:`default_workers`), started now if there is none of that number or it has been given
    all its tasks; the pool it replaces is retired."""
    with _Shared.lock:
        return _current(workers)


def _current(workers: int | None) -> ProcessPoolExecutor:
    """:func:`shared`'s work; the caller holds the lock."""
    if workers is not None and workers < 1:
        raise BiaslabError(f"fallacy: workers must be at least 1, got {workers}")
    alive = _Shared.executor
    if alive is not None and workers in (None, _Shared.workers) and _Shared.left > 0:
        return alive
    count = workers or _Shared.workers or default_workers()
    fresh = pool(count)
    _Shared.executor, _Shared.workers, _Shared.left = fresh, count, count * TASKS_PER_WORKER
    if alive is not None:  # its queued tasks (another thread's too) still run, then it ends
        alive.shutdown(wait=False)
    return fresh


def _submit(
    workers: int | None, function: Callable[..., R], calls: Sequence[tuple[Any, ...]]
) -> tuple[ProcessPoolExecutor, list[Future[R]]]:
    """``function`` on the first of ``calls`` (each one's arguments) that the process's pool may
    still be given, at least one. Submitted under the lock, so no other thread retires or
    discards the pool in between. A pool that an earlier task broke refuses them: they go to a
    fresh one, once (a pool that breaks as it starts is the caller's :class:`BrokenProcessPool`)."""
    with _Shared.lock:
        for attempt in (1, 2):
            executor = _current(workers)
            taken = calls[: _Shared.left]
            _Shared.left -= len(taken)
            try:
                return executor, [executor.submit(function, *args) for args in taken]
            except BrokenProcessPool:
                if attempt == 2:
                    raise
                _Shared.left = 0  # retired by the next look-up
        raise AssertionError("unreachable")


def _discard(executor: ProcessPoolExecutor) -> None:
    """Forget ``executor`` if it is still the process's pool (the next call starts a new one)
    and stop its workers now, tasks running or not: it broke, or its caller stopped (an error,
    Ctrl-C), whose running tasks would otherwise hold the interpreter's exit until they finished
    (``concurrent.futures`` joins its pools at exit). Another thread's :func:`call` on it runs
    again on a fresh pool."""
    with _Shared.lock:
        if _Shared.executor is executor:
            _Shared.executor, _Shared.workers, _Shared.left = None, 0, 0
        _STOPPED.add(executor)
    _stop_now(executor)


def _stop_now(executor: ProcessPoolExecutor) -> None:
    """Cancel the queued tasks and end the workers, a retired pool's too. ``ProcessPoolExecutor``
    has no public way to stop running tasks before Python 3.14, and its ``terminate_workers``
    finds no worker once the pool was shut down, so the table kept at its start is used."""
    processes = list(_WORKER_TABLES.get(executor, {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


def map_ordered(function: Callable[[T], R], tasks: Iterable[T], workers: int) -> Iterator[R]:
    """``function`` over ``tasks`` in the process's pool of at most ``workers`` pinned workers
    (no more start than there are tasks), results in task order. A worker that runs out of memory
    or dies is a one-line :class:`BiaslabError` and the pool is replaced on the next call; so it
    is when the caller stops early (an error, Ctrl-C): its workers are stopped at once."""
    calls = [(task,) for task in tasks]
    done = 0
    while done < len(calls):  # one pass per pool: all of a pass's tasks are submitted at once
        executor: ProcessPoolExecutor | None = None
        finished = False
        try:
            executor, futures = _submit(workers, function, calls[done:])
            for future in futures:
                yield future.result()
            finished = True
        except MemoryError:
            raise BiaslabError(
                f"fallacy: a worker ran out of memory (limit {MEMORY_LIMIT // 1024**3} GiB "
                "per worker)"
            ) from None
        except (BrokenProcessPool, CancelledError):  # cancelled: another caller stopped the pool
            raise BiaslabError(_DIED) from None
        finally:
            if not finished and executor is not None:
                _discard(executor)
        done += len(futures)


def call(function: Callable[..., R], *args: Any) -> R:
    """``function(*args)`` in the process's pool. A pool that broke is replaced on the next call;
    one whose caller was interrupted is stopped at once. A task lost because another caller
    stopped the pool runs again on the current one (once)."""
    for attempt in (1, 2):
        executor, (future,) = _submit(None, function, [args])
        try:
            return future.result()
        except KeyboardInterrupt:
            _discard(executor)
            raise
        except (BrokenProcessPool, CancelledError):
            if attempt == 1 and executor in _STOPPED:
                continue
            _discard(executor)
            raise BiaslabError(_DIED) from None
    raise AssertionError("unreachable")


def shutdown() -> None:
    """End the process's pool (the next call would start a new one). Registered at exit, where
    it finds nothing left to cancel: ``concurrent.futures`` has already waited for every queued
    task by then (its own exit hook runs first); a call that was interrupted stops its own pool's
    workers (:func:`_discard`)."""
    with _Shared.lock:
        executor, _Shared.executor, _Shared.workers, _Shared.left = _Shared.executor, None, 0, 0
    if executor is not None:
        executor.shutdown(wait=False, cancel_futures=True)


def _forget_after_fork() -> None:
    """A forked child inherits the pool object but not its manager thread or its pipes' other
    ends: it must not use or shut it down, only start its own when it needs one."""
    global _ENV_LOCK
    _Shared.executor, _Shared.workers, _Shared.left = None, 0, 0
    _Shared.lock = threading.Lock()
    _ENV_LOCK = threading.Lock()  # a fork during another thread's worker start would hold it


atexit.register(shutdown)
os.register_at_fork(after_in_child=_forget_after_fork)
