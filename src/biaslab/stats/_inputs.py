"""Input validation and conversion shared by the wrappers (malformed input raises ValueError)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

Seed = int | np.random.SeedSequence
"""Bootstrap seeds; a Generator is refused because it would make results depend on call order."""


# --------------------------------------------------------------------------------------------------
# Input helpers
# --------------------------------------------------------------------------------------------------


def _floats(x: npt.ArrayLike) -> np.ndarray:
    return np.asarray(x, dtype=float).ravel()


def _binary(x: npt.ArrayLike, name: str) -> np.ndarray:
    """0/1 or bool array -> bool array; anything else (incl. NaN) is malformed input."""
    arr = np.asarray(x)
    if arr.dtype == bool:
        return arr.ravel()
    arr = np.asarray(arr, dtype=float).ravel()
    if arr.size and not np.isin(arr, (0.0, 1.0)).all():
        raise ValueError(f"{name} must contain only booleans or 0/1 values")
    return arr.astype(bool)


def _same_length(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} differ in length ({len(a)} vs {len(b)})")


def _nonfinite_reason(arr: np.ndarray, name: str) -> str | None:
    bad = int((~np.isfinite(arr)).sum())
    return f"{name} contains {bad} non-finite value(s) (NaN/inf)" if bad else None


def _check_counts(**counts: int) -> None:
    for name, value in counts.items():
        if int(value) != value or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def _check_level(ci: float, n_boot: int = 0) -> None:
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be in (0, 1), got {ci}")
    if n_boot < 0:
        raise ValueError(f"n_boot must be >= 0, got {n_boot}")


def _cluster_codes(clusters: npt.ArrayLike, name: str) -> tuple[np.ndarray, int]:
    """Arbitrary hashable cluster ids -> dense integer codes 0..G-1 (in order of first
    appearance) and G. Factorised as Python objects: a Series would first copy text ids into
    Arrow strings (pandas 3), the larger part of the cost for the same codes."""
    codes, uniques = pd.factorize(np.asarray(clusters, dtype=object).ravel())
    if (codes < 0).any():
        raise ValueError(f"{name} contains missing cluster ids")
    return codes.astype(np.intp), len(uniques)


def _rng(seed: Seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        raise TypeError(
            "pass an int or SeedSequence seed, not a Generator, so results are reproducible"
        )
    return np.random.default_rng(seed)
