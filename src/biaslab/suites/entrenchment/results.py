"""The entrenchment suite's ``results.json``: one :class:`SetupResult` per setup, the judge
baselines among them, and the decisions the analysis made."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from biaslab.suites.entrenchment.factors import AccuracyLink, FactorRegression

RESULTS_SCHEMA_VERSION = 2
#: joins a setup's factors in its label: not ``|``, which delimits Markdown table cells
LABEL_SEPARATOR = " · "


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Trajectory(_Model):
    beliefs: tuple[float | None, ...]
    outcome: int | None


class FigureData(_Model):
    """What the report draws for one setup (small: a sample of points, not every pair)."""

    points_prior: tuple[float, ...] = ()
    points_delta: tuple[float, ...] = ()
    bin_centres: tuple[float, ...] = ()
    bin_means: tuple[float, ...] = ()
    line_x: tuple[float, ...] = ()
    line_y: tuple[float, ...] = ()
    line_lo: tuple[float, ...] = ()
    line_hi: tuple[float, ...] = ()
    trajectories: tuple[Trajectory, ...] = ()
    step_counts: dict[int, int] = Field(default_factory=dict)


class SetupResult(_Model):
    """M and everything that qualifies it, for one setup.

    A setup is source x model x judge x domain x mode x system prompt x construct x judge mode x
    the reasoner's and the judge's generation settings (``reasoner_settings``, ``judge_settings``:
    temperature and every other answer-changing setting, empty for the provider's defaults);
    ``source="judge_baseline"`` rows are the judge's own M on built-in Bayesian urn reasoning.
    ``m*`` fields are per-step M (CR1 by question unless ``se_type`` says otherwise; ``"none"``
    when no standard error was computed — CR1 refused below 10 questions, or M undefined);
    ``m_judge_baseline*`` is the same judge's M on built-in Bayesian reasoning, reported beside
    ``m`` and never subtracted from it; ``m_iv_judge_baseline*`` is that baseline's M_IV — the
    bias M_IV leaves with this judge, since the baseline's true M is 0 — and
    ``judge_baseline_error_r`` the correlation of its two replicates' log-odds errors against the
    exact posterior (``replicate_error_r`` on the baseline setup itself, with
    ``judge_logit_rmse``). ``m_judge_baseline`` is also M's null in the shared null fields
    (``m_null``, ``m_null_lo``, ``m_null_hi``; ``m_excess`` and ``m_null_p`` stay empty, see
    ``decisions``). ``baseline_setting`` names the urn settings (draws, urn shares, prior range)
    of the judge baseline: its own for a baseline setup, the matched one's for a model setup.
    ``judge_baseline_refused`` says why a matched baseline is not shown (its trajectories are
    longer than the model's, which were merged to ``max_steps``); ``n_capped`` counts the
    trajectories merged down to ``max_steps``.
    """

    source: str
    model: str
    judge: str
    domain: str
    variant: str = ""
    mode: str
    system_prompt: str
    belief_construct: str
    judge_mode: str
    baseline_setting: str = ""
    reasoner_settings: str = ""
    judge_settings: str = ""
    look_ahead: bool
    n_questions: int
    n_trajectories: int
    n_pairs: int
    mean_steps: float | None
    m: float | None
    m_lo: float | None
    m_hi: float | None
    m_p: float | None
    se_type: Literal["CR1", "classical", "none"]
    m_se: float | None = None
    m_mde: float | None = None
    m_intercept: float | None = None
    m_r2: float | None = None
    share_zero_updates: float | None = None
    m_classical_lo: float | None = None
    m_classical_hi: float | None = None
    m_classical_p: float | None = None
    m_bins_p: float | None = None
    m_first_last: float | None = None
    m_first_last_lo: float | None = None
    m_first_last_hi: float | None = None
    m_first_last_p: float | None = None
    m_iv: float | None = None
    m_iv_lo: float | None = None
    m_iv_hi: float | None = None
    m_iv_p: float | None = None
    iv_instrument_r: float | None = None
    n_iv_pairs: int = 0
    m_null: float | None = None
    m_null_lo: float | None = None
    m_null_hi: float | None = None
    m_excess: float | None = None
    m_null_p: float | None = None
    m_judge_baseline: float | None = None
    m_judge_baseline_lo: float | None = None
    m_judge_baseline_hi: float | None = None
    m_iv_judge_baseline: float | None = None
    m_iv_judge_baseline_lo: float | None = None
    m_iv_judge_baseline_hi: float | None = None
    judge_baseline_error_r: float | None = None
    judge_baseline_refused: str | None = None
    n_judge_baseline_questions: int = 0
    m_side: float | None = None
    m_side_lo: float | None = None
    m_side_hi: float | None = None
    m_side_p: float | None = None
    side_effect: float | None = None
    side_effect_p: float | None = None
    m_round: float | None = None
    m_round_lo: float | None = None
    m_round_hi: float | None = None
    m_round_p: float | None = None
    brier_first: float | None = None
    brier_final: float | None = None
    n_brier: int = 0
    judge_logit_rmse: float | None = None
    replicate_error_r: float | None = None
    n_error_pairs: int = 0
    n_judgements: int = 0
    unparsed_rate: float | None = None
    unparsed_reasons: dict[str, int] = Field(default_factory=dict)
    n_failed_trajectories: int = 0
    failure_rate: float | None = None
    n_reasoner_failures: int = 0
    n_capped: int = 0
    notes: tuple[str, ...] = ()
    figure: FigureData = Field(default_factory=FigureData)

    @property
    def label(self) -> str:
        """The setup's factors joined by :data:`LABEL_SEPARATOR` (never a table delimiter)."""
        if self.source == "judge_baseline":
            parts = ["judge baseline", self.judge, self.belief_construct, self.judge_mode]
            if self.judge_settings:
                parts.insert(2, f"judge {self.judge_settings}")
            return LABEL_SEPARATOR.join(
                [*parts, self.baseline_setting] if self.baseline_setting else parts
            )
        parts = [
            self.model,
            self.judge,
            self.domain,
            self.variant,
            self.mode,
            self.system_prompt,
            self.belief_construct,
        ]
        if self.judge_mode != "prefix":
            parts.append(self.judge_mode)
        if self.reasoner_settings:
            parts.append(f"model {self.reasoner_settings}")
        if self.judge_settings:
            parts.append(f"judge {self.judge_settings}")
        return LABEL_SEPARATOR.join(p for p in parts if p)  # beliefs from a file leave some empty


class EntrenchmentResults(_Model):
    schema_version: int = RESULTS_SCHEMA_VERSION
    alpha: float
    n_beliefs: int
    n_trajectories: int
    setups: tuple[SetupResult, ...]
    decisions: dict[str, str]
    #: M's shifts by setup factor (one pooled OLS, CR1 by question), when setups differ enough
    factors: FactorRegression | None = None
    #: |M| against the final Brier score across the model setups
    accuracy: AccuracyLink | None = None

    def model_setups(self) -> list[SetupResult]:
        return [s for s in self.setups if s.source == "model"]

    def baseline_setups(self) -> list[SetupResult]:
        return [s for s in self.setups if s.source == "judge_baseline"]
