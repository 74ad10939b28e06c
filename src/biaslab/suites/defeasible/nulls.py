"""Every bias metric beside its null: what a memoryless answerer with the model's own accuracy
profile would score (:func:`biaslab.stats.permutation_null`).

Confirmation bias means the answer at an update depends on the model's own prior beyond what the
update itself determines. So each turn keeps its congruence condition as observed (from the model's
own prior) and the model's answers are exchanged among turns within strata of what the *current
update alone* determines: always the gold answer after it, the revealed link's polarity and
wording, topology and difficulty (:data:`BASE_STRATA`: a surface-cue shortcut answers from the
sentence, so these are never coarsened), refined by on/off path, the kind of update and a distance
bin (:data:`REFINEMENTS`) wherever the refinement leaves at least as many other turns beside the
turns the metric is about (for BiasGap: the C2 turns, the revisions of the model's own "yes") as
there are of those; elsewhere the refinement is coarsened away (:func:`nested_strata`). The gold
*before* the update is deliberately not a stratum: for a model that tracks the conversation it is
the prior itself, and conditioning on it would remove the very contrast BiasGap measures.

What is exchanged follows what each metric is computed on (:data:`BIAS_NULLS`):

* BiasGap (pooled, defeat, withhold) and the odds ratio: the entailment answer, among comparable
  update turns (see :func:`bias_nulls`).
* know-but-don't-output: the entailment answer as for BiasGap; the effect answer stays with its
  turn. Its gold is the effect of the update, which moves with the gold *before* it, so exchanging
  it among turns of one stratum would score a "no effect" answer given where nothing changed as a
  wrong answer on a C2 turn.
* C3 override: the effect answer, among every update turn of the stratum that shares the turn's
  effect gold (whatever the model's prior); C3inh override: the entailment answer, among every
  update turn of the stratum. Among comparable turns alone a C3 or C3inh stratum holds little but
  C3 or C3inh turns, and the null could never move.
* anchoring: the openings' answers among openings, the flipping sections' final answers among
  final turns and comparable update turns (never among turns entered with an already wrong prior,
  which repeat a clinging agent's bias).

Metrics that contrast on- and off-path turns (signal ratio) or distances (confidence slopes) are
exchanged within strata without that factor, since a stratum holding it fixed would make their
null equal the observed value; they exchange the change of confidence they are computed on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from biaslab import stats
from biaslab.seeding import seed_sequence
from biaslab.suites.defeasible.conditions import ON, SHORT_CHAIN_MAX, WEAKENING
from biaslab.suites.defeasible.render import EFFECT_LABELS, ENTAILMENT_LABELS

N_PERM = 2_000
#: what the current update alone determines and is never coarsened away
BASE_STRATA = ("kind", "gold", "polarity", "wording", "item_topology", "item_difficulty")
#: refinements of the strata, tried in this order, each kept only where it leaves at least
#: :data:`MIN_BESIDE` times as many other turns beside the turns a metric is about
REFINEMENTS = ("path", "update_type", "distance_bin")
MIN_BESIDE = 1.0
#: every stratum column a bias null may use, coarse to fine
BIAS_STRATA = (*BASE_STRATA, *REFINEMENTS)
#: signal ratio: on- and off-path turns are what it contrasts, so path is not a stratum, and
#: distance (which alone may explain a confidence change) is
SIGNAL_STRATA = (*BASE_STRATA, "distance")
#: confidence vs distance: distance is what it measures, so it is not a stratum
SLOPE_STRATA = (*BASE_STRATA, "path")

Metric = Callable[[np.ndarray], np.ndarray]


def codes(values: Sequence[object], labels: Sequence[str]) -> np.ndarray:
    """Label -> its index in ``labels``; anything else (unparsed, not asked) -> -1."""
    index = {label: i for i, label in enumerate(labels)}
    return np.array([index.get(v, -1) if isinstance(v, str) else -1 for v in values], dtype=np.intp)


def strata(rows: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    return stats.strata_codes({c: list(rows[c]) for c in columns})


def distance_bin(distance: object) -> str:
    """near (d <= 2, the paper's short chains), far, or none (no distance, e.g. distractors)."""
    if distance is None or not isinstance(distance, int | float) or np.isnan(distance):
        return "none"
    return "near" if distance <= SHORT_CHAIN_MAX else "far"


def column_codes(rows: pd.DataFrame, columns: Sequence[str]) -> dict[str, np.ndarray]:
    """Dense integer codes per strata column (sorted by the values' text: never row order)."""
    found = {}
    for column in columns:
        _, inverse = np.unique(_texts(rows[column].astype(str)), return_inverse=True)
        found[column] = inverse.astype(np.intp).ravel()
    return found


def _texts(column: pd.Series) -> np.ndarray:
    """A text column as a NumPy array of whole strings. Under pandas 3's string dtype
    ``Series.to_numpy(str)`` returns a one-character array ('yes->no' becomes 'y'), which silently
    merged strata sharing a first letter and left the defeat/withhold splits without rows."""
    return np.array([str(v) for v in column], dtype=str)


def _dense(key: np.ndarray) -> np.ndarray:
    return np.unique(key, return_inverse=True)[1].astype(np.intp).ravel()


def nested_strata(
    columns: Mapping[str, np.ndarray],
    focus: np.ndarray,
    base: Sequence[str] = BASE_STRATA,
    refinements: Sequence[str] = REFINEMENTS,
    min_beside: float = MIN_BESIDE,
) -> np.ndarray:
    """Stratum codes: ``base`` everywhere, refined by each of ``refinements`` in turn wherever
    every finer stratum that holds ``focus`` turns (those a metric is about) also holds at least
    ``min_beside`` times as many other turns; where a refinement would leave fewer, that stratum
    keeps the coarser key. ``columns`` holds integer codes per column (:func:`column_codes`).
    The choice reads only the strata columns and ``focus`` (the kept conditions), never the
    answers being exchanged."""
    n = len(focus)
    label = np.zeros(n, dtype=np.intp)
    for column in base:
        label = _dense(label * (int(columns[column].max(initial=0)) + 1) + columns[column])
    weights = focus.astype(float)
    for column in refinements:
        finer = _dense(label * (int(columns[column].max(initial=0)) + 1) + columns[column])
        n_focus = np.bincount(finer, weights=weights)
        n_other = np.bincount(finer, weights=1.0 - weights)
        fine_ok = (n_focus == 0) | (n_other >= min_beside * n_focus)
        parent = np.zeros(len(fine_ok), dtype=np.intp)
        parent[finer] = label
        group_ok = np.bincount(parent, weights=~fine_ok, minlength=int(label.max(initial=0)) + 1)
        keep_fine = group_ok[label] == 0
        label = _dense(
            np.where(keep_fine, label * (len(fine_ok) + 1) + finer + 1, label * (len(fine_ok) + 1))
        )
    return label


def _rate(hits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Share of ``hits`` (B, n) among the ``mask`` rows, NaN when the mask is empty."""
    n = mask.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, (hits & mask).sum(axis=-1) / np.maximum(n, 1), np.nan)


@dataclass(frozen=True)
class BiasRows:
    """Entailment turns (openings and updates) of one cell as arrays the metrics index."""

    gold: np.ndarray  # entailment gold code per row
    effect_gold: np.ndarray  # effect gold code per row (-1 when none)
    condition: np.ndarray  # congruence condition (str) per row; "" for openings
    transition: np.ndarray  # "yes->no" etc. (gold before -> after) per row
    effect_asked: np.ndarray  # whether an effect question was paired with the row
    opening: np.ndarray  # (sections,) row index of each flipping section's opening
    final: np.ndarray  # (sections,) row index of its last entailment turn
    answers: np.ndarray  # (n, 2): entailment and effect answer codes
    #: the observed effect answers, which some metrics keep with their turn
    effect_answer: np.ndarray
    #: update turns entered with a prior that is the gold before the update, plus C1 and C2
    comparable: np.ndarray
    update: np.ndarray  # update turns (not openings)
    columns: dict[str, np.ndarray]  # integer codes of every strata column

    @classmethod
    def of(cls, ent: pd.DataFrame) -> BiasRows:
        rows = ent.reset_index(drop=True).copy()
        rows["distance_bin"] = [distance_bin(d) for d in rows["distance"]]
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
        update = (rows["kind"] == "entailment").to_numpy(bool)
        return cls(
            gold=codes(list(rows["gold"]), ENTAILMENT_LABELS),
            effect_gold=codes(list(rows["effect_gold"]), EFFECT_LABELS),
            condition=rows["condition"].fillna("").astype(str).to_numpy(),
            transition=_texts(transition),
            effect_asked=asked.to_numpy(bool),
            opening=np.array([opening[s] for s in flipping], dtype=np.intp),
            final=np.array([final[s] for s in flipping], dtype=np.intp),
            answers=answers,
            effect_answer=answers[:, 1].copy(),
            comparable=update
            & (
                (rows["prior"] == rows["gold_before"]) | rows["condition"].isin(["C1", "C2"])
            ).to_numpy(bool),
            update=update,
            columns=column_codes(rows, (*BIAS_STRATA, "effect_gold")),
        )

    def subset(self, keep: np.ndarray) -> BiasRows:
        """The rows in ``keep``; sections whose opening or final turn is left out are dropped."""
        position = np.full(len(keep), -1, dtype=np.intp)
        position[keep] = np.arange(int(keep.sum()))
        whole = keep[self.opening] & keep[self.final]
        per_row = (
            "gold",
            "effect_gold",
            "condition",
            "transition",
            "effect_asked",
            "answers",
            "effect_answer",
            "comparable",
            "update",
        )
        return BiasRows(
            **{name: getattr(self, name)[keep] for name in per_row},
            opening=position[self.opening[whole]],
            final=position[self.final[whole]],
            columns={name: codes[keep] for name, codes in self.columns.items()},
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
        knew = self.effect_answer == self.effect_gold  # kept with its turn (module docstring)
        return lambda perm: _rate(knew & ~self.correct(perm), rows)

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


@dataclass(frozen=True)
class NullDesign:
    """Which turns a metric's null exchanges answers among, and in which strata."""

    #: the rows the metric counts
    counted: Callable[[BiasRows], np.ndarray]
    #: the turns whose answers are exchanged (counted rows are always among them)
    pool: Callable[[BiasRows], np.ndarray]
    #: the turns the strata keep other turns beside (see :func:`nested_strata`)
    focus: Callable[[BiasRows], np.ndarray]
    #: strata columns never coarsened
    base: tuple[str, ...] = BASE_STRATA


def _gap(transition: str | None) -> NullDesign:
    return NullDesign(
        counted=lambda r: r.mask("C1") | r.mask("C2", transition),
        pool=lambda r: r.comparable,
        focus=lambda r: r.mask("C2"),
    )


def _sections(r: BiasRows) -> np.ndarray:
    found = np.zeros(len(r.gold), dtype=bool)
    found[r.opening] = True
    found[r.final] = True
    return found


#: the null design of every confirmation-bias metric (see the module docstring)
BIAS_NULLS: Mapping[str, NullDesign] = {
    "bias_gap": _gap(None),
    "bias_gap_defeat": _gap("yes->no"),
    "bias_gap_withhold": _gap("yes->unknown"),
    "odds_ratio": _gap(None),
    "know_but_dont_output": NullDesign(
        counted=lambda r: r.mask("C2") & r.effect_asked,
        pool=lambda r: r.comparable,
        focus=lambda r: r.mask("C2"),
    ),
    "c3_override_rate": NullDesign(
        counted=lambda r: r.mask("C3") & r.effect_asked,
        pool=lambda r: r.update & (r.effect_gold >= 0),
        focus=lambda r: r.mask("C3") & r.effect_asked,
        base=(*BASE_STRATA, "effect_gold"),
    ),
    "c3inh_override_rate": NullDesign(
        counted=lambda r: r.mask("C3inh"),
        pool=lambda r: r.update,
        focus=lambda r: r.mask("C3inh"),
    ),
    "anchoring_rate": NullDesign(
        counted=_sections,
        pool=lambda r: _sections(r) | r.comparable,
        focus=_sections,
    ),
}


def _null(
    full: BiasRows, name: str, key: tuple[str, ...], seed: int, n_perm: int
) -> stats.PermutationNullResult:
    design = BIAS_NULLS[name]
    pool = design.pool(full) | design.counted(full)
    rows = full.subset(pool)
    codes_ = nested_strata(rows.columns, design.focus(rows), design.base)
    # only strata that hold a counted turn can move the metric
    moving = np.isin(codes_, codes_[design.counted(rows)])
    if not moving.all():
        rows, codes_ = rows.subset(moving), codes_[moving]
    return stats.permutation_null(
        rows.answers,
        codes_,
        rows.metrics()[name],
        seed=seed_sequence(seed, "null", name, *key),
        n_perm=n_perm,
        name=name,
    )


def bias_nulls(
    ent: pd.DataFrame, key: tuple[str, ...], seed: int, n_perm: int = N_PERM
) -> dict[str, stats.PermutationNullResult]:
    """The permutation null of every confirmation-bias metric of one cell (:data:`BIAS_NULLS`).

    Comparable update turns are every C1 and C2 turn and the other update turns whose prior (the
    model's own previous answer) equals the gold before the update. Turns entered with an already
    wrong prior (C0 "prior already wrong") carry the model's earlier error, not the current
    update's difficulty: for a memoryless answerer they are as exchangeable as any (so leaving
    them out keeps the null valid), but for an agent that clings to its belief they repeat the
    bias itself and would hide it.
    """
    full = BiasRows.of(ent)
    return {name: _null(full, name, key, seed, n_perm) for name in BIAS_NULLS}


# ------------------------------------------------------------------------------------ confidence


def _signal_ratio(delta_abs_on: np.ndarray, delta_abs_off: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(delta_abs_off > 0, delta_abs_on / delta_abs_off, np.nan)


def signal_ratio_null(
    updates: pd.DataFrame, key: tuple[str, ...], seed: int, n_perm: int = N_PERM
) -> stats.PermutationNullResult:
    """Signal ratio (mean |Δgold_conf| on-path / off-path) beside its null: the changes of
    gold-answer confidence it is computed on, exchanged among on- and off-path turns of the same
    stratum (:data:`SIGNAL_STRATA`). Exchanging the confidences themselves and subtracting each
    turn's own opening confidence would invent changes no turn showed."""
    rows = updates[updates["delta_gold_conf"].notna() & updates["path"].notna()]
    rows = rows.reset_index(drop=True)
    on = (rows["path"] == ON).to_numpy(bool)

    def metric(perm: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            mean_on = np.where(on.any(), (perm * on).sum(-1) / max(on.sum(), 1), np.nan)
            mean_off = np.where((~on).any(), (perm * ~on).sum(-1) / max((~on).sum(), 1), np.nan)
        return _signal_ratio(mean_on, mean_off)

    return stats.permutation_null(
        rows["delta_gold_conf"].abs().to_numpy(float),
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


def _within_section_slope(rows: pd.DataFrame) -> tuple[np.ndarray, Metric]:
    """Δgold_conf and the vectorised OLS slope of it on section-centred distance."""
    distance = rows["distance"].to_numpy(float)
    groups = rows.groupby(["conversation", "section"], sort=True).ngroup().to_numpy()
    centred = distance - pd.Series(distance).groupby(groups).transform("mean").to_numpy()
    spread = float((centred**2).sum())

    def slope(perm: np.ndarray) -> np.ndarray:
        if spread == 0:
            return np.full(perm.shape[0], np.nan)
        return (perm @ centred) / spread

    return rows["delta_gold_conf"].to_numpy(float), slope


def _spearman(rows: pd.DataFrame) -> tuple[np.ndarray, Metric]:
    """Ranks of gold_conf and rho(distance, gold_conf) as a Pearson correlation of ranks."""
    rank_x = _rank(rows["distance"].to_numpy(float))
    rank_x = rank_x - rank_x.mean()
    norm_x = float(np.sqrt((rank_x**2).sum()))

    def spearman(ranks: np.ndarray) -> np.ndarray:
        # permuting values permutes their ranks: the permuted confidences' ranks are the
        # permuted ranks, so ranking is done once
        centred_ranks = ranks - ranks.mean(axis=-1, keepdims=True)
        norm = np.sqrt((centred_ranks**2).sum(-1)) * norm_x
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(norm > 0, (centred_ranks @ rank_x) / norm, np.nan)

    return _rank(rows["gold_conf"].to_numpy(float)), spearman


def distance_nulls(
    on_path: pd.DataFrame, key: tuple[str, ...], seed: int, n_perm: int = N_PERM
) -> dict[str, stats.PermutationNullResult]:
    """Spearman rho(distance, gold_conf) and the within-section slope of Δgold_conf per hop on
    on-path turns, beside their nulls: what each is computed on (gold_conf for rho, Δgold_conf
    for the slope) exchanged across distances within strata of everything else the update
    determines (:data:`SLOPE_STRATA`)."""
    with_distance = on_path[on_path["distance"].notna()]
    found = {}
    for name, column, build in (
        ("spearman_on_path", "gold_conf", _spearman),
        ("confidence_slope", "delta_gold_conf", _within_section_slope),
    ):
        rows = with_distance[with_distance[column].notna()].reset_index(drop=True)
        values, metric = build(rows)
        found[name] = stats.permutation_null(
            values,
            strata(rows, SLOPE_STRATA),
            metric,
            seed=seed_sequence(seed, "null", name, *key),
            n_perm=n_perm,
            alternative="two-sided",
            name=name,
        )
    return found


__all__ = [
    "BASE_STRATA",
    "BIAS_NULLS",
    "BIAS_STRATA",
    "N_PERM",
    "REFINEMENTS",
    "SIGNAL_STRATA",
    "SLOPE_STRATA",
    "BiasRows",
    "bias_nulls",
    "column_codes",
    "distance_bin",
    "distance_nulls",
    "nested_strata",
    "signal_ratio_null",
]
