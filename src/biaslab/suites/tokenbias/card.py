"""The token-bias cell of the bias card: the share of hypotheses whose matched-pair test rejects
(after Benjamini–Hochberg), beside the level a model without token bias would reach, and the
largest accuracy shift with its permutation null."""

from __future__ import annotations

from collections.abc import Mapping

from biaslab.card import CardCell
from biaslab.suites.tokenbias.analysis import PairTest, TokenBiasResults

HEADLINE = "share of hypotheses rejected (BH), beside the test level"


def _largest_shift(tests: list[PairTest]) -> str:
    shifts = [t for t in tests if t.accuracy_change is not None]
    if not shifts:
        return ""
    top = max(shifts, key=lambda t: abs(t.accuracy_change or 0.0))
    band = ""
    if top.accuracy_change_null_lo is not None and top.accuracy_change_null_hi is not None:
        band = f" (null [{top.accuracy_change_null_lo:.2f}, {top.accuracy_change_null_hi:.2f}])"
    return f"largest accuracy shift {top.hypothesis} {top.family}: {top.accuracy_change:+.2f}{band}"


def card_cells(results: TokenBiasResults) -> Mapping[str, CardCell]:
    """model -> cell. Under no token bias each test rejects with probability at most alpha and,
    with BH, any rejection at all happens with probability at most alpha (Simes), so the cell is
    flagged when at least one hypothesis is rejected; p is the smallest BH-adjusted p-value."""
    cells: dict[str, CardCell] = {}
    for model in sorted({t.model for t in results.tests}):
        tests = [t for t in results.tests if t.model == model]
        defined = [t for t in tests if t.defined and t.p_adjusted is not None]
        pairs = sum(t.n_pairs for t in tests)
        accuracy = (
            sum((t.accuracy_original or 0.0) * t.n_pairs for t in tests) / pairs if pairs else None
        )
        unparsed = sum(t.n_unparsed_pairs for t in tests) / pairs if pairs else None
        if not defined:
            cells[model] = CardCell.undefined(
                HEADLINE,
                "no test defined (no discordant pairs)",
                n=pairs,
                accuracy=accuracy,
                unparsed=unparsed,
            )
            continue
        rejected = sum(t.rejected for t in defined)
        p = min(t.p_adjusted for t in defined if t.p_adjusted is not None)
        cells[model] = CardCell(
            headline=HEADLINE,
            value=rejected / len(defined),
            null=results.alpha,
            null_label="level",
            excess=rejected / len(defined) - results.alpha,
            p=p,
            significant=rejected > 0,
            n=pairs,
            accuracy=accuracy,
            unparsed=unparsed,
            detail=f"{rejected} of {len(defined)} tests rejected; {_largest_shift(defined)}",
        )
    return cells
