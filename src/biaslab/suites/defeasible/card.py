"""The defeasible cell of the bias card: excess BiasGap (defeat) — how much more often the model is
right when an update confirms its belief (C1) than when a more specific rule defeats it (C2, gold
yes -> no), beyond its permutation null: what an answerer with the model's own accuracy profile
over the update's strata, whose answer does not depend on its own prior, would show
(``nulls.py``; answering from what was true earlier in the section counts as perseverance)."""

from __future__ import annotations

from collections.abc import Mapping

from biaslab import stats
from biaslab.card import CardCell, significant_excess
from biaslab.suites.defeasible.results import DefeasibleResults, TopologyResult

HEADLINE = "excess BiasGap (defeat) over its permutation null"
#: the cells a card chooses among: each topology once (the pooled inheritance cell repeats two)
TOPOLOGIES = ("default", "linear", "tree")
#: below this many C1 turns, or defeat turns the null could test, the cell carries a caution
THIN = 10
METRIC = "bias_gap_defeat"


def _tested(cells: Mapping[str, TopologyResult]) -> list[tuple[str, TopologyResult]]:
    return [
        (t, cells[t])
        for t in TOPOLOGIES
        if t in cells
        and cells[t].bias_gap_defeat_excess is not None
        and cells[t].bias_gap_defeat_null_p is not None
    ]


def permutation_floor(cell: TopologyResult, metric: str = METRIC) -> float | None:
    """The smallest p the cell's permutation test can give: 1/(B+1) over its B defined
    permutations (``stats`` keeps B and how many left the metric undefined)."""
    found = cell.stats.get(f"{metric}_null", {})
    n_perm = found.get("n_perm")
    if not isinstance(n_perm, int) or n_perm < 1:
        return None
    return 1.0 / (n_perm - int(found.get("n_perm_undefined") or 0) + 1)


def cautions(cell: TopologyResult) -> list[str]:
    """Why a cell's verdict rests on few turns (thin C1 or few testable defeat turns)."""
    found = []
    n_c1 = cell.condition_counts.get("C1", 0)
    if n_c1 < THIN:
        found.append(f"caution: only {n_c1} C1 turns")
    tested = cell.null_tested.get(METRIC, 0)
    if tested < THIN:
        found.append(f"caution: the null could test only {tested} defeat turns")
    return found


def _detail(topology: str, cell: TopologyResult, n_topologies: int) -> str:
    n_defeat = cell.c2_by_transition.get("yes->no")
    parts = [
        f"{topology} reasoning",
        f"raw BiasGap (defeat) {cell.bias_gap_defeat:+.3f} = Acc(C1) {cell.c1_accuracy:.2f} "
        f"(n {cell.condition_counts.get('C1', 0)}) - Acc(C2 defeat) "
        f"{cell.c2_defeat_accuracy:.2f} (n {0 if n_defeat is None else n_defeat.n})"
        if cell.bias_gap_defeat is not None
        and cell.c1_accuracy is not None
        and cell.c2_defeat_accuracy is not None
        else "raw BiasGap (defeat) undefined",
        f"null mean {cell.bias_gap_defeat_null:+.3f}"
        if cell.bias_gap_defeat_null is not None
        else "no null mean",
        f"{cell.null_tested.get(METRIC, 0)} of {cell.null_candidates.get(METRIC, 0)} defeat "
        "turns testable",
        f"p Holm-adjusted over {n_topologies} topologies",
        *cautions(cell),
    ]
    return "; ".join(parts)


def card_cells(results: DefeasibleResults) -> Mapping[str, CardCell]:
    """model -> cell: the topology whose excess is most significant, its p Holm-adjusted over the
    topologies the model was tested on (so answering three topologies is not three chances). The
    value is the excess; its CI is the raw gap's bootstrap CI shifted by the null mean."""
    out: dict[str, CardCell] = {}
    for model, cells in sorted(results.models.items()):
        turns = sum(c.n_turns for t, c in cells.items() if t in TOPOLOGIES)
        accuracy = _weighted(cells, "entailment_accuracy")
        unparsed = _weighted(cells, "unparsed_rate")
        tested = _tested(cells)
        if not tested:
            out[model] = CardCell.undefined(
                HEADLINE,
                "no defeat (yes->no) update met a yes prior beside a stable turn of its stratum "
                "in any topology",
                n=turns,
                accuracy=accuracy,
                unparsed=unparsed,
            )
            continue
        adjusted = stats.adjust_pvalues([c.bias_gap_defeat_null_p for _, c in tested])
        index = min(range(len(tested)), key=lambda i: (adjusted.adjusted[i] or 1.0, i))
        topology, cell = tested[index]
        p = adjusted.adjusted[index]
        out[model] = _cell(topology, cell, p, len(tested), turns, accuracy, unparsed)
    return out


def _cell(
    topology: str,
    cell: TopologyResult,
    p: float | None,
    n_topologies: int,
    turns: int,
    accuracy: float | None,
    unparsed: float | None,
) -> CardCell:
    null = cell.bias_gap_defeat_null
    band = ci = None
    if null is not None:
        if cell.bias_gap_defeat_null_lo is not None and cell.bias_gap_defeat_null_hi is not None:
            band = (cell.bias_gap_defeat_null_lo - null, cell.bias_gap_defeat_null_hi - null)
        if cell.bias_gap_defeat_ci is not None:
            ci = (cell.bias_gap_defeat_ci[0] - null, cell.bias_gap_defeat_ci[1] - null)
    floor = permutation_floor(cell)
    return CardCell(
        headline=HEADLINE,
        value=cell.bias_gap_defeat_excess,
        ci=ci,
        null=0.0,
        null_band=band,
        null_label="null",
        excess=cell.bias_gap_defeat_excess,
        p=p,
        p_label="p (Holm)",
        p_floor=None if floor is None else min(1.0, floor * n_topologies),
        significant=significant_excess(cell.bias_gap_defeat_excess, p),
        n=turns,
        accuracy=accuracy,
        unparsed=unparsed,
        detail=_detail(topology, cell, n_topologies),
    )


def _weighted(cells: Mapping[str, TopologyResult], attr: str) -> float | None:
    pairs = [
        (getattr(c, attr), c.n_turns)
        for t, c in cells.items()
        if t in TOPOLOGIES and getattr(c, attr) is not None
    ]
    total = sum(n for _, n in pairs)
    return sum(v * n for v, n in pairs) / total if total else None
