"""Multiplicity: Holm and Benjamini-Hochberg adjustment (statsmodels ``multipletests``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from statsmodels.stats.multitest import multipletests

from biaslab.stats.results import AdjustedPValues


def adjust_pvalues(
    pvalues: Sequence[float | None],
    *,
    method: Literal["holm", "fdr_bh"] = "holm",
    alpha: float = 0.05,
) -> AdjustedPValues:
    """Holm (FWER) or Benjamini–Hochberg (FDR) adjustment via statsmodels ``multipletests``.

    ``None``/NaN entries (undefined tests) are excluded from the family and come back as ``None``,
    so the output stays aligned with the input; ``n`` is the size of the adjusted family.
    """
    if method not in ("holm", "fdr_bh"):
        raise ValueError(f"method must be 'holm' or 'fdr_bh', got {method!r}")
    raw: list[float | None] = [
        None if p is None or not math.isfinite(float(p)) else float(p) for p in pvalues
    ]
    for p in raw:
        if p is not None and not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must lie in [0, 1], got {p}")
    keep = [i for i, p in enumerate(raw) if p is not None]
    adjusted: list[float | None] = [None] * len(raw)
    reject: list[bool | None] = [None] * len(raw)
    name = {"holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}[method]
    if not keep:
        return AdjustedPValues(
            method=name,
            n=0,
            alpha=alpha,
            pvalues=tuple(raw),
            adjusted=tuple(adjusted),
            reject=tuple(reject),
            defined=False,
            reason="no defined p-values to adjust",
        )
    rej, adj, _, _ = multipletests([raw[i] for i in keep], alpha=alpha, method=method)
    for j, i in enumerate(keep):
        adjusted[i] = float(adj[j])
        reject[i] = bool(rej[j])
    return AdjustedPValues(
        method=name,
        n=len(keep),
        alpha=alpha,
        pvalues=tuple(raw),
        adjusted=tuple(adjusted),
        reject=tuple(reject),
    )
