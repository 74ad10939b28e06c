"""Allocator settings of the analysis: they change only where memory comes from, and are undone."""

from __future__ import annotations

import numpy as np
from numpy._core import multiarray

from biaslab._gc import reused_heap


def _hugepages() -> bool:
    previous = bool(multiarray._set_madvise_hugepage(True))  # type: ignore[attr-defined]
    multiarray._set_madvise_hugepage(previous)  # type: ignore[attr-defined]
    return previous


def test_reused_heap_is_undone_and_changes_no_numbers() -> None:
    for before in (True, False):
        multiarray._set_madvise_hugepage(before)  # type: ignore[attr-defined]
        outside = np.random.default_rng(7).random((3_000, 1_500)) @ np.arange(1_500.0)
        with reused_heap():
            assert _hugepages() is False
            inside = np.random.default_rng(7).random((3_000, 1_500)) @ np.arange(1_500.0)
            big = [np.ones(2_000_000) * i for i in range(4)]  # heap-served blocks, freed below
            del big
        assert _hugepages() is before
        np.testing.assert_array_equal(inside, outside)
