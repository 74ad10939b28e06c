"""Time the stratified permutation null at the size a suite analysis meets.

Run: ``python bench/bench_permutation.py``. Budget: 2,000 permutations of 10,000 rows in 60 strata
with a BiasGap-shaped metric must take ≤ 2 s.
"""

from __future__ import annotations

import time

import numpy as np

from biaslab.stats import permutation_null

N_ROWS = 10_000
N_STRATA = 60
N_PERM = 2_000
BUDGET_S = 2.0


def main() -> None:
    rng = np.random.default_rng(0)
    strata = rng.integers(0, N_STRATA, size=N_ROWS)
    condition = rng.integers(0, 3, size=N_ROWS)
    correct = (rng.random(N_ROWS) < 0.7).astype(float)
    c1, c2 = condition == 1, condition == 2

    def gap(perm: np.ndarray) -> np.ndarray:
        return perm[:, c1].mean(axis=1) - perm[:, c2].mean(axis=1)

    permutation_null(correct[:500], strata[:500], lambda p: p[:, c1[:500]].mean(axis=1), seed=0)
    times = []
    for repeat in range(3):
        start = time.perf_counter()
        permutation_null(correct, strata, gap, seed=repeat, n_perm=N_PERM)
        times.append(time.perf_counter() - start)
    best = min(times)
    verdict = "ok" if best <= BUDGET_S else "OVER BUDGET"
    print(
        f"permutation null: {N_ROWS:,} rows, {N_STRATA} strata, {N_PERM:,} permutations: "
        f"{best:.3f} s (best of 3; budget {BUDGET_S} s) {verdict}"
    )


if __name__ == "__main__":
    main()
