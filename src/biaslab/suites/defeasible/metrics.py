"""Accuracy and confirmation-bias metrics of one cell: BiasGap, odds ratio, McNemar with Holm,
anchoring, semantic override, metacognitive dissociation, and the question-order comparison."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import numpy as np
import pandas as pd

from biaslab import stats
from biaslab.seeding import seed_sequence
from biaslab.suites.defeasible.conditions import (
    CONDITIONS,
    ENTAILMENT_KINDS,
    EXACT_MCNEMAR_BELOW,
    INHERITANCE_TOPOLOGIES,
    NO_EFFECT_QUESTIONS,
    POOLED,
    REVERSED,
    STANDARD,
    WEAKENING,
    as_text,
    transitions,
)
from biaslab.suites.defeasible.nulls import bias_nulls
from biaslab.suites.defeasible.results import (
    CellResult,
    ConditionSummary,
    OrderArm,
    OrderComparison,
    TopologyResult,
)

# --------------------------------------------------------------------------------------------------
# Accuracy cells
# --------------------------------------------------------------------------------------------------


def _rate(mask: pd.Series, what: str, undefined: dict[str, str], key: str) -> float | None:
    if len(mask) == 0:
        undefined[key] = f"no {what} turns in this cell"
        return None
    return float(mask.mean())


def cell_result(frame: pd.DataFrame) -> CellResult:
    """Accuracy, majority baseline and unparsed rate of one cell of the cleaned frame."""
    undefined: dict[str, str] = {}
    entail = frame[frame["kind"].isin(ENTAILMENT_KINDS)]
    initial = frame[frame["kind"] == "initial"]
    effect = frame[frame["kind"] == "effect"]
    majority_label: str | None = None
    majority: float | None = None
    if len(entail):
        counts = entail["gold"].value_counts()
        top = counts.max()
        majority_label = sorted(str(label) for label in counts.index[counts == top])[0]
        majority = float(top / len(entail))
    else:
        undefined["majority_baseline"] = "no entailment turns in this cell"
    golds = as_text(effect["gold"])
    recalls = [effect.loc[golds == g, "correct"].mean() for g in sorted(set(golds))]
    effect_majority = float(golds.value_counts().max() / len(effect)) if len(effect) else None
    modes = sorted({str(m) for m in frame["item_instructions"] if isinstance(m, str)})
    if effect.empty:
        for key in ("effect_balanced_accuracy", "effect_majority_baseline"):
            undefined[key] = "no effect turns in this cell"
    return CellResult(
        n_turns=len(frame),
        effect_balanced_accuracy=float(np.mean(recalls)) if recalls else None,
        effect_majority_baseline=effect_majority,
        instructions=", ".join(modes) if modes else None,
        n_conversations=int(frame["conversation"].nunique()),
        entailment_accuracy=_rate(
            entail["correct"], "entailment", undefined, "entailment_accuracy"
        ),
        initial_accuracy=_rate(initial["correct"], "initial", undefined, "initial_accuracy"),
        effect_accuracy=_rate(effect["correct"], "effect", undefined, "effect_accuracy"),
        majority_baseline=majority,
        majority_label=majority_label,
        unparsed_rate=_rate(~frame["parsed"].astype(bool), "answered", undefined, "unparsed_rate"),
        undefined=undefined,
    )


# --------------------------------------------------------------------------------------------------
# Bias metrics of one cell
# --------------------------------------------------------------------------------------------------


class Out:
    """Accumulates one result's fields, its undefined reasons and the raw stats results."""

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}
        self.undefined: dict[str, str] = {}
        self.stats: dict[str, dict[str, Any]] = {}

    def put(self, key: str, value: Any, reason: str | None) -> None:
        """Set ``key``; a ``None`` value must come with a reason."""
        self.fields[key] = value
        if value is None:
            self.undefined[key] = reason or "undefined"

    def stat(self, key: str, result: stats.StatResult) -> None:
        self.stats[key] = result.model_dump(mode="json")

    def null(self, name: str, result: stats.PermutationNullResult) -> None:
        """The null fields of metric ``name`` (``name_null``, ``_null_lo``, ``_null_hi``,
        ``_excess``, ``_null_p``); the observed value itself is set by the metric's own code."""
        self.stat(f"{name}_null", result)
        reason = result.reason or next(iter(result.notes), None) or "no null"
        for key, value in stats.null_fields(name, result).items():
            if key != name:
                self.put(key, value, reason)


