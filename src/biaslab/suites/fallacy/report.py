"""Terminal tables and the Markdown section (with a figure) of the fallacy suite's results."""

from __future__ import annotations

from pathlib import Path

from biaslab.report.tables import fmt, markdown_table, text_table
from biaslab.suites.fallacy.analysis import FallacyResults
from biaslab.suites.fallacy.audit import REPORT_SAMPLE_SIZE, REPORT_SEED, readings_markdown

_RATE_HEADER = (
    "model",
    "order",
    "n",
    "unparsed",
    "accuracy",
    "incorrect",
    "fallacies",
    "FallacyRate",
    "95% CI",
    "chance",
    "chance band",
    "excess",
    "p",
    "paper label",
    "excluded",
)
_REVERSAL_HEADER = (
    "model", "pairs", "fallacies", "blocked", "blocked %", "95% CI", "z", "p",
    "paired", "only standard", "only reversed", "McNemar p",
)  # fmt: skip


def _rate_rows(results: FallacyResults) -> list[list[object]]:
    return [
        [
            r.model,
            r.order,
            r.n,
            r.parse_failure_rate,
            r.accuracy,
            r.incorrect,
            r.fallacies,
            r.fallacy_rate,
            r.fallacy_rate_ci,
            r.fallacy_rate_null,
            (r.fallacy_rate_null_lo, r.fallacy_rate_null_hi)
            if r.fallacy_rate_null is not None
            else None,
            r.fallacy_rate_excess,
            r.fallacy_rate_null_p,
            r.fallacy_rate_paper,
            r.excluded,
        ]
        for r in results.rows
    ]


_READING_HEADER = (
    "model", "order", "n", "strict", "lenient", "nothing follows", "undecided", "hedged",
    "refusals", "no answer line", "unreadable", "other",
)  # fmt: skip


def _reading_rows(results: FallacyResults) -> list[list[object]]:
    """How the answers were read: the parsed kinds flagged, the unparsed by kind."""
    return [
        [
            r.model,
            r.order,
            r.n,
            r.strict,
            r.lenient,
            r.nothing_follows,
            r.undecided,
            r.hedged,
            r.refusals,
            r.no_answer,
            r.unreadable,
            # answers without a recorded kind (files written before kinds were recorded)
            r.n
            - r.strict
            - r.lenient
            - r.nothing_follows
            - r.undecided
            - r.hedged
            - r.refusals
            - r.no_answer
            - r.unreadable,
        ]
        for r in results.rows
    ]


def _reversal_rows(results: FallacyResults) -> list[list[object]]:
    return [
        [
            r.model,
            r.pairs,
            r.fallacies_standard,
            r.blocked,
            r.blocked_rate,
            r.blocked_ci,
            r.test.statistic,
            r.test.pvalue,
            r.paired_pairs,
            None if r.mcnemar is None else r.mcnemar.b,
            None if r.mcnemar is None else r.mcnemar.c,
            None if r.mcnemar is None else r.mcnemar.pvalue,
        ]
        for r in results.reversal
    ]


def _capability_lines(results: FallacyResults) -> list[str]:
    cap = results.capability
    if cap is None:
        return []
    lines = [f"capability: {cap.n_models} models with a score and a FallacyRate"]
    for label, stat in (
        ("Pearson r", cap.pearson),
        ("Spearman rho", cap.spearman),
        ("exponential fit r (x, log y)", cap.exponential),
        ("accuracy Pearson r", cap.accuracy_pearson),
        ("accuracy Spearman rho", cap.accuracy_spearman),
    ):
        value = (
            f"{fmt(stat.statistic)} (p = {fmt(stat.pvalue)})"
            if stat.defined
            else f"n/a ({stat.reason})"
        )
        lines.append(f"  {label}: {value}")
    if cap.missing:
        lines.append(f"  no score for: {', '.join(cap.missing)}")
    return lines


#: what the chance level cannot rule out (the held-out answerers on the suite's docs page: answers
#: that reuse the premises' literals are ETR-predicted two to three times as often as chance)
PREMISE_CAVEAT = (
    "an excess over chance means ETR-like errors or a habit of repeating the premises' literals: "
    "the null does not tell them apart (see the held-out answerers in the fallacy docs)"
)


def _inconsistent_line(results: FallacyResults) -> list[str]:
    """A line when some answers are to problems with inconsistent premises (left out of
    FallacyRate and chance: every answer to them follows)."""
    counts = [f"{r.model} ({r.order}) {r.inconsistent}" for r in results.rows if r.inconsistent]
    if not counts:
        return []
    return [
        "answers to problems with inconsistent premises (everything follows; correct, left out "
        "of FallacyRate and chance): " + ", ".join(counts)
    ]


