"""Every bias metric beside its null: what an answerer with the model's own accuracy profile,
but whose answer at an update does not depend on its own prior, would score
(:func:`biaslab.stats.permutation_null`).

Confirmation bias means the answer at an update depends on the model's own prior beyond what the
update itself determines. A *revision* turn is one where the model's prior was right (it equals the
gold before the update) and the update moves the gold away from it (C2: a "yes" defeated or
withheld; the prior-no gap: a "no" overturned). A *stable* turn is one where the prior was right and
the update keeps the gold. The null exchanges the answers of the revision turns with those of the
stable turns of the same stratum, and nothing else:

* Strata hold fixed everything the current update alone determines (:data:`BIAS_STRATA`): the gold
  after it, the revealed link's polarity and wording, on/off path, the kind of update, the exact
  distance, the update's position in its section (message index), topology and difficulty. Turns
  that differ in any of these are never pooled; a revision turn whose stratum holds no stable turn
  keeps its own answer (it cannot move the null), and the number of revision turns the null could
  test is reported beside it (``null_tested``); a metric none of whose turns can be tested is
  undefined with that reason.
* The control turns of a gap (C1, or the stable prior-no turns) keep their answers: only the
  revision side is compared with its stratum-mates, so a condition's null never borrows turns of
  another condition (a "prior no -> gold yes" turn never enters the defeat null).
* Stable turns, like revision turns, were entered with a right prior, so an error made earlier in
  the conversation (or a per-item difficulty that made it) selects both alike.

What the null absorbs: any accuracy profile over the strata columns (and per-item latents, through
the common right-prior selection). What it deliberately does not absorb: the gold *before* the
update and the section's history. Answering from the section's first gold, or from anything that
was true earlier, fails revisions and not stable turns, and counts as perseverance: the null is not
"what any answerer that never reads its own replies would get".

Other metrics (:data:`BIAS_NULLS`):

* know-but-don't-output: the entailment answer as for BiasGap; the effect answer stays with its
  turn. Its gold is the effect of the update, which moves with the gold *before* it, so exchanging
  it would score a "no effect" answer given where nothing changed as a wrong answer on a C2 turn.
* C3 override: the effect answer, among every update turn of the stratum that shares the turn's
  effect gold (whatever the model's prior); C3inh override: the entailment answer, among every
  update turn of the stratum. Among stable turns alone a C3 or C3inh stratum holds little but C3
  or C3inh turns, and the null could never move.
* anchoring: the openings' answers among openings, the flipping sections' final answers among
  final turns and stable update turns of the same stratum.

Metrics that contrast on- and off-path turns (signal ratio) or distances (confidence slopes) are
exchanged within strata without that factor, since a stratum holding it fixed would make their
null equal the observed value; they exchange the change of confidence they are computed on.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from biaslab import stats
from biaslab.seeding import seed_sequence
from biaslab.suites.defeasible.conditions import ON, WEAKENING, as_text, transitions
from biaslab.suites.defeasible.labels import EFFECT_LABELS, ENTAILMENT_LABELS

N_PERM = 2_000
#: what the current update alone determines: turns that differ in any of these are never pooled
BIAS_STRATA = (
    "kind",
    "gold",
    "polarity",
    "wording",
    "item_topology",
    "item_difficulty",
    "path",
    "update_type",
    "distance",
    "update_index",
)
#: the strata of the signal-ratio and slope nulls (never coarsened either)
BASE_STRATA = ("kind", "gold", "polarity", "wording", "item_topology", "item_difficulty")
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


def column_codes(rows: pd.DataFrame, columns: Sequence[str]) -> dict[str, np.ndarray]:
    """Dense integer codes per strata column (sorted by the values' text: never row order)."""
    found = {}
    for column in columns:
        texts = [str(v) for v in rows[column]]
        # ranks of the distinct texts (what np.unique's inverse gives), sorting only those
        rank = {text: i for i, text in enumerate(sorted(set(texts)))}
        found[column] = np.fromiter((rank[t] for t in texts), dtype=np.intp, count=len(texts))
    return found


def _rate(hits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Share of ``hits`` (B, n) among the ``mask`` rows, NaN when the mask is empty."""
    n = mask.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, (hits & mask).sum(axis=-1) / np.maximum(n, 1), np.nan)


CountMetric = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class CountDesign:
    """A metric as a function of one count, for :func:`biaslab.stats.count_null`."""

    hits: np.ndarray  # per row: the observed answer is a hit
    counted: np.ndarray  # per row: the metric counts this row's hit
    metric: CountMetric  # total hits on counted rows (B,) -> B statistics


def _count_rate(n_rows: int) -> CountMetric:
    """Hits per counted row, as :func:`_rate` computes it (NaN without rows)."""
    return lambda total: np.where(n_rows > 0, total / np.maximum(n_rows, 1), np.nan)


def _count_odds_ratio(right: np.ndarray, c1: np.ndarray, c2: np.ndarray) -> CountMetric:
    """The odds ratio of C1 (answers fixed) against C2 (``total`` right answers)."""
    a, b = (right & c1).sum(), (~right & c1).sum()
    n_c2 = c2.sum()

    def metric(total: np.ndarray) -> np.ndarray:
        c, d = total, n_c2 - total
        with np.errstate(invalid="ignore", divide="ignore"):
            value = (a * d) / (b * c)
        return np.where((a > 0) & (b > 0) & (c > 0) & (d > 0), value, np.nan)

    return metric


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
    #: update turns entered with a right prior (the gold before the update) that keeps its gold
    stable: np.ndarray
    #: update turns entered with a right "no" prior whose update keeps the gold at "no"
    kept_no: np.ndarray
    #: update turns entered with a right "no" prior whose update moves the gold off "no"
    overturned_no: np.ndarray
    update: np.ndarray  # update turns (not openings)
    columns: dict[str, np.ndarray]  # integer codes of every strata column

    @classmethod
    def of(cls, ent: pd.DataFrame) -> BiasRows:
        rows = ent.reset_index(drop=True).copy()
        transition = transitions(rows)
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
        right_prior = rows["prior"].notna() & (rows["prior"] == rows["gold_before"])
        right_no = right_prior & (rows["prior"] == "no")
        return cls(
            gold=codes(list(rows["gold"]), ENTAILMENT_LABELS),
            effect_gold=codes(list(rows["effect_gold"]), EFFECT_LABELS),
            condition=as_text(rows["condition"].fillna("")).to_numpy(object),
            transition=np.array([str(t) for t in transition]),
            effect_asked=asked.to_numpy(bool),
            opening=np.array([opening[s] for s in flipping], dtype=np.intp),
            final=np.array([final[s] for s in flipping], dtype=np.intp),
            answers=answers,
            effect_answer=answers[:, 1].copy(),
            stable=update & (right_prior & (rows["gold"] == rows["gold_before"])).to_numpy(bool),
            kept_no=update & (right_no & (rows["gold"] == "no")).to_numpy(bool),
            overturned_no=update & (right_no & (rows["gold"] != "no")).to_numpy(bool),
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
            "stable",
            "kept_no",
            "overturned_no",
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

    def accuracy_gap(self, control: np.ndarray, revision: np.ndarray) -> Metric:
        """Accuracy on the ``control`` rows minus accuracy on the ``revision`` rows."""
        return lambda perm: _rate(self.correct(perm), control) - _rate(self.correct(perm), revision)

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
        reads, metric = self.anchoring_reads()
        return lambda perm: metric(perm[:, reads])

    def anchoring_reads(self) -> tuple[np.ndarray, Metric]:
        """The rows the anchoring rate reads (every flipping section's opening, then every
        section's final turn, in section order) and the rate as a metric of those rows' answers
        alone (``permutation_null``'s ``reads``: the null never copies the other rows)."""
        sections = len(self.opening)
        gold_final = self.gold[self.final]

        def metric(perm: np.ndarray) -> np.ndarray:
            first, last = perm[:, :sections, 0], perm[:, sections:, 0]
            valid = (first >= 0) & (last >= 0)
            anchored = valid & (first == last) & (last != gold_final)
            n = valid.sum(-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(n > 0, anchored.sum(-1) / np.maximum(n, 1), np.nan)

        return np.concatenate([self.opening, self.final]), metric

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

    # ---- the same metrics as functions of one count (hits on the counted rows), for
    # :func:`biaslab.stats.count_null`; each gives the float the row metric gives

    def count_metrics(self) -> dict[str, CountDesign]:
        """The metrics that depend on the answers only through how many hits land on the
        counted rows: (hits per observed answer, counted rows, total -> statistic). A hit is
        a property of the answer within its stratum ("right" is, as gold is a stratum column)."""
        right = self.correct(self.answers[np.newaxis])[0]
        c1, c2 = self.mask("C1"), self.mask("C2")
        asked_c2 = c2 & self.effect_asked
        knew = self.effect_answer == self.effect_gold
        yes = ENTAILMENT_LABELS.index("yes")
        found = {
            "bias_gap": self._count_gap(right, c1, c2),
            "bias_gap_defeat": self._count_gap(right, c1, self.mask("C2", "yes->no")),
            "bias_gap_withhold": self._count_gap(right, c1, self.mask("C2", "yes->unknown")),
            "bias_gap_no_prior": self._count_gap(right, self.kept_no, self.overturned_no),
            "odds_ratio": CountDesign(right, c2, _count_odds_ratio(right, c1, c2)),
            "c3_override_rate": CountDesign(
                self.answers[:, 1] == EFFECT_LABELS.index(WEAKENING),
                self.mask("C3") & self.effect_asked,
                _count_rate(int((self.mask("C3") & self.effect_asked).sum())),
            ),
            "c3inh_override_rate": CountDesign(
                (self.answers[:, 0] != yes) & (self.answers[:, 0] >= 0),
                self.mask("C3inh"),
                _count_rate(int(self.mask("C3inh").sum())),
            ),
            "know_but_dont_output": CountDesign(
                ~right, asked_c2 & knew, _count_rate(int(asked_c2.sum()))
            ),
        }
        return found

    @staticmethod
    def _count_gap(right: np.ndarray, control: np.ndarray, revision: np.ndarray) -> CountDesign:
        control_rate = _rate(right[np.newaxis], control)
        revision_rate = _count_rate(int(revision.sum()))
        return CountDesign(right, revision, lambda total: control_rate - revision_rate(total))

    def metrics(self) -> dict[str, Metric]:
        return {
            "bias_gap": self.accuracy_gap(self.mask("C1"), self.mask("C2")),
            "bias_gap_defeat": self.accuracy_gap(self.mask("C1"), self.mask("C2", "yes->no")),
            "bias_gap_withhold": self.accuracy_gap(
                self.mask("C1"), self.mask("C2", "yes->unknown")
            ),
            "bias_gap_no_prior": self.accuracy_gap(self.kept_no, self.overturned_no),
            "odds_ratio": self.odds_ratio(),
            "anchoring_rate": self.anchoring(),
            "c3_override_rate": self.c3_override(),
            "c3inh_override_rate": self.c3inh_override(),
            "know_but_dont_output": self.know_but_dont_output(),
        }


@dataclass(frozen=True)
class NullDesign:
    """Which turns a metric's null exchanges answers among (always within :data:`BIAS_STRATA`)."""

    #: the rows whose answers are tested: exchanged with the ``companions`` of their stratum
    tested: Callable[[BiasRows], np.ndarray]
    #: the turns the tested rows' answers are exchanged with (never counted by the metric)
    companions: Callable[[BiasRows], np.ndarray]
    #: rows the metric counts that keep their own answers (a gap's control side)
    fixed: Callable[[BiasRows], np.ndarray] | None = None
    #: extra strata columns beside :data:`BIAS_STRATA`
    extra: tuple[str, ...] = ()


Mask = Callable[[BiasRows], np.ndarray]


def _gap(control: Mask, revision: Mask) -> NullDesign:
    """A gap's null: the revision turns exchanged with the stable turns of their stratum; the
    control turns keep their answers."""
    return NullDesign(
        tested=revision,
        companions=lambda r: r.stable & ~revision(r) & ~control(r),
        fixed=control,
    )


def _c1(r: BiasRows) -> np.ndarray:
    return r.mask("C1")


def _c2(transition: str | None) -> Mask:
    return lambda r: r.mask("C2", transition)


def _sections(r: BiasRows) -> np.ndarray:
    found = np.zeros(len(r.gold), dtype=bool)
    found[r.opening] = True
    found[r.final] = True
    return found


#: the null design of every confirmation-bias metric (see the module docstring)
BIAS_NULLS: Mapping[str, NullDesign] = {
    "bias_gap": _gap(_c1, _c2(None)),
    "bias_gap_defeat": _gap(_c1, _c2("yes->no")),
    "bias_gap_withhold": _gap(_c1, _c2("yes->unknown")),
    "bias_gap_no_prior": _gap(lambda r: r.kept_no, lambda r: r.overturned_no),
    "odds_ratio": _gap(_c1, _c2(None)),
    "know_but_dont_output": NullDesign(
        tested=lambda r: r.mask("C2") & r.effect_asked,
        companions=lambda r: r.stable & ~r.mask("C2") & ~r.mask("C1"),
    ),
    "c3_override_rate": NullDesign(
        tested=lambda r: r.mask("C3") & r.effect_asked,
        companions=lambda r: r.update & (r.effect_gold >= 0) & ~r.mask("C3"),
        extra=("effect_gold",),
    ),
    "c3inh_override_rate": NullDesign(
        tested=lambda r: r.mask("C3inh"),
        companions=lambda r: r.update & ~r.mask("C3inh"),
    ),
    "anchoring_rate": NullDesign(
        tested=_sections,
        companions=lambda r: r.stable & ~_sections(r),
    ),
}


@dataclass(frozen=True)
class TestedNull:
    """A metric's null and how many of its tested turns had a stratum-mate to be exchanged with."""

    result: stats.PermutationNullResult
    #: tested turns whose stratum holds a companion (the only ones the null can move)
    n_tested: int
    #: every turn the null would test
    n_candidates: int


def strata_of(columns: Mapping[str, np.ndarray], names: Sequence[str]) -> np.ndarray:
    """One dense stratum code per row: the combination of the ``names`` columns' codes, in the
    lexicographic order of the code tuples.

    The tuple is packed into one integer (mixed radix, first column most significant, so the
    order is the same) and made dense with a 1-D ``np.unique``: ``np.unique(axis=0)`` on the
    stacked columns cost ~1 s over a 20k-answer analysis. Packs that could overflow take the
    2-D path."""
    cols = [np.asarray(columns[name], dtype=np.int64) for name in names]
    radices = [int(col.max(initial=0)) + 1 for col in cols]
    if any(int(col.min(initial=0)) < 0 for col in cols) or math.prod(radices) >= 2**62:
        stacked = np.stack(cols, axis=1)
        return np.unique(stacked, axis=0, return_inverse=True)[1].astype(np.intp).ravel()
    packed = np.zeros(len(cols[0]) if cols else 0, dtype=np.int64)
    for col, radix in zip(cols, radices, strict=True):
        packed = packed * radix + col
    return np.unique(packed, return_inverse=True)[1].astype(np.intp).ravel()


def _untestable(name: str, n_rows: int, any_tested: bool) -> stats.PermutationNullResult:
    reason = (
        f"no turn {name} tests shares its stratum ({', '.join(BIAS_STRATA)}) with a turn its "
        "answer could be exchanged with"
        if any_tested
        else f"no turn for {name} to test"
    )
    return stats.PermutationNullResult(
        method="stratified permutation null",
        n=n_rows,
        alternative="greater",
        n_perm=0,
        n_strata=0,
        n_exchangeable=0,
        defined=False,
        reason=reason,
    )


def _null(
    full: BiasRows,
    name: str,
    key: tuple[str, ...],
    seed: int,
    n_perm: int,
    strata_by_extra: dict[tuple[str, ...], np.ndarray] | None = None,
) -> TestedNull:
    design = BIAS_NULLS[name]
    tested = design.tested(full)
    companions = design.companions(full) & ~tested
    cache = {} if strata_by_extra is None else strata_by_extra
    if design.extra not in cache:
        cache[design.extra] = strata_of(full.columns, (*BIAS_STRATA, *design.extra))
    codes_ = cache[design.extra]
    # a tested turn can move only if its stratum holds a companion; companions matter only in
    # strata that hold a tested turn; every other counted turn keeps its own answer
    testable = tested & np.isin(codes_, codes_[companions])
    moving = testable | (companions & np.isin(codes_, codes_[testable]))
    fixed = tested & ~testable
    if design.fixed is not None:
        fixed |= design.fixed(full) & ~moving
    if not testable.any():
        return TestedNull(
            _untestable(name, int(tested.sum()), bool(tested.any())), 0, int(tested.sum())
        )
    rows = full.subset(moving | fixed)
    kept = codes_[moving | fixed]
    alone = fixed[moving | fixed]
    kept = np.where(alone, int(kept.max(initial=0)) + 1 + np.arange(len(kept)), kept)
    seed_ = seed_sequence(seed, "null", name, *key)
    counts = rows.count_metrics().get(name)
    if counts is not None and _one_gold_per_stratum(kept, rows.gold):
        result = stats.count_null(
            counts.hits, counts.counted, kept, counts.metric, seed=seed_, n_perm=n_perm, name=name
        )
    elif name == "anchoring_rate":  # reads two turns per flipping section
        reads, metric = rows.anchoring_reads()
        result = stats.permutation_null(
            rows.answers, kept, metric, seed=seed_, n_perm=n_perm, name=name, reads=reads
        )
    else:
        result = stats.permutation_null(
            rows.answers, kept, rows.metrics()[name], seed=seed_, n_perm=n_perm, name=name
        )
    return TestedNull(result, int(testable.sum()), int(tested.sum()))


def _one_gold_per_stratum(codes: np.ndarray, gold: np.ndarray) -> bool:
    """Whether "right" moves with an answer within its stratum (every row there has one gold)."""
    return len(np.unique(np.stack([codes, gold], axis=1), axis=0)) == len(np.unique(codes))


def bias_nulls(
    ent: pd.DataFrame, key: tuple[str, ...], seed: int, n_perm: int = N_PERM
) -> dict[str, TestedNull]:
    """The permutation null of every confirmation-bias metric of one cell (:data:`BIAS_NULLS`)."""
    full = BiasRows.of(ent)
    strata_by_extra: dict[tuple[str, ...], np.ndarray] = {}  # the cell's strata, once per design
    return {name: _null(full, name, key, seed, n_perm, strata_by_extra) for name in BIAS_NULLS}


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
    "SIGNAL_STRATA",
    "SLOPE_STRATA",
    "BiasRows",
    "CountDesign",
    "TestedNull",
    "bias_nulls",
    "column_codes",
    "distance_nulls",
    "signal_ratio_null",
    "strata_of",
]
