"""Time to generate the canonical DeReLab set: 3 topologies x easy/hard, 150 conversations each,
every turn labelled by the resolver (goal: < 3 CPU-s in total).

Run: ``python bench/bench_generate.py [--seed 42] [--n 150] [--repeat 3] [--digest]``. Prints one
line per split (CPU seconds and wall seconds, each the best of ``repeat`` runs, after the lexicon
and the pseudoword model are loaded) and the total, the CPU seconds of each split's first run
summed (what one ``biaslab run`` pays: later runs in the same process find whatever earlier ones
cached), the cold start (imports, lexicon and pseudoword model in a fresh process), the set's
SHA-256 with ``--digest`` (equal before and after a change that must not change items), plus the
label balance of the generated set.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
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


COLD_START = """
import time, random
start = time.process_time()
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.lexicon import load_lexicon
from biaslab.suites.defeasible.words import pseudowords
load_lexicon()
pseudowords(random.Random(0), 1)
print(time.process_time() - start)
"""


def cold_start() -> float:
    """CPU seconds a fresh process spends before it can generate (median of three)."""
    runs = sorted(
        float(subprocess.run([sys.executable, "-c", COLD_START], capture_output=True, text=True,
                             check=True).stdout)
        for _ in range(3)
    )  # fmt: skip
    return runs[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--digest", action="store_true", help="print the set's SHA-256")
    args = parser.parse_args()
    warm_up()
    total = total_wall = first_total = 0.0
    items = []
    print(f"{'split':14} {'convs':>6} {'turns':>7} {'updates':>8} {'CPU-s':>7} {'wall s':>7}")
    for difficulty in ("easy", "hard"):
        for topology in TOPOLOGIES:
            config = resolve_config(difficulty, {"topology": topology})
            best = best_wall = float("inf")
            for run in range(args.repeat):
                start, start_wall = time.process_time(), time.perf_counter()
                split = generate(config, args.seed, args.n)
                best = min(best, time.process_time() - start)
                best_wall = min(best_wall, time.perf_counter() - start_wall)
                if run == 0:
                    first_total += time.process_time() - start
            total += best
            total_wall += best_wall
            items += split
            turns = sum(len(item.turns) for item in split)
            updates = sum(int(str(item.meta["n_updates"])) for item in split)
            print(
                f"{topology + '/' + difficulty:14} {len(split):6d} {turns:7d} {updates:8d} "
                f"{best:7.2f} {best_wall:7.2f}"
            )
    turns = sum(len(i.turns) for i in items)
    print(f"{'total':14} {len(items):6d} {turns:7d} {'':8} {total:7.2f} {total_wall:7.2f}")
    print(f"first runs (each split's first, summed): {first_total:.2f} CPU-s")
    print(f"cold start (imports, lexicon, pseudoword model): {cold_start():.2f} CPU-s")
    if args.digest:
        text = "\n".join(item.model_dump_json() for item in items)
        print(f"sha256 of the set: {hashlib.sha256(text.encode()).hexdigest()}")
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
