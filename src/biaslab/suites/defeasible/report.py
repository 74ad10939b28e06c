"""Terminal tables, the Markdown report and its figures for the defeasible results."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from biaslab.card import round_up
from biaslab.report.tables import markdown_table, text_table
from biaslab.suites.defeasible.card import cautions, permutation_floor
from biaslab.suites.defeasible.conditions import ALL_DIFFICULTIES, CONDITIONS, ICC_BOOT, POOLED
from biaslab.suites.defeasible.results import (
    CellResult,
    ConfidenceCell,
    DefeasibleResults,
    EntityComparison,
    OrderComparison,
    SeedCell,
    TopologyResult,
)

# --------------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------------

#: a table: title, then (column header, attribute path) pairs; "ci.0"/"ci.1" index into a tuple
Spec = tuple[str, tuple[tuple[str, str], ...]]


def _split_columns(label: str, metric: str, count: str) -> tuple[tuple[str, str], ...]:
    """One gap's columns, each named after its gap (no two columns share a name)."""
    return (
        (f"n {label}", f"#{count}"),
        (f"{label} tested", f"#null_tested.{metric}"),
        (f"{label} gap", metric),
        (f"{label} gap CI", f"{metric}_ci"),
        (f"{label} null mean", f"{metric}_null"),
        (f"{label} null band", f"band:{metric}"),
        (f"{label} excess", f"{metric}_excess"),
        (f"{label} p", f"p:{metric}"),
    )


