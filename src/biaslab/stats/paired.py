"""Paired binary outcomes: the 2x2 table and McNemar tests (statsmodels, scipy)."""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal

import numpy.typing as npt
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from biaslab.stats._inputs import _binary, _check_counts, _same_length
from biaslab.stats.results import McNemarResult, PairedTable

# --------------------------------------------------------------------------------------------------
# McNemar and multiplicity
# --------------------------------------------------------------------------------------------------


def paired_table(x: npt.ArrayLike, y: npt.ArrayLike) -> PairedTable:
    """Build the paired 2×2 table from two aligned boolean arrays (one entry per pair)."""
    xa, ya = _binary(x, "x"), _binary(y, "y")
    _same_length("x", xa, "y", ya)
    return PairedTable(
        a=int((xa & ya).sum()),
        b=int((xa & ~ya).sum()),
        c=int((~xa & ya).sum()),
        d=int((~xa & ~ya).sum()),
    )


def mcnemar(
    b: int,
    c: int,
    *,
    method: Literal["exact", "chi2"] = "exact",
    correction: bool = True,
    n_pairs: int | None = None,
) -> McNemarResult:
    """Two-sided McNemar test (statsmodels) from the discordant counts b and c.

    ``method="exact"`` is the binomial test (statistic = min(b, c)); ``"chi2"`` is the chi-square
    statistic, with the continuity correction (|b − c| − 1)²/(b + c) when ``correction`` (the
    confirmation-bias paper's choice). Only discordant pairs inform the test; pass ``n_pairs`` to
    record the total number of pairs as ``n``.
    """
    _check_counts(b=b, c=c)
    if method not in ("exact", "chi2"):
        raise ValueError(f"method must be 'exact' or 'chi2', got {method!r}")
    b, c = int(b), int(c)
    n = int(n_pairs) if n_pairs is not None else b + c
    name = (
        "McNemar exact binomial"
        if method == "exact"
        else ("McNemar chi2" + (" with continuity correction" if correction else ""))
    )
    common: dict[str, Any] = {
        "method": name,
        "n": n,
        "b": b,
        "c": c,
        "n_discordant": b + c,
        "alternative": "two-sided",
    }
    if b + c == 0:
        return McNemarResult(**common, defined=False, reason="zero discordant pairs (b + c = 0)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = sm_mcnemar([[0, b], [c, 0]], exact=method == "exact", correction=correction)
    return McNemarResult(**common, statistic=float(res.statistic), pvalue=float(res.pvalue))


def mcnemar_paired(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    method: Literal["exact", "chi2"] = "exact",
    correction: bool = True,
) -> McNemarResult:
    """Two-sided McNemar test straight from paired boolean arrays; ``n`` = number of pairs."""
    table = paired_table(x, y)
    return mcnemar(table.b, table.c, method=method, correction=correction, n_pairs=table.n)


def mcnemar_one_sided(
    b: int,
    c: int,
    *,
    alternative: Literal["greater", "less"] = "greater",
    exact_max: int = 10,
    n_pairs: int | None = None,
) -> McNemarResult:
    """One-sided McNemar test as in the token-bias paper (Jiang et al., 2024).

    With n* = b + c discordant pairs: exact binomial test (scipy ``binomtest``, b ~ Bin(n*, ½)) when
    n* ≤ ``exact_max`` (10), otherwise the standardised statistic z = (b − c)/√(b + c) against the
    standard normal (no continuity correction). ``alternative="greater"`` tests H1: π12 > π21, i.e.
    b (x True, y False) is more likely than c — with x = original correct and y = perturbed correct,
    the perturbation hurts. ``"less"`` tests π12 < π21. ``statistic`` is b for the exact test and z
    for the normal approximation; ``method`` says which was used.
    """
    _check_counts(b=b, c=c, exact_max=exact_max)
    if alternative not in ("greater", "less"):
        raise ValueError(f"alternative must be 'greater' or 'less', got {alternative!r}")
    b, c = int(b), int(c)
    n_star = b + c
    exact = n_star <= exact_max
    common: dict[str, Any] = {
        "method": "McNemar one-sided exact binomial"
        if exact
        else "McNemar one-sided normal approximation",
        "n": int(n_pairs) if n_pairs is not None else n_star,
        "b": b,
        "c": c,
        "n_discordant": n_star,
        "alternative": alternative,
    }
    if n_star == 0:
        return McNemarResult(**common, defined=False, reason="zero discordant pairs (b + c = 0)")
    if exact:
        p = sps.binomtest(b, n_star, 0.5, alternative=alternative).pvalue
        return McNemarResult(**common, statistic=float(b), pvalue=float(p))
    z = (b - c) / math.sqrt(n_star)
    p = sps.norm.sf(z) if alternative == "greater" else sps.norm.cdf(z)
    return McNemarResult(**common, statistic=z, pvalue=float(p))
