"""Every bias metric beside its permutation null, proved with the reference agents: the biased
agent is detected, memoryless ones are not (a small version of ``bench/bench_bias_nulls.py``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pytest

from biaslab.schema import Item
from biaslab.seeding import seed_sequence
from biaslab.stats.permutation import NULL_SUFFIXES
from biaslab.suites.defeasible import analysis as A
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.inprocess import agent_frame
from biaslab.suites.defeasible.nulls import BiasRows, strata_of
from biaslab.suites.defeasible.render import EFFECT_LABELS, ENTAILMENT_LABELS

MEMORYLESS = ("last-polarity", "negation", "random")
STICKY = "sticky?p=0.9"
BIAS_METRICS = (
    "bias_gap",
    "bias_gap_defeat",
    "bias_gap_withhold",
    "bias_gap_no_prior",
    "odds_ratio",
    "anchoring_rate",
    "c3_override_rate",
    "c3inh_override_rate",
    "know_but_dont_output",
)


@cache
def items_of(difficulty: str, seed: int, n: int, topology: str | None = None) -> tuple[Item, ...]:
    overrides = {} if topology is None else {"topology": topology}
    return tuple(generate(resolve_config(difficulty, overrides), seed, n))


@cache
def answered(agent: str, seed: int, difficulty: str = "easy", n: int = 40) -> pd.DataFrame:
    """One agent's answers to the seed's conversations (each agent answers them once)."""
    return agent_frame(items_of(difficulty, seed, n), [agent], seed=seed)


#: the agents asked at each seed of the easy preset (a model's cells never depend on which other
#: models are analysed beside it, so one analysis per seed serves every test that reads them)
EASY_AGENTS = {1: (*MEMORYLESS, STICKY, "oracle", "sticky?p=1"), 2: (*MEMORYLESS, STICKY, "oracle")}


@cache
def results(seed: int) -> dict[str, dict[str, A.TopologyResult]]:
    """The bias cells (``analyze(...).models``) of every agent on 40 easy conversations, with
    the test-local memoryless agents of the second half of this module."""
    agents = [answered(agent, seed) for agent in EASY_AGENTS[seed]]
    oracle = answered("oracle", seed)
    memoryless_agents = [
        memoryless(oracle, seed, "heterogeneous", far_and_revising),
        memoryless(oracle, seed, "noisy", uniform_noise),
    ]
    frame = pd.concat([*agents, *memoryless_agents], ignore_index=True)
    return A.bias_cells(frame, n_boot=50, n_perm=500)


def test_bias_and_confidence_cells_are_those_of_the_whole_analysis() -> None:
    """What the tests below read through ``bias_cells`` and ``confidence_cells`` is exactly what
    ``analyze`` reports, and a whole analysis carries the decisions that state the strata."""
    frame = pd.concat([answered(STICKY, 1), answered("random", 1)], ignore_index=True)
    whole = A.analyze(frame, n_boot=50, n_perm=500)
    assert "nulls" in whole.decisions and "gold BEFORE" in whole.decisions["nulls"]
    cells = A.bias_cells(frame, n_boot=50, n_perm=500)
    assert cells == whole.models
    assert cells[f"biaslab/{STICKY}"] == results(1)[f"biaslab/{STICKY}"]  # others beside it
    assert A.confidence_cells(frame, n_perm=500) == whole.confidence


def test_memoryless_agents_are_not_confirmation_biased() -> None:
    """last-polarity and negation answer from the update alone: their BiasGap is exactly their
    null (p = 1) even where the raw BiasGap is large. random is significant at the nominal rate
    (the 20-seed bench: 0-2 of 20 seeds per split); here at most one of its six cells."""
    random_significant = 0
    for seed in (1, 2):
        for topology in ("default", "linear", "tree"):
            for agent in ("last-polarity", "negation"):
                cell = results(seed)[f"biaslab/{agent}"][topology]
                assert cell.bias_gap_excess == pytest.approx(0.0, abs=1e-9), (agent, topology)
                assert cell.bias_gap_null_p == 1.0, (agent, topology)
            random = results(seed)["biaslab/random"][topology]
            p = random.bias_gap_null_p
            # a random agent is rarely right before a revision: its null may have nothing to test
            assert p is not None or "bias_gap_null_p" in random.undefined
            random_significant += p is not None and p < 0.05
        raw = results(seed)["biaslab/last-polarity"]["default"].bias_gap
        assert raw is not None and raw > 0.3  # the raw gap alone would call it biased
    assert random_significant <= 1


def test_sticky_agent_is_detected_where_its_revisions_have_stratum_mates() -> None:
    """Hard/default: enough C2 turns share their stratum with a stable turn (30 of 110 at seed 1)
    for the p=0.9 sticky agent's excess to stand out at the floor of 500 permutations. At n = 40
    on easy only 2-4 C2 turns per topology have such a stratum-mate, so the null can test little
    there (the bench runs n = 150)."""
    hard = A.bias_cells(answered(STICKY, 1, "hard"), n_boot=50, n_perm=500)
    cell = hard[f"biaslab/{STICKY}"]["default"]
    assert cell.null_tested["bias_gap"] >= 20
    assert cell.bias_gap_excess is not None and cell.bias_gap_excess > 0.05
    assert cell.bias_gap_null_p is not None and cell.bias_gap_null_p < 0.005
    assert cell.bias_gap_null_hi is not None and cell.bias_gap is not None
    assert cell.bias_gap > cell.bias_gap_null_hi
    assert cell.know_but_dont_output_excess is not None
    assert cell.know_but_dont_output_excess > 0.05
    assert cell.know_but_dont_output_null_p is not None
    assert cell.know_but_dont_output_null_p < 0.005


def test_an_agent_that_never_revises_a_yes_is_anchored_beyond_its_null() -> None:
    """sticky p=1 keeps every yes to the end: more flipping sections end anchored than when its
    final answers are exchanged with stable turns of the same stratum."""
    found = results(1)
    cell = found["biaslab/sticky?p=1"]["default"]
    assert cell.anchoring_rate_excess is not None and cell.anchoring_rate_excess > 0.03
    assert cell.anchoring_rate_null_p is not None and cell.anchoring_rate_null_p < 0.01
    random = found["biaslab/random"]["default"]
    assert random.anchoring_rate_null_p is not None and random.anchoring_rate_null_p >= 0.05


def test_every_bias_metric_carries_its_null_fields() -> None:
    cell = results(1)[f"biaslab/{STICKY}"]["default"]
    dumped = cell.model_dump()
    for metric in BIAS_METRICS:
        for suffix in NULL_SUFFIXES:
            key = metric + suffix
            assert key in dumped, key
            assert dumped[key] is not None or key in cell.undefined, key


def test_oracle_sits_on_its_null() -> None:
    for topology, cell in results(1)["biaslab/oracle"].items():
        assert cell.bias_gap_excess in (0.0, None), topology
        assert cell.bias_gap_null_p in (1.0, None), topology


def hard_trees(seed: int) -> tuple[Item, ...]:
    return items_of("hard", seed, 30, "tree")


def test_confidence_that_tracks_distance_is_not_structural_blindness() -> None:
    """The calibrated agent is always right and its confidence only follows distance: its signal
    ratio sits within its null (exchanged within distance), while its confidence slope is far
    outside the null that exchanges confidences across distances."""
    frame = agent_frame(hard_trees(3), ["calibrated"], seed=3)
    cell = A.confidence_cells(frame, n_perm=500)["biaslab/calibrated"]["tree"]["hard"]
    assert cell.signal_ratio is not None and cell.signal_ratio_null_p is not None
    assert cell.signal_ratio_null_p >= 0.05
    assert cell.confidence_slope is not None and cell.confidence_slope < 0
    assert cell.confidence_slope_null_p is not None and cell.confidence_slope_null_p < 0.01
    assert cell.spearman_on_path_null_p is not None and cell.spearman_on_path_null_p < 0.01
    assert cell.spearman_on_path is not None and cell.spearman_on_path < -0.5
    assert cell.per_hop_slope is not None and cell.per_hop_slope < 0
    assert cell.per_hop_slope_p is not None and cell.per_hop_slope_p < 0.001


# ---- memoryless agents with a heterogeneous accuracy profile (test-local: answers drawn per turn
# from the turn's own gold and what its update determines, never from the agent's earlier answers)

#: update kinds that can revise an answer (what the update alone tells about a revision)
REVISING_KINDS = {
    "exception",
    "class-exception",
    "source-rule",
    "source-claim",
    "bypass",
    "cross-link",
}
ErrorRate = Callable[[Any], float]


def memoryless(oracle: pd.DataFrame, seed: int, name: str, error: ErrorRate) -> pd.DataFrame:
    """The oracle's answers, each turn wrong with probability ``error(turn)`` (a uniformly drawn
    wrong label), independently of every other answer: memoryless by construction."""
    rng = np.random.default_rng(seed_sequence(seed, "memoryless", name))
    df = oracle.copy()
    flip = rng.random(len(df)) < np.array([error(row) for row in df.itertuples()])
    pick = rng.random(len(df))
    predicted = []
    for wrong, u, kind, gold in zip(flip, pick, df["kind"], df["gold"], strict=True):
        labels = EFFECT_LABELS if kind == "effect" else ENTAILMENT_LABELS
        others = [label for label in labels if label != gold]
        predicted.append(others[int(u * len(others))] if wrong else gold)
    df["predicted"] = predicted
    df["correct"] = df["predicted"] == df["gold"]
    df["model"] = f"test/{name}"
    df["label_probs"] = None
    return df


def far_and_revising(row: Any) -> float:
    """Worse far from the subject and on update kinds that can revise."""
    far = isinstance(row.distance, int | float) and not pd.isna(row.distance) and row.distance > 2
    return (0.35 if far else 0.05) + (0.2 if row.update_type in REVISING_KINDS else 0.0)


def uniform_noise(row: Any) -> float:
    """Right three times in four on every question, entailment and effect alike."""
    return 0.25


OVERRIDE_AND_KNOW = ("know_but_dont_output", "c3_override_rate", "c3inh_override_rate")


def test_memoryless_accuracy_profiles_are_absorbed_by_every_null() -> None:
    """An agent right with a probability that depends only on the current turn (distance, update
    kind, or nothing) is not confirmation-biased: over two seeds x three topologies its
    BiasGap, anchoring, override and know-but-don't-output nulls reject at most at the nominal
    rate. Before, know-but-don't-output exchanged effect answers across effect golds: a uniformly
    noisy agent's "no effect" answers from unchanged turns scored as wrong on C2 turns."""
    tested = rejected = 0
    for seed in (1, 2):
        for agent in ("test/heterogeneous", "test/noisy"):
            for topology in ("default", "linear", "tree"):
                cell = results(seed)[agent][topology]
                for metric in ("bias_gap", "anchoring_rate", *OVERRIDE_AND_KNOW):
                    p = getattr(cell, f"{metric}_null_p")
                    if p is not None:
                        tested += 1
                        rejected += p < 0.05
    assert tested >= 30
    assert rejected <= max(2, round(0.1 * tested)), (rejected, tested)


