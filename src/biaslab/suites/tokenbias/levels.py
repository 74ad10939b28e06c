"""How often each hypothesis is rejected over many seeds: the level of the tests for agents without
the bias (``random``; ``no-bias``, answers fixed per prompt; ``no-bias?by=problem``, answers fixed
per problem, names, towns, option order and framing aside) and their power against
``token-biased``.

The agents answer in-process: each item becomes the request the ``biaslab/<agent>`` provider sees
(the system message and the prompt), the agent replies, and :func:`biaslab.answers.parse_answer`
reads the reply, exactly as a run through Inspect does (tests/tokenbias/test_external.py checks the
rows against a ``biaslab run``), only without writing logs. Each seed is analysed on its own.

Run: ``python -m biaslab.suites.tokenbias.levels --seeds 1-100 --n 50`` (prints a Markdown table;
``--test paper`` for the paper's normal approximation, ``--agents`` to choose the agents, ``-p
key=value`` for other parameters). The pooled test over many seeds is measured by
:mod:`biaslab.suites.tokenbias.pooled`.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from biaslab.agents.base import Message, Request, make_agent
from biaslab.answers import parse_answer
from biaslab.schema import Item
from biaslab.suites.tokenbias.analysis import TestRule
from biaslab.suites.tokenbias.config import Config, resolve_config
from biaslab.suites.tokenbias.generate import generate

AGENTS = ("random", "no-bias", "no-bias?by=problem", "token-biased")


def request_for(item: Item) -> Request:
    """What the provider receives for an item: its system message and its prompt."""
    messages = [Message("system", item.system)] if item.system else []
    return Request((*messages, Message("user", item.turns[0].prompt)))


def answer_rows(items: Sequence[Item], agent_spec: str) -> list[dict[str, Any]]:
    """One long-format answer row per item (see :mod:`biaslab.suites.tokenbias.external`)."""
    agent = make_agent(agent_spec)
    rows = []
    for item in items:
        text, _ = agent.respond(request_for(item))
        turn = item.turns[0]
        answer = parse_answer(text, turn.labels or ())
        rows.append(
            {
                "model": f"biaslab/{agent_spec}",
                "family": item.meta["analysis_family"],
                "hypothesis": item.meta["hypothesis"],
                "mode": item.meta["mode"],
                "pair_id": item.meta["pair_id"],
                "variant": item.meta["variant"],
                "correct": answer == turn.gold,
                "parsed": answer is not None,
                "seed": item.meta["seed"],
                "epoch": 1,
                "pair_key": item.meta["pair_key"],
                "problem_key": item.meta["problem_key"],
            }
        )
    return rows


@lru_cache(maxsize=256)
def generated(config: Config, seed: int, n: int) -> tuple[Item, ...]:
    """One seed's items, made once per process and read by every agent (items are not mutated)."""
    return tuple(generate(config, seed, n))


@dataclass
class Rejections:
    """For one agent: in how many seeds each hypothesis (any of its families) and each hypothesis ×
    family was rejected after Benjamini–Hochberg."""

    agent: str
    seeds: int = 0
    by_hypothesis: Counter[str] = field(default_factory=Counter)
    by_test: Counter[str] = field(default_factory=Counter)

    def rate(self, key: str) -> float:
        counts = self.by_hypothesis if " " not in key else self.by_test
        return counts[key] / self.seeds if self.seeds else 0.0


def rejections(
    agent: str,
    seeds: Sequence[int],
    n: int,
    config: Config | None = None,
    test: TestRule = "exact",
) -> Rejections:
    """Generate, answer and test every seed separately (the decisions of ``analyze``, see
    :func:`~biaslab.suites.tokenbias.analysis.decisions_per_seed`); count rejections."""
    import pandas as pd

    from biaslab.suites.tokenbias.analysis import decisions_per_seed

    config = config or Config()
    found = Rejections(agent)
    distinct = dict.fromkeys(seeds)  # a seed named twice is tested (and counted) twice
    rows = [row for seed in distinct for row in answer_rows(generated(config, seed, n), agent)]
    decided = decisions_per_seed(pd.DataFrame(rows), test=test)
    for seed in seeds:
        tests = decided[seed]
        found.seeds += 1
        found.by_hypothesis.update({t.hypothesis for t in tests if t.rejected})
        found.by_test.update(f"{t.hypothesis} {t.family}" for t in tests if t.rejected)
    return found


def markdown(results: Sequence[Rejections], tests: Sequence[str]) -> str:
    """Rows: each hypothesis, then each hypothesis × family; columns: the agents (% of seeds)."""
    hypotheses = sorted({t.split()[0] for t in tests})
    head = "| rejected in % of seeds | " + " | ".join(r.agent for r in results) + " |"
    lines = [head, "|---|" + "---:|" * len(results)]
    for key in [*hypotheses, *tests]:
        label = f"**{key}** (any family)" if " " not in key else key
        cells = " | ".join(f"{100 * r.rate(key):.0f}" for r in results)
        lines.append(f"| {label} | {cells} |")
    return "\n".join(lines)


def parse_seeds(text: str) -> list[int]:
    """ "1-100" or "1,2,5" -> seeds."""
    if "-" in text:
        lo, hi = (int(v) for v in text.split("-", 1))
        return list(range(lo, hi + 1))
    return [int(v) for v in text.split(",")]


def main(argv: Sequence[str] | None = None) -> None:
    from biaslab.suites.tokenbias.analysis import DIRECTIONS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-100")
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--preset", default="default")
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument("--test", choices=("exact", "paper"), default="exact")
    parser.add_argument("-p", dest="params", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    config = resolve_config(args.preset, dict(kv.split("=", 1) for kv in args.params))
    seeds = parse_seeds(args.seeds)
    start = time.perf_counter()
    agents = args.agents.split(",")
    results = [rejections(agent, seeds, args.n, config, args.test) for agent in agents]
    tests = sorted(f"{h} {f}" for f, h in DIRECTIONS)
    print(
        f"seeds {args.seeds}, --n {args.n}, preset {args.preset} {' '.join(args.params)}, "
        f"{args.test} McNemar, BH within hypothesis, α = 0.05"
    )
    print(markdown(results, tests))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
