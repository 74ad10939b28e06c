"""Defeasible analysis: the tidy frame -> accuracy, confirmation bias, confidence and reseeding results.

Pipeline (DeReLab, paper section 3.8 and appendices F-I), one module per question:

1. :mod:`.conditions` keeps the entailment turns in a stable order, attaches the model's *prior*
   and the paired effect-question answer, and assigns each update turn one congruence condition
   (C1-C5, C3inh) or C0 with a reason; :mod:`.decisions` says how the paper's conditions map onto
   our state-delta effect labels.
2. :mod:`.metrics`: per model x reasoning type (topology, plus ``inheritance`` = linear + tree
   pooled): C1/C2 accuracy, BiasGap and odds ratio with conversation-level cluster-bootstrap CIs,
   McNemar on one C1-C2 pair per section with Holm across every cell, anchoring, semantic
   override, metacognitive accuracy and the reversed-question-order comparison.
3. :mod:`.confidence` (label probabilities, off-path behaviour) and :mod:`.reproducibility` (seeds).
4. :mod:`.results` holds the pydantic models, :mod:`.report` the tables and figures.

Every statistic comes from :mod:`biaslab.stats`. Every metric is a number or ``None`` with a reason in
the ``undefined`` map next to it; nothing prints NaN.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from biaslab.suites.defeasible.conditions import (
    ICC_BOOT,
    N_BOOT,
    NO_LOGPROBS,
    classify,
    clean_frame,
    prepare,
    prepare_clean,
)
from biaslab.suites.defeasible.confidence import confidence_columns, confidence_results
from biaslab.suites.defeasible.curves import depth_curves, entity_comparisons, main_entities
from biaslab.suites.defeasible.decisions import DECISIONS
from biaslab.suites.defeasible.metrics import (
    anchoring,
    apply_holm,
    cell_result,
    main_order,
    mcnemar_pairs,
    question_order_comparison,
    reasoning_types,
    select_type,
    topology_result,
)
from biaslab.suites.defeasible.nulls import N_PERM
from biaslab.suites.defeasible.report import report, tables
from biaslab.suites.defeasible.reproducibility import reproducibility_results
from biaslab.suites.defeasible.results import (
    CellResult,
    ConfidenceCell,
    DefeasibleResults,
    TopologyResult,
)

# --------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------


def _main_rows(
    df: pd.DataFrame, order_of: Mapping[str, str], entities_of: Mapping[str, str | None]
) -> pd.DataFrame:
    """A model's main-cell rows: its main question order and entity kind (DECISIONS)."""
    keep = [
        order_of[str(m)] == o and (entities_of[str(m)] is None or entities_of[str(m)] == e)
        for m, o, e in zip(df["model"], df["item_question_order"], df["item_entities"], strict=True)
    ]
    return df[keep]


@dataclass(frozen=True)
class MainRows:
    """The cleaned frame, its entailment turns, and the rows of every model's main cells."""

    df: pd.DataFrame
    ent: pd.DataFrame
    order_of: Mapping[str, str]
    entities_of: Mapping[str, str | None]
    main: pd.DataFrame
    main_ent: pd.DataFrame

    @classmethod
    def of(cls, frame: pd.DataFrame) -> MainRows:
        df = clean_frame(frame)
        ent = prepare_clean(df)
        order_of = {str(m): main_order(rows) for m, rows in df.groupby("model", sort=True)}
        entities_of = {str(m): main_entities(rows) for m, rows in df.groupby("model", sort=True)}
        main = _main_rows(df, order_of, entities_of)
        main_ent = _main_rows(ent, order_of, entities_of)
        return cls(df, ent, order_of, entities_of, main, main_ent)


def _bias_models(
    rows: MainRows, seed: int, n_boot: int, n_perm: int
) -> tuple[dict[str, dict[str, TopologyResult]], dict[str, int]]:
    """Every model x reasoning type cell, Holm-adjusted across each model's cells."""
    models: dict[str, dict[str, TopologyResult]] = {}
    for model, model_rows in rows.main.groupby("model", sort=True):
        model_ent = rows.main_ent[rows.main_ent["model"] == model]
        for rtype in reasoning_types(model_rows["item_topology"]):
            models.setdefault(str(model), {})[rtype] = topology_result(
                select_type(model_rows, rtype),
                select_type(model_ent, rtype),
                rows.order_of[str(model)],
                (str(model), rtype),
                seed,
                n_boot,
                n_perm,
            )
    return apply_holm(models)


def bias_cells(
    frame: pd.DataFrame, *, seed: int = 0, n_boot: int = N_BOOT, n_perm: int = N_PERM
) -> dict[str, dict[str, TopologyResult]]:
    """``analyze(frame).models`` alone: the accuracy and confirmation-bias cells with their nulls,
    without the confidence, curve, order, entity and reseeding questions (the null validations
    ask for these cells over many seeds)."""
    return _bias_models(MainRows.of(frame), seed, n_boot, n_perm)[0]


def confidence_cells(
    frame: pd.DataFrame, *, seed: int = 0, n_perm: int = N_PERM
) -> dict[str, dict[str, dict[str, ConfidenceCell]]]:
    """``analyze(frame).confidence`` alone (see :func:`bias_cells`)."""
    return confidence_results(MainRows.of(frame).main_ent, seed, n_perm)


def analyze(
    frame: pd.DataFrame, *, seed: int = 0, n_boot: int = N_BOOT, n_perm: int = N_PERM
) -> DefeasibleResults:
    """Every defeasible metric from the tidy frame (see the module docstring and DECISIONS).

    ``seed`` seeds every bootstrap (per cell, via :func:`biaslab.seeding.seed_sequence`), so the
    same logs give the same CIs bit for bit; ``n_boot`` is the BiasGap/OR resample count.
    """
    rows = MainRows.of(frame)
    models, family = _bias_models(rows, seed, n_boot, n_perm)
    undefined: dict[str, str] = {}
    order, why = question_order_comparison(rows.ent, seed, n_boot)
    if why:
        undefined["question_order"] = why
    standard = _main_rows(rows.ent, rows.order_of, {m: None for m in rows.entities_of})
    entities, why = entity_comparisons(standard, seed, n_boot)
    if why:
        undefined["entities"] = why
    main_ent = rows.main_ent
    repro, why = reproducibility_results(main_ent, seed)
    if why:
        undefined["reproducibility"] = why
    if not main_ent["label_probs"].apply(lambda p: isinstance(p, Mapping)).any():
        undefined["confidence"] = (
            f"no label probabilities in the logs: confidence metrics {NO_LOGPROBS}"
        )
    return DefeasibleResults(
        models=models,
        confidence=confidence_results(main_ent, seed, n_perm),
        question_order=order,
        reproducibility=repro,
        depth_curves=depth_curves(main_ent, seed),
        entities=entities,
        holm_family_size=family,
        undefined=undefined,
    )


__all__ = [
    "DECISIONS",
    "ICC_BOOT",
    "NO_LOGPROBS",
    "N_BOOT",
    "CellResult",
    "ConfidenceCell",
    "DefeasibleResults",
    "MainRows",
    "TopologyResult",
    "analyze",
    "anchoring",
    "bias_cells",
    "cell_result",
    "classify",
    "confidence_cells",
    "confidence_columns",
    "mcnemar_pairs",
    "prepare",
    "report",
    "tables",
]
