"""The fallacy tests call PyETR in-process (the suite itself runs it in worker processes).

PyETR is imported once here, before any test, because importing it raises the recursion limit
(hypothesis warns when that happens during a test); its parser's pyparsing deprecation warnings
are silenced for these tests.
"""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import pyetr
    import pyetr.inference  # noqa: F401


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/fallacy/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning"))
