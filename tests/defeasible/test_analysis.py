"""Defeasible analysis: congruence conditions, bias statistics, confidence and reseeding.

Two kinds of test: small hand-built frames that pin each rule (prior reset, condition table, pairing,
anchoring, undefined paths), and runs of the reference agents (through Inspect, and in-process where
that gives the same answers) whose known behaviour the statistics must recover (oracle: no bias;
sticky p=1: maximal bias; random: none; calibrated: confidence falling with distance). Paper
numbers are recomputed where the paper gives them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from biaslab import stats
from biaslab.suites.defeasible import analysis as A
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.inprocess import agent_frame

RANK = {"no": 0, "unknown": 1, "yes": 2}
YNU = ("yes", "no", "unknown")


# --------------------------------------------------------------------------------------------------
# A tiny frame builder: conversations of sections of updates, as the tidy frame has them
# --------------------------------------------------------------------------------------------------


def effect_of(before: str, after: str) -> str:
    if RANK[after] > RANK[before]:
        return "strengthening"
    return "weakening" if RANK[after] < RANK[before] else "no effect"


@dataclass
class U:
    """One update: gold after, the model's answer, and what the generator records."""

    gold: str
    pred: str | None
    polarity: str = "+"
    on_path: bool = True
    distance: int | None = 1
    update_type: str = "confirm"
    effect_pred: str | None = None  # answer to the effect question, if one is asked
    probs: dict[str, float] | None = None


@dataclass
class S:
    """One hypothesis section: the opening's gold and answer, then the updates."""

    gold: str
    pred: str | None
    updates: Sequence[U] = ()
    probs: dict[str, float] | None = None


@dataclass
class Conv:
    sections: Sequence[S]
    model: str = "m"
    item: str = "c0"
    topology: str = "default"
    difficulty: str = "easy"
    order: str = "standard"
    seed: int = 1
    run: str = "r1"
    extra: dict[str, Any] = field(default_factory=dict)


def _row(conv: Conv, turn: int, kind: str, gold: str, pred: str | None, **meta: Any) -> dict:
    return {
        "model": conv.model,
        "suite": "defeasible",
        "run_key": conv.run,
        "item_id": conv.item,
        "turn": turn,
        "kind": kind,
        "gold": gold,
        "predicted": pred,
        "parsed": pred is not None,
        "correct": pred == gold,
        "label_probs": meta.pop("probs", None),
        "sample_error": None,
        "item_topology": conv.topology,
        "item_difficulty": conv.difficulty,
        "item_question_order": conv.order,
        "item_seed": conv.seed,
        **meta,
    }


def _update_rows(conv: Conv, turn: int, section: int, index: int, before: str, u: U) -> list[dict]:
    effect = effect_of(before, u.gold)
    meta = {
        "section": section,
        "update_index": index,
        "update_type": u.update_type,
        "polarity": u.polarity,
        "gold_before": before,
        "effect": effect,
        "distance": u.distance,
        "on_path": u.on_path,
    }
    rows = [_row(conv, 0, "entailment", u.gold, u.pred, probs=u.probs, **meta)]
    if u.effect_pred is not None:
        rows.append(_row(conv, 0, "effect", effect, u.effect_pred, **meta))
        if conv.order == "reversed":
            rows.reverse()
    for offset, row in enumerate(rows):
        row["turn"] = turn + offset
    return rows


def rows_of(conv: Conv) -> list[dict]:
    rows: list[dict] = []
    for number, section in enumerate(conv.sections):
        opening = {"section": number, "update_index": None, "update_type": "initial"}
        rows.append(
            _row(
                conv,
                len(rows),
                "initial",
                section.gold,
                section.pred,
                probs=section.probs,
                **opening,
            )
        )
        before = section.gold
        for index, update in enumerate(section.updates):
            rows += _update_rows(conv, len(rows), number, index, before, update)
            before = update.gold
    return rows


def frame(*convs: Conv) -> pd.DataFrame:
    return pd.DataFrame([row for conv in convs for row in rows_of(conv)])


def updates_of(df: pd.DataFrame) -> pd.DataFrame:
    ent = A.prepare(df)
    return ent[ent["kind"] == "entailment"].reset_index(drop=True)


def quick(df: pd.DataFrame) -> A.DefeasibleResults:
    return A.analyze(df, n_boot=200)


# --------------------------------------------------------------------------------------------------
# Prior and congruence conditions
# --------------------------------------------------------------------------------------------------


def test_prior_is_the_models_own_answer_reset_to_the_gold_at_each_section() -> None:
    conv = Conv(
        [
            S("yes", "no", [U("yes", "unknown"), U("no", "yes", polarity="-")]),
            S("no", "yes", [U("no", "no", polarity="-")]),
        ]
    )
    ent = A.prepare(frame(conv))
    updates = ent[ent["kind"] == "entailment"]
    # first update of each section: the GOLD of the opening (yes, then no), not the model's answer
    # (no, then yes); later updates: the model's own previous answer (unknown)
    assert updates["prior"].tolist() == ["yes", "unknown", "no"]
    assert updates["previous"].tolist() == ["no", "unknown", "yes"]


