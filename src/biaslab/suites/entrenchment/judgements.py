"""The suite's per-answer records: one per judged belief, one per reasoning trajectory.

:func:`biaslab.frames.answer_frame` turns each into one row, so the tidy frame has a row per
judgement (question, step, construct, replicate, belief or unparsed, side for debates, …) and a row
per trajectory (its step counts, and whether the reasoner produced anything to judge).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from biaslab.records import AnswerRecord
from biaslab.suites.entrenchment.config import Construct, Domain, JudgeMode, Mode, SystemPrompt

Source = Literal["model", "judge_baseline"]
RAW_CHARS = 300  # raw judge replies are kept (truncated) so unparsed ones can be inspected


class BeliefRecord(AnswerRecord):
    """One belief: the construct's reading after the first ``step`` steps of a trajectory.

    ``belief`` is always P(the item's yes option), whichever option the judge was asked about
    (``asked_yes``); ``None`` when the reply could not be read (``error`` says why). ``failed``
    marks every belief of a trajectory the paper-mode judge could not score (after one retry).
    ``reasoner_temperature``/``judge_temperature`` are the suite's own settings for the calls
    (None: the run's or role's), part of the setup key with the run's generation settings.
    ``urn_setting`` is the run's urn settings (those of a urn question, and of the judge baseline
    beside any question).
    """

    record: Literal["belief"] = "belief"
    question: str
    source: Source
    domain: Domain
    mode: Mode
    system_prompt: SystemPrompt
    belief_construct: Construct
    judge_mode: JudgeMode
    replicate: int = Field(ge=0)
    step: int = Field(ge=0)
    n_steps: int = Field(ge=0)
    side: str | None = None
    round: int | None = None
    belief: float | None = Field(ge=0.0, le=1.0)
    parsed: bool
    asked_yes: bool
    rescaled: bool = False
    failed: bool = False
    retried: bool = False
    error: str | None = None
    raw: str = ""
    exact: float | None = Field(default=None, ge=0.0, le=1.0)
    outcome: int | None = None
    urn_setting: str | None = None
    variant: str = ""  # a domain's variant (Perspectrum: which perspective is read first)
    reasoner_temperature: float | None = None
    judge_temperature: float | None = None


class TrajectoryRecord(AnswerRecord):
    """One reasoning trajectory: how many steps it had before and after the cap, and why it has
    none to judge when the reasoner failed (``failure``)."""

    record: Literal["trajectory"] = "trajectory"
    question: str
    source: Source
    domain: Domain
    mode: Mode
    system_prompt: SystemPrompt
    judge_mode: JudgeMode
    n_steps: int = Field(ge=0)
    n_steps_raw: int = Field(ge=0)
    capped: bool
    failure: str | None = None
    outcome: int | None = None
    urn_setting: str | None = None
    variant: str = ""  # a domain's variant (Perspectrum: which perspective is read first)
    reasoner_temperature: float | None = None
    judge_temperature: float | None = None
