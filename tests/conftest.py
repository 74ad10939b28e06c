"""Test-run settings shared by every test directory.

With ``--dist loadfile`` each file runs whole on one worker, in the order the files are handed
out; xdist's own order (most tests first) used to leave the embedded-model file, few tests but the
longest, for the end, while the other worker sat idle. Files that take longest are handed out
first (longest-processing-time-first scheduling); the rest keep their collection order. Run
with ``--durations=40`` to see whether this list still names the longest files.
"""

from __future__ import annotations

import pytest

#: the longest files, longest first (summed seconds of their tests on two cores)
LONGEST_FIRST = (
    "tests/local/test_local_run.py",
    "tests/test_runs.py",
    "tests/test_grid.py",
    "tests/tokenbias/test_horses.py",
    "tests/export/test_lm_eval.py",
    "tests/test_cli.py",
    "tests/defeasible/test_nulls.py",
    "tests/defeasible/test_analysis.py",
    "tests/tokenbias/test_analysis.py",
    "tests/tokenbias/test_generate.py",
    "tests/test_roles.py",
    "tests/fallacy/test_generate.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: index for index, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
