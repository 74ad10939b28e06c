"""Terminal tables and the Markdown section (with figures) of the entrenchment results."""

from __future__ import annotations

from pathlib import Path

from biaslab.report.tables import fmt, markdown_table, text_table
from biaslab.suites.entrenchment.beliefs import ERROR_KINDS
from biaslab.suites.entrenchment.results import EntrenchmentResults, SetupResult

_MAIN = ("#", "setup", "questions", "pairs", "steps", "M", "CR1 95% CI", "p", "MDE", "M_IV",
         "judge baseline [CI]", "baseline M_IV [CI]", "baseline error r")  # fmt: skip
_DETAIL = ("#", "setup", "M classical p", "bins p", "first→last", "M side", "side effect", "M round",
           "Brier first", "Brier final", "unparsed", "failed", "capped", "notes")  # fmt: skip


def _ci(lo: float | None, hi: float | None) -> tuple[float, float] | None:
    return None if lo is None or hi is None else (lo, hi)


def _with_ci(value: float | None, lo: float | None, hi: float | None) -> object:
    if value is None or lo is None or hi is None:
        return value
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


def _main_row(index: int, s: SetupResult) -> list[object]:
    baseline = _with_ci(s.m_judge_baseline, s.m_judge_baseline_lo, s.m_judge_baseline_hi)
    if s.judge_baseline_refused is not None:
        baseline = f"n/a: {s.judge_baseline_refused}"
    baseline_iv = _with_ci(
        s.m_iv_judge_baseline, s.m_iv_judge_baseline_lo, s.m_iv_judge_baseline_hi
    )
    error_r = s.replicate_error_r if s.source == "judge_baseline" else s.judge_baseline_error_r
    return [
        index,
        s.label,
        s.n_questions,
        s.n_pairs,
        s.mean_steps,
        s.m,
        _ci(s.m_lo, s.m_hi),
        s.m_p,
        s.m_mde,
        s.m_iv,
        baseline,
        baseline_iv,
        error_r,
    ]


def _detail_row(index: int, s: SetupResult) -> list[object]:
    return [
        index,
        s.label,
        s.m_classical_p,
        s.m_bins_p,
        s.m_first_last,
        s.m_side,
        s.side_effect,
        s.m_round,
        s.brier_first,
        s.brier_final,
        s.unparsed_rate,
        s.failure_rate,
        s.n_capped,
        "; ".join(s.notes),
    ]


def _reason_table(results: EntrenchmentResults) -> tuple[list[str], list[list[object]]] | None:
    """Unparsed judgements per setup, counted by reason (only the reasons that occur)."""
    seen = {k for s in results.setups for k in s.unparsed_reasons}
    if not seen:
        return None
    kinds = [k for k in (*ERROR_KINDS, "other") if k in seen]
    header = ["#", "setup", "judgements", "unparsed", *kinds]
    rows: list[list[object]] = [
        [i, s.label, s.n_judgements, sum(s.unparsed_reasons.values())]
        + [s.unparsed_reasons.get(k, 0) for k in kinds]
        for i, s in enumerate(results.setups, start=1)
    ]
    return header, rows


_ACCURACY = ("#", "setup", "M", "abs(M)", "Brier first", "Brier final", "questions with truth")
_FACTORS = ("factor", "level", "vs", "shift of M", "CR1 95% CI", "p")


def _accuracy_rows(results: EntrenchmentResults) -> list[list[object]]:
    return [
        [i, s.label, s.m, abs(s.m), s.brier_first, s.brier_final, s.n_brier]
        for i, s in enumerate(results.setups, start=1)
        if s.source == "model" and s.m is not None and s.brier_final is not None
    ]


def _accuracy_line(results: EntrenchmentResults) -> str:
    link = results.accuracy
    if link is None:
        return ""
    if link.spearman_r is None:
        return f"Across setups, abs(M) vs final Brier: not computed ({link.note})."
    return (
        f"Across {link.n_setups} setups, abs(M) vs final Brier: Spearman rho {fmt(link.spearman_r)} "
        f"(p {fmt(link.spearman_p)}), Pearson r {fmt(link.pearson_r)} (p {fmt(link.pearson_p)})."
    )


def _factor_rows(results: EntrenchmentResults) -> list[list[object]]:
    regression = results.factors
    if regression is None:
        return []
    return [
        [e.factor, e.level, e.reference, e.shift, _ci(e.lo, e.hi), e.p] for e in regression.effects
    ]


