"""What the paper reports beside the bias metrics: accuracy against reasoning depth (its Figure 2
curves) and pseudoword against real-noun entities (its Table 19).

Depth is what each topology's difficulty grows with: the property chain's length (default), the
number of classes between root and subject (linear), and the number of classes in the tree, in at
most six quantile bins as the paper bins it. Accuracy is entailment accuracy (openings and
updates) with a conversation-level cluster-bootstrap CI.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from biaslab import stats
from biaslab.seeding import seed_sequence
from biaslab.suites.defeasible.conditions import BAND_BOOT
from biaslab.suites.defeasible.results import DepthPoint, EntityComparison

#: topology -> (item meta column, axis label) that depth curves are drawn against
DEPTH_AXES = {
    "default": ("item_chain_length", "chain length"),
    "linear": ("item_depth", "classes between root and subject"),
    "tree": ("item_n_classes", "classes in the tree"),
}
TREE_BINS = 6
ENTITY_ARMS = ("pseudo", "real")


def _bins(values: pd.Series, topology: str) -> pd.Series:
    """Each row's depth label: the value itself, or for trees its quantile bin "lo-hi"."""
    numeric = pd.to_numeric(values, errors="coerce")
    if topology != "tree" or numeric.nunique() <= TREE_BINS:
        return numeric
    edges = np.unique(np.quantile(numeric.dropna(), np.linspace(0, 1, TREE_BINS + 1)))
    index = np.clip(np.searchsorted(edges, numeric, side="right") - 1, 0, len(edges) - 2)
    lows = pd.Series(edges[index], index=values.index)
    return lows.where(numeric.notna())


def depth_curve(
    rows: pd.DataFrame, topology: str, key: tuple[str, ...], seed: int
) -> list[DepthPoint]:
    """Entailment accuracy per depth value (or bin) of one model x topology."""
    column, _ = DEPTH_AXES[topology]
    if column not in rows or rows[column].isna().all():
        return []
    depth = _bins(rows[column], topology)
    points = []
    for value in sorted(depth.dropna().unique()):
        part = rows[depth == value]
        res = stats.bootstrap_mean(
            part["correct"].astype(float),
            part["conversation"],
            n_boot=BAND_BOOT,
            seed=seed_sequence(seed, "depth", *key, int(value)),
        )
        if res.statistic is None:
            continue
        points.append(
            DepthPoint(
                depth=float(value),
                n=len(part),
                n_conversations=int(part["conversation"].nunique()),
                accuracy=res.statistic,
                ci=res.ci,
            )
        )
    return points


def depth_curves(ent: pd.DataFrame, seed: int) -> dict[str, dict[str, list[DepthPoint]]]:
    """Model -> topology -> accuracy by depth, difficulties pooled (their ranges do not overlap)."""
    result: dict[str, dict[str, list[DepthPoint]]] = {}
    for (model, topology), rows in ent.groupby(["model", "item_topology"], sort=True):
        if str(topology) in DEPTH_AXES:
            curve = depth_curve(rows, str(topology), (str(model), str(topology)), seed)
            if curve:
                result.setdefault(str(model), {})[str(topology)] = curve
    return result


def main_entities(rows: pd.DataFrame) -> str | None:
    """The entity kind a model's main cells use: pseudowords when it has them (the paper's
    canonical set), else whatever it has."""
    kinds = {str(k) for k in rows["item_entities"] if isinstance(k, str)}
    if not kinds:
        return None
    return "pseudo" if "pseudo" in kinds else sorted(kinds)[0]


def entity_comparisons(
    ent: pd.DataFrame, seed: int, n_boot: int
) -> tuple[dict[str, dict[str, EntityComparison]], str | None]:
    """Real minus pseudoword entailment accuracy per model x topology where both were run."""
    result: dict[str, dict[str, EntityComparison]] = {}
    for (model, topology), rows in ent.groupby(["model", "item_topology"], sort=True):
        arms = {k: rows[rows["item_entities"] == k] for k in ENTITY_ARMS}
        if any(arm.empty for arm in arms.values()):
            continue
        pseudo, real = arms["pseudo"], arms["real"]
        diff = stats.bootstrap_mean_diff(
            real["correct"].astype(float),
            pseudo["correct"].astype(float),
            real["conversation"],
            pseudo["conversation"],
            n_boot=n_boot,
            seed=seed_sequence(seed, "entities", str(model), str(topology)),
        )
        fields: dict[str, Any] = {
            "n_pseudo": len(pseudo),
            "n_real": len(real),
            "pseudo_accuracy": float(pseudo["correct"].mean()),
            "real_accuracy": float(real["correct"].mean()),
            "difference": diff.statistic,
            "difference_ci": diff.ci,
        }
        result.setdefault(str(model), {})[str(topology)] = EntityComparison(**fields)
    reason = None if result else "no model was run on both pseudoword and real-noun entities"
    return result, reason


__all__ = [
    "DEPTH_AXES",
    "depth_curve",
    "depth_curves",
    "entity_comparisons",
    "main_entities",
]
