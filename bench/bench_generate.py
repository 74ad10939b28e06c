"""Time to generate the canonical DeReLab set: 3 topologies x easy/hard, 150 conversations each,
every turn labelled by the resolver (goal: <= 5 s in total on one CPU core).

Run: ``python bench/bench_generate.py [--seed 42] [--n 150] [--repeat 3]``. Prints one line per
split (best of ``repeat`` runs) and the total, plus the label balance of the generated set.
"""

from __future__ import annotations

import argparse
import time

from biaslab.suites.defeasible.config import TOPOLOGIES, resolve_config
from biaslab.suites.defeasible.generate import generate, label_stats
from biaslab.suites.defeasible.lexicon import load_lexicon
from biaslab.suites.defeasible.words import pseudowords


def warm_up() -> None:
    """Load the lexicon and the pseudoword model once, as any real run would."""
    import random

    load_lexicon()
    pseudowords(random.Random(0), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warm_up()
    total = 0.0
    items = []
    print(f"{'split':14} {'convs':>6} {'turns':>7} {'updates':>8} {'seconds':>8} {'ms/conv':>8}")
    for difficulty in ("easy", "hard"):
        for topology in TOPOLOGIES:
            config = resolve_config(difficulty, {"topology": topology})
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                split = generate(config, args.seed, args.n)
                best = min(best, time.perf_counter() - start)
            total += best
            items += split
            turns = sum(len(item.turns) for item in split)
            updates = sum(int(str(item.meta["n_updates"])) for item in split)
            print(
                f"{topology + '/' + difficulty:14} {len(split):6d} {turns:7d} {updates:8d} "
                f"{best:8.2f} {1000 * best / max(1, len(split)):8.1f}"
            )
    print(f"{'total':14} {len(items):6d} {sum(len(i.turns) for i in items):7d} {'':8} {total:8.2f}")
    print("\nshortcut audit, entailment turns (README table):\n")
    print(
        "| split | gold no / unknown / yes | majority | last-polarity | negation | also-unknown |"
    )
    print("|---|---|---|---|---|---|")
    for split, stats in label_stats(items).items():
        entail = stats["entailment"]
        gold = entail["gold"]
        counts = " / ".join(str(gold.get(label, "–")) for label in ("no", "unknown", "yes"))
        print(
            f"| {split} | {counts} | {entail['majority']:.3f} | {entail['last_polarity']:.3f} "
            f"| {entail['negation']:.3f} | {entail['also_unknown']:.3f} |"
        )
    print("\neffect questions: gold strengthening / weakening / no effect, majority")
    for split, stats in label_stats(items).items():
        effect = stats["effect"]
        if effect["n"]:
            gold = effect["gold"]
            counts = " / ".join(
                str(gold.get(k, 0)) for k in ("strengthening", "weakening", "no effect")
            )
            print(f"  {split:14} {counts}  majority {effect['majority']:.3f}")


if __name__ == "__main__":
    main()
