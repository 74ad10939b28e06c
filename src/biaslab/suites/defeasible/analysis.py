"""Defeasible analysis: the tidy frame -> accuracy, confirmation bias, confidence and reseeding results.

Pipeline (DeReLab, paper section 3.8 and appendices F-I):

1. :func:`prepare` keeps the entailment turns, orders them, attaches the model's *prior* (its own
   previous answer in the hypothesis section, reset to the gold at each section start) and the
   paired effect-question answer.
2. :func:`classify` assigns each update turn one congruence condition (C1-C5, C3inh) or C0 with a
   reason; :data:`DECISIONS` says how the paper's conditions map onto our state-delta effect labels.
3. Per model x reasoning type (topology, plus ``inheritance`` = linear + tree pooled): C1/C2
   accuracy, BiasGap and odds ratio with conversation-level cluster-bootstrap CIs, McNemar on one
   C1-C2 pair per section with Holm across every cell, anchoring, semantic override, metacognitive
   accuracy and the reversed-question-order comparison.
4. Confidence (label probabilities), off-path behaviour and reproducibility across seeds.

Every statistic comes from :mod:`biaslab.stats`. Every metric is a number or ``None`` with a reason in
the ``undefined`` map next to it; nothing prints NaN.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from biaslab import stats
from biaslab.report.tables import markdown_table, text_table
from biaslab.seeding import seed_sequence

RESULTS_SCHEMA_VERSION = 2
ENTAILMENT_KINDS = ("initial", "entailment")
INHERITANCE_TOPOLOGIES = ("linear", "tree")
POOLED = "inheritance"
ALL_DIFFICULTIES = "all"
STANDARD, REVERSED = "standard", "reversed"
STRENGTHENING, WEAKENING, NO_EFFECT = "strengthening", "weakening", "no effect"
DIRECTIONAL = (STRENGTHENING, WEAKENING)
CONDITIONS = ("C1", "C2", "C3", "C3inh", "C4", "C5", "C0")
ON, OFF = "on", "off"
DISTRACTOR = "distractor"

N_BOOT = 10_000  # paper: 10,000 conversation-level resamples for the OR CI
ICC_BOOT = 1_000  # paper: 1,000 resamples for the ICC CI
BAND_BOOT = 1_000  # confidence-vs-distance figure bands only
EXACT_MCNEMAR_BELOW = 25  # b + c below this: exact binomial McNemar, else chi2 with correction
SHORT_CHAIN_MAX = 2  # paper: short chains d <= 2, long d > 2
NO_LOGPROBS = "needs a provider with logprobs"
NO_EFFECT_QUESTIONS = (
    "no effect questions in this cell (asked in default reasoning only, unless the items were "
    "generated with effect_questions=always)"
)

REQUIRED_COLUMNS = (
    "model",
    "run_key",
    "item_id",
    "turn",
    "kind",
    "gold",
    "predicted",
    "parsed",
    "correct",
)
#: optional tidy-frame columns (Turn.meta / Item.meta); missing ones are read as all-None
OPTIONAL_COLUMNS = (
    "section",
    "update_index",
    "update_type",
    "polarity",
    "wording",
    "gold_before",
    "effect",
    "distance",
    "on_path",
    "label_probs",
    "item_topology",
    "item_difficulty",
    "item_question_order",
    "item_seed",
)

DECISIONS: dict[str, str] = {
    "prior": (
        "The prior of an update turn is the model's OWN parsed answer at the immediately preceding "
        "entailment question of the same hypothesis section (paper, appendix H). At every section "
        "start the prior is reset to the GROUND TRUTH of the section's opening question, as the "
        "paper prescribes, so the first update of each section is judged against the gold opening "
        "answer, not the model's (the paper's text reads both ways for the first section; we apply "
        "the reset to every section). A section without an opening turn resets to the first "
        "update's gold_before. An unparsed previous answer gives no prior (C0)."
    ),
    "effect labels": (
        "Our `effect` is the change of the resolver's answer under yes > unknown > no "
        "(strengthening = rose, weakening = fell). The paper's effects were mostly polarity-based, "
        "so its C1 ('prior yes, strengthening') covered confirmations of a live yes; under a state "
        "delta a correct yes prior can never meet a strengthening. C1 therefore also admits "
        "on-path supporting updates (polarity '+') after which the gold stays yes."
    ),
    "C1": "prior yes; gold after the update yes; the update is strengthening, or an on-path "
    "update whose revealed link is positive and that has no effect (a confirmation).",
    "C2": "prior yes; the update is weakening (the gold falls). This includes gold transitions "
    "yes->no, yes->unknown and unknown->no (a yes prior that was already wrong); "
    "`c2_by_transition` breaks C2 accuracy down by transition.",
    "C3": "prior no; negative-sounding no-effect update while the gold stays no (already "
    "defeated), any topology. Negative-sounding = the revealed link is negative or the sentence "
    "is worded as an exception (the paper's update types neg/exception). Semantic override = the "
    "effect answer 'weakening' (needs effect questions).",
    "C3inh": "linear/tree only: prior yes; negative-sounding, no-effect, off-path update while "
    "the gold stays yes. Override = the entailment answer leaves yes (no OR unknown): the paper counts "
    "'answers no' because its gold never was unknown; ours can be, and unknown is equally a "
    "revision.",
    "C4": "prior no; no-effect, off-path, non-negative update while the gold stays no (distractor, "
    "other object, sibling branch). The paper restricts default-reasoning C4 to explicitly "
    "harmless update types; the structural path (see 'paths') lets one rule serve every "
    "topology.",
    "C5": "prior unknown; strengthening or weakening update.",
    "C0": "everything else, counted by reason in `c0_reasons` and excluded from every condition "
    "analysis. Rules are tried in the order C2, C1, C3inh, C5, C3, C4.",
    "bias metrics": "BiasGap = Acc(C1) - Acc(C2) with a conversation-level cluster-bootstrap CI; "
    "OR = odds(correct | C1) / odds(correct | C2) with a 95% cluster-bootstrap percentile CI "
    f"({N_BOOT:,} resamples, seeded per cell); a zero cell leaves the OR undefined (paper: "
    "'OR undefined when C1 contains zero errors'). Unparsed answers count as wrong.",
    "McNemar pairing": "one pair per hypothesis section: the section's first C1 turn and its first "
    "C2 turn in turn order (whichever comes first); sections lacking either give no pair. Test: "
    f"exact binomial when the discordant pairs b + c < {EXACT_MCNEMAR_BELOW}, else chi-square "
    "with continuity correction (the paper's test; the approximation is poor for few pairs).",
    "McNemar selection": "With the paper's prior (the model's own answer), whether the later "
    "turn of a section is C1 or C2 depends on the model's answer at the earlier one: a C2 can "
    "follow a C1 only if the model answered yes there, so pairs over-sample correct C1 and wrong "
    "C2 answers and a memoryless random agent shows b > c (simulated: e.g. 30 vs 8, p < 0.001, "
    "with BiasGap ~ 0). The paper's test is reported as specified (mcnemar_p); "
    "mcnemar_gold_prior_p repeats it with conditions computed from the gold prior (gold_before), "
    "whose membership never depends on the model's answers. BiasGap/OR use every C1/C2 turn and "
    "are not affected (a turn's own answer never decides its condition).",
    "Holm": "Holm-Bonferroni across every model x reasoning-type cell with a defined McNemar p in "
    "`models` (default, linear, tree and the pooled inheritance cell): all cells analysed "
    "together. Including both the pooled and the per-topology inheritance cells makes the family "
    "larger than the paper's, so the adjustment is conservative. The gold-prior McNemar test is "
    "adjusted as a separate family.",
    "reasoning types": "cells per topology; linear + tree are also pooled as 'inheritance' (the "
    "paper's reasoning type) when a model has both.",
    "question order": "a model's main cells use its standard-order turns when it has any (else "
    "its reversed-order turns, flagged in `question_order`); reversed-order turns otherwise only "
    "enter the `question_order` comparison (paper Table 18).",
    "anchoring": "A = |{s: final answer = initial answer != final gold}| / |{s: initial gold != "
    "final gold}| over hypothesis sections; initial = the section's opening question, final = its "
    "last entailment question. Sections with an unparsed initial or final answer are left out.",
    "metacognition": "C1-eff / C2-eff = accuracy of the effect question paired with the C1 / C2 "
    "turns (paired by section and update index, in either question order). Dissociation = "
    "C2-eff - C2 entailment accuracy on the same turns; know_but_dont_output = share of C2 turns "
    "with the effect right and the entailment wrong. For a C1 confirmation our effect gold is "
    "'no effect', not 'strengthening'.",
    "confidence": "gold_conf = the label probability of the gold answer at an entailment turn; "
    "Δgold_conf = gold_conf - gold_conf at the section's opening turn (paper's t0); entropy in "
    "nats and margin p(1) - p(2) over the label distribution. On/off path as in 'paths' (the "
    "paper used effect != no effect, which mislabels preempted on-path updates). Spearman "
    "rho(distance, gold_conf) on on-path turns (and off-path turns with a distance); per-hop "
    "slope = MixedLM Δgold_conf ~ distance with a random intercept per conversation, on on-path "
    "turns (the 'all' difficulty cell pools difficulties, as the paper's identical per-hop rows "
    "suggest it did); Brier = top-label Brier (probability of the given answer vs its "
    "correctness) on on-path turns, ΔBrier = Brier(d > 2) - Brier(d <= 2).",
    "off-path": "off-path turns = the path is off (sibling branches, other objects, distractors). "
    "Intrusion = no-effect update, the answer differs from the model's own previous answer and "
    "is wrong; turns with an unparsed current or previous answer are left out. Signal ratio = "
    "mean |Δgold_conf| on-path / mean |Δgold_conf| off-path. Off-path accuracy and intrusion need "
    "no label probabilities.",
    "reproducibility": "per model x topology (main question order), entailment accuracy per seed "
    "(`item_seed`); ICC(2,1) on the targets x seeds matrix (targets = model x topology cells, "
    f"raters = seeds common to every cell), bootstrap over targets ({ICC_BOOT:,} resamples); "
    "Kruskal-Wallis per cell with per-conversation accuracies grouped by seed, Holm across cells; "
    "CV = SD/mean x 100 of the per-seed accuracies.",
    "paths": "on-path = the generator's on_path flag (the updated node lies on a path from the "
    "subject to the hypothesis property) except that distractors (irrelevant-attribute updates) "
    "are always off-path: the generator flags a distractor about an ancestor class on-path "
    "because the class is, though the attribute cannot bear on the hypothesis.",
    "clusters": "a conversation (the bootstrap and mixed-model cluster) is one (model, run, item).",
}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------------------------------
# Result models
# --------------------------------------------------------------------------------------------------


class CellResult(_Frozen):
    """Accuracy of one model x topology (x difficulty) cell."""

    n_turns: int
    n_conversations: int
    entailment_accuracy: float | None
    initial_accuracy: float | None
    effect_accuracy: float | None
    majority_baseline: float | None
    majority_label: str | None
    unparsed_rate: float | None
    undefined: dict[str, str] = Field(default_factory=dict)


class ConditionSummary(_Frozen):
    """Entailment (and paired effect-question) accuracy on one condition's update turns."""

    n: int
    accuracy: float | None
    n_effect: int = 0
    effect_accuracy: float | None = None


