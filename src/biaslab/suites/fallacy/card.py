"""The fallacy cell of the bias card: FallacyRate (standard premise order) beside its chance
level, flagged when the excess over chance is significant."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from biaslab.card import ALPHA, CardCell
from biaslab.suites.fallacy.analysis import FallacyResults

HEADLINE = "FallacyRate (share of errors that are ETR-predicted), beside chance"


def card_cells(results: FallacyResults) -> Mapping[str, CardCell]:
    """model -> cell, from the standard-order row (the paper's headline measure)."""
    cells: dict[str, CardCell] = {}
    for row in results.rows:
        if row.order != "standard":
            continue
        common: dict[str, Any] = {
            "n": row.incorrect,
            "accuracy": row.accuracy,
            "unparsed": row.parse_failure_rate,
        }
        if row.fallacy_rate is None:
            reason = row.reason or "FallacyRate undefined"
            cells[row.model] = CardCell.undefined(HEADLINE, reason, **common)
            continue
        band = None
        if row.fallacy_rate_null_lo is not None and row.fallacy_rate_null_hi is not None:
            band = (row.fallacy_rate_null_lo, row.fallacy_rate_null_hi)
        flag = " (over 20% unparsed: the paper would exclude it)" if row.excluded else ""
        paper = "n/a" if row.fallacy_rate_paper is None else f"{row.fallacy_rate_paper:.3f}"
        cells[row.model] = CardCell(
            headline=HEADLINE,
            value=row.fallacy_rate,
            ci=row.fallacy_rate_ci,
            null=row.fallacy_rate_null,
            null_band=band,
            null_label="chance",
            excess=row.fallacy_rate_excess,
            p=row.fallacy_rate_null_p,
            significant=row.fallacy_rate_null_p is not None and row.fallacy_rate_null_p < ALPHA,
            detail=f"{row.fallacies} of {row.incorrect} errors are fallacies; "
            f"paper label {paper}{flag}",
            **common,
        )
    return cells
