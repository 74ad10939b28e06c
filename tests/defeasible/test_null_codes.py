"""Strata codes and transitions of the defeasible nulls keep whole strings, whatever pandas's
string dtype does to ``to_numpy(str)`` (under pandas 3 it cut every value to its first letter)."""

from __future__ import annotations

import pandas as pd

from biaslab.suites.defeasible import analysis as A
from biaslab.suites.defeasible.conditions import prepare_clean
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.inprocess import agent_frame
from biaslab.suites.defeasible.nulls import BiasRows, column_codes

STICKY = "biaslab/sticky?p=0.9"


def test_values_sharing_a_first_letter_are_distinct_strata() -> None:
    for dtype in (object, "string", "str"):
        rows = pd.DataFrame({"path": pd.Series(["on", "off", "on", "none"], dtype=dtype)})
        assert list(column_codes(rows, ["path"])["path"]) == [2, 1, 2, 0], dtype


def sticky_frame() -> pd.DataFrame:
    items = generate(resolve_config("easy", {}), 1, 8)
    return agent_frame(items, (STICKY.removeprefix("biaslab/"),), seed=1)


def test_transitions_are_whole_and_the_defeats_are_found() -> None:
    ent = prepare_clean(A.clean_frame(sticky_frame()))
    rows = BiasRows.of(ent[ent["item_topology"] == "default"])
    c2 = rows.condition == "C2"
    assert set(rows.transition[c2]) <= {"yes->no", "yes->unknown"}
    assert rows.mask("C2", "yes->no").sum() > 0
