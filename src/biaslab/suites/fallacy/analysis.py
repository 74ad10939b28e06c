"""Fallacy rates per model beside their chance level, the reversal table, and capability trends.

Input: the tidy frame (one row per answer, :func:`biaslab.frames.answer_frame`) with the fields of
:class:`~biaslab.suites.fallacy.scoring.FallacyRecord` and the item meta (``item_order``,
``item_problem_id``, ``item_chance_share`` …). Definitions (the paper's §4.1, §4.4):

* FallacyRate = fallacies / incorrect parsed answers, where a fallacy is an ETR-predicted answer
  that does not follow logically. Undefined, with its reason, when a model made no error. Reported
  under the robust ETR label (the headline) and the paper's exact label, each with a Wilson CI.
* Its chance level, per answer shape: each incorrect answer has the share of ETR-predicted
  answers among its problem's wrong answers of the same shape (a conjunction of as many ground
  literals; :mod:`biaslab.suites.fallacy.chance`); an answerer that erred on the same problems
  with answers of the same shapes, choosing each at random, makes Poisson-binomially many
  fallacies. The null
  mean, the 95% band, the excess and the exact one-sided p come from that distribution
  (:func:`biaslab.stats.bernoulli_null`) as the shared fields ``fallacy_rate_null`` … .
* Parse failures per model; a model above 20% is flagged, as the paper excludes it.
* Reversal: for answers to the same problem in both orders, a fallacy is *blocked* when the
  reversed answer is correct; the fallacy proportions of the two orders are compared with the
  two-sided two-proportion z-test (the paper's Table 4 p-values are its two-sided normal p) and,
  since the two orders answer the same problems, with the paired exact McNemar test.
* Capability: :func:`capability_correlations` correlates the per-model FallacyRate with a score per
  model (Pearson, Spearman, exponential fit), for a table the user supplies.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from biaslab.errors import BiaslabError
from biaslab.stats import (
    CorrelationResult,
    ExponentialFitResult,
    McNemarResult,
    ProportionTestResult,
    bernoulli_null,
    exponential_fit,
    mcnemar_paired,
    null_fields,
    pearson,
    spearman,
    two_proportion_ztest,
    wilson_interval,
)
from biaslab.suites.fallacy.audit import (
    REPORT_SAMPLE_SIZE,
    REPORT_SEED,
    ReadingSample,
    sample_readings,
)

if TYPE_CHECKING:
    import pandas as pd

RESULTS_SCHEMA_VERSION = 2  # 2: every reply kind counted, a sample of answers per kind
EXCLUSION_THRESHOLD = 0.20  # the paper excludes a model above 20% parse failures
REQUIRED = ("model", "item_id", "parsed", "correct")
DECISIONS = (
    "FallacyRate counts only parsed answers: fallacies / parsed answers that do not follow "
    "logically (an unparsed answer is neither correct nor a fallacy; its rate is reported).",
    "Headline label: the robust ETR label (PyETR's does_it_follow, or the same with issue marks "
    "restored from the premises and ETR's conclusions, or ETR's own conclusion up to renaming); "
    "the paper's exact label is reported beside it.",
    "Chance level per answer shape: for an incorrect answer that is a conjunction of j ground "
    "literals, the share of ETR-predicted answers among its problem's wrong conjunctions of "
    "exactly j literals over the problem's atoms (what an answerer choosing at random among "
    "answers of that shape would hit); for other shapes (disjunctions, conditionals, quantified "
    "answers) and sizes beyond those counted, the problem's share over conjunctions of up to "
    "ETR's size (chance_by_shape counts the first kind). The null count of fallacies is "
    "Poisson-binomial over the same answers (exact, no simulation), p one-sided (more fallacies "
    "than chance).",
    "Answers whose ETR label could not be computed are left out of FallacyRate and counted.",
    "Answers to problems whose premises are jointly inconsistent (imported sets can hold them) "
    "are counted (inconsistent) and left out of FallacyRate and its chance level: everything "
    "follows from such premises, so no answer to them can be wrong.",
    "Models above 20% parse failures are flagged 'excluded' (the paper's rule) and left out of "
    "capability correlations.",
    "Reversal pairs answers to the same problem (item_problem_id) and epoch by the same model in "
    "the standard and the reversed order; blocked = fallacy in the standard order and correct in "
    "the reversed one; z-test on the fallacy proportions of all parsed answers of each order (the "
    "paper's), and the paired test: exact two-sided McNemar on the pairs parsed in both orders "
    "(fallacy in one order only), since the same problems are answered in both orders.",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelRow(_Model):
    """One model in one premise order."""

    model: str
    order: str
    n: int
    parsed: int
    unparsed: int
    parse_failure_rate: float | None
    excluded: bool
    lenient: int
    nothing_follows: int
    undecided: int = 0  # unparsed: "I can't tell", "cannot be determined", "unknown"
    hedged: int = 0  # unparsed: "might", "could", "possibly" (a possibility, not a conclusion)
    refusals: int = 0  # unparsed: a refusal to answer
    strict: int = 0  # parsed by the grammar
    no_answer: int = 0  # unparsed: no "Answer:" line
    unreadable: int = 0  # unparsed: words outside the problem or the grammar, or a guarded word
    correct: int
    accuracy: float | None  # correct / parsed
    incorrect: int
    unlabelled: int  # incorrect answers without an ETR label
    etr_exact: int  # incorrect answers equal to ETR's conclusion up to renaming
    #: incorrect answers whose chance level is that of their own shape (the rest: the problem's
    #: pooled share over conjunctions up to ETR's size)
    chance_by_shape: int = 0
    #: answers to problems with inconsistent premises (every answer follows): not in FallacyRate
    inconsistent: int = 0
    fallacies: int
    fallacy_rate: float | None
    fallacy_rate_ci: tuple[float, float] | None
    fallacy_rate_null: float | None
    fallacy_rate_null_lo: float | None
    fallacy_rate_null_hi: float | None
    fallacy_rate_excess: float | None
    fallacy_rate_null_p: float | None
    fallacies_paper: int
    fallacy_rate_paper: float | None
    fallacy_rate_paper_ci: tuple[float, float] | None
    fallacy_rate_paper_null: float | None
    fallacy_rate_paper_null_lo: float | None
    fallacy_rate_paper_null_hi: float | None
    fallacy_rate_paper_excess: float | None
    fallacy_rate_paper_null_p: float | None
    reason: str | None = None  # why FallacyRate is undefined


class ReversalRow(_Model):
    """Paper Table 4, one model: fallacies blocked by reversing the premises."""

    model: str
    pairs: int
    fallacies_standard: int
    blocked: int
    blocked_rate: float | None
    blocked_ci: tuple[float, float] | None
    fallacies_reversed: int
    test: ProportionTestResult  # the paper's: two-proportion z-test of the two orders
    #: paired: the same problem answered in both orders (both parsed); b = fallacy only in the
    #: standard order, c = only in the reversed one; exact McNemar, two-sided
    paired_pairs: int = 0
    mcnemar: McNemarResult | None = None


class AccuracySummary(_Model):
    """Paper Table 3: the spread of per-model accuracy (standard order, models not excluded)."""

    models: int
    mean: float | None
    sd: float | None
    min: float | None
    q25: float | None
    median: float | None
    q75: float | None
    max: float | None


class CapabilityModel(_Model):
    model: str
    score: float
    fallacy_rate: float | None
    accuracy: float | None


class CapabilityResults(_Model):
    """FallacyRate (and accuracy) against a capability score per model."""

    n_models: int
    models: tuple[CapabilityModel, ...]
    missing: tuple[str, ...]  # analysed models without a score
    pearson: CorrelationResult
    spearman: CorrelationResult
    exponential: ExponentialFitResult
    accuracy_pearson: CorrelationResult
    accuracy_spearman: CorrelationResult


class FallacyResults(_Model):
    schema_version: int = RESULTS_SCHEMA_VERSION
    n_rows: int
    rows: tuple[ModelRow, ...]
    reversal: tuple[ReversalRow, ...]
    accuracy_summary: AccuracySummary
    capability: CapabilityResults | None = None
    #: a seeded sample of answers of every reply kind with what each was read as (the audit)
    reading_samples: tuple[ReadingSample, ...] = ()
    decisions: tuple[str, ...] = DECISIONS


# --------------------------------------------------------------------------------------------------
# frame -> results
# --------------------------------------------------------------------------------------------------


def _normalise(frame: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise BiaslabError(f"fallacy analysis needs columns {', '.join(missing)}")
    # one order whatever produced the frame (logs list runs by run key, files by line), so the
    # same answers give the same floating-point sums
    data = frame.sort_values(
        ["model", "item_id", "epoch"] if "epoch" in frame else ["model", "item_id"], kind="stable"
    ).reset_index(drop=True)
    defaults: dict[str, Any] = {
        "item_order": "standard",
        "item_problem_id": None,
        "epoch": 1,
        "fallacy": None,
        "fallacy_paper": None,
        "etr_predicted": None,
        "etr_predicted_paper": None,
        "item_chance_share": None,
        "item_chance_share_paper": None,
        "parse_mode": None,
        "parse_status": None,
        "answer_shape": None,
        "answer_literals": None,
        "item_chance_by_size": None,
        "matches_etr": None,
        "item_inconsistent": False,
    }
    for column, value in defaults.items():
        if column not in data.columns:
            data[column] = value
    data["item_problem_id"] = data["item_problem_id"].fillna(data["item_id"])
    data["parsed"] = data["parsed"].fillna(False).astype(bool)
    data["correct"] = data["correct"].fillna(False).astype(bool) & data["parsed"]
    data["item_inconsistent"] = data["item_inconsistent"].fillna(False).astype(bool)
    shares = [_shape_share(r) for r in data.to_dict("records")]
    data["chance_robust"] = [s[0] for s in shares]
    data["chance_paper"] = [s[1] for s in shares]
    data["chance_by_shape"] = [s[2] for s in shares]
    return data


def _shape_share(record: Mapping[Any, Any]) -> tuple[float | None, float | None, bool]:
    """The chance level of one answer: the share of ETR-predicted answers among the wrong
    candidates of its own shape (a conjunction of as many literals), robust and paper label; for
    other shapes (disjunctions, conditionals, quantified answers) and sizes beyond those counted,
    the problem's pooled share over conjunctions of up to ETR's size (third value False)."""
    by_size = record.get("item_chance_by_size")
    literals = record.get("answer_literals")
    if (
        record.get("answer_shape") == "conjunction"
        and isinstance(by_size, list | tuple)
        and isinstance(literals, int | float)
        and literals == literals
    ):
        for size, wrong, robust, paper in by_size:
            if size == int(literals) and wrong:
                return robust / wrong, paper / wrong, True
    return (
        _number(record.get("item_chance_share")),
        _number(record.get("item_chance_share_paper")),
        False,
    )


def _number(value: Any) -> float | None:
    return None if value is None or value != value else float(value)


def _flag(series: pd.Series) -> pd.Series:
    """True / False / None (unknown) as object values."""
    return series.map(lambda v: None if v is None or v != v else bool(v))


def _rate_fields(
    name: str, incorrect: pd.DataFrame, label: str, share: str
) -> tuple[int, dict[str, Any], int]:
    """Fallacy count, the rate's fields (rate, CI, null fields) and the unlabelled count."""
    flags = _flag(incorrect[label])
    labelled = incorrect[flags.notna()]
    hits = flags[flags.notna()].astype(bool)
    count, nobs = int(hits.sum()), len(labelled)
    interval = wilson_interval(count, nobs)
    fields: dict[str, Any] = {f"{name}_ci": interval.ci}
    shares = labelled[share]
    known = shares.notna()
    null = None
    if nobs and known.any():
        null = bernoulli_null(hits[known].to_numpy(), shares[known].astype(float).to_numpy())
    nulls = null_fields(name, null)
    nulls[name] = interval.statistic
    fields.update(nulls)
    return count, fields, len(incorrect) - nobs