def test_unparsed_previous_answer_gives_no_prior() -> None:
    conv = Conv([S("yes", "yes", [U("yes", None), U("no", "no", polarity="-")])])
    updates = updates_of(frame(conv))
    assert updates.loc[1, "condition"] == "C0"
    assert "not parsed" in str(updates.loc[1, "c0_reason"])


@pytest.mark.parametrize(
    ("prior", "gold", "effect", "polarity", "path", "topology", "expected"),
    [
        ("yes", "yes", "no effect", "+", "on", "default", "C1"),  # a confirmation of a live yes
        ("yes", "yes", "strengthening", "-", "off", "tree", "C1"),  # wrong yes prior, now right
        ("yes", "no", "weakening", "-", "on", "default", "C2"),
        ("yes", "unknown", "weakening", "-", "on", "tree", "C2"),  # yes -> unknown is C2 too
        ("yes", "yes", "no effect", "-", "off", "tree", "C3inh"),
        ("yes", "yes", "no effect", "-", "off", "default", "C0"),  # C3inh is inheritance-only
        ("yes", "yes", "no effect", "-", "on", "linear", "C0"),  # preempted on-path negation
        ("yes", "yes", "no effect", "+", "off", "tree", "C0"),
        ("yes", "unknown", "strengthening", "+", "on", "default", "C0"),  # no -> unknown
        ("yes", "no", "no effect", "-", "on", "default", "C0"),  # prior already wrong
        ("no", "no", "no effect", "-", "on", "default", "C3"),
        ("no", "no", "no effect", "-", "off", "tree", "C3"),  # C3 before C4
        ("no", "no", "no effect", "+", "off", "default", "C4"),
        ("no", "no", "no effect", "+", "on", "default", "C0"),
        ("no", "yes", "strengthening", "+", "on", "default", "C0"),
        ("no", "yes", "no effect", "+", "off", "default", "C0"),  # hypothesis not defeated
        ("unknown", "yes", "strengthening", "+", "on", "default", "C5"),
        ("unknown", "no", "weakening", "-", "on", "linear", "C5"),
        ("unknown", "unknown", "no effect", "+", "on", "default", "C0"),
        (None, "yes", "no effect", "+", "on", "default", "C0"),
    ],
)
def test_condition_table(
    prior: str | None,
    gold: str,
    effect: str,
    polarity: str,
    path: str,
    topology: str,
    expected: str,
) -> None:
    condition, reason = A.classify(prior, gold, effect, polarity, path, topology)
    assert condition == expected
    assert (reason is None) == (expected != "C0")


def test_exception_wording_sounds_negative_whatever_the_link_sign() -> None:
    """An exception to a negative rule reveals a positive link but reads as a negation: C3/C3inh
    are about surface form, C1 about the link."""
    assert A.classify("no", "no", "no effect", "+", "off", "default", "exception")[0] == "C3"
    assert A.classify("no", "no", "no effect", "+", "off", "default", "plain")[0] == "C4"
    assert A.classify("yes", "yes", "no effect", "+", "off", "tree", "exception")[0] == "C3inh"
    assert A.classify("yes", "yes", "no effect", "+", "on", "tree", "exception")[0] == "C1"


def test_distractors_are_off_path_even_when_the_generator_flags_them_on_path() -> None:
    conv = Conv(
        [S("yes", "yes", [U("yes", "yes", polarity="-", update_type="distractor")])],
        topology="tree",
    )
    assert updates_of(frame(conv)).loc[0, "condition"] == "C3inh"


# --------------------------------------------------------------------------------------------------
# Pairing, McNemar, Holm, anchoring
# --------------------------------------------------------------------------------------------------


def _c1(ok: bool) -> U:
    return U("yes", "yes" if ok else "no")


def _c2(ok: bool) -> list[U]:
    """A weakening to no (C2), then a reinstating update so the next C1 has a yes prior again."""
    return [U("no", "no" if ok else "yes", polarity="-"), U("yes", "yes")]


def test_pairing_uses_the_first_c1_and_first_c2_of_each_section() -> None:
    conv = Conv(
        [
            S("yes", "yes", [*_c2(False), _c1(True), *_c2(True), _c1(False)]),  # C2 first
            S("yes", "yes", [_c1(True), _c1(True)]),  # no C2: no pair
            S("yes", "yes", [*_c2(True), _c1(False)]),  # C2 right, then C1 wrong
        ]
    )
    updates = updates_of(frame(conv))
    pairs = A.mcnemar_pairs(updates)
    assert pairs["section"].tolist() == [0, 2]
    # section 0: first C2 wrong (turn 1), first C1 = the reinstating update (turn 2), right
    assert pairs["correct_c1"].tolist() == [True, False]
    assert pairs["correct_c2"].tolist() == [False, True]
    first_c2 = updates[(updates["section"] == 0) & (updates["condition"] == "C2")]["turn"].min()
    assert pairs.loc[0, "turn_c2"] == first_c2


