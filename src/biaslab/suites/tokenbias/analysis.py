"""Matched-pair token-bias tests: per hypothesis × family × model × mode, one 2×2 table (original
right/wrong × twin right/wrong), a McNemar test in the direction fixed in advance for the hypothesis,
and Benjamini–Hochberg at α within each hypothesis, as in Jiang et al. (2024).

Input: the long answer table of :mod:`biaslab.suites.tokenbias.external` — from Inspect logs or from
a file, the same columns, so both give the same results. Syllogisms are analysed by validity
(``syllogism-invalid`` carries the paper's directions; see :data:`DIRECTIONS` for the valid ones).

Independent pairs. Pairs that share a problem — a member with the same ``problem_key``, or the same
``pair_key`` — form one cluster and the test counts one pair per cluster
(:mod:`biaslab.suites.tokenbias.clusters`): two copies of one question answered by a model at
temperature 0 are one answer, not two. Within a seed the generator draws distinct problems, so
clusters only form across seeds, and for the classic horse problem, which is one problem however
many pairs show it. Each seed is also its own test (``seed_tests``, BH within hypothesis × seed)
when there are several; the headline ``tests`` pool the seeds.

Each test reports its accuracy change beside the stratified permutation null that exchanges the two
answers of every pair (an answerer whose correctness does not depend on the perturbation, with the
model's own accuracy on each pair).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from biaslab.errors import BiaslabError
from biaslab.suites.tokenbias.clusters import independent_pairs
from biaslab.suites.tokenbias.directions import DIRECTIONS, KEY, Alternative
from biaslab.suites.tokenbias.external import long_answers

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd

    from biaslab.stats import McNemarResult, PermutationNullResult

Unparsed = Literal["wrong", "drop"]
TestRule = Literal["exact", "paper"]

SCHEMA_VERSION = 4

DECISIONS: dict[str, str] = {
    "test": "McNemar on the discordant pairs, exact binomial (conditional on n12 + n21), one-sided "
    "in the direction fixed per hypothesis x family, two-sided where no direction is justified. "
    "The paper's rule (normal approximation without continuity correction when n12 + n21 > 10, "
    "test='paper') exceeds alpha at some table sizes (7.30% at n12 + n21 = 12 and 7.17% at 17 for "
    "alpha = 0.05)",
    "multiplicity": "Benjamini-Hochberg at alpha within each hypothesis (its families, models and "
    "modes); per-seed tests within hypothesis x seed; a test without discordant pairs keeps p = 1",
    "independence": "pairs sharing a member's problem_key (the problem without names, famous or "
    "not, ages, places, time phrases, which source of a reputation, pronouns, option order or "
    "framing) or a pair_key, directly or through other pairs, are one "
    "cluster; each test counts one pair per cluster, the one with the lowest (seed, pair_id)",
    "seeds": "per-seed tests when there are several seeds; the pooled tests count one pair per "
    "cluster across the seeds",
    "epochs": "an answer repeated in later epochs is dropped (the first epoch is kept)",
    "incomplete": "a pair (one pair_id of one test: model, seed, epoch, family, hypothesis, "
    "mode) missing its original or its twin is left out and counted per test "
    "(n_incomplete_pairs, incomplete); the same pair_id in another test is another pair",
    "accuracy_change_null": "stratified permutation null, strata = pairs: the original's and the "
    "twin's answers are exchanged within each pair (2000 permutations, seeded by the test key)",
    "syllogisms": "analysed by validity; the paper's directions apply to invalid syllogisms",
    "mde": "minimum detectable effect per test: the smallest |accuracy change| the test's own rule "
    "(exact one-sided binomial, two-sided at alpha/2 per side) detects with 80% power at raw alpha, "
    "conditional on the test's number of discordant pairs (scipy binom); before BH, so a floor",
    "position": "position preference per model x family: accuracy of the originals of the tested "
    "pairs (one per cluster) by where the correct option stood, against equal accuracy at every "
    "position (the null: an answerer without a position preference); Fisher's exact test for two "
    "positions, the chi-square test of independence for more (scipy); only with correct_position",
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PairTest(_Model):
    """One matched-pair test. ``n12`` = original right & twin wrong, ``n21`` = the reverse.

    ``n_pairs`` counts the independent pairs tested (one per cluster); ``n_linked_pairs`` the pairs
    left out because they share a problem with a pair that was kept. ``seed`` is set for a
    per-seed test; pooled tests list the ``seeds`` they pool.
    """

    hypothesis: str
    family: str
    model: str
    mode: str
    seed: int | None = None
    seeds: tuple[int, ...] = ()
    alternative: Alternative
    n_pairs: int
    n_linked_pairs: int = 0
    n_incomplete_pairs: int = 0
    n_unparsed_pairs: int
    n11: int
    n12: int
    n21: int
    n22: int
    accuracy_original: float | None
    accuracy_twin: float | None
    accuracy_change: float | None
    accuracy_change_null: float | None = None
    accuracy_change_null_lo: float | None = None
    accuracy_change_null_hi: float | None = None
    accuracy_change_excess: float | None = None
    accuracy_change_null_p: float | None = None
    mde: float | None = None
    method: str
    statistic: float | None
    p_value: float
    p_adjusted: float | None = None
    rejected: bool = False
    defined: bool = True
    reason: str | None = None


class IncompletePairs(_Model):
    """Pairs of one test that miss their original or their twin (left out of the test)."""

    hypothesis: str
    family: str
    model: str
    mode: str
    n_incomplete_pairs: int


class PositionPreference(_Model):
    """Accuracy by the correct option's position (one model × family, originals of the tested
    pairs), beside the null of equal accuracy at every position."""

    family: str
    model: str
    positions: tuple[int, ...]
    n: tuple[int, ...]
    accuracy: tuple[float, ...]
    accuracy_null: float
    spread: float
    method: str
    p_value: float | None
    p_adjusted: float | None = None
    rejected: bool = False
    reason: str | None = None


class HypothesisSummary(_Model):
    """Tests and rejections of one hypothesis (pooled), and in how many seeds it was rejected (in
    any model; :meth:`TokenBiasResults.seed_rejections` gives them per model)."""

    hypothesis: str
    tests: int
    rejected: int
    seeds: int = 0
    seeds_rejected: int | None = None


class TokenBiasResults(_Model):
    """Everything the analysis computed, ready for ``model_dump_json``."""

    schema_version: int = SCHEMA_VERSION
    alpha: float
    unparsed: Unparsed
    n_rows: int
    n_incomplete_pairs: int
    incomplete: tuple[IncompletePairs, ...] = ()
    positions: tuple[PositionPreference, ...] = ()
    test_rule: TestRule = "exact"
    n_repeated_answers: int = 0
    seeds: tuple[int, ...] = ()
    tests: tuple[PairTest, ...]
    seed_tests: tuple[PairTest, ...] = ()
    summary: tuple[HypothesisSummary, ...]
    decisions: dict[str, str] = Field(default_factory=lambda: dict(DECISIONS))

    def seed_rejections(self) -> list[tuple[str, str, int, int]]:
        """(hypothesis, model, seeds in which any of its tests was rejected, seeds tested)."""
        tested: dict[tuple[str, str], set[int | None]] = {}
        rejected: dict[tuple[str, str], set[int | None]] = {}
        for test in self.seed_tests:
            key = (test.hypothesis, test.model)
            tested.setdefault(key, set()).add(test.seed)
            if test.rejected:
                rejected.setdefault(key, set()).add(test.seed)
        return [
            (h, m, len(rejected.get((h, m), ())), len(s)) for (h, m), s in sorted(tested.items())
        ]

    def warnings(self) -> list[str]:
        """What went wrong with the answers, for the tables and the report (one line each)."""
        found = []
        if self.n_incomplete_pairs:
            where = "; ".join(
                f"{i.hypothesis} {i.family} {i.model} {i.mode}: {i.n_incomplete_pairs}"
                for i in self.incomplete
            )
            found.append(
                f"{self.n_incomplete_pairs} pair(s) miss their original or their twin and were "
                f"left out ({where})"
            )
        return found

    def notes(self) -> list[str]:
        """What the tests left out by design, for the tables and the report (one line each)."""
        linked = sum(t.n_linked_pairs for t in self.tests)
        if not linked:
            return []
        return [
            f"{linked} pair(s) share a problem with another pair and were left out (one pair per "
            "cluster)"
        ]

    def rejected_table(self) -> pd.DataFrame:
        """Figure-4-style grid: rows model × mode, columns hypothesis (family), "✓" = null rejected
        after BH, "✗" = not rejected, "" = not tested."""
        import pandas as pd

        if not self.tests:
            return pd.DataFrame()
        columns = sorted({_column(t) for t in self.tests})
        rows = sorted({(t.model, t.mode) for t in self.tests})
        table = pd.DataFrame(
            "", index=pd.MultiIndex.from_tuples(rows, names=["model", "mode"]), columns=columns
        )
        for test in self.tests:
            table.loc[(test.model, test.mode), _column(test)] = "✓" if test.rejected else "✗"
        return table


TEST_RULES: dict[TestRule, str] = {
    "exact": "exact: the exact binomial McNemar for every table (-p test=exact, the default)",
    "paper": "paper: the normal approximation without continuity correction above 10 discordant "
    "pairs, exact below, as the paper did (-p test=paper); it can exceed alpha",
}


def analysis_options(params: Mapping[str, str]) -> dict[str, Any]:
    """``-p key=value`` of ``biaslab analyze``/``report`` -> keyword arguments of :func:`analyze`
    (only ``test=exact|paper``), with a one-line error naming the valid keys and values."""
    unknown = sorted(set(params) - {"test"})
    if unknown:
        raise BiaslabError(f"unknown tokenbias analysis parameter {unknown[0]!r} (valid: test)")
    rule = params.get("test", "exact")
    if rule not in TEST_RULES:
        raise BiaslabError(
            f"bad value {rule!r} for tokenbias parameter test (choose from exact, paper)"
        )
    return {"test": rule}


def _column(test: PairTest) -> str:
    shared = sum(1 for (_, h) in DIRECTIONS if h == test.hypothesis) > 1
    return f"{test.hypothesis} {test.family}" if shared else test.hypothesis


def analyze(
    frame: pd.DataFrame,
    alpha: float = 0.05,
    unparsed: Unparsed = "wrong",
    test: TestRule = "exact",
    describe: bool = True,
) -> TokenBiasResults:
    """Run every matched-pair test in ``frame`` (a tidy log frame or a long answer table).

    ``test="exact"`` (default) uses the exact binomial McNemar for every table, which never exceeds
    α; ``"paper"`` switches to the normal approximation above 10 discordant pairs, as the paper did.
    ``describe=False`` leaves each test's within-pair null and minimum detectable change empty
    (None), for simulations that only count decisions.
    """
    _check_rules(unparsed, test)
    answers, repeated = _first_epoch(long_answers(frame))
    pairs, incomplete = _pairs(answers)
    if pairs.empty:
        raise BiaslabError(
            f"tokenbias analysis: no complete pair to test ({len(incomplete)} pair(s) miss their "
            "original or their twin)"
        )
    seeds = sorted({int(s) for s in pairs["seed"] if s >= 0})
    seed_tests: list[PairTest] = []
    if len(seeds) > 1:
        for seed in seeds:
            chosen = pairs[pairs["seed"] == seed]
            missing = incomplete[incomplete["seed"] == seed]
            found = _tests(chosen, missing, unparsed, test, seed=seed, describe=describe)
            seed_tests += _adjust(found, alpha)
    seeds_by_key = {
        tuple(str(k) for k in key): tuple(sorted({int(s) for s in group if s >= 0}))
        for key, group in pairs.groupby(list(KEY), sort=True)["seed"]
    }
    found = _tests(pairs, incomplete, unparsed, test, seeds=seeds_by_key, describe=describe)
    tests = _adjust(found, alpha)
    positions = position_preferences(independent_pairs(pairs)[0], alpha)
    return TokenBiasResults(
        alpha=alpha,
        unparsed=unparsed,
        n_rows=len(answers) + repeated,
        n_incomplete_pairs=len(incomplete),
        incomplete=_incomplete_counts(incomplete),
        positions=positions,
        test_rule=test,
        decisions={**DECISIONS, "test_rule": TEST_RULES[test]},
        n_repeated_answers=repeated,
        seeds=tuple(seeds),
        tests=tuple(tests),
        seed_tests=tuple(seed_tests),
        summary=_summary(tests, seed_tests, len(seeds)),
    )


def decisions_only(
    frame: pd.DataFrame,
    alpha: float = 0.05,
    unparsed: Unparsed = "wrong",
    test: TestRule = "exact",
) -> tuple[PairTest, ...]:
    """The tests of :func:`analyze` with their p-values and decisions only: no within-pair null,
    no minimum detectable change, no per-seed tests and no position statistic. What the level runs
    (:mod:`biaslab.suites.tokenbias.levels`) need thousands of times, at a fraction of the cost."""
    _check_rules(unparsed, test)
    answers, _ = _first_epoch(long_answers(frame))
    pairs, incomplete = _pairs(answers)
    if pairs.empty:
        raise BiaslabError("tokenbias analysis: no complete pair to test")
    return tuple(_adjust(_tests(pairs, incomplete, unparsed, test, describe=False), alpha))


def decisions_per_seed(
    frame: pd.DataFrame,
    alpha: float = 0.05,
    unparsed: Unparsed = "wrong",
    test: TestRule = "exact",
) -> dict[int, tuple[PairTest, ...]]:
    """:func:`decisions_only` of each seed's answers on their own, seed -> tests: pairs are
    clustered and Benjamini–Hochberg applied within the seed, exactly as if each seed's rows were
    passed alone. The answers are read, paired, clustered and tested in one pass for all seeds (a
    level run tests many seeds of one agent; per call, the fixed cost is most of the work): each
    seed's mode is tagged with the seed, so every test key, and every cluster, stays within one
    seed, and the tag sorts like the end of the mode (a control character precedes any letter)."""
    _check_rules(unparsed, test)
    answers, _ = _first_epoch(long_answers(frame))
    if answers["seed"].isna().any():
        raise BiaslabError("tokenbias analysis: answers without a seed cannot be tested per seed")
    pairs, incomplete = _pairs(answers)

    def per_seed(table: pd.DataFrame) -> pd.DataFrame:
        return table.assign(mode=table["mode"].astype(str) + _SEED_TAG + table["seed"].astype(str))

    found: dict[int, list[PairTest]] = {int(s): [] for s in sorted(set(answers["seed"]))}
    for tagged in _tests(per_seed(pairs), per_seed(incomplete), unparsed, test, describe=False):
        mode, _, seed = tagged.mode.rpartition(_SEED_TAG)
        found[int(seed)].append(tagged.model_copy(update={"mode": mode}))
    empty = [seed for seed, tests in found.items() if not tests]
    if empty:
        raise BiaslabError(f"tokenbias analysis: no complete pair to test in seed {empty[0]}")
    return {seed: tuple(_adjust(tests, alpha)) for seed, tests in found.items()}


_SEED_TAG = "\x1f"


def _check_rules(unparsed: str, test: str) -> None:
    if unparsed not in ("wrong", "drop"):
        raise BiaslabError(f"unparsed must be 'wrong' or 'drop', got {unparsed!r}")
    if test not in ("exact", "paper"):
        raise BiaslabError(f"test must be 'exact' or 'paper', got {test!r}")


def _first_epoch(answers: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """One answer per item and seed: later epochs of the same item are repeats."""
    ordered = answers.sort_values("epoch", kind="stable")
    kept = ordered.drop_duplicates([*KEY, "seed", "pair_id", "variant"], keep="first")
    return kept.sort_index(), len(answers) - len(kept)


def _pairs(data: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per complete (key, seed, pair_id) with both members' outcomes and problem keys,
    one row per pair missing a member). ``seed`` is -1 where the answers name none."""
    import pandas as pd

    index = [*KEY, "seed", "pair_id", "pair_key"]
    data = data.assign(
        seed=data["seed"].fillna(-1).astype(int),
        correct_position=data["correct_position"].astype("Float64").fillna(-1.0).astype(float),
    )
    values = ["correct", "parsed", "problem_key", "correct_position"]
    wide = data.pivot_table(index=index, columns="variant", values=values, aggfunc="first")
    wide = wide.reindex(columns=pd.MultiIndex.from_product([values, ["original", "twin"]]))
    outcomes = [("correct", v) for v in ("original", "twin")]
    whole = wide[outcomes].notna().all(axis=1)
    complete = wide[whole]
    flat = complete.copy()
    flat.columns = ["_".join(map(str, column)) for column in complete.columns.to_flat_index()]
    return flat.reset_index(), wide[~whole].index.to_frame(index=False)