def _model_row(model: str, order: str, group: pd.DataFrame) -> ModelRow:
    parsed = group[group["parsed"]]
    incorrect = parsed[~parsed["correct"] & ~parsed["item_inconsistent"]]
    n = len(group)
    failure = (n - len(parsed)) / n if n else None
    fallacies, robust, unlabelled = _rate_fields(
        "fallacy_rate", incorrect, "fallacy", "chance_robust"
    )
    fallacies_paper, paper, _ = _rate_fields(
        "fallacy_rate_paper", incorrect, "fallacy_paper", "chance_paper"
    )
    reason = None
    if incorrect.empty:
        reason = "no incorrect parsed answers (FallacyRate is undefined)"
    elif unlabelled == len(incorrect):
        reason = "no incorrect answer has an ETR label"
    exact = _flag(incorrect["matches_etr"]).fillna(False).astype(bool)
    return ModelRow(
        model=model,
        order=order,
        n=n,
        parsed=len(parsed),
        unparsed=n - len(parsed),
        parse_failure_rate=failure,
        excluded=failure is not None and failure > EXCLUSION_THRESHOLD,
        lenient=int((parsed["parse_mode"] == "lenient").sum()),
        nothing_follows=int((parsed["parse_mode"] == "nothing").sum()),
        undecided=int((group["parse_status"] == "undecided").sum()),
        hedged=int((group["parse_status"] == "hedged").sum()),
        refusals=int((group["parse_status"] == "refusal").sum()),
        strict=int((parsed["parse_mode"] == "strict").sum()),
        no_answer=int((group["parse_status"] == "no_answer").sum()),
        unreadable=int((group["parse_status"] == "unreadable").sum()),
        correct=int(parsed["correct"].sum()),
        accuracy=float(parsed["correct"].mean()) if len(parsed) else None,
        incorrect=len(incorrect),
        unlabelled=unlabelled,
        etr_exact=int(exact.sum()),
        chance_by_shape=int(incorrect["chance_by_shape"].sum()),
        inconsistent=int(group["item_inconsistent"].sum()),
        fallacies=fallacies,
        fallacies_paper=fallacies_paper,
        reason=reason,
        **robust,
        **paper,
    )


