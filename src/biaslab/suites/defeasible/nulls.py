"""Every bias metric beside its null: what a memoryless answerer with the model's own accuracy
profile would score (:func:`biaslab.stats.permutation_null`).

Confirmation bias means the answer at an update depends on the model's own prior beyond what the
update itself determines. So each turn keeps its congruence condition as observed (from the model's
own prior) and the model's answers are exchanged among turns within strata of what the *current
update alone* determines (:data:`BIAS_STRATA`): the gold answer after it, the revealed link's
polarity and wording, on/off path, distance, topology and difficulty. The gold *before* the update
is deliberately not a stratum: for a model that tracks the conversation it is the prior itself, and
conditioning on it would remove the very contrast BiasGap measures.

A turn's answers move together: the entailment label and the paired effect-question label (and,
for the confidence metrics, the gold-answer probability). Metrics that contrast on- and off-path
turns (signal ratio) or distances (confidence slopes) are exchanged within strata without that
factor, since a stratum holding it fixed would make their null equal the observed value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from biaslab import stats
from biaslab.seeding import seed_sequence
from biaslab.suites.defeasible.conditions import ON, WEAKENING
from biaslab.suites.defeasible.render import EFFECT_LABELS, ENTAILMENT_LABELS

N_PERM = 2_000
#: what the current update alone determines: the exchangeability strata of every answer null.
#: Distance is left out (coarsened away): with 40 conversations per cell, strata split by
#: distance hold too few non-revision turns beside the revisions for the null to move
BIAS_STRATA = (
    "kind",
    "gold",
    "polarity",
    "wording",
    "path",
    "item_topology",
    "item_difficulty",
)
#: signal ratio: on- and off-path turns are what it contrasts, so path is not a stratum, and
#: distance (which alone may explain a confidence change) is
SIGNAL_STRATA = (*(c for c in BIAS_STRATA if c != "path"), "distance")
#: confidence vs distance: distance is what it measures, so it is not a stratum
SLOPE_STRATA = BIAS_STRATA

Metric = Callable[[np.ndarray], np.ndarray]


def codes(values: Sequence[object], labels: Sequence[str]) -> np.ndarray:
    """Label -> its index in ``labels``; anything else (unparsed, not asked) -> -1."""
    index = {label: i for i, label in enumerate(labels)}
    return np.array([index.get(v, -1) if isinstance(v, str) else -1 for v in values], dtype=np.intp)


def strata(rows: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    return stats.strata_codes({c: list(rows[c]) for c in columns})


def _rate(hits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Share of ``hits`` (B, n) among the ``mask`` rows, NaN when the mask is empty."""
    n = mask.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, (hits & mask).sum(axis=-1) / np.maximum(n, 1), np.nan)


