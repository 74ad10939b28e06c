"""Matched-pair analysis: tables, McNemar directions, BH within hypothesis, seeds pooled counting each
distinct pair once, the permutation null, JSON, Figure 4, and the level of the tests over seeds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from biaslab.errors import BiaslabError
from biaslab.stats import mcnemar, mcnemar_one_sided
from biaslab.suites.tokenbias.analysis import (
    DECISIONS,
    DIRECTIONS,
    TokenBiasResults,
    analyze,
    decisions_only,
    decisions_per_seed,
    tables,
)
from biaslab.suites.tokenbias.config import resolve_config
from biaslab.suites.tokenbias.generate import generate
from biaslab.suites.tokenbias.levels import answer_rows, generated, rejections


def _rows(
    counts: dict[tuple[bool, bool], int],
    hypothesis: str = "H4",
    family: str = "syllogism-invalid",
    model: str = "m",
    seed: int | None = None,
    prefix: str = "p",
) -> list[dict[str, Any]]:
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
                        "pair_id": f"{prefix}{index}",
                        "variant": variant,
                        "correct": correct,
                        "parsed": True,
                        "seed": seed,
                    }
                )
            index += 1
    return rows


def _frame(counts: dict[tuple[bool, bool], int], *args: Any, **kwargs: Any) -> pd.DataFrame:
    return pd.DataFrame(_rows(counts, *args, **kwargs))


def test_table_counts_and_exact_p_value() -> None:
    frame = _frame({(True, True): 30, (True, False): 14, (False, True): 4, (False, False): 2})
    (test,) = analyze(frame).tests
    assert (test.n11, test.n12, test.n21, test.n22, test.n_pairs) == (30, 14, 4, 2, 50)
    assert test.alternative == "greater"  # H4 on invalid syllogisms: the twin is answered worse
    assert test.method == "McNemar one-sided exact binomial"
    assert test.p_value == pytest.approx(sps.binomtest(14, 18, 0.5, alternative="greater").pvalue)
    assert test.accuracy_original == pytest.approx(44 / 50)
    assert test.accuracy_change == pytest.approx(34 / 50 - 44 / 50)
    assert test.rejected


def test_the_paper_rule_uses_the_normal_approximation_above_ten_discordant_pairs() -> None:
    frame = _frame({(True, True): 30, (True, False): 14, (False, True): 4})
    (test,) = analyze(frame, test="paper").tests
    expected = mcnemar_one_sided(14, 4, alternative="greater")
    assert test.method == "McNemar one-sided normal approximation"
    assert test.p_value == pytest.approx(expected.pvalue)


def _level(rule_exact_max: int, n_star: int) -> float:
    """P(one-sided p < 0.05 | n* discordant pairs) under H0 (b ~ Bin(n*, 1/2))."""
    b = np.arange(n_star + 1)
    p = [mcnemar_one_sided(int(k), n_star - int(k), exact_max=rule_exact_max).pvalue for k in b]
    return float(sps.binom.pmf(b, n_star, 0.5)[np.array(p) < 0.05].sum())


def test_the_paper_rule_exceeds_its_level_at_some_sizes_and_the_exact_test_never() -> None:
    assert _level(10, 12) == pytest.approx(0.07300, abs=5e-6)
    assert _level(10, 17) == pytest.approx(0.07173, abs=5e-6)
    assert "7.30% at n12 + n21 = 12 and 7.17% at 17" in DECISIONS["test"]  # what results say
    assert all(_level(n_star, n_star) <= 0.05 for n_star in range(1, 41))


def test_direction_is_fixed_by_the_hypothesis_and_family() -> None:
    worse = {(True, False): 14, (False, True): 4}
    better = {(True, False): 4, (False, True): 14}
    assert analyze(_frame(worse, "H4")).tests[0].rejected
    assert not analyze(_frame(worse, "H1", "linda")).tests[0].rejected  # H1 expects the reverse
    assert analyze(_frame(better, "H1", "linda")).tests[0].rejected
    assert DIRECTIONS[("linda", "H3")] != DIRECTIONS[("horses", "H3")]
    # valid syllogisms: H5 reverses, H4 and H6 are two-sided
    assert analyze(_frame(worse, "H5", "syllogism-valid")).tests[0].rejected
    assert not analyze(_frame(worse, "H5", "syllogism-invalid")).tests[0].rejected
    for counts in (worse, better):
        (test,) = analyze(_frame(counts, "H4", "syllogism-valid")).tests
        assert test.alternative == "two-sided" and test.rejected
        assert test.p_value == pytest.approx(mcnemar(4, 14, method="exact").pvalue)


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
    assert tests["b"].p_adjusted == pytest.approx(min(1.0, 2 * tests["b"].p_value))  # BH over 2


def test_unparsed_answers_count_as_wrong_or_drop_the_pair() -> None:
    frame = _frame({(True, True): 10, (True, False): 10})
    frame.loc[(frame["pair_id"] == "p0") & (frame["variant"] == "twin"), "parsed"] = False
    wrong = analyze(frame, unparsed="wrong").tests[0]
    dropped = analyze(frame, unparsed="drop").tests[0]
    assert (wrong.n_pairs, wrong.n12, wrong.n_unparsed_pairs) == (20, 11, 1)
    assert (dropped.n_pairs, dropped.n12) == (19, 10)


def test_incomplete_pairs_and_errors() -> None:
    frame = _frame({(True, False): 5}).iloc[:-1]
    results = analyze(frame)
    assert results.n_incomplete_pairs == 1 and results.tests[0].n_pairs == 4
    assert "warning: 1 pair(s) miss their original or their twin" in tables(results)
    assert results.tests[0].n_incomplete_pairs == 1
    assert [i.n_incomplete_pairs for i in results.incomplete] == [1]
    with pytest.raises(BiaslabError, match=r"no complete pair to test \(5 pair\(s\) miss"):
        analyze(frame[frame["variant"] == "original"])
    with pytest.raises(BiaslabError, match="needs columns"):
        analyze(frame.drop(columns=["parsed"]))
    with pytest.raises(BiaslabError, match="answered twice"):
        analyze(pd.concat([_frame({(True, True): 2}), _frame({(True, True): 1})]))
    with pytest.raises(BiaslabError, match="unknown family/hypothesis"):
        analyze(_frame({(True, True): 2}, "H4", "syllogism"))


def test_seeds_are_tested_one_by_one_and_pooled_counting_each_cluster_once() -> None:
    first = _rows({(True, False): 8, (True, True): 4}, seed=1)
    second = _rows({(True, False): 8, (True, True): 4}, seed=2, prefix="q")
    for row in second[:8]:  # seed 2's first four pairs are seed 1's first four questions
        row["pair_key"] = row["pair_id"].replace("q", "p")
    for row in (*first, *second):
        row.setdefault("pair_key", row["pair_id"])
    results = analyze(pd.DataFrame([*first, *second]))
    assert results.seeds == (1, 2)
    (pooled,) = results.tests
    assert (pooled.n_pairs, pooled.n_linked_pairs, pooled.seeds) == (20, 4, (1, 2))
    assert (pooled.n12, pooled.n11) == (12, 8)  # the four repeats were (True, False) pairs
    assert [(t.seed, t.n_pairs) for t in results.seed_tests] == [(1, 12), (2, 12)]
    assert results.summary[0].seeds_rejected == 2 and results.summary[0].seeds == 2
    assert "rejected in k of the seeds" in tables(results)
    assert results.seed_rejections() == [("H4", "m", 2, 2)]
    single = analyze(pd.DataFrame(first))
    assert single.seed_tests == () and single.summary[0].seeds_rejected is None


def _keyed(rows: list[dict[str, Any]], original: str, twin: str) -> list[dict[str, Any]]:
    """Give every pair's original and twin the problem keys ``original``/``twin`` + pair number."""
    for row in rows:
        number = row["pair_id"].lstrip("pq")
        pattern = original if row["variant"] == "original" else twin
        row["problem_key"] = pattern.format(number)
    return rows


