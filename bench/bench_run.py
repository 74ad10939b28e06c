"""What ``biaslab run`` costs beside a plain Inspect task with the same samples, and what a re-run of
a finished ``biaslab run all`` costs beside its first run.

Run: ``python bench/bench_run.py [pairs] [--case NAME] [--rerun-n N] [--previous-settings]``.

* **run vs plain Inspect.** Each measurement is a fresh process into an empty log directory, so
  imports, garbage-collector state and Inspect's start-up are all counted. "biaslab" is
  ``biaslab run SUITE --model biaslab/oracle …``; "inspect" is the same items (generated once
  beforehand and read from JSONL, as anyone holding the items would) as an Inspect
  ``MemoryDataset`` with the same solver, scorer and built-in agent, run by ``inspect_ai.eval`` with
  the eval options ``biaslab run`` passes for a built-in agent. The two alternate so that load from
  other processes hits both alike. Reported: median wall and CPU seconds (user + sys of the child
  and anything it waited for) and the median of the per-pair CPU ratios.
* **run all re-run.** ``biaslab run all`` with the oracle and a small ``--n`` into an empty log
  directory, then the same command again (which finds every task finished): CPU of each and
  the ratio re-run / first run.
* ``--previous-settings``: the older comparison of today's run against the settings it replaced
  (Inspect's realtime sample buffer and control server on, default GC thresholds).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = {
    "defeasible": ["defeasible", "--n", "20", "--seed", "1"],
    "tokenbias": ["tokenbias"],
}
CASE_TITLES = {
    "defeasible": "defeasible oracle, 60 conversations",
    "tokenbias": "tokenbias oracle, default preset",
}

BIASLAB = """
import os, sys
if os.environ.get("BIASLAB_BENCH_DEFAULT_GC"):
    import biaslab._gc as g
    g.tune_gc = lambda: None
from biaslab.cli import main
sys.exit(main(sys.argv[1:]))
"""

#: the same items through Inspect alone: read the JSONL, build the task, eval it
PLAIN_INSPECT = """
import sys
from pathlib import Path
from inspect_ai import Task, eval
from biaslab.schema import read_items
from biaslab.tasks import answers_scorer, conversation_solver, item_dataset
items_path, suite, log_dir = sys.argv[1:4]
task = Task(
    name=suite,
    dataset=item_dataset(suite, read_items(Path(items_path))),
    solver=conversation_solver(logprobs=True),
    scorer=answers_scorer(),
)
logs = eval(task, model="biaslab/oracle", log_dir=log_dir, display="none", score_display=False,
            log_realtime=False, ctl_server=False, continue_on_fail=True)
sys.exit(0 if logs[0].status == "success" else 1)
"""


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child and its waited-for children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def biaslab_run(args: list[str], log_dir: str, previous: bool = False) -> tuple[float, float]:
    env = dict(os.environ)
    extra = ["--realtime"] if previous else []
    if previous:
        env["BIASLAB_BENCH_DEFAULT_GC"] = "1"
    command = [sys.executable, "-c", BIASLAB, "run", *args, "--model", "biaslab/oracle", *extra]
    return timed([*command, "--log-dir", log_dir, "--display", "none"], env)


def plain_run(items: Path, suite: str, log_dir: str) -> tuple[float, float]:
    return timed([sys.executable, "-c", PLAIN_INSPECT, str(items), suite, log_dir])


def write_items(args: list[str], path: Path) -> None:
    """The items ``biaslab run`` would generate, written once (not timed)."""
    suite, rest = args[0], args[1:]
    command = [sys.executable, "-c", BIASLAB, "generate", suite, *rest, "-o", str(path)]
    subprocess.run(command, check=True, capture_output=True)


def median_line(name: str, rows: list[tuple[float, float]]) -> str:
    wall = statistics.median(r[0] for r in rows)
    cpu = statistics.median(r[1] for r in rows)
    return f"{name} {wall:.1f} s wall, {cpu:.1f} CPU-s"


def compare_with_plain(case: str, pairs: int) -> None:
    args = CASES[case]
    with tempfile.TemporaryDirectory() as work:
        items = Path(work) / "items.jsonl"
        write_items(args, items)
        ours, plain, ratios = [], [], []
        for number in range(pairs):
            a = biaslab_run(args, f"{work}/a{number}")
            b = plain_run(items, args[0], f"{work}/b{number}")
            ours.append(a)
            plain.append(b)
            ratios.append(a[1] / b[1])
    print(
        f"{CASE_TITLES[case]}: {median_line('biaslab run', ours)}; "
        f"{median_line('plain Inspect', plain)}; median paired CPU ratio "
        f"{statistics.median(ratios):.2f}x ({pairs} pairs)"
    )


def compare_with_previous_settings(case: str, pairs: int) -> None:
    args = CASES[case]
    ratios, befores, afters = [], [], []
    with tempfile.TemporaryDirectory() as work:
        for number in range(pairs):
            b = biaslab_run(args, f"{work}/b{number}", previous=True)
            a = biaslab_run(args, f"{work}/a{number}")
            befores.append(b)
            afters.append(a)
            ratios.append(a[0] / b[0])
    print(
        f"{CASE_TITLES[case]}: {median_line('previous settings', befores)}, "
        f"{median_line('today', afters)}, median paired wall ratio "
        f"{statistics.median(ratios):.2f}x ({pairs} pairs)"
    )


def rerun_all(n: int, pairs: int) -> None:
    """First run of ``run all`` into an empty directory, then the same command again."""
    firsts, reruns = [], []
    for _ in range(pairs):
        with tempfile.TemporaryDirectory() as log_dir:
            args = ["all", "--judge", "biaslab/judge-reader", "--n", str(n)]
            firsts.append(biaslab_run(args, log_dir))
            reruns.append(biaslab_run(args, log_dir))
    ratio = statistics.median(r[1] / f[1] for f, r in zip(firsts, reruns, strict=True))
    print(
        f"run all, oracle, --n {n}: {median_line('first run', firsts)}; "
        f"{median_line('re-run', reruns)}; median CPU ratio {ratio:.2f} ({pairs} pairs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=int, nargs="?", default=3)
    parser.add_argument("--case", choices=[*CASES, "rerun-all"], action="append")
    parser.add_argument("--rerun-n", type=int, default=12)
    parser.add_argument("--previous-settings", action="store_true")
    args = parser.parse_args()
    for case in args.case or [*CASES, "rerun-all"]:
        if case == "rerun-all":
            rerun_all(args.rerun_n, args.pairs)
        elif args.previous_settings:
            compare_with_previous_settings(case, args.pairs)
        else:
            compare_with_plain(case, args.pairs)


if __name__ == "__main__":
    main()
