"""Every suite's report lines up: each Markdown table row has as many cells as its header, and each
HTML row as many ``<td>`` as the header has ``<th>`` (a cell holding a pipe, such as an
entrenchment setup label, or markup must stay one cell)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from biaslab.cli import main
from biaslab.report.tables import markdown_table

ENTRENCHMENT = ["--model", "biaslab/urn-entrenched?w=0.5", "--model", "biaslab/urn-bayes"]
RUNS = [
    ["defeasible", "--model", "biaslab/oracle", "--model", "biaslab/sticky?p=0.9", "--n", "1"],
    ["tokenbias", "--model", "biaslab/token-biased", "--n", "6", "-p", "family=linda"],
    ["entrenchment", *ENTRENCHMENT, "--judge", "biaslab/judge-reader", "--n", "6"],
    ["fallacy", "--model", "biaslab/etr", "--model", "biaslab/oracle", "--n", "4"],
]


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tables")
    logs = tmp / "logs"
    for run in RUNS:
        assert main(["run", *run, "--seed", "3", "--log-dir", str(logs), "--display", "none"]) == 0
    assert main(["report", str(logs), "-o", str(tmp / "out")]) == 0
    return tmp / "out"


def markdown_cells(line: str) -> int:
    """Cells of a Markdown table row: pipes that are not escaped, less the two at the ends."""
    return len(re.findall(r"(?<!\\)\|", line.strip())) - 1


def markdown_tables(markdown: str) -> list[list[str]]:
    tables: list[list[str]] = []
    current: list[str] = []
    for line in markdown.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    return [*tables, current] if current else tables


class RowCounter(HTMLParser):
    """Per table: the number of ``<th>`` in its header and of ``<td>`` in each body row."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[int, list[int]]] = []
        self._row: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append((0, []))
        elif tag == "tr":
            self._row = {"th": 0, "td": 0}
        elif tag in ("th", "td"):
            self._row[tag] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag != "tr":
            return
        rows = self.tables[-1][1]
        if self._row["th"]:
            self.tables[-1] = (self._row["th"], rows)
        else:
            rows.append(self._row["td"])


def test_every_suite_has_tables_in_the_report(report_dir: Path) -> None:
    markdown = (report_dir / "report.md").read_text(encoding="utf-8")
    for suite in ("Defeasible", "Token bias", "Belief entrenchment", "Fallacies"):
        section = markdown.split(f"## {suite}", 1)
        assert len(section) == 2, f"no {suite} section"
        assert markdown_tables(section[1].split("\n## ", 1)[0]), f"no table in {suite}"


def test_markdown_rows_have_as_many_cells_as_their_header(report_dir: Path) -> None:
    markdown = (report_dir / "report.md").read_text(encoding="utf-8")
    tables = markdown_tables(markdown)
    assert len(tables) >= 8
    for table in tables:
        width = markdown_cells(table[0])
        for row in table[1:]:
            assert markdown_cells(row) == width, f"{row}\nunder\n{table[0]}"


def test_html_rows_have_as_many_cells_as_their_header(report_dir: Path) -> None:
    counter = RowCounter()
    counter.feed((report_dir / "report.html").read_text(encoding="utf-8"))
    assert len(counter.tables) >= 8
    for header, rows in counter.tables:
        assert header > 0 and rows
        assert all(cells == header for cells in rows), (header, rows)


def test_a_cell_with_pipes_markup_and_line_breaks_stays_one_cell() -> None:
    from biaslab.report import markdown_to_html

    table = markdown_table(
        ["setup", "note"],
        [["claims | cot | judge 0.3", "a <td>x</td> & `a|b`"], ["two\nlines", 0.5]],
    )
    assert all(markdown_cells(line) == 2 for line in table.splitlines())
    counter = RowCounter()
    html = markdown_to_html(table)
    counter.feed(html)
    assert counter.tables == [(2, [2, 2])]
    assert "claims | cot | judge 0.3" in html and "<code>a|b</code>" in html
    assert "&lt;td&gt;x&lt;/td&gt; &amp;" in html


def test_a_card_cell_of_a_suite_the_model_skipped_says_so(report_dir: Path) -> None:
    markdown = (report_dir / "report.md").read_text(encoding="utf-8")
    card = markdown.split("## Bias card", 1)[1].split("\n## ", 1)[0]
    oracle = next(line for line in card.splitlines() if line.startswith("| biaslab/oracle"))
    assert "not run on tokenbias: no answers to read" in oracle
    assert "not run on defeasible" not in oracle


def test_an_agent_written_for_one_suite_says_so_in_the_others() -> None:
    from biaslab.analysis import not_run_reason

    assert (
        not_run_reason("biaslab/etr", "defeasible")
        == "a fallacy agent: it answers only fallacy questions"
    )
    assert not_run_reason("biaslab/urn-entrenched?w=0.5", "tokenbias").startswith("an entrenchment")
    assert (
        not_run_reason("biaslab/oracle", "tokenbias") == "not run on tokenbias: no answers to read"
    )
    assert not_run_reason("openai/etr", "defeasible").startswith("not run on defeasible")
