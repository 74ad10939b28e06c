"""FallacyRate, its chance level, the reversal table and capability correlations on frames whose
answers are known."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from biaslab.errors import BiaslabError
from biaslab.suites.fallacy.analysis import (
    analyze,
    capability_correlations,
    read_capability,
    with_capability,
)
from biaslab.suites.fallacy.report import report, tables


def row(
    model: str,
    problem: int,
    *,
    parsed: bool = True,
    correct: bool = False,
    fallacy: bool | None = False,
    order: str = "standard",
    share: float = 0.2,
    paper: bool | None = None,
) -> dict[str, object]:
    return {
        "model": model,
        "item_id": f"p{problem}{'-r' if order == 'reversed' else ''}",
        "epoch": 1,
        "parsed": parsed,
        "correct": correct and parsed,
        "fallacy": fallacy if parsed else None,
        "fallacy_paper": (fallacy if paper is None else paper) if parsed else None,
        "matches_etr": fallacy,
        "parse_mode": "strict" if parsed else None,
        "item_problem_id": f"p{problem}",
        "item_order": order,
        "item_chance_share": share,
        "item_chance_share_paper": share / 2,
    }


def test_fallacy_rate_counts_fallacies_among_incorrect_parsed_answers() -> None:
    rows = [row("m", i, correct=True) for i in range(4)]
    rows += [row("m", 4 + i, fallacy=i < 3) for i in range(6)]  # 6 wrong, 3 fallacies
    rows += [row("m", 10 + i, parsed=False) for i in range(2)]
    result = analyze(pd.DataFrame(rows)).rows[0]
    assert (result.n, result.parsed, result.unparsed, result.correct, result.incorrect) == (
        12,
        10,
        2,
        4,
        6,
    )
    assert result.fallacies == 3 and result.fallacy_rate == 0.5
    assert result.accuracy == 0.4 and result.parse_failure_rate == pytest.approx(2 / 12)
    assert not result.excluded
    assert result.fallacy_rate_ci == pytest.approx((0.1876, 0.8124), abs=1e-4)  # Wilson 3/6
    assert result.fallacy_rate_null == pytest.approx(0.2)
    assert result.fallacy_rate_null_p == pytest.approx(sps.binom.sf(2, 6, 0.2))
    assert result.fallacy_rate_excess == pytest.approx(0.3)
    assert result.fallacy_rate_paper_null == pytest.approx(0.1)


def test_no_errors_leaves_fallacy_rate_undefined_with_a_reason() -> None:
    result = analyze(pd.DataFrame([row("oracle", i, correct=True) for i in range(5)])).rows[0]
    assert result.fallacy_rate is None and result.fallacy_rate_null is None
    assert result.reason is not None and "no incorrect" in result.reason
    assert result.accuracy == 1.0


def test_many_parse_failures_flag_the_model() -> None:
    rows = [row("m", i, parsed=i < 7) for i in range(10)]
    assert analyze(pd.DataFrame(rows)).rows[0].excluded


def test_unlabelled_answers_are_counted_and_left_out() -> None:
    rows = [row("m", 0, fallacy=True), row("m", 1, fallacy=None), row("m", 2, fallacy=False)]
    result = analyze(pd.DataFrame(rows)).rows[0]
    assert result.unlabelled == 1 and result.fallacy_rate == 0.5


def null_p_values(rows: list[dict[str, object]]) -> list[float | None]:
    """Each model's FallacyRate null p from one analysis (every model's row is computed from its
    own answers only, so 200 simulated answerers as 200 models of one frame are 200 analyses)."""
    results = analyze(pd.DataFrame(rows))
    assert len(results.rows) == len({r["model"] for r in rows})
    return [r.fallacy_rate_null_p for r in results.rows]


def test_chance_level_of_a_random_erring_answerer_holds_its_level() -> None:
    rng = np.random.default_rng(1)
    rows = []
    for k in range(200):
        shares = rng.uniform(0.05, 0.5, size=40)
        rows += [
            row(f"m{k:03d}", i, fallacy=bool(rng.random() < s), share=float(s))
            for i, s in enumerate(shares)
        ]
    rejected = sum(p is not None and p < 0.05 for p in null_p_values(rows))
    assert rejected / 200 <= 0.07


def test_an_etr_like_answerer_is_far_above_chance() -> None:
    rows = [row("etr", i, fallacy=True, share=0.15) for i in range(20)]
    result = analyze(pd.DataFrame(rows)).rows[0]
    assert result.fallacy_rate == 1.0 and result.fallacy_rate_null_p < 1e-10  # type: ignore[operator]


def test_reversal_counts_blocked_fallacies_and_tests_the_proportions() -> None:
    rows = []
    for i in range(10):  # standard: 8 fallacies; reversed: 5 of those become correct
        rows.append(row("m", i, fallacy=i < 8))
        rows.append(row("m", i, order="reversed", correct=i < 5, fallacy=False if i < 5 else i < 8))
    results = analyze(pd.DataFrame(rows))
    (reversal,) = results.reversal
    assert (reversal.pairs, reversal.fallacies_standard, reversal.blocked) == (10, 8, 5)
    assert reversal.blocked_rate == pytest.approx(5 / 8)
    assert reversal.fallacies_reversed == 3
    z = (0.8 - 0.3) / np.sqrt(0.55 * 0.45 * (2 / 10))
    assert reversal.test.statistic == pytest.approx(z)
    assert reversal.test.pvalue == pytest.approx(2 * sps.norm.sf(z))
    # paired: 5 problems with a fallacy only in the standard order, none only reversed
    assert reversal.paired_pairs == 10 and reversal.mcnemar is not None
    assert (reversal.mcnemar.b, reversal.mcnemar.c) == (5, 0)
    assert reversal.mcnemar.pvalue == pytest.approx(sps.binomtest(0, 5, 0.5).pvalue)
    assert {r.order for r in results.rows} == {"standard", "reversed"}


def test_reversal_mcnemar_pairs_the_same_problem_and_skips_unparsed_pairs() -> None:
    rows = []
    for i in range(12):  # fallacy in standard for 0-5, in reversed for 3-8: b = 3, c = 3
        rows.append(row("m", i, fallacy=i < 6))
        rows.append(row("m", i, order="reversed", fallacy=3 <= i < 9, parsed=i != 11))
    (reversal,) = analyze(pd.DataFrame(rows)).reversal
    assert reversal.paired_pairs == 11 and reversal.mcnemar is not None
    assert (reversal.mcnemar.b, reversal.mcnemar.c) == (3, 3) and reversal.mcnemar.pvalue == 1.0


def capability_frame() -> pd.DataFrame:
    rows = []
    for k, model in enumerate(["a", "b", "c", "d", "e"]):
        wrong = 10
        rows += [row(model, i, fallacy=i < 2 + k) for i in range(wrong)]
        rows += [row(model, 100 + i, correct=True) for i in range(k + 1)]
    return pd.DataFrame(rows)


def test_capability_correlations() -> None:
    results = analyze(capability_frame())
    scores = {"a": 1000.0, "b": 1100.0, "c": 1200.0, "d": 1300.0, "e": 1400.0, "zz": 1.0}
    capability = capability_correlations(results, scores)
    assert capability.n_models == 5 and capability.missing == ()
    rates = [0.2, 0.3, 0.4, 0.5, 0.6]
    assert capability.pearson.statistic == pytest.approx(1.0)
    assert capability.spearman.statistic == pytest.approx(1.0)
    assert capability.exponential.statistic == pytest.approx(
        sps.pearsonr(list(scores.values())[:5], np.log(rates))[0]
    )
    filled = with_capability(results, {"a": 1.0, "b": 2.0, "c": 3.0})
    assert filled.capability is not None and filled.capability.missing == ("d", "e")
    assert "Spearman" in tables(filled)
    assert analyze(capability_frame()).capability is None  # analyze works without scores


def test_read_capability(tmp_path: Path) -> None:
    good = tmp_path / "c.csv"
    good.write_text("model,score\nopenai/gpt-4o,1285\nbiaslab/etr, 900.5\n", encoding="utf-8")
    assert read_capability(good) == {"openai/gpt-4o": 1285.0, "biaslab/etr": 900.5}
    for text, message in [
        ("name,value\na,1\n", "model,score"),
        ("model,score\na,x\n", ":2: score"),
        ("model,score\na,1\na,2\n", ":3: model 'a' appears twice"),
    ]:
        bad = tmp_path / "bad.csv"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(BiaslabError, match=message):
            read_capability(bad)


def test_report_writes_tables_and_a_figure(tmp_path: Path) -> None:
    results = analyze(capability_frame())
    markdown = report(results, tmp_path)
    assert "FallacyRate" in markdown and "chance" in markdown
    # what the chance level cannot rule out is said beside it (tests/fallacy/test_heldout.py)
    assert "repeating the premises' literals: the null does not tell them apart" in markdown
    assert (tmp_path / "fallacy_rate.svg").exists() and "(fallacy_rate.svg)" in markdown
    assert results.model_dump_json() == analyze(capability_frame()).model_dump_json()


def shaped(
    model: str, problem: int, literals: int, by_size: list[list[int]], *, fallacy: bool
) -> dict[str, object]:
    record = row(model, problem, fallacy=fallacy, share=0.1)
    record.update(answer_shape="conjunction", answer_literals=literals, item_chance_by_size=by_size)
    return record


BY_SIZE = [[1, 10, 6, 3], [2, 40, 2, 1]]  # size 1: 6 of 10 wrong are ETR's; size 2: 2 of 40


def test_each_answer_is_set_beside_the_candidates_of_its_own_shape() -> None:
    rows = [shaped("m", i, 1 + i % 2, BY_SIZE, fallacy=False) for i in range(4)]
    rows.append({**row("m", 9, share=0.1), "answer_shape": "disjunction", "answer_literals": 2})
    result = analyze(pd.DataFrame(rows)).rows[0]
    # two size-1 answers (0.6), two size-2 answers (0.05), one disjunction (pooled 0.1)
    assert result.fallacy_rate_null == pytest.approx((0.6 + 0.05 + 0.6 + 0.05 + 0.1) / 5)
    assert result.chance_by_shape == 4
    assert result.fallacy_rate_paper_null == pytest.approx((0.3 + 0.025 + 0.3 + 0.025 + 0.05) / 5)


def test_a_random_answerer_of_one_shape_is_not_flagged_where_the_pooled_share_would_flag_it() -> (
    None
):
    """Answers of one literal, random among their shape: ETR's share there (0.6) is far above the
    problems' pooled share (0.1); the per-shape null holds its level, the pooled one would not."""
    rng = np.random.default_rng(3)
    rows = []
    pooled_rejected = 0
    for k in range(200):
        answers = [
            shaped(f"m{k:03d}", i, 1, BY_SIZE, fallacy=bool(rng.random() < 0.6)) for i in range(30)
        ]
        hits = sum(bool(r["fallacy"]) for r in answers)
        pooled_rejected += sps.binom.sf(hits - 1, 30, 0.1) < 0.05
        rows += answers
    rejected = sum(p is not None and p < 0.05 for p in null_p_values(rows))
    assert rejected / 200 <= 0.07
    assert pooled_rejected / 200 > 0.9
