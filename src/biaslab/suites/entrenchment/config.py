"""Configuration of the entrenchment suite: one pydantic model, presets and ``-p key=value`` parsing.

A setup (what one Martingale score is pooled over) is model x judge x reasoning mode x system
prompt x domain x belief construct x judge mode; everything here but the model and the judge.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from biaslab.suites.params import resolve_params

Domain = Literal["urn", "claims", "forecastbench", "perspectrum", "reviews", "opinions"]
PerspectiveOrder = Literal["support-first", "undermine-first"]
Mode = Literal["cot", "debate"]
SystemPrompt = Literal["none", "prior-conforming", "critical"]
JudgeMode = Literal["prefix", "trajectory"]
Construct = Literal["judge", "judge_logprob", "self_report"]

#: domains read from files the user downloads, and where to get them
DOWNLOADED: dict[str, str] = {
    "forecastbench": "a ForecastBench question set (datasets/question_sets/*.json of "
    "github.com/forecastingresearch/forecastbench-datasets, CC BY-SA 4.0) and, for ground truth, "
    "a resolution set (datasets/resolution_sets/*.json)",
    "perspectrum": "Perspectrum's data/dataset/perspectrum_with_answers_v1.0.json "
    "(github.com/CogComp/perspectrum, CC BY-SA 4.0)",
    "reviews": "a JSON or JSON Lines file of paper submissions with title, abstract, reviews and "
    "an accept/reject decision (e.g. PeerRead's reviews, or notes exported from OpenReview)",
    "opinions": "a JSON or JSON Lines file of opinion posts with title, text and whether the "
    "author's view changed (e.g. the ChangeMyView 'Winning Arguments' corpus, delta_label)",
}


class Config(BaseModel):
    """What to generate and how to run it. ``n`` and ``seed`` are arguments of ``generate``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    domain: Domain = "urn"
    mode: Mode = "cot"
    system_prompt: SystemPrompt = "none"
    judge_mode: JudgeMode = "prefix"
    constructs: tuple[Construct, ...] = ("judge",)
    judge_replicates: int = Field(default=1, ge=1, le=3)
    judge_baseline: bool = True
    baseline_n: int | None = Field(default=None, ge=1)
    rounds: int = Field(default=3, ge=1, le=10)
    max_steps: int = Field(default=12, ge=1, le=50)
    min_step_chars: int = Field(default=40, ge=0, le=400)
    draws: int = Field(default=6, ge=1, le=30)
    urn_a: float = Field(default=0.7, gt=0.0, lt=1.0)
    urn_b: float = Field(default=0.3, gt=0.0, lt=1.0)
    prior_low: float = Field(default=0.05, gt=0.0, lt=1.0)
    prior_high: float = Field(default=0.95, gt=0.0, lt=1.0)
    questions: str | None = None
    perspectives: str | None = None
    perspective_order: PerspectiveOrder = "support-first"
    resolutions: str | None = None
    resolved_after: dt.date | None = None
    context_chars: int = Field(default=1500, ge=100, le=100_000)
    reasoner_max_tokens: int = Field(default=1024, ge=16)
    judge_max_tokens: int = Field(default=64, ge=8)
    reasoner_temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    judge_temperature: float | None = Field(default=None, ge=0.0, le=2.0)

    @model_validator(mode="after")
    def _consistent(self) -> Config:
        if not self.constructs:
            raise ValueError("constructs: name at least one of judge, judge_logprob, self_report")
        if self.urn_a == self.urn_b:
            raise ValueError("urn_a and urn_b must differ, or draws carry no evidence")
        if not self.prior_low < self.prior_high:
            raise ValueError("prior_low must be below prior_high")
        if "self_report" in self.constructs and self.mode == "debate":
            raise ValueError("self_report needs mode=cot (a debate has two reasoners)")
        if self.domain in DOWNLOADED and not self.questions:
            raise ValueError(
                f"domain {self.domain} needs -p questions=PATH: {DOWNLOADED[self.domain]}"
            )
        if self.resolutions and self.domain != "forecastbench":
            raise ValueError("resolutions is only read for domain=forecastbench")
        if self.perspectives and self.domain != "perspectrum":
            raise ValueError("perspectives is only read for domain=perspectrum")
        return self


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "calibration": {"domain": "urn", "judge_replicates": 2},
    "claims": {"domain": "claims"},
    "debate": {"domain": "claims", "mode": "debate"},
    # He et al.: one judge call per trajectory, every blank-line paragraph a step, the reasoner at
    # temperature 0.1 and the judge at 0.3 (50 is our ceiling on steps; the paper sets none)
    "paper": {
        "domain": "claims",
        "judge_mode": "trajectory",
        "judge_baseline": False,
        "min_step_chars": 0,
        "max_steps": 50,
        "reasoner_temperature": 0.1,
        "judge_temperature": 0.3,
    },
}