def tables(results: FallacyResults) -> str:
    parts = [
        f"fallacy: {results.n_rows} answers; FallacyRate = fallacies / incorrect parsed answers "
        "(robust ETR label), chance = random erring over the same problems with answers of the "
        f"same shape; {PREMISE_CAVEAT}",
        text_table(_RATE_HEADER, _rate_rows(results)),
        *_inconsistent_line(results),
        "",
        "answers read (nothing follows is a parsed answer; undecided, hedged, refusals unparsed):",
        text_table(_READING_HEADER, _reading_rows(results)),
    ]
    if results.reversal:
        parts += [
            "",
            "premise-order reversal (fallacies blocked):",
            text_table(_REVERSAL_HEADER, _reversal_rows(results)),
        ]
    summary = results.accuracy_summary
    if summary.models:
        parts += [
            "",
            f"accuracy over {summary.models} models: mean {fmt(summary.mean)}, sd {fmt(summary.sd)}, "
            f"min {fmt(summary.min)}, median {fmt(summary.median)}, max {fmt(summary.max)}",
        ]
    parts += _capability_lines(results)
    return "\n".join(parts)


def report(results: FallacyResults, out_dir: Path) -> str:
    from biaslab.report.figures import bar_chart

    standard = [r for r in results.rows if r.order == "standard"]
    figure = None
    if standard:
        figure = bar_chart(
            out_dir / "fallacy_rate.svg",
            [r.model for r in standard],
            {
                "FallacyRate": [r.fallacy_rate for r in standard],
                "chance level": [r.fallacy_rate_null for r in standard],
            },
            intervals={
                "FallacyRate": [r.fallacy_rate_ci for r in standard],
                "chance level": [
                    (r.fallacy_rate_null_lo, r.fallacy_rate_null_hi)
                    if r.fallacy_rate_null_lo is not None and r.fallacy_rate_null_hi is not None
                    else None
                    for r in standard
                ],
            },
            title="Share of errors that are ETR-predicted fallacies",
            ylabel="FallacyRate",
            ylim=(0.0, 1.0),
        )
    summary = results.accuracy_summary
    parts = [
        "## Fallacies (ETR)",
        "FallacyRate = ETR-predicted answers that do not follow logically, over all parsed answers "
        "that do not follow (robust ETR label; the paper's exact label in its own column), with a "
        "Wilson 95% CI. *Chance* is the rate an answerer erring on the same problems with answers "
        "of the same shapes, each chosen at random among the wrong answers of its shape over the "
        "problem's atoms (a conjunction of as many literals; other shapes: the problem's pooled "
        "share), would get: its exact Poisson-binomial mean and 95% band; *p* is the one-sided "
        "exact p-value of the excess. "
        f"{PREMISE_CAVEAT[0].upper() + PREMISE_CAVEAT[1:]}. "
        "Models with more than 20% unparsed answers are flagged *excluded*, as in the paper.",
        markdown_table(_RATE_HEADER, _rate_rows(results)),
        *(line[0].upper() + line[1:] + "." for line in _inconsistent_line(results)),
    ]
    if figure is not None:
        parts.append(f"![FallacyRate and chance level]({figure.name})")
    parts += [
        "### How the answers were read",
        "A reply saying that nothing follows is a parsed answer (logic's and ETR's verum). Replies "
        "that say the model cannot tell (*undecided*), that only say what might be (*hedged*), "
        "refusals, replies without an answer line and unreadable ones are unparsed, each counted. "
        "*Lenient* readings (the conjunction of the object-property pairs) are parsed and flagged.",
        markdown_table(_READING_HEADER, _reading_rows(results)),
    ]
    if results.reading_samples:
        parts += [
            "### Audit: answers of every kind and how they were read",
            f"Up to {REPORT_SAMPLE_SIZE} answers of each reply kind, drawn at random (seed "
            f"{REPORT_SEED}), each with its answer line, the reading in the problem's own words "
            "and, for an unparsed answer, why it was not read. Check a few: the reader must never "
            "turn an answer into a claim it does not make.",
            readings_markdown(results.reading_samples),
        ]
    if results.reversal:
        parts += [
            "### Premise-order reversal (the paper's Table 4)",
            "Blocked = a fallacy in the standard order whose reversed-order answer is correct; the "
            "z-test compares the fallacy proportions of the two orders (two-sided, the paper's); "
            "the paired exact McNemar test uses the problems parsed in both orders (fallacy in "
            "the standard order only vs in the reversed order only).",
            markdown_table(_REVERSAL_HEADER, _reversal_rows(results)),
        ]
    if summary.models:
        parts += [
            "### Accuracy across models (the paper's Table 3)",
            markdown_table(
                ("models", "mean", "sd", "min", "Q(0.25)", "median", "Q(0.75)", "max"),
                [
                    [
                        summary.models,
                        summary.mean,
                        summary.sd,
                        summary.min,
                        summary.q25,
                        summary.median,
                        summary.q75,
                        summary.max,
                    ]
                ],
            ),
        ]
    capability = _capability_lines(results)
    if capability:
        parts += [
            "### FallacyRate against capability",
            "\n".join(f"- {line.strip()}" for line in capability),
        ]
    parts += ["### Decisions", "\n".join(f"- {d}" for d in results.decisions)]
    return "\n\n".join(parts)
