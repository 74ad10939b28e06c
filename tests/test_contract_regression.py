"""The suite contract refactor changed nothing a user sees: logs written by the earlier task shape
(stored in tests/fixtures/legacy_logs) and a fresh run of the very same items through today's
contract give the same tidy frame and byte-identical analyses."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from biaslab.frames import frame_at
from biaslab.schema import Item
from biaslab.suites.registry import get_suite
from biaslab.tasks import TaskSettings, build_task

LEGACY = Path(__file__).parent / "fixtures" / "legacy_logs"
#: columns that exist only in one of the two shapes, or differ by design (the identity hash now
#: includes the generator version, which the old logs did not record)
DIFFERENT_BY_DESIGN = {"run_key", "record", "schema_version", "completion"}


def rerun_legacy_items(out: Path) -> None:
    for file in sorted(LEGACY.glob("*.eval")):
        log = read_eval_log(str(file))
        meta = log.eval.metadata or {}
        items = [Item.model_validate(s.metadata["item"]) for s in log.samples or []]
        settings = TaskSettings(
            suite=meta["biaslab_suite"], config=meta["biaslab_config"], seed=meta["biaslab_seed"]
        )
        inspect_eval(
            build_task(items, settings), model=log.eval.model, log_dir=str(out), display="none"
        )


def comparable(frame: pd.DataFrame) -> pd.DataFrame:
    keep = sorted(set(frame.columns) - DIFFERENT_BY_DESIGN)
    order = ["suite", "model", "item_id", "turn"]
    return frame[keep].sort_values(order, kind="stable").reset_index(drop=True)


def test_legacy_logs_and_todays_contract_agree(tmp_path: Path) -> None:
    rerun_legacy_items(tmp_path)
    old, new = frame_at(LEGACY), frame_at(tmp_path)
    assert len(old) == len(new) > 0
    pd.testing.assert_frame_equal(comparable(old), comparable(new), check_like=True)
    for suite in ("defeasible", "tokenbias"):
        analyze = get_suite(suite).analyze
        before = analyze(frame_at(LEGACY, suite)).model_dump(mode="json")
        after = analyze(frame_at(tmp_path, suite)).model_dump(mode="json")
        assert json.dumps(before, sort_keys=True) == json.dumps(after, sort_keys=True)