class TopologyResult(CellResult):
    """A model x reasoning-type cell: accuracy plus every confirmation-bias metric."""

    question_order: str | None = None
    condition_counts: dict[str, int] = Field(default_factory=dict)
    c0_reasons: dict[str, int] = Field(default_factory=dict)
    conditions: dict[str, ConditionSummary] = Field(default_factory=dict)
    c2_by_transition: dict[str, ConditionSummary] = Field(default_factory=dict)
    c1_accuracy: float | None = None
    c2_accuracy: float | None = None
    bias_gap: float | None = None
    bias_gap_ci: tuple[float, float] | None = None
    odds_ratio: float | None = None
    odds_ratio_ci: tuple[float, float] | None = None
    mcnemar_p: float | None = None
    mcnemar_p_holm: float | None = None
    mcnemar_method: str | None = None
    mcnemar_b: int | None = None
    mcnemar_c: int | None = None
    n_pairs: int = 0
    #: the same McNemar test on conditions computed with the gold prior (selection-free check)
    mcnemar_gold_prior_p: float | None = None
    mcnemar_gold_prior_p_holm: float | None = None
    n_pairs_gold_prior: int = 0
    anchoring_rate: float | None = None
    n_flipping_sections: int = 0
    c3_override_rate: float | None = None
    c3inh_override_rate: float | None = None
    c1_eff: float | None = None
    c2_eff: float | None = None
    metacognitive_gap: float | None = None
    dissociation: float | None = None
    know_but_dont_output: float | None = None
    by_difficulty: dict[str, CellResult] = Field(default_factory=dict)
    #: the full stats results (method, n, CI reasons, notes) behind the numbers above
    stats: dict[str, dict[str, Any]] = Field(default_factory=dict)


class DistancePoint(_Frozen):
    """Mean gold-answer confidence of on-path turns at one distance (figure data)."""

    distance: int
    n: int
    mean_gold_conf: float
    ci: tuple[float, float] | None


class ConfidenceCell(_Frozen):
    """Appendix G metrics for one model x topology x difficulty cell."""

    n_update_turns: int
    n_on_path: int
    n_off_path: int
    n_with_probs: int
    off_path_accuracy: float | None = None
    intrusion_rate: float | None = None
    mean_gold_conf: float | None = None
    mean_delta_gold_conf_on_path: float | None = None
    mean_delta_gold_conf_off_path: float | None = None
    mean_entropy: float | None = None
    mean_margin: float | None = None
    spearman_on_path: float | None = None
    spearman_on_path_p: float | None = None
    spearman_off_path: float | None = None
    spearman_off_path_p: float | None = None
    per_hop_slope: float | None = None
    per_hop_slope_p: float | None = None
    per_hop_slope_ci: tuple[float, float] | None = None
    brier_short: float | None = None
    brier_long: float | None = None
    delta_brier: float | None = None
    signal_ratio: float | None = None
    by_distance: list[DistancePoint] = Field(default_factory=list)
    undefined: dict[str, str] = Field(default_factory=dict)


class OrderArm(_Frozen):
    """Bias and metacognition of one question order (one side of Table 18)."""

    n_turns: int
    n_c1: int
    n_c2: int
    c1_accuracy: float | None
    c2_accuracy: float | None
    bias_gap: float | None
    bias_gap_ci: tuple[float, float] | None
    c1_eff: float | None
    c2_eff: float | None
    undefined: dict[str, str] = Field(default_factory=dict)


class OrderComparison(_Frozen):
    """Standard vs reversed question order for one model x topology (paper Table 18)."""

    standard: OrderArm
    reversed: OrderArm
    delta_bias_gap: float | None
    delta_c1_eff: float | None
    delta_c2_eff: float | None


class SeedCell(_Frozen):
    """One model x topology across seeds (paper Table 11)."""

    model: str
    topology: str
    n_seeds: int
    per_seed_accuracy: dict[str, float]
    mean: float | None
    sd: float | None
    cv_percent: float | None
    kruskal_h: float | None
    kruskal_p: float | None
    kruskal_p_holm: float | None
    undefined: dict[str, str] = Field(default_factory=dict)


class Reproducibility(_Frozen):
    """Seed stability (paper appendix F): per-cell tables and the pooled ICC(2,1)."""

    seeds: list[str]
    cells: list[SeedCell]
    icc: float | None
    icc_ci: tuple[float, float] | None
    icc_p: float | None
    n_targets: int
    n_raters: int
    undefined: dict[str, str] = Field(default_factory=dict)


class DefeasibleResults(_Frozen):
    schema_version: int = RESULTS_SCHEMA_VERSION
    suite: str = "defeasible"
    models: dict[str, dict[str, TopologyResult]]
    confidence: dict[str, dict[str, dict[str, ConfidenceCell]]] = Field(default_factory=dict)
    question_order: dict[str, dict[str, OrderComparison]] = Field(default_factory=dict)
    reproducibility: Reproducibility | None = None
    holm_family_size: int = 0
    decisions: dict[str, str] = Field(default_factory=lambda: dict(DECISIONS))
    undefined: dict[str, str] = Field(default_factory=dict)


# --------------------------------------------------------------------------------------------------
# Preparation: conversation ids, priors, effect pairing
# --------------------------------------------------------------------------------------------------


