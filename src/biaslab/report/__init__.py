"""The report layer: one Markdown document (plus HTML and PNG figures) from every suite's results.

Suites write their own sections (tables and figures) with the helpers in :mod:`biaslab.report.tables`
and :mod:`biaslab.report.figures`; this module assembles them and converts Markdown to HTML with
markdown-it-py (the CommonMark implementation Inspect's dependencies already bring).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError

_HTML_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>biaslab report</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; }}
table {{ border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }}
th, td {{ border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
img {{ max-width: 100%; }}
code {{ background: #f4f4f4; }}
</style></head><body>
{body}
</body></html>
"""


def markdown_to_html(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return _HTML_HEAD.format(body=MarkdownIt("commonmark").enable("table").render(markdown))


def write_report(results: Mapping[str, Any], out_dir: Path) -> Path:
    """Write ``report.md``, ``report.html`` and figures into ``out_dir``; returns the Markdown path."""
    from biaslab import __version__
    from biaslab.suites.registry import get_suite

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BiaslabError(f"cannot create {out_dir}: {exc.strerror or exc}") from exc
    sections = [f"# biaslab report\n\nbiaslab {__version__}. Suites: {', '.join(results)}.\n"]
    for name, result in results.items():
        sections.append(get_suite(name).report(result, out_dir))
    markdown = "\n\n".join(sections).rstrip() + "\n"
    md_path = out_dir / "report.md"
    md_path.write_text(markdown, encoding="utf-8")
    (out_dir / "report.html").write_text(markdown_to_html(markdown), encoding="utf-8")
    return md_path
