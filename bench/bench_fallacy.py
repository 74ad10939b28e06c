"""Generation speed of the fallacy suite: N problems meeting every condition (exact size quotas,
categorical ETR conclusion endorsed by does_it_follow, invalid by both deciders, chance level
counted), on W worker processes (goal: 400 problems in <= 60 s wall on 2 cores).

Run: ``python bench/bench_fallacy.py [--n 400] [--seed 1] [--workers 2] [--quantified 0.1]``.
Prints the wall time (worker start-up included), the per-problem CPU time of the search, the
shape of the set and the search's rejections. The machine is shared, so figures are upper bounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import psutil


def main() -> None:
    from biaslab.runner import generate_items
    from biaslab.suites.fallacy.generate import label_stats

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quantified", type=float, default=0.1)
    args = parser.parse_args()
    params = {"workers": str(args.workers), "quantified": str(args.quantified)}
    start = time.perf_counter()
    before = os.times()
    generated = generate_items("fallacy", preset=None, n=args.n, seed=args.seed, params=params)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )  # workers already ended (a retired pool's); the process's pool is still running:
    cpu += sum(sum(c.cpu_times()[:2]) for c in psutil.Process().children(recursive=True))
    items = generated.items
    stats = label_stats(items)
    sizes = [int(i.meta["n_atoms"]) for i in items]  # type: ignore[arg-type]
    load = os.getloadavg()[0]
    print(f"problems: {len(items)} on {args.workers} worker(s), seed {args.seed}, load {load:.1f}")
    print(f"wall: {wall:.1f} s ({wall / len(items):.3f} s per problem); workers' CPU: {cpu:.1f} s "
          f"({cpu / len(items):.3f} s per problem)")  # fmt: skip
    print(f"sizes: {stats['atoms']} (mean {statistics.mean(sizes):.1f})")
    print(f"premises: {stats['premises']}; quantified: {stats['quantified']}")
    print(f"invalid by both deciders: {stats['invalid']}/{len(items)}; deciders agree: "
          f"{stats['deciders_agree']}/{len(items)}")  # fmt: skip
    print(f"reversal changes ETR's conclusion: {stats['reversal_changes_conclusion']}; reversed "
          f"conclusion still categorical: {stats['reversed_categorical']}")  # fmt: skip
    print(f"mean chance share (robust label): {stats['chance_share_mean']:.3f}")
    print(f"themes: {stats['themes']}")
    print(f"search rejections: {stats['search_rejections']}")


if __name__ == "__main__":
    main()
