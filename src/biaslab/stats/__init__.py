"""The one statistics package: thin wrappers over scipy/statsmodels plus seeded cluster bootstraps.

Every function returns a small frozen pydantic result (so it serialises to JSON with ``model_dump``)
carrying the statistic, p-value, confidence interval where the method has one, ``n`` and the method
name. Degenerate but valid data (an empty cell, zero discordant pairs, a constant column, a single
cluster, a singular fit) never raises and never yields NaN: the result has ``defined=False``, a
``reason`` and ``statistic``/``pvalue``/``ci`` set to ``None``. As a last line of defence the result
models themselves turn any non-finite number a library returns into ``None`` (and, for the statistic
or p-value, into ``defined=False``). Malformed input — mismatched lengths, negative counts, outcomes
that are not 0/1, probabilities outside [0, 1] — is a programming error and raises ``ValueError``.

Conventions
-----------
* Paired binary outcomes ``x``, ``y`` form the table ``[[a, b], [c, d]]`` with rows = x (True first)
  and columns = y (True first): ``b`` = x True & y False, ``c`` = x False & y True (the token-bias
  paper's n12 and n21 when "1" means correct).
* Bootstraps resample whole clusters (conversations) with replacement, fully vectorised: a
  resample × cluster count matrix times per-cluster sufficient statistics. Only blocks of thousands
  of resamples are looped over, to bound memory. CIs are percentile intervals over the resamples on
  which the statistic is defined; the number of undefined resamples is always reported.
* ``seed`` is an ``int`` or a ``numpy.random.SeedSequence`` (e.g. from :mod:`biaslab.seeding`):
  the same seed gives the same CI bit for bit.

Modules, by the kind of question they answer: :mod:`~biaslab.stats.paired` (McNemar),
:mod:`~biaslab.stats.multiple` (Holm, BH), :mod:`~biaslab.stats.bootstrap` (cluster bootstraps),
:mod:`~biaslab.stats.agreement` (ICC, Kruskal-Wallis, CV), :mod:`~biaslab.stats.correlation`
(correlations, Brier, proportions), :mod:`~biaslab.stats.regression` (slopes),
:mod:`~biaslab.stats.martingale` (the Martingale score: CR1, IV, binned test, MDE),
:mod:`~biaslab.stats.permutation` (stratified permutation nulls),
:mod:`~biaslab.stats.proportions` (Wilson intervals, exact nulls of rates with known chances) and
:mod:`~biaslab.stats.results` (the typed results). Import from ``biaslab.stats``.
"""

from typing import TYPE_CHECKING, Any

from biaslab.stats._inputs import Seed
from biaslab.stats.agreement import coefficient_of_variation, icc_2_1, kruskal
from biaslab.stats.bootstrap import bootstrap_mean, bootstrap_mean_diff, odds_ratio
from biaslab.stats.correlation import (
    brier,
    exponential_fit,
    pearson,
    spearman,
    two_proportion_ztest,
)
from biaslab.stats.multiple import adjust_pvalues
from biaslab.stats.paired import mcnemar, mcnemar_one_sided, mcnemar_paired, paired_table
from biaslab.stats.permutation import (
    NULL_SUFFIXES,
    NullResult,
    PermutationNullResult,
    count_null,
    null_fields,
    permutation_null,
    strata_codes,
)
from biaslab.stats.proportions import (
    ExactNullResult,
    ProportionResult,
    bernoulli_null,
    wilson_interval,
)
from biaslab.stats.regression import compare_estimates, mixed_slope, ols_slope
from biaslab.stats.results import (
    AdjustedPValues,
    BootstrapResult,
    CorrelationResult,
    CVResult,
    ExponentialFitResult,
    ICCResult,
    KruskalResult,
    McNemarResult,
    MeanDiffResult,
    OddsRatioResult,
    PairedTable,
    ProportionTestResult,
    SlopeResult,
    StatResult,
)

if TYPE_CHECKING:
    from biaslab.stats.martingale import (
        BinnedMeans,
        FitLine,
        MartingaleResult,
        binned_means,
        fit_line,
        martingale_iv,
        martingale_score,
        minimum_detectable_effect,
    )

#: names served by :mod:`~biaslab.stats.martingale`, imported on first use: only the
#: entrenchment and token-bias analyses need them (their result models and IV regression cost
#: a twentieth of a CPU-second to import)
_MARTINGALE = frozenset(
    {
        "BinnedMeans",
        "FitLine",
        "MartingaleResult",
        "binned_means",
        "fit_line",
        "martingale_iv",
        "martingale_score",
        "minimum_detectable_effect",
    }
)


def __getattr__(name: str) -> Any:
    if name in _MARTINGALE:
        from biaslab.stats import martingale

        return getattr(martingale, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "NULL_SUFFIXES",
    "AdjustedPValues",
    "BinnedMeans",
    "BootstrapResult",
    "CVResult",
    "CorrelationResult",
    "ExactNullResult",
    "ExponentialFitResult",
    "FitLine",
    "ICCResult",
    "KruskalResult",
    "MartingaleResult",
    "McNemarResult",
    "MeanDiffResult",
    "NullResult",
    "OddsRatioResult",
    "PairedTable",
    "PermutationNullResult",
    "ProportionResult",
    "ProportionTestResult",
    "Seed",
    "SlopeResult",
    "StatResult",
    "adjust_pvalues",
    "bernoulli_null",
    "binned_means",
    "bootstrap_mean",
    "bootstrap_mean_diff",
    "brier",
    "coefficient_of_variation",
    "compare_estimates",
    "count_null",
    "exponential_fit",
    "fit_line",
    "icc_2_1",
    "kruskal",
    "martingale_iv",
    "martingale_score",
    "mcnemar",
    "mcnemar_one_sided",
    "mcnemar_paired",
    "minimum_detectable_effect",
    "mixed_slope",
    "null_fields",
    "odds_ratio",
    "ols_slope",
    "paired_table",
    "pearson",
    "permutation_null",
    "spearman",
    "strata_codes",
    "two_proportion_ztest",
    "wilson_interval",
]
