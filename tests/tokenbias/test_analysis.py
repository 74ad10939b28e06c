"""Matched-pair analysis: tables, one-sided McNemar directions, BH within hypothesis, JSON, Figure 4."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biaslab.errors import BiaslabError
from biaslab.stats import mcnemar_one_sided
from biaslab.suites.tokenbias.analysis import DIRECTIONS, TokenBiasResults, analyze, tables
from biaslab.suites.tokenbias.config import resolve_config
from biaslab.suites.tokenbias.generate import generate
from tests.tokenbias.helpers import answer_rows


def _frame(
    counts: dict[tuple[bool, bool], int],
    hypothesis: str = "H4",
    family: str = "syllogism",
    model: str = "m",
) -> pd.DataFrame:
    """Rows for pairs with the given (original correct, twin correct) counts."""
    rows, index = [], 0
    for (x, y), count in counts.items():
        for _ in range(count):
            for variant, correct in (("original", x), ("twin", y)):
                rows.append(
                    {
                        "model": model,
                        "family": family,
                        "hypothesis": hypothesis,
                        "mode": "direct",
                        "pair_id": f"p{index}",
                        "variant": variant,
                        "correct": correct,
                        "parsed": True,
                    }
                )
            index += 1
    return pd.DataFrame(rows)


def test_table_counts_and_p_value_match_the_stats_module() -> None:
    frame = _frame({(True, True): 30, (True, False): 14, (False, True): 4, (False, False): 2})
    (test,) = analyze(frame).tests
    assert (test.n11, test.n12, test.n21, test.n22, test.n_pairs) == (30, 14, 4, 2, 50)
    assert test.alternative == "greater"  # H4: the twin is expected to be answered worse
    expected = mcnemar_one_sided(14, 4, alternative="greater")
    assert test.p_value == pytest.approx(expected.pvalue)
    assert test.accuracy_original == pytest.approx(44 / 50)
    assert test.accuracy_change == pytest.approx(34 / 50 - 44 / 50)
    assert test.rejected


def test_direction_is_fixed_by_the_hypothesis() -> None:
    counts = {(True, False): 14, (False, True): 4}
    assert analyze(_frame(counts, "H4")).tests[0].rejected
    assert not analyze(_frame(counts, "H1", "linda")).tests[0].rejected  # H1 expects the reverse
    assert analyze(_frame({(True, False): 4, (False, True): 14}, "H1", "linda")).tests[0].rejected
    assert DIRECTIONS[("linda", "H3")] != DIRECTIONS[("horses", "H3")]


def test_no_discordant_pairs_keep_p_one_in_the_family() -> None:
    frame = pd.concat(
        [
            _frame({(True, True): 20}, model="a"),
            _frame({(True, False): 9, (False, True): 0}, model="b"),
        ]
    )
    tests = {t.model: t for t in analyze(frame).tests}
    assert not tests["a"].defined and tests["a"].p_value == 1.0 and not tests["a"].rejected
    assert tests["b"].method == "McNemar one-sided exact binomial"
    assert tests["b"].p_adjusted == pytest.approx(
        min(1.0, 2 * tests["b"].p_value)
    )  # BH over 2 tests


def test_unparsed_answers_count_as_wrong_or_drop_the_pair() -> None:
    frame = _frame({(True, True): 10, (True, False): 10})
    frame.loc[(frame["pair_id"] == "p0") & (frame["variant"] == "twin"), "parsed"] = False
    wrong = analyze(frame, unparsed="wrong").tests[0]
    dropped = analyze(frame, unparsed="drop").tests[0]
    assert (wrong.n_pairs, wrong.n12, wrong.n_unparsed_pairs) == (20, 11, 1)
    assert (dropped.n_pairs, dropped.n12) == (19, 10)


def test_item_prefixed_columns_incomplete_pairs_and_errors() -> None:
    frame = _frame({(True, False): 5}).rename(
        columns={"family": "item_family", "pair_id": "item_pair_id"}
    )
    frame = frame.iloc[:-1]
    results = analyze(frame)
    assert results.n_incomplete_pairs == 1 and results.tests[0].n_pairs == 4
    with pytest.raises(BiaslabError, match="needs columns"):
        analyze(frame.drop(columns=["parsed"]))
    with pytest.raises(BiaslabError, match="answered twice"):
        analyze(pd.concat([_frame({(True, True): 2}), _frame({(True, True): 1})]))


def test_results_are_json_ready_and_render_the_rejected_grid() -> None:
    frame = pd.concat(
        [_frame({(True, False): 12}, "H4"), _frame({(False, True): 12}, "H3", "horses")]
    )
    results = analyze(frame)
    assert TokenBiasResults.model_validate_json(results.model_dump_json()) == results
    grid = results.rejected_table()
    assert list(grid.columns) == ["H3 horses", "H4"]  # H3 spans two families
    assert grid.loc[("m", "direct"), "H4"] == "✓" and grid.loc[("m", "direct"), "H3 horses"] == "✗"
    assert "H4" in tables(results)


def _agent_results(spec: str, seed: int, n: int = 60) -> TokenBiasResults:
    items = generate(resolve_config("default", {}), seed=seed, n=n)
    return analyze(pd.DataFrame(answer_rows(items, spec)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_token_biased_agent_is_rejected_on_every_hypothesis(seed: int) -> None:
    results = _agent_results("token-biased", seed)
    assert len(results.tests) == len(DIRECTIONS)
    assert all(t.rejected for t in results.tests), [
        (t.hypothesis, t.family) for t in results.tests if not t.rejected
    ]


def test_random_and_oracle_are_rejected_at_about_the_nominal_rate_or_less() -> None:
    random_tests = [t for seed in range(1, 9) for t in _agent_results("random", seed, n=50).tests]
    rate = sum(t.rejected for t in random_tests) / len(random_tests)
    assert rate <= 0.1, rate
    assert not any(t.rejected for t in _agent_results("oracle", 1).tests)


def test_one_sided_test_level_on_null_tables() -> None:
    """Under H0 (independent fair coins), raw one-sided p < 0.05 about 5% of the time."""
    rng = np.random.default_rng(2024)
    hits = 0
    trials = 600
    for _ in range(trials):
        x, y = rng.random(100) < 0.6, rng.random(100) < 0.6
        hits += mcnemar_one_sided(int((x & ~y).sum()), int((~x & y).sum())).pvalue < 0.05  # type: ignore[operator]
    assert 0.025 <= hits / trials <= 0.08
