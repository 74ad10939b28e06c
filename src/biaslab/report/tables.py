"""Plain-text and Markdown tables; undefined values print as "n/a" (never as 0), with their reason
kept in results.json."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

#: below this a float is rounding noise (0.5 - 0.5 computed two ways is 2.2e-16), printed as 0
ZERO_BELOW = 1e-9

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)


def fmt(value: object, digits: int = 3) -> str:
    """A cell at the metric's precision: ``digits`` decimals; a genuinely small value (a p-value of
    3e-5) in scientific notation rather than as 0.000; rounding noise (|x| < 1e-9) as 0."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        if abs(value) < ZERO_BELOW:
            value = 0.0
        if value != 0 and abs(value) < 10 ** (-digits):
            return f"{value:.1e}"
        text = f"{value:.{digits}f}"
        return text[1:] if text.startswith("-") and not text.strip("-0.") else text
    if isinstance(value, tuple | list) and len(value) == 2:
        return f"[{fmt(value[0], digits)}, {fmt(value[1], digits)}]"
    return str(value)


def markdown_cell(text: str) -> str:
    """``text`` as one Markdown table cell: a pipe would end the cell and a line break the row
    (a setup label "claims | cot" must stay one cell), and raw HTML outside code spans would be
    passed into report.html as markup, so these are escaped; Markdown the cell means (code spans,
    emphasis, links) is kept."""
    text = " ".join(text.splitlines())
    pieces = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        pieces.append(_escape_html(text[last : span.start()]))
        pieces.append(span.group(0))
        last = span.end()
    pieces.append(_escape_html(text[last:]))
    return "".join(pieces).replace("|", "\\|")


def _escape_html(text: str) -> str:
    return text.replace("<", "\\<").replace("&", "\\&")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = [markdown_cell(str(name)) for name in header]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(markdown_cell(fmt(cell)) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [list(header)] + [[" ".join(fmt(cell).splitlines()) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in cells
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
