"""The bias nulls over many seeds: does every bias metric's null tell a biased agent from one
without the bias? And how often does the paper's McNemar test reject for a random agent?

Held-out family (``--family heldout``, :mod:`biaslab.suites.defeasible.heldout`, written apart
from the null code): ``python bench/bench_bias_nulls.py --family heldout --seeds 20 --n 150
--difficulties easy --out FILE.json``. Per seed it generates ``n`` conversations of every
topology, answers them with the oracle in-process, rewrites the answers as each held-out agent
would give them, analyses them and prints, per agent x split, how often each null rejects at
p < .05 with its 95% Wilson CI over seeds (and the bias card's verdict, Holm over topologies).

Reference agents (``--family reference``, the default): ``python bench/bench_bias_nulls.py
[--seeds 20] [--n 40] [--out FILE.json]``. For each seed
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

from biaslab.stats import wilson_interval
from biaslab.suites.defeasible.analysis import analyze
from biaslab.suites.defeasible.card import card_cells
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.heldout import AGENTS as HELDOUT
from biaslab.suites.defeasible.heldout import heldout_frame
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


#: the held-out family's splits: (label, metric); each metric's null p and excess are recorded
SPLITS = (
    ("defeat", "bias_gap_defeat"),
    ("withhold", "bias_gap_withhold"),
    ("pooled", "bias_gap"),
    ("prior-no", "bias_gap_no_prior"),
    ("anchoring", "anchoring_rate"),
    ("know-not-output", "know_but_dont_output"),
)
TOPOLOGIES = ("default", "linear", "tree")
ALPHA = 0.05


def heldout_seed(
    seed: int, n: int, difficulty: str, n_perm: int, n_boot: int, agents: tuple[str, ...]
) -> list[dict[str, Any]]:
    """One seed's rows: per agent x topology every split's p and excess, plus the card's
    verdict per agent (topology "card")."""
    items = generate(resolve_config(difficulty, {}), seed, n)
    oracle = agent_frame(items, ["oracle"], seed=seed)
    results = analyze(heldout_frame(oracle, agents, seed), n_boot=n_boot, n_perm=n_perm)
    rows: list[dict[str, Any]] = []
    for model, cells in results.models.items():
        base = {"agent": model.removeprefix("heldout/"), "difficulty": difficulty, "seed": seed}
        for topology in TOPOLOGIES:
            if topology not in cells:
                continue
            cell = cells[topology]
            row = {**base, "topology": topology}
            for _, metric in SPLITS:
                row[f"{metric}_null_p"] = getattr(cell, f"{metric}_null_p")
                row[f"{metric}_excess"] = getattr(cell, f"{metric}_excess")
                row[f"{metric}_tested"] = cell.null_tested.get(metric, 0)
            rows.append(row)
    for model, card in card_cells(results).items():
        rows.append(
            {
                "agent": model.removeprefix("heldout/"),
                "difficulty": difficulty,
                "seed": seed,
                "topology": "card",
                "card_p": card.p,
                "card_excess": card.excess,
                "card_flagged": card.significant,
            }
        )
    return rows


def run_heldout(
    seeds: list[int],
    n: int,
    difficulties: tuple[str, ...],
    n_perm: int,
    n_boot: int,
    agents: tuple[str, ...] = HELDOUT,
    out: Path | None = None,
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for difficulty in difficulties:
        for seed in seeds:
            start = time.perf_counter()
            rows += heldout_seed(seed, n, difficulty, n_perm, n_boot, agents)
            print(f"  {difficulty} seed {seed}: {time.perf_counter() - start:.1f} s", flush=True)
            if out is not None:  # what ran so far survives an interrupted run
                out.write_text(json.dumps(rows, indent=1, sort_keys=True))
    return rows


def rejection(values: list[Any]) -> str:
    """``k/n = rate [lo, hi]``: how many seeds reject at p < ALPHA, with the 95% Wilson CI."""
    known = [v for v in values if v is not None]
    if not known:
        return "–"
    k = sum(v < ALPHA for v in known)
    ci = wilson_interval(k, len(known)).ci
    band = "" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]"
    return f"{k}/{len(known)}{band}"


def heldout_tables(rows: list[dict[str, Any]]) -> str:
    """Per difficulty x topology: agents as rows, splits as columns (rejections at p < .05)."""
    blocks = []
    agents = sorted({r["agent"] for r in rows}, key=lambda a: (a in ("keeps-yes", "keeps-no"), a))
    for difficulty in sorted({r["difficulty"] for r in rows}):
        for topology in TOPOLOGIES:
            part = [r for r in rows if (r["difficulty"], r["topology"]) == (difficulty, topology)]
            if not part:
                continue
            head = "| agent | " + " | ".join(label for label, _ in SPLITS) + " |"
            lines = [f"{difficulty} / {topology}: seeds rejecting at p < .05 [95% Wilson CI]", ""]
            lines += [head, "|---" * (len(SPLITS) + 1) + "|"]
            for agent in agents:
                mine = [r for r in part if r["agent"] == agent]
                cells = [rejection([r[f"{m}_null_p"] for r in mine]) for _, m in SPLITS]
                lines.append(f"| {agent} | " + " | ".join(cells) + " |")
            blocks.append("\n".join(lines))
        card = [r for r in rows if (r["difficulty"], r["topology"]) == (difficulty, "card")]
        lines = [f"{difficulty} / bias card (defeat, Holm over topologies): seeds flagged", ""]
        lines += ["| agent | flagged [95% Wilson CI] |", "|---|---|"]
        for agent in agents:
            flagged = [r["card_flagged"] for r in card if r["agent"] == agent]
            k = sum(flagged)
            ci = wilson_interval(k, len(flagged)).ci if flagged else None
            band = "" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]"
            lines.append(f"| {agent} | {k}/{len(flagged)}{band} |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--n-perm", type=int, default=2000)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--agents", default=None, help="comma-separated agent specs")
    parser.add_argument("--family", choices=("reference", "heldout"), default="reference")
    parser.add_argument("--difficulties", default="easy,hard", help="held-out family only")
    args = parser.parse_args()
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    if args.family == "heldout":
        agents = HELDOUT if args.agents is None else tuple(args.agents.split(","))
        difficulties = tuple(args.difficulties.split(","))
        start = time.perf_counter()
        rows = run_heldout(
            seeds, args.n, difficulties, args.n_perm, args.n_boot, agents, out=args.out
        )
        took = time.perf_counter() - start
        print(f"\n{len(seeds)} seeds x {'/'.join(difficulties)}, n = {args.n}: {took:.0f} s\n")
        print(heldout_tables(rows))
        return
    agents = AGENTS if args.agents is None else tuple(args.agents.split(","))
    start = time.perf_counter()
    rows = run(seeds, args.n, args.n_perm, args.n_boot, agents)
    print(f"\n{len(seeds)} seeds x easy/hard, n = {args.n}: {time.perf_counter() - start:.0f} s\n")
    print(tables(rows))
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
