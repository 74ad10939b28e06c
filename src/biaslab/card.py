"""The bias card: one row per model, one column per method, each cell a headline bias beside its
null, so "which human-like reasoning biases does this model show, how strongly, how sure are we?"
has one answer across the four probes.

Each suite turns its own results into cells (``Suite.card``): the headline value with its CI, the
value an agent without the bias would get (its null or chance level, with a band), the excess and
its p-value, plus the method's accuracy and unparsed rate. A cell counts as a flagged bias only when
its excess over the null is significant at the card's level; "not defined" always says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

CARD_SCHEMA_VERSION = 1
ALPHA = 0.05
#: above this unparsed rate a method's numbers describe the parser more than the model: the cell
#: is shown but never flagged (the fallacy paper excludes such models the same way)
MAX_UNPARSED = 0.2
#: column order of the card (methods without results are left out)
METHODS = ("defeasible", "tokenbias", "fallacy", "entrenchment")


class CardCell(BaseModel):
    """One model x method: the headline bias, its null, and whether the excess is significant."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    headline: str = Field(description="what the value measures, e.g. 'excess BiasGap (defeat)'")
    value: float | None = None
    ci: tuple[float, float] | None = None
    null: float | None = None
    null_band: tuple[float, float] | None = None
    null_label: str = "null"
    excess: float | None = None
    p: float | None = None
    #: how the p is named on the card, e.g. "p (Holm)" for an adjusted p
    p_label: str = "p"
    #: the smallest p the test can give (a permutation test: 1/(B+1), times k after Holm over k);
    #: a p at it is shown as "< floor" (rounded up), never as an exact value
    p_floor: float | None = None
    significant: bool = False
    n: int = 0
    accuracy: float | None = None
    unparsed: float | None = None
    detail: str = ""
    defined: bool = True
    reason: str | None = None

    @classmethod
    def undefined(cls, headline: str, reason: str, **extra: Any) -> CardCell:
        return cls(headline=headline, defined=False, reason=reason, **extra)