def _reversal(data: pd.DataFrame) -> list[ReversalRow]:
    rows = []
    key = ["model", "item_problem_id", "epoch"]
    for model, group in data.groupby("model", sort=True):
        standard = group[group["item_order"] == "standard"].drop_duplicates(key)
        backward = group[group["item_order"] == "reversed"].drop_duplicates(key)
        if standard.empty or backward.empty:
            continue
        pairs = standard.merge(backward, on=key, suffixes=("_s", "_r"))
        fallacy_s = _flag(pairs["fallacy_s"]).fillna(False).astype(bool) & pairs["parsed_s"]
        blocked = fallacy_s & pairs["correct_r"]
        count_s = int(
            (_flag(standard["fallacy"]).fillna(False).astype(bool) & standard["parsed"]).sum()
        )
        count_r = int(
            (_flag(backward["fallacy"]).fillna(False).astype(bool) & backward["parsed"]).sum()
        )
        n_s, n_r = int(standard["parsed"].sum()), int(backward["parsed"].sum())
        interval = wilson_interval(int(blocked.sum()), int(fallacy_s.sum()))
        both = pairs[pairs["parsed_s"].astype(bool) & pairs["parsed_r"].astype(bool)]
        paired = None
        if len(both):
            paired = mcnemar_paired(
                _flag(both["fallacy_s"]).fillna(False).astype(bool).to_numpy(),
                _flag(both["fallacy_r"]).fillna(False).astype(bool).to_numpy(),
            )
        rows.append(
            ReversalRow(
                model=str(model),
                pairs=len(pairs),
                fallacies_standard=int(fallacy_s.sum()),
                blocked=int(blocked.sum()),
                blocked_rate=interval.statistic,
                blocked_ci=interval.ci,
                fallacies_reversed=count_r,
                test=two_proportion_ztest([count_s, count_r], [n_s, n_r]),
                paired_pairs=len(both),
                mcnemar=paired,
            )
        )
    return rows