def test_the_sticky_agent_never_overrides() -> None:
    """sticky answers every effect question right and keeps its yes on C2; it never overrides,
    so its C3/C3inh excess is 0 (not the -0.36 an earlier null gave by exchanging effect answers
    across effect golds)."""
    for seed in (1, 2):
        cells = results(seed)[f"biaslab/{STICKY}"]
        assert cells["default"].c3_override_rate_excess == pytest.approx(0.0, abs=0.02)
        for topology in ("linear", "tree"):
            cell = cells[topology]
            excess = cell.c3inh_override_rate_excess
            if excess is None:  # no C3inh turn shares its stratum with another update turn
                assert "c3inh_override_rate_excess" in cell.undefined, topology
            else:
                assert excess == pytest.approx(0.0, abs=0.02), topology


def test_shortcut_agents_sit_on_their_override_and_know_nulls() -> None:
    for seed in (1, 2):
        for agent in ("last-polarity", "negation", "random"):
            for topology, cell in results(seed)[f"biaslab/{agent}"].items():
                for metric in OVERRIDE_AND_KNOW:
                    p = getattr(cell, f"{metric}_null_p")
                    if agent == "random":
                        assert p is None or p >= 0.01, (agent, topology, metric)
                    else:
                        assert p in (None, 1.0), (agent, topology, metric)