def test_pairs_sharing_only_one_member_are_one_cluster() -> None:
    """The same original with another twin (a new generic name, other synonyms) across seeds: the
    pairs share an answer and count once, although no pair as a whole repeats."""
    first = _keyed(_rows({(True, False): 10}, seed=1), "orig-{}", "twin-a-{}")
    second = _keyed(_rows({(True, False): 10}, seed=2, prefix="q"), "orig-{}", "twin-b-{}")
    (pooled,) = analyze(pd.DataFrame([*first, *second])).tests
    assert (pooled.n_pairs, pooled.n_linked_pairs) == (10, 10)
    # a twin of one pair that is the original of another links them too
    chain = _keyed(_rows({(True, False): 3}, seed=1), "k{}", "k{}x")
    chain[3]["problem_key"] = chain[0]["problem_key"]  # pair 1's original is pair 0's original
    chain[5]["problem_key"] = chain[2]["problem_key"]  # pair 2's twin is pair 1's original
    (test,) = analyze(pd.DataFrame(chain)).tests
    assert (test.n_pairs, test.n_linked_pairs) == (1, 2)


def test_one_problem_shown_in_every_pair_is_one_cluster() -> None:
    """The classic horse problem: every pair's original is the same question."""
    rows = _keyed(_rows({(True, False): 30}, "H3", "horses", seed=1), "classic", "animal-{}")
    (test,) = analyze(pd.DataFrame(rows)).tests
    assert (test.n_pairs, test.n_linked_pairs, test.rejected) == (1, 29, False)
    assert "29 pair(s) share a problem" in tables(analyze(pd.DataFrame(rows)))