def test_pairs_are_a_groupby_first_per_section_whatever_the_row_order() -> None:
    """The pairs equal pandas' first row per (conversation, section) and condition, merged."""
    convs = [
        Conv([S("yes", "yes", [*_c2(i % 2 == 0), _c1(i % 3 == 0), *_c2(True)])], item=f"c{i}")
        for i in range(6)
    ]
    updates = updates_of(frame(*convs)).sample(frac=1.0, random_state=3)
    keys = ["conversation", "section"]
    firsts = [
        updates[updates["condition"] == c].groupby(keys)[["turn", "correct"]].first()
        for c in ("C1", "C2")
    ]
    expected = firsts[0].join(firsts[1], how="inner", suffixes=("_c1", "_c2")).reset_index()
    got = A.mcnemar_pairs(updates)
    assert len(got) == 6
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)


@pytest.mark.parametrize(("n_sections", "method"), [(24, "exact"), (25, "chi2")])
def test_mcnemar_is_exact_below_25_discordant_pairs(
    n_sections: int, method: Literal["exact", "chi2"]
) -> None:
    convs = [
        Conv([S("yes", "yes", [_c1(True), *_c2(False)])], item=f"c{i}") for i in range(n_sections)
    ]
    cell = quick(frame(*convs)).models["m"]["default"]
    expected = stats.mcnemar(n_sections, 0, method=method, correction=True)
    assert cell.n_pairs == n_sections and cell.mcnemar_b == n_sections and cell.mcnemar_c == 0
    assert cell.mcnemar_p == pytest.approx(expected.pvalue)
    assert cell.mcnemar_method == expected.method
    assert cell.bias_gap == 1.0


def test_holm_runs_across_the_cells_of_each_model() -> None:
    convs = []
    for model, (b, c) in {"a": (12, 2), "b": (9, 1), "c": (5, 5)}.items():
        outcomes = [(True, False)] * b + [(False, True)] * c + [(True, True)] * 3
        for i, (ok1, ok2) in enumerate(outcomes):
            for topology in ("default", "linear"):
                conv = Conv([S("yes", "yes", [_c1(ok1), *_c2(ok2)])], model=model, item=f"{i}")
                conv.topology = topology
                convs.append(conv)
    res = quick(frame(*convs))
    assert res.holm_family_size == {"a": 2, "b": 2, "c": 2}
    for cells in res.models.values():
        raw = [c.mcnemar_p for c in cells.values()]
        expected = stats.adjust_pvalues(raw, method="holm")
        assert [c.mcnemar_p_holm for c in cells.values()] == pytest.approx(list(expected.adjusted))
    # a model's adjusted p does not depend on the other models analysed beside it
    alone = quick(frame(*(c for c in convs if c.model == "a"))).models["a"]
    for rtype, cell in alone.items():
        assert cell.mcnemar_p_holm == pytest.approx(res.models["a"][rtype].mcnemar_p_holm)


def test_anchoring_rate_follows_the_paper_formula() -> None:
    convs = [
        # flips yes -> no; final answer = initial answer != final gold: anchored
        Conv([S("yes", "yes", [U("no", "yes", polarity="-")])], item="a"),
        # flips; the model follows: not anchored
        Conv([S("yes", "yes", [U("no", "no", polarity="-")])], item="b"),
        # flips; final answer differs from the initial one but is wrong: not anchored
        Conv([S("yes", "yes", [U("no", "unknown", polarity="-")])], item="c"),
        # gold never changes: not a flipping section
        Conv([S("yes", "no", [U("yes", "no")])], item="d"),
        # unparsed final answer: left out
        Conv([S("yes", "yes", [U("no", None, polarity="-")])], item="e"),
    ]
    cell = quick(frame(*convs)).models["m"]["default"]
    assert cell.n_flipping_sections == 3
    assert cell.anchoring_rate == pytest.approx(1 / 3)


# --------------------------------------------------------------------------------------------------
# Metacognition and question order
# --------------------------------------------------------------------------------------------------


def _meta_conv(order: str, item: str, eff_c2: str) -> Conv:
    updates = [
        U("yes", "yes", effect_pred="no effect"),  # C1, effect right
        U("no", "yes", polarity="-", effect_pred=eff_c2),  # C2, entailment wrong
    ]
    return Conv([S("yes", "yes", updates)], order=order, item=item)


def test_effect_answers_pair_with_their_update_in_either_order() -> None:
    convs = [_meta_conv("standard", f"s{i}", "weakening") for i in range(4)]
    convs += [_meta_conv("reversed", f"r{i}", "no effect") for i in range(4)]
    res = quick(frame(*convs))
    cell = res.models["m"]["default"]
    assert cell.question_order == "standard"  # main cells: the standard order
    assert cell.c1_eff == 1.0 and cell.c2_eff == 1.0 and cell.c2_accuracy == 0.0
    assert cell.dissociation == 1.0 and cell.know_but_dont_output == 1.0
    comparison = res.question_order["m"]["default"]
    assert comparison.standard.c2_eff == 1.0 and comparison.reversed.c2_eff == 0.0
    assert comparison.delta_c2_eff == -1.0
    assert comparison.delta_bias_gap == 0.0


