"""Across setups: how M depends on the experimental factors, and how |M| relates to accuracy.

**Factors.** The paper compares M across domains, reasoning modes and system prompts setup by
setup. Here all model setups' consecutive pairs are pooled in one OLS (statsmodels, through
:func:`biaslab.stats.martingale_score`): Δb on b_prior, plus, for every level of a factor that
varies (against the factor's first level in sorted order), a dummy and the dummy × b_prior
interaction. The interaction is the level's shift of M with everything else held fixed, with a
CR1 standard error clustered by question and t(G − 1): a question asked in several setups is one
cluster, so its setups are not counted as independent evidence. A factor confounded with the
others (e.g. every domain run by a different model) is left out and named, never guessed apart.

**Accuracy.** The paper's accuracy figure relates |M| to the Brier score of the final belief
across setups; here the Spearman and Pearson correlations (scipy) over the model setups that have
both, with their p-values, beside the table of values.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy import stats as sps

from biaslab.stats import martingale_score, pearson, spearman

#: the setup key's experimental factors (source and the baseline's urn settings are not)
FACTORS = ("model", "judge", "domain", "variant", "mode", "system_prompt", "belief_construct",
           "judge_mode", "reasoner_settings", "judge_settings")  # fmt: skip
MIN_SETUPS = 3
ALPHA = 0.05


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FactorEffect(_Model):
    """The shift of M at ``level`` of ``factor`` against ``reference``, with its CR1 CI."""

    factor: str
    level: str
    reference: str
    shift: float | None
    lo: float | None
    hi: float | None
    p: float | None


class FactorRegression(_Model):
    """The pooled regression of M on the setup factors, or why it was not fitted (``note``)."""

    n_setups: int
    n_pairs: int = 0
    n_questions: int = 0
    m_reference: float | None = None
    effects: tuple[FactorEffect, ...] = ()
    left_out: tuple[str, ...] = ()
    note: str = ""


class AccuracyLink(_Model):
    """|M| against the final belief's Brier score across setups."""

    n_setups: int
    spearman_r: float | None = None
    spearman_p: float | None = None
    pearson_r: float | None = None
    pearson_p: float | None = None
    note: str = ""


SetupPairs = tuple[dict[str, str], dict[str, np.ndarray]]  # the setup's factors, its pairs


def _levels(setups: Sequence[SetupPairs]) -> dict[str, list[str]]:
    """Each factor that varies across the setups, with its levels (sorted; the first is the
    reference)."""
    out = {}
    for factor in FACTORS:
        levels = sorted({keys[factor] for keys, _ in setups})
        if len(levels) > 1:
            out[factor] = levels
    return out


def _columns(
    factors: dict[str, list[str]], labels: dict[str, np.ndarray], prior: np.ndarray
) -> dict[str, np.ndarray]:
    columns: dict[str, np.ndarray] = {}
    for factor, levels in factors.items():
        for level in levels[1:]:
            dummy = (labels[factor] == level).astype(float)
            columns[f"{factor}={level}"] = dummy
            columns[f"{factor}={level}:slope"] = dummy * prior
    return columns


def _full_rank(
    factors: dict[str, list[str]], labels: dict[str, np.ndarray], prior: np.ndarray
) -> tuple[dict[str, list[str]], list[str]]:
    """Drop factors (last first) until the design has full column rank."""
    kept, dropped = dict(factors), []
    while kept:
        design = np.column_stack(
            [np.ones_like(prior), prior, *_columns(kept, labels, prior).values()]
        )
        if np.linalg.matrix_rank(design) == design.shape[1]:
            break
        last = list(kept)[-1]
        dropped.append(last)
        del kept[last]
    return kept, dropped


def factor_regression(setups: Sequence[SetupPairs]) -> FactorRegression:
    """M's shifts by setup factor (see the module doc); fitted from :data:`MIN_SETUPS` setups
    that differ in at least one factor."""
    used = [(keys, pairs) for keys, pairs in setups if len(pairs["prior"])]
    factors = _levels(used)
    if len(used) < MIN_SETUPS or not factors:
        return FactorRegression(
            n_setups=len(used),
            note=f"needs at least {MIN_SETUPS} setups with beliefs that differ in a factor",
        )
    prior = np.concatenate([p["prior"] for _, p in used])
    post = np.concatenate([p["post"] for _, p in used])
    questions = np.concatenate([p["question"] for _, p in used])
    labels = {
        f: np.concatenate([np.full(len(p["prior"]), k[f], dtype=object) for k, p in used])
        for f in factors
    }
    kept, dropped = _full_rank(factors, labels, prior)
    left_out = tuple(f"{f} (confounded with the other factors)" for f in dropped)
    if not kept:
        return FactorRegression(n_setups=len(used), left_out=left_out, note="no factor separable")
    columns = {name: list(values) for name, values in _columns(kept, labels, prior).items()}
    res = martingale_score(prior, post, questions, covariates=columns)
    base = FactorRegression(
        n_setups=len(used),
        n_pairs=len(prior),
        n_questions=res.n_clusters,
        m_reference=res.statistic,
        left_out=left_out,
    )
    if res.df is None:
        why = res.ci_reason or res.reason or "no standard error"
        return base.model_copy(update={"note": f"no CR1 inference: {why}"})
    quantile = float(sps.t.ppf(1 - ALPHA / 2, res.df))
    effects = []
    for factor, levels in kept.items():
        for level in levels[1:]:
            shift, se, p = res.coefficients[f"{factor}={level}:slope"]
            half = quantile * se if se is not None else None
            lo, hi = (None, None) if shift is None or half is None else (shift - half, shift + half)
            effects.append(
                FactorEffect(
                    factor=factor, level=level, reference=levels[0], shift=shift, lo=lo, hi=hi, p=p
                )
            )
    return base.model_copy(update={"effects": tuple(effects)})


def accuracy_link(abs_m: Sequence[float], brier: Sequence[float]) -> AccuracyLink:
    """Spearman and Pearson correlation of |M| with the final Brier score across setups."""
    n = len(abs_m)
    if n < MIN_SETUPS:
        return AccuracyLink(n_setups=n, note=f"needs at least {MIN_SETUPS} setups with M and Brier")
    rank, linear = spearman(abs_m, brier), pearson(abs_m, brier)
    return AccuracyLink(
        n_setups=n,
        spearman_r=rank.statistic,
        spearman_p=rank.pvalue,
        pearson_r=linear.statistic,
        pearson_p=linear.pvalue,
        note="" if rank.defined else str(rank.reason),
    )