def _none_if_missing(value: Any) -> Any:
    """NaN/None/pd.NA -> None, everything else unchanged (frames mix them freely)."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _clean(frame: pd.DataFrame) -> pd.DataFrame:
    """Copy with every optional column present, None for missing values and a conversation id."""
    keep = [c for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if c in frame.columns]
    df = frame[keep].copy()  # only what the analysis reads: boolean selections stay cheap
    for column in OPTIONAL_COLUMNS:
        if column not in df.columns:
            df[column] = None
    df["parsed"] = df["parsed"].astype(bool)
    df["predicted"] = df["predicted"].where(df["parsed"], None)
    for column in (
        "predicted",
        "gold",
        "gold_before",
        "effect",
        "polarity",
        "update_type",
        "wording",
    ):
        df[column] = pd.Series(
            [_none_if_missing(v) for v in df[column]], index=df.index, dtype=object
        )
    df["correct"] = df["correct"].astype(bool)
    df["section"] = pd.to_numeric(df["section"], errors="coerce").fillna(0).astype(int)
    df["distance"] = pd.to_numeric(df["distance"], errors="coerce")
    paths = [_path(v, t) for v, t in zip(df["on_path"], df["update_type"], strict=True)]
    df["path"] = pd.Series(paths, index=df.index, dtype=object)
    df["item_question_order"] = df["item_question_order"].fillna(STANDARD)
    epoch = df["epoch"].astype(str) if "epoch" in df else "1"
    df["conversation"] = (
        df["model"].astype(str)
        + "|"
        + df["run_key"].astype(str)
        + "|"
        + df["item_id"].astype(str)
        + "|"
        + epoch
    )
    return df.sort_values(["conversation", "turn"], kind="stable").reset_index(drop=True)


def _path(on_path: Any, update_type: Any) -> str | None:
    """ "on" / "off" / None: the generator's on_path flag, with distractors always off-path.

    A distractor's updated node is the class holding an irrelevant attribute, which the generator
    flags on-path when that class is an ancestor of the subject; the update still cannot bear on
    the hypothesis, so it counts as off-path here (see DECISIONS["paths"]).
    """
    if update_type == DISTRACTOR:
        return OFF
    if isinstance(on_path, bool | np.bool_):
        return ON if on_path else OFF
    return None


def _priors(ent: pd.DataFrame) -> tuple[list[str | None], list[str | None]]:
    """(prior, previous answer) per entailment row; see DECISIONS["prior"]."""
    priors: list[str | None] = []
    previous: list[str | None] = []
    last_key: tuple[str, int] | None = None
    prev_kind = prev_gold = prev_pred = None
    for conv, section, kind, gold, pred, before in zip(
        ent["conversation"],
        ent["section"],
        ent["kind"],
        ent["gold"],
        ent["predicted"],
        ent["gold_before"],
        strict=True,
    ):
        if (conv, section) != last_key:
            last_key, prev_kind = (conv, section), None
        if prev_kind is None:
            priors.append(None if kind == "initial" else before)
            previous.append(None)
        else:
            priors.append(prev_gold if prev_kind == "initial" else prev_pred)
            previous.append(prev_pred)
        prev_kind, prev_gold, prev_pred = kind, gold, pred
    return priors, previous


def _effect_answers(df: pd.DataFrame) -> pd.DataFrame:
    """Effect-question answers keyed by (conversation, section, update_index)."""
    eff = df[df["kind"] == "effect"]
    keys = ["conversation", "section", "update_index"]
    out = eff[[*keys, "predicted", "gold", "correct"]].rename(
        columns={
            "predicted": "effect_predicted",
            "gold": "effect_gold",
            "correct": "effect_correct",
        }
    )
    return out.drop_duplicates(subset=keys, keep="first")


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    """Entailment rows in turn order with ``prior``, ``previous``, ``condition``, ``c0_reason`` and
    the paired effect answer (``effect_predicted``/``effect_correct``; NaN when none was asked)."""
    return _prepare(_clean(frame))


def _prepare(df: pd.DataFrame) -> pd.DataFrame:
    ent = df[df["kind"].isin(ENTAILMENT_KINDS)].copy()
    ent["prior"], ent["previous"] = _priors(ent)
    if (df["kind"] == "effect").any():
        ent["update_index"] = ent["update_index"].astype(object)
        effects = _effect_answers(df)
        effects["update_index"] = effects["update_index"].astype(object)
        ent = ent.merge(effects, how="left", on=["conversation", "section", "update_index"])
    else:
        ent["effect_predicted"] = None
        ent["effect_gold"] = None
        ent["effect_correct"] = np.nan
    labelled = [
        classify(*row) if kind == "entailment" else (None, None)
        for kind, row in zip(
            ent["kind"],
            zip(
                ent["prior"],
                ent["gold"],
                ent["effect"],
                ent["polarity"],
                ent["path"],
                ent["item_topology"],
                ent["wording"],
                strict=True,
            ),
            strict=True,
        )
    ]
    ent["condition"] = [c for c, _ in labelled]
    ent["c0_reason"] = [r for _, r in labelled]
    ent["condition_gold_prior"] = [
        classify(before, *rest)[0] if kind == "entailment" else None
        for kind, before, *rest in zip(
            ent["kind"],
            ent["gold_before"],
            ent["gold"],
            ent["effect"],
            ent["polarity"],
            ent["path"],
            ent["item_topology"],
            ent["wording"],
            strict=True,
        )
    ]
    return ent.reset_index(drop=True)


# --------------------------------------------------------------------------------------------------
# Congruence conditions
# --------------------------------------------------------------------------------------------------


def _word_polarity(polarity: str | None) -> str:
    return {"+": "positive", "-": "negative"}.get(str(polarity), "unsigned")


def _word_path(path: str | None) -> str:
    return {ON: "on-path", OFF: "off-path"}.get(str(path), "path-unknown")


def _classify_yes(
    gold: str | None,
    effect: str,
    polarity: str | None,
    path: str | None,
    inheritance: bool,
    negative: bool,
) -> tuple[str, str | None]:
    """Prior yes: C2, C1, C3inh or C0 (see DECISIONS)."""
    if effect == WEAKENING:
        return "C2", None
    if gold != "yes":
        if effect == STRENGTHENING:
            return "C0", f"prior yes, strengthening to {gold}: the congruent answer is wrong"
        return "C0", f"prior yes but the gold stays {gold}: the prior is already wrong"
    if effect == STRENGTHENING or (polarity == "+" and path == ON):
        return "C1", None
    if negative and path == OFF:
        if inheritance:
            return "C3inh", None
        return "C0", "prior yes, no-effect negative off-path update (C3inh is inheritance-only)"
    detail = f"{_word_polarity(polarity)} {_word_path(path)}"
    return "C0", f"prior yes, no-effect {detail} update while the gold stays yes"


def _classify_no(
    gold: str | None, effect: str, polarity: str | None, path: str | None, negative: bool
) -> tuple[str, str | None]:
    """Prior no: C3, C4 or C0 (see DECISIONS)."""
    if effect != NO_EFFECT:
        return "C0", f"prior no, {effect} update: the taxonomy has no condition for it"
    if gold != "no":
        return "C0", f"prior no but the gold stays {gold}: the hypothesis is not defeated"
    if negative:
        return "C3", None
    if path == OFF:
        return "C4", None
    return "C0", f"prior no, no-effect {_word_polarity(polarity)} {_word_path(path)} update"


def classify(
    prior: str | None,
    gold: str | None,
    effect: str | None,
    polarity: str | None,
    path: str | None,
    topology: str | None,
    wording: str | None = None,
) -> tuple[str, str | None]:
    """The congruence condition of one update turn and, for C0, why (see DECISIONS).

    ``prior`` is the model's own previous answer (or the gold at a section start), ``gold`` the
    answer after the update, ``effect`` the update's state-delta effect, ``polarity`` the sign of
    the revealed link, ``path`` "on"/"off" (distractors are off-path) and ``wording`` the
    generator's sentence form ("exception" sounds negative whatever the link's sign). Rules are
    tried in the order C2, C1, C3inh, C5, C3, C4; the first match wins.
    """
    negative = polarity == "-" or wording == "exception"
    if _none_if_missing(prior) is None:
        return "C0", "no prior: the previous answer was not parsed"
    if effect not in (*DIRECTIONAL, NO_EFFECT):
        return "C0", "the update has no effect label"
    if prior == "yes":
        inheritance = topology in INHERITANCE_TOPOLOGIES
        return _classify_yes(gold, effect, polarity, path, inheritance, negative)
    if prior == "unknown":
        if effect in DIRECTIONAL:
            return "C5", None
        return "C0", "prior unknown, no-effect update: C5 needs a directional update"
    if prior == "no":
        return _classify_no(gold, effect, polarity, path, negative)
    return "C0", f"prior {prior!r} is not an entailment label"


# --------------------------------------------------------------------------------------------------
# Accuracy cells
# --------------------------------------------------------------------------------------------------


def _rate(mask: pd.Series, what: str, undefined: dict[str, str], key: str) -> float | None:
    if len(mask) == 0:
        undefined[key] = f"no {what} turns in this cell"
        return None
    return float(mask.mean())


def cell_result(frame: pd.DataFrame) -> CellResult:
    """Accuracy, majority baseline and unparsed rate of one cell of the cleaned frame."""
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
        n_conversations=int(frame["conversation"].nunique()),
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


# --------------------------------------------------------------------------------------------------
# Bias metrics of one cell
# --------------------------------------------------------------------------------------------------


class _Out:
    """Accumulates one result's fields, its undefined reasons and the raw stats results."""

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}
        self.undefined: dict[str, str] = {}
        self.stats: dict[str, dict[str, Any]] = {}

    def put(self, key: str, value: Any, reason: str | None) -> None:
        """Set ``key``; a ``None`` value must come with a reason."""
        self.fields[key] = value
        if value is None:
            self.undefined[key] = reason or "undefined"

    def stat(self, key: str, result: stats.StatResult) -> None:
        self.stats[key] = result.model_dump(mode="json")


