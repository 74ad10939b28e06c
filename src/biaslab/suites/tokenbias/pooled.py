"""The level of the pooled test across seeds, by simulation.

Items of many seeds are generated once; an answerer without token bias is right with probability
``accuracy`` on each *prompt* (a model at temperature 0) or on each *problem* (one that also reads
names, towns, option order and framing as no difference), the draw repeated ``replicates`` times.
Every replicate is tested per hypothesis × family on the pooled pairs, before Benjamini–Hochberg,
counting pairs three ways: every pair; each ``pair_key`` once (what the analysis did before it
clustered: pairs that share one member still counted twice); and one pair per cluster of pairs
sharing a member's problem (:mod:`biaslab.suites.tokenbias.clusters`, what the analysis does). A
count that treats dependent pairs as independent rejects more often than α.

Run: ``python -m biaslab.suites.tokenbias.pooled --seeds 1-100 --n 50 --replicates 4000``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from biaslab.seeding import stable_hash
from biaslab.suites.tokenbias.config import Config, resolve_config
from biaslab.suites.tokenbias.directions import DIRECTIONS
from biaslab.suites.tokenbias.generate import generate
from biaslab.suites.tokenbias.levels import parse_seeds

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

Keyed = Literal["prompt", "problem"]
COUNTS = ("every pair", "pair_key once", "one per cluster")
_CHUNK = 250  # replicates drawn at once (memory: chunk × pairs booleans)


@dataclass(frozen=True)
class PooledLevel:
    """Share of replicates in which one test rejected at α, per way of counting pairs."""

    test: str
    keyed: Keyed
    pairs: dict[str, int]
    rejected: dict[str, float]


def pair_table(config: Config, seeds: Sequence[int], n: int) -> pd.DataFrame:
    """One row per generated pair of every seed: its test, ids, keys and both members' keys."""
    import pandas as pd

    rows = []
    for seed in seeds:
        items = generate(config, seed, n)
        for original, twin in zip(items[::2], items[1::2], strict=True):
            rows.append(
                {
                    "hypothesis": original.meta["hypothesis"],
                    "family": original.meta["analysis_family"],
                    "model": "simulated",
                    "mode": original.meta["mode"],
                    "seed": seed,
                    "pair_id": original.meta["pair_id"],
                    "pair_key": original.meta["pair_key"],
                    "problem_key_original": original.meta["problem_key"],
                    "problem_key_twin": twin.meta["problem_key"],
                    "prompt_original": _prompt_key(original.system, original.turns[0].prompt),
                    "prompt_twin": _prompt_key(twin.system, twin.turns[0].prompt),
                }
            )
    return pd.DataFrame(rows)


def _prompt_key(system: str | None, prompt: str) -> str:
    return f"{stable_hash('prompt', system or '', prompt):016x}"


def pooled_levels(
    pairs: pd.DataFrame, replicates: int, accuracy: float = 0.7, alpha: float = 0.05
) -> list[PooledLevel]:
    """The simulation of the module docstring on a :func:`pair_table`."""
    import numpy as np
    import pandas as pd

    from biaslab.suites.tokenbias.analysis import mcnemar_test
    from biaslab.suites.tokenbias.clusters import independent_pairs

    pairs = pairs.sort_values(["hypothesis", "family", "seed", "pair_id"]).reset_index(drop=True)
    kept = {
        "every pair": np.ones(len(pairs), dtype=bool),
        "pair_key once": ~pairs.duplicated(["hypothesis", "family", "mode", "pair_key"]).to_numpy(),
        "one per cluster": pairs.index.isin(independent_pairs(pairs)[0].index),
    }
    tests, group = np.unique(pairs["hypothesis"] + " " + pairs["family"], return_inverse=True)
    p_values: dict[tuple[int, int, str], float] = {}
    found = []
    for keyed in ("prompt", "problem"):
        columns = (
            ("prompt_original", "prompt_twin")
            if keyed == "prompt"
            else (
                "problem_key_original",
                "problem_key_twin",
            )
        )
        codes, uniques = pd.factorize(pd.concat([pairs[columns[0]], pairs[columns[1]]]))
        original, twin = codes[: len(pairs)], codes[len(pairs) :]
        hits = {count: np.zeros(len(tests)) for count in COUNTS}
        for start in range(0, replicates, _CHUNK):
            size = min(_CHUNK, replicates - start)
            rng = np.random.default_rng([start, 1 if keyed == "prompt" else 2])
            correct = rng.random((size, len(uniques))) < accuracy
            x, y = correct[:, original], correct[:, twin]
            for count, mask in kept.items():
                b = _by_group((x & ~y)[:, mask], group[mask], len(tests))
                c = _by_group((~x & y)[:, mask], group[mask], len(tests))
                for t, test in enumerate(tests):
                    alternative = DIRECTIONS[(test.split()[1], test.split()[0])]
                    for bb, cc in zip(b[:, t], c[:, t], strict=True):
                        key = (int(bb), int(cc), alternative)
                        if key not in p_values:
                            result = mcnemar_test(key[0], key[1], alternative, 0)
                            p_values[key] = result.pvalue if result.pvalue is not None else 1.0
                        hits[count][t] += p_values[key] < alpha
        for t, test in enumerate(tests):
            found.append(
                PooledLevel(
                    test=str(test),
                    keyed=keyed,
                    pairs={count: int(mask[group == t].sum()) for count, mask in kept.items()},
                    rejected={count: float(hits[count][t] / replicates) for count in COUNTS},
                )
            )
    return found


def _by_group(values: np.ndarray, group: np.ndarray, groups: int) -> np.ndarray:
    """Row sums of ``values`` (replicates × pairs) within each pair group -> replicates × groups."""
    import numpy as np

    onehot = np.zeros((len(group), groups), dtype=np.int32)
    onehot[np.arange(len(group)), group] = 1
    return values.astype(np.int32) @ onehot


def markdown(levels: Sequence[PooledLevel]) -> str:
    head = "| test | answers fixed per | pairs (all / pair_key / clusters) | " + " | ".join(
        f"rejected: {count}" for count in COUNTS
    )
    lines = [head + " |", "|---|---|---:|" + "---:|" * len(COUNTS)]
    for level in levels:
        counts = " / ".join(f"{level.pairs[c]:,}" for c in COUNTS)
        cells = " | ".join(f"{100 * level.rejected[c]:.1f}%" for c in COUNTS)
        lines.append(f"| {level.test} | {level.keyed} | {counts} | {cells} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-100")
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--replicates", type=int, default=4000)
    parser.add_argument("--preset", default="default")
    parser.add_argument("-p", dest="params", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    config = resolve_config(args.preset, dict(kv.split("=", 1) for kv in args.params))
    start = time.perf_counter()
    levels = pooled_levels(pair_table(config, parse_seeds(args.seeds), args.n), args.replicates)
    print(
        f"seeds {args.seeds} pooled, --n {args.n}, preset {args.preset} {' '.join(args.params)}, "
        f"{args.replicates} replicates, accuracy 0.7, exact McNemar, raw p < 0.05"
    )
    print(markdown(levels))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
