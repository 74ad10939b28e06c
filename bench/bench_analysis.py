"""Time the defeasible analysis end to end on a synthetic 10k-turn frame (10,000-resample bootstraps).

Run: ``python bench/bench_analysis.py``. Budget: ``analyze`` ≤ 5 s. The frame imitates real logs:
three models (a confirmation-biased one, a fair one and one run in both question orders), the three
topologies at two difficulties, five seeds, default-reasoning effect questions, and label
probabilities whose confidence decays with distance, so every section of the results is computed
(bias cells with Holm, confidence with MixedLM fits, question order, reseeding ICC).
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from biaslab.suites.defeasible.analysis import analyze, report

TARGET_TURNS = 10_000
BUDGET_S = 5.0
RANK = {"no": 0, "unknown": 1, "yes": 2}
YNU = ("yes", "no", "unknown")
EFFECTS = ("strengthening", "weakening", "no effect")
MODELS = {"biased": 0.85, "fair": 0.0, "reordered": 0.4}  # model -> stickiness of a yes prior


def _effect(before: str, after: str) -> str:
    if RANK[after] > RANK[before]:
        return "strengthening"
    return "weakening" if RANK[after] < RANK[before] else "no effect"


def _probs(labels: tuple[str, ...], answer: str, confidence: float) -> dict[str, float]:
    rest = (1 - confidence) / (len(labels) - 1)
    return {label: confidence if label == answer else rest for label in labels}


def _update(rng: random.Random, before: str) -> dict[str, Any]:
    """One update: on-path (may move the gold), off-path or a distractor (cannot)."""
    kind = rng.choices(("on", "off", "distractor"), weights=(0.6, 0.3, 0.1))[0]
    gold = rng.choice(YNU) if kind == "on" and rng.random() < 0.4 else before
    polarity = "+" if RANK[gold] > RANK[before] else "-" if gold != before else rng.choice("+-")
    return {
        "update_type": {"on": "confirm", "off": "sibling-branch"}.get(kind, "distractor"),
        "on_path": kind == "on",
        "distance": rng.randint(1, 6) if kind != "distractor" else None,
        "polarity": polarity,
        "gold_before": before,
        "gold": gold,
        "effect": _effect(before, gold),
    }


class Agent:
    """Right with probability ``skill``; keeps a yes prior against the evidence with ``sticky``."""

    def __init__(self, rng: random.Random, sticky: float, skill: float = 0.9) -> None:
        self.rng, self.sticky, self.skill = rng, sticky, skill

    def answer(self, gold: str, labels: tuple[str, ...], prior: str | None) -> str:
        if prior == "yes" and gold != "yes" and self.rng.random() < self.sticky:
            return "yes"
        if self.rng.random() < self.skill:
            return gold
        return self.rng.choice(labels)


def _turn(base: dict[str, Any], kind: str, gold: str, pred: str, conf: float) -> dict[str, Any]:
    labels = EFFECTS if kind == "effect" else YNU
    row = {**base, "kind": kind, "gold": gold, "predicted": pred, "parsed": True}
    row.update(correct=pred == gold, label_probs=_probs(labels, pred, conf))
    return row


def _conversation(rng: random.Random, model: str, meta: dict[str, Any]) -> list[dict[str, Any]]:
    agent = Agent(rng, MODELS[model])
    default = meta["item_topology"] == "default"
    rows: list[dict[str, Any]] = []
    for section in range(rng.randint(1, 3) if default else 1):
        gold = rng.choices(YNU, weights=(0.6, 0.3, 0.1))[0]
        prior = agent.answer(gold, YNU, None)
        base = {**meta, "section": section, "update_index": None, "update_type": "initial"}
        rows.append(_turn(base, "initial", gold, prior, 0.95))
        for index in range(rng.randint(3, 8)):
            update = _update(rng, gold)
            gold = update.pop("gold")
            pred = agent.answer(gold, YNU, prior)
            conf = 1 / 3 + 0.6 * 0.8 ** (update["distance"] or 0)
            base = {**meta, **update, "section": section, "update_index": index}
            turns = [_turn(base, "entailment", gold, pred, conf)]
            if default:
                effect_pred = update["effect"] if rng.random() < 0.8 else rng.choice(EFFECTS)
                turns.append(_turn(base, "effect", update["effect"], effect_pred, conf))
                if meta["item_question_order"] == "reversed":
                    turns.reverse()
            rows += turns
            prior = pred
    return rows


def synthetic_frame(target: int = TARGET_TURNS, seed: int = 0) -> pd.DataFrame:
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    item = 0
    while len(rows) < target:
        item += 1
        for model in MODELS:
            order = "reversed" if model == "reordered" and (item // 6) % 2 else "standard"
            meta = {
                "model": model,
                "suite": "defeasible",
                "run_key": f"run-{item % 5 + 1}",
                "item_id": f"item-{item}",
                "item_topology": ("default", "linear", "tree")[item % 3],
                "item_difficulty": ("easy", "hard")[(item // 3) % 2],
                "item_question_order": order,
                "item_seed": item % 5 + 1,
                "sample_error": None,
            }
            rows += _conversation(rng, model, meta)
    df = pd.DataFrame(rows[:target])
    df["turn"] = df.groupby(["model", "run_key", "item_id"]).cumcount()
    return df


def main() -> None:
    df = synthetic_frame()
    n_conv = df.groupby(["model", "run_key", "item_id"]).ngroups
    print(f"frame: {len(df):,} turns, {n_conv:,} conversations, {df['model'].nunique()} models")
    analyze(df.head(300))  # warm-up: imports, statsmodels compilation of formulas
    start = time.perf_counter()
    results = analyze(df)
    elapsed = time.perf_counter() - start
    cells = sum(len(c) for c in results.models.values())
    print(f"analyze (10,000-resample BiasGap/OR bootstraps, {cells} cells): {elapsed:.2f} s")
    for model, cell in results.models.items():
        c = cell["default"]
        print(
            f"  {model:9s} default: BiasGap {c.bias_gap:+.3f} CI {c.bias_gap_ci}, "
            f"OR {c.odds_ratio}, Holm p {c.mcnemar_p_holm}, pairs {c.n_pairs}"
        )
    repro = results.reproducibility
    if repro is not None:
        print(f"  ICC(2,1) {repro.icc} CI {repro.icc_ci} ({repro.n_targets}x{repro.n_raters})")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        report(results, Path(tmp))
        figures = sorted(p.name for p in Path(tmp).glob("*.png"))
        print(f"report ({len(figures)} figures): {time.perf_counter() - start:.2f} s")
    verdict = "OK" if elapsed <= BUDGET_S else "OVER BUDGET"
    print(f"budget {BUDGET_S:.1f} s for analyze: {verdict}")
    if elapsed > BUDGET_S:
        sys.exit(1)


if __name__ == "__main__":
    main()
