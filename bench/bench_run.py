"""Paired timing of runs with the built-in agents: today's settings against the previous behaviour.

Run: ``python bench/bench_run.py [repeats]``. Each measurement is a fresh process running
``biaslab run`` into an empty log directory, so imports, garbage-collector state and Inspect's
start-up are all counted. "before" restores what a run did before the change: Inspect's realtime
sample buffer and control server on (``--realtime``) and CPython's default GC thresholds
(``BIASLAB_BENCH_DEFAULT_GC=1``); "after" is the default. A/B runs alternate so that load from other
processes hits both alike; the figure is the median of the per-pair ratios after/before.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = {
    "defeasible oracle, 60 conversations": [
        "run", "defeasible", "--model", "biaslab/oracle", "--n", "20", "--seed", "1",
    ],
    "tokenbias oracle, default preset": ["run", "tokenbias", "--model", "biaslab/oracle"],
}  # fmt: skip

DRIVER = """
import os, sys
if os.environ.get("BIASLAB_BENCH_DEFAULT_GC"):
    import biaslab._gc as g
    g.tune_gc = lambda: None
from biaslab.cli import main
sys.exit(main(sys.argv[1:]))
"""


def one_run(args: list[str], before: bool) -> float:
    env = dict(os.environ)
    extra = ["--realtime"] if before else []
    if before:
        env["BIASLAB_BENCH_DEFAULT_GC"] = "1"
    with tempfile.TemporaryDirectory() as log_dir:
        command = [sys.executable, "-c", DRIVER, *args, *extra, "--log-dir", log_dir]
        command += ["--display", "none"]
        start = time.perf_counter()
        subprocess.run(command, check=True, env=env, capture_output=True)
        return time.perf_counter() - start


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for name, args in CASES.items():
        ratios, befores, afters = [], [], []
        for _ in range(repeats):
            b = one_run(args, before=True)
            a = one_run(args, before=False)
            befores.append(b)
            afters.append(a)
            ratios.append(a / b)
        print(
            f"{name}: before {statistics.median(befores):.1f} s, after "
            f"{statistics.median(afters):.1f} s, median paired ratio {statistics.median(ratios):.2f}x "
            f"({repeats} pairs)"
        )


if __name__ == "__main__":
    main()
