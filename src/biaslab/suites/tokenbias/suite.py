"""The token-bias suite as the CLI, the Inspect task and the report see it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from biaslab.schema import Item
from biaslab.suites.registry import Suite
from biaslab.suites.tokenbias import config as _config
from biaslab.suites.tokenbias import generate as _generate

if TYPE_CHECKING:
    import pandas as pd

_REPORT_COLUMNS = (
    "hypothesis",
    "family",
    "model",
    "mode",
    "pairs",
    "acc original",
    "acc twin",
    "change",
    "n12",
    "n21",
    "method",
    "p",
    "p (BH)",
    "rejected",
)


def _analyze(frame: pd.DataFrame) -> BaseModel:
    from biaslab.suites.tokenbias.analysis import analyze

    return analyze(frame)


def _tables(results: Any) -> str:
    from biaslab.suites.tokenbias.analysis import tables

    return tables(results)


def _label_stats(items: Sequence[Item]) -> dict[str, Any]:
    stats = _generate.label_stats(items)
    stats["twin_problems"] = _generate.check_twins(items)
    return stats


def _report(results: Any, out_dir: Path) -> str:
    from biaslab.report.figures import matched_tables
    from biaslab.report.tables import markdown_table

    rows = [
        [
            t.hypothesis,
            t.family,
            t.model,
            t.mode,
            t.n_pairs,
            t.accuracy_original,
            t.accuracy_twin,
            t.accuracy_change,
            t.n12,
            t.n21,
            t.method,
            t.p_value if t.defined else None,
            t.p_adjusted,
            t.rejected,
        ]
        for t in results.tests
    ]
    grid = results.rejected_table()
    grid_rows = [[model, mode, *grid.loc[(model, mode)].tolist()] for model, mode in grid.index]
    figure = matched_tables(
        out_dir / "tokenbias_matched_tables.png",
        [f"{t.hypothesis} {t.family} | {t.model} | {t.mode}" for t in results.tests],
        [(t.n11, t.n12, t.n21, t.n22) for t in results.tests],
    )
    parts = [
        "## Token bias",
        "Each test pairs an original problem with its exact twin (only the perturbed tokens differ). "
        "`n12` = original right and twin wrong, `n21` = the reverse; the one-sided McNemar test "
        "runs in the direction the paper expects for the hypothesis (exact binomial when "
        "n12 + n21 ≤ 10, normal approximation otherwise), with Benjamini–Hochberg within each "
        f"hypothesis at α = {results.alpha}. Unparsed answers count as {results.unparsed}.",
        markdown_table(_REPORT_COLUMNS, rows),
        "### Rejected null hypotheses (as in the paper's Figure 4; ✓ rejected, ✗ not)",
        markdown_table(["model", "mode", *grid.columns], grid_rows),
    ]
    if figure is not None:
        parts.append(f"![Matched tables]({figure.name})")
    return "\n\n".join(parts)


SUITE = Suite(
    name="tokenbias",
    description="Token bias: template-generated conjunction-fallacy, syllogism and "
    "twenty-five-horses problems with exact twins, and one-sided matched-pair McNemar tests.",
    generator_version=f"tokenbias-{_generate.GENERATOR_VERSION}",
    default_preset="default",
    default_n=50,
    presets=_config.PRESETS,
    parameter_docs=_config.PARAMETER_DOCS,
    resolve_config=_config.resolve_config,
    generate=_generate.generate,
    label_stats=_label_stats,
    analyze=_analyze,
    tables=_tables,
    report=_report,
)
