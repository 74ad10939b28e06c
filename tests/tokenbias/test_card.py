"""The token-bias cell of the bias card: the share of hypotheses rejected beside the level."""

from __future__ import annotations

import pandas as pd
import pytest

from biaslab.suites.tokenbias.analysis import analyze
from biaslab.suites.tokenbias.card import card_cells
from biaslab.suites.tokenbias.suite import SUITE


def _rows(
    model: str, family: str, hypothesis: str, counts: dict[tuple[bool, bool], int]
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for (x, y), count in counts.items():
        for index in range(count):
            pair = f"{model}-{family}-{hypothesis}-{x}-{y}-{index}"
            rows += [
                {"model": model, "family": family, "hypothesis": hypothesis, "mode": "direct",
                 "pair_id": pair, "variant": variant, "correct": correct, "parsed": True}
                for variant, correct in (("original", x), ("twin", y))
            ]  # fmt: skip
    return rows


def test_card_cells_flag_a_rejection_and_report_accuracy_and_n() -> None:
    biased = _rows("biased", "syllogism-invalid", "H4", {(True, False): 15, (True, True): 5})
    biased += _rows("biased", "horses", "H3", {(True, False): 2, (False, True): 2, (True, True): 6})
    flat = _rows("flat", "syllogism-invalid", "H4", {(True, True): 10, (False, False): 10})
    results = analyze(pd.DataFrame([*biased, *flat]))
    cells = card_cells(results)
    assert set(cells) == {"biased", "flat"}
    cell = cells["biased"]
    assert cell.significant and cell.value == pytest.approx(0.5) and cell.null == 0.05
    assert cell.n == 30 and cell.accuracy == pytest.approx((20 + 8) / 30)
    assert "1 of 2 tests rejected" in cell.detail and "H4 syllogism-invalid: -0.75" in cell.detail
    assert not cells["flat"].defined and "no discordant pairs" in (cells["flat"].reason or "")
    assert SUITE.card is not None and SUITE.card(results) == cells


def test_card_counts_the_independent_pairs_of_a_clustered_test() -> None:
    rows = _rows("m", "horses", "H3", {(True, False): 20})
    for row in rows:
        if row["variant"] == "original":
            row["problem_key"] = "classic"
    cell = card_cells(analyze(pd.DataFrame(rows)))["m"]
    assert cell.n == 1 and not cell.significant  # one problem: one cluster, nothing to reject