def test_semantic_override_rates() -> None:
    c3 = U("no", "no", polarity="-", on_path=False, effect_pred="weakening")
    c3_ok = U("no", "no", polarity="-", on_path=False, effect_pred="no effect")
    inh = U("yes", "unknown", polarity="-", on_path=False)
    inh_ok = U("yes", "yes", polarity="-", on_path=False)
    res = quick(
        frame(
            Conv([S("no", "no", [c3, c3_ok, c3_ok, c3_ok])]),
            Conv([S("yes", "yes", [inh, inh_ok])], topology="tree", item="t"),
        )
    )
    assert res.models["m"]["default"].c3_override_rate == 0.25
    assert res.models["m"]["tree"].conditions["C3inh"].n == 1  # the second has prior unknown
    assert res.models["m"]["tree"].c3inh_override_rate == 1.0


def _random_answerer_frame(n: int, seed: int) -> pd.DataFrame:
    """A bias-free, memoryless agent: uniform answers on sections that alternate C1- and C2-type
    updates (confirm, weaken to no, reinstate, weaken again)."""
    rng = np.random.default_rng(seed)
    golds, polarity = ("yes", "no", "yes", "no"), ("+", "-", "+", "-")
    convs = []
    for i in range(n):
        answers = [str(a) for a in rng.choice(YNU, size=5)]
        updates = [
            U(g, a, polarity=p) for g, a, p in zip(golds, answers[1:], polarity, strict=True)
        ]
        convs.append(Conv([S("yes", answers[0], updates)], item=f"c{i}"))
    return frame(*convs)


def test_paper_pairing_makes_an_unbiased_agent_look_biased_but_the_gold_prior_test_does_not() -> (
    None
):
    """With the model's own prior, a section's later C1/C2 turn exists only if the model said yes
    just before, so pairs over-sample right C1 and wrong C2 answers. BiasGap (every turn) and the
    gold-prior McNemar test (membership independent of the answers) stay unbiased."""
    cell = A.analyze(_random_answerer_frame(1500, 1), n_boot=500).models["m"]["default"]
    assert cell.bias_gap_ci is not None and cell.bias_gap_ci[0] < 0 < cell.bias_gap_ci[1]
    assert cell.mcnemar_b is not None and cell.mcnemar_c is not None
    assert cell.mcnemar_b > 1.5 * cell.mcnemar_c
    assert cell.mcnemar_p is not None and cell.mcnemar_p < 1e-3
    assert cell.mcnemar_gold_prior_p is not None and cell.mcnemar_gold_prior_p > 0.05
    assert cell.n_pairs_gold_prior == 1500  # every section pairs its first C1 and first C2


# --------------------------------------------------------------------------------------------------
# Undefined paths
# --------------------------------------------------------------------------------------------------


def test_missing_conditions_and_probabilities_give_reasons_not_nans() -> None:
    res = quick(frame(Conv([S("yes", "yes", [_c1(True), _c1(False)])])))
    cell = res.models["m"]["default"]
    assert cell.c2_accuracy is None and "no C2" in cell.undefined["c2_accuracy"]
    assert cell.bias_gap is None and cell.undefined["bias_gap"]
    assert cell.odds_ratio is None and cell.undefined["odds_ratio"]
    assert cell.mcnemar_p is None and "both a C1 and a C2" in cell.undefined["mcnemar_p"]
    assert cell.anchoring_rate is None and cell.undefined["anchoring_rate"]
    assert cell.c1_eff is None and "effect questions" in cell.undefined["c1_eff"]
    conf = res.confidence["m"]["default"]["easy"]
    for metric in ("spearman_on_path", "per_hop_slope", "delta_brier", "signal_ratio"):
        assert getattr(conf, metric) is None
        assert conf.undefined[metric] == A.NO_LOGPROBS
    assert conf.off_path_accuracy is None  # no off-path turns, and it says so
    assert "off-path" in conf.undefined["off_path_accuracy"]
    assert A.NO_LOGPROBS in res.undefined["confidence"]
    assert res.reproducibility is None and "2 seeds" in res.undefined["reproducibility"]
    assert "question orders" in res.undefined["question_order"]
    assert "nan" not in res.model_dump_json().lower()


def test_odds_ratio_with_an_error_free_arm_is_undefined_as_in_the_paper() -> None:
    convs = [Conv([S("yes", "yes", [_c1(True), *_c2(i % 2 == 0)])], item=f"c{i}") for i in range(8)]
    cell = quick(frame(*convs)).models["m"]["default"]
    assert cell.bias_gap == 0.5
    assert cell.odds_ratio is None and "wrong_a = 0" in cell.undefined["odds_ratio"]