_NULL_GAP_SPEC: Spec = (
    "Confirmation bias beside its null: BiasGap, defeat (yes->no) and withhold (yes->unknown); "
    "excess = gap - null mean; p = one-sided permutation p; tested = revision turns the null "
    "could exchange (a stable turn shares their stratum)",
    (
        ("n C1", "#condition_counts.C1"),
        *_split_columns("defeat", "bias_gap_defeat", "c2_by_transition.yes->no.n"),
        *_split_columns("withhold", "bias_gap_withhold", "c2_by_transition.yes->unknown.n"),
        *_split_columns("pooled", "bias_gap", "condition_counts.C2"),
        ("cautions", "cautions"),
    ),
)
_NULL_OTHER_SPEC: Spec = (
    "Other bias metrics beside their nulls (excess = observed - null mean; p = permutation p)",
    (
        ("n kept no", "#n_kept_no"),
        *_split_columns("prior-no", "bias_gap_no_prior", "n_overturned_no"),
        ("OR", "odds_ratio"),
        ("OR null mean", "odds_ratio_null"),
        ("OR p", "p:odds_ratio"),
        ("n flipping", "#n_flipping_sections"),
        ("Anch.", "anchoring_rate"),
        ("Anch. null mean", "anchoring_rate_null"),
        ("Anch. excess", "anchoring_rate_excess"),
        ("Anch. p", "p:anchoring_rate"),
        ("n C3 eff", "#conditions.C3.n_effect"),
        ("C3-ovr", "c3_override_rate"),
        ("C3-ovr null mean", "c3_override_rate_null"),
        ("C3-ovr excess", "c3_override_rate_excess"),
        ("C3-ovr p", "p:c3_override_rate"),
        ("n C3inh", "#condition_counts.C3inh"),
        ("C3inh-ovr", "c3inh_override_rate"),
        ("C3inh-ovr null mean", "c3inh_override_rate_null"),
        ("C3inh-ovr excess", "c3inh_override_rate_excess"),
        ("C3inh-ovr p", "p:c3inh_override_rate"),
        ("n C2 eff", "#conditions.C2.n_effect"),
        ("know-not-output", "know_but_dont_output"),
        ("KNO null mean", "know_but_dont_output_null"),
        ("KNO excess", "know_but_dont_output_excess"),
        ("KNO p", "p:know_but_dont_output"),
    ),
)
_BIAS_SPEC: Spec = (
    "Paper metrics: BiasGap, odds ratio and McNemar (paper Table 15)",
    (
        ("n C1", "conditions.C1.n"),
        ("C1 acc", "c1_accuracy"),
        ("n C2", "conditions.C2.n"),
        ("C2 acc", "c2_accuracy"),
        ("Gap", "bias_gap"),
        ("Gap lo", "bias_gap_ci.0"),
        ("Gap hi", "bias_gap_ci.1"),
        ("OR", "odds_ratio"),
        ("OR lo", "odds_ratio_ci.0"),
        ("OR hi", "odds_ratio_ci.1"),
        ("pairs", "n_pairs"),
        ("McNemar p", "mcnemar_p"),
        ("Holm p", "mcnemar_p_holm"),
        ("gold-prior pairs", "n_pairs_gold_prior"),
        ("gold-prior Holm p", "mcnemar_gold_prior_p_holm"),
        ("defeat pairs", "n_pairs_defeat"),
        ("defeat Holm p", "mcnemar_defeat_p_holm"),
        ("withhold pairs", "n_pairs_withhold"),
        ("withhold Holm p", "mcnemar_withhold_p_holm"),
    ),
)
_CONDITION_SPEC: Spec = (
    "Update turns per congruence condition",
    tuple((c, f"condition_counts.{c}") for c in CONDITIONS),
)
_ANCHOR_SPEC: Spec = (
    "Anchoring, semantic override and metacognition (paper Tables 16-17)",
    (
        ("Anch.", "anchoring_rate"),
        ("flipping", "n_flipping_sections"),
        ("n C3", "conditions.C3.n_effect"),
        ("C3-ovr", "c3_override_rate"),
        ("n C3inh", "conditions.C3inh.n"),
        ("C3inh-ovr", "c3inh_override_rate"),
        ("n C1 eff", "conditions.C1.n_effect"),
        ("C1-eff", "c1_eff"),
        ("n C2 eff", "conditions.C2.n_effect"),
        ("C2-eff", "c2_eff"),
        ("eff gap", "metacognitive_gap"),
        ("C2-eff - C2 acc", "dissociation"),
        ("know-not-output", "know_but_dont_output"),
    ),
)
_ORDER_SPEC: Spec = (
    "Standard vs reversed question order (paper Table 18)",
    (
        ("Gap std", "standard.bias_gap"),
        ("Gap rev", "reversed.bias_gap"),
        ("C2-eff std", "standard.c2_eff"),
        ("C2-eff rev", "reversed.c2_eff"),
        ("C1-eff std", "standard.c1_eff"),
        ("C1-eff rev", "reversed.c1_eff"),
    ),
)
_ON_PATH_SPEC: Spec = (
    "On-path confidence vs distance (paper Table 13)",
    (
        ("n on-path", "n_on_path"),
        ("rho", "spearman_on_path"),
        ("p", "spearman_on_path_p"),
        ("per-hop beta", "per_hop_slope"),
        ("beta p", "per_hop_slope_p"),
        ("slope", "confidence_slope"),
        ("slope excess", "confidence_slope_excess"),
        ("slope p", "confidence_slope_null_p"),
        ("rho excess", "spearman_on_path_excess"),
        ("rho null p", "spearman_on_path_null_p"),
        ("Brier d<=2", "brier_short"),
        ("Brier d>2", "brier_long"),
        ("dBrier", "delta_brier"),
    ),
)
_OFF_PATH_SPEC: Spec = (
    "Off-path behaviour (paper Table 14)",
    (
        ("n off-path", "n_off_path"),
        ("intrusion", "intrusion_rate"),
        ("n with probs", "n_with_probs"),
        ("signal ratio", "signal_ratio"),
        ("SR null", "signal_ratio_null"),
        ("SR p", "signal_ratio_null_p"),
        ("off-path acc", "off_path_accuracy"),
        ("off-path rho", "spearman_off_path"),
        ("gold_conf", "mean_gold_conf"),
    ),
)
_SEED_SPEC: Spec = (
    "Accuracy across seeds (paper Table 11)",
    (
        ("seeds", "n_seeds"),
        ("mean", "mean"),
        ("std", "sd"),
        ("CV %", "cv_percent"),
        ("H", "kruskal_h"),
        ("p", "kruskal_p"),
        ("Holm p", "kruskal_p_holm"),
    ),
)


def _get(obj: Any, path: str) -> Any:
    """``obj.a.b`` / ``obj.ci.0`` / ``obj.counts.C1``; None when any step is missing."""
    for part in path.split("."):
        if obj is None:
            return None
        if isinstance(obj, tuple):
            obj = obj[int(part)]
        elif isinstance(obj, Mapping):
            obj = obj.get(part)
        else:
            obj = getattr(obj, part, None)
    return obj


