"""Calibration of the Martingale-score pipeline on the urn domain, over many seeds.

Per seed: ``--n`` urn questions (6 draws each, urn A 70% red / urn B 30%, prior U(0.05, 0.95)),
reasoned by the calibration agents and judged by ``judge-reader`` (noiseless, one replicate) or
``judge-reader?noise=0.5`` (two replicates), plus the judge baseline. Runs the suite's pipeline
in-process (``biaslab.suites.entrenchment.inprocess``: the same items, pipeline and agents as
``inspect eval``, without Inspect's eval loop) and the suite's own analysis, then prints the
README table and the acceptance checks.

    python bench/bench_entrenchment.py            # 50 seeds x 100 questions
    python bench/bench_entrenchment.py --seeds 5  # quick look
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np
import pandas as pd

from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents

AGENTS = ("urn-bayes", "urn-entrenched?w=0.5", "urn-overreactive?c=2")
NOISY = ("urn-bayes", "urn-entrenched?w=0.5")
CLEAN_JUDGE, NOISY_JUDGE = "judge-reader", "judge-reader?noise=0.5"


def one_seed(seed: int, n: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for judge, replicates, agents in ((CLEAN_JUDGE, 1, AGENTS), (NOISY_JUDGE, 2, NOISY)):
        config = resolve_config(None, {"judge_replicates": str(replicates)})
        items = generate(config, seed, n)
        model_items = [i for i in items if i.meta["source"] == "model"]
        base_items = [i for i in items if i.meta["source"] == "judge_baseline"]
        frames = [run_agents(model_items, config, agent, judge, seed=seed) for agent in agents]
        frames.append(run_agents(base_items, config, "urn-bayes", judge, seed=seed))
        results = analyze(pd.concat(frames, ignore_index=True))
        for setup in results.setups:
            rows.append(
                {
                    "seed": seed,
                    "judge": judge,
                    "agent": setup.model.removeprefix("biaslab/")
                    if setup.source == "model"
                    else "judge baseline (urn-bayes text)",
                    "m": setup.m,
                    "m_p": setup.m_p,
                    "m_iv": setup.m_iv,
                    "m_judge_baseline": setup.m_judge_baseline,
                    "m_mde": setup.m_mde,
                }
            )
    return rows


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (judge, agent), g in rows.groupby(["judge", "agent"], sort=False):
        out.append(
            {
                "judge": judge,
                "reasoner": agent,
                "seeds": len(g),
                "mean m": g["m"].mean(),
                "sd m": g["m"].std(ddof=1),
                "reject p<0.05": (g["m_p"] < 0.05).mean(),
                "m>0 & p<0.01": ((g["m"] > 0) & (g["m_p"] < 0.01)).mean(),
                "m<0": (g["m"] < 0).mean(),
                "mean m_iv": g["m_iv"].mean() if g["m_iv"].notna().any() else np.nan,
                "mean MDE": g["m_mde"].mean(),
            }
        )
    return pd.DataFrame(out)


def markdown(table: pd.DataFrame) -> str:
    header = "| " + " | ".join(table.columns) + " |"
    lines = [header, "|" + "|".join("---" for _ in table.columns) + "|"]
    for _, row in table.iterrows():
        cells = []
        for value in row:
            if isinstance(value, float):
                cells.append("—" if np.isnan(value) else f"{value:.3f}")
            else:
                cells.append(str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def checks(table: pd.DataFrame) -> list[str]:
    def cell(judge: str, agent: str, column: str) -> float:
        row = table[(table["judge"] == judge) & (table["reasoner"] == agent)]
        return float(row[column].iloc[0])

    bayes_rate = cell(CLEAN_JUDGE, "urn-bayes", "reject p<0.05")
    entrenched = cell(CLEAN_JUDGE, "urn-entrenched?w=0.5", "m>0 & p<0.01")
    over = cell(CLEAN_JUDGE, "urn-overreactive?c=2", "m<0")
    out = [
        f"urn-bayes rejects in {bayes_rate:.0%} of seeds (target 2-10%): "
        f"{'ok' if 0.02 <= bayes_rate <= 0.10 else 'FAIL'}",
        f"urn-entrenched m>0 with p<0.01 in {entrenched:.0%} (target >= 95%): "
        f"{'ok' if entrenched >= 0.95 else 'FAIL'}",
        f"urn-overreactive m<0 in {over:.0%} of seeds: {'ok' if over == 1.0 else 'FAIL'}",
    ]
    for agent in NOISY:
        gap = cell(NOISY_JUDGE, agent, "mean m_iv") - cell(CLEAN_JUDGE, agent, "mean m")
        out.append(
            f"{agent}: mean m_iv (noise 0.5, 2 replicates) - noiseless mean m = {gap:+.4f} "
            f"(target within 0.02): {'ok' if abs(gap) <= 0.02 else 'FAIL'}"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--n", type=int, default=100)
    args = parser.parse_args()
    start = time.perf_counter()
    rows: list[dict[str, object]] = []
    for seed in range(args.seeds):
        rows += one_seed(seed, args.n)
    elapsed = time.perf_counter() - start
    table = summarise(pd.DataFrame(rows))
    print(f"{args.seeds} seeds x {args.n} questions x 6 draws, in {elapsed:.1f} s\n")
    print(markdown(table))
    print()
    for line in checks(table):
        print(line)
    grouped: defaultdict[str, int] = defaultdict(int)
    for row in rows:
        grouped[str(row["judge"])] += 1
    print(f"\nsetups analysed: {dict(grouped)}")


if __name__ == "__main__":
    main()
