"""The reference agents over many seeds: does every bias metric's null tell a biased agent from a
memoryless one? And how often does the paper's McNemar test reject for a random agent?

Run: ``python bench/bench_bias_nulls.py [--seeds 20] [--n 40] [--out FILE.json]``. For each seed
and difficulty it generates ``n`` conversations of every topology (default generator settings),
asks them to each agent in-process (``biaslab.suites.defeasible.inprocess``: the same answers an
Inspect run gives, checked in ``tests/defeasible/test_inprocess.py``), analyses the answers and
prints, per agent x topology x difficulty, how often BiasGap's permutation null rejects (p < 0.05),
the mean excess, and the paper's and the gold-prior McNemar rejection rates. Markdown tables, ready
for README.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from biaslab.suites.defeasible.analysis import analyze
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.inprocess import agent_frame

AGENTS = ("last-polarity", "negation", "also-unknown", "random", "sticky?p=0.9")
FIELDS = (
    "bias_gap",
    "bias_gap_excess",
    "bias_gap_null_p",
    "bias_gap_defeat_excess",
    "bias_gap_defeat_null_p",
    "bias_gap_withhold_excess",
    "bias_gap_withhold_null_p",
    "mcnemar_p",
    "mcnemar_gold_prior_p",
)


def run(
    seeds: list[int], n: int, n_perm: int, n_boot: int, agents: tuple[str, ...] = AGENTS
) -> list[dict[str, Any]]:
    rows = []
    for difficulty in ("easy", "hard"):
        config = resolve_config(difficulty, {})
        for seed in seeds:
            start = time.perf_counter()
            frame = agent_frame(generate(config, seed, n), agents, seed=seed)
            results = analyze(frame, n_boot=n_boot, n_perm=n_perm)
            for model, cells in results.models.items():
                for topology, cell in cells.items():
                    row = {"agent": model.removeprefix("biaslab/"), "topology": topology}
                    row.update(difficulty=difficulty, seed=seed)
                    row.update({f: getattr(cell, f) for f in FIELDS})
                    rows.append(row)
            print(f"  {difficulty} seed {seed}: {time.perf_counter() - start:.1f} s", flush=True)
    return rows


def _share(values: list[Any], test: Any) -> str:
    known = [v for v in values if v is not None]
    return "–" if not known else f"{sum(map(test, known))}/{len(known)}"


def _not_significant(p: float) -> bool:
    return p >= 0.05


def _mean(values: list[Any]) -> str:
    known = [v for v in values if v is not None]
    return "–" if not known else f"{statistics.fmean(known):+.2f}"


def tables(rows: list[dict[str, Any]]) -> str:
    keys = sorted({(r["agent"], r["topology"], r["difficulty"]) for r in rows})
    head = (
        "| agent | split | not significant (p ≥ .05) | mean excess | excess > .3 & p < .001 "
        "| defeat: mean excess, p ≥ .05 | withhold: mean excess, p ≥ .05 |\n"
        "|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for agent, topology, difficulty in keys:
        part = [
            r
            for r in rows
            if (r["agent"], r["topology"], r["difficulty"]) == (agent, topology, difficulty)
        ]
        if topology == "inheritance":
            continue
        col = {f: [r[f] for r in part] for f in FIELDS}
        strong = [
            None if e is None or p is None else (e > 0.3 and p < 0.001)
            for e, p in zip(col["bias_gap_excess"], col["bias_gap_null_p"], strict=True)
        ]
        cells = [
            _share(col["bias_gap_null_p"], _not_significant),
            _mean(col["bias_gap_excess"]),
            _share(strong, bool),
            f"{_mean(col['bias_gap_defeat_excess'])}, "
            f"{_share(col['bias_gap_defeat_null_p'], _not_significant)}",
            f"{_mean(col['bias_gap_withhold_excess'])}, "
            f"{_share(col['bias_gap_withhold_null_p'], _not_significant)}",
        ]
        lines.append(f"| {agent} | {topology}/{difficulty} | " + " | ".join(cells) + " |")
    mcnemar = ["| split | paper McNemar p < .05 | gold-prior McNemar p < .05 |", "|---|---|---|"]
    for agent, topology, difficulty in keys:
        if agent != "random" or topology == "inheritance":
            continue
        part = [
            r
            for r in rows
            if (r["agent"], r["topology"], r["difficulty"]) == (agent, topology, difficulty)
        ]
        mcnemar.append(
            f"| {topology}/{difficulty} | {_share([r['mcnemar_p'] for r in part], lambda p: p < 0.05)} "
            f"| {_share([r['mcnemar_gold_prior_p'] for r in part], lambda p: p < 0.05)} |"
        )
    return (
        "\n".join(lines) + "\n\nRandom agent, McNemar false-positive rate:\n\n" + "\n".join(mcnemar)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--n-perm", type=int, default=2000)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--agents", default=",".join(AGENTS), help="comma-separated agent specs")
    args = parser.parse_args()
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    start = time.perf_counter()
    rows = run(seeds, args.n, args.n_perm, args.n_boot, tuple(args.agents.split(",")))
    print(f"\n{len(seeds)} seeds x easy/hard, n = {args.n}: {time.perf_counter() - start:.0f} s\n")
    print(tables(rows))
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