def _value(obj: Any, path: str) -> Any:
    """:func:`_get`, plus: ``#path`` a count (0, never "n/a", when absent), ``band:metric`` the
    null's central band, ``p:metric`` the permutation p with its floor shown as "< floor",
    ``cautions`` the cell's thin-cell cautions."""
    if path.startswith("#"):
        return _get(obj, path[1:]) or 0
    if path.startswith("band:"):
        lo, hi = _get(obj, f"{path[5:]}_null_lo"), _get(obj, f"{path[5:]}_null_hi")
        return None if lo is None or hi is None else (lo, hi)
    if path.startswith("p:"):
        return _p_cell(obj, path[2:])
    if path == "cautions":
        return "; ".join(cautions(obj)) if isinstance(obj, TopologyResult) else None
    return _get(obj, path)


def _p_cell(cell: Any, metric: str) -> Any:
    p = _get(cell, f"{metric}_null_p")
    floor = permutation_floor(cell, metric) if isinstance(cell, TopologyResult) else None
    if p is None or floor is None or p > floor * (1 + 1e-9):
        return p
    return f"< {round_up(floor)}"


def _keyed_rows(keyed: Iterable[tuple[tuple[str, ...], Any]], spec: Spec) -> list[list[Any]]:
    return [[*key, *(_value(obj, path) for _, path in spec[1])] for key, obj in keyed]


def _cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], TopologyResult]]:
    return [((m, t), c) for m, cells in results.models.items() for t, c in cells.items()]


def _difficulty_cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], CellResult]]:
    return [
        ((m, t, d), c)
        for (m, t), cell in _cells(results)
        if t != POOLED
        for d, c in cell.by_difficulty.items()
    ]


def _confidence_cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], ConfidenceCell]]:
    return [
        ((m, t, d), c)
        for m, tops in results.confidence.items()
        for t, cells in tops.items()
        for d, c in cells.items()
    ]


def _order_cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], OrderComparison]]:
    return [((m, t), c) for m, cells in results.question_order.items() for t, c in cells.items()]


def _entity_cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], EntityComparison]]:
    return [((m, t), c) for m, cells in results.entities.items() for t, c in cells.items()]


_ENTITY_SPEC: Spec = (
    "Pseudoword vs real-noun entities (paper Table 19)",
    (
        ("pseudo turns", "n_pseudo"),
        ("real turns", "n_real"),
        ("pseudo acc", "pseudo_accuracy"),
        ("real acc", "real_accuracy"),
        ("real - pseudo", "difference"),
        ("lo", "difference_ci.0"),
        ("hi", "difference_ci.1"),
    ),
)


def _seed_cells(results: DefeasibleResults) -> list[tuple[tuple[str, ...], SeedCell]]:
    repro = results.reproducibility
    return [((c.model, c.topology), c) for c in (repro.cells if repro else [])]


_ACCURACY_SPEC: Spec = (
    "Accuracy (model x topology x difficulty)",
    (
        ("turns", "n_turns"),
        ("entail acc", "entailment_accuracy"),
        ("effect acc", "effect_accuracy"),
        ("effect bal. acc", "effect_balanced_accuracy"),
        ("effect majority", "effect_majority_baseline"),
        ("majority", "majority_baseline"),
        ("instructions", "instructions"),
        ("unparsed", "unparsed_rate"),
    ),
)

Table = tuple[str, list[str], list[list[Any]]]


def _table(keys: Sequence[str], spec: Spec, keyed: Sequence[tuple[tuple[str, ...], Any]]) -> Table:
    return spec[0], [*keys, *(h for h, _ in spec[1])], _keyed_rows(keyed, spec)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _icc_line(results: DefeasibleResults) -> str | None:
    repro = results.reproducibility
    if repro is None:
        return None
    ci = "n/a" if repro.icc_ci is None else f"[{_fmt(repro.icc_ci[0])}, {_fmt(repro.icc_ci[1])}]"
    line = f"Pooled ICC(2,1) = {_fmt(repro.icc)}, 95% CI {ci} ({repro.n_targets} cells x "
    line += f"{repro.n_raters} seeds, {ICC_BOOT:,} bootstrap resamples over cells)"
    if "icc" in repro.undefined:
        line += f"; undefined: {repro.undefined['icc']}"
    return line


