"""Calibration of the Martingale-score pipeline on the urn domain, over many seeds.

Part 1, the pipeline. Per seed: ``--n`` urn questions (6 draws each, urn A 70% red / urn B 30%,
prior U(0.05, 0.95)), reasoned by the calibration agents and judged by ``judge-reader``
(noiseless, one replicate), ``judge-reader?noise=0.5`` (two replicates, independent noise) or
``judge-reader?noise=0.5&rho=0.5`` (two replicates whose errors correlate 0.5), plus the judge
baseline. Runs the suite's pipeline in-process (``biaslab.suites.entrenchment.inprocess``: the
same items, pipeline and agents as ``inspect eval``, without Inspect's eval loop) and the suite's
own analysis, then prints the README table and the acceptance checks.

Part 2, M_IV alone. A numpy simulation of the same urn domain (Bayesian beliefs, so the true M is
0) with log-odds judge noise — independent across the two replicates, shared, or both — through
``biaslab.stats.martingale_iv``: how far M_IV is from 0 and how often it rejects, also after
centring on its mean (which isolates the bias from the standard error).

    python bench/bench_entrenchment.py            # 50 seeds x 100 questions; M_IV 1000 seeds
    python bench/bench_entrenchment.py --seeds 5 --iv-seeds 100  # quick look
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict

import numpy as np
import pandas as pd
from scipy import stats as sps

from biaslab.stats import martingale_iv, martingale_score
from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents

AGENTS = ("urn-bayes", "urn-entrenched?w=0.5", "urn-overreactive?c=2")
NOISY = ("urn-bayes", "urn-entrenched?w=0.5")
CLEAN_JUDGE, NOISY_JUDGE = "judge-reader", "judge-reader?noise=0.5"
SHARED_JUDGE = "judge-reader?noise=0.5&rho=0.5"
RUNS = ((CLEAN_JUDGE, 1, AGENTS), (NOISY_JUDGE, 2, NOISY), (SHARED_JUDGE, 2, ("urn-bayes",)))
LR = math.log(0.7 / 0.3)
#: (questions, independent log-odds noise SD, shared SD) of the M_IV simulation; the last three
#: keep the shared part fixed and add independent noise, as a higher judge temperature would
IV_CASES = (
    (100, 0.25, 0.0),
    (100, 0.5, 0.0),
    (400, 0.5, 0.0),
    (100, 1.0, 0.0),
    (400, 1.0, 0.0),
    (100, math.sqrt(0.125), math.sqrt(0.125)),
    (100, math.sqrt(0.5), math.sqrt(0.125)),
    (100, 1.0, math.sqrt(0.125)),
)


def one_seed(seed: int, n: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for judge, replicates, agents in RUNS:
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
                    "m_iv_p": setup.m_iv_p,
                    "m_judge_baseline": setup.m_judge_baseline,
                    "m_iv_judge_baseline": setup.m_iv_judge_baseline,
                    "error_r": setup.replicate_error_r
                    if setup.source == "judge_baseline"
                    else setup.judge_baseline_error_r,
                    "m_mde": setup.m_mde,
                }
            )
    return rows


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if values.notna().any() else np.nan


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (judge, agent), g in rows.groupby(["judge", "agent"], sort=False):
        has_iv = g["m_iv"].notna().any()
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
                "mean m_iv": _mean(g["m_iv"]),
                "m_iv reject": (g["m_iv_p"] < 0.05).mean() if has_iv else np.nan,
                "mean m_iv baseline": _mean(g["m_iv_judge_baseline"]),
                "mean error r": _mean(g["error_r"]) if has_iv else np.nan,
                "mean MDE": g["m_mde"].mean(),
            }
        )
    return pd.DataFrame(out)


def iv_beliefs(
    seed: int, questions: int, independent: float, shared: float
) -> tuple[np.ndarray, np.ndarray]:
    """Two judge replicates of Bayesian urn beliefs (6 draws): log-odds plus a shared and an
    independent Normal error."""
    rng = np.random.default_rng(seed)
    prior = rng.uniform(0.05, 0.95, questions)
    is_a = rng.random(questions) < prior
    logit = np.log(prior / (1 - prior))
    path = [logit]
    for _ in range(6):
        red = rng.random(questions) < np.where(is_a, 0.7, 0.3)
        logit = logit + np.where(red, LR, -LR)
        path.append(logit)
    exact = np.array(path).T
    common = rng.normal(0.0, shared, exact.shape)
    a, b = (exact + common + rng.normal(0.0, independent, exact.shape) for _ in range(2))
    return 1 / (1 + np.exp(-a)), 1 / (1 + np.exp(-b))


def iv_table(seeds: int) -> pd.DataFrame:
    out = []
    for questions, independent, shared in IV_CASES:
        count = seeds if questions <= 100 else max(seeds * 3 // 10, 1)
        clusters = np.repeat(np.arange(questions), 6)
        naive, iv, se, p = [], [], [], []
        for seed in range(count):
            a, b = iv_beliefs(seed, questions, independent, shared)
            xa, ya, xb, yb = (
                a[:, :-1].ravel(),
                a[:, 1:].ravel(),
                b[:, :-1].ravel(),
                b[:, 1:].ravel(),
            )
            naive.append(martingale_score(xa, ya, clusters).statistic)
            res = martingale_iv(xa, ya, xb, yb, clusters)
            iv.append(res.statistic)
            se.append(res.se)
            p.append(res.pvalue)
        ivs, ses = np.array(iv, dtype=float), np.array(se, dtype=float)
        t_crit = sps.t.ppf(0.975, questions - 1)
        total = math.hypot(independent, shared)
        out.append(
            {
                "questions": questions,
                "noise SD": total,
                "ρ (shared)": shared**2 / total**2,
                "seeds": count,
                "mean m": float(np.mean(naive)),
                "mean m_iv": float(ivs.mean()),
                "sd m_iv": float(ivs.std(ddof=1)),
                "mean SE": float(ses.mean()),
                "m_iv reject": float(np.mean(np.array(p) < 0.05)),
                "reject centred": float(np.mean(np.abs(ivs - ivs.mean()) / ses > t_crit)),
            }
        )
    return pd.DataFrame(out)


def markdown(table: pd.DataFrame) -> str:
    header = "| " + " | ".join(table.columns) + " |"
    lines = [header, "|" + "|".join("---" for _ in table.columns) + "|"]
    for row in table.itertuples(index=False):  # keeps each column's dtype (ints stay ints)
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
    parser.add_argument("--iv-seeds", type=int, default=1000, help="(400 questions: 30%% of it)")
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
    start = time.perf_counter()
    iv = iv_table(args.iv_seeds)
    elapsed = time.perf_counter() - start
    print(f"\nM_IV on Bayesian urn beliefs (true M = 0), 6 draws, in {elapsed:.1f} s\n")
    print(markdown(iv))


if __name__ == "__main__":
    main()
