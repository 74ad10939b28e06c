"""Time reading a directory of logs into the tidy frame, and analysing it.

Run: ``python bench/bench_frames.py [LOG_DIR]``. Without LOG_DIR the logs are made once in a temporary
directory: 10 seeds x 30 default-topology conversations answered by ``biaslab/sticky?p=0.9`` (about
6,000 answers). Timed after imports, with the GC settings ``biaslab analyze`` uses: reading with
the lean reader (what ``biaslab analyze`` does), reading every sample whole with Inspect's reader
(its fallback; the frame is identical), and the defeasible analysis of the frame. Goal: ≤ 1.5 s to
read.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from inspect_ai import eval as inspect_eval

from biaslab import frames
from biaslab._gc import tune_gc
from biaslab.runner import suite_task
from biaslab.suites.defeasible.analysis import analyze

SEEDS = range(10)
N = 30
BUDGET_S = 1.5


def make_logs(out: Path) -> None:
    for seed in SEEDS:
        task = suite_task("defeasible", n=N, seed=seed, params={"topology": "default"})
        inspect_eval(
            task, model="biaslab/sticky?p=0.9", log_dir=str(out), display="none", log_realtime=False
        )


def timed(label: str, fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    print(f"{label}: {time.perf_counter() - start:.2f} s")
    return value


def main() -> None:
    tune_gc()
    if len(sys.argv) > 1:
        log_dir = Path(sys.argv[1])
    else:
        log_dir = Path(tempfile.mkdtemp(prefix="biaslab-bench-frames-"))
        make_logs(log_dir)
    frames.frame_at(log_dir)  # warm-up: first-use imports inside Inspect's reader
    lean = timed("read, lean reader", lambda: frames.frame_at(log_dir))
    full = timed("read, Inspect's reader", lambda: frames.frame_at(log_dir, lean=False))
    assert lean.equals(full), "the two readers gave different frames"
    timed("defeasible analysis", lambda: analyze(lean))
    print(f"{len(lean):,} answers from {log_dir} (goal to read: {BUDGET_S} s)")


if __name__ == "__main__":
    main()
