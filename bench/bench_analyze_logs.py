"""Time ``biaslab analyze`` on about 20,000 defeasible answers, in fresh processes, before and after.

Run: ``python bench/bench_analyze_logs.py LOG_DIR [--before-src PATH] [--pairs N]``.

LOG_DIR is made once and reused when it already holds ``.eval`` logs: ``biaslab run defeasible``
with ``biaslab/sticky?p=0.9``, ``biaslab/random`` and ``biaslab/calibrated`` (the last gives label
probabilities, so the confidence section is computed) on several seeds. Each timing is one
``biaslab analyze LOG_DIR -o results.json`` in a new process (imports included, as a user sees
it): wall time, the child's CPU (user + sys from ``os.wait4``) and its peak RSS. With
``--before-src`` (another checkout's ``src``, put first on PYTHONPATH) the two versions alternate,
so both see the same load, and the two ``results.json`` are compared byte for byte; when they
differ, the JSON paths whose values differ are listed. Goal: < 8 s wall on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

AGENTS = ("biaslab/sticky?p=0.9", "biaslab/random", "biaslab/calibrated")
SEEDS = "1-2"
N = 85
GOAL_S = 8.0
HERE_SRC = Path(__file__).resolve().parents[1] / "src"


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float
    rss_mib: float


def make_logs(log_dir: Path) -> None:
    """The bench's logs (about 20k answers), unless LOG_DIR already holds some."""
    if any(log_dir.glob("*.eval")):
        return
    log_dir.mkdir(parents=True, exist_ok=True)
    models = [arg for agent in AGENTS for arg in ("--model", agent)]
    command = [_biaslab(), "run", "defeasible", *models, "--seeds", SEEDS, "--n", str(N)]
    command += ["--log-dir", str(log_dir), "--display", "none"]
    print("making logs:", " ".join(command), flush=True)
    subprocess.run(command, check=True, env=_env(HERE_SRC))


def _biaslab() -> str:
    return str(Path(sys.executable).with_name("biaslab"))


def _env(src: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    return env


def analyze(src: Path, log_dir: Path, output: Path) -> Timing:
    """One ``biaslab analyze`` in a fresh process with ``src`` first on the path."""
    command = [_biaslab(), "analyze", str(log_dir), "-o", str(output)]
    start = time.perf_counter()
    child = subprocess.Popen(command, env=_env(src), stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"biaslab analyze exited {child.returncode} with {src}")
    return Timing(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def differing_paths(before: Any, after: Any, path: str = "$") -> Iterator[str]:
    """JSON paths where two documents differ (a whole list when its length differs)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            if key not in before or key not in after:
                yield f"{path}.{key}"
            else:
                yield from differing_paths(before[key], after[key], f"{path}.{key}")
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (one, two) in enumerate(zip(before, after, strict=True)):
            yield from differing_paths(one, two, f"{path}[{index}]")
    elif before != after:
        yield path


def conversations_in(results: Path) -> int:
    """Samples (conversations) the analysis used, from the provenance rows of results.json."""
    doc = json.loads(results.read_text())
    return sum(int(row.get("samples_used", 0)) for row in doc.get("provenance", []))


def summary(label: str, timings: list[Timing]) -> str:
    walls = [t.wall for t in timings]
    cpus = [t.cpu for t in timings]
    rss = max(t.rss_mib for t in timings)
    return (
        f"{label}: wall median {statistics.median(walls):.2f} s (min {min(walls):.2f}), "
        f"CPU median {statistics.median(cpus):.2f} s (min {min(cpus):.2f}), "
        f"peak RSS {rss:.0f} MiB, runs {len(timings)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log_dir", type=Path)
    parser.add_argument("--before-src", type=Path, help="another checkout's src directory")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--out", type=Path, help="where results.json go (default: LOG_DIR/..)")
    args = parser.parse_args()
    make_logs(args.log_dir)
    out = args.out or args.log_dir.parent
    out.mkdir(parents=True, exist_ok=True)
    versions = {"after": HERE_SRC}
    if args.before_src:
        versions = {"before": args.before_src.resolve(), **versions}
    timings: dict[str, list[Timing]] = {name: [] for name in versions}
    for pair in range(args.pairs):
        for name, src in versions.items():
            timing = analyze(src, args.log_dir, out / f"results-{name}.json")
            timings[name].append(timing)
            print(
                f"pair {pair + 1} {name}: {timing.wall:.2f} s wall, {timing.cpu:.2f} s CPU, "
                f"{timing.rss_mib:.0f} MiB",
                flush=True,
            )
    print(f"load average now: {os.getloadavg()[0]:.2f}")
    for name, runs in timings.items():
        print(summary(name, runs))
    after = out / "results-after.json"
    print(f"conversations analysed: {conversations_in(after):,} (goal: < {GOAL_S} s wall)")
    if args.before_src:
        before = out / "results-before.json"
        if before.read_bytes() == after.read_bytes():
            print("results.json: byte-identical")
        else:
            paths = list(
                differing_paths(json.loads(before.read_text()), json.loads(after.read_text()))
            )
            print(f"results.json: {len(paths)} values differ:")
            for path in paths:
                print("  ", path)


if __name__ == "__main__":
    main()