def _summary(rows: pd.DataFrame) -> ConditionSummary:
    effect = rows["effect_correct"].dropna()
    return ConditionSummary(
        n=len(rows),
        accuracy=float(rows["correct"].mean()) if len(rows) else None,
        n_effect=len(effect),
        effect_accuracy=float(effect.astype(bool).mean()) if len(effect) else None,
    )


def _condition_block(updates: pd.DataFrame, out: _Out) -> None:
    """Counts, C0 reasons and per-condition accuracies."""
    counts = updates["condition"].value_counts()
    out.fields["condition_counts"] = {c: int(counts.get(c, 0)) for c in CONDITIONS}
    reasons = updates.loc[updates["condition"] == "C0", "c0_reason"].value_counts()
    out.fields["c0_reasons"] = {str(k): int(v) for k, v in reasons.items()}
    out.fields["conditions"] = {
        c: _summary(updates[updates["condition"] == c]) for c in CONDITIONS if c != "C0"
    }
    c2 = updates[updates["condition"] == "C2"]
    transitions = c2["gold_before"].astype(str) + "->" + c2["gold"].astype(str)
    out.fields["c2_by_transition"] = {
        str(t): _summary(c2[transitions == t]) for t in sorted(transitions.unique())
    }


def _bias_gap(
    c1: pd.DataFrame, c2: pd.DataFrame, seed: np.random.SeedSequence, n_boot: int, out: _Out
) -> None:
    for key, rows in (("c1_accuracy", c1), ("c2_accuracy", c2)):
        value = float(rows["correct"].mean()) if len(rows) else None
        out.put(key, value, f"no {key[:2].upper()} turns in this cell")
    res = stats.bootstrap_mean_diff(
        c1["correct"],
        c2["correct"],
        c1["conversation"],
        c2["conversation"],
        n_boot=n_boot,
        seed=seed,
    )
    out.stat("bias_gap", res)
    out.put("bias_gap", res.statistic, res.reason)
    out.put("bias_gap_ci", res.ci, res.ci_reason or res.reason)


def _odds_ratio(
    c1: pd.DataFrame, c2: pd.DataFrame, seed: np.random.SeedSequence, n_boot: int, out: _Out
) -> None:
    res = stats.odds_ratio(
        c1["correct"],
        c2["correct"],
        c1["conversation"],
        c2["conversation"],
        n_boot=n_boot,
        seed=seed,
    )
    out.stat("odds_ratio", res)
    out.put("odds_ratio", res.statistic, res.reason)
    out.put("odds_ratio_ci", res.ci, res.ci_reason or res.reason)


def mcnemar_pairs(updates: pd.DataFrame, column: str = "condition") -> pd.DataFrame:
    """One (C1, C2) pair per section: its first C1 and first C2 turn (see DECISIONS)."""
    keys = ["conversation", "section"]
    firsts = [
        updates[updates[column] == c].groupby(keys, sort=True)[["turn", "correct"]].first()
        for c in ("C1", "C2")
    ]
    return (
        firsts[0]
        .merge(firsts[1], how="inner", left_index=True, right_index=True, suffixes=("_c1", "_c2"))
        .reset_index()
    )


def _paired_test(
    updates: pd.DataFrame, column: str
) -> tuple[stats.PairedTable, stats.McNemarResult]:
    pairs = mcnemar_pairs(updates, column)
    table = stats.paired_table(
        pairs["correct_c1"].to_numpy(bool), pairs["correct_c2"].to_numpy(bool)
    )
    method: Literal["exact", "chi2"] = (
        "exact" if table.b + table.c < EXACT_MCNEMAR_BELOW else "chi2"
    )
    return table, stats.mcnemar(table.b, table.c, method=method, correction=True, n_pairs=table.n)


def _mcnemar(updates: pd.DataFrame, out: _Out) -> None:
    """The paper's test, and the selection-free gold-prior variant (DECISIONS["McNemar selection"])."""
    table, res = _paired_test(updates, "condition")
    out.stat("mcnemar", res)
    out.fields.update(n_pairs=table.n, mcnemar_b=table.b, mcnemar_c=table.c)
    reason = "no section has both a C1 and a C2 turn" if table.n == 0 else res.reason
    out.put("mcnemar_p", res.pvalue, reason)
    out.put("mcnemar_method", res.method if res.defined else None, reason)
    out.put("mcnemar_p_holm", None, reason or "set after Holm across cells")
    table, res = _paired_test(updates, "condition_gold_prior")
    out.stat("mcnemar_gold_prior", res)
    out.fields["n_pairs_gold_prior"] = table.n
    reason = "no section has both a gold-prior C1 and C2 turn" if table.n == 0 else res.reason
    out.put("mcnemar_gold_prior_p", res.pvalue, reason)
    out.put("mcnemar_gold_prior_p_holm", None, reason or "set after Holm across cells")


def anchoring(ent: pd.DataFrame) -> tuple[float | None, int, str | None]:
    """(rate, flipping sections, reason-if-undefined) over the sections of ``ent``.

    Rows are taken whole (``drop_duplicates``), not via ``groupby.first/last``, which would skip an
    unparsed (None) answer and silently use an earlier one.
    """
    keys = ["conversation", "section"]
    cols = [*keys, "gold", "predicted"]
    opened = ent.loc[ent["kind"] == "initial", cols].drop_duplicates(keys, keep="first")
    last = ent[cols].drop_duplicates(keys, keep="last")
    sections = opened.merge(last, on=keys, suffixes=("_init", "_final"))
    parsed = sections["predicted_init"].notna() & sections["predicted_final"].notna()
    sections = sections[parsed]
    flipping = sections[sections["gold_init"] != sections["gold_final"]]
    if flipping.empty:
        return None, 0, "no hypothesis section whose gold answer changes (with parsed answers)"
    anchored = (flipping["predicted_final"] == flipping["predicted_init"]) & (
        flipping["predicted_final"] != flipping["gold_final"]
    )
    return float(anchored.mean()), len(flipping), None


def _override(updates: pd.DataFrame, out: _Out) -> None:
    c3 = updates[updates["condition"] == "C3"]
    asked = c3[c3["effect_predicted"].notna() | c3["effect_correct"].notna()]
    if c3.empty:
        out.put("c3_override_rate", None, "no C3 turns in this cell")
    elif asked.empty:
        out.put("c3_override_rate", None, NO_EFFECT_QUESTIONS)
    else:
        out.put("c3_override_rate", float((asked["effect_predicted"] == WEAKENING).mean()), None)
    c3inh = updates[updates["condition"] == "C3inh"]
    rate = float(c3inh["predicted"].isin(["no", "unknown"]).mean()) if len(c3inh) else None
    out.put("c3inh_override_rate", rate, "no C3inh turns in this cell")


