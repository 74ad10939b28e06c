"""Time the conversation-level cluster bootstraps at the paper's scale (10,000 resamples).

Run: ``python bench/bench_stats.py``. Budget: the odds-ratio bootstrap over 10k rows in ~500
conversations must take ≤ 2 s.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from biaslab import stats

N_ROWS = 10_000
N_CLUSTERS = 500
N_BOOT = 10_000
BUDGET_S = 2.0


def best_of(fn: Callable[[], object], repeats: int = 5) -> float:
    """Best wall time over ``repeats`` runs after one warm-up (imports, allocator)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    clusters = rng.integers(0, N_CLUSTERS, N_ROWS).astype(str)  # string ids, as in real logs
    arm = rng.random(N_ROWS) < 0.5
    correct = rng.random(N_ROWS) < np.where(arm, 0.9, 0.6)
    a, b = correct[arm], correct[~arm]
    ca, cb = clusters[arm], clusters[~arm]

    or_s = best_of(lambda: stats.odds_ratio(a, b, ca, cb, n_boot=N_BOOT, seed=0))
    gap_s = best_of(lambda: stats.bootstrap_mean_diff(a, b, ca, cb, n_boot=N_BOOT, seed=0))
    res = stats.odds_ratio(a, b, ca, cb, n_boot=N_BOOT, seed=0)
    print(f"rows={N_ROWS} clusters={res.n_clusters} resamples={N_BOOT}")
    print(f"OR = {res.statistic:.3f}, 95% CI = {res.ci}")
    verdict = "OK" if or_s <= BUDGET_S else "OVER BUDGET"
    print(f"odds_ratio cluster bootstrap:          {or_s:.3f} s (budget {BUDGET_S} s) {verdict}")
    print(f"bootstrap_mean_diff cluster bootstrap: {gap_s:.3f} s")


if __name__ == "__main__":
    main()