def test_icc_needs_two_models_but_per_cell_seed_statistics_still_appear() -> None:
    convs = [
        Conv([S("yes", "yes", [_c1(i % 3 > 0), *_c2(i % 2 == 0)])], item=f"c{i}", seed=seed)
        for seed in (1, 2, 3)
        for i in range(6)
    ]
    repro = quick(frame(*convs)).reproducibility
    assert repro is not None and repro.icc is None
    assert "2 models" in repro.undefined["icc"]
    (cell,) = repro.cells
    assert cell.n_seeds == 3 and cell.cv_percent is not None
    assert set(cell.per_seed_accuracy) == {"1", "2", "3"}


# --------------------------------------------------------------------------------------------------
# Paper numbers, recomputed
# --------------------------------------------------------------------------------------------------

#: Table 15 (model, C1 acc, C2 acc, reported OR), default and inheritance rows with a defined OR
TABLE_15 = [
    ("GPT-5.1 def", 0.970, 0.035, 891.2),
    ("Qwen3-32B def", 0.976, 0.307, 93.3),
    ("GPT-5-mini def", 0.871, 0.203, 26.5),
    ("Llama-3.1-70B def", 0.697, 0.149, 13.2),
    ("Llama-3.1-8B def", 0.773, 0.549, 2.8),
    ("Gemma-4-12B def", 0.950, 0.868, 2.9),
    ("Qwen3-32B* def", 0.881, 0.873, 1.1),
    ("Gemma-4-MoE def", 0.954, 0.961, 0.8),
    ("Llama-3.1-8B inh", 0.738, 0.255, 8.3),
    ("Gemma-4-MoE inh", 0.971, 0.664, 16.7),
    ("Gemma-4-12B inh", 0.854, 0.675, 2.8),
]


def _or(p1: float, p2: float) -> float:
    return (p1 / (1 - p1)) / (p2 / (1 - p2))


def _arm_frame(acc_c1: float, acc_c2: float, n: int) -> pd.DataFrame:
    """n conversations, each with a C1 section and a C2 section (each section restarts from a gold
    yes prior, so a wrong C1 answer cannot change the next turn's condition)."""
    k1, k2 = round(acc_c1 * n), round(acc_c2 * n)
    convs = [
        Conv([S("yes", "yes", [_c1(i < k1)]), S("yes", "yes", _c2(i < k2)[:1])], item=f"c{i}")
        for i in range(n)
    ]
    return frame(*convs)


@pytest.mark.parametrize(("name", "c1", "c2", "reported"), TABLE_15)
def test_table_15_odds_ratios_follow_from_the_reported_accuracies(
    name: str, c1: float, c2: float, reported: float
) -> None:
    """The paper's OR is odds(correct|C1)/odds(correct|C2): the reported value lies within what the
    3-decimal accuracies allow, with the direction of the gap, and our pipeline computes it so."""
    corners = [_or(c1 + a, c2 + b) for a in (-5e-4, 5e-4) for b in (-5e-4, 5e-4)]
    assert min(corners) * 0.95 <= reported <= max(corners) * 1.05, name  # OR printed to 2-3 digits
    assert (reported > 1) == (c1 > c2), name
    cell = A.analyze(_arm_frame(c1, c2, 1000), n_boot=0).models["m"]["default"]
    k1, k2 = round(c1 * 1000), round(c2 * 1000)
    assert cell.odds_ratio == pytest.approx((k1 / (1000 - k1)) / (k2 / (1000 - k2)))
    assert cell.bias_gap == pytest.approx((k1 - k2) / 1000)


def test_table_15_direction_and_ci_on_the_extreme_cell() -> None:
    """GPT-5.1 default: C1 .970 vs C2 .035 gives OR ~ 891 with a CI far above 1 (paper [586, 1498]
    on many more conversations; ours has 1000 single-section conversations)."""
    cell = A.analyze(_arm_frame(0.970, 0.035, 1000), n_boot=2000).models["m"]["default"]
    assert cell.odds_ratio == pytest.approx(891.4, rel=0.01)
    assert (
        cell.odds_ratio_ci is not None and 500 < cell.odds_ratio_ci[0] < 891 < cell.odds_ratio_ci[1]
    )
    assert cell.condition_counts["C1"] == cell.condition_counts["C2"] == 1000


#: Table 11: per-cell mean and SD of per-seed accuracy (8 models x {default, linear}, 20 seeds)
TABLE_11_MEAN = [0.733, 0.791, 0.790, 0.842, 0.467, 0.702, 0.659, 0.528]
TABLE_11_MEAN += [0.893, 0.897, 0.867, 0.932, 0.683, 0.921, 0.908, 0.665]
TABLE_11_SD = [0.025, 0.027, 0.026, 0.026, 0.028, 0.026, 0.024, 0.036]
TABLE_11_SD += [0.036, 0.029, 0.034, 0.032, 0.054, 0.033, 0.029, 0.046]