def test_clusters_are_chosen_before_the_answers() -> None:
    """The kept pair of a cluster is the lowest (seed, pair_id), whatever the answers say."""
    rows = _keyed(_rows({(True, False): 1, (False, True): 1}, seed=1), "same", "twin-{}")
    (test,) = analyze(pd.DataFrame(rows)).tests
    assert (test.n12, test.n21) == (1, 0)  # p0 is kept
    flipped = [dict(r, correct=not r["correct"]) for r in rows]
    (test,) = analyze(pd.DataFrame(flipped)).tests
    assert (test.n12, test.n21) == (0, 1)


def test_later_epochs_of_an_answer_are_dropped() -> None:
    rows = _rows({(True, False): 6})
    repeat = [dict(r, epoch=2, correct=not r["correct"]) for r in rows]
    results = analyze(pd.DataFrame([*(dict(r, epoch=1) for r in rows), *repeat]))
    assert results.n_repeated_answers == len(repeat)
    assert results.tests[0].n12 == 6


def test_accuracy_change_sits_beside_its_within_pair_exchange_null() -> None:
    counts = {(True, True): 20, (True, False): 12, (False, True): 3, (False, False): 5}
    (test,) = analyze(_frame(counts)).tests
    assert test.accuracy_change == pytest.approx(-9 / 40)
    assert test.accuracy_change_null == pytest.approx(0.0, abs=0.01)
    assert test.accuracy_change_null_lo is not None and test.accuracy_change_null_hi is not None
    assert test.accuracy_change_null_lo < 0 < test.accuracy_change_null_hi
    assert test.accuracy_change_excess == pytest.approx(test.accuracy_change, abs=0.01)
    # exchanging within pairs is the sign-flip form of the exact McNemar test
    assert test.accuracy_change_null_p == pytest.approx(test.p_value, abs=0.01)
    assert analyze(_frame(counts)) == analyze(_frame(counts))  # seeded: identical


def test_results_are_json_ready_and_render_the_rejected_grid() -> None:
    frame = pd.concat(
        [_frame({(True, False): 12}, "H4"), _frame({(False, True): 12}, "H3", "horses")]
    )
    results = analyze(frame)
    assert TokenBiasResults.model_validate_json(results.model_dump_json()) == results
    assert results.schema_version == 4 and "independence" in results.decisions
    grid = results.rejected_table()
    assert list(grid.columns) == ["H3 horses", "H4 syllogism-invalid"]
    assert grid.loc[("m", "direct"), "H4 syllogism-invalid"] == "✓"
    assert grid.loc[("m", "direct"), "H3 horses"] == "✗"
    assert "H4" in tables(results)


