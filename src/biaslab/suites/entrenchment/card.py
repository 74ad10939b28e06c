"""The entrenchment cell of the bias card: the Martingale score M of the model's chain of thought,
as read by its judge prefix by prefix, beside the same judge's M on built-in Bayesian reasoning (the
share of M the pipeline itself produces)."""

from __future__ import annotations

from collections.abc import Mapping

from biaslab.card import CardCell
from biaslab.stats import compare_estimates
from biaslab.suites.entrenchment.results import EntrenchmentResults, SetupResult

HEADLINE = "Martingale score M (judge's stated belief), beside the judge's own baseline"
#: the setup a card cell shows when a model has several (others stay in the suite's tables)
PREFERRED = {"belief_construct": "judge", "judge_mode": "prefix"}


def _headline_setup(setups: list[SetupResult]) -> SetupResult | None:
    preferred = [
        s
        for s in setups
        if all(getattr(s, k) == v for k, v in PREFERRED.items()) and s.m is not None
    ]
    pool = preferred or [s for s in setups if s.m is not None]
    if not pool:
        return None
    return sorted(pool, key=lambda s: (s.mode != "cot", -s.n_questions, s.label))[0]


def _baseline_se(results: EntrenchmentResults, setup: SetupResult) -> float | None:
    """The SE of the baseline beside ``setup`` (same judge, construct, judge mode, urn settings)."""
    key = ("judge", "belief_construct", "judge_mode", "baseline_setting")
    for base in results.baseline_setups():
        if all(getattr(base, k) == getattr(setup, k) for k in key):
            return base.m_se
    return None


def card_cells(results: EntrenchmentResults) -> Mapping[str, CardCell]:
    """model -> cell. Flagged when M exceeds the judge baseline's M (one-sided Wald test of the
    difference of the two independent estimates); without a baseline, when M > 0 is significant."""
    by_model: dict[str, list[SetupResult]] = {}
    for setup in results.model_setups():
        by_model.setdefault(setup.model, []).append(setup)
    cells: dict[str, CardCell] = {}
    for model, setups in sorted(by_model.items()):
        chosen = _headline_setup(setups)
        unparsed = setups[0].unparsed_rate
        if chosen is None or chosen.m is None:
            why = setups[0].notes[0] if setups and setups[0].notes else "M is not defined"
            cells[model] = CardCell.undefined(HEADLINE, why, unparsed=unparsed)
            continue
        setup, m = chosen, chosen.m
        ci = (setup.m_lo, setup.m_hi) if setup.m_lo is not None and setup.m_hi is not None else None
        band = None
        if setup.m_judge_baseline_lo is not None and setup.m_judge_baseline_hi is not None:
            band = (setup.m_judge_baseline_lo, setup.m_judge_baseline_hi)
        base_se = _baseline_se(results, setup)
        excess, p = None, setup.m_p
        if setup.m_judge_baseline is not None and setup.m_se is not None and base_se is not None:
            diff = compare_estimates(m, setup.m_se, setup.m_judge_baseline, base_se)
            excess, p = m - setup.m_judge_baseline, diff.pvalue
        elif setup.m_p is not None:
            excess = m
        cells[model] = CardCell(
            headline=HEADLINE,
            value=m,
            ci=ci,
            null=setup.m_judge_baseline,
            null_band=band,
            null_label="judge baseline",
            excess=excess,
            p=p,
            significant=excess is not None and p is not None and excess > 0 and p < results.alpha,
            n=setup.n_questions,
            unparsed=setup.unparsed_rate,
            detail=f"{setup.label}; {setup.n_questions} questions, {setup.n_pairs} belief pairs",
        )
    return cells
