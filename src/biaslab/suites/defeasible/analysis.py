"""Defeasible analysis: the tidy frame -> per model x topology (x difficulty) accuracy results.

Every metric is either a number or ``None`` with a reason in ``undefined``; nothing prints NaN.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from biaslab.report.tables import markdown_table, text_table

RESULTS_SCHEMA_VERSION = 1
ENTAILMENT_KINDS = ("initial", "entailment")


class CellResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n_turns: int
    n_conversations: int
    entailment_accuracy: float | None
    initial_accuracy: float | None
    effect_accuracy: float | None
    majority_baseline: float | None
    majority_label: str | None
    unparsed_rate: float | None
    undefined: dict[str, str] = Field(default_factory=dict)


class TopologyResult(CellResult):
    by_difficulty: dict[str, CellResult] = Field(default_factory=dict)


class DefeasibleResults(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = RESULTS_SCHEMA_VERSION
    suite: str = "defeasible"
    models: dict[str, dict[str, TopologyResult]]


def _rate(mask: pd.Series, what: str, undefined: dict[str, str], key: str) -> float | None:
    if len(mask) == 0:
        undefined[key] = f"no {what} turns in this cell"
        return None
    return float(mask.mean())


def cell_result(frame: pd.DataFrame) -> CellResult:
    undefined: dict[str, str] = {}
    entail = frame[frame["kind"].isin(ENTAILMENT_KINDS)]
    initial = frame[frame["kind"] == "initial"]
    effect = frame[frame["kind"] == "effect"]
    majority_label: str | None = None
    majority: float | None = None
    if len(entail):
        counts = entail["gold"].value_counts()
        top = counts.max()
        majority_label = sorted(str(label) for label in counts.index[counts == top])[0]
        majority = float(top / len(entail))
    else:
        undefined["majority_baseline"] = "no entailment turns in this cell"
    return CellResult(
        n_turns=len(frame),
        n_conversations=int(frame["item_id"].nunique()),
        entailment_accuracy=_rate(
            entail["correct"], "entailment", undefined, "entailment_accuracy"
        ),
        initial_accuracy=_rate(initial["correct"], "initial", undefined, "initial_accuracy"),
        effect_accuracy=_rate(effect["correct"], "effect", undefined, "effect_accuracy"),
        majority_baseline=majority,
        majority_label=majority_label,
        unparsed_rate=_rate(~frame["parsed"].astype(bool), "answered", undefined, "unparsed_rate"),
        undefined=undefined,
    )


def analyze(frame: pd.DataFrame) -> DefeasibleResults:
    models: dict[str, dict[str, TopologyResult]] = {}
    for (model, topology), group in frame.groupby(["model", "item_topology"], sort=True):
        overall = cell_result(group)
        by_difficulty = {
            str(difficulty): cell_result(sub)
            for difficulty, sub in group.groupby("item_difficulty", sort=True)
        }
        models.setdefault(str(model), {})[str(topology)] = TopologyResult(
            **overall.model_dump(), by_difficulty=by_difficulty
        )
    return DefeasibleResults(models=models)


_COLUMNS = (
    "model",
    "topology",
    "difficulty",
    "turns",
    "entail acc",
    "effect acc",
    "majority",
    "unparsed",
)


def _rows(results: DefeasibleResults) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for model, topologies in results.models.items():
        for topology, result in topologies.items():
            for difficulty, cell in result.by_difficulty.items():
                rows.append(
                    [
                        model,
                        topology,
                        difficulty,
                        cell.n_turns,
                        cell.entailment_accuracy,
                        cell.effect_accuracy,
                        cell.majority_baseline,
                        cell.unparsed_rate,
                    ]
                )
    return rows


def tables(results: DefeasibleResults) -> str:
    return "Defeasible reasoning: accuracy\n" + text_table(_COLUMNS, _rows(results))


def report(results: DefeasibleResults, out_dir: Path) -> str:
    from biaslab.report.figures import heatmap

    models = list(results.models)
    columns = sorted(
        {
            (t, d)
            for topo in results.models.values()
            for t, r in topo.items()
            for d in r.by_difficulty
        }
    )
    values = [
        [
            (results.models[m].get(t) or TopologyResult.model_construct(by_difficulty={}))
            .by_difficulty.get(d, CellResult.model_construct(entailment_accuracy=None))
            .entailment_accuracy
            for t, d in columns
        ]
        for m in models
    ]
    figure = heatmap(
        out_dir / "defeasible_accuracy.png",
        values,
        models,
        [f"{t}/{d}" for t, d in columns],
        title="Entailment accuracy (model x topology/difficulty)",
    )
    body = [
        "## Defeasible reasoning",
        "Entailment accuracy covers the initial and update questions (gold from the skeptical "
        "inheritance resolver); effect accuracy covers the strengthen/weaken/no-effect questions. "
        "`majority` is the accuracy of always giving the most frequent gold entailment answer.",
        markdown_table(_COLUMNS, _rows(results)),
        f"![Entailment accuracy]({figure.name})",
    ]
    return "\n\n".join(body)