def _agent_results(spec: str, seed: int, n: int = 60) -> TokenBiasResults:
    items = generate(resolve_config("default", {}), seed=seed, n=n)
    return analyze(pd.DataFrame(answer_rows(items, spec)))


#: strong enough that detection does not hinge on chance: README's 100-seed table shows the
#: default strength (cue 0.95, lure 0.8) detected in 93-97% of seeds on the H6 syllogism tests
STRONG_BIAS = "token-biased?cue=1&lure=0.95"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_token_biased_agent_is_rejected_on_every_hypothesis(seed: int) -> None:
    results = _agent_results(STRONG_BIAS, seed)
    assert len(results.tests) == len(DIRECTIONS)
    assert all(t.rejected for t in results.tests), [
        (t.hypothesis, t.family) for t in results.tests if not t.rejected
    ]


NULL_AGENTS = ("random", "no-bias", "no-bias?by=problem")


def test_agents_without_the_bias_hold_the_level_on_every_hypothesis() -> None:
    """The small version of README's 100-seed table: each agent without token bias — random, and
    answers fixed per prompt or per problem — rejects each hypothesis in at most 3 of 20 seeds
    (15%; at the nominal 5% that happens with probability 1.6% per hypothesis), and the oracle
    never."""
    seeds = range(1, 21)
    for agent in NULL_AGENTS:
        found = rejections(agent, seeds, n=50)
        assert found.seeds == 20
        too_often = {h: k for h, k in found.by_hypothesis.items() if k > 3}
        assert too_often == {}, (agent, dict(found.by_hypothesis))
    assert not any(t.rejected for t in _agent_results("oracle", 1).tests)


def test_the_level_runs_decide_exactly_as_the_analysis() -> None:
    """``rejections`` (the level test above, the 100-seed tables) tests with
    ``decisions_per_seed``, which is ``decisions_only`` of each seed alone; the held-out runs with
    ``analyze(describe=False)``: the same tables, p-values and decisions (and positions) as
    ``analyze``, with and without the bias."""
    config = resolve_config("default", {})
    items = generated(config, 1, 50)
    fields = ("hypothesis", "family", "n12", "n21", "p_value", "p_adjusted", "rejected")
    for agent in ("no-bias", STRONG_BIAS):
        rows = answer_rows(items, agent)
        frame = pd.DataFrame(rows)
        full, brief, only = analyze(frame), analyze(frame, describe=False), decisions_only(frame)
        expected = [[getattr(t, f) for f in fields] for t in full.tests]
        for fast in (only, brief.tests):
            assert [[getattr(t, f) for f in fields] for t in fast] == expected
        assert brief.positions == full.positions
        assert all(t.mde is None and t.accuracy_change_null is None for t in brief.tests)
        assert any(t.rejected for t in full.tests) == (agent == STRONG_BIAS)
        # seeds 1 and 2 (which share problems) read together, each tested alone: exactly what
        # each seed's rows alone give, and analyze's per-seed tests
        second = answer_rows(generated(config, 2, 50), agent)
        together = decisions_per_seed(pd.DataFrame([*rows, *second]))
        assert together == {1: only, 2: decisions_only(pd.DataFrame(second))}
        pooled = analyze(pd.DataFrame([*rows, *second]), describe=False)
        assert [[getattr(t, f) for f in fields] for t in pooled.seed_tests] == [
            [getattr(t, f) for f in fields] for seed in (1, 2) for t in together[seed]
        ]
    with pytest.raises(BiaslabError, match="unparsed must be"):
        decisions_only(frame, unparsed="drops")  # type: ignore[arg-type]
    with pytest.raises(BiaslabError, match="test must be"):
        decisions_only(frame, test="papers")  # type: ignore[arg-type]


@pytest.mark.parametrize("twin", ["animal", "numbers"])
def test_the_classic_horse_problem_is_one_cluster_and_never_rejects_alone(twin: str) -> None:
    """Every pair shows the one classic problem: an answerer fixed per problem answers all its
    originals alike, which the analysis once took for 24 independent pairs (rejected in 63 of
    100 seeds)."""
    config = resolve_config(
        "default",
        {"family": "horses", "horses_numbers": "classic"}
        | ({"horses_twin": twin} if twin != "animal" else {}),
    )
    found = rejections("no-bias?by=problem", range(1, 21), n=24, config=config)
    assert sum(found.by_hypothesis.values()) == 0
    items = generate(config, seed=1, n=24)
    (test,) = analyze(pd.DataFrame(answer_rows(items, "no-bias?by=problem"))).tests
    assert (test.n_pairs, test.n_linked_pairs) == (1, 23)


