"""Tidy frame -> one Martingale score per setup, with its calibration (He et al., NeurIPS 2025).

Input: the rows :func:`biaslab.frames.answer_frame` makes of the suite's records (``record`` =
"belief" or "trajectory"). Pairs are consecutive steps (b_t, b_{t+1}) of one judged trajectory
with both beliefs read; an unread belief drops the pairs it ends, never interpolated. Replicate 0
gives M; replicates 0 and 1 together give M_IV. Clusters are questions (a claim asked in several
runs or epochs is one cluster). Judge-baseline rows that several logs share (one per model run with
the same judge) count once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from biaslab.errors import BiaslabError
from biaslab.seeding import seed_sequence
from biaslab.stats import (
    MartingaleResult,
    binned_means,
    brier,
    fit_line,
    martingale_iv,
    martingale_score,
    pearson,
)
from biaslab.suites.entrenchment.beliefs import error_kind
from biaslab.suites.entrenchment.factors import accuracy_link, factor_regression
from biaslab.suites.entrenchment.results import (
    EntrenchmentResults,
    FigureData,
    SetupResult,
    Trajectory,
)

ALPHA = 0.05
SETUP_KEY = (
    "source",
    "model",
    "judge",
    "domain",
    "variant",  # a domain's variant (Perspectrum: the perspective read first); often empty
    "mode",
    "system_prompt",
    "belief_construct",
    "judge_mode",
    "baseline_setting",  # a judge baseline's urn settings; empty for the model's setups
    "reasoner_settings",  # answer-changing generation settings of the model under test
    "judge_settings",  # ... and of the judge (temperature first among them)
)
TRAJECTORY = ("run_key", "item_id", "epoch")
REQUIRED = ("record", "question", "source", "belief_construct", "judge_mode", "replicate", "step")
BASELINE_MODEL = "urn-bayes (built in)"
LOGIT_CLIP = 1e-3
MAX_POINTS = 400
MAX_TRAJECTORIES = 40

DECISIONS: dict[str, str] = {
    "pairs": "per-step M pools every consecutive pair (b_t, b_t+1) of a setup; first-to-last M "
    "uses one pair (b_0, b_N) per trajectory; per-round M (debate) pairs the beliefs after "
    "each full round",
    "inference": "CR1 cluster-robust SE by question with t(G-1) (statsmodels); refused below 10 "
    "questions, warned below 30; the paper's classical t-test is in m_classical_*",
    "replicates": "M uses replicate 0; M_IV instruments each replicate's prior by the other's "
    "(stacked 2SLS). It removes the part of the noise bias (regression to the mean) due to "
    "noise that is independent across replicates and additive. It leaves (a) noise the "
    "replicates share — with error correlation r roughly a share r of the naive bias stays — "
    "and (b) the shrinkage of noise added in log-odds, which makes the judged belief a "
    "nonlinear function of the truth that no instrument undoes: a small positive bias that "
    "grows against the SE as questions are added, so M_IV over-rejects on large setups. The "
    "judge baseline measures both: m_iv_judge_baseline is its M_IV (true M 0) and "
    "judge_baseline_error_r its replicates' log-odds error correlation against the exact "
    "posterior; iv_instrument_r measures the instrument's strength, not its validity",
    "null": "M's null is the judge baseline: m_null, m_null_lo, m_null_hi (the shared null "
    "fields) are the same judge's M and CR1 CI on built-in Bayesian urn reasoning, a martingale "
    "by construction (m_judge_baseline* repeat them under the suite's own name). m_excess and "
    "m_null_p are left empty on purpose: the judge's artefact depends on trajectory shape "
    "(step count and size), so M minus the baseline is not a corrected M; read them side by "
    "side. No permutation null applies: bounded beliefs that form a martingale have no "
    "exchangeable structure (shuffling a trajectory's steps keeps its drift; shuffling across "
    "trajectories breaks the martingale itself)",
    "constructs": "belief constructs (judge, judge_logprob, self_report) and judge modes are "
    "separate setups, never pooled; trajectory mode (one call for all beliefs) is exposed to "
    "look-ahead",
    "beliefs": "every belief is P(the item's yes option), whichever option the judge was asked "
    "about (randomised per question)",
    "brier": "Brier of the first (b_0) and final (b_N) judged beliefs where ground truth exists",
    "factors": "M by setup factor: all model setups' pairs in one OLS of Δb on b_prior with, per "
    "level of each varying factor, a dummy and its interaction with b_prior (the shift of M "
    "against the factor's first level), CR1 by question with t(G-1); fitted from 3 setups; a "
    "factor confounded with the others is left out and named",
    "accuracy": "|M| against the final Brier score across model setups: Spearman and Pearson "
    "(scipy), from 3 setups with both",
}


def _judge(roles: Any) -> str:
    for part in str(roles or "").split(", "):
        if part.startswith("judge="):
            return part.removeprefix("judge=")
    return "(no judge)"


def prepare(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Belief rows (with setup keys and a trajectory id) and trajectory rows."""
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise BiaslabError(f"entrenchment analysis needs columns {', '.join(missing)}")
    data = frame.copy()
    if "roles" in data:
        data["judge"] = data["roles"].map(_judge)
    elif "judge" in data:  # beliefs read from a file: a judge named there, or none
        data["judge"] = data["judge"].fillna("").astype(str)
    else:
        data["judge"] = "(no judge)"
    for column, default in (("run_key", ""), ("item_id", ""), ("epoch", 1)):
        if column not in data:
            data[column] = default
    data["traj"] = _joined(data[list(TRAJECTORY)].astype(str))
    baseline = data["source"] == "judge_baseline"
    data.loc[baseline, "model"] = BASELINE_MODEL
    data.loc[baseline, "system_prompt"] = "none"
    setting = data["urn_setting"] if "urn_setting" in data else pd.Series("", index=data.index)
    data["urn_setting"] = setting.fillna("").astype(str)
    data["baseline_setting"] = data["urn_setting"].where(baseline, "")
    data["reasoner_settings"], data["judge_settings"] = _settings(data)
    data["variant"] = data["variant"].fillna("").astype(str) if "variant" in data else ""
    data.loc[baseline, "reasoner_settings"] = ""
    beliefs = data[data["record"] == "belief"].copy()
    trajectories = data[data["record"] == "trajectory"].copy()
    _check_beliefs(beliefs)
    beliefs["replicate"] = beliefs["replicate"].astype(int)
    beliefs["step"] = beliefs["step"].astype(int)
    beliefs["n_steps"] = beliefs["n_steps"].astype(int)
    beliefs = _dedupe_baseline(beliefs)
    return beliefs.reset_index(drop=True), trajectories.reset_index(drop=True)