def _accuracy_summary(rows: list[ModelRow]) -> AccuracySummary:
    import numpy as np

    values = np.array(
        [
            r.accuracy
            for r in rows
            if r.order == "standard" and not r.excluded and r.accuracy is not None
        ]
    )
    if values.size == 0:
        return AccuracySummary(
            models=0, mean=None, sd=None, min=None, q25=None, median=None, q75=None, max=None
        )
    q25, median, q75 = (float(v) for v in np.quantile(values, [0.25, 0.5, 0.75]))
    return AccuracySummary(
        models=int(values.size),
        mean=float(values.mean()),
        sd=float(values.std(ddof=1)) if values.size > 1 else None,
        min=float(values.min()),
        q25=q25,
        median=median,
        q75=q75,
        max=float(values.max()),
    )


def analyze(frame: pd.DataFrame) -> FallacyResults:
    """Every per-model table of the suite (no capability scores: see :func:`with_capability`)."""
    data = _normalise(frame)
    rows = [
        _model_row(str(model), str(order), group)
        for (model, order), group in data.groupby(["model", "item_order"], sort=True)
    ]
    return FallacyResults(
        n_rows=len(data),
        rows=tuple(rows),
        reversal=tuple(_reversal(data)),
        accuracy_summary=_accuracy_summary(rows),
        reading_samples=sample_readings(data, REPORT_SAMPLE_SIZE, REPORT_SEED),
    )