def _metacognition(updates: pd.DataFrame, out: _Out) -> None:
    """C1-eff, C2-eff, their gap, and the know-but-don't-output dissociation on C2."""
    eff: dict[str, float | None] = {}
    for cond in ("C1", "C2"):
        rows = updates[(updates["condition"] == cond) & updates["effect_correct"].notna()]
        no_rows = (
            f"no {cond} turns" if not (updates["condition"] == cond).any() else NO_EFFECT_QUESTIONS
        )
        eff[cond] = float(rows["effect_correct"].astype(bool).mean()) if len(rows) else None
        out.put(f"{cond.lower()}_eff", eff[cond], no_rows)
    gap = None if eff["C1"] is None or eff["C2"] is None else eff["C1"] - eff["C2"]
    out.put("metacognitive_gap", gap, "needs both C1-eff and C2-eff")
    c2 = updates[(updates["condition"] == "C2") & updates["effect_correct"].notna()]
    reason = out.undefined.get("c2_eff")
    if c2.empty:
        out.put("dissociation", None, reason)
        out.put("know_but_dont_output", None, reason)
        return
    effect_ok = c2["effect_correct"].astype(bool)
    out.put("dissociation", float(effect_ok.mean() - c2["correct"].mean()), None)
    out.put("know_but_dont_output", float((effect_ok & ~c2["correct"]).mean()), None)


def _bias_cell(ent: pd.DataFrame, key: tuple[str, ...], seed: int, n_boot: int) -> _Out:
    """Every confirmation-bias metric of one cell (Holm is applied later, across cells)."""
    out = _Out()
    updates = ent[ent["kind"] == "entailment"]
    _condition_block(updates, out)
    c1, c2 = (updates[updates["condition"] == c] for c in ("C1", "C2"))
    _bias_gap(c1, c2, seed_sequence(seed, "bias_gap", *key), n_boot, out)
    _odds_ratio(c1, c2, seed_sequence(seed, "odds_ratio", *key), n_boot, out)
    _mcnemar(updates, out)
    rate, n_flip, reason = anchoring(ent)
    out.put("anchoring_rate", rate, reason)
    out.fields["n_flipping_sections"] = n_flip
    _override(updates, out)
    _metacognition(updates, out)
    return out


# --------------------------------------------------------------------------------------------------
# Cells: which turns go where
# --------------------------------------------------------------------------------------------------


def _main_order(frame: pd.DataFrame) -> str:
    """The question order a model's main cells use (see DECISIONS["question order"])."""
    orders = set(frame["item_question_order"])
    return STANDARD if STANDARD in orders or not orders else sorted(orders)[0]


def _reasoning_types(topologies: Iterable[str]) -> list[str]:
    """The model's topologies, plus the pooled inheritance type when it has linear and tree."""
    found = sorted({str(t) for t in topologies})
    if all(t in found for t in INHERITANCE_TOPOLOGIES):
        found.append(POOLED)
    return found


def _select(frame: pd.DataFrame, reasoning_type: str) -> pd.DataFrame:
    if reasoning_type == POOLED:
        return frame[frame["item_topology"].isin(INHERITANCE_TOPOLOGIES)]
    return frame[frame["item_topology"].astype(str) == reasoning_type]


def _topology_result(
    frame: pd.DataFrame, ent: pd.DataFrame, order: str, key: tuple[str, str], seed: int, n_boot: int
) -> TopologyResult:
    overall = cell_result(frame)
    by_difficulty = {
        str(difficulty): cell_result(sub)
        for difficulty, sub in frame.groupby("item_difficulty", sort=True)
    }
    bias = _bias_cell(ent, key, seed, n_boot)
    return TopologyResult(
        **{**overall.model_dump(), "undefined": {**overall.undefined, **bias.undefined}},
        **bias.fields,
        question_order=order,
        by_difficulty=by_difficulty,
        stats=bias.stats,
    )


def _apply_holm(
    models: dict[str, dict[str, TopologyResult]],
) -> tuple[dict[str, dict[str, TopologyResult]], int]:
    """Holm across every cell's McNemar p, separately for the paper's and the gold-prior test
    (cells without a p stay None with their reason); returns the paper family's size."""
    keys = [(m, t) for m, cells in models.items() for t in cells]
    sizes = {}
    for raw, adjusted_key in (
        ("mcnemar_p", "mcnemar_p_holm"),
        ("mcnemar_gold_prior_p", "mcnemar_gold_prior_p_holm"),
    ):
        adjusted = stats.adjust_pvalues([getattr(models[m][t], raw) for m, t in keys])
        sizes[raw] = adjusted.n
        for (m, t), p in zip(keys, adjusted.adjusted, strict=True):
            cell = models[m][t]
            undefined = dict(cell.undefined)
            if p is not None:
                undefined.pop(adjusted_key, None)
            models[m][t] = cell.model_copy(update={adjusted_key: p, "undefined": undefined})
    return models, sizes["mcnemar_p"]


# --------------------------------------------------------------------------------------------------
# Question order (Table 18)
# --------------------------------------------------------------------------------------------------


def _order_arm(ent: pd.DataFrame, key: tuple[str, ...], seed: int, n_boot: int) -> OrderArm:
    out = _Out()
    updates = ent[ent["kind"] == "entailment"]
    c1, c2 = (updates[updates["condition"] == c] for c in ("C1", "C2"))
    _bias_gap(c1, c2, seed_sequence(seed, "order_bias_gap", *key), n_boot, out)
    _metacognition(updates, out)
    return OrderArm(
        n_turns=len(ent),
        n_c1=len(c1),
        n_c2=len(c2),
        undefined=out.undefined,
        **{
            k: out.fields[k]
            for k in ("c1_accuracy", "c2_accuracy", "bias_gap", "bias_gap_ci", "c1_eff", "c2_eff")
        },
    )


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _question_order(
    ent: pd.DataFrame, seed: int, n_boot: int
) -> tuple[dict[str, dict[str, OrderComparison]], str | None]:
    """Standard vs reversed arms per model x reasoning type where both orders were run."""
    result: dict[str, dict[str, OrderComparison]] = {}
    for model, rows in ent.groupby("model", sort=True):
        if set(rows["item_question_order"]) < {STANDARD, REVERSED}:
            continue
        for rtype in _reasoning_types(rows["item_topology"]):
            cell = _select(rows, rtype)
            arms = {
                order: _order_arm(
                    cell[cell["item_question_order"] == order],
                    (str(model), rtype, order),
                    seed,
                    n_boot,
                )
                for order in (STANDARD, REVERSED)
            }
            if arms[STANDARD].n_turns == 0 or arms[REVERSED].n_turns == 0:
                continue
            std, rev = arms[STANDARD], arms[REVERSED]
            result.setdefault(str(model), {})[rtype] = OrderComparison(
                standard=std,
                reversed=rev,
                delta_bias_gap=_delta(std.bias_gap, rev.bias_gap),
                delta_c1_eff=_delta(std.c1_eff, rev.c1_eff),
                delta_c2_eff=_delta(std.c2_eff, rev.c2_eff),
            )
    reason = None if result else "no model was run in both question orders (standard and reversed)"
    return result, reason


# --------------------------------------------------------------------------------------------------
# Confidence (appendix G)
# --------------------------------------------------------------------------------------------------


def _prob(probs: Any, label: Any) -> float:
    if not isinstance(probs, Mapping) or label is None:
        return math.nan
    value = probs.get(label)
    return float(value) if value is not None else math.nan


def _entropy_margin(probs: Any) -> tuple[float, float]:
    if not isinstance(probs, Mapping) or not probs:
        return math.nan, math.nan
    p = np.array(sorted((float(v) for v in probs.values()), reverse=True))
    entropy = float(-(p[p > 0] * np.log(p[p > 0])).sum())
    margin = float(p[0] - p[1]) if len(p) > 1 else float(p[0])
    return entropy, margin


def confidence_columns(ent: pd.DataFrame) -> pd.DataFrame:
    """gold_conf, pred_conf, entropy, margin and Δgold_conf (vs the section's opening turn)."""
    df = ent.copy()
    df["gold_conf"] = [_prob(p, g) for p, g in zip(df["label_probs"], df["gold"], strict=True)]
    df["pred_conf"] = [_prob(p, y) for p, y in zip(df["label_probs"], df["predicted"], strict=True)]
    em = [_entropy_margin(p) for p in df["label_probs"]]
    df["entropy"] = [e for e, _ in em]
    df["margin"] = [m for _, m in em]
    opening = df["gold_conf"].where(df["kind"] == "initial")
    t0 = opening.groupby([df["conversation"], df["section"]]).transform("first")
    df["delta_gold_conf"] = df["gold_conf"] - t0
    return df