def test_icc_of_a_matrix_shaped_like_table_11_reproduces_table_12() -> None:
    """Seeds with no systematic effect and the published per-cell means/SDs give the published
    pooled ICC(2,1) = 0.949, whatever the seed-level noise (so the wrapper is ICC(2,1) with cells
    as targets and seeds as raters)."""
    mean, sd = np.array(TABLE_11_MEAN), np.array(TABLE_11_SD)
    for draw in range(5):
        z = np.random.default_rng(draw).standard_normal((16, 20))
        z = (z - z.mean(axis=1, keepdims=True)) / z.std(axis=1, ddof=1, keepdims=True)
        res = stats.icc_2_1(mean[:, None] + sd[:, None] * z, n_boot=0, seed=0)
        assert res.statistic == pytest.approx(0.949, abs=0.001)


def test_table_11_kruskal_p_values_use_seeds_as_groups() -> None:
    """H and p in Table 11 agree with chi2 on 19 df: the groups are the 20 seeds."""
    for h, p in [(16.41, 0.630), (20.63, 0.358), (28.75, 0.070), (12.46, 0.865), (21.16, 0.328)]:
        assert sps.chi2.sf(h, 19) == pytest.approx(p, abs=0.001)


def test_reproducibility_pipeline_matches_the_wrappers() -> None:
    rng = np.random.default_rng(3)
    convs = []
    for model, skill in (("good", 0.9), ("weak", 0.5)):
        for seed in range(1, 5):
            for i in range(8):
                oks = rng.random(3) < skill
                updates = [_c1(bool(oks[0])), *_c2(bool(oks[1]))]
                conv = Conv([S("yes", "yes" if oks[2] else "no", updates)], model=model, seed=seed)
                conv.item = f"{seed}-{i}"
                convs.append(conv)
    res = quick(frame(*convs))
    repro = res.reproducibility
    assert repro is not None and repro.n_targets == 2 and repro.n_raters == 4
    matrix = [list(c.per_seed_accuracy.values()) for c in repro.cells]
    icc = stats.icc_2_1(matrix, n_boot=A.ICC_BOOT, seed=stats_seed())
    assert repro.icc == pytest.approx(icc.statistic) and repro.icc_ci == icc.ci
    cell = repro.cells[0]
    assert cell.kruskal_h is not None and cell.cv_percent == pytest.approx(
        stats.coefficient_of_variation(list(cell.per_seed_accuracy.values())).statistic
    )


def stats_seed() -> Any:
    from biaslab.seeding import seed_sequence

    return seed_sequence(0, "icc")


# --------------------------------------------------------------------------------------------------
# Confidence metrics on a hand-built frame
# --------------------------------------------------------------------------------------------------


def _peaked(label: str, p: float) -> dict[str, float]:
    return {x: (p if x == label else (1 - p) / 2) for x in YNU}


def test_confidence_metrics_follow_their_definitions() -> None:
    convs = []
    for i in range(12):
        updates = [
            U("yes", "yes", distance=d, probs=_peaked("yes", 0.9 - 0.1 * d)) for d in (1, 2, 3, 4)
        ]
        updates.append(
            U("yes", "no" if i == 0 else "yes", on_path=False, distance=None, update_type="sibling-branch",
              polarity="-", probs=_peaked("yes", 0.85))
        )  # fmt: skip
        convs.append(
            Conv(
                [S("yes", "yes", updates, probs=_peaked("yes", 0.95))],
                item=f"c{i}",
                topology="tree",
            )
        )
    cell = quick(frame(*convs)).confidence["m"]["tree"]["easy"]
    assert cell.spearman_on_path == pytest.approx(-1.0)
    assert cell.per_hop_slope == pytest.approx(-0.1, abs=1e-6)
    # Brier: top-label probability vs correctness, d <= 2 vs d > 2
    assert cell.brier_short == pytest.approx(np.mean([(1 - 0.8) ** 2, (1 - 0.7) ** 2]))
    assert cell.delta_brier == pytest.approx(np.mean([0.4**2, 0.5**2]) - np.mean([0.2**2, 0.3**2]))
    assert cell.intrusion_rate == pytest.approx(1 / 12)  # one wrong change on an off-path turn
    assert cell.off_path_accuracy == pytest.approx(11 / 12)
    on_delta = np.mean([0.8, 0.7, 0.6, 0.5]) - 0.95
    # off-path Δgold_conf: 0.85 - 0.95 when right; the wrong "no" turn still has gold yes at 0.85
    assert cell.signal_ratio == pytest.approx(abs(on_delta) / 0.10)
    assert [p.distance for p in cell.by_distance] == [1, 2, 3, 4]
    ent = A.confidence_columns(A.prepare(frame(convs[0])))
    assert ent["entropy"].iloc[0] == pytest.approx(
        -(0.95 * math.log(0.95) + 2 * 0.025 * math.log(0.025))
    )
    assert ent["margin"].iloc[0] == pytest.approx(0.95 - 0.025)


# --------------------------------------------------------------------------------------------------
# Output: JSON, tables, report
# --------------------------------------------------------------------------------------------------


