"""The bias nulls on the held-out agent family (``heldout.py``, written apart from the null code):
a small version of ``bench/bench_bias_nulls.py --family heldout``."""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest

from biaslab.card import cell_text, round_up
from biaslab.suites.defeasible import analysis as A
from biaslab.suites.defeasible.card import card_cells
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.heldout import MEMORYLESS, answers, heldout_frame
from biaslab.suites.defeasible.inprocess import agent_frame
from biaslab.suites.defeasible.nulls import BIAS_NULLS, BIAS_STRATA, BiasRows, strata_of
from biaslab.suites.defeasible.report import tables

GAPS = ("bias_gap_defeat", "bias_gap_withhold", "bias_gap", "bias_gap_no_prior")
N_PERM = 500


@cache
def oracle(seed: int, n: int) -> pd.DataFrame:
    return agent_frame(generate(resolve_config("easy", {}), seed, n), ["oracle"], seed=seed)


@cache
def analysed(seed: int, n: int, agents: tuple[str, ...]) -> A.DefeasibleResults:
    return A.analyze(heldout_frame(oracle(seed, n), agents, seed), n_boot=50, n_perm=N_PERM)


def test_memoryless_agents_answer_without_reading_their_replies() -> None:
    """Replacing an agent's earlier replies changes none of its answers: they are drawn from the
    turn alone (the oracle's frame with every answer replaced gives the same answers)."""
    frame = oracle(5, 6).sort_values(["item_id", "turn"]).reset_index(drop=True)
    scrambled = frame.assign(predicted="unknown")
    for agent in MEMORYLESS:
        assert answers(frame, agent, 5) == answers(scrambled, agent, 5), agent
    assert answers(frame, "distance", 5) != answers(frame, "distance", 6)


def test_memoryless_agents_are_not_flagged_above_the_nominal_rate() -> None:
    """Two seeds, n = 40: every gap's null over 7 memoryless agents x 3 topologies rejects at
    about the nominal 5% (the bench: 20 seeds at n = 150 with binomial CIs)."""
    tested = rejected = 0
    for seed in (2001, 2002):
        for cells in analysed(seed, 40, tuple(MEMORYLESS)).models.values():
            for topology in ("default", "linear", "tree"):
                for metric in GAPS:
                    p = getattr(cells[topology], f"{metric}_null_p")
                    if p is not None:
                        tested += 1
                        rejected += p < 0.05
    assert tested >= 80, tested
    assert rejected <= max(3, round(0.1 * tested)), (rejected, tested)


@cache
def sticky() -> A.DefeasibleResults:
    return analysed(2003, 90, ("keeps-yes", "keeps-no"))


def test_each_sticky_agent_is_flagged_under_its_own_construct_only() -> None:
    """keeps-yes clings to a yes: defeat BiasGap, never the prior-no gap; keeps-no the reverse."""
    cells = sticky().models
    yes, no = cells["heldout/keeps-yes"]["linear"], cells["heldout/keeps-no"]["linear"]
    assert yes.bias_gap_defeat_excess is not None and yes.bias_gap_defeat_excess > 0.05
    assert yes.bias_gap_defeat_null_p is not None and yes.bias_gap_defeat_null_p < 0.01
    assert no.bias_gap_no_prior_excess is not None and no.bias_gap_no_prior_excess > 0.05
    assert no.bias_gap_no_prior_null_p is not None and no.bias_gap_no_prior_null_p < 0.01
    for topology in ("default", "linear", "tree"):
        assert cells["heldout/keeps-yes"][topology].bias_gap_no_prior_null_p in (1.0, None)
        assert cells["heldout/keeps-no"][topology].bias_gap_defeat_null_p in (1.0, None)


def test_perfect_c1_and_c2_with_no_raw_gap_has_no_excess() -> None:
    """keeps-no is right on every C1 and C2 turn (it clings only to a "no"): raw BiasGap 0, and
    no excess, because the "prior no -> gold yes" turns it fails never enter the defeat null."""
    for topology, cell in sticky().models["heldout/keeps-no"].items():
        assert cell.c1_accuracy in (1.0, None), topology
        assert cell.c2_accuracy in (1.0, None), topology
        for metric in ("bias_gap", "bias_gap_defeat", "bias_gap_withhold"):
            if getattr(cell, metric) is None:
                continue
            assert getattr(cell, metric) == 0.0, (topology, metric)
            excess = getattr(cell, f"{metric}_excess")
            assert excess is None or excess <= 1e-12, (topology, metric)
            assert getattr(cell, f"{metric}_null_p") in (1.0, None), (topology, metric)
    assert not card_cells(sticky())["heldout/keeps-no"].significant


def test_a_gap_null_exchanges_revisions_with_stable_turns_of_their_own_stratum_only() -> None:
    rows = BiasRows.of(A.prepare(heldout_frame(oracle(2003, 20), ("keeps-no",), 2003)))
    codes = strata_of(rows.columns, BIAS_STRATA)
    wrong_or_moving = ~rows.stable
    for name in ("bias_gap", "bias_gap_defeat", "bias_gap_withhold", "bias_gap_no_prior"):
        design = BIAS_NULLS[name]
        companions = design.companions(rows)
        assert not (companions & wrong_or_moving).any(), name
        tested = design.tested(rows)
        assert design.fixed is not None and not (design.fixed(rows) & companions).any(), name
        # every stratum a tested turn shares with companions holds exactly one gold after
        for code in np.unique(codes[tested]):
            assert len(np.unique(rows.gold[codes == code])) == 1, name


def test_card_shows_the_excess_its_holm_p_and_where_it_comes_from() -> None:
    cell = card_cells(sticky())["heldout/keeps-yes"]
    chosen = next(c for t, c in sticky().models["heldout/keeps-yes"].items() if t in cell.detail)
    assert cell.value == cell.excess == chosen.bias_gap_defeat_excess
    assert cell.p_label == "p (Holm)" and "Holm-adjusted over 3 topologies" in cell.detail
    assert "reasoning" in cell.detail and "null mean" in cell.detail
    assert cell.p_floor == pytest.approx(3 / (N_PERM + 1))
    text = cell_text(cell)
    assert "p (Holm)" in text and (
        f"< {round_up(3 / (N_PERM + 1))}" in text or cell.p is None or cell.p > cell.p_floor
    )


def test_report_lead_table_names_every_column_once_and_counts_zero_as_zero() -> None:
    text = tables(sticky())
    lead = next(b for b in text.split("\n\n") if "BiasGap, defeat" in b)
    header = lead.splitlines()[1].split()
    assert "defeat null mean" in lead.splitlines()[1] and "withhold gap CI" in lead.splitlines()[1]
    columns = [c.strip() for c in lead.splitlines()[1].split("  ") if c.strip()]
    assert len(columns) == len(set(columns)), columns
    assert header  # the table has a header line
    # linear has no withhold turns: a count of 0, not n/a
    linear = next(line for line in lead.splitlines() if "keeps-yes" in line and "linear" in line)
    assert " 0 " in linear
    assert f"< {round_up(1 / (N_PERM + 1))}" in text