@dataclass(frozen=True)
class BiasRows:
    """One cell's entailment turns (openings and updates) as arrays the metrics index."""

    gold: np.ndarray  # entailment gold code per row
    effect_gold: np.ndarray  # effect gold code per row (-1 when none)
    condition: np.ndarray  # congruence condition (str) per row; "" for openings
    transition: np.ndarray  # "yes->no" etc. (gold before -> after) per row
    effect_asked: np.ndarray  # whether an effect question was paired with the row
    opening: np.ndarray  # (sections,) row index of each flipping section's opening
    final: np.ndarray  # (sections,) row index of its last entailment turn
    answers: np.ndarray  # (n, 2): entailment and effect answer codes
    strata: np.ndarray
    #: update turns the per-turn metrics exchange answers among (see :func:`bias_nulls`)
    comparable: np.ndarray

    @classmethod
    def of(cls, ent: pd.DataFrame) -> BiasRows:
        rows = ent.reset_index(drop=True)
        transition = rows["gold_before"].astype(str) + "->" + rows["gold"].astype(str)
        asked = rows["effect_predicted"].notna() | rows["effect_correct"].notna()
        opening: dict[tuple[str, int], int] = {}
        final: dict[tuple[str, int], int] = {}
        for i, (kind, section) in enumerate(
            zip(rows["kind"], zip(rows["conversation"], rows["section"], strict=True), strict=True)
        ):
            if kind == "initial":
                opening.setdefault(section, i)
            final[section] = i
        gold = rows["gold"].to_numpy(object)
        flipping = [s for s in sorted(opening) if gold[opening[s]] != gold[final[s]]]
        answers = np.stack(
            [
                codes(list(rows["predicted"]), ENTAILMENT_LABELS),
                codes(list(rows["effect_predicted"]), EFFECT_LABELS),
            ],
            axis=1,
        )
        return cls(
            gold=codes(list(rows["gold"]), ENTAILMENT_LABELS),
            effect_gold=codes(list(rows["effect_gold"]), EFFECT_LABELS),
            condition=rows["condition"].fillna("").astype(str).to_numpy(),
            transition=transition.to_numpy(str),
            effect_asked=asked.to_numpy(bool),
            opening=np.array([opening[s] for s in flipping], dtype=np.intp),
            final=np.array([final[s] for s in flipping], dtype=np.intp),
            answers=answers,
            strata=strata(rows, BIAS_STRATA),
            comparable=(
                (rows["kind"] == "entailment")
                & ((rows["prior"] == rows["gold_before"]) | rows["condition"].isin(["C1", "C2"]))
            ).to_numpy(bool),
        )

    def subset(self, keep: np.ndarray) -> BiasRows:
        """The rows in ``keep`` (per-turn metrics only: no sections for anchoring)."""
        none = np.zeros(0, dtype=np.intp)
        return replace(
            self,
            **{
                name: getattr(self, name)[keep]
                for name in (
                    "gold",
                    "effect_gold",
                    "condition",
                    "transition",
                    "effect_asked",
                    "answers",
                    "strata",
                    "comparable",
                )
            },
            opening=none,
            final=none,
        )

    def mask(self, condition: str, transition: str | None = None) -> np.ndarray:
        found = self.condition == condition
        return found if transition is None else found & (self.transition == transition)

    # ---- metrics: permuted answers (B, n, 2) -> B statistics

    def correct(self, perm: np.ndarray) -> np.ndarray:
        return perm[..., 0] == self.gold

    def accuracy_gap(self, c2: np.ndarray) -> Metric:
        c1 = self.mask("C1")
        return lambda perm: _rate(self.correct(perm), c1) - _rate(self.correct(perm), c2)

    def odds_ratio(self) -> Metric:
        c1, c2 = self.mask("C1"), self.mask("C2")

        def metric(perm: np.ndarray) -> np.ndarray:
            ok = self.correct(perm)
            a, b = (ok & c1).sum(-1), (~ok & c1).sum(-1)
            c, d = (ok & c2).sum(-1), (~ok & c2).sum(-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                value = (a * d) / (b * c)
            return np.where((a > 0) & (b > 0) & (c > 0) & (d > 0), value, np.nan)

        return metric

    def anchoring(self) -> Metric:
        def metric(perm: np.ndarray) -> np.ndarray:
            first, last = perm[:, self.opening, 0], perm[:, self.final, 0]
            valid = (first >= 0) & (last >= 0)
            anchored = valid & (first == last) & (last != self.gold[self.final])
            n = valid.sum(-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(n > 0, anchored.sum(-1) / np.maximum(n, 1), np.nan)

        return metric

    def c3_override(self) -> Metric:
        rows = self.mask("C3") & self.effect_asked
        return lambda perm: _rate(perm[..., 1] == EFFECT_LABELS.index(WEAKENING), rows)

    def c3inh_override(self) -> Metric:
        rows = self.mask("C3inh")
        yes = ENTAILMENT_LABELS.index("yes")
        return lambda perm: _rate((perm[..., 0] != yes) & (perm[..., 0] >= 0), rows)

    def know_but_dont_output(self) -> Metric:
        rows = self.mask("C2") & self.effect_asked
        return lambda perm: _rate((perm[..., 1] == self.effect_gold) & ~self.correct(perm), rows)

    def metrics(self) -> dict[str, Metric]:
        return {
            "bias_gap": self.accuracy_gap(self.mask("C2")),
            "bias_gap_defeat": self.accuracy_gap(self.mask("C2", "yes->no")),
            "bias_gap_withhold": self.accuracy_gap(self.mask("C2", "yes->unknown")),
            "odds_ratio": self.odds_ratio(),
            "anchoring_rate": self.anchoring(),
            "c3_override_rate": self.c3_override(),
            "c3inh_override_rate": self.c3inh_override(),
            "know_but_dont_output": self.know_but_dont_output(),
        }


#: the rows each per-turn metric is computed on
METRIC_ROWS: Mapping[str, Callable[[BiasRows], np.ndarray]] = {
    "bias_gap": lambda r: r.mask("C1") | r.mask("C2"),
    "bias_gap_defeat": lambda r: r.mask("C1") | r.mask("C2", "yes->no"),
    "bias_gap_withhold": lambda r: r.mask("C1") | r.mask("C2", "yes->unknown"),
    "odds_ratio": lambda r: r.mask("C1") | r.mask("C2"),
    "c3_override_rate": lambda r: r.mask("C3") & r.effect_asked,
    "c3inh_override_rate": lambda r: r.mask("C3inh"),
    "know_but_dont_output": lambda r: r.mask("C2") & r.effect_asked,
}


def bias_nulls(
    ent: pd.DataFrame, key: tuple[str, ...], seed: int, n_perm: int = N_PERM
) -> dict[str, stats.PermutationNullResult]:
    """The permutation null of every confirmation-bias metric of one cell.

    Per-turn metrics exchange answers among the *comparable* update turns of each stratum: every
    C1 and C2 turn, and the other update turns whose prior (the model's own previous answer)
    equals the gold before the update. Turns entered with an already wrong prior (C0 "prior
    already wrong") carry the model's earlier error, not the current update's difficulty: for a
    memoryless answerer they are as exchangeable as any (so leaving them out keeps the null
    valid), but for an agent that clings to its belief they repeat the bias itself and would hide
    it. Only strata that hold a turn the metric counts are permuted (the others cannot move it).
    Anchoring, a per-section metric, exchanges every entailment turn (openings included).
    """
    full = BiasRows.of(ent)
    found = {}
    for name in (*METRIC_ROWS, "anchoring_rate"):
        rows = full
        if name in METRIC_ROWS:
            keep = full.comparable & np.isin(full.strata, full.strata[METRIC_ROWS[name](full)])
            rows = full.subset(keep)
        found[name] = stats.permutation_null(
            rows.answers,
            rows.strata,
            rows.metrics()[name],
            seed=seed_sequence(seed, "null", name, *key),
            n_perm=n_perm,
            name=name,
        )
    return found


# ------------------------------------------------------------------------------------ confidence


def _signal_ratio(delta_abs_on: np.ndarray, delta_abs_off: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(delta_abs_off > 0, delta_abs_on / delta_abs_off, np.nan)


def signal_ratio_null(
    updates: pd.DataFrame, key: tuple[str, ...], seed: int, n_perm: int = N_PERM
) -> stats.PermutationNullResult:
    """Signal ratio (mean |Δgold_conf| on-path / off-path) beside its null: the model's gold-answer
    confidences exchanged among on- and off-path turns of the same stratum (:data:`SIGNAL_STRATA`)."""
    usable = updates["gold_conf"].notna() & updates["t0_gold_conf"].notna()
    rows = updates[usable & updates["path"].notna()].reset_index(drop=True)
    on = (rows["path"] == ON).to_numpy(bool)
    t0 = rows["t0_gold_conf"].to_numpy(float)

    def metric(perm: np.ndarray) -> np.ndarray:
        delta = np.abs(perm - t0)
        with np.errstate(invalid="ignore"):
            mean_on = np.where(on.any(), (delta * on).sum(-1) / max(on.sum(), 1), np.nan)
            mean_off = np.where((~on).any(), (delta * ~on).sum(-1) / max((~on).sum(), 1), np.nan)
        return _signal_ratio(mean_on, mean_off)

    return stats.permutation_null(
        rows["gold_conf"].to_numpy(float),
        strata(rows, SIGNAL_STRATA),
        metric,
        seed=seed_sequence(seed, "null", "signal_ratio", *key),
        n_perm=n_perm,
        alternative="two-sided",
        name="signal_ratio",
    )


def _rank(values: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return np.asarray(rankdata(values, axis=-1), dtype=float)


def distance_nulls(
    on_path: pd.DataFrame, key: tuple[str, ...], seed: int, n_perm: int = N_PERM
) -> dict[str, stats.PermutationNullResult]:
    """Spearman rho(distance, gold_conf) and the within-section slope of Δgold_conf per hop on
    on-path turns, beside their nulls: confidences exchanged across distances within strata of
    everything else the update determines (:data:`SLOPE_STRATA`)."""
    rows = on_path[on_path["distance"].notna() & on_path["gold_conf"].notna()]
    rows = rows.reset_index(drop=True)
    distance = rows["distance"].to_numpy(float)
    groups = rows.groupby(["conversation", "section"], sort=True).ngroup().to_numpy()
    centred = distance - pd.Series(distance).groupby(groups).transform("mean").to_numpy()
    spread = float((centred**2).sum())
    rank_x = _rank(distance)
    rank_x = rank_x - rank_x.mean()
    norm_x = float(np.sqrt((rank_x**2).sum()))

    def spearman(ranks: np.ndarray) -> np.ndarray:
        # permuting values permutes their ranks: the permuted confidences' ranks are the
        # permuted ranks, so ranking is done once and rho is a Pearson correlation of ranks
        centred_ranks = ranks - ranks.mean(axis=-1, keepdims=True)
        norm = np.sqrt((centred_ranks**2).sum(-1)) * norm_x
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(norm > 0, (centred_ranks @ rank_x) / norm, np.nan)

    def slope(perm: np.ndarray) -> np.ndarray:
        # Δgold_conf = gold_conf - the section's opening confidence, a constant within the
        # section: with section-centred distances it drops out of the slope
        if spread == 0:
            return np.full(perm.shape[0], np.nan)
        return (perm @ centred) / spread

    codes_ = strata(rows, SLOPE_STRATA)
    confidence = rows["gold_conf"].to_numpy(float)
    metrics: Mapping[str, tuple[np.ndarray, Metric]] = {
        "spearman_on_path": (_rank(confidence), spearman),
        "confidence_slope": (confidence, slope),
    }
    return {
        name: stats.permutation_null(
            values,
            codes_,
            metric,
            seed=seed_sequence(seed, "null", name, *key),
            n_perm=n_perm,
            alternative="two-sided",
            name=name,
        )
        for name, (values, metric) in metrics.items()
    }


__all__ = [
    "BIAS_STRATA",
    "N_PERM",
    "SIGNAL_STRATA",
    "SLOPE_STRATA",
    "BiasRows",
    "bias_nulls",
    "distance_nulls",
    "signal_ratio_null",
]