class CardRow(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    kind: str
    cells: dict[str, CardCell]


class BiasCard(BaseModel):
    """The whole card, as stored in ``results.json`` under ``card``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = CARD_SCHEMA_VERSION
    alpha: float = ALPHA
    methods: tuple[str, ...]
    rows: tuple[CardRow, ...]
    notes: dict[str, str] = Field(default_factory=dict)


def screened_cell(cell: CardCell) -> CardCell:
    """The cell as the card shows it: never flagged when most answers were unparsed."""
    if cell.unparsed is None or cell.unparsed <= MAX_UNPARSED:
        return cell
    note = f"unparsed {cell.unparsed:.0%} > {MAX_UNPARSED:.0%}: not interpreted"
    detail = f"{cell.detail}; {note}" if cell.detail else note
    return cell.model_copy(update={"significant": False, "detail": detail})


def _number(value: float | None, digits: int = 3) -> str:
    return (
        "n/a" if value is None else f"{value:+.{digits}f}" if value < 0 else f"{value:.{digits}f}"
    )


def _p_text(p: float, label: str, floor: float | None) -> str:
    """``p=0.012``; at the test's floor ``p < 0.0005`` (the floor rounded up to 2 significant
    digits); below 0.001 without a known floor ``p<0.001``."""
    if floor is not None and p <= floor * (1 + 1e-9):
        return f"{label} < {round_up(floor)}"
    return f"{label}={p:.3g}" if p >= 0.001 or floor is not None else f"{label}<0.001"


def round_up(value: float, digits: int = 2) -> str:
    """``value`` rounded up to ``digits`` significant digits (0.00049975 -> 0.0005)."""
    from decimal import ROUND_CEILING, Decimal

    exact = Decimal(repr(value))
    quantum = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    return format(exact.quantize(quantum, rounding=ROUND_CEILING).normalize(), "f")


def cell_text(cell: CardCell) -> str:
    """``0.412 [0.30, 0.52] vs null 0.05 [0.01, 0.10], p<0.001 *``, or ``n/a: why``."""
    if not cell.defined or cell.value is None:
        return f"n/a ({cell.reason})" if cell.reason else "n/a"
    text = _number(cell.value)
    if cell.ci is not None:
        text += f" [{_number(cell.ci[0], 2)}, {_number(cell.ci[1], 2)}]"
    if cell.null is not None:
        text += f" vs {cell.null_label} {_number(cell.null, 2)}"
        if cell.null_band is not None:
            text += f" [{_number(cell.null_band[0], 2)}, {_number(cell.null_band[1], 2)}]"
    if cell.p is not None:
        text += f", {_p_text(cell.p, cell.p_label, cell.p_floor)}"
    if cell.significant:
        text += " *"
    elif cell.unparsed is not None and cell.unparsed > MAX_UNPARSED:
        text += " (mostly unparsed)"
    return text


def _table_rows(card: BiasCard) -> list[list[str]]:
    rows = []
    for row in card.rows:
        line = [row.model + (" (plumbing)" if row.kind == "plumbing model" else "")]
        for method in card.methods:
            cell = row.cells[method]
            acc = "n/a" if cell.accuracy is None else f"{cell.accuracy:.2f}"
            unp = "n/a" if cell.unparsed is None else f"{cell.unparsed:.2f}"
            extra = f"; n {cell.n}; {cell.detail}" if cell.detail else ""
            line.append(f"{cell_text(cell)}; acc {acc}, unparsed {unp}{extra}")
        rows.append(line)
    return rows


def card_text(card: BiasCard) -> str:
    """The card for a terminal: one block per model (cells are too wide for one table row)."""
    lines = [f"Bias card (* = excess over the null significant at {card.alpha})"]
    for method in card.methods:
        lines.append(f"  {method}: {card.notes.get(method, '')}")
    for cells in _table_rows(card):
        lines.append("")
        lines.append(cells[0])
        for method, text in zip(card.methods, cells[1:], strict=True):
            lines.append(f"  {method:<13} {text}")
    return "\n".join(lines)


def card_markdown(card: BiasCard, figure: Path | None = None) -> str:
    from biaslab.report.tables import markdown_table

    parts = [
        "## Bias card",
        "One row per model, one column per method: the headline bias, its CI, what an agent "
        "without the bias would get (null or chance level, with its band), the p-value of the "
        f"excess, and the method's accuracy and unparsed rate. `*` marks an excess significant "
        f"at {card.alpha}; `n/a` says why a cell is not defined.",
        markdown_table(["model", *card.methods], _table_rows(card)),
        "\n".join(f"- **{m}**: {card.notes.get(m, '')}" for m in card.methods),
    ]
    if figure is not None:
        parts.append(f"![Bias card]({figure.name})")
    return "\n\n".join(parts)


def card_figure(card: BiasCard, path: Path) -> list[Path]:
    """The card as a figure for papers (SVG and PNG): a coloured cell only where the excess is
    significant, hatched grey where the cell is not defined."""
    from biaslab.report.figures import card_grid

    labels = [[cell_text(row.cells[m]).split(", p")[0] for m in card.methods] for row in card.rows]
    states = [
        [
            "undefined"
            if not row.cells[m].defined or row.cells[m].value is None
            else ("flagged" if row.cells[m].significant else "clear")
            for m in card.methods
        ]
        for row in card.rows
    ]
    models = [r.model + (" (plumbing)" if r.kind == "plumbing model" else "") for r in card.rows]
    headlines = [card.notes.get(m, m) for m in card.methods]
    return card_grid(path, models, list(card.methods), headlines, labels, states)


def significant_excess(excess: float | None, p: float | None, alpha: float = ALPHA) -> bool:
    """A bias is flagged when its excess over the null is positive and its p-value below alpha."""
    return excess is not None and p is not None and excess > 0 and p < alpha


def first_defined(values: Sequence[float | None]) -> float | None:
    return next((v for v in values if v is not None), None)
