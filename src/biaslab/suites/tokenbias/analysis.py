"""Matched-pair token-bias tests: per hypothesis × family × model × mode, one 2×2 table (original
right/wrong × twin right/wrong), a one-sided McNemar test in the direction fixed in advance for the
hypothesis, and Benjamini–Hochberg at α within each hypothesis, as in Jiang et al. (2024).

Input: one row per answered item with columns ``model, family, hypothesis, mode, pair_id, variant,
correct, parsed`` (``item_``-prefixed item-meta columns from :func:`biaslab.frames.turn_frame` are
accepted too). Family is part of the test key because H3 covers two families with opposite expected
directions. A test with no discordant pairs keeps p = 1 in its BH family (the paper's convention),
so empty cells make the correction more conservative, never less.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from biaslab.errors import BiaslabError

if TYPE_CHECKING:
    import pandas as pd

Alternative = Literal["greater", "less"]
Unparsed = Literal["wrong", "drop"]

REQUIRED = ("model", "family", "hypothesis", "mode", "pair_id", "variant", "correct", "parsed")
KEY = ("hypothesis", "family", "model", "mode")

#: "greater": π12 > π21, the twin is answered worse; "less": the twin is answered better.
DIRECTIONS: dict[tuple[str, str], Alternative] = {
    ("linda", "H1"): "less",  # an irrelevant added event breaks the representativeness lure
    ("linda", "H2"): "greater",  # without the famous "Linda" exemplar accuracy drops
    ("linda", "H3"): "less",  # a generic name removes the celebrity's misleading background
    ("horses", "H3"): "greater",  # the famous "horses" problem is solved, bunnies are not
    ("syllogism", "H4"): "greater",  # textbook "All"/"Some" tokens help
    ("syllogism", "H5"): "less",  # reputable sources make invalid arguments look sound
    ("linda", "H6"): "less",  # hints help
    ("syllogism", "H6"): "less",
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PairTest(_Model):
    """One matched-pair test. ``n12`` = original right & twin wrong, ``n21`` = the reverse."""

    hypothesis: str
    family: str
    model: str
    mode: str
    alternative: Alternative
    n_pairs: int
    n_unparsed_pairs: int
    n11: int
    n12: int
    n21: int
    n22: int
    accuracy_original: float | None
    accuracy_twin: float | None
    accuracy_change: float | None
    method: str
    statistic: float | None
    p_value: float
    p_adjusted: float | None = None
    rejected: bool = False
    defined: bool = True
    reason: str | None = None


class HypothesisSummary(_Model):
    hypothesis: str
    tests: int
    rejected: int


class TokenBiasResults(_Model):
    """Everything the analysis computed, ready for ``model_dump_json``."""

    alpha: float
    unparsed: Unparsed
    n_rows: int
    n_incomplete_pairs: int
    tests: tuple[PairTest, ...]
    summary: tuple[HypothesisSummary, ...]

    def rejected_table(self) -> pd.DataFrame:
        """Figure-4-style grid: rows model × mode, columns hypothesis (family), "✓" = null rejected
        after BH, "✗" = not rejected, "" = not tested."""
        import pandas as pd

        columns = sorted({_column(t) for t in self.tests})
        rows = sorted({(t.model, t.mode) for t in self.tests})
        table = pd.DataFrame(
            "", index=pd.MultiIndex.from_tuples(rows, names=["model", "mode"]), columns=columns
        )
        for test in self.tests:
            table.loc[(test.model, test.mode), _column(test)] = "✓" if test.rejected else "✗"
        return table


def _column(test: PairTest) -> str:
    shared = sum(1 for (_, h) in DIRECTIONS if h == test.hypothesis) > 1
    return f"{test.hypothesis} {test.family}" if shared else test.hypothesis


def analyze(
    frame: pd.DataFrame, alpha: float = 0.05, unparsed: Unparsed = "wrong"
) -> TokenBiasResults:
    """Run every matched-pair test in ``frame`` and correct within each hypothesis."""
    if unparsed not in ("wrong", "drop"):
        raise BiaslabError(f"unparsed must be 'wrong' or 'drop', got {unparsed!r}")
    data = _normalise(frame)
    pairs, incomplete = _pairs(data)
    tests = [
        _test(tuple(str(k) for k in key), group, unparsed)
        for key, group in pairs.groupby(list(KEY), sort=True)
    ]
    tests = _adjust(tests, alpha)
    return TokenBiasResults(
        alpha=alpha,
        unparsed=unparsed,
        n_rows=len(data),
        n_incomplete_pairs=incomplete,
        tests=tuple(tests),
        summary=_summary(tests),
    )


def _normalise(frame: pd.DataFrame) -> pd.DataFrame:
    """Accept plain or ``item_``-prefixed meta columns; check what is needed is there."""
    renames = {
        f"item_{c}": c for c in REQUIRED if c not in frame.columns and f"item_{c}" in frame.columns
    }
    data = frame.rename(columns=renames)
    missing = [c for c in REQUIRED if c not in data.columns]
    if missing:
        raise BiaslabError(
            f"tokenbias analysis needs columns {', '.join(missing)} (required: {', '.join(REQUIRED)})"
        )
    data = data[list(REQUIRED)].copy()
    data["parsed"] = data["parsed"].fillna(False).astype(bool)
    data["correct"] = data["correct"].fillna(False).astype(bool) & data["parsed"]
    bad = sorted(set(data["variant"]) - {"original", "twin"})
    if bad:
        raise BiaslabError(f"variant must be 'original' or 'twin', got {bad[0]!r}")
    return data


def _pairs(data: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """One row per (key, pair_id) with both members' outcomes; pairs missing a member are counted."""
    index = [*KEY, "pair_id"]
    if data.duplicated([*index, "variant"]).any():
        raise BiaslabError(
            "tokenbias analysis: an item was answered twice by the same model and mode"
        )
    wide = data.pivot_table(
        index=index, columns="variant", values=["correct", "parsed"], aggfunc="first"
    )
    complete = wide.dropna()
    flat = complete.copy()
    flat.columns = ["_".join(map(str, column)) for column in complete.columns.to_flat_index()]
    return flat.reset_index(), len(wide) - len(complete)


