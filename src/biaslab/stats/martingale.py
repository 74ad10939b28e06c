"""The Martingale score (He, Qiu, Shirado & Sap, "Martingale Score: An Unsupervised Metric for
Bayesian Rationality in LLM Reasoning", NeurIPS 2025) with the inference the paper leaves out.

M is the OLS slope of the belief change Δb = b_post − b_prior on the prior b_prior, pooled over the
(prior, posterior) pairs of one setup. Under the martingale property E[Δb | b_prior] = 0, so M = 0
for a Bayesian reasoner; M > 0 means updates predictably move toward the current leaning
(entrenchment, or under-reaction), M < 0 away from it (over-reaction).

What is added to the paper's t-test, and why:

* **Cluster-robust (CR1) standard errors by question**, with the t(G − 1) reference, are the
  default. The classical SE is invalid here (Var(Δb | b) vanishes near 0 and 1); in simulation it
  rejects a Bayesian agent at 0.5% instead of 5%. Under alternatives and judge artefacts the steps of
  one trajectory are correlated, which only CR1 accounts for. CR1 is refused (no p-value, no CI)
  below :data:`MIN_CLUSTERS` questions and warned about below :data:`WARN_CLUSTERS`.
* **The minimum detectable effect** at the setup's SE (two-sided α, power 80%), so a
  non-significant M says how large an effect it could have missed.
* **An instrumental-variable estimate** from two judge replicates. Judge noise in b_prior also
  enters Δb with the opposite sign, which biases the naive slope toward −σ²/(Var b + σ²)
  (regression to the mean); instrumenting replicate A's prior by replicate B's removes the part
  of that bias due to noise that is independent across replicates and additive on the belief
  scale (:func:`martingale_iv`). Two parts stay: noise the replicates share (with error
  correlation ρ, roughly a share ρ of the naive bias), and the shrinkage of noise added in
  log-odds, which makes the judged belief a nonlinear function of the truth that no instrument
  undoes — a small positive bias that stays as the SE shrinks, so M_IV over-rejects a Bayesian
  reasoner more as questions are added (the suite's README gives the measured sizes).
* **A binned test** (all bin means of Δb = 0, cluster-robust Wald test), which a non-linear
  violation the slope averages away cannot pass.

Point estimates and covariances come from statsmodels (``OLS(...).fit(cov_type="cluster")``,
``IV2SLS``, ``cov_cluster``); what is written here is only how they are combined.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field
from scipy import stats as sps
from statsmodels.regression.linear_model import OLS
from statsmodels.sandbox.regression.gmm import IV2SLS
from statsmodels.stats.sandwich_covariance import cov_cluster

from biaslab.errors import BiaslabError
from biaslab.stats._inputs import _check_level, _cluster_codes, _floats, _same_length
from biaslab.stats.results import StatResult, _Frozen

__all__ = [
    "MIN_CLUSTERS",
    "WARN_CLUSTERS",
    "BeliefInputError",
    "BinnedMeans",
    "FitLine",
    "MartingaleResult",
    "binned_means",
    "fit_line",
    "martingale_iv",
    "martingale_score",
    "minimum_detectable_effect",
]

SEType = Literal["CR1", "classical"]
#: below this many clusters (questions) a cluster-robust SE is refused
MIN_CLUSTERS = 10
#: below this many clusters the result carries a warning note
WARN_CLUSTERS = 30
DEFAULT_POWER = 0.8


class BeliefInputError(BiaslabError, ValueError):
    """Beliefs the estimators cannot take (not finite, outside [0, 1]). A ``ValueError``, as all
    malformed input to :mod:`biaslab.stats` is, and a :class:`~biaslab.errors.BiaslabError`, so a
    bad frame that reaches the estimator is one line on the command line, not a traceback."""


class MartingaleResult(StatResult):
    """M (``statistic``) with its SE, CI and p-value of type ``se_type``.

    ``n`` is the number of (prior, posterior) pairs and ``n_clusters`` the number of questions.
    ``classical_*`` always hold the paper's classical OLS test for comparison. ``mde`` is the
    smallest |M| the test detects with 80% power at the given α. ``coefficients`` holds the other
    regressors' estimates (e.g. a debate side covariate), each with its SE and p-value.
    """

    se_type: SEType
    se: float | None = None
    df: int | None = None
    n_clusters: int = 0
    intercept: float | None = None
    r2: float | None = None
    mde: float | None = None
    share_zero_updates: float | None = None
    classical_se: float | None = None
    classical_p: float | None = None
    classical_ci: tuple[float, float] | None = None
    coefficients: dict[str, tuple[float | None, float | None, float | None]] = Field(
        default_factory=dict
    )


class BinnedMeans(_Frozen):
    """Mean Δb per quantile bin of b_prior, and the cluster-robust test that all are zero."""

    centres: tuple[float, ...]
    means: tuple[float, ...]
    counts: tuple[int, ...]
    wald_p: float | None
    method: str


class FitLine(_Frozen):
    """A fitted line on a grid with its pointwise confidence band."""

    x: tuple[float, ...]
    y: tuple[float, ...]
    lo: tuple[float, ...]
    hi: tuple[float, ...]
    ci_level: float
    cov_type: str


def minimum_detectable_effect(
    se: float | None, df: int | None, *, alpha: float = 0.05, power: float = DEFAULT_POWER
) -> float | None:
    """(t_{1−α/2, df} + t_{power, df}) × SE: the |effect| a two-sided level-α test finds with the
    given power (the usual normal-approximation formula with t quantiles)."""
    if se is None or df is None or df < 1 or not math.isfinite(se):
        return None
    return float((sps.t.ppf(1.0 - alpha / 2.0, df) + sps.t.ppf(power, df)) * se)


def _pairs(
    prior: npt.ArrayLike, posterior: npt.ArrayLike, clusters: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    x, post = _floats(prior), _floats(posterior)
    _same_length("prior", x, "posterior", post)
    codes, g = _cluster_codes(clusters, "clusters")
    _same_length("prior", x, "clusters", codes)
    for arr, name in ((x, "prior"), (post, "posterior")):
        if not np.isfinite(arr).all():
            raise BeliefInputError(f"{name} contains non-finite beliefs; drop unparsed pairs first")
        if ((arr < 0) | (arr > 1)).any():
            raise BeliefInputError(f"{name} beliefs must lie in [0, 1]")
    return x, post - x, codes, g


def _why_undefined(x: np.ndarray, n_extra: int) -> str | None:
    if len(x) < 3 + n_extra:
        return f"need at least {3 + n_extra} pairs, got {len(x)}"
    if np.all(x == x[0]):
        return "every prior belief is the same: the slope is not identified"
    return None


def martingale_score(
    prior: npt.ArrayLike,
    posterior: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    se_type: SEType = "CR1",
    covariates: Mapping[str, Sequence[float]] | None = None,
    ci: float = 0.95,
    power: float = DEFAULT_POWER,
    min_clusters: int = MIN_CLUSTERS,
    warn_clusters: int = WARN_CLUSTERS,
) -> MartingaleResult:
    """M = slope of Δb = posterior − prior on prior (plus optional covariates), by statsmodels OLS.

    ``clusters`` names each pair's question (any hashable ids). ``se_type="CR1"`` (default) uses
    statsmodels' cluster-robust covariance (small-sample factor G/(G−1)·(n−1)/(n−k)) and t(G − 1);
    ``"classical"`` the homoskedastic OLS SE with t(n − k). With fewer than ``min_clusters``
    questions CR1 is refused: M is reported, its p-value and CI are not.
    """
    _check_level(ci)
    x, delta, codes, g = _pairs(prior, posterior, clusters)
    extra = {k: _floats(v) for k, v in (covariates or {}).items()}
    for name, values in extra.items():
        _same_length("prior", x, name, values)
    method = f"Martingale score: OLS slope of Δb on b_prior ({se_type} SE)"
    common: dict[str, Any] = {
        "method": method,
        "n": len(x),
        "n_clusters": g,
        "se_type": se_type,
        "ci_level": ci,
    }
    why = _why_undefined(x, len(extra))
    if why is not None:
        return MartingaleResult(**common, defined=False, reason=why)
    design = np.column_stack([np.ones_like(x), x, *extra.values()])
    model = OLS(delta, design)
    alpha = 1.0 - ci
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        classical = model.fit()
        robust = model.fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
        r2 = float(classical.rsquared)
    notes: list[str] = []
    if g < warn_clusters:
        notes.append(f"only {g} questions: M is imprecise (at least {warn_clusters} advised)")
    share_zero = float(np.mean(np.isclose(delta, 0.0, atol=1e-12)))
    fields: dict[str, Any] = {
        **common,
        "statistic": float(classical.params[1]),
        "intercept": float(classical.params[0]),
        "r2": r2 if math.isfinite(r2) else None,
        "share_zero_updates": share_zero,
        **_classical_fields(classical, alpha),
    }
    if float(classical.ssr) <= 1e-20 * max(float(classical.centered_tss), 1e-300):
        notes.append("Δb is an exact linear function of b_prior: no standard error")
        return MartingaleResult(**fields, notes=tuple(notes))
    if se_type == "classical":
        chosen, df = classical, int(classical.df_resid)
    elif g < min_clusters:
        return MartingaleResult(
            **fields,
            ci_reason=f"cluster-robust SE refused with {g} questions (needs {min_clusters})",
            notes=tuple(notes),
        )
    else:
        chosen, df = robust, g - 1
    se = float(chosen.bse[1])
    lo, hi = (float(v) for v in chosen.conf_int(alpha=alpha)[1])
    names = list(extra)
    coefficients: dict[str, tuple[float | None, float | None, float | None]] = {
        name: (float(chosen.params[2 + i]), float(chosen.bse[2 + i]), float(chosen.pvalues[2 + i]))
        for i, name in enumerate(names)
    }
    return MartingaleResult(
        **fields,
        se=se,
        df=df,
        pvalue=float(chosen.pvalues[1]),
        ci=(lo, hi),
        mde=minimum_detectable_effect(se, df, alpha=alpha, power=power),
        coefficients=coefficients,
        notes=tuple(notes),
    )


def _classical_fields(res: Any, alpha: float) -> dict[str, Any]:
    se = float(res.bse[1])
    if not (math.isfinite(se) and se > 0):
        return {}
    lo, hi = (float(v) for v in res.conf_int(alpha=alpha)[1])
    return {"classical_se": se, "classical_p": float(res.pvalues[1]), "classical_ci": (lo, hi)}


def martingale_iv(
    prior_a: npt.ArrayLike,
    posterior_a: npt.ArrayLike,
    prior_b: npt.ArrayLike,
    posterior_b: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    ci: float = 0.95,
    min_clusters: int = MIN_CLUSTERS,
) -> MartingaleResult:
    """M corrected for judge noise: each replicate's prior instrumented by the other replicate's.

    Rows are aligned pairs judged twice (replicates A and B of the same prefixes). With transient
    noise v independent across replicates and additive on the belief scale,
    Cov(Δb_A, b_B) = Cov(Δb, b) and Cov(b_A, b_B) = Var(b), so the IV slope is the noise-free M.
    Noise the replicates share enters both covariances and biases M_IV as that noise alone would
    bias M; noise added in log-odds is not additive on the belief scale (E[b_judged | b] is shrunk
    toward 0.5), which leaves a small bias of its own. ``instrument_r`` tells neither: it measures
    how strong the instrument is, not whether it is valid. Both directions (A instrumented by B,
    B by A) are stacked into one just-identified 2SLS (statsmodels ``IV2SLS``); the CR1
    covariance clusters by question, which also accounts for each pair appearing twice.
    ``IV2SLS`` has no cluster-robust covariance of its own ("not connected yet" in statsmodels),
    and its results' generic sandwich would use the raw regressors, so the sandwich is built from
    the 2SLS scores (fitted first-stage regressors times structural residuals) and handed to
    statsmodels' ``cov_cluster``. ``coefficients`` holds the replicates' correlation (the
    instrument's strength) as ``instrument_r``.
    """
    _check_level(ci)
    xa, da, codes, g = _pairs(prior_a, posterior_a, clusters)
    xb, db, _, _ = _pairs(prior_b, posterior_b, clusters)
    _same_length("replicate A", xa, "replicate B", xb)
    common: dict[str, Any] = {
        "method": "Martingale score, IV: each replicate's prior instrumented by the other's "
        "(stacked 2SLS, CR1 SE)",
        "n": len(xa),
        "n_clusters": g,
        "se_type": "CR1",
        "ci_level": ci,
    }
    why = _why_undefined(xa, 0) or _why_undefined(xb, 0)
    if why is not None:
        return MartingaleResult(**common, defined=False, reason=why)
    r = float(np.corrcoef(xa, xb)[0, 1])
    if not math.isfinite(r) or abs(r) < 1e-8:
        return MartingaleResult(
            **common, defined=False, reason="the replicates are uncorrelated: no instrument"
        )
    y = np.concatenate([da, db])
    x = np.column_stack([np.ones(2 * len(xa)), np.concatenate([xa, xb])])
    z = np.column_stack([np.ones(2 * len(xa)), np.concatenate([xb, xa])])
    groups = np.concatenate([codes, codes])
    res = IV2SLS(y, x, z).fit()
    slope = float(res.params[1])
    fields: dict[str, Any] = {
        **common,
        "statistic": slope,
        "intercept": float(res.params[0]),
        "coefficients": {"instrument_r": (r, None, None)},
    }
    if g < min_clusters:
        return MartingaleResult(
            **fields,
            ci_reason=f"cluster-robust SE refused with {g} questions (needs {min_clusters})",
        )
    xhat = np.asarray(res.exog_hat)
    scores = xhat * np.asarray(res.resid)[:, None]
    bread = np.linalg.inv(xhat.T @ xhat)
    cov = cov_cluster((scores, bread), groups)
    se = float(math.sqrt(cov[1, 1])) if cov[1, 1] > 0 else float("nan")
    if not math.isfinite(se) or se == 0:
        return MartingaleResult(**fields, ci_reason="standard error is 0 or not finite")
    df = g - 1
    t_crit = float(sps.t.ppf(1.0 - (1.0 - ci) / 2.0, df))
    p = float(2.0 * sps.t.sf(abs(slope / se), df))
    return MartingaleResult(
        **fields,
        se=se,
        df=df,
        pvalue=p,
        ci=(slope - t_crit * se, slope + t_crit * se),
        mde=minimum_detectable_effect(se, df, alpha=1.0 - ci),
    )


def binned_means(
    prior: npt.ArrayLike, posterior: npt.ArrayLike, clusters: npt.ArrayLike, *, bins: int = 5
) -> BinnedMeans | None:
    """Mean Δb in ``bins`` quantile bins of b_prior and the CR1 Wald test that every bin mean is 0
    (under the martingale property E[Δb | b_prior] = 0 at every b_prior, not only on average).
    None when there are fewer pairs than bins."""
    x, delta, codes, g = _pairs(prior, posterior, clusters)
    if len(x) < max(bins, 2):
        return None
    edges = np.unique(np.quantile(x, np.linspace(0.0, 1.0, bins + 1)))
    which = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, max(len(edges) - 2, 0))
    present = np.unique(which)
    dummies = (which[:, None] == present[None, :]).astype(float)
    centres = tuple(float(x[which == b].mean()) for b in present)
    means = tuple(float(delta[which == b].mean()) for b in present)
    counts = tuple(int((which == b).sum()) for b in present)
    wald_p: float | None = None
    if g >= MIN_CLUSTERS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = OLS(delta, dummies).fit(cov_type="cluster", cov_kwds={"groups": codes})
            test = res.wald_test(np.eye(len(present)), use_f=True, scalar=True)
        value = float(np.asarray(test.pvalue).ravel()[0])
        wald_p = value if math.isfinite(value) else None
    return BinnedMeans(
        centres=centres,
        means=means,
        counts=counts,
        wald_p=wald_p,
        method=f"mean Δb in {len(present)} quantile bins of b_prior; CR1 Wald F-test all = 0",
    )


def fit_line(
    prior: npt.ArrayLike,
    posterior: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    points: int = 21,
    ci: float = 0.95,
) -> FitLine | None:
    """The OLS line of Δb on b_prior over [min, max] of b_prior with its pointwise CR1 band
    (statsmodels ``get_prediction``), for the scatter figure. None when it cannot be fitted."""
    x, delta, codes, g = _pairs(prior, posterior, clusters)
    if _why_undefined(x, 0) is not None or g < 2:
        return None
    design = np.column_stack([np.ones_like(x), x])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = OLS(delta, design).fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
        grid = np.linspace(float(x.min()), float(x.max()), points)
        pred = res.get_prediction(np.column_stack([np.ones_like(grid), grid]))
        band = np.asarray(pred.conf_int(alpha=1.0 - ci))
    mean = np.asarray(pred.predicted_mean)
    if not (np.isfinite(mean).all() and np.isfinite(band).all()):
        return None
    return FitLine(
        x=tuple(float(v) for v in grid),
        y=tuple(float(v) for v in mean),
        lo=tuple(float(v) for v in band[:, 0]),
        hi=tuple(float(v) for v in band[:, 1]),
        ci_level=ci,
        cov_type="CR1",
    )