def _incomplete_counts(incomplete: pd.DataFrame) -> tuple[IncompletePairs, ...]:
    counts = incomplete.groupby(list(KEY), sort=True).size().reset_index(name="n")
    return tuple(
        IncompletePairs(
            hypothesis=str(row.hypothesis),
            family=str(row.family),
            model=str(row.model),
            mode=str(row.mode),
            n_incomplete_pairs=int(str(row.n)),
        )
        for row in counts.itertuples(index=False)
    )


def _tests(
    pairs: pd.DataFrame,
    incomplete: pd.DataFrame,
    unparsed: Unparsed,
    rule: TestRule,
    *,
    seed: int | None = None,
    seeds: dict[tuple[str, ...], tuple[int, ...]] | None = None,
    describe: bool = True,
) -> list[PairTest]:
    kept, linked = independent_pairs(pairs)
    n_linked = linked.groupby(list(KEY)).size()
    n_incomplete = incomplete.groupby(list(KEY)).size()
    # each test's rows as positions into whole columns: slicing numpy arrays per test costs a
    # fraction of building a DataFrame per group (the rows keep their order within a test)
    columns = {name: kept[name].astype(bool).to_numpy() for name in _OUTCOME_COLUMNS}
    grouped = kept.groupby(list(KEY), sort=True)
    positions: dict[tuple[str, ...], Any] = grouped.indices  # type: ignore[assignment]
    tests = []
    for raw in sorted(positions):  # the keys are strings: groupby's order
        key = tuple(str(k) for k in raw)
        rows = positions[raw]
        outcomes = _Outcomes(*(columns[name][rows] for name in _OUTCOME_COLUMNS))
        test = _test(key, outcomes, unparsed, rule, seed, describe)
        tests.append(
            test.model_copy(
                update={
                    "seeds": (seeds or {}).get(key, ()),
                    "n_linked_pairs": int(n_linked.get(raw, 0)),
                    "n_incomplete_pairs": int(n_incomplete.get(raw, 0)),
                }
            )
        )
    return tests