def _all_tables(results: DefeasibleResults) -> list[Table]:
    mt, mtd = ("model", "type"), ("model", "topology", "difficulty")
    bias_title, bias_cols = _BIAS_SPEC
    sizes = ", ".join(f"{m}: {n}" for m, n in results.holm_family_size.items())
    bias: Spec = (f"{bias_title}; Holm within each model over its cells ({sizes})", bias_cols)
    found = [
        _table(mt, _NULL_GAP_SPEC, _cells(results)),
        _table(mt, _NULL_OTHER_SPEC, _cells(results)),
        _table(mtd, _ACCURACY_SPEC, _difficulty_cells(results)),
        _table(mt, bias, _cells(results)),
        _table(mt, _CONDITION_SPEC, _cells(results)),
        _table(mt, _ANCHOR_SPEC, _cells(results)),
        _table(mt, _ORDER_SPEC, _order_cells(results)),
        _table(mtd, _ON_PATH_SPEC, _confidence_cells(results)),
        _table(mtd, _OFF_PATH_SPEC, _confidence_cells(results)),
        _table(("model", "topology"), _SEED_SPEC, _seed_cells(results)),
        _table(("model", "topology"), _ENTITY_SPEC, _entity_cells(results)),
    ]
    return [t for t in found if t[2]]


def tables(results: DefeasibleResults) -> str:
    """Paper-style plain-text tables ("n/a" = undefined; reasons are in the ``undefined`` maps)."""
    blocks = [
        f"Defeasible reasoning: {t}\n{text_table(h, rows)}" for t, h, rows in _all_tables(results)
    ]
    if line := _icc_line(results):
        blocks.append(line)
    blocks += [f"Not computed: {k}: {v}" for k, v in results.undefined.items()]
    return "\n\n".join(blocks)


# --------------------------------------------------------------------------------------------------
# Report: Markdown + figures
# --------------------------------------------------------------------------------------------------


def _heatmap_figure(results: DefeasibleResults, out_dir: Path) -> str:
    from biaslab.report.figures import heatmap

    cells = {key: c.entailment_accuracy for key, c in _difficulty_cells(results)}
    if not cells:
        return "No accuracy heatmap: no answered turns."
    models = list(results.models)
    columns = sorted({(t, d) for _, t, d in cells})
    values = [[cells.get((m, t, d)) for t, d in columns] for m in models]
    labels = [f"{t}/{d}" for t, d in columns]
    title = "Entailment accuracy (model x topology/difficulty)"
    path = heatmap(out_dir / "defeasible_accuracy.png", values, models, labels, title=title)
    return f"![Entailment accuracy]({path.name})"


def _by_type(results: DefeasibleResults, attr: str) -> dict[str, list[Any]]:
    """One series per reasoning type, one value per model (None where the model lacks it)."""
    types = sorted({t for cells in results.models.values() for t in cells})
    return {t: [_get(cells.get(t), attr) for cells in results.models.values()] for t in types}


def _has_values(series: Mapping[str, Sequence[Any]]) -> bool:
    return any(v is not None for values in series.values() for v in values)


def _band(cell: Any, name: str) -> tuple[float, float] | None:
    lo, hi = _get(cell, f"{name}_null_lo"), _get(cell, f"{name}_null_hi")
    return None if lo is None or hi is None else (lo, hi)


def _split_gap_figure(results: DefeasibleResults, out_dir: Path) -> str:
    """Defeat / withhold / pooled BiasGap per cell, CIs as whiskers, the nulls as grey bands."""
    from biaslab.report.figures import bar_chart

    cells = [(k, c) for k, c in _cells(results) if c.bias_gap is not None]
    if not cells:
        return "No BiasGap-beside-null figure: no cell has both C1 and C2 turns."
    names = {"defeat": "bias_gap_defeat", "withhold": "bias_gap_withhold", "pooled": "bias_gap"}
    path = bar_chart(
        out_dir / "defeasible_bias_gap_null.png",
        ["/".join(k) for k, _ in cells],
        {label: [_get(c, attr) for _, c in cells] for label, attr in names.items()},
        intervals={
            label: [_get(c, f"{attr}_ci") for _, c in cells] for label, attr in names.items()
        },
        null_bands={label: [_band(c, attr) for _, c in cells] for label, attr in names.items()},
        reference=0.0,
        title="BiasGap by C2 transition (95% cluster-bootstrap CI) and its permutation null (grey)",
        ylabel="BiasGap",
    )
    return f"![BiasGap beside its null]({path.name})"