def _summary(rows: pd.DataFrame) -> ConditionSummary:
    effect = rows["effect_correct"].dropna()
    return ConditionSummary(
        n=len(rows),
        accuracy=float(rows["correct"].mean()) if len(rows) else None,
        n_effect=len(effect),
        effect_accuracy=float(effect.astype(bool).mean()) if len(effect) else None,
    )


def _condition_block(updates: pd.DataFrame, out: Out) -> None:
    """Counts, C0 reasons and per-condition accuracies."""
    counts = updates["condition"].value_counts()
    out.fields["condition_counts"] = {c: int(counts.get(c, 0)) for c in CONDITIONS}
    reasons = updates.loc[updates["condition"] == "C0", "c0_reason"].value_counts()
    out.fields["c0_reasons"] = {str(k): int(v) for k, v in reasons.items()}
    out.fields["conditions"] = {
        c: _summary(updates[updates["condition"] == c]) for c in CONDITIONS if c != "C0"
    }
    c2 = updates[updates["condition"] == "C2"]
    moves = transitions(c2)
    out.fields["c2_by_transition"] = {
        str(t): _summary(c2[moves == t]) for t in sorted(moves.unique())
    }


#: the C2 transitions reported on their own: (name, gold before -> after)
C2_SPLITS = (("defeat", "yes->no"), ("withhold", "yes->unknown"))


def _bias_gap(
    c1: pd.DataFrame,
    c2: pd.DataFrame,
    seed: np.random.SeedSequence,
    n_boot: int,
    out: Out,
    suffix: str = "",
) -> None:
    """Acc(C1) - Acc(C2) with its cluster-bootstrap CI (``suffix``: "_defeat"/"_withhold")."""
    c2_key = f"c2{suffix}_accuracy"
    for key, rows in (("c1_accuracy", c1), (c2_key, c2)):
        value = float(rows["correct"].mean()) if len(rows) else None
        out.put(key, value, f"no {key.removesuffix('_accuracy').upper()} turns in this cell")
    res = stats.bootstrap_mean_diff(
        c1["correct"],
        c2["correct"],
        c1["conversation"],
        c2["conversation"],
        n_boot=n_boot,
        seed=seed,
    )
    out.stat(f"bias_gap{suffix}", res)
    out.put(f"bias_gap{suffix}", res.statistic, res.reason)
    out.put(f"bias_gap{suffix}_ci", res.ci, res.ci_reason or res.reason)


def _no_prior_gap(
    updates: pd.DataFrame, seed: np.random.SeedSequence, n_boot: int, out: Out
) -> None:
    """Accuracy where the update keeps a right "no" prior minus where it moves the gold off it:
    the mirror of BiasGap for a model that clings to its "no" (no condition of the paper's)."""
    right_no = (updates["prior"] == "no") & (updates["gold_before"] == "no")
    kept = updates[right_no & (updates["gold"] == "no")]
    overturned = updates[right_no & (updates["gold"] != "no")]
    out.fields.update(n_kept_no=len(kept), n_overturned_no=len(overturned))
    for key, rows, what in (
        ("kept_no_accuracy", kept, "no update keeps a right 'no' prior"),
        ("overturned_no_accuracy", overturned, "no update overturns a right 'no' prior"),
    ):
        out.put(key, float(rows["correct"].mean()) if len(rows) else None, what)
    res = stats.bootstrap_mean_diff(
        kept["correct"],
        overturned["correct"],
        kept["conversation"],
        overturned["conversation"],
        n_boot=n_boot,
        seed=seed,
    )
    out.stat("bias_gap_no_prior", res)
    out.put("bias_gap_no_prior", res.statistic, res.reason)
    out.put("bias_gap_no_prior_ci", res.ci, res.ci_reason or res.reason)


