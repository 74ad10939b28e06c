"""The fallacy and entrenchment nulls on held-out answerers (written apart from the null code).

``--suite fallacy`` (:mod:`biaslab.suites.fallacy.heldout`): per problem seed, ``--n`` generated
problems in both orders (``-p order=both``); per agent seed, every agent answers every item, the
suite's reader and scorer label the replies (PyETR and the deciders in the suite's worker, each
distinct reply once), and the suite's analysis gives FallacyRate beside its chance level. A cell
is one (problem seed, agent seed, order): the table shows, per agent and order, how often the
one-sided null p is below 0.05, for the robust label and the paper's, with exact binomial 95% CIs
(scipy's ``binomtest``), and the mean FallacyRate, chance level and errors per cell.

``--suite entrenchment`` (:mod:`biaslab.suites.entrenchment.heldout`): per seed, ``--n`` urn
questions (6 draws) reasoned by every held-out agent and judged by the noiseless ``judge-reader``
(one replicate, the built-in judge baseline beside them), through the suite's in-process pipeline
and analysis; the share of seeds with M's CR1 p < 0.05, with its exact CI, and the mean M.

    nice -n 15 python bench/bench_heldout.py --suite fallacy --problem-seeds 6 --n 30 \\
        --agent-seeds 5
    nice -n 15 python bench/bench_heldout.py --suite entrenchment --seeds 30 --n 100
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from scipy.stats import binomtest

ALPHA = 0.05


def cell(k: int, total: int) -> str:
    if total == 0:
        return "n/a"
    ci = binomtest(k, total).proportion_ci(confidence_level=0.95, method="exact")
    return f"{k}/{total} {100 * k / total:.0f}% [{100 * ci.low:.0f}, {100 * ci.high:.0f}]"


def verdict(kind: str, k: int, total: int) -> str:
    """At level: the CI's lower end at or below 5%; a biased agent: caught in ≥ 90% of cells."""
    if total == 0:
        return "n/a"
    if kind == "biased":
        return "caught (≥ 90%)" if k >= 0.9 * total else "missed in over 10%"
    low = binomtest(k, total).proportion_ci(method="exact").low
    if kind == "chance":
        return "at level" if low <= ALPHA else "ABOVE LEVEL"
    return "at level" if low <= ALPHA else "above chance (a finding, see the docs)"


def _mean(values: Sequence[float | None]) -> str:
    found = [v for v in values if v is not None]
    return f"{statistics.fmean(found):.3f}" if found else "—"


# --------------------------------------------------------------------------------------------------
# fallacy
# --------------------------------------------------------------------------------------------------


def fallacy(problem_seeds: Sequence[int], n: int, agent_seeds: Sequence[int]) -> str:
    import pandas as pd

    from biaslab.runner import generate_items
    from biaslab.suites.fallacy.analysis import analyze
    from biaslab.suites.fallacy.heldout import AGENTS, Scorer

    found: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    pooled: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for problem_seed in problem_seeds:
        start = time.perf_counter()
        generated = generate_items(
            "fallacy", preset=None, n=n, seed=problem_seed, params={"order": "both"}
        )
        items = generated.items
        scorer = Scorer()
        frames = []
        for agent_seed in agent_seeds:
            frame = scorer.frame(items, list(AGENTS.values()), agent_seed)
            for row in analyze(frame).rows:
                found[(row.model.removeprefix("heldout/"), row.order)].append(row.model_dump())
            frames.append(frame.assign(epoch=agent_seed))
        # every answer seed of the problem set at once (one epoch each): one more powerful test
        for row in analyze(pd.concat(frames, ignore_index=True)).rows:
            pooled[(row.model.removeprefix("heldout/"), row.order)].append(row.model_dump())
        print(
            f"problem seed {problem_seed}: {len(items)} items, {len(agent_seeds)} agent seeds, "
            f"{time.perf_counter() - start:.0f} s\n{fallacy_table(found, pooled)}\n",
            flush=True,
        )
    return fallacy_table(found, pooled)


def _pooled_cell(rows: list[dict[str, Any]]) -> str:
    """Per problem set, every answer seed at once: rate vs chance, and the null p."""
    return "; ".join(
        f"{r['fallacy_rate']:.2f} vs {r['fallacy_rate_null']:.2f}, p {r['fallacy_rate_null_p']:.2g}"
        if r["fallacy_rate_null_p"] is not None
        else "n/a"
        for r in rows
    )


