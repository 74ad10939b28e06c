"""Confidence metrics (paper appendix G): gold-answer confidence vs distance, Brier, off-path
intrusion and the signal ratio."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np
import pandas as pd

from biaslab import stats
from biaslab.seeding import seed_sequence
from biaslab.stats.permutation import NULL_SUFFIXES
from biaslab.suites.defeasible.conditions import (
    ALL_DIFFICULTIES,
    BAND_BOOT,
    NO_EFFECT,
    NO_LOGPROBS,
    OFF,
    ON,
    SHORT_CHAIN_MAX,
)
from biaslab.suites.defeasible.metrics import Out
from biaslab.suites.defeasible.nulls import distance_nulls, signal_ratio_null
from biaslab.suites.defeasible.results import ConfidenceCell, DistancePoint

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
    df["t0_gold_conf"] = t0
    df["delta_gold_conf"] = df["gold_conf"] - t0
    return df


def _mean_or_none(values: pd.Series) -> float | None:
    values = values.dropna()
    return float(values.mean()) if len(values) else None


def _off_path_block(updates: pd.DataFrame, out: Out) -> None:
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


def _spearman(rows: pd.DataFrame, key: str, out: Out) -> None:
    rows = rows[rows["distance"].notna() & rows["gold_conf"].notna()]
    res = stats.spearman(rows["distance"], rows["gold_conf"])
    out.stat(key, res)
    out.put(key, res.statistic, res.reason)
    out.put(f"{key}_p", res.pvalue, res.reason or "no p-value")


def _slope(on: pd.DataFrame, out: Out) -> None:
    """per_hop_slope: OLS of Δgold_conf on distance with conversation-clustered SEs.

    The paper fits a mixed model (random intercept per conversation). Both were measured on 20k
    answers of the reference agents (``bench/bench_analyze_logs.py``) and on the tests' cases:
    where conversations share no baseline (the calibrated agent; the hand-built frames) the
    mixed model's intercept variance sits on the boundary and both give the same slope (to 1e-4),
    while each MixedLM fit took 0.4-3.5 s and warned (boundary, singular covariance, no
    convergence); where they do (sticky p=0.9, intercept variance 0.05-0.08) the slopes differ by
    up to half a standard error. The clustered SEs were 0.9-2.9 times the mixed model's (one
    p-value moved from 0.02 to 0.12): they hold under any within-conversation correlation, where
    the random intercept assumes one shared shift per conversation, so the slope keeps the
    weaker assumption and costs milliseconds (``decisions``: "confidence slope").
    """
    rows = on[on["distance"].notna() & on["delta_gold_conf"].notna()]
    res = stats.ols_slope(rows["delta_gold_conf"], rows["distance"], rows["conversation"])
    out.stat("per_hop_slope", res)
    out.put("per_hop_slope", res.statistic, res.reason)
    out.put("per_hop_slope_p", res.pvalue, res.reason or res.ci_reason)
    out.put("per_hop_slope_ci", res.ci, res.reason or res.ci_reason)


def _brier(on: pd.DataFrame, out: Out) -> None:
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


def _signal_ratio(on: pd.DataFrame, off: pd.DataFrame, out: Out) -> None:
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


#: confidence metrics reported beside a permutation null (see nulls.py)
NULL_METRICS = ("signal_ratio", "confidence_slope", "spearman_on_path")

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
    "confidence_slope",
    *(f"{m}{suffix}" for m in NULL_METRICS for suffix in NULL_SUFFIXES),
)


def _confidence_nulls(
    updates: pd.DataFrame, on: pd.DataFrame, key: tuple[str, ...], seed: int, n_perm: int, out: Out
) -> None:
    """Signal ratio and the confidence-vs-distance statistics beside their nulls."""
    out.null("signal_ratio", signal_ratio_null(updates, key, seed, n_perm))
    found = distance_nulls(on, key, seed, n_perm)
    slope = found["confidence_slope"]
    out.put("confidence_slope", slope.statistic, slope.reason)
    for name, result in found.items():
        out.null(name, result)


def _confidence_cell(
    ent: pd.DataFrame, key: tuple[str, ...], seed: int, n_perm: int
) -> ConfidenceCell:
    updates = ent[ent["kind"] == "entailment"]
    on = updates[updates["path"] == ON]
    off = updates[updates["path"] == OFF]
    with_probs = updates[updates["gold_conf"].notna()]
    out = Out()
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
        _confidence_nulls(updates, on, key, seed, n_perm, out)
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


def confidence_results(
    ent: pd.DataFrame, seed: int, n_perm: int
) -> dict[str, dict[str, dict[str, ConfidenceCell]]]:
    """Per model x topology x difficulty, plus an 'all' cell pooling difficulties when several."""
    df = confidence_columns(ent)
    result: dict[str, dict[str, dict[str, ConfidenceCell]]] = {}
    for (model, topology), rows in df.groupby(["model", "item_topology"], sort=True):
        cells: dict[str, ConfidenceCell] = {}
        for difficulty, part in rows.groupby("item_difficulty", sort=True):
            cells[str(difficulty)] = _confidence_cell(
                part, (str(model), str(topology), str(difficulty)), seed, n_perm
            )
        if len(cells) > 1:
            cells[ALL_DIFFICULTIES] = _confidence_cell(
                rows, (str(model), str(topology), ALL_DIFFICULTIES), seed, n_perm
            )
        result.setdefault(str(model), {})[str(topology)] = cells
    return result
