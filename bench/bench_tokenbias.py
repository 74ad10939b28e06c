"""Token-bias generation with syllogism validity cached by form, against the brute force on every
call (the previous behaviour): seconds, the ratio, and a digest showing the items are identical.

Run: ``python bench/bench_tokenbias.py [--n 200] [--seed 1] [--repeat 3] [--pytest [--slow]]``. With
``--pytest`` it also times ``python -m pytest tests/tokenbias -m "not slow"`` both ways (``--slow``:
the whole directory, whose exhaustive horse searches do not touch syllogisms and only add time).
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from biaslab.schema import dumps_sorted
from biaslab.suites.tokenbias import syllogism as families
from biaslab.suites.tokenbias.config import Config
from biaslab.suites.tokenbias.generate import generate

ROOT = Path(__file__).resolve().parent.parent


def timed_generation(n: int, seed: int, repeat: int) -> tuple[float, str]:
    """Best-of-``repeat`` seconds for the default set, and the digest of its items."""
    best, digest = float("inf"), ""
    for _ in range(repeat):
        clear = getattr(families._valid_shape, "cache_clear", None)
        if clear is not None:
            clear()  # every cached run starts cold: the first syllogism of each form pays
        start = time.perf_counter()
        items = generate(Config(), seed, n)
        best = min(best, time.perf_counter() - start)
        text = dumps_sorted([item.model_dump(mode="json") for item in items])
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return best, digest


def with_brute_force(run: Callable[[], tuple[float, str]]) -> tuple[float, str]:
    cached = families._valid_shape
    families._valid_shape = cached.__wrapped__  # type: ignore[attr-defined]
    try:
        return run()
    finally:
        families._valid_shape = cached


def pytest_seconds(extra: list[str], slow: bool) -> float:
    command = [sys.executable, "-m", "pytest", "tests/tokenbias", "-q", "-p", "no:cacheprovider"]
    marker = [] if slow else ["-m", "not slow"]
    start = time.perf_counter()
    subprocess.run([*command, *marker, *extra], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pytest", action="store_true", help="also time the token-bias tests")
    parser.add_argument("--slow", action="store_true", help="with --pytest: include slow tests")
    args = parser.parse_args()
    generate(Config(), args.seed, 1)  # load the word lists once, as any real run would

    def run() -> tuple[float, str]:
        return timed_generation(args.n, args.seed, args.repeat)

    brute, brute_digest = with_brute_force(run)
    cached, cached_digest = run()
    print(f"generate default --n {args.n} --seed {args.seed} (best of {args.repeat})")
    print(f"  brute force every call: {brute:7.3f} s  items {brute_digest}")
    print(f"  cached by form:         {cached:7.3f} s  items {cached_digest}")
    print(f"  ratio cached/brute: {cached / brute:.3f} ({brute / cached:.1f}x faster)")
    if brute_digest != cached_digest:
        raise SystemExit("items differ between the two ways")
    if args.pytest:
        slow = pytest_seconds(["-p", "bench._uncached_validity"], args.slow)
        fast = pytest_seconds([], args.slow)
        scope = "" if args.slow else ' -m "not slow"'
        print(f"pytest tests/tokenbias{scope} (wall)")
        print(f"  brute force: {slow:6.1f} s  cached: {fast:6.1f} s  ratio {fast / slow:.3f}")


if __name__ == "__main__":
    main()