def _mean_or_none(values: pd.Series) -> float | None:
    values = values.dropna()
    return float(values.mean()) if len(values) else None


def _off_path_block(updates: pd.DataFrame, out: _Out) -> None:
    """Off-path accuracy and intrusion rate: no label probabilities needed."""
    off = updates[updates["path"] == OFF]
    out.put(
        "off_path_accuracy",
        float(off["correct"].mean()) if len(off) else None,
        "no off-path update turns",
    )
    judged = off[off["predicted"].notna() & off["previous"].notna()]
    intrusion = (
        (judged["effect"] == NO_EFFECT)
        & (judged["predicted"] != judged["previous"])
        & (judged["predicted"] != judged["gold"])
    )
    reason = (
        "no off-path update turns" if off.empty else "no off-path turn with both answers parsed"
    )
    out.put("intrusion_rate", float(intrusion.mean()) if len(judged) else None, reason)


def _spearman(rows: pd.DataFrame, key: str, out: _Out) -> None:
    rows = rows[rows["distance"].notna() & rows["gold_conf"].notna()]
    res = stats.spearman(rows["distance"], rows["gold_conf"])
    out.stat(key, res)
    out.put(key, res.statistic, res.reason)
    out.put(f"{key}_p", res.pvalue, res.reason or "no p-value")


def _slope(on: pd.DataFrame, out: _Out) -> None:
    rows = on[on["distance"].notna() & on["delta_gold_conf"].notna()]
    res = stats.mixed_slope(rows["delta_gold_conf"], rows["distance"], rows["conversation"])
    out.stat("per_hop_slope", res)
    out.put("per_hop_slope", res.statistic, res.reason)
    out.put("per_hop_slope_p", res.pvalue, res.reason or res.ci_reason)
    out.put("per_hop_slope_ci", res.ci, res.reason or res.ci_reason)


def _brier(on: pd.DataFrame, out: _Out) -> None:
    rows = on[on["distance"].notna() & on["pred_conf"].notna()]
    short = rows["distance"] <= SHORT_CHAIN_MAX
    results = {}
    for key, part in (("brier_short", rows[short]), ("brier_long", rows[~short])):
        res = stats.brier(part["pred_conf"].clip(0, 1), part["correct"])
        out.stat(key, res)
        out.put(key, res.statistic, res.reason)
        results[key] = res.statistic
    a, b = results["brier_short"], results["brier_long"]
    out.put(
        "delta_brier",
        None if a is None or b is None else b - a,
        "needs short and long on-path turns",
    )


def _signal_ratio(on: pd.DataFrame, off: pd.DataFrame, out: _Out) -> None:
    num = _mean_or_none(on["delta_gold_conf"].abs())
    den = _mean_or_none(off["delta_gold_conf"].abs())
    if num is None or den is None:
        out.put("signal_ratio", None, "needs Δgold_conf on both on-path and off-path turns")
    elif den == 0:
        out.put(
            "signal_ratio", None, "off-path turns never move the gold confidence (ratio infinite)"
        )
    else:
        out.put("signal_ratio", num / den, None)


def _by_distance(on: pd.DataFrame, key: tuple[str, ...], seed: int) -> list[DistancePoint]:
    points = []
    rows = on[on["distance"].notna() & on["gold_conf"].notna()]
    for value, part in rows.groupby("distance", sort=True):
        distance = int(cast(float, value))
        res = stats.bootstrap_mean(
            part["gold_conf"],
            part["conversation"],
            n_boot=BAND_BOOT,
            seed=seed_sequence(seed, "band", *key, distance),
        )
        if res.statistic is not None:
            points.append(
                DistancePoint(
                    distance=distance, n=len(part), mean_gold_conf=res.statistic, ci=res.ci
                )
            )
    return points


_PROB_METRICS = (
    "mean_gold_conf",
    "mean_delta_gold_conf_on_path",
    "mean_delta_gold_conf_off_path",
    "mean_entropy",
    "mean_margin",
    "spearman_on_path",
    "spearman_on_path_p",
    "spearman_off_path",
    "spearman_off_path_p",
    "per_hop_slope",
    "per_hop_slope_p",
    "per_hop_slope_ci",
    "brier_short",
    "brier_long",
    "delta_brier",
    "signal_ratio",
)


def _confidence_cell(ent: pd.DataFrame, key: tuple[str, ...], seed: int) -> ConfidenceCell:
    updates = ent[ent["kind"] == "entailment"]
    on = updates[updates["path"] == ON]
    off = updates[updates["path"] == OFF]
    with_probs = updates[updates["gold_conf"].notna()]
    out = _Out()
    _off_path_block(updates, out)
    points: list[DistancePoint] = []
    if with_probs.empty:
        for metric in _PROB_METRICS:
            out.put(metric, None, NO_LOGPROBS)
    else:
        out.put("mean_gold_conf", _mean_or_none(with_probs["gold_conf"]), "no turns")
        out.put(
            "mean_delta_gold_conf_on_path",
            _mean_or_none(on["delta_gold_conf"]),
            "no on-path turn with Δgold_conf",
        )
        out.put(
            "mean_delta_gold_conf_off_path",
            _mean_or_none(off["delta_gold_conf"]),
            "no off-path turn with Δgold_conf",
        )
        out.put("mean_entropy", _mean_or_none(with_probs["entropy"]), "no turns")
        out.put("mean_margin", _mean_or_none(with_probs["margin"]), "no turns")
        _spearman(on, "spearman_on_path", out)
        _spearman(off, "spearman_off_path", out)
        _slope(on, out)
        _brier(on, out)
        _signal_ratio(on, off, out)
        points = _by_distance(on, key, seed)
    return ConfidenceCell(
        n_update_turns=len(updates),
        n_on_path=len(on),
        n_off_path=len(off),
        n_with_probs=len(with_probs),
        by_distance=points,
        undefined=out.undefined,
        **out.fields,
    )


def _confidence(ent: pd.DataFrame, seed: int) -> dict[str, dict[str, dict[str, ConfidenceCell]]]:
    """Per model x topology x difficulty, plus an 'all' cell pooling difficulties when several."""
    df = confidence_columns(ent)
    result: dict[str, dict[str, dict[str, ConfidenceCell]]] = {}
    for (model, topology), rows in df.groupby(["model", "item_topology"], sort=True):
        cells: dict[str, ConfidenceCell] = {}
        for difficulty, part in rows.groupby("item_difficulty", sort=True):
            cells[str(difficulty)] = _confidence_cell(
                part, (str(model), str(topology), str(difficulty)), seed
            )
        if len(cells) > 1:
            cells[ALL_DIFFICULTIES] = _confidence_cell(
                rows, (str(model), str(topology), ALL_DIFFICULTIES), seed
            )
        result.setdefault(str(model), {})[str(topology)] = cells
    return result


# --------------------------------------------------------------------------------------------------
# Reproducibility (appendix F)
# --------------------------------------------------------------------------------------------------


def _seed_label(value: Any) -> str:
    try:
        return str(int(value))
    except (TypeError, ValueError):
        return str(value)


def _seed_cell(model: str, topology: str, rows: pd.DataFrame) -> SeedCell:
    out = _Out()
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


def _reproducibility(ent: pd.DataFrame, seed: int) -> tuple[Reproducibility | None, str | None]:
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


# --------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------


def _main_rows(df: pd.DataFrame, order_of: Mapping[str, str]) -> pd.DataFrame:
    return df[
        [order_of[str(m)] == o for m, o in zip(df["model"], df["item_question_order"], strict=True)]
    ]