def _bias_figures(results: DefeasibleResults, out_dir: Path) -> list[str]:
    from biaslab.report.figures import bar_chart

    models = list(results.models)
    gaps = _by_type(results, "bias_gap")
    if not _has_values(gaps):
        return ["No BiasGap/odds-ratio figure: no cell has both C1 and C2 turns."]
    path = bar_chart(
        out_dir / "defeasible_bias_gap.png",
        models,
        gaps,
        intervals=_by_type(results, "bias_gap_ci"),
        null_bands={
            t: [_band(cells.get(t), "bias_gap") for cells in results.models.values()] for t in gaps
        },
        reference=0.0,
        title="BiasGap = Acc(C1) - Acc(C2), 95% cluster-bootstrap CI; null band grey",
        ylabel="BiasGap",
    )
    lines = [f"![BiasGap]({path.name})"]
    ors = _by_type(results, "odds_ratio")
    if not _has_values(ors):
        lines.append("No odds-ratio figure: every odds ratio is undefined (a zero cell).")
        return lines
    path = bar_chart(
        out_dir / "defeasible_odds_ratio.png",
        models,
        ors,
        intervals=_by_type(results, "odds_ratio_ci"),
        reference=1.0,
        log=True,
        title="Odds ratio odds(correct|C1) / odds(correct|C2), 95% CI",
        ylabel="odds ratio (log scale)",
    )
    lines.append(f"![Odds ratio]({path.name})")
    return lines


def _dissociation_figure(results: DefeasibleResults, out_dir: Path) -> str:
    from biaslab.report.figures import bar_chart

    cells = [(k, c) for k, c in _cells(results) if c.c1_eff is not None or c.c2_eff is not None]
    if not cells:
        return "No dissociation figure: no C1/C2 turn has an effect question."
    series = {
        label: [_get(c, attr) for _, c in cells]
        for label, attr in (
            ("C1 acc", "c1_accuracy"),
            ("C2 acc", "c2_accuracy"),
            ("C1-eff", "c1_eff"),
            ("C2-eff", "c2_eff"),
        )
    }
    path = bar_chart(
        out_dir / "defeasible_dissociation.png",
        ["/".join(k) for k, _ in cells],
        series,
        ylim=(0.0, 1.05),
        title="Entailment (acc) vs effect-question (eff) accuracy on C1/C2 turns",
        ylabel="accuracy",
    )
    return f"![Metacognitive dissociation]({path.name})"


def _distance_panels(
    results: DefeasibleResults,
) -> dict[str, dict[str, tuple[list[float], list[float], list[tuple[float, float] | None]]]]:
    """Topology -> model -> curve: the pooled-difficulty cell if there is one, else each difficulty."""
    panels: dict[str, dict[str, Any]] = {}
    for (m, t, d), cell in _confidence_cells(results):
        cells = results.confidence[m][t]
        pooled = ALL_DIFFICULTIES in cells
        if len(cell.by_distance) < 2 or (pooled and d != ALL_DIFFICULTIES):
            continue
        name = m if pooled or len(cells) == 1 else f"{m} ({d})"
        pts = cell.by_distance
        curve = (
            [float(p.distance) for p in pts],
            [p.mean_gold_conf for p in pts],
            [p.ci for p in pts],
        )
        panels.setdefault(t, {})[name] = curve
    return panels


def _confidence_figure(results: DefeasibleResults, out_dir: Path) -> str:
    from biaslab.report.figures import line_bands

    panels = _distance_panels(results)
    if not panels:
        why = results.undefined.get("confidence", "no on-path turns at two or more distances")
        return f"No confidence-vs-distance figure: {why}."
    path = line_bands(
        out_dir / "defeasible_confidence_distance.png",
        panels,
        ylim=(0.0, 1.02),
        title="Gold-answer confidence vs update distance (on-path turns, 95% cluster-bootstrap CI)",
        xlabel="distance (hops to the subject)",
        ylabel="gold_conf",
        integer_x=True,
    )
    return f"![Confidence vs distance]({path.name})"