def _rich_frame() -> pd.DataFrame:
    convs = []
    for model in ("alpha", "beta"):
        for seed in (1, 2):
            for i in range(6):
                for order in ("standard", "reversed"):
                    probs = _peaked("yes", 0.9)
                    updates = [
                        U("yes", "yes", distance=1 + i % 3, probs=probs, effect_pred="no effect"),
                        U("no", "yes" if model == "alpha" else "no", polarity="-", effect_pred="weakening",
                          distance=2, probs=_peaked("yes", 0.6)),
                    ]  # fmt: skip
                    conv = Conv([S("yes", "yes", updates, probs=probs)], model=model, seed=seed)
                    conv.item, conv.order = f"{seed}-{i}-{order}", order
                    convs.append(conv)
    return frame(*convs)


def test_results_are_json_ready_and_round_trip() -> None:
    res = quick(_rich_frame())
    again = A.DefeasibleResults.model_validate_json(res.model_dump_json())
    assert again == res
    cell = res.models["alpha"]["default"]
    required = ["n_turns", "entailment_accuracy", "effect_accuracy", "c1_accuracy", "c2_accuracy"]
    required += ["bias_gap", "odds_ratio", "odds_ratio_ci", "mcnemar_p", "mcnemar_p_holm"]
    required += ["n_pairs", "anchoring_rate", "majority_baseline", "undefined"]
    assert set(required) <= set(cell.model_dump())
    assert set(res.decisions) >= {
        "prior",
        "C1",
        "C2",
        "C3",
        "C3inh",
        "C4",
        "C5",
        "C0",
        "McNemar pairing",
    }


def test_results_depend_only_on_the_answers_not_on_row_order() -> None:
    """Shuffling the frame's rows (and nothing else) gives byte-identical results JSON."""
    df = _rich_frame()
    df["epoch"] = 1
    df["roles"] = ""
    reference = quick(df).model_dump_json()
    for seed in (1, 2):
        shuffled = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        assert not shuffled["turn"].equals(df["turn"])
        assert quick(shuffled).model_dump_json() == reference


def test_epochs_are_separate_conversations() -> None:
    """Two epochs of one item are two conversations, not one interleaved history."""
    one = frame(Conv([S("yes", "yes", [_c1(True), *_c2(False)])]))
    two = pd.concat([one.assign(epoch=1), one.assign(epoch=2)], ignore_index=True)
    cell = quick(two).models["m"]["default"]
    assert cell.n_conversations == 2 and cell.n_pairs == 2
    assert cell.condition_counts["C2"] == 2


def test_tables_and_report_render_every_section(tmp_path: Path) -> None:
    res = quick(_rich_frame())
    text = A.tables(res)
    for title in ("Confirmation bias", "Table 18", "Table 13", "Table 14", "Table 11", "ICC(2,1)"):
        assert title in text
    markdown = A.report(res, tmp_path)
    names = ("accuracy", "bias_gap", "bias_gap_null", "dissociation", "confidence_distance")
    for name in (*names, "reseeding"):
        png = tmp_path / f"defeasible_{name}.svg"
        assert png.exists() and png.stat().st_size > 5000, name
        assert f"]({png.name})" in markdown
    assert "### Decisions" in markdown and "nan" not in markdown.lower()
    lead = markdown.index("### Confirmation bias beside its null")
    assert lead < markdown.index("### Paper metrics")  # the section leads with the excess
    assert markdown.index("bias_gap_null.svg") < markdown.index("### Paper metrics")


def test_report_says_why_a_figure_is_missing(tmp_path: Path) -> None:
    res = quick(frame(Conv([S("yes", "yes", [_c1(True)])])))
    markdown = A.report(res, tmp_path)
    assert "No confidence-vs-distance figure: no label probabilities" in markdown
    assert "No reseeding boxplots" in markdown and "No dissociation figure" in markdown
    assert "No BiasGap/odds-ratio figure" in markdown
    assert sorted(p.name for p in tmp_path.iterdir()) == ["defeasible_accuracy.svg"]


# --------------------------------------------------------------------------------------------------
# The calibrated agent
# --------------------------------------------------------------------------------------------------


def test_calibrated_confidence_decays_geometrically_above_chance() -> None:
    from biaslab.suites.defeasible.calibrated import confidence

    values = [confidence(3, d, decay=0.8, peak=0.95) for d in (None, 0, 1, 2, 5, 40)]
    assert values[0] == values[1] == pytest.approx(0.95)
    assert all(a > b for a, b in itertools.pairwise(values[1:]))
    assert values[2] - 1 / 3 == pytest.approx(0.8 * (0.95 - 1 / 3))
    assert min(values) > 1 / 3  # the answer always stays the mode


def test_calibrated_agent_parameters() -> None:
    from biaslab.agents.base import make_agent
    from biaslab.errors import BiaslabError

    agent = make_agent("calibrated?decay=0.5")
    assert getattr(agent, "decay") == 0.5  # noqa: B009
    with pytest.raises(BiaslabError, match="between"):
        make_agent("calibrated?decay=0")
    with pytest.raises(BiaslabError, match="no parameter"):
        make_agent("calibrated?slope=1")