def analyze(frame: pd.DataFrame, *, seed: int = 0, n_boot: int = N_BOOT) -> DefeasibleResults:
    """Every defeasible metric from the tidy frame (see the module docstring and DECISIONS).

    ``seed`` seeds every bootstrap (per cell, via :func:`biaslab.seeding.seed_sequence`), so the
    same logs give the same CIs bit for bit; ``n_boot`` is the BiasGap/OR resample count.
    """
    df = _clean(frame)
    ent = _prepare(df)
    order_of = {str(m): _main_order(rows) for m, rows in df.groupby("model", sort=True)}
    main, main_ent = _main_rows(df, order_of), _main_rows(ent, order_of)
    models: dict[str, dict[str, TopologyResult]] = {}
    for model, rows in main.groupby("model", sort=True):
        model_ent = main_ent[main_ent["model"] == model]
        for rtype in _reasoning_types(rows["item_topology"]):
            models.setdefault(str(model), {})[rtype] = _topology_result(
                _select(rows, rtype),
                _select(model_ent, rtype),
                order_of[str(model)],
                (str(model), rtype),
                seed,
                n_boot,
            )
    models, family = _apply_holm(models)
    undefined: dict[str, str] = {}
    order, why = _question_order(ent, seed, n_boot)
    if why:
        undefined["question_order"] = why
    repro, why = _reproducibility(main_ent, seed)
    if why:
        undefined["reproducibility"] = why
    if not main_ent["label_probs"].apply(lambda p: isinstance(p, Mapping)).any():
        undefined["confidence"] = (
            f"no label probabilities in the logs: confidence metrics {NO_LOGPROBS}"
        )
    return DefeasibleResults(
        models=models,
        confidence=_confidence(main_ent, seed),
        question_order=order,
        reproducibility=repro,
        holm_family_size=family,
        undefined=undefined,
    )


# --------------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------------

#: a table: title, then (column header, attribute path) pairs; "ci.0"/"ci.1" index into a tuple
Spec = tuple[str, tuple[tuple[str, str], ...]]

_BIAS_SPEC: Spec = (
    "Confirmation bias (paper Table 15)",
    (
        ("C1 acc", "c1_accuracy"),
        ("C2 acc", "c2_accuracy"),
        ("Gap", "bias_gap"),
        ("Gap lo", "bias_gap_ci.0"),
        ("Gap hi", "bias_gap_ci.1"),
        ("OR", "odds_ratio"),
        ("OR lo", "odds_ratio_ci.0"),
        ("OR hi", "odds_ratio_ci.1"),
        ("pairs", "n_pairs"),
        ("McNemar p", "mcnemar_p"),
        ("Holm p", "mcnemar_p_holm"),
        ("gold-prior pairs", "n_pairs_gold_prior"),
        ("gold-prior Holm p", "mcnemar_gold_prior_p_holm"),
    ),
)
_CONDITION_SPEC: Spec = (
    "Update turns per congruence condition",
    tuple((c, f"condition_counts.{c}") for c in CONDITIONS),
)
_ANCHOR_SPEC: Spec = (
    "Anchoring, semantic override and metacognition (paper Tables 16-17)",
    (
        ("Anch.", "anchoring_rate"),
        ("flipping", "n_flipping_sections"),
        ("C3-ovr", "c3_override_rate"),
        ("C3inh-ovr", "c3inh_override_rate"),
        ("C1-eff", "c1_eff"),
        ("C2-eff", "c2_eff"),
        ("eff gap", "metacognitive_gap"),
        ("C2-eff - C2 acc", "dissociation"),
        ("know-not-output", "know_but_dont_output"),
    ),
)
_ORDER_SPEC: Spec = (
    "Standard vs reversed question order (paper Table 18)",
    (
        ("Gap std", "standard.bias_gap"),
        ("Gap rev", "reversed.bias_gap"),
        ("C2-eff std", "standard.c2_eff"),
        ("C2-eff rev", "reversed.c2_eff"),
        ("C1-eff std", "standard.c1_eff"),
        ("C1-eff rev", "reversed.c1_eff"),
    ),
)
_ON_PATH_SPEC: Spec = (
    "On-path confidence vs distance (paper Table 13)",
    (
        ("n on-path", "n_on_path"),
        ("rho", "spearman_on_path"),
        ("p", "spearman_on_path_p"),
        ("per-hop beta", "per_hop_slope"),
        ("beta p", "per_hop_slope_p"),
        ("Brier d<=2", "brier_short"),
        ("Brier d>2", "brier_long"),
        ("dBrier", "delta_brier"),
    ),
)
_OFF_PATH_SPEC: Spec = (
    "Off-path behaviour (paper Table 14)",
    (
        ("n off-path", "n_off_path"),
        ("intrusion", "intrusion_rate"),
        ("signal ratio", "signal_ratio"),
        ("off-path acc", "off_path_accuracy"),
        ("off-path rho", "spearman_off_path"),
        ("gold_conf", "mean_gold_conf"),
    ),
)
_SEED_SPEC: Spec = (
    "Accuracy across seeds (paper Table 11)",
    (
        ("seeds", "n_seeds"),
        ("mean", "mean"),
        ("std", "sd"),
        ("CV %", "cv_percent"),
        ("H", "kruskal_h"),
        ("p", "kruskal_p"),
        ("Holm p", "kruskal_p_holm"),
    ),
)


def _get(obj: Any, path: str) -> Any:
    """``obj.a.b`` / ``obj.ci.0`` / ``obj.counts.C1``; None when any step is missing."""
    for part in path.split("."):
        if obj is None:
            return None
        if isinstance(obj, tuple):
            obj = obj[int(part)]
        elif isinstance(obj, Mapping):
            obj = obj.get(part)
        else:
            obj = getattr(obj, part, None)
    return obj


def _keyed_rows(keyed: Iterable[tuple[tuple[str, ...], Any]], spec: Spec) -> list[list[Any]]:
    return [[*key, *(_get(obj, path) for _, path in spec[1])] for key, obj in keyed]


def _cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], TopologyResult]]:
    return [((m, t), c) for m, cells in results.models.items() for t, c in cells.items()]


def _difficulty_cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], CellResult]]:
    return [
        ((m, t, d), c)
        for (m, t), cell in _cells(results)
        if t != POOLED
        for d, c in cell.by_difficulty.items()
    ]


def _confidence_cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], ConfidenceCell]]:
    return [
        ((m, t, d), c)
        for m, tops in results.confidence.items()
        for t, cells in tops.items()
        for d, c in cells.items()
    ]


def _order_cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], OrderComparison]]:
    return [((m, t), c) for m, cells in results.question_order.items() for t, c in cells.items()]


def _seed_cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], SeedCell]]:
    repro = results.reproducibility
    return [((c.model, c.topology), c) for c in (repro.cells if repro else [])]


_ACCURACY_SPEC: Spec = (
    "Accuracy (model x topology x difficulty)",
    (
        ("turns", "n_turns"),
        ("entail acc", "entailment_accuracy"),
        ("effect acc", "effect_accuracy"),
        ("majority", "majority_baseline"),
        ("unparsed", "unparsed_rate"),
    ),
)

Table = tuple[str, list[str], list[list[Any]]]


def _table(keys: Sequence[str], spec: Spec, keyed: Sequence[tuple[tuple[str, ...], Any]]) -> Table:
    return spec[0], [*keys, *(h for h, _ in spec[1])], _keyed_rows(keyed, spec)


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _icc_line(results: DefeasibleResults) -> str | None:
    repro = results.reproducibility
    if repro is None:
        return None
    ci = "—" if repro.icc_ci is None else f"[{_fmt(repro.icc_ci[0])}, {_fmt(repro.icc_ci[1])}]"
    line = f"Pooled ICC(2,1) = {_fmt(repro.icc)}, 95% CI {ci} ({repro.n_targets} cells x "
    line += f"{repro.n_raters} seeds, {ICC_BOOT:,} bootstrap resamples over cells)"
    if "icc" in repro.undefined:
        line += f"; undefined: {repro.undefined['icc']}"
    return line


def _all_tables(results: DefeasibleResults) -> list[Table]:
    mt, mtd = ("model", "type"), ("model", "topology", "difficulty")
    bias_title, bias_cols = _BIAS_SPEC
    bias: Spec = (f"{bias_title}; Holm over {results.holm_family_size} cells", bias_cols)
    found = [
        _table(mtd, _ACCURACY_SPEC, _difficulty_cells(results)),
        _table(mt, bias, _cells(results)),
        _table(mt, _CONDITION_SPEC, _cells(results)),
        _table(mt, _ANCHOR_SPEC, _cells(results)),
        _table(mt, _ORDER_SPEC, _order_cells(results)),
        _table(mtd, _ON_PATH_SPEC, _confidence_cells(results)),
        _table(mtd, _OFF_PATH_SPEC, _confidence_cells(results)),
        _table(("model", "topology"), _SEED_SPEC, _seed_cells(results)),
    ]
    return [t for t in found if t[2]]


