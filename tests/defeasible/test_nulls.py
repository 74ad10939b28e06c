"""Every bias metric beside its permutation null, proved with the reference agents: the biased
agent is detected, memoryless ones are not (a small version of ``bench/bench_bias_nulls.py``)."""

from __future__ import annotations

from functools import cache

import pytest

from biaslab.stats.permutation import NULL_SUFFIXES
from biaslab.suites.defeasible import analysis as A
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.inprocess import agent_frame

MEMORYLESS = ("last-polarity", "negation", "random")
STICKY = "sticky?p=0.9"
BIAS_METRICS = (
    "bias_gap",
    "bias_gap_defeat",
    "bias_gap_withhold",
    "odds_ratio",
    "anchoring_rate",
    "c3_override_rate",
    "c3inh_override_rate",
    "know_but_dont_output",
)


@cache
def results(
    seed: int, difficulty: str = "easy", agents: tuple[str, ...] = (*MEMORYLESS, STICKY, "oracle")
) -> A.DefeasibleResults:
    items = generate(resolve_config(difficulty, {}), seed, 40)
    return A.analyze(agent_frame(items, agents, seed=seed), n_boot=50, n_perm=500)


def test_memoryless_agents_are_not_confirmation_biased() -> None:
    """last-polarity and negation answer from the update alone: their BiasGap is exactly their
    null (p = 1) even where the raw BiasGap is large. random is significant at the nominal rate
    (the 20-seed bench: 0-2 of 20 seeds per split); here at most one of its six cells."""
    random_significant = 0
    for seed in (1, 2):
        for topology in ("default", "linear", "tree"):
            for agent in ("last-polarity", "negation"):
                cell = results(seed).models[f"biaslab/{agent}"][topology]
                assert cell.bias_gap_excess == pytest.approx(0.0, abs=1e-9), (agent, topology)
                assert cell.bias_gap_null_p == 1.0, (agent, topology)
            p = results(seed).models["biaslab/random"][topology].bias_gap_null_p
            assert p is not None
            random_significant += p < 0.05
        raw = results(seed).models["biaslab/last-polarity"]["default"].bias_gap
        assert raw is not None and raw > 0.3  # the raw gap alone would call it biased
    assert random_significant <= 1


@pytest.mark.parametrize(
    ("difficulty", "topologies"), [("hard", ("default", "linear")), ("easy", ("default",))]
)
def test_sticky_agent_is_detected_on_default_and_linear(
    difficulty: str, topologies: tuple[str, ...]
) -> None:
    """Excess > 0.3 at p < 0.005 (500 permutations: the smallest p is 0.002). The bench's 20-seed
    table: hard 20/20 seeds on both, easy default 19/20; on easy linear the excess is 0.17-0.29
    in 9 of 20 seeds, always at p < .001."""
    found = results(1, difficulty, (STICKY,)) if difficulty == "hard" else results(1)
    for topology in topologies:
        cell = found.models[f"biaslab/{STICKY}"][topology]
        assert cell.bias_gap_excess is not None and cell.bias_gap_excess > 0.3, topology
        assert cell.bias_gap_null_p is not None and cell.bias_gap_null_p < 0.005, topology
        assert cell.bias_gap_null_hi is not None and cell.bias_gap is not None
        assert cell.bias_gap > cell.bias_gap_null_hi


def test_an_agent_that_never_revises_a_yes_is_anchored_beyond_its_null() -> None:
    """sticky p=1 keeps every yes to the end: all flipping yes-sections end anchored, more than
    when its final answers are exchanged with same-stratum turns of other conversations."""
    cell = results(1, "easy", ("sticky?p=1", "random")).models["biaslab/sticky?p=1"]["linear"]
    assert cell.anchoring_rate_excess is not None and cell.anchoring_rate_excess > 0.1
    assert cell.anchoring_rate_null_p is not None and cell.anchoring_rate_null_p < 0.01
    random = results(1, "easy", ("sticky?p=1", "random")).models["biaslab/random"]["linear"]
    assert random.anchoring_rate_null_p is not None and random.anchoring_rate_null_p >= 0.05


def test_every_bias_metric_carries_its_null_fields() -> None:
    cell = results(1).models[f"biaslab/{STICKY}"]["default"]
    dumped = cell.model_dump()
    for metric in BIAS_METRICS:
        for suffix in NULL_SUFFIXES:
            key = metric + suffix
            assert key in dumped, key
            assert dumped[key] is not None or key in cell.undefined, key
    assert "nulls" in results(1).decisions and "gold BEFORE" in results(1).decisions["nulls"]


def test_oracle_sits_on_its_null() -> None:
    for topology, cell in results(1).models["biaslab/oracle"].items():
        assert cell.bias_gap_excess in (0.0, None), topology
        assert cell.bias_gap_null_p in (1.0, None), topology


@cache
def calibrated(seed: int) -> A.DefeasibleResults:
    items = generate(resolve_config("hard", {"topology": "tree"}), seed, 30)
    return A.analyze(agent_frame(items, ["calibrated"], seed=seed), n_boot=50, n_perm=500)


def test_confidence_that_tracks_distance_is_not_structural_blindness() -> None:
    """The calibrated agent is always right and its confidence only follows distance: its signal
    ratio sits within its null (exchanged within distance), while its confidence slope is far
    outside the null that exchanges confidences across distances."""
    cell = calibrated(3).confidence["biaslab/calibrated"]["tree"]["hard"]
    assert cell.signal_ratio is not None and cell.signal_ratio_null_p is not None
    assert cell.signal_ratio_null_p >= 0.05
    assert cell.confidence_slope is not None and cell.confidence_slope < 0
    assert cell.confidence_slope_null_p is not None and cell.confidence_slope_null_p < 0.01
    assert cell.spearman_on_path_null_p is not None and cell.spearman_on_path_null_p < 0.01
    assert cell.spearman_on_path is not None and cell.spearman_on_path < -0.5
    assert cell.per_hop_slope is not None and cell.per_hop_slope < 0
    assert cell.per_hop_slope_p is not None and cell.per_hop_slope_p < 0.001