def _factor_line(results: EntrenchmentResults) -> str:
    regression = results.factors
    if regression is None:
        return ""
    if not regression.effects:
        return f"M by setup factor: not fitted ({regression.note or 'no factor varies'})."
    text = (
        f"M by setup factor: one OLS over {regression.n_setups} setups ({regression.n_pairs} "
        f"pairs, {regression.n_questions} questions); M at the reference levels "
        f"{fmt(regression.m_reference)}; each row is the shift of M at a level, CR1 by question."
    )
    if regression.left_out:
        text += " Left out: " + "; ".join(regression.left_out) + "."
    return text


def tables(results: EntrenchmentResults) -> str:
    rows = [_main_row(i, s) for i, s in enumerate(results.setups, start=1)]
    details = [_detail_row(i, s) for i, s in enumerate(results.setups, start=1)]
    parts = [
        "Entrenchment: Martingale score per setup (per-step M, CR1 by question)",
        *([results.decisions["import"]] if "import" in results.decisions else []),
        text_table(_MAIN, rows),
        text_table(_DETAIL, details),
    ]
    reasons = _reason_table(results)
    if reasons is not None:
        parts += ["Unparsed judgements by reason", text_table(*reasons)]
    if _accuracy_rows(results):
        parts += [_accuracy_line(results), text_table(_ACCURACY, _accuracy_rows(results))]
    if results.factors is not None and results.factors.n_setups > 1:
        parts.append(_factor_line(results))
        if _factor_rows(results):
            parts.append(text_table(_FACTORS, _factor_rows(results)))
    return "\n\n".join(parts)


def _figures(results: EntrenchmentResults, out_dir: Path) -> list[str]:
    from biaslab.report.figures import bar_chart, forest_plot, scatter_fit, trajectory_lines

    numbered = [(i, s) for i, s in enumerate(results.setups, start=1)]
    setups = [s for _, s in numbered if s.m is not None]
    tag = {id(s): f"#{i}" for i, s in numbered}
    if not setups:
        return ["No setup has a Martingale score, so there are no figures."]
    parts = []
    forest = forest_plot(
        out_dir / "entrenchment_forest.svg",
        [f"{tag[id(s)]} {s.label}" for s in setups],
        [s.m for s in setups],
        [_ci(s.m_lo, s.m_hi) for s in setups],
        bands=[
            (s.m_judge_baseline, _ci(s.m_judge_baseline_lo, s.m_judge_baseline_hi)) for s in setups
        ],
        band_label="judge baseline (CR1 CI)",
        title="Martingale score per setup (CR1 95% CI)",
        xlabel="M (slope of Δb on b_prior, per step)",
    )
    parts.append(f"![Martingale score per setup]({forest.name})")
    panels = {
        f"{tag[id(s)]} {s.label}": {
            "x": s.figure.points_prior,
            "y": s.figure.points_delta,
            "bin_x": s.figure.bin_centres,
            "bin_y": s.figure.bin_means,
            "line_x": s.figure.line_x,
            "line_y": s.figure.line_y,
            "line_lo": s.figure.line_lo,
            "line_hi": s.figure.line_hi,
        }
        for s in setups
    }
    scatter = scatter_fit(
        out_dir / "entrenchment_scatter.svg",
        panels,
        title="Belief change vs prior: pairs, binned means (squares), OLS line and CR1 band",
        xlabel="b_prior",
        ylabel="Δb",
    )
    parts.append(f"![Belief change against prior]({scatter.name})")
    outcome_names = {None: "outcome unknown", 0: "outcome no", 1: "outcome yes"}
    lines = trajectory_lines(
        out_dir / "entrenchment_trajectories.svg",
        {
            f"{tag[id(s)]} {s.label}": [
                (t.beliefs, outcome_names[t.outcome]) for t in s.figure.trajectories
            ]
            for s in setups
        },
        title="Judged belief trajectories (first 40 per setup)",
        xlabel="step",
        ylabel="P(yes)",
    )
    parts.append(f"![Belief trajectories]({lines.name})")
    steps = sorted({k for s in setups for k in s.figure.step_counts})
    hist = bar_chart(
        out_dir / "entrenchment_steps.svg",
        [str(k) for k in steps],
        {tag[id(s)]: [float(s.figure.step_counts.get(k, 0)) for k in steps] for s in setups},
        title="Steps per trajectory (setups numbered as in the tables)",
        ylabel="trajectories",
    )
    parts.append(f"![Steps per trajectory]({hist.name})")
    rates = bar_chart(
        out_dir / "entrenchment_failures.svg",
        [tag[id(s)] for s in results.setups],
        {
            "unparsed beliefs": [s.unparsed_rate for s in results.setups],
            "failed trajectories": [s.failure_rate for s in results.setups],
        },
        title="Unparsed judgements and failed trajectories per setup",
        ylabel="share",
        ylim=(0.0, 1.0),
    )
    parts.append(f"![Unparsed and failed]({rates.name})")
    return parts


