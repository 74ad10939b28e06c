"""The pydantic models the defeasible analysis writes to ``results.json``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from biaslab.suites.defeasible.conditions import RESULTS_SCHEMA_VERSION
from biaslab.suites.defeasible.decisions import DECISIONS


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
    #: effect golds are mostly "no effect": mean per-gold recall and the majority-class accuracy
    effect_balanced_accuracy: float | None = None
    effect_majority_baseline: float | None = None
    majority_baseline: float | None
    majority_label: str | None
    unparsed_rate: float | None
    #: the system-prompt modes (item meta ``instructions``) of the cell's conversations
    instructions: str | None = None
    undefined: dict[str, str] = Field(default_factory=dict)


class ConditionSummary(_Frozen):
    """Entailment (and paired effect-question) accuracy on one condition's update turns."""

    n: int
    accuracy: float | None
    n_effect: int = 0
    effect_accuracy: float | None = None


class BiasNulls(_Frozen):
    """Each confirmation-bias metric's stratified permutation null (see ``nulls.py``): the null
    mean, its central 95% band, the excess (observed - null mean) and the permutation p-value."""

    bias_gap_null: float | None = None
    bias_gap_null_lo: float | None = None
    bias_gap_null_hi: float | None = None
    bias_gap_excess: float | None = None
    bias_gap_null_p: float | None = None
    bias_gap_defeat_null: float | None = None
    bias_gap_defeat_null_lo: float | None = None
    bias_gap_defeat_null_hi: float | None = None
    bias_gap_defeat_excess: float | None = None
    bias_gap_defeat_null_p: float | None = None
    bias_gap_withhold_null: float | None = None
    bias_gap_withhold_null_lo: float | None = None
    bias_gap_withhold_null_hi: float | None = None
    bias_gap_withhold_excess: float | None = None
    bias_gap_withhold_null_p: float | None = None
    bias_gap_no_prior_null: float | None = None
    bias_gap_no_prior_null_lo: float | None = None
    bias_gap_no_prior_null_hi: float | None = None
    bias_gap_no_prior_excess: float | None = None
    bias_gap_no_prior_null_p: float | None = None
    odds_ratio_null: float | None = None
    odds_ratio_null_lo: float | None = None
    odds_ratio_null_hi: float | None = None
    odds_ratio_excess: float | None = None
    odds_ratio_null_p: float | None = None
    anchoring_rate_null: float | None = None
    anchoring_rate_null_lo: float | None = None
    anchoring_rate_null_hi: float | None = None
    anchoring_rate_excess: float | None = None
    anchoring_rate_null_p: float | None = None
    c3_override_rate_null: float | None = None
    c3_override_rate_null_lo: float | None = None
    c3_override_rate_null_hi: float | None = None
    c3_override_rate_excess: float | None = None
    c3_override_rate_null_p: float | None = None
    c3inh_override_rate_null: float | None = None
    c3inh_override_rate_null_lo: float | None = None
    c3inh_override_rate_null_hi: float | None = None
    c3inh_override_rate_excess: float | None = None
    c3inh_override_rate_null_p: float | None = None
    know_but_dont_output_null: float | None = None
    know_but_dont_output_null_lo: float | None = None
    know_but_dont_output_null_hi: float | None = None
    know_but_dont_output_excess: float | None = None
    know_but_dont_output_null_p: float | None = None
    #: metric -> the turns its null tests (C2 turns for BiasGap) whose stratum holds a turn to
    #: exchange their answer with: only these can move the null
    null_tested: dict[str, int] = Field(default_factory=dict)
    #: metric -> every turn its null would test, testable or not
    null_candidates: dict[str, int] = Field(default_factory=dict)


class TopologyResult(BiasNulls, CellResult):
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
    #: C2 split by gold transition: yes->no (defeat, the paper's construct), yes->unknown (withhold)
    c2_defeat_accuracy: float | None = None
    c2_withhold_accuracy: float | None = None
    bias_gap_defeat: float | None = None
    bias_gap_defeat_ci: tuple[float, float] | None = None
    bias_gap_withhold: float | None = None
    bias_gap_withhold_ci: tuple[float, float] | None = None
    #: the same gap for a "no" prior: accuracy where the update keeps a right "no" minus where it
    #: moves the gold off a right "no" (the mirror construct: clinging to a "no")
    kept_no_accuracy: float | None = None
    overturned_no_accuracy: float | None = None
    n_kept_no: int = 0
    n_overturned_no: int = 0
    bias_gap_no_prior: float | None = None
    bias_gap_no_prior_ci: tuple[float, float] | None = None
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
    #: McNemar on the first C1 and the first defeat (yes->no) / withhold (yes->unknown) C2 turn
    mcnemar_defeat_p: float | None = None
    mcnemar_defeat_p_holm: float | None = None
    mcnemar_defeat_b: int | None = None
    mcnemar_defeat_c: int | None = None
    n_pairs_defeat: int = 0
    mcnemar_withhold_p: float | None = None
    mcnemar_withhold_p_holm: float | None = None
    mcnemar_withhold_b: int | None = None
    mcnemar_withhold_c: int | None = None
    n_pairs_withhold: int = 0
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
    signal_ratio_null: float | None = None
    signal_ratio_null_lo: float | None = None
    signal_ratio_null_hi: float | None = None
    signal_ratio_excess: float | None = None
    signal_ratio_null_p: float | None = None
    #: within-section OLS slope of Δgold_conf per hop (on-path), the null's per-hop statistic
    confidence_slope: float | None = None
    confidence_slope_null: float | None = None
    confidence_slope_null_lo: float | None = None
    confidence_slope_null_hi: float | None = None
    confidence_slope_excess: float | None = None
    confidence_slope_null_p: float | None = None
    spearman_on_path_null: float | None = None
    spearman_on_path_null_lo: float | None = None
    spearman_on_path_null_hi: float | None = None
    spearman_on_path_excess: float | None = None
    spearman_on_path_null_p: float | None = None
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


class DepthPoint(_Frozen):
    """Entailment accuracy at one depth (chain length, linear depth, tree-size bin's low end)."""

    depth: float
    n: int
    n_conversations: int
    accuracy: float
    ci: tuple[float, float] | None


class EntityComparison(_Frozen):
    """Pseudoword vs real-noun entities for one model x topology (paper Table 19)."""

    n_pseudo: int
    n_real: int
    pseudo_accuracy: float
    real_accuracy: float
    #: real minus pseudo entailment accuracy, with a conversation-level cluster-bootstrap CI
    difference: float | None
    difference_ci: tuple[float, float] | None


class DefeasibleResults(_Frozen):
    schema_version: int = RESULTS_SCHEMA_VERSION
    suite: str = "defeasible"
    models: dict[str, dict[str, TopologyResult]]
    confidence: dict[str, dict[str, dict[str, ConfidenceCell]]] = Field(default_factory=dict)
    question_order: dict[str, dict[str, OrderComparison]] = Field(default_factory=dict)
    reproducibility: Reproducibility | None = None
    depth_curves: dict[str, dict[str, list[DepthPoint]]] = Field(default_factory=dict)
    entities: dict[str, dict[str, EntityComparison]] = Field(default_factory=dict)
    #: per model: the cells its paper McNemar p-values are Holm-adjusted over
    holm_family_size: dict[str, int] = Field(default_factory=dict)
    decisions: dict[str, str] = Field(default_factory=lambda: dict(DECISIONS))
    undefined: dict[str, str] = Field(default_factory=dict)