def _test(key: tuple[str, ...], group: pd.DataFrame, unparsed: Unparsed) -> PairTest:
    from biaslab.stats import mcnemar_one_sided

    hypothesis, family, model, mode = key
    alternative = DIRECTIONS.get((family, hypothesis))
    if alternative is None:
        raise BiaslabError(f"tokenbias analysis: unknown family/hypothesis {family}/{hypothesis}")
    both_parsed = group["parsed_original"].astype(bool) & group["parsed_twin"].astype(bool)
    n_unparsed = int((~both_parsed).sum())
    if unparsed == "drop":
        group = group[both_parsed]
    x = group["correct_original"].astype(bool)
    y = group["correct_twin"].astype(bool)
    n11, n12 = int((x & y).sum()), int((x & ~y).sum())
    n21, n22 = int((~x & y).sum()), int((~x & ~y).sum())
    n = len(group)
    result = mcnemar_one_sided(n12, n21, alternative=alternative, n_pairs=n)
    acc_o = float(x.mean()) if n else None
    acc_t = float(y.mean()) if n else None
    return PairTest(
        hypothesis=hypothesis,
        family=family,
        model=model,
        mode=mode,
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
        method=result.method,
        statistic=result.statistic,
        p_value=result.pvalue if result.pvalue is not None else 1.0,
        defined=result.defined,
        reason=result.reason,
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


def _summary(tests: list[PairTest]) -> tuple[HypothesisSummary, ...]:
    hypotheses = sorted({t.hypothesis for t in tests})
    return tuple(
        HypothesisSummary(
            hypothesis=h,
            tests=sum(t.hypothesis == h for t in tests),
            rejected=sum(t.hypothesis == h and t.rejected for t in tests),
        )
        for h in hypotheses
    )


def tables(results: TokenBiasResults) -> str:
    """Plain-text summary for the terminal: the tests and the rejected grid."""
    lines = [
        f"token bias: BH within hypothesis at alpha={results.alpha}, unparsed={results.unparsed}"
    ]
    lines.append(
        f"{'hyp':4} {'family':9} {'model':24} {'mode':22} {'n':>5} {'n12':>4} {'n21':>4} "
        f"{'Δacc':>6} {'p_adj':>7}  rej"
    )
    for t in results.tests:
        change = "" if t.accuracy_change is None else f"{t.accuracy_change:+.2f}"
        p_adj = "" if t.p_adjusted is None else f"{t.p_adjusted:.3g}"
        lines.append(
            f"{t.hypothesis:4} {t.family:9} {t.model[:24]:24} {t.mode[:22]:22} {t.n_pairs:>5} "
            f"{t.n12:>4} {t.n21:>4} {change:>6} {p_adj:>7}  {'yes' if t.rejected else 'no'}"
        )
    lines.append("")
    lines.append(results.rejected_table().to_string())
    return "\n".join(lines)
