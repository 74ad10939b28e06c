"""The bias card: cells beside their nulls, flagged only when significant, n/a with a reason, and a
figure; and the grid's per-suite parameters."""

from __future__ import annotations

from pathlib import Path

import pytest

from biaslab.card import (
    BiasCard,
    CardCell,
    CardRow,
    card_figure,
    card_markdown,
    card_text,
    screened_cell,
)
from biaslab.errors import BiaslabError
from biaslab.grid import split_params


def card() -> BiasCard:
    flagged = CardCell(
        headline="excess BiasGap (defeat)",
        value=0.8,
        ci=(0.6, 0.95),
        null=0.3,
        null_band=(0.1, 0.5),
        excess=0.5,
        p=0.0004,
        significant=True,
        accuracy=0.7,
        unparsed=0.0,
    )
    clear = CardCell(headline="M", value=0.01, null=0.0, p=0.4, null_label="judge baseline")
    undefined = CardCell.undefined("M", "no results for this model")
    rows = (
        CardRow(
            model="m/biased", kind="model", cells={"defeasible": flagged, "entrenchment": clear}
        ),
        CardRow(
            model="biaslab/local",
            kind="plumbing model",
            cells={"defeasible": clear, "entrenchment": undefined},
        ),
    )
    return BiasCard(
        methods=("defeasible", "entrenchment"),
        rows=rows,
        notes={"defeasible": "d", "entrenchment": "e"},
    )


def test_text_shows_value_null_p_and_flags() -> None:
    text = card_text(card())
    assert "0.800 [0.60, 0.95] vs null 0.30 [0.10, 0.50], p<0.001 *" in text
    assert "vs judge baseline 0.00, p=0.4;" in text and "0.4 *" not in text
    assert "n/a (no results for this model)" in text
    assert "biaslab/local (plumbing)" in text


def test_markdown_and_figure(tmp_path: Path) -> None:
    svg, png = card_figure(card(), tmp_path / "bias_card.svg")
    assert svg.suffix == ".svg" and png.suffix == ".png" and png.stat().st_size > 5_000
    markdown = card_markdown(card(), svg)
    assert "## Bias card" in markdown and "![Bias card](bias_card.svg)" in markdown
    assert "| model | defeasible | entrenchment |" in markdown


def test_mostly_unparsed_cells_are_never_flagged() -> None:
    noisy = CardCell(headline="h", value=0.9, excess=0.5, p=0.001, significant=True, unparsed=0.6)
    screened = screened_cell(noisy)
    assert not screened.significant and "not interpreted" in screened.detail
    assert screened_cell(card().rows[0].cells["defeasible"]).significant


def test_grid_parameters_name_their_suite() -> None:
    suites = ("defeasible", "tokenbias")
    params = split_params({"defeasible.topology": "linear", "tokenbias.n": "8"}, suites)
    assert params == {"defeasible": {"topology": "linear"}, "tokenbias": {"n": "8"}}
    with pytest.raises(BiaslabError, match=r"SUITE\.KEY=VALUE"):
        split_params({"topology": "linear"}, suites)
    with pytest.raises(BiaslabError, match="positive integer"):
        split_params({"tokenbias.n": "0"}, suites)
