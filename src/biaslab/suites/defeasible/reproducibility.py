"""Seed stability (paper appendix F): per-seed accuracy, CV, Kruskal-Wallis with Holm, ICC(2,1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from biaslab import stats
from biaslab.seeding import seed_sequence
from biaslab.suites.defeasible.conditions import ICC_BOOT
from biaslab.suites.defeasible.metrics import Out
from biaslab.suites.defeasible.results import Reproducibility, SeedCell

# --------------------------------------------------------------------------------------------------
# Reproducibility (appendix F)
# --------------------------------------------------------------------------------------------------


def _seed_label(value: Any) -> str:
    try:
        return str(int(value))
    except (TypeError, ValueError):
        return str(value)


def _seed_cell(model: str, topology: str, rows: pd.DataFrame) -> SeedCell:
    out = Out()
    per_seed = rows.groupby("seed_label", sort=True)["correct"].mean()
    per_seed = per_seed.reindex(sorted(per_seed.index, key=_seed_sort_key))
    cv = stats.coefficient_of_variation(per_seed.to_numpy(float))
    out.put("mean", cv.mean if len(per_seed) else None, "no seeds")
    out.put("sd", cv.sd, cv.reason)
    out.put("cv_percent", cv.statistic, cv.reason)
    per_conv = rows.groupby(["seed_label", "conversation"])["correct"].mean()
    groups = {s: per_conv.loc[s].to_numpy(float) for s in per_seed.index}
    kw = stats.kruskal(groups)
    out.put("kruskal_h", kw.statistic, kw.reason)
    out.put("kruskal_p", kw.pvalue, kw.reason)
    out.put("kruskal_p_holm", None, kw.reason or "set after Holm across cells")
    return SeedCell(
        model=model,
        topology=topology,
        n_seeds=len(per_seed),
        per_seed_accuracy={str(k): float(v) for k, v in per_seed.items()},
        undefined=out.undefined,
        **out.fields,
    )


def _seed_sort_key(label: str) -> tuple[int, int | str]:
    return (0, int(label)) if label.lstrip("-").isdigit() else (1, label)


def _icc(cells: Sequence[SeedCell], seed: int) -> tuple[dict[str, Any], list[str], dict[str, str]]:
    undefined: dict[str, str] = {}
    empty = {"icc": None, "icc_ci": None, "icc_p": None, "n_targets": len(cells), "n_raters": 0}
    models = {c.model for c in cells}
    common = sorted(
        set.intersection(*(set(c.per_seed_accuracy) for c in cells)) if cells else set(),
        key=_seed_sort_key,
    )
    if len(models) < 2:
        why = f"ICC needs at least 2 models (targets), got {len(models)}"
    elif len(common) < 2:
        why = f"ICC needs at least 2 seeds shared by every cell, got {len(common)}"
    else:
        why = None
    if why is not None:
        undefined.update(icc=why, icc_ci=why, icc_p=why)
        return empty, common, undefined
    matrix = np.array([[c.per_seed_accuracy[s] for s in common] for c in cells])
    res = stats.icc_2_1(matrix, n_boot=ICC_BOOT, seed=seed_sequence(seed, "icc"))
    fields = {
        "icc": res.statistic,
        "icc_ci": res.ci,
        "icc_p": res.pvalue,
        "n_targets": len(cells),
        "n_raters": len(common),
    }
    for key, reason in (
        ("icc", res.reason),
        ("icc_ci", res.ci_reason or res.reason),
        ("icc_p", res.reason),
    ):
        if fields[key] is None:
            undefined[key] = reason or "undefined"
    return fields, common, undefined


def reproducibility_results(
    ent: pd.DataFrame, seed: int
) -> tuple[Reproducibility | None, str | None]:
    """Seed stability over the main-order entailment turns; None with a reason if < 2 seeds."""
    rows = ent[ent["item_seed"].notna()].copy()
    if rows.empty:
        return None, "no item_seed in the logs"
    rows["seed_label"] = [_seed_label(v) for v in rows["item_seed"]]
    if rows["seed_label"].nunique() < 2:
        return None, "reproducibility needs runs with at least 2 seeds (biaslab run --seeds)"
    cells = [
        _seed_cell(str(m), str(t), part)
        for (m, t), part in rows.groupby(["model", "item_topology"], sort=True)
    ]
    adjusted = stats.adjust_pvalues([c.kruskal_p for c in cells], method="holm")
    cells = [_with_holm(c, p) for c, p in zip(cells, adjusted.adjusted, strict=True)]
    fields, common, undefined = _icc(cells, seed)
    return Reproducibility(seeds=common, cells=cells, undefined=undefined, **fields), None


def _with_holm(cell: SeedCell, p: float | None) -> SeedCell:
    undefined = dict(cell.undefined)
    if p is not None:
        undefined.pop("kruskal_p_holm", None)
    return cell.model_copy(update={"kruskal_p_holm": p, "undefined": undefined})