def _joined(columns: pd.DataFrame) -> pd.Series:
    """Each row's values joined with "|", column by column (a row-wise join builds a Series per
    row: most of the analysis's time on a frame of a few thousand beliefs)."""
    names = list(columns.columns)
    joined = columns[names[0]]
    for name in names[1:]:
        joined = joined + "|" + columns[name]
    return joined


def _settings_label(settings: dict[str, Any]) -> str:
    return ", ".join(
        f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in settings.items()
    )


def _settings(data: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Per row, the reasoner's and the judge's answer-changing generation settings as labels
    (``temperature=0.3, max_tokens=64``; empty for the provider's defaults): the run's own per
    role (the ``generation`` column) overridden by the suite's ``reasoner_temperature`` /
    ``judge_temperature``, which every call of the suite sets when given. Runs that differ here
    are different setups, never pooled."""
    runs = data["generation"] if "generation" in data else pd.Series("{}", index=data.index)
    parsed = {text: json.loads(text) for text in runs.fillna("{}").astype(str).unique()}
    reasoner, judge = [], []
    for text, own_t, judge_t in zip(
        runs.fillna("{}").astype(str),
        _column(data, "reasoner_temperature"),
        _column(data, "judge_temperature"),
        strict=True,
    ):
        roles = parsed[text]
        model = dict(roles.get("model") or {})
        judged = dict(roles.get("judge") or {})
        if np.isfinite(own_t):
            model["temperature"] = float(own_t)
        if np.isfinite(judge_t):
            judged["temperature"] = float(judge_t)
        reasoner.append(_settings_label(dict(sorted(model.items()))))
        judge.append(_settings_label(dict(sorted(judged.items()))))
    return pd.Series(reasoner, index=data.index), pd.Series(judge, index=data.index)


def _column(data: pd.DataFrame, name: str) -> np.ndarray:
    if name not in data:
        return np.full(len(data), np.nan)
    return pd.to_numeric(data[name], errors="coerce").to_numpy(dtype=float)


def _check_beliefs(beliefs: pd.DataFrame) -> None:
    """Every belief marked parsed is a probability (the records guarantee it; a frame built or
    edited by hand may not)."""
    if "belief" not in beliefs:
        raise BiaslabError("entrenchment analysis needs the column belief")
    parsed = beliefs["parsed"].fillna(False).astype(bool)
    values = pd.to_numeric(beliefs["belief"], errors="coerce")
    bad = parsed & ~values.between(0.0, 1.0)
    if bad.any():
        first = beliefs[bad].iloc[0]
        step = pd.to_numeric(first["step"], errors="coerce")
        where = f"{first['question']} step {int(step) if np.isfinite(step) else '?'}"
        raise BiaslabError(
            f"entrenchment logs hold {int(bad.sum())} parsed beliefs that are not probabilities "
            f"in [0, 1] (first: {where}: {first['belief']})"
        )


def _dedupe_baseline(beliefs: pd.DataFrame) -> pd.DataFrame:
    """A judge baseline question judged in several runs (one per model) counts once: the run
    with the smallest run key wins, so the choice never depends on file order."""
    is_base = beliefs["source"] == "judge_baseline"
    base = beliefs[is_base].sort_values(["run_key", "item_id", "epoch", "replicate", "step"])
    key = ["judge", "judge_settings", "belief_construct", "judge_mode", "baseline_setting"]
    key += ["question", "epoch"]
    first_run = base.groupby(key, sort=True)["run_key"].transform("min")
    return pd.concat([beliefs[~is_base], base[base["run_key"] == first_run]])


# ---------------------------------------------------------------------------------------------
# Pairs
# ---------------------------------------------------------------------------------------------


class Wide:
    """One setup's replicate as a (trajectory x step) belief matrix (NaN = unread or absent)."""

    def __init__(self, rows: pd.DataFrame) -> None:
        self.trajs = sorted(rows["traj"].unique())
        index = {t: i for i, t in enumerate(self.trajs)}
        width = int(rows["n_steps"].max()) + 1 if len(rows) else 1
        self.values = np.full((len(self.trajs), width), np.nan)
        self.sides = np.zeros((len(self.trajs), width))
        self.n_steps = np.zeros(len(self.trajs), dtype=int)
        rows_i = rows["traj"].map(index).to_numpy()
        steps = rows["step"].to_numpy()
        belief = pd.to_numeric(rows["belief"], errors="coerce").to_numpy(dtype=float)
        parsed = rows["parsed"].fillna(False).astype(bool).to_numpy()
        self.values[rows_i, steps] = np.where(parsed, belief, np.nan)
        if "side" in rows:
            side = rows["side"].map({"yes": 1.0, "no": -1.0}).fillna(0.0).to_numpy()
            self.sides[rows_i, steps] = side
        self.n_steps[rows_i] = rows["n_steps"].to_numpy()
        first = rows.drop_duplicates("traj").set_index("traj")
        self.questions = np.array([first.loc[t, "question"] for t in self.trajs], dtype=object)
        outcome = pd.to_numeric(first["outcome"], errors="coerce") if "outcome" in first else None
        self.outcomes = (
            np.array([outcome.loc[t] for t in self.trajs], dtype=float)
            if outcome is not None
            else np.full(len(self.trajs), np.nan)
        )

    def pairs(self, stride: int = 1) -> dict[str, np.ndarray]:
        """(prior, posterior, question, side of the step that moved it, trajectory row) pairs."""
        width = self.values.shape[1]
        starts = np.arange(0, width - stride, stride)
        prior = self.values[:, starts]
        post = self.values[:, starts + stride]
        valid = np.isfinite(prior) & np.isfinite(post)
        valid &= (starts + stride)[None, :] <= self.n_steps[:, None]
        rows, cols = np.nonzero(valid)
        return {
            "prior": prior[rows, cols],
            "post": post[rows, cols],
            "question": self.questions[rows],
            "side": self.sides[rows, starts[cols] + stride],
            "row": rows,
            "step": starts[cols],
        }

    def ends(self) -> dict[str, np.ndarray]:
        """(b_0, b_N) per trajectory where both were read."""
        first = self.values[:, 0]
        last = self.values[np.arange(len(self.trajs)), self.n_steps]
        valid = np.isfinite(first) & np.isfinite(last) & (self.n_steps > 0)
        return {
            "prior": first[valid],
            "post": last[valid],
            "question": self.questions[valid],
            "outcome": self.outcomes[valid],
        }


def _m_fields(prefix: str, res: MartingaleResult | None) -> dict[str, Any]:
    if res is None or not res.defined:
        return {}
    lo, hi = res.ci if res.ci is not None else (None, None)
    return {
        prefix: res.statistic,
        f"{prefix}_lo": lo,
        f"{prefix}_hi": hi,
        f"{prefix}_p": res.pvalue,
    }


def _score(p: dict[str, np.ndarray], **kwargs: Any) -> MartingaleResult | None:
    if len(p["prior"]) == 0:
        return None
    return martingale_score(p["prior"], p["post"], p["question"], **kwargs)


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, LOGIT_CLIP, 1.0 - LOGIT_CLIP)
    return np.log(q / (1.0 - q))


# ---------------------------------------------------------------------------------------------
# One setup
# ---------------------------------------------------------------------------------------------


def _quality(group: pd.DataFrame) -> dict[str, Any]:
    judged = group.groupby(["traj", "replicate"])
    failed = int(judged["failed"].agg(lambda s: bool(s.fillna(False).astype(bool).any())).sum())
    parsed = group["parsed"].fillna(False).astype(bool)
    errors = group.loc[~parsed, "error"] if "error" in group else pd.Series("", index=group.index)
    kinds = errors.map(lambda e: error_kind(e if isinstance(e, str) else None)).value_counts()
    return {
        "n_judgements": len(group),
        "unparsed_rate": float((~parsed).mean()) if len(group) else None,
        "unparsed_reasons": {str(k): int(v) for k, v in sorted(kinds.items())},
        "n_failed_trajectories": failed,
        "failure_rate": failed / judged.ngroups if judged.ngroups else None,
    }


def _brier(wide: Wide) -> dict[str, Any]:
    ends = wide.ends()
    known = np.isfinite(ends["outcome"])
    if not known.any():
        return {}
    outcome = ends["outcome"][known].astype(int)
    first = brier(ends["prior"][known], outcome)
    final = brier(ends["post"][known], outcome)
    return {"brier_first": first.statistic, "brier_final": final.statistic, "n_brier": first.n}


def _logit_errors(group: pd.DataFrame) -> pd.DataFrame:
    """Judged minus exact log-odds per (trajectory, step) and replicate, where both are known."""
    if "exact" not in group:
        return pd.DataFrame()
    rows = group[group["parsed"].fillna(False).astype(bool)]
    exact = pd.to_numeric(rows["exact"], errors="coerce").to_numpy(dtype=float)
    judged = pd.to_numeric(rows["belief"], errors="coerce").to_numpy(dtype=float)
    ok = np.isfinite(exact) & np.isfinite(judged)
    errors = pd.DataFrame(
        {
            "traj": rows["traj"].to_numpy()[ok],
            "step": rows["step"].to_numpy()[ok],
            "replicate": rows["replicate"].to_numpy()[ok],
            "error": _logit(judged[ok]) - _logit(exact[ok]),
        }
    )
    return errors.pivot_table(index=["traj", "step"], columns="replicate", values="error")


def _judge_errors(group: pd.DataFrame) -> dict[str, Any]:
    """On a judge baseline (exact posterior known): the judge's log-odds RMSE (replicate 0) and
    the correlation of two replicates' log-odds errors. M_IV removes only the part of the noise
    the replicates do not share, so this correlation — not ``iv_instrument_r``, which measures
    the instrument's strength — says how much of the noise bias M_IV leaves."""
    errors = _logit_errors(group)
    if errors.empty or 0 not in errors:
        return {}
    first = errors[0].dropna().to_numpy()
    fields: dict[str, Any] = {"judge_logit_rmse": float(np.sqrt(np.mean(first**2)))}
    if 1 in errors:
        both = errors[[0, 1]].dropna()
        res = pearson(both[0].to_numpy(), both[1].to_numpy())
        fields["replicate_error_r"] = res.statistic if res.defined else None
        fields["n_error_pairs"] = len(both)
    return fields


def _iv(group: pd.DataFrame, primary: Wide) -> dict[str, Any]:
    second_rows = group[group["replicate"] == 1]
    if second_rows.empty:
        return {}
    second = Wide(second_rows)
    if second.trajs != primary.trajs:
        common = sorted(set(second.trajs) & set(primary.trajs))
        primary = Wide(group[(group["replicate"] == 0) & group["traj"].isin(common)])
        second = Wide(second_rows[second_rows["traj"].isin(common)])
    a, b = primary.values, second.values
    width = min(a.shape[1], b.shape[1])
    a, b = a[:, :width], b[:, :width]
    valid = np.isfinite(a[:, :-1]) & np.isfinite(a[:, 1:]) & np.isfinite(b[:, :-1])
    valid &= np.isfinite(b[:, 1:])
    valid &= np.arange(1, width)[None, :] <= primary.n_steps[:, None]
    rows, cols = np.nonzero(valid)
    if len(rows) < 3:
        return {"n_iv_pairs": len(rows)}
    res = martingale_iv(
        a[rows, cols], a[rows, cols + 1], b[rows, cols], b[rows, cols + 1], primary.questions[rows]
    )
    fields = {"n_iv_pairs": len(rows), **_m_fields("m_iv", res)}
    if res.defined:
        fields["iv_instrument_r"] = res.coefficients.get("instrument_r", (None,))[0]
    return fields


def _debate(wide: Wide) -> dict[str, Any]:
    pairs = wide.pairs()
    fields: dict[str, Any] = {}
    if len(pairs["prior"]) and np.any(pairs["side"] != 0):
        res = _score(pairs, covariates={"side": pairs["side"]})
        fields.update(_m_fields("m_side", res))
        if res is not None and "side" in res.coefficients:
            fields["side_effect"], _, fields["side_effect_p"] = res.coefficients["side"]
    fields.update(_m_fields("m_round", _score(wide.pairs(stride=2))))
    return fields


def _figure(wide: Wide, pairs: dict[str, np.ndarray], seed_key: Sequence[str]) -> FigureData:
    prior, delta = pairs["prior"], pairs["post"] - pairs["prior"]
    if len(prior) > MAX_POINTS:
        keep = np.sort(
            np.random.default_rng(seed_sequence(0, "figure", *seed_key)).choice(
                len(prior), MAX_POINTS, replace=False
            )
        )
        prior, delta = prior[keep], delta[keep]
    bins = binned_means(pairs["prior"], pairs["post"], pairs["question"]) if len(prior) else None
    line = fit_line(pairs["prior"], pairs["post"], pairs["question"]) if len(prior) else None
    trajectories = [
        Trajectory(
            beliefs=tuple(
                None if not np.isfinite(v) else float(v) for v in wide.values[r, : n + 1]
            ),
            outcome=None if not np.isfinite(wide.outcomes[r]) else int(wide.outcomes[r]),
        )
        for r, n in enumerate(wide.n_steps[:MAX_TRAJECTORIES])
    ]
    return FigureData(
        points_prior=tuple(float(v) for v in prior),
        points_delta=tuple(float(v) for v in delta),
        bin_centres=bins.centres if bins else (),
        bin_means=bins.means if bins else (),
        line_x=line.x if line else (),
        line_y=line.y if line else (),
        line_lo=line.lo if line else (),
        line_hi=line.hi if line else (),
        trajectories=tuple(trajectories),
        step_counts={int(k): int((wide.n_steps == k).sum()) for k in np.unique(wide.n_steps)},
    )


def setup_result(key: tuple[str, ...], group: pd.DataFrame, traj_rows: pd.DataFrame) -> SetupResult:
    keyed = dict(zip(SETUP_KEY, key, strict=True))
    primary = Wide(group[group["replicate"] == 0])
    pairs = primary.pairs()
    main = _score(pairs)
    fields: dict[str, Any] = {
        **keyed,
        "look_ahead": keyed["judge_mode"] == "trajectory",
        "n_questions": len(set(primary.questions)),
        "n_trajectories": len(primary.trajs),
        "n_pairs": len(pairs["prior"]),
        "mean_steps": float(primary.n_steps.mean()) if len(primary.trajs) else None,
        "m": None,
        "m_lo": None,
        "m_hi": None,
        "m_p": None,
        "se_type": "none",  # until a standard error is computed
    }
    notes: list[str] = []
    if main is not None:
        notes.extend(main.notes)
        if main.ci_reason:
            notes.append(main.ci_reason)
        if not main.defined:
            notes.append(f"M undefined: {main.reason}")
        fields.update(_m_fields("m", main))
        if main.se is not None:
            fields["se_type"] = main.se_type
        fields.update(
            m_se=main.se,
            m_mde=main.mde,
            m_intercept=main.intercept,
            m_r2=main.r2,
            share_zero_updates=main.share_zero_updates,
            m_classical_p=main.classical_p,
        )
        if main.classical_ci is not None:
            fields["m_classical_lo"], fields["m_classical_hi"] = main.classical_ci
        bins = binned_means(pairs["prior"], pairs["post"], pairs["question"])
        fields["m_bins_p"] = bins.wald_p if bins else None
    else:
        notes.append("no pair of consecutive beliefs was read")
    fields.update(_m_fields("m_first_last", _score(primary.ends())))
    fields.update(_iv(group, primary))
    if keyed["mode"] == "debate":
        fields.update(_debate(primary))
    fields.update(_brier(primary))
    fields.update(_quality(group))
    if keyed["source"] == "judge_baseline":
        fields.update(_judge_errors(group))
    failures = traj_rows["failure"].notna() if "failure" in traj_rows else pd.Series(dtype=bool)
    fields["n_reasoner_failures"] = int(failures.sum())
    fields["n_capped"] = (
        int(traj_rows["capped"].fillna(False).astype(bool).sum()) if len(traj_rows) else 0
    )
    if fields["look_ahead"]:
        notes.append("trajectory-mode judge: every belief was given after reading all steps")
    return SetupResult(**fields, notes=tuple(notes), figure=_figure(primary, pairs, key))


def _shape_mismatch(setup: SetupResult, base: SetupResult) -> str | None:
    """Why a baseline cannot stand beside a model's M: its trajectories are longer than the ones
    the model's were merged down to (logs written before the baseline was capped the same way).
    The judge's artefact grows with the number of steps, so such a baseline is no null for M."""
    model_steps = max(setup.figure.step_counts, default=0)
    base_steps = max(base.figure.step_counts, default=0)
    if setup.n_capped == 0 or base_steps <= model_steps:
        return None
    return (
        f"the baseline has {base_steps} steps per trajectory, the model's were merged to at most "
        f"{model_steps}"
    )


def _with_baseline(
    setup: SetupResult,
    settings: Sequence[str],
    baselines: dict[tuple[str, str, str, str, str], SetupResult],
) -> SetupResult:
    """The model setup with the judge baseline made by the same judge, construct and judge mode
    under the urn settings its runs used (``settings``); none when its runs used several."""
    if setup.source != "model":
        return setup
    if len(settings) > 1:
        note = "its runs used judge baselines of different urn settings: none is shown beside M"
        return setup.model_copy(update={"notes": (*setup.notes, note)})
    setting = settings[0] if settings else ""
    key = (setup.judge, setup.judge_settings, setup.belief_construct, setup.judge_mode, setting)
    base = baselines.get(key)
    if base is None or base.m is None:
        return setup
    refused = _shape_mismatch(setup, base)
    if refused is not None:
        return setup.model_copy(
            update={
                "baseline_setting": base.baseline_setting,
                "judge_baseline_refused": refused,
                "notes": (*setup.notes, f"judge baseline not shown: {refused}"),
            }
        )
    return setup.model_copy(
        update={
            "baseline_setting": base.baseline_setting,
            "m_judge_baseline": base.m,
            "m_judge_baseline_lo": base.m_lo,
            "m_judge_baseline_hi": base.m_hi,
            "n_judge_baseline_questions": base.n_questions,
            "m_null": base.m,
            "m_null_lo": base.m_lo,
            "m_null_hi": base.m_hi,
            "m_iv_judge_baseline": base.m_iv,
            "m_iv_judge_baseline_lo": base.m_iv_lo,
            "m_iv_judge_baseline_hi": base.m_iv_hi,
            "judge_baseline_error_r": base.replicate_error_r,
        }
    )


def analyze(frame: pd.DataFrame) -> EntrenchmentResults:
    """Every setup's M, its calibration and its judge baseline."""
    beliefs, trajectories = prepare(frame)
    if beliefs.empty:
        raise BiaslabError("the entrenchment logs contain no judged beliefs")
    setups = []
    settings: list[list[str]] = []
    traj_key = ["source", "model", "domain", "variant", "mode", "system_prompt", "baseline_setting"]
    traj_key += ["reasoner_settings", "judge_settings"]
    for key, group in beliefs.groupby(list(SETUP_KEY), sort=True):
        keys = tuple(str(k) for k in key)
        keyed = dict(zip(SETUP_KEY, keys, strict=True))
        mask = np.ones(len(trajectories), dtype=bool)
        for column in traj_key:
            mask &= (trajectories[column].astype(str) == keyed[column]).to_numpy()
        mask &= (trajectories["judge"] == keyed["judge"]).to_numpy()
        setups.append(setup_result(keys, group, trajectories[mask]))
        settings.append(sorted(group["urn_setting"].unique()))
    baselines = {
        (s.judge, s.judge_settings, s.belief_construct, s.judge_mode, s.baseline_setting): s
        for s in setups
        if s.source == "judge_baseline"
    }
    setups = [_with_baseline(s, u, baselines) for s, u in zip(setups, settings, strict=True)]
    decisions = dict(DECISIONS)
    model_groups = [
        (dict(zip(SETUP_KEY, (str(k) for k in key), strict=True)), group)
        for key, group in beliefs[beliefs["source"] == "model"].groupby(list(SETUP_KEY), sort=True)
    ]
    factors = factor_regression(
        [(keys, Wide(group[group["replicate"] == 0]).pairs()) for keys, group in model_groups]
    )
    m_brier = [
        (abs(s.m), s.brier_final)
        for s in setups
        if s.source == "model" and s.m is not None and s.brier_final is not None
    ]
    accuracy = accuracy_link([m for m, _ in m_brier], [b for _, b in m_brier])
    imported = frame.attrs.get("import")
    if imported:
        decisions["import"] = str(imported)
        setups = [_no_baseline(s) for s in setups]
    return EntrenchmentResults(
        alpha=ALPHA,
        n_beliefs=len(beliefs),
        n_trajectories=len(trajectories),
        setups=tuple(setups),
        decisions=decisions,
        factors=factors,
        accuracy=accuracy,
    )


def _no_baseline(setup: SetupResult) -> SetupResult:
    """Beliefs read from a file: the judge baseline is n/a, and says why."""
    from biaslab.suites.entrenchment.external import NO_BASELINE

    return setup.model_copy(update={"judge_baseline_refused": NO_BASELINE})