_OUTCOME_COLUMNS = ("parsed_original", "parsed_twin", "correct_original", "correct_twin")


class _Outcomes(NamedTuple):
    """One test's kept pairs, member by member (the columns of :data:`_OUTCOME_COLUMNS`)."""

    parsed_original: npt.NDArray[np.bool_]
    parsed_twin: npt.NDArray[np.bool_]
    correct_original: npt.NDArray[np.bool_]
    correct_twin: npt.NDArray[np.bool_]


def _test(
    key: tuple[str, ...],
    outcomes: _Outcomes,
    unparsed: Unparsed,
    rule: TestRule,
    seed: int | None,
    describe: bool = True,
) -> PairTest:
    from biaslab.stats import null_fields

    hypothesis, family, model, mode = key
    alternative = DIRECTIONS.get((family, hypothesis))
    if alternative is None:
        raise BiaslabError(f"tokenbias analysis: unknown family/hypothesis {family}/{hypothesis}")
    both_parsed = outcomes.parsed_original & outcomes.parsed_twin
    n_unparsed = int((~both_parsed).sum())
    x, y = outcomes.correct_original, outcomes.correct_twin
    if unparsed == "drop":
        x, y = x[both_parsed], y[both_parsed]
    n11, n12 = int((x & y).sum()), int((x & ~y).sum())
    n21, n22 = int((~x & y).sum()), int((~x & ~y).sum())
    n = len(x)
    result = mcnemar_test(n12, n21, alternative, n, rule)
    mde = minimum_detectable_change(n12 + n21, n, alternative) if describe else None
    acc_o = float(x.mean()) if n else None
    acc_t = float(y.mean()) if n else None
    change_null = _change_null(x, y, alternative, (*key, seed)) if describe else None
    null = null_fields("accuracy_change", change_null)
    return PairTest(
        hypothesis=hypothesis,
        family=family,
        model=model,
        mode=mode,
        seed=seed,
        alternative=alternative,
        n_pairs=n,
        n_unparsed_pairs=n_unparsed,
        n11=n11,
        n12=n12,
        n21=n21,
        n22=n22,
        accuracy_original=acc_o,
        accuracy_twin=acc_t,
        accuracy_change=None if acc_o is None or acc_t is None else acc_t - acc_o,
        accuracy_change_null=null["accuracy_change_null"],
        accuracy_change_null_lo=null["accuracy_change_null_lo"],
        accuracy_change_null_hi=null["accuracy_change_null_hi"],
        accuracy_change_excess=null["accuracy_change_excess"],
        accuracy_change_null_p=null["accuracy_change_null_p"],
        mde=mde,
        method=result.method,
        statistic=result.statistic,
        p_value=result.pvalue if result.pvalue is not None else 1.0,
        defined=result.defined,
        reason=result.reason,
    )


