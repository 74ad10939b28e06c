"""Pytest plugin for ``bench_tokenbias.py --pytest``: decide syllogism validity by brute force on every
call, as before validity was cached by form (``python -m pytest -p bench._uncached_validity``)."""

from __future__ import annotations

from typing import Any


def pytest_configure(config: Any) -> None:
    uncache()


def uncache() -> None:
    from biaslab.suites.tokenbias import syllogism as families

    families._valid_shape = families._valid_shape.__wrapped__  # type: ignore[attr-defined]
