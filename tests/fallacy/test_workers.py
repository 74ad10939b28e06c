"""The process's PyETR pool: started once, reused, replaced for another size, when broken and after
its share of tasks, stopped at once when its caller is interrupted, memory-capped, and never
outliving the process that started it."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import psutil
import pytest

from biaslab.errors import BiaslabError
from biaslab.runner import generate_items
from biaslab.suites.fallacy import workers
from tests.helpers.children import default_sigint

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_pool() -> Iterator[None]:
    workers.shutdown()
    yield
    workers.shutdown()


def _items(seed: int, n: int) -> str:
    params = {"workers": "1"}
    items = generate_items("fallacy", preset=None, n=n, seed=seed, params=params).items
    return "\n".join(item.model_dump_json() for item in items)


def test_a_pool_that_did_other_work_gives_the_same_items_as_a_fresh_one(fresh_pool: None) -> None:
    fresh = _items(5, 3)
    executor = workers.shared(1)
    (worker,) = [workers.call(os.getpid)]
    _items(7, 3)  # other problems, other answers, in the same worker
    assert workers.call(os.getpid) == worker
    assert _items(5, 3) == fresh
    assert workers.shared(1) is executor  # one pool did all three sets


def test_a_pool_replaced_for_another_size_and_when_broken(fresh_pool: None) -> None:
    one = workers.shared(1)
    assert workers.shared() is one and workers.shared(1) is one
    two = workers.shared(2)
    assert two is not one and workers.shared() is two
    assert sorted(workers.map_ordered(abs, [-3, 1, -2], 2)) == [1, 2, 3]
    with pytest.raises(BiaslabError, match="a worker process died"):  # killed during its task
        list(workers.map_ordered(signal.raise_signal, [signal.SIGKILL], 2))
    assert list(workers.map_ordered(abs, [-4], 2)) == [4]
    assert workers.shared(2) is not two
    with pytest.raises(BiaslabError, match="at least 1"):
        workers.shared(0)


def test_a_pool_broken_between_calls_is_replaced_before_the_next_task(fresh_pool: None) -> None:
    """A worker killed while idle breaks the pool; the next call's task goes to a fresh one."""
    broken = workers.shared(1)
    os.kill(workers.call(os.getpid), signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the pool's own thread notices the death
        try:
            broken.submit(abs, 0).result()
        except BrokenProcessPool:
            break
    assert workers.call(abs, -6) == 6
    assert workers.shared() is not broken


def test_queued_tasks_finish_when_another_size_is_asked_for_meanwhile(fresh_pool: None) -> None:
    """Tasks queued on a pool, then a pool of another size asked for (another thread's call):
    the retired pool runs every queued task before it ends."""
    futures = [workers.shared(1).submit(abs, -k) for k in range(8)]
    workers.shared(2)
    assert [f.result(timeout=60) for f in futures] == list(range(8))


def test_a_map_longer_than_a_pools_share_goes_on_to_fresh_pools(
    fresh_pool: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seven tasks, one worker, two tasks per pool: four pools in turn, each started when the
    last one's tasks are done, results in order. (``max_tasks_per_child=2`` in their place
    stops for good after the second task on Python 3.11 to 3.13, CPython gh-115634.)"""
    monkeypatch.setattr(workers, "TASKS_PER_WORKER", 2)
    started: list[ProcessPoolExecutor] = []
    real = workers.pool

    def counted(count: int) -> ProcessPoolExecutor:
        started.append(real(count))
        return started[-1]

    monkeypatch.setattr(workers, "pool", counted)
    results = workers.map_ordered(abs, [-k for k in range(7)], 1)
    assert [next(results), next(results)] == [0, 1]
    assert len(started) == 1  # the next pool waits until these two are taken
    assert list(results) == [2, 3, 4, 5, 6]
    assert len(started) == 4


def test_a_retired_pools_running_tasks_are_stopped_with_their_caller(
    fresh_pool: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A map's pool retired by another call (its share of tasks used) while the map's task runs;
    then the map's caller stops: that running task's worker ends at once (shutting the pool down
    had dropped the executor's own table of its workers)."""
    monkeypatch.setattr(workers, "TASKS_PER_WORKER", 2)
    results = workers.map_ordered(time.sleep, [0, 30, 30], 1)
    next(results)  # the second task is running now (or about to)
    retired = workers._Shared.executor  # its share used: the next look-up retires it
    assert retired is not None
    pids = list(workers._WORKER_TABLES[retired])
    assert workers.call(abs, -1) == 1 and workers._Shared.executor is not retired
    results.close()  # the caller stops (an error, Ctrl-C)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    assert pids and not any(_alive(p) for p in pids)


def test_another_threads_call_lost_to_a_stopped_pool_runs_again(fresh_pool: None) -> None:
    """A call queued behind a map's running task when the map's caller stops (which stops the
    pool at once) is not that caller's to lose: it runs again on a fresh pool."""
    results = workers.map_ordered(time.sleep, [0, 5], 1)
    next(results)
    answers: list[int] = []
    thread = threading.Thread(target=lambda: answers.append(workers.call(abs, -7)))
    thread.start()
    time.sleep(0.5)  # queued behind the running sleep (else it goes to a fresh pool anyway)
    results.close()
    thread.join(timeout=60)
    assert answers == [7]


def test_workers_are_memory_capped_and_recycled(
    fresh_pool: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    soft, _ = workers.call(resource.getrlimit, resource.RLIMIT_AS)
    assert 0 < soft <= workers.MEMORY_LIMIT
    workers.shutdown()
    monkeypatch.setattr(workers, "TASKS_PER_WORKER", 2)
    workers.shared(1)
    pids = [workers.call(os.getpid) for _ in range(6)]
    assert len(set(pids)) == 3, pids  # a fresh worker every two tasks
    assert os.getpid() not in pids


def test_a_forked_child_does_not_use_its_parents_pool(fresh_pool: None) -> None:
    """The child has the pool object but not its manager thread: it must start its own."""
    parent = workers.shared(1)
    assert workers.call(abs, -1) == 1
    pid = os.fork()
    if pid == 0:  # the child: only look, then leave without running any cleanup
        os._exit(0 if workers._Shared.executor is None else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert workers.shared() is parent  # the parent's own pool is untouched


CHILD = textwrap.dedent(
    """
    import sys, time
    from biaslab.suites.fallacy import workers

    if __name__ == "__main__":
        assert list(workers.map_ordered(abs, [-1, -2, -3, -4], 2)) == [1, 2, 3, 4]
        while len(workers.shared()._processes) < 2:  # both started (they start as tasks wait)
            list(workers.map_ordered(time.sleep, [0.2, 0.2], 2))
        print(*workers.shared()._processes, flush=True)
        time.sleep(120)
    """
)


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["INT", "TERM", "KILL"]
)
def test_no_worker_outlives_the_process_that_started_it(tmp_path: Path, sig: int) -> None:
    """Ctrl-C, a plain SIGTERM (default action: no atexit) and SIGKILL all end the pool's workers
    with the process (the fixed idiom of a spawning main module: a script, not ``-c``)."""
    child = _start(tmp_path / "child.py", CHILD)
    try:
        assert child.stdout is not None
        pids = [int(p) for p in child.stdout.readline().split()]
        assert len(pids) == 2 and all(psutil.pid_exists(p) for p in pids)
        child.send_signal(sig)
        child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids)


def _start(script: Path, text: str) -> subprocess.Popen[str]:
    """``text`` run as a script (a spawning main module needs one), SIGINT at its default."""
    script.write_text(text, encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, str(script)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


SLOW_CHILD = textwrap.dedent(
    """
    import time
    from biaslab.suites.fallacy import workers

    if __name__ == "__main__":
        print("go", flush=True)
        list(workers.map_ordered(time.sleep, [60, 60, 60], 2))
    """
)


def test_ctrl_c_stops_running_tasks_at_once(tmp_path: Path) -> None:
    """Ctrl-C while the workers run long tasks: the process ends within seconds, not when the
    running tasks would have finished (the interpreter joins its pools at exit)."""
    child = _start(tmp_path / "slow.py", SLOW_CHILD)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "go"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_workers_of(child.pid)) < 2:
            time.sleep(0.2)
        pids = _workers_of(child.pid)
        assert len(pids) == 2
        time.sleep(1.0)  # both are inside time.sleep(60) by now
        child.send_signal(signal.SIGINT)
        started = time.monotonic()
        child.communicate(timeout=45)
        assert time.monotonic() - started < 20
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode != 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids)


def _workers_of(pid: int) -> list[int]:
    """The pool workers among ``pid``'s children (not multiprocessing's resource tracker)."""
    children = psutil.Process(pid).children()
    return [c.pid for c in children if "spawn_main" in " ".join(c.cmdline())]