def test_sticky_is_anchored_beyond_its_null_and_memoryless_agents_are_not() -> None:
    """Final answers are exchanged with stable turns (entered with a right prior, gold kept),
    never with the turns a clinging agent clings through."""
    cell = results(1)[f"biaslab/{STICKY}"]["default"]
    assert cell.anchoring_rate_excess is not None and cell.anchoring_rate_excess > 0.03
    assert cell.anchoring_rate_null_p is not None and cell.anchoring_rate_null_p < 0.05
    for seed in (1, 2):
        for agent in MEMORYLESS:
            for topology, cell in results(seed)[f"biaslab/{agent}"].items():
                p = cell.anchoring_rate_null_p
                assert p is None or p >= 0.01, (agent, topology)


def test_anchoring_subset_keeps_sections_whole() -> None:
    items = generate(resolve_config("easy", {"topology": "linear"}), 1, 5)
    rows = BiasRows.of(A.prepare(agent_frame(items, ["oracle"], seed=1)))
    keep = np.ones(len(rows.gold), dtype=bool)
    keep[rows.final[0]] = False
    part = rows.subset(keep)
    assert len(part.opening) == len(rows.opening) - 1
    assert (part.gold[part.final] == rows.gold[rows.final[1:]]).all()


def with_noisy_confidence(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Always right, with a confidence in the answer drawn afresh at every turn."""
    rng = np.random.default_rng(seed_sequence(seed, "noisy-confidence"))
    df = frame.copy()
    confidence = rng.uniform(0.4, 1.0, len(df))
    probs = []
    for kind, gold, p in zip(df["kind"], df["gold"], confidence, strict=True):
        labels = EFFECT_LABELS if kind == "effect" else ENTAILMENT_LABELS
        rest = (1 - p) / (len(labels) - 1)
        probs.append({label: float(p) if label == gold else rest for label in labels})
    df["label_probs"] = probs
    df["model"] = "test/noisy-confidence"
    return df


def test_an_always_correct_agent_shows_no_structural_blindness_on_trees() -> None:
    """Signal ratio and the confidence slope permute the confidence change they are computed on:
    an always-right agent whose confidence is noise has both within their nulls on trees."""
    rejected = tested = 0
    for seed in (1, 2, 3):
        frame = with_noisy_confidence(agent_frame(hard_trees(seed), ["oracle"], seed=seed), seed)
        cell = A.confidence_cells(frame, n_perm=500)["test/noisy-confidence"]
        for metric in ("signal_ratio", "confidence_slope", "spearman_on_path"):
            p = getattr(cell["tree"]["hard"], f"{metric}_null_p")
            assert p is not None, metric
            tested += 1
            rejected += p < 0.05
    assert rejected <= 1, (rejected, tested)


def test_count_designs_give_the_row_metrics_value() -> None:
    """Each metric the nulls draw from counts gives, from the observed count, the float the row
    metric gives on the observed answers, and after answers move among rows of one gold (the
    gaps' control rows, which the nulls never move, stay)."""
    frame = pd.concat([answered("random", 2), answered(STICKY, 2)], ignore_index=True)
    for _, part in A.prepare(frame).groupby("model"):
        rows = BiasRows.of(part)
        designs = rows.count_metrics()
        assert set(designs) == set(BIAS_METRICS) - {"anchoring_rate"}
        row_metrics = rows.metrics()
        rng = np.random.default_rng(0)
        for name, design in designs.items():
            observed = int((design.hits & design.counted).sum())
            expected = row_metrics[name](rows.answers[np.newaxis])
            got = design.metric(np.array([observed]))
            np.testing.assert_array_equal(got, expected)
            # any reshuffle of answers among rows of one gold: the count decides the value
            perm = np.arange(len(rows.gold))
            movable = ~(rows.mask("C1") | rows.kept_no)
            for gold in np.unique(rows.gold):
                at = np.flatnonzero((rows.gold == gold) & movable)
                perm[at] = rng.permutation(at)
            shuffled = rows.answers[perm]
            hits = design.hits[perm]
            total = int((hits & design.counted).sum())
            np.testing.assert_array_equal(
                design.metric(np.array([total])), row_metrics[name](shuffled[np.newaxis]), name
            )


def test_packed_strata_codes_equal_the_row_wise_unique() -> None:
    """strata_of packs the code tuple into one integer; the codes (and their order) are those of
    np.unique over the stacked columns, also where packing could overflow."""
    rng = np.random.default_rng(3)
    for _ in range(100):
        n, k = int(rng.integers(1, 200)), int(rng.integers(1, 6))
        cols = {str(i): rng.integers(0, int(rng.integers(1, 12)), n) for i in range(k)}
        stacked = np.stack(list(cols.values()), axis=1)
        expected = np.unique(stacked, axis=0, return_inverse=True)[1].ravel()
        np.testing.assert_array_equal(strata_of(cols, list(cols)), expected)
    wide = {str(i): rng.integers(0, 2**20, 50) for i in range(4)}  # 2^80 combinations
    stacked = np.stack(list(wide.values()), axis=1)
    expected = np.unique(stacked, axis=0, return_inverse=True)[1].ravel()
    np.testing.assert_array_equal(strata_of(wide, list(wide)), expected)