# --------------------------------------------------------------------------------------------------
# Real runs of the reference agents (offline)
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def biased_runs() -> A.DefeasibleResults:
    """sticky (p=1) and random on 60 default-reasoning conversations without effect questions
    (two sections each: the most C1-C2 pairs per second of agent time). Answered in-process: the
    same answers an Inspect run gives (tests/defeasible/test_inprocess.py), so the same results
    JSON, without Inspect's per-sample logging."""
    params = {"topology": "default", "effect_questions": "never"}
    items = generate(resolve_config("easy", params), 7, 60)
    return A.analyze(agent_frame(items, ["sticky?p=1", "random"], seed=7))


@pytest.fixture(scope="module")
def calibrated_runs() -> A.DefeasibleResults:
    """oracle and calibrated on every topology, both question orders for default reasoning (in
    process, as above: tests/defeasible/test_inprocess.py runs both orders through Inspect)."""
    everything = generate(resolve_config("easy", {}), 11, 6)
    reversed_params = {"topology": "default", "question_order": "reversed"}
    reversed_order = generate(resolve_config("easy", reversed_params), 11, 4)
    frame = pd.concat(
        [
            agent_frame(everything, ["oracle", "calibrated"], seed=11),
            agent_frame(reversed_order, ["oracle"], seed=11, config_key="reversed"),
        ],
        ignore_index=True,
    )
    return A.analyze(frame, n_boot=1000)


def test_oracle_is_perfect_and_unbiased(calibrated_runs: A.DefeasibleResults) -> None:
    cells = calibrated_runs.models["biaslab/oracle"]
    assert set(cells) == {"default", "linear", "tree", "inheritance"}
    for name, cell in cells.items():
        assert cell.entailment_accuracy == 1.0, name
        assert cell.condition_counts["C1"] + cell.condition_counts["C2"] > 0, name
        # six easy trees may hold no C1 or no C2 turn: then BiasGap is undefined, with a reason
        assert cell.bias_gap == 0.0 or "bias_gap" in cell.undefined, name
        assert cell.bias_gap_ci == (0.0, 0.0) or "bias_gap_ci" in cell.undefined, name
        assert cell.anchoring_rate in (0.0, None), name
    assert cells["default"].bias_gap == 0.0 and cells["linear"].bias_gap == 0.0
    assert cells["default"].effect_accuracy == 1.0 and cells["default"].c2_eff == 1.0
    order = calibrated_runs.question_order["biaslab/oracle"]["default"]
    assert order.delta_bias_gap == 0.0 and order.reversed.c2_eff == 1.0


def test_sticky_agent_shows_maximal_significant_bias(biased_runs: A.DefeasibleResults) -> None:
    cell = biased_runs.models["biaslab/sticky?p=1"]["default"]
    assert cell.bias_gap is not None and cell.bias_gap > 0.8
    assert cell.c1_accuracy == 1.0 and cell.c2_accuracy == 0.0
    assert cell.mcnemar_p_holm is not None and cell.mcnemar_p_holm < 0.001
    assert cell.mcnemar_gold_prior_p_holm is not None and cell.mcnemar_gold_prior_p_holm < 0.001
    assert cell.anchoring_rate is not None and cell.anchoring_rate > 0.5
    assert cell.odds_ratio is None and "wrong_a" in cell.undefined["odds_ratio"]  # C1 never wrong


def test_random_agent_shows_no_bias(biased_runs: A.DefeasibleResults) -> None:
    """Not significant by the BiasGap CI and by its permutation null; the paper's McNemar is not
    asserted on: its pairing is biased towards b > c (see the test above)."""
    cell = biased_runs.models["biaslab/random"]["default"]
    assert cell.bias_gap is not None and abs(cell.bias_gap) < 0.2
    assert cell.bias_gap_ci is not None and cell.bias_gap_ci[0] < 0 < cell.bias_gap_ci[1]
    # its McNemar tests reject at their (measured, bench_bias_nulls) rates, not asserted on one run
    assert cell.bias_gap_null_p is not None and cell.bias_gap_null_p > 0.05
    assert cell.entailment_accuracy is not None and 0.2 < cell.entailment_accuracy < 0.5


def test_calibrated_confidence_falls_with_distance(calibrated_runs: A.DefeasibleResults) -> None:
    cells = calibrated_runs.confidence["biaslab/calibrated"]
    for topology in ("default", "linear"):  # trees: tests/defeasible/test_nulls.py (30 hard trees)
        cell = cells[topology]["easy"]
        assert cell.spearman_on_path is not None and cell.spearman_on_path < -0.5, topology
        assert cell.per_hop_slope is not None and cell.per_hop_slope < 0, topology
        assert cell.per_hop_slope_p is not None and cell.per_hop_slope_p < 0.001, topology
    oracle = calibrated_runs.confidence["biaslab/oracle"]["tree"]["easy"]
    assert oracle.spearman_on_path is None  # constant confidence: undefined, with a reason
    assert "constant" in oracle.undefined["spearman_on_path"]
