"""The token-bias suite as the CLI, the Inspect task and the report see it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from biaslab.schema import Item
from biaslab.suites.registry import Suite
from biaslab.suites.tokenbias import checks as _checks
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
    "incomplete",
    "acc original",
    "acc twin",
    "change",
    "null band",
    "MDE",
    "n12",
    "n21",
    "alternative",
    "method",
    "p",
    "p (BH)",
    "rejected",
)


def _card(results: Any) -> Any:
    from biaslab.suites.tokenbias.card import card_cells

    return card_cells(results)


def _analyze(frame: pd.DataFrame, params: Mapping[str, str] | None = None) -> BaseModel:
    """``-p test=exact|paper`` (default exact) chooses the McNemar rule."""
    from biaslab.suites.tokenbias.analysis import analysis_options, analyze

    return analyze(frame, **analysis_options(params or {}))


def _tables(results: Any) -> str:
    from biaslab.suites.tokenbias.analysis import tables

    return tables(results)


def _label_stats(items: Sequence[Item]) -> dict[str, Any]:
    stats = _checks.label_stats(items)
    stats["twin_problems"] = _checks.check_twins(items)
    stats["duplicate_prompts"] = _checks.duplicate_prompts(items)
    stats["duplicate_problems"] = _checks.duplicate_problems(items)
    return stats


def _read_answers(path: Path) -> pd.DataFrame:
    from biaslab.suites.tokenbias.external import read_answers

    return read_answers(path)


def _describe() -> list[str]:
    """Pool sizes of the default preset: how many distinct problems --n can ask for, counted as a
    reasoner counts them (names, towns, option order and framing are no difference)."""
    from biaslab.suites.tokenbias.families import strata
    from biaslab.suites.tokenbias.pools import capacity

    config = _config.Config()
    sizes = [
        f"{family} {hypothesis} {capacity([s.pool for s in strata(config, family, hypothesis)]):,}"
        for family, hypothesis in _config.combinations(config)
    ]
    return [
        "distinct problems per family/hypothesis (default preset; a larger --n is an error): "
        + "; ".join(sizes),
        "horses with -p horses_numbers=classic or a numbers twin: one problem (25 horses, 5 lanes, "
        "top 3) shown by every pair, tested as one cluster",
    ]


def _band(test: Any) -> str | None:
    lo, hi = test.accuracy_change_null_lo, test.accuracy_change_null_hi
    return None if lo is None or hi is None else f"[{lo:+.2f}, {hi:+.2f}]"


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
            t.n_incomplete_pairs,
            t.accuracy_original,
            t.accuracy_twin,
            t.accuracy_change,
            _band(t),
            t.mde,
            t.n12,
            t.n21,
            t.alternative,
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
        "`n12` = original right and twin wrong, `n21` = the reverse; the McNemar test runs in the "
        "direction the paper expects for the hypothesis (two-sided where none is justified; the "
        "method column says whether it is the exact binomial or the paper's normal approximation), "
        f"with Benjamini–Hochberg within each hypothesis at α = {results.alpha}. Syllogisms are "
        "tested by validity. Unparsed answers count as "
        f"{results.unparsed}. The null band is the central 95% of the accuracy change when the two "
        "answers of each pair are exchanged (an answerer blind to the perturbation). Pairs that "
        "share a problem (a member with the same question, names and option order aside) are one "
        "cluster, and each test counts one pair per cluster. MDE is the smallest |accuracy "
        "change| the test detects with 80% power at raw α given its discordant pairs (exact "
        f"binomial). McNemar rule: {results.test_rule}. " + _seed_note(results),
        *(f"**Warning:** {warning}." for warning in results.warnings()),
        *(f"Note: {note}." for note in results.notes()),
        markdown_table(_REPORT_COLUMNS, rows),
        "### Rejected null hypotheses (as in the paper's Figure 4; ✓ rejected, ✗ not)",
        markdown_table(["model", "mode", *grid.columns], grid_rows),
    ]
    if results.positions:
        parts += [
            "### Position preference",
            "Accuracy on the originals of the tested pairs by where the correct option stood (0 = "
            "first), beside the null of equal accuracy at every position (the pooled accuracy); "
            "Fisher's exact test for two positions, chi-square for more, Benjamini–Hochberg over "
            "the rows. Both members of a pair share the position, so a position preference moves "
            "no pair into the McNemar tables; it shows here.",
            markdown_table(
                [
                    "family",
                    "model",
                    "accuracy by position",
                    "null",
                    "spread",
                    "method",
                    "p (BH)",
                    "preference",
                ],
                [
                    [
                        f.family,
                        f.model,
                        ", ".join(
                            f"{p}: {a:.2f} (n {k})"
                            for p, a, k in zip(f.positions, f.accuracy, f.n, strict=True)
                        ),
                        f.accuracy_null,
                        f.spread,
                        f.method,
                        f.p_adjusted,
                        f.rejected,
                    ]
                    for f in results.positions
                ],
            ),
        ]
    if results.seed_tests:
        parts += [
            "### Per seed (hypothesis rejected in k of the seeds)",
            markdown_table(
                ["hypothesis", "model", "seeds", "rejected in"],
                [[h, m, seeds, k] for h, m, k, seeds in results.seed_rejections()],
            ),
        ]
    if figure is not None:
        parts.append(f"![Matched tables]({figure.name})")
    return "\n\n".join(parts)


def _seed_note(results: Any) -> str:
    if len(results.seeds) <= 1:
        return ""
    return (
        f"Seeds {', '.join(map(str, results.seeds))} are pooled, one pair per cluster across the "
        "seeds; each seed is also tested on its own."
    )


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
    read_answers=_read_answers,
    describe=_describe,
    card=_card,
    analysis_params=("test",),
)