def mcnemar_test(
    b: int, c: int, alternative: Alternative, n_pairs: int, rule: TestRule = "exact"
) -> McNemarResult:
    """McNemar on the discordant counts, one-sided or two-sided. ``rule="exact"``: the exact
    binomial test whatever n* = b + c; ``"paper"``: exact for n* ≤ 10, else the normal
    approximation without continuity correction (two-sided: the uncorrected chi-square, z² = χ²)."""
    from biaslab.stats import mcnemar, mcnemar_one_sided

    exact_max = max(b + c, 10) if rule == "exact" else 10
    if alternative != "two-sided":
        return mcnemar_one_sided(
            b, c, alternative=alternative, n_pairs=n_pairs, exact_max=exact_max
        )
    if b + c <= exact_max:
        return mcnemar(b, c, method="exact", n_pairs=n_pairs)
    return mcnemar(b, c, method="chi2", correction=False, n_pairs=n_pairs)


def minimum_detectable_change(
    discordant: int, n_pairs: int, alternative: Alternative, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """The smallest |accuracy change| the exact McNemar test detects with ``power`` at ``alpha``,
    given ``discordant`` = n12 + n21 of ``n_pairs``: the change is (n* / n)(2q − 1) when a
    discordant pair goes the expected way with probability q. Exact binomial power (scipy),
    conditional on n*; statsmodels' power classes are normal approximations, which at the small n*
    of these tables misstate an exact test's power. None when even q = 1 falls short."""
    from scipy.optimize import brentq
    from scipy.stats import binom

    if discordant == 0 or n_pairs == 0:
        return None
    level = alpha / 2 if alternative == "two-sided" else alpha
    # the smallest count c with P(X >= c | q = 1/2) <= level: the one-sided rejection region
    critical = int(binom.isf(level, discordant, 0.5)) + 1
    while critical > 0 and binom.sf(critical - 2, discordant, 0.5) <= level:
        critical -= 1
    if critical > discordant:
        return None

    def shortfall(q: float) -> float:
        return float(binom.sf(critical - 1, discordant, q)) - power

    if shortfall(1.0) < 0:
        return None
    q = brentq(shortfall, 0.5, 1.0, xtol=1e-9)
    return discordant / n_pairs * (2 * q - 1)


def position_preferences(pairs: pd.DataFrame, alpha: float) -> tuple[PositionPreference, ...]:
    """Accuracy by the correct option's position per model × family (see ``decisions``), with
    Benjamini–Hochberg over the models × families."""
    from biaslab.stats import adjust_pvalues

    known = pairs[pairs["correct_position_original"] >= 0]
    found = [
        _position_test(str(family), str(model), group)
        for (family, model), group in known.groupby(["family", "model"], sort=True)
    ]
    tested = [i for i, f in enumerate(found) if f.p_value is not None]
    if tested:
        result = adjust_pvalues(
            [found[i].p_value or 1.0 for i in tested], method="fdr_bh", alpha=alpha
        )
        for i, p_adj, reject in zip(tested, result.adjusted, result.reject, strict=True):
            found[i] = found[i].model_copy(update={"p_adjusted": p_adj, "rejected": bool(reject)})
    return tuple(found)


def _position_test(family: str, model: str, group: pd.DataFrame) -> PositionPreference:
    import numpy as np
    from scipy.stats import chi2_contingency, fisher_exact

    position = group["correct_position_original"].astype(int).to_numpy()
    correct = group["correct_original"].astype(bool).to_numpy()
    positions = sorted(set(position.tolist()))
    table = np.array([[(correct & (position == p)).sum(), (~correct & (position == p)).sum()]
                      for p in positions])  # fmt: skip
    n = table.sum(axis=1)
    accuracy = table[:, 0] / n
    base = PositionPreference(
        family=family,
        model=model,
        positions=tuple(positions),
        n=tuple(int(k) for k in n),
        accuracy=tuple(float(a) for a in accuracy),
        accuracy_null=float(correct.mean()),
        spread=float(accuracy.max() - accuracy.min()),
        method="none",
        p_value=None,
    )
    if len(positions) < 2:
        return base.model_copy(update={"reason": "the correct option stood in one place"})
    if table[:, 0].sum() in (0, n.sum()):
        return base.model_copy(update={"p_value": 1.0, "reason": "all right or all wrong"})
    if len(positions) == 2:
        p = float(fisher_exact(table).pvalue)
        return base.model_copy(update={"method": "Fisher exact", "p_value": p})
    p = float(chi2_contingency(table).pvalue)
    return base.model_copy(update={"method": "chi-square independence", "p_value": p})


def _change_null(
    x: npt.NDArray[np.bool_],
    y: npt.NDArray[np.bool_],
    alternative: Alternative,
    key: tuple[object, ...],
) -> PermutationNullResult | None:
    """Accuracy change (twin − original) beside its within-pair exchange null."""
    import numpy as np

    from biaslab.seeding import stable_hash
    from biaslab.stats import permutation_null

    if len(x) == 0:
        return None
    values = np.empty(2 * len(x), dtype=float)
    values[0::2], values[1::2] = x, y
    strata = np.repeat(np.arange(len(x)), 2)

    def change(perm: np.ndarray) -> np.ndarray:
        return perm[:, 1::2].mean(axis=1) - perm[:, 0::2].mean(axis=1)

    direction = {"greater": "less", "less": "greater", "two-sided": "two-sided"}[alternative]
    return permutation_null(
        values,
        strata,
        change,
        seed=stable_hash("tokenbias-null", *map(str, key)),
        alternative=direction,  # type: ignore[arg-type]
        name="accuracy_change",
    )


def _adjust(tests: list[PairTest], alpha: float) -> list[PairTest]:
    """BH within each hypothesis (its families × models × modes)."""
    from biaslab.stats import adjust_pvalues

    adjusted: list[PairTest] = []
    for hypothesis in sorted({t.hypothesis for t in tests}):
        family = [t for t in tests if t.hypothesis == hypothesis]
        result = adjust_pvalues([t.p_value for t in family], method="fdr_bh", alpha=alpha)
        for test, p_adj, reject in zip(family, result.adjusted, result.reject, strict=True):
            adjusted.append(test.model_copy(update={"p_adjusted": p_adj, "rejected": bool(reject)}))
    return adjusted


def _summary(
    tests: list[PairTest], seed_tests: list[PairTest], n_seeds: int
) -> tuple[HypothesisSummary, ...]:
    hypotheses = sorted({t.hypothesis for t in tests})
    return tuple(
        HypothesisSummary(
            hypothesis=h,
            tests=sum(t.hypothesis == h for t in tests),
            rejected=sum(t.hypothesis == h and t.rejected for t in tests),
            seeds=n_seeds,
            seeds_rejected=len({t.seed for t in seed_tests if t.hypothesis == h and t.rejected})
            if seed_tests
            else None,
        )
        for h in hypotheses
    )


def tables(results: TokenBiasResults) -> str:
    """Plain-text summary for the terminal: the tests and the rejected grid."""
    lines = [
        f"token bias: BH within hypothesis at alpha={results.alpha}, unparsed={results.unparsed}, "
        f"seeds={','.join(map(str, results.seeds)) or 'n/a'}, McNemar {results.test_rule}"
    ]
    lines += [f"warning: {warning}" for warning in results.warnings()]
    lines += [f"note: {note}" for note in results.notes()]
    lines.append(
        f"{'hyp':4} {'family':17} {'model':24} {'mode':22} {'n':>5} {'inc':>4} {'n12':>4} {'n21':>4} "
        f"{'Δacc':>6} {'null band':>13} {'MDE':>5} {'p_adj':>7}  rej"
    )
    for t in results.tests:
        change = "" if t.accuracy_change is None else f"{t.accuracy_change:+.2f}"
        band = (
            ""
            if t.accuracy_change_null_lo is None or t.accuracy_change_null_hi is None
            else f"[{t.accuracy_change_null_lo:+.2f},{t.accuracy_change_null_hi:+.2f}]"
        )
        p_adj = "" if t.p_adjusted is None else f"{t.p_adjusted:.3g}"
        mde = "" if t.mde is None else f"{t.mde:.2f}"
        lines.append(
            f"{t.hypothesis:4} {t.family:17} {t.model[:24]:24} {t.mode[:22]:22} {t.n_pairs:>5} "
            f"{t.n_incomplete_pairs:>4} "
            f"{t.n12:>4} {t.n21:>4} {change:>6} {band:>13} {mde:>5} {p_adj:>7}  "
            f"{'yes' if t.rejected else 'no'}"
        )
    if results.seed_tests:
        lines.append("")
        lines.append("per seed: hypothesis rejected in k of the seeds")
        for hypothesis, model, k, seeds in results.seed_rejections():
            lines.append(f"  {hypothesis} {model}: {k} of {seeds}")
    if results.positions:
        lines.append("")
        lines.append("position preference (originals of the tested pairs; null: equal accuracy)")
        lines += [f"  {line}" for line in position_lines(results)]
    from biaslab.report.tables import text_table

    grid = results.rejected_table()
    lines.append("")
    lines.append(
        text_table(
            ["model", "mode", *grid.columns],
            [[model, mode, *grid.loc[(model, mode)].tolist()] for model, mode in grid.index],
        )
    )
    return "\n".join(lines)


def position_lines(results: TokenBiasResults) -> list[str]:
    """One line per model × family: accuracy by the correct option's position, beside the null."""
    lines = []
    for f in results.positions:
        by_position = ", ".join(
            f"{p}: {a:.2f} (n {k})" for p, a, k in zip(f.positions, f.accuracy, f.n, strict=True)
        )
        p = "n/a" if f.p_adjusted is None else f"{f.p_adjusted:.3g}"
        verdict = "preference" if f.rejected else "no preference found"
        lines.append(
            f"{f.family} {f.model}: {by_position}; null {f.accuracy_null:.2f}; spread "
            f"{f.spread:.2f}; {f.method} p (BH) {p}: {verdict}"
            + (f" ({f.reason})" if f.reason else "")
        )
    return lines
