"""The report layer: one Markdown document (plus HTML, SVG figures and results.json) from every
suite's results.

The report opens with where its numbers come from — every log read, its status, model, roles, seed,
preset and how many of its samples were used, and which duplicate runs were collapsed — so a reader
never has to trust a table blindly. Suites write their own sections with the helpers in
:mod:`biaslab.report.tables` and :mod:`biaslab.report.figures`; this module assembles them and
converts Markdown to HTML with markdown-it-py (the CommonMark implementation Inspect's dependencies
already bring). Undefined values print as ``n/a`` and are greyed and hatched in the HTML, so they
can never be mistaken for a zero.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from biaslab.errors import BiaslabError

if TYPE_CHECKING:
    from biaslab.analysis import Analysis
    from biaslab.card import BiasCard

_HTML_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>biaslab report</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
  line-height: 1.45; color: #222; }}
div.table {{ max-width: 100%; overflow-x: auto; margin: 1rem 0; }}
table {{ border-collapse: collapse; font-size: 0.85rem; }}
th, td {{ border: 1px solid #ccc; padding: 0.2rem 0.45rem; text-align: right; white-space: nowrap; }}
th {{ background: #f3f3f3; white-space: normal; min-width: 3.5rem; max-width: 11rem;
  vertical-align: bottom; }}
p, li {{ overflow-wrap: anywhere; }}
pre {{ overflow-x: auto; }}
th:first-child, td:first-child {{ text-align: left; }}
td.na {{ color: #777; background: repeating-linear-gradient(45deg, #eee 0 4px, #fafafa 4px 8px); }}
img {{ max-width: 100%; height: auto; display: block; margin: 0.5rem 0 1.5rem; }}
code {{ background: #f4f4f4; padding: 0 0.2rem; }}
blockquote {{ border-left: 4px solid #d98c2b; margin: 1rem 0; padding: 0.3rem 1rem;
  background: #fff7ec; }}
</style></head><body>
{body}
</body></html>
"""

NOT_DEFINED = "n/a"


def markdown_to_html(markdown: str) -> str:
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown)
    body = re.sub(r"<td([^>]*)>n/a</td>", r'<td\1 class="na">n/a</td>', body)
    # a wide table scrolls inside its own box, never the page
    body = body.replace("<table>", '<div class="table"><table>').replace(
        "</table>", "</table></div>"
    )
    return _HTML_HEAD.format(body=body)


def provenance_section(analysis: Analysis) -> str:
    """Where the numbers come from: the logs, what each holds, and what was collapsed."""
    from biaslab.analysis import PROVENANCE_HEADER, provenance_cells
    from biaslab.kinds import model_kind
    from biaslab.report.tables import markdown_table

    notes = "\n".join(f"- {note}" for note in analysis.notes)
    if not analysis.provenance:  # a file of answers: its notes count the rows left out
        read = f"## Provenance\n\nAnswers read from `{analysis.source}` (not Inspect logs)."
        return f"{read}\n\n{notes}" if notes else read
    header = [*PROVENANCE_HEADER[:-1], "samples used"]
    rows = [provenance_cells(r, markdown=True) for r in analysis.provenance]
    parts = [
        "## Provenance",
        f"Logs read from `{analysis.source}`. Each answer counts once per run identity (suite, "
        "generator version, config, seed, model and its arguments, model roles, generation "
        "settings), whatever was re-run; `samples used` says how many of a log's samples the "
        "analysis kept.",
        markdown_table(header, rows),
    ]
    if notes:
        parts.append(notes)
    plumbing = sorted(
        {r.model for r in analysis.provenance if model_kind(r.model) == "plumbing model"}
    )
    if plumbing:
        parts.append(
            f"> **{', '.join(plumbing)}: plumbing model.** The embedded SmolLM2-135M answers near "
            "chance; its rows show that the pipeline runs end to end offline, not how a capable "
            "model reasons."
        )
    return "\n\n".join(parts)


def prepare_output_dir(out_dir: Path) -> Path:
    """Create the report's directory and prove it takes a file, so a read-only or full location
    fails in one line before a long analysis rather than after it."""
    import tempfile

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BiaslabError(f"cannot create {out_dir}: {exc.strerror or exc}") from exc
    if not out_dir.is_dir():
        raise BiaslabError(f"cannot write the report: {out_dir} is not a directory")
    try:
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except OSError as exc:
        raise BiaslabError(
            f"cannot write the report into {out_dir}: {exc.strerror or exc}"
        ) from exc
    return out_dir


def write_report(analysis: Analysis, out_dir: Path) -> Path:
    """Write ``report.md``, ``report.html``, ``results.json`` and figures into ``out_dir``;
    returns the Markdown path."""
    from biaslab import __version__
    from biaslab.analysis import write_document
    from biaslab.suites.registry import get_suite

    prepare_output_dir(out_dir)
    intro = (
        f"# biaslab report\n\nbiaslab {__version__}. Suites: {', '.join(analysis.results)}. "
        "The same numbers, as data: [results.json](results.json). "
        f"`{NOT_DEFINED}` marks a value the data cannot define (the reason is in results.json)."
    )
    sections = [intro, provenance_section(analysis)]
    card = analysis.card()
    if card is not None and len(card.methods) > 1:
        sections.append(_card_section(card, out_dir))
    for name, result in analysis.results.items():
        try:
            sections.append(get_suite(name).report(result, out_dir))
        except OSError as exc:  # a figure could not be written
            raise BiaslabError(
                f"cannot write the report into {out_dir}: {exc.strerror or exc}"
            ) from exc
    markdown = "\n\n".join(sections).rstrip() + "\n"
    md_path = out_dir / "report.md"
    _write(md_path, markdown)
    _write(out_dir / "report.html", markdown_to_html(markdown))
    write_document(analysis, out_dir / "results.json")
    return md_path


def _card_section(card: BiasCard, out_dir: Path) -> str:
    from biaslab.card import card_figure, card_markdown

    try:
        svg, _ = card_figure(card, out_dir / "bias_card.svg")
    except OSError as exc:
        raise BiaslabError(
            f"cannot write the report into {out_dir}: {exc.strerror or exc}"
        ) from exc
    return card_markdown(card, svg)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise BiaslabError(f"cannot write {path}: {exc.strerror or exc}") from exc