def tables(results: DefeasibleResults) -> str:
    """Paper-style plain-text tables ("—" = undefined; reasons are in the ``undefined`` maps)."""
    blocks = [
        f"Defeasible reasoning: {t}\n{text_table(h, rows)}" for t, h, rows in _all_tables(results)
    ]
    if line := _icc_line(results):
        blocks.append(line)
    blocks += [f"Not computed: {k}: {v}" for k, v in results.undefined.items()]
    return "\n\n".join(blocks)


# --------------------------------------------------------------------------------------------------
# Report: Markdown + figures
# --------------------------------------------------------------------------------------------------


def _heatmap_figure(results: DefeasibleResults, out_dir: Path) -> str:
    from biaslab.report.figures import heatmap

    cells = {key: c.entailment_accuracy for key, c in _difficulty_cells(results)}
    if not cells:
        return "No accuracy heatmap: no answered turns."
    models = list(results.models)
    columns = sorted({(t, d) for _, t, d in cells})
    values = [[cells.get((m, t, d)) for t, d in columns] for m in models]
    labels = [f"{t}/{d}" for t, d in columns]
    title = "Entailment accuracy (model x topology/difficulty)"
    path = heatmap(out_dir / "defeasible_accuracy.png", values, models, labels, title=title)
    return f"![Entailment accuracy]({path.name})"


def _by_type(results: DefeasibleResults, attr: str) -> dict[str, list[Any]]:
    """One series per reasoning type, one value per model (None where the model lacks it)."""
    types = sorted({t for cells in results.models.values() for t in cells})
    return {t: [_get(cells.get(t), attr) for cells in results.models.values()] for t in types}


def _has_values(series: Mapping[str, Sequence[Any]]) -> bool:
    return any(v is not None for values in series.values() for v in values)


def _bias_figures(results: DefeasibleResults, out_dir: Path) -> list[str]:
    from biaslab.report.figures import bar_chart

    models = list(results.models)
    gaps = _by_type(results, "bias_gap")
    if not _has_values(gaps):
        return ["No BiasGap/odds-ratio figure: no cell has both C1 and C2 turns."]
    path = bar_chart(
        out_dir / "defeasible_bias_gap.png",
        models,
        gaps,
        intervals=_by_type(results, "bias_gap_ci"),
        reference=0.0,
        title="BiasGap = Acc(C1) - Acc(C2), 95% cluster-bootstrap CI",
        ylabel="BiasGap",
    )
    lines = [f"![BiasGap]({path.name})"]
    ors = _by_type(results, "odds_ratio")
    if not _has_values(ors):
        lines.append("No odds-ratio figure: every odds ratio is undefined (a zero cell).")
        return lines
    path = bar_chart(
        out_dir / "defeasible_odds_ratio.png",
        models,
        ors,
        intervals=_by_type(results, "odds_ratio_ci"),
        reference=1.0,
        log=True,
        title="Odds ratio odds(correct|C1) / odds(correct|C2), 95% CI",
        ylabel="odds ratio (log scale)",
    )
    lines.append(f"![Odds ratio]({path.name})")
    return lines


def _dissociation_figure(results: DefeasibleResults, out_dir: Path) -> str:
    from biaslab.report.figures import bar_chart

    cells = [(k, c) for k, c in _cells(results) if c.c1_eff is not None or c.c2_eff is not None]
    if not cells:
        return "No dissociation figure: no C1/C2 turn has an effect question."
    series = {
        label: [_get(c, attr) for _, c in cells]
        for label, attr in (
            ("C1 acc", "c1_accuracy"),
            ("C2 acc", "c2_accuracy"),
            ("C1-eff", "c1_eff"),
            ("C2-eff", "c2_eff"),
        )
    }
    path = bar_chart(
        out_dir / "defeasible_dissociation.png",
        ["/".join(k) for k, _ in cells],
        series,
        ylim=(0.0, 1.05),
        title="Entailment (acc) vs effect-question (eff) accuracy on C1/C2 turns",
        ylabel="accuracy",
    )
    return f"![Metacognitive dissociation]({path.name})"


def _distance_panels(
    results: DefeasibleResults,
) -> dict[str, dict[str, tuple[list[float], list[float], list[tuple[float, float] | None]]]]:
    """Topology -> model -> curve: the pooled-difficulty cell if there is one, else each difficulty."""
    panels: dict[str, dict[str, Any]] = {}
    for (m, t, d), cell in _confidence_cells(results):
        cells = results.confidence[m][t]
        pooled = ALL_DIFFICULTIES in cells
        if len(cell.by_distance) < 2 or (pooled and d != ALL_DIFFICULTIES):
            continue
        name = m if pooled or len(cells) == 1 else f"{m} ({d})"
        pts = cell.by_distance
        curve = (
            [float(p.distance) for p in pts],
            [p.mean_gold_conf for p in pts],
            [p.ci for p in pts],
        )
        panels.setdefault(t, {})[name] = curve
    return panels


def _confidence_figure(results: DefeasibleResults, out_dir: Path) -> str:
    from biaslab.report.figures import line_bands

    panels = _distance_panels(results)
    if not panels:
        why = results.undefined.get("confidence", "no on-path turns at two or more distances")
        return f"No confidence-vs-distance figure: {why}."
    path = line_bands(
        out_dir / "defeasible_confidence_distance.png",
        panels,
        ylim=(0.0, 1.02),
        title="Gold-answer confidence vs update distance (on-path turns, 95% cluster-bootstrap CI)",
        xlabel="distance (hops to the subject)",
        ylabel="gold_conf",
        integer_x=True,
    )
    return f"![Confidence vs distance]({path.name})"


def _seed_figure(results: DefeasibleResults, out_dir: Path) -> str:
    from biaslab.report.figures import boxplot

    repro = results.reproducibility
    if repro is None:
        return f"No reseeding boxplots: {results.undefined.get('reproducibility', 'no seeds')}."
    groups = {"/".join(k): list(c.per_seed_accuracy.values()) for k, c in _seed_cells(results)}
    path = boxplot(
        out_dir / "defeasible_reseeding.png",
        groups,
        title="Entailment accuracy per seed",
        ylabel="accuracy",
    )
    return f"![Accuracy across seeds]({path.name})"


def _c0_section(results: DefeasibleResults) -> list[str]:
    reasons: dict[str, int] = {}
    for (_, t), cell in _cells(results):
        for reason, n in cell.c0_reasons.items() if t != POOLED else ():
            reasons[reason] = reasons.get(reason, 0) + n
    if not reasons:
        return []
    rows: list[list[Any]] = [[r, n] for r, n in sorted(reasons.items(), key=lambda kv: -kv[1])]
    return [
        "C0 (excluded) update turns by reason, all models:",
        markdown_table(("reason", "turns"), rows),
    ]


_INTRO = (
    "Entailment accuracy covers the initial and update questions (gold from the skeptical "
    "inheritance resolver); effect accuracy covers the strengthen/weaken/no-effect questions. "
    "`majority` is the accuracy of always giving the most frequent gold entailment answer. "
    '"—" marks an undefined value; the reason is in results.json (`undefined`).'
)


def report(results: DefeasibleResults, out_dir: Path) -> str:
    """Markdown section: every table, each figure whose data exist (else why not), decisions."""
    figures = {
        "Accuracy": [_heatmap_figure(results, out_dir)],
        "Confirmation bias": _bias_figures(results, out_dir),
        "Anchoring": [_dissociation_figure(results, out_dir)],
        "On-path": [_confidence_figure(results, out_dir)],
        "Accuracy across seeds": [_seed_figure(results, out_dir)],
    }
    body = ["## Defeasible reasoning", _INTRO]
    placed: set[str] = set()
    for title, header, rows in _all_tables(results):
        body += [f"### {title}", markdown_table(header, rows)]
        prefix = max((p for p in figures if title.startswith(p)), key=len, default=None)
        if prefix is not None and prefix not in placed:
            body += figures[prefix]
            placed.add(prefix)
    if line := _icc_line(results):
        body.append(line)
    body += [line for p, lines in figures.items() if p not in placed for line in lines]
    body += [f"Not computed — {k}: {v}" for k, v in results.undefined.items()]
    body += _c0_section(results)
    body += ["### Decisions", "\n".join(f"- **{k}**: {v}" for k, v in results.decisions.items())]
    return "\n\n".join(body)