PARAMETER_DOCS: dict[str, str] = {
    "domain": "urn | claims | forecastbench | perspectrum | reviews | opinions — urn: two urns, "
    "one draw revealed per step, exact posterior known; claims: our value-laden yes/no claims; "
    "the others read files you download (-p questions=PATH): forecasting questions, "
    "Perspectrum claims, paper reviews (accept/reject), opinion posts (view changed)",
    "mode": "cot | debate — chain of thought split into paragraphs, or two instances of the model "
    "arguing opposite sides (opener randomised per question)",
    "system_prompt": "none | prior-conforming | critical — the reasoner's system prompt (the "
    "judge never sees it)",
    "judge_mode": "prefix | trajectory — one judge call per prefix (no look-ahead), or the "
    "paper's single call over the whole trajectory (exposed to look-ahead)",
    "constructs": "comma list of judge, judge_logprob, self_report — belief constructs, never "
    "pooled: the judge's stated probability, P(yes token) from the judge's logprobs, the "
    "reasoner's own report",
    "judge_replicates": "1-3 — judge every prefix this many times (distinct cache scopes and "
    "prompt wordings); 2 gives the instrumental-variable M, which corrects only the noise the "
    "replicates do not share (the judge baseline shows what it leaves); a judge at temperature "
    "0 is fine, the wordings differ",
    "judge_baseline": "true | false — also send built-in Bayesian urn trajectories through the "
    "same judge (its M is the pipeline's own artefact)",
    "baseline_n": "questions in the judge baseline (default: --n)",
    "rounds": "debate rounds (one speech per side per round)",
    "max_steps": "cap on chain-of-thought steps (neighbours merged evenly; the raw count is kept)",
    "min_step_chars": "paragraphs shorter than this are merged into the next step",
    "draws": "urn: draws per question (= steps)",
    "urn_a": "urn: share of red balls in urn A",
    "urn_b": "urn: share of red balls in urn B",
    "prior_low": "urn: the stated prior of urn A is drawn uniformly from [prior_low, prior_high]",
    "prior_high": "urn: upper end of the prior's range",
    "questions": "forecastbench / perspectrum / reviews / opinions: path of the downloaded file "
    "(JSON or JSON Lines)",
    "perspectives": "perspectrum: path of perspective_pool_v1.0.json; each claim is then shown "
    "with one supporting and one undermining perspective (claims lacking either are skipped)",
    "perspective_order": "support-first | undermine-first — which perspective is read first (run "
    "both for the order-invariance check: the same claims, two setups)",
    "resolutions": "forecastbench: path of a resolution set (binary resolved questions only)",
    "resolved_after": "forecastbench: keep questions resolved after YYYY-MM-DD (a model's cutoff)",
    "context_chars": "forecastbench: cap on background characters shown",
    "reasoner_max_tokens": "tokens per reasoner reply unless --max-tokens is given",
    "judge_max_tokens": "tokens per judge reply (trajectory mode: per belief, plus this)",
    "reasoner_temperature": "temperature of every call to the model under test (reasoning, "
    "debate speeches, self-reports); unset: the run's or the provider's default",
    "judge_temperature": "temperature of every judge call; unset: the judge role's own setting "
    "(--model-role 'judge={model: M, temperature: T}') or the provider's default",
}


def resolve_config(preset: str | None, overrides: Mapping[str, str]) -> Config:
    """The preset (default: ``default``) with ``-p key=value`` overrides; one-line errors."""
    return resolve_params(Config, "entrenchment", PRESETS, preset or "default", overrides)