def _across_setups(results: EntrenchmentResults, out_dir: Path) -> list[str]:
    """|M| against accuracy, and M by setup factor, when there are setups to compare."""
    parts: list[str] = []
    rows = _accuracy_rows(results)
    if rows:
        parts += ["### abs(M) and accuracy across setups", _accuracy_line(results)]
        parts.append(markdown_table(_ACCURACY, rows))
        points = [
            (abs(s.m), s.brier_final)
            for s in results.model_setups()
            if s.m is not None and s.brier_final is not None
        ]
        if len(points) > 1:
            from biaslab.report.figures import scatter_fit

            figure = scatter_fit(
                out_dir / "entrenchment_m_brier.svg",
                {"model setups": {"x": [m for m, _ in points], "y": [b for _, b in points]}},
                title="abs(M) against the final belief's Brier score, one point per setup",
                xlabel="abs(M)",
                ylabel="Brier (final belief)",
                reference=None,
            )
            parts.append(f"![abs(M) against Brier]({figure.name})")
    if results.factors is not None and results.factors.n_setups > 1:
        parts += ["### M by setup factor", _factor_line(results)]
        if _factor_rows(results):
            parts.append(markdown_table(_FACTORS, _factor_rows(results)))
    return parts


def report(results: EntrenchmentResults, out_dir: Path) -> str:
    rows = [_main_row(i, s) for i, s in enumerate(results.setups, start=1)]
    details = [_detail_row(i, s) for i, s in enumerate(results.setups, start=1)]
    look_ahead = [s.label for s in results.setups if s.look_ahead]
    body = [
        "## Belief entrenchment (Martingale score)",
        "M is the OLS slope of the belief change Δb on the prior belief over consecutive judged "
        "steps (He et al., NeurIPS 2025): 0 for a Bayesian reasoner, positive when reasoning "
        "entrenches the prior. CIs and p-values are cluster-robust (CR1) by question with G−1 "
        "df; MDE is the smallest |M| detectable with 80% power. `judge baseline` is the same "
        "judge's M on built-in Bayesian urn reasoning — what the pipeline produces by itself — "
        "shown beside M, never subtracted (it is M's null in `results.json`: `m_null*`). M_IV "
        "instruments each judge replicate's prior by the other's: it removes the part of the "
        "noise bias due to noise that is independent across replicates and additive, not noise "
        "they share, nor the shrinkage of log-odds noise; `baseline M_IV` is what it leaves with "
        "this judge (the baseline's true M is 0) and `baseline error r` the correlation of the "
        "replicates' log-odds errors on the baseline, where the exact posterior is known.",
        markdown_table(_MAIN, rows),
        markdown_table(_DETAIL, details),
        "`capped`: trajectories whose steps were merged down to `max_steps` (their raw count is "
        "in the logs).",
    ]
    reasons = _reason_table(results)
    if reasons is not None:
        body += [
            "### Unparsed judgements by reason",
            "A belief is read only from the JSON field, a final `Belief:`/`Answer:` line or the "
            "answer token's logprobs; a number elsewhere in a reply (a step number, an id, a "
            "figure echoed from the question) is never read as one.",
            markdown_table(*reasons),
        ]
    if look_ahead:
        body.append(
            "**Exposed to look-ahead** (paper mode: one judge call scored every step after "
            "reading all of them): " + "; ".join(look_ahead)
        )
    body += _across_setups(results, out_dir)
    body += _figures(results, out_dir)
    body += ["### Decisions", "\n".join(f"- **{k}**: {v}" for k, v in results.decisions.items())]
    return "\n\n".join(body)