# --------------------------------------------------------------------------------------------------
# capability
# --------------------------------------------------------------------------------------------------


def read_capability(path: Path) -> dict[str, float]:
    """A CSV with columns ``model,score`` -> model -> score (one-line errors naming the line)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BiaslabError(f"cannot read {path}: {exc}") from exc
    reader = csv.DictReader(text.splitlines())
    if reader.fieldnames is None or not {"model", "score"} <= set(reader.fieldnames):
        raise BiaslabError(f"{path}: needs a header with columns model,score")
    scores: dict[str, float] = {}
    for number, row in enumerate(reader, start=2):
        model = (row.get("model") or "").strip()
        try:
            score = float(row.get("score") or "")
        except ValueError:
            raise BiaslabError(
                f"{path}:{number}: score {row.get('score')!r} is not a number"
            ) from None
        if not model:
            raise BiaslabError(f"{path}:{number}: empty model name")
        if model in scores:
            raise BiaslabError(f"{path}:{number}: model {model!r} appears twice")
        scores[model] = score
    return scores


def capability_correlations(
    results: FallacyResults, scores: Mapping[str, float]
) -> CapabilityResults:
    """Pearson, Spearman and an exponential fit of FallacyRate on the capability score, over the
    models with a score, a defined FallacyRate (standard order) and no parse-failure flag; plus
    accuracy against the score (the paper finds none)."""
    standard = {r.model: r for r in results.rows if r.order == "standard"}
    chosen = [
        CapabilityModel(
            model=m, score=float(scores[m]), fallacy_rate=r.fallacy_rate, accuracy=r.accuracy
        )
        for m, r in sorted(standard.items())
        if m in scores and not r.excluded
    ]
    rates = [(c.score, c.fallacy_rate) for c in chosen if c.fallacy_rate is not None]
    accuracies = [(c.score, c.accuracy) for c in chosen if c.accuracy is not None]
    x, y = [s for s, _ in rates], [r for _, r in rates]
    xa, ya = [s for s, _ in accuracies], [a for _, a in accuracies]
    return CapabilityResults(
        n_models=len(rates),
        models=tuple(chosen),
        missing=tuple(sorted(m for m in standard if m not in scores)),
        pearson=pearson(x, y),
        spearman=spearman(x, y),
        exponential=exponential_fit(x, y),
        accuracy_pearson=pearson(xa, ya),
        accuracy_spearman=spearman(xa, ya),
    )


def with_capability(results: FallacyResults, scores: Mapping[str, float]) -> FallacyResults:
    """The results with the capability correlations filled in (what ``--capability`` does)."""
    return results.model_copy(update={"capability": capability_correlations(results, scores)})


def apply_capability(results: FallacyResults, path: Path) -> FallacyResults:
    """``--capability FILE.csv``: the correlations of FallacyRate with the scores in the file."""
    return with_capability(results, read_capability(path))