def test_the_pooled_test_holds_its_level_only_counting_one_pair_per_cluster() -> None:
    """40 seeds pooled, answers fixed per prompt or per problem (1,000 replicates): counting every
    pair — or each pair_key once, as the analysis once did — treats pairs that share a member as
    independent and rejects far more often than 5%; one pair per cluster does not."""
    from biaslab.suites.tokenbias.pooled import pair_table, pooled_levels

    # (H3 linda is no longer a case: its celebrity original and generic twin are one problem, so an
    # answerer fixed per problem never differs within a pair; H1 linda shares problems across seeds)
    for overrides in ({"family": "linda", "hypothesis": "H1"}, {"family": "horses"}):
        pairs = pair_table(resolve_config("default", overrides), range(1, 41), 50)
        levels = {level.keyed: level for level in pooled_levels(pairs, replicates=1000)}
        for level in levels.values():
            assert level.rejected["one per cluster"] <= 0.065, level  # 5% + 2 standard errors
        assert levels["problem"].rejected["pair_key once"] > 0.10, levels["problem"]


def test_one_sided_test_level_on_null_tables() -> None:
    """Under H0 (independent fair coins), raw one-sided p < 0.05 about 5% of the time."""
    rng = np.random.default_rng(2024)
    hits = 0
    trials = 600
    for _ in range(trials):
        x, y = rng.random(100) < 0.6, rng.random(100) < 0.6
        hits += mcnemar_one_sided(int((x & ~y).sum()), int((~x & y).sum())).pvalue < 0.05  # type: ignore[operator]
    assert 0.025 <= hits / trials <= 0.08


def test_the_minimum_detectable_change_is_the_exact_tests_80_percent_power() -> None:
    from scipy.stats import binom

    from biaslab.suites.tokenbias.analysis import minimum_detectable_change

    # 5 discordant of 50 one-sided: only 5 of 5 rejects (P = 1/32), so q^5 = 0.8
    q = 0.8 ** (1 / 5)
    assert minimum_detectable_change(5, 50, "greater") == pytest.approx(5 / 50 * (2 * q - 1))
    assert minimum_detectable_change(5, 50, "two-sided") is None  # 1/32 > 0.025
    assert minimum_detectable_change(0, 50, "less") is None
    mde = minimum_detectable_change(40, 100, "less")
    assert mde is not None
    q = (mde * 100 / 40 + 1) / 2
    critical = next(c for c in range(41) if binom.sf(c - 1, 40, 0.5) <= 0.05)
    assert binom.sf(critical - 1, 40, q) == pytest.approx(0.8, abs=1e-6)


def test_a_position_preference_shows_beside_its_null_and_moves_no_pair() -> None:
    """An answerer that always picks the first option: both members agree, so McNemar sees
    nothing, and the position statistic sees it all."""
    rows = []
    for index in range(40):
        position = index % 2
        for variant in ("original", "twin"):
            rows.append({"model": "first", "family": "linda", "hypothesis": "H1",
                         "mode": "direct", "pair_id": f"p{index}", "variant": variant,
                         "correct": position == 0, "parsed": True,
                         "correct_position": position})  # fmt: skip
    results = analyze(pd.DataFrame(rows))
    (test,) = results.tests
    assert (test.n12, test.n21, test.rejected) == (0, 0, False)
    (preference,) = results.positions
    assert preference.accuracy == (1.0, 0.0) and preference.accuracy_null == 0.5
    assert preference.rejected and preference.method == "Fisher exact"
    assert "linda first: 0: 1.00 (n 20), 1: 0.00 (n 20); null 0.50" in tables(results)
    fair = pd.DataFrame(rows).assign(correct=[i % 8 < 4 for i in range(80)])
    assert not analyze(fair).positions[0].rejected