def _odds_ratio(
    c1: pd.DataFrame, c2: pd.DataFrame, seed: np.random.SeedSequence, n_boot: int, out: Out
) -> None:
    res = stats.odds_ratio(
        c1["correct"],
        c2["correct"],
        c1["conversation"],
        c2["conversation"],
        n_boot=n_boot,
        seed=seed,
    )
    out.stat("odds_ratio", res)
    out.put("odds_ratio", res.statistic, res.reason)
    out.put("odds_ratio_ci", res.ci, res.ci_reason or res.reason)


def mcnemar_pairs(updates: pd.DataFrame, column: str = "condition") -> pd.DataFrame:
    """One (C1, C2) pair per section: its first C1 and first C2 turn (see DECISIONS).

    Columns conversation, section, turn_c1, correct_c1, turn_c2, correct_c2, one row per section
    with both, in (conversation, section) order. Sections are numbered once and the first row of
    each condition found with ``np.unique`` (a pandas groupby per condition and a merge cost
    about 1 CPU-s over the cells of 20k answers)."""
    conversations, names = pd.factorize(updates["conversation"].to_numpy(object), sort=True)
    sections, section_values = pd.factorize(updates["section"].to_numpy(), sort=True)
    key = conversations.astype(np.int64) * max(len(section_values), 1) + sections
    condition = updates[column].to_numpy(object)
    firsts = []
    for wanted in ("C1", "C2"):
        rows = np.flatnonzero(condition == wanted)
        keys, first = np.unique(key[rows], return_index=True)  # first row of each section
        firsts.append((keys, rows[first]))
    (keys_c1, rows_c1), (keys_c2, rows_c2) = firsts
    both, in_c1, in_c2 = np.intersect1d(keys_c1, keys_c2, assume_unique=True, return_indices=True)
    turn = updates["turn"].to_numpy()
    correct = updates["correct"].to_numpy()
    width = max(len(section_values), 1)
    return pd.DataFrame(
        {
            "conversation": pd.Series(np.asarray(names, dtype=object)[both // width], dtype=object),
            "section": section_values[both % width],
            "turn_c1": turn[rows_c1[in_c1]],
            "correct_c1": correct[rows_c1[in_c1]],
            "turn_c2": turn[rows_c2[in_c2]],
            "correct_c2": correct[rows_c2[in_c2]],
        }
    )


def _paired_test(
    updates: pd.DataFrame, column: str
) -> tuple[stats.PairedTable, stats.McNemarResult]:
    pairs = mcnemar_pairs(updates, column)
    table = stats.paired_table(
        pairs["correct_c1"].to_numpy(bool), pairs["correct_c2"].to_numpy(bool)
    )
    method: Literal["exact", "chi2"] = (
        "exact" if table.b + table.c < EXACT_MCNEMAR_BELOW else "chi2"
    )
    return table, stats.mcnemar(table.b, table.c, method=method, correction=True, n_pairs=table.n)


def _mcnemar(updates: pd.DataFrame, out: Out) -> None:
    """The paper's test, the selection-free gold-prior variant (DECISIONS["McNemar selection"]),
    and the paper's test on the defeat and withhold C2 turns alone."""
    table, res = _paired_test(updates, "condition")
    out.stat("mcnemar", res)
    out.fields.update(n_pairs=table.n, mcnemar_b=table.b, mcnemar_c=table.c)
    reason = "no section has both a C1 and a C2 turn" if table.n == 0 else res.reason
    out.put("mcnemar_p", res.pvalue, reason)
    out.put("mcnemar_method", res.method if res.defined else None, reason)
    out.put("mcnemar_p_holm", None, reason or "set after Holm across cells")
    table, res = _paired_test(updates, "condition_gold_prior")
    out.stat("mcnemar_gold_prior", res)
    out.fields["n_pairs_gold_prior"] = table.n
    reason = "no section has both a gold-prior C1 and C2 turn" if table.n == 0 else res.reason
    out.put("mcnemar_gold_prior_p", res.pvalue, reason)
    out.put("mcnemar_gold_prior_p_holm", None, reason or "set after Holm across cells")
    moves = transitions(updates)
    for name, transition in C2_SPLITS:
        other_c2 = (updates["condition"] == "C2") & (moves != transition)
        split = updates.assign(condition=updates["condition"].mask(other_c2, "C2-other"))
        table, res = _paired_test(split, "condition")
        out.stat(f"mcnemar_{name}", res)
        out.fields.update(
            {f"n_pairs_{name}": table.n, f"mcnemar_{name}_b": table.b, f"mcnemar_{name}_c": table.c}
        )
        reason = f"no section has both a C1 and a {transition} C2 turn" if table.n == 0 else None
        out.put(f"mcnemar_{name}_p", res.pvalue, reason or res.reason)
        out.put(f"mcnemar_{name}_p_holm", None, reason or res.reason or "set after Holm")


def anchoring(ent: pd.DataFrame) -> tuple[float | None, int, str | None]:
    """(rate, flipping sections, reason-if-undefined) over the sections of ``ent``.

    Rows are taken whole (``drop_duplicates``), not via ``groupby.first/last``, which would skip an
    unparsed (None) answer and silently use an earlier one.
    """
    keys = ["conversation", "section"]
    cols = [*keys, "gold", "predicted"]
    opened = ent.loc[ent["kind"] == "initial", cols].drop_duplicates(keys, keep="first")
    last = ent[cols].drop_duplicates(keys, keep="last")
    sections = opened.merge(last, on=keys, suffixes=("_init", "_final"))
    parsed = sections["predicted_init"].notna() & sections["predicted_final"].notna()
    sections = sections[parsed]
    flipping = sections[sections["gold_init"] != sections["gold_final"]]
    if flipping.empty:
        return None, 0, "no hypothesis section whose gold answer changes (with parsed answers)"
    anchored = (flipping["predicted_final"] == flipping["predicted_init"]) & (
        flipping["predicted_final"] != flipping["gold_final"]
    )
    return float(anchored.mean()), len(flipping), None


def _override(updates: pd.DataFrame, out: Out) -> None:
    c3 = updates[updates["condition"] == "C3"]
    asked = c3[c3["effect_predicted"].notna() | c3["effect_correct"].notna()]
    if c3.empty:
        out.put("c3_override_rate", None, "no C3 turns in this cell")
    elif asked.empty:
        out.put("c3_override_rate", None, NO_EFFECT_QUESTIONS)
    else:
        out.put("c3_override_rate", float((asked["effect_predicted"] == WEAKENING).mean()), None)
    c3inh = updates[updates["condition"] == "C3inh"]
    rate = float(c3inh["predicted"].isin(["no", "unknown"]).mean()) if len(c3inh) else None
    out.put("c3inh_override_rate", rate, "no C3inh turns in this cell")


def _metacognition(updates: pd.DataFrame, out: Out) -> None:
    """C1-eff, C2-eff, their gap, and the know-but-don't-output dissociation on C2."""
    eff: dict[str, float | None] = {}
    for cond in ("C1", "C2"):
        rows = updates[(updates["condition"] == cond) & updates["effect_correct"].notna()]
        no_rows = (
            f"no {cond} turns" if not (updates["condition"] == cond).any() else NO_EFFECT_QUESTIONS
        )
        eff[cond] = float(rows["effect_correct"].astype(bool).mean()) if len(rows) else None
        out.put(f"{cond.lower()}_eff", eff[cond], no_rows)
    gap = None if eff["C1"] is None or eff["C2"] is None else eff["C1"] - eff["C2"]
    out.put("metacognitive_gap", gap, "needs both C1-eff and C2-eff")
    c2 = updates[(updates["condition"] == "C2") & updates["effect_correct"].notna()]
    reason = out.undefined.get("c2_eff")
    if c2.empty:
        out.put("dissociation", None, reason)
        out.put("know_but_dont_output", None, reason)
        return
    effect_ok = c2["effect_correct"].astype(bool)
    out.put("dissociation", float(effect_ok.mean() - c2["correct"].mean()), None)
    out.put("know_but_dont_output", float((effect_ok & ~c2["correct"]).mean()), None)


def _bias_cell(ent: pd.DataFrame, key: tuple[str, ...], seed: int, n_boot: int, n_perm: int) -> Out:
    """Every confirmation-bias metric of one cell beside its permutation null (Holm is applied
    later, across cells)."""
    out = Out()
    updates = ent[ent["kind"] == "entailment"]
    _condition_block(updates, out)
    c1, c2 = (updates[updates["condition"] == c] for c in ("C1", "C2"))
    _bias_gap(c1, c2, seed_sequence(seed, "bias_gap", *key), n_boot, out)
    moves = transitions(c2)
    for name, transition in C2_SPLITS:
        split_seed = seed_sequence(seed, f"bias_gap_{name}", *key)
        _bias_gap(c1, c2[moves == transition], split_seed, n_boot, out, suffix=f"_{name}")
    _odds_ratio(c1, c2, seed_sequence(seed, "odds_ratio", *key), n_boot, out)
    _mcnemar(updates, out)
    rate, n_flip, reason = anchoring(ent)
    out.put("anchoring_rate", rate, reason)
    out.fields["n_flipping_sections"] = n_flip
    _override(updates, out)
    _metacognition(updates, out)
    _no_prior_gap(updates, seed_sequence(seed, "bias_gap_no_prior", *key), n_boot, out)
    tested, candidates = {}, {}
    for name, found in bias_nulls(ent, key, seed, n_perm).items():
        out.null(name, found.result)
        tested[name], candidates[name] = found.n_tested, found.n_candidates
    out.fields.update(null_tested=tested, null_candidates=candidates)
    return out


# --------------------------------------------------------------------------------------------------
# Cells: which turns go where
# --------------------------------------------------------------------------------------------------


def main_order(frame: pd.DataFrame) -> str:
    """The question order a model's main cells use (see DECISIONS["question order"])."""
    orders = set(frame["item_question_order"])
    return STANDARD if STANDARD in orders or not orders else sorted(orders)[0]


def reasoning_types(topologies: Iterable[str]) -> list[str]:
    """The model's topologies, plus the pooled inheritance type when it has linear and tree."""
    found = sorted({str(t) for t in topologies})
    if all(t in found for t in INHERITANCE_TOPOLOGIES):
        found.append(POOLED)
    return found


def select_type(frame: pd.DataFrame, reasoning_type: str) -> pd.DataFrame:
    if reasoning_type == POOLED:
        return frame[frame["item_topology"].isin(INHERITANCE_TOPOLOGIES)]
    return frame[as_text(frame["item_topology"]) == reasoning_type]


def topology_result(
    frame: pd.DataFrame,
    ent: pd.DataFrame,
    order: str,
    key: tuple[str, str],
    seed: int,
    n_boot: int,
    n_perm: int,
) -> TopologyResult:
    overall = cell_result(frame)
    by_difficulty = {
        str(difficulty): cell_result(sub)
        for difficulty, sub in frame.groupby("item_difficulty", sort=True)
    }
    bias = _bias_cell(ent, key, seed, n_boot, n_perm)
    return TopologyResult(
        **{**overall.model_dump(), "undefined": {**overall.undefined, **bias.undefined}},
        **bias.fields,
        question_order=order,
        by_difficulty=by_difficulty,
        stats=bias.stats,
    )


#: McNemar families adjusted by Holm across cells: (raw p field, adjusted field)
HOLM_FAMILIES = (
    ("mcnemar_p", "mcnemar_p_holm"),
    ("mcnemar_gold_prior_p", "mcnemar_gold_prior_p_holm"),
    ("mcnemar_defeat_p", "mcnemar_defeat_p_holm"),
    ("mcnemar_withhold_p", "mcnemar_withhold_p_holm"),
)


def apply_holm(
    models: dict[str, dict[str, TopologyResult]],
) -> tuple[dict[str, dict[str, TopologyResult]], dict[str, int]]:
    """Holm within each model across its cells' McNemar p, separately for each test in
    :data:`HOLM_FAMILIES` (cells without a p stay None with their reason): a model's verdict
    never depends on which other models were analysed beside it. Returns each model's size of
    the paper test's family."""
    sizes: dict[str, int] = {}
    for model, cells in models.items():
        for raw, adjusted_key in HOLM_FAMILIES:
            adjusted = stats.adjust_pvalues([getattr(cell, raw) for cell in cells.values()])
            if raw == "mcnemar_p":
                sizes[model] = adjusted.n
            for rtype, p in zip(list(cells), adjusted.adjusted, strict=True):
                cell = cells[rtype]
                undefined = dict(cell.undefined)
                if p is not None:
                    undefined.pop(adjusted_key, None)
                cells[rtype] = cell.model_copy(update={adjusted_key: p, "undefined": undefined})
    return models, sizes


# --------------------------------------------------------------------------------------------------
# Question order (Table 18)
# --------------------------------------------------------------------------------------------------


def _order_arm(ent: pd.DataFrame, key: tuple[str, ...], seed: int, n_boot: int) -> OrderArm:
    out = Out()
    updates = ent[ent["kind"] == "entailment"]
    c1, c2 = (updates[updates["condition"] == c] for c in ("C1", "C2"))
    _bias_gap(c1, c2, seed_sequence(seed, "order_bias_gap", *key), n_boot, out)
    _metacognition(updates, out)
    return OrderArm(
        n_turns=len(ent),
        n_c1=len(c1),
        n_c2=len(c2),
        undefined=out.undefined,
        **{
            k: out.fields[k]
            for k in ("c1_accuracy", "c2_accuracy", "bias_gap", "bias_gap_ci", "c1_eff", "c2_eff")
        },
    )


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def question_order_comparison(
    ent: pd.DataFrame, seed: int, n_boot: int
) -> tuple[dict[str, dict[str, OrderComparison]], str | None]:
    """Standard vs reversed arms per model x reasoning type where both orders were run."""
    result: dict[str, dict[str, OrderComparison]] = {}
    for model, rows in ent.groupby("model", sort=True):
        if set(rows["item_question_order"]) < {STANDARD, REVERSED}:
            continue
        for rtype in reasoning_types(rows["item_topology"]):
            cell = select_type(rows, rtype)
            arms = {
                order: _order_arm(
                    cell[cell["item_question_order"] == order],
                    (str(model), rtype, order),
                    seed,
                    n_boot,
                )
                for order in (STANDARD, REVERSED)
            }
            if arms[STANDARD].n_turns == 0 or arms[REVERSED].n_turns == 0:
                continue
            std, rev = arms[STANDARD], arms[REVERSED]
            result.setdefault(str(model), {})[rtype] = OrderComparison(
                standard=std,
                reversed=rev,
                delta_bias_gap=_delta(std.bias_gap, rev.bias_gap),
                delta_c1_eff=_delta(std.c1_eff, rev.c1_eff),
                delta_c2_eff=_delta(std.c2_eff, rev.c2_eff),
            )
    reason = None if result else "no model was run in both question orders (standard and reversed)"
    return result, reason