def fallacy_table(
    found: dict[tuple[str, str], list[dict[str, Any]]],
    pooled: dict[tuple[str, str], list[dict[str, Any]]],
) -> str:
    from biaslab.suites.fallacy.heldout import AGENTS

    lines = [
        "| agent | kind | order | cells | mean errors | FallacyRate | chance | robust: p < .05 "
        "[95% CI] | paper: p < .05 [95% CI] | verdict (robust) | pooled per problem set: rate "
        "vs chance, p |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for name, agent in AGENTS.items():
        for order in ("standard", "reversed"):
            rows = found[(name, order)]
            tested = [r for r in rows if r["fallacy_rate_null_p"] is not None]
            paper = [r for r in rows if r["fallacy_rate_paper_null_p"] is not None]
            k = sum(r["fallacy_rate_null_p"] < ALPHA for r in tested)
            k_paper = sum(r["fallacy_rate_paper_null_p"] < ALPHA for r in paper)
            lines.append(
                f"| {name} | {agent.kind} | {order} | {len(tested)} | "
                f"{statistics.fmean(r['incorrect'] for r in rows):.1f} | "
                f"{_mean([r['fallacy_rate'] for r in tested])} | "
                f"{_mean([r['fallacy_rate_null'] for r in tested])} | {cell(k, len(tested))} | "
                f"{cell(k_paper, len(paper))} | {verdict(agent.kind, k, len(tested))} | "
                f"{_pooled_cell(pooled[(name, order)])} |"
            )
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# entrenchment
# --------------------------------------------------------------------------------------------------


def entrenchment(seeds: Sequence[int], n: int) -> str:
    import pandas as pd

    from biaslab.suites.entrenchment.analysis import analyze
    from biaslab.suites.entrenchment.config import resolve_config
    from biaslab.suites.entrenchment.generate import generate
    from biaslab.suites.entrenchment.heldout import AGENTS, asker
    from biaslab.suites.entrenchment.inprocess import run_agents

    config = resolve_config(None, {"judge_replicates": "1"})
    found: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for number, seed in enumerate(seeds, start=1):
        items = generate(config, seed, n)
        model = [i for i in items if i.meta["source"] == "model"]
        base = [i for i in items if i.meta["source"] == "judge_baseline"]
        frames = [
            run_agents(model, config, f"heldout/{name}", "judge-reader", seed=seed, ask_model=asker(a))
            for name, a in AGENTS.items()
        ]  # fmt: skip
        frames.append(run_agents(base, config, "urn-bayes", "judge-reader", seed=seed))
        for setup in analyze(pd.concat(frames, ignore_index=True)).setups:
            name = setup.model.removeprefix("heldout/")
            if setup.source != "model":
                name = "judge baseline (urn-bayes text)"
            if setup.m is not None and setup.m_p is not None:
                found[name].append((setup.m, setup.m_p))
        if number % 10 == 0:
            print(f"{number} seeds done", flush=True)
    kinds = {name: ("chance" if a.biased is False else "biased" if a.biased else "other")
             for name, a in AGENTS.items()}  # fmt: skip
    kinds["judge baseline (urn-bayes text)"] = "chance"
    lines = [
        "| reasoner | martingale | seeds | mean M | sd M | M > 0 | p < .05 [95% CI] | verdict |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for name in (*AGENTS, "judge baseline (urn-bayes text)"):
        values = found[name]
        ms = [m for m, _ in values]
        k = sum(p < ALPHA for _, p in values)
        kind = kinds[name]
        label = {"chance": "yes", "biased": "no (entrenched)", "other": "no (wrong prior)"}[kind]
        result = verdict(kind, k, len(values)) if kind != "other" else "not a martingale"
        lines.append(
            f"| {name} | {label} | {len(values)} | {statistics.fmean(ms):.4f} | "
            f"{statistics.stdev(ms):.4f} | {sum(m > 0 for m in ms)} | {cell(k, len(values))} | "
            f"{result} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--suite", choices=("fallacy", "entrenchment"), required=True)
    parser.add_argument("--n", type=int, default=None, help="problems / questions per seed")
    parser.add_argument("--seeds", type=int, default=40, help="entrenchment: seeds")
    parser.add_argument("--first-seed", type=int, default=3001)
    parser.add_argument("--problem-seeds", type=int, default=3, help="fallacy: problem sets")
    parser.add_argument("--agent-seeds", type=int, default=10, help="fallacy: answer seeds")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    first = args.first_seed
    if args.suite == "fallacy":
        n = args.n or 60
        problem_seeds = range(first, first + args.problem_seeds)
        agent_seeds = range(first, first + args.agent_seeds)
        table = fallacy(problem_seeds, n, agent_seeds)
        print(
            f"fallacy: problem seeds {problem_seeds.start}-{problem_seeds.stop - 1}, --n {n}, "
            f"-p order=both; agent seeds {agent_seeds.start}-{agent_seeds.stop - 1}; one-sided "
            f"Poisson-binomial null, alpha {ALPHA}"
        )
    else:
        n = args.n or 100
        seeds = range(first, first + args.seeds)
        table = entrenchment(seeds, n)
        print(
            f"entrenchment: seeds {seeds.start}-{seeds.stop - 1}, --n {n} urn questions (6 draws), "
            f"judge-reader (noiseless, one replicate), M's CR1 p, alpha {ALPHA}"
        )
    print(table)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