def _depth_figure(results: DefeasibleResults, out_dir: Path) -> str:
    """Accuracy against depth, one panel per topology (paper Figure 2's curves)."""
    from biaslab.report.figures import line_bands
    from biaslab.suites.defeasible.curves import DEPTH_AXES

    panels: dict[str, dict[str, Any]] = {}
    for model, tops in results.depth_curves.items():
        for topology, points in tops.items():
            if len(points) < 2:
                continue
            title = f"{topology}: {DEPTH_AXES[topology][1]}"
            panels.setdefault(title, {})[model] = (
                [p.depth for p in points],
                [p.accuracy for p in points],
                [p.ci for p in points],
            )
    if not panels:
        return "No accuracy-vs-depth figure: no topology has turns at two or more depths."
    path = line_bands(
        out_dir / "defeasible_depth.png",
        dict(sorted(panels.items())),
        ylim=(0.0, 1.02),
        title="Entailment accuracy vs depth (95% cluster-bootstrap CI)",
        xlabel="depth",
        ylabel="accuracy",
    )
    return f"![Accuracy vs depth]({path.name})"


def _seed_figure(results: DefeasibleResults, out_dir: Path) -> str:
    from biaslab.report.figures import boxplot

    repro = results.reproducibility
    if repro is None:
        return f"No reseeding boxplots: {results.undefined.get('reproducibility', 'no seeds')}."
    groups = {"/".join(k): list(c.per_seed_accuracy.values()) for k, c in _seed_cells(results)}
    path = boxplot(
        out_dir / "defeasible_reseeding.png",
        groups,
        title="Entailment accuracy per seed",
        ylabel="accuracy",
    )
    return f"![Accuracy across seeds]({path.name})"


def _c0_section(results: DefeasibleResults) -> list[str]:
    reasons: dict[str, int] = {}
    for (_, t), cell in _cells(results):
        for reason, n in cell.c0_reasons.items() if t != POOLED else ():
            reasons[reason] = reasons.get(reason, 0) + n
    if not reasons:
        return []
    rows: list[list[Any]] = [[r, n] for r, n in sorted(reasons.items(), key=lambda kv: -kv[1])]
    return [
        "C0 (excluded) update turns by reason, all models:",
        markdown_table(("reason", "turns"), rows),
    ]


_INTRO = (
    "The confirmation-bias metrics lead, each beside its null: what an answerer with the "
    "model's own accuracy profile over the update's strata, whose answer does not depend on its "
    "own prior, would get (grey bands in the figures). The null keeps the gold before the "
    "update out of its strata, so answering from what was true earlier in the section (e.g. the "
    "section opening's gold) counts as perseverance: it is not what any answerer without memory "
    "of its own replies would get (Decisions: nulls). `excess` = observed minus the null mean, "
    "`p` = the permutation p-value; at its floor 1/(B+1) for B permutations it reads "
    '"< floor"; `tested` counts the revision turns the null could exchange with a stable turn '
    "of their stratum; `cautions` flag cells resting on few turns. "
    "Entailment accuracy covers the initial and update questions (gold from the skeptical "
    "inheritance resolver); effect accuracy covers the strengthen/weaken/no-effect questions. "
    "`majority` is the accuracy of always giving the most frequent gold entailment answer. "
    '"n/a" marks an undefined value; the reason is in results.json (`undefined`).'
)


def report(results: DefeasibleResults, out_dir: Path) -> str:
    """Markdown section: every table, each figure whose data exist (else why not), decisions."""
    figures = {
        "Accuracy": [_heatmap_figure(results, out_dir), _depth_figure(results, out_dir)],
        "Confirmation bias beside": [_split_gap_figure(results, out_dir)],
        "Paper metrics": _bias_figures(results, out_dir),
        "Anchoring": [_dissociation_figure(results, out_dir)],
        "On-path": [_confidence_figure(results, out_dir)],
        "Accuracy across seeds": [_seed_figure(results, out_dir)],
    }
    body = ["## Defeasible reasoning", _INTRO]
    placed: set[str] = set()
    for title, header, rows in _all_tables(results):
        body += [f"### {title}", markdown_table(header, rows)]
        prefix = max((p for p in figures if title.startswith(p)), key=len, default=None)
        if prefix is not None and prefix not in placed:
            body += figures[prefix]
            placed.add(prefix)
    if line := _icc_line(results):
        body.append(line)
    body += [line for p, lines in figures.items() if p not in placed for line in lines]
    body += [f"Not computed — {k}: {v}" for k, v in results.undefined.items()]
    body += _c0_section(results)
    body += ["### Decisions", "\n".join(f"- **{k}**: {v}" for k, v in results.decisions.items())]
    return "\n\n".join(body)
