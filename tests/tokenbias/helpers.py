"""Shared helpers: answer generated items with a reference agent (in-process, as the provider does)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import biaslab.suites.tokenbias.reasoner  # noqa: F401  (registers the reasoner and agents)
from biaslab.suites.tokenbias.levels import answer_rows, request_for

__all__ = ["accuracy", "answer_rows", "request_for"]


def accuracy(rows: Sequence[dict[str, Any]], **where: str) -> float:
    chosen = [r for r in rows if all(r[k] == v for k, v in where.items())]
    assert chosen, where
    return sum(r["correct"] for r in chosen) / len(chosen)
