"""The defeasible cell of the bias card: excess BiasGap (defeat) — how much more often the model is
right when an update confirms its belief than when a more specific rule defeats it, beyond what a
memoryless answerer with its own accuracy profile would show (the permutation null)."""

from __future__ import annotations

from collections.abc import Mapping

from biaslab import stats
from biaslab.card import CardCell, significant_excess
from biaslab.suites.defeasible.results import DefeasibleResults, TopologyResult

HEADLINE = "excess BiasGap (defeat) over its permutation null"
#: the cells a card chooses among: each topology once (the pooled inheritance cell repeats two)
TOPOLOGIES = ("default", "linear", "tree")


def _tested(cells: Mapping[str, TopologyResult]) -> list[tuple[str, TopologyResult]]:
    return [
        (t, cells[t])
        for t in TOPOLOGIES
        if t in cells
        and cells[t].bias_gap_defeat_excess is not None
        and cells[t].bias_gap_defeat_null_p is not None
    ]


def card_cells(results: DefeasibleResults) -> Mapping[str, CardCell]:
    """model -> cell: the topology whose excess is most significant, its p Holm-adjusted over the
    topologies the model was tested on (so answering three topologies is not three chances)."""
    out: dict[str, CardCell] = {}
    for model, cells in sorted(results.models.items()):
        turns = sum(c.n_turns for t, c in cells.items() if t in TOPOLOGIES)
        accuracy = _weighted(cells, "entailment_accuracy")
        unparsed = _weighted(cells, "unparsed_rate")
        tested = _tested(cells)
        if not tested:
            out[model] = CardCell.undefined(
                HEADLINE,
                "no defeat (yes->no) update met a yes prior in any topology",
                n=turns,
                accuracy=accuracy,
                unparsed=unparsed,
            )
            continue
        adjusted = stats.adjust_pvalues([c.bias_gap_defeat_null_p for _, c in tested])
        index = min(range(len(tested)), key=lambda i: (adjusted.adjusted[i] or 1.0, i))
        topology, cell = tested[index]
        p = adjusted.adjusted[index]
        band = None
        if cell.bias_gap_defeat_null_lo is not None and cell.bias_gap_defeat_null_hi is not None:
            band = (cell.bias_gap_defeat_null_lo, cell.bias_gap_defeat_null_hi)
        out[model] = CardCell(
            headline=HEADLINE,
            value=cell.bias_gap_defeat,
            ci=cell.bias_gap_defeat_ci,
            null=cell.bias_gap_defeat_null,
            null_band=band,
            excess=cell.bias_gap_defeat_excess,
            p=p,
            significant=significant_excess(cell.bias_gap_defeat_excess, p),
            n=turns,
            accuracy=accuracy,
            unparsed=unparsed,
            detail=f"{topology} reasoning; Holm over {len(tested)} topologies",
        )
    return out


def _weighted(cells: Mapping[str, TopologyResult], attr: str) -> float | None:
    pairs = [
        (getattr(c, attr), c.n_turns)
        for t, c in cells.items()
        if t in TOPOLOGIES and getattr(c, attr) is not None
    ]
    total = sum(n for _, n in pairs)
    return sum(v * n for v, n in pairs) / total if total else None
