"""Rejection rates of the token-bias tests for held-out agents (biaslab.suites.tokenbias.heldout),
per seed and pooled over groups of seeds, with binomial 95% CIs (scipy's exact binomtest interval).

In-process, no Inspect: each seed's items (default preset, ``-p order=counterbalanced``) are
answered by every agent and analysed on their own (``per seed``); groups of ``--pool`` consecutive
seeds are analysed together (``pooled``: one pair per cluster across the seeds). A test counts as
rejected after Benjamini–Hochberg within its hypothesis; ``position`` is the position-preference
statistic (rejected in any family).

Run: ``nice -n 10 python bench/bench_tokenbias_nulls.py --seeds 100 --n 50``
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Sequence

import pandas as pd
from scipy.stats import binomtest

from biaslab.suites.tokenbias.analysis import TokenBiasResults, analyze
from biaslab.suites.tokenbias.config import resolve_config
from biaslab.suites.tokenbias.directions import DIRECTIONS
from biaslab.suites.tokenbias.generate import generate
from biaslab.suites.tokenbias.heldout import AGENTS, HeldOutAgent, answer_rows

TESTS = (*sorted(f"{h} {f}" for f, h in DIRECTIONS), "position")
#: agent -> seeds in which any test of its own construct rejected (filled by :func:`run`)
own_seeds: Counter[str] = Counter()


def rejected(results: TokenBiasResults) -> set[str]:
    """The tests (hypothesis family, or "position") an analysis rejected."""
    found = {f"{t.hypothesis} {t.family}" for t in results.tests if t.rejected}
    if any(p.rejected for p in results.positions):
        found.add("position")
    return found


def is_own(agent: HeldOutAgent, test: str) -> bool:
    return agent.biased and (test == agent.construct or test.split()[0] == agent.construct)


def run(
    seeds: Sequence[int],
    n: int,
    pool: int,
    agents: Sequence[HeldOutAgent],
    every: int = 0,
) -> tuple[dict[str, Counter[str]], dict[str, Counter[str]], int, int]:
    """Per-seed and pooled rejection counts; with ``every``, the table so far is printed after
    every ``every`` seeds (a long run leaves its partial results behind)."""
    config = resolve_config("default", {"order": "counterbalanced"})
    per_seed: dict[str, Counter[str]] = {a.name: Counter() for a in agents}
    own_seeds.clear()
    pooled: dict[str, Counter[str]] = {a.name: Counter() for a in agents}
    held: dict[str, list[dict[str, object]]] = {a.name: [] for a in agents}
    groups = 0
    for number, seed in enumerate(seeds, start=1):
        items = generate(config, seed, n)
        for agent in agents:
            rows = answer_rows(items, agent)
            found = rejected(analyze(pd.DataFrame(rows)))
            per_seed[agent.name].update(found)
            own_seeds[agent.name] += any(is_own(agent, test) for test in found)
            held[agent.name] += rows
        if number % pool == 0:
            groups += 1
            for agent in agents:
                pooled[agent.name].update(rejected(analyze(pd.DataFrame(held[agent.name]))))
                held[agent.name] = []
        if every and number % every == 0 and number < len(seeds):
            print(f"after {number} seeds:\n{markdown(agents, per_seed, pooled, number, groups)}")
            print(flush=True)
    return per_seed, pooled, len(seeds), groups


def _cell(k: int, total: int) -> str:
    if total == 0:
        return "n/a"
    ci = binomtest(k, total).proportion_ci(confidence_level=0.95, method="exact")
    return f"{k}/{total} {100 * k / total:.0f}% [{100 * ci.low:.0f}, {100 * ci.high:.0f}]"


def markdown(
    agents: Sequence[HeldOutAgent],
    per_seed: dict[str, Counter[str]],
    pooled: dict[str, Counter[str]],
    seeds: int,
    groups: int,
) -> str:
    lines = [
        "| agent | bias | test | per seed: rejected [95% CI] | pooled: rejected [95% CI] | "
        "verdict |",
        "|---|---|---|---:|---:|---|",
    ]
    for agent in agents:
        for test in TESTS:
            k, g = per_seed[agent.name][test], pooled[agent.name][test]
            own = is_own(agent, test)
            if own:
                verdict = "caught (≥ 90%)" if k >= 0.9 * seeds else "below 90% on this family"
            elif test == "position" and agent.construct == "position":
                verdict = "a position effect, seen (not a token bias)"
            else:
                lows = [
                    binomtest(x, t).proportion_ci(method="exact").low
                    for x, t in ((k, seeds), (g, groups))
                    if t
                ]
                verdict = "at level" if all(low <= 0.05 for low in lows) else "ABOVE LEVEL"
            lines.append(
                f"| {agent.name} | {agent.construct if agent.biased else 'none'} | {test} | "
                f"{_cell(k, seeds)} | {_cell(g, groups)} | {verdict}{' (own)' if own else ''} |"
            )
    lines += ["", "| agent | own construct | flagged in (any family), per seed |", "|---|---|---:|"]
    for agent in agents:
        if agent.biased:
            k = own_seeds[agent.name] if own_seeds else 0
            lines.append(f"| {agent.name} | {agent.construct} | {_cell(k, seeds)} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100, help="how many seeds")
    parser.add_argument("--first-seed", type=int, default=1001)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--pool", type=int, default=5, help="seeds per pooled analysis")
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument("--every", type=int, default=0, help="print the table every k seeds")
    args = parser.parse_args(argv)
    agents = [AGENTS[name] for name in args.agents.split(",")]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    start = time.perf_counter()
    per_seed, pooled, n_seeds, groups = run(seeds, args.n, args.pool, agents, args.every)
    print(
        f"seeds {seeds.start}-{seeds.stop - 1} ({n_seeds}), --n {args.n}, default preset with "
        f"-p order=counterbalanced, exact McNemar, BH within hypothesis, alpha 0.05; pooled over "
        f"{groups} groups of {args.pool} seeds"
    )
    print(markdown(agents, per_seed, pooled, n_seeds, groups))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
