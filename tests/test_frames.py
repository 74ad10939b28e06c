"""The tidy frame depends only on the answers: not on Inspect's random ids, file names, log order or
the fields the frame skips reading."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

from biaslab import frames
from biaslab.analysis import analyse, document
from biaslab.runner import suite_task


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("logs")
    for seed in (1, 2):
        task = suite_task("defeasible", n=2, seed=seed)
        inspect_eval(
            task, model=["biaslab/sticky?p=0.9", "biaslab/random"], log_dir=str(out), display="none"
        )
    task = suite_task("tokenbias", n=4, seed=1, params={"family": "linda", "hypothesis": "H2"})
    inspect_eval(task, model="biaslab/oracle", log_dir=str(out), display="none")
    return out


def results_json(path: Path) -> str:
    doc = document(analyse(path)).model_dump(mode="json")
    return json.dumps(doc["suites"], sort_keys=True)


def test_same_answers_same_bytes_under_new_ids_names_and_order(logs: Path, tmp_path: Path) -> None:
    rng = random.Random(0)
    files = [info.name for info in list_eval_logs(str(logs))]
    rng.shuffle(files)
    for position, file in enumerate(files):
        log = read_eval_log(file)
        log.eval.run_id = f"run{rng.randrange(10**9)}"
        log.eval.eval_id = f"eval{rng.randrange(10**9)}"
        log.eval.task_id = f"task{rng.randrange(10**9)}"
        write_eval_log(log, str(tmp_path / f"{position:02d}_{rng.randrange(10**6)}.eval"))
    assert results_json(tmp_path) == results_json(logs)


def test_skipping_messages_and_events_leaves_the_frame_unchanged(
    logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = frames.frame_at(logs)
    skipped = frozenset({"messages", "events", "attachments", "timelines"})
    monkeypatch.setattr(frames, "EXCLUDED_SAMPLE_FIELDS", skipped)
    lean = frames.frame_at(logs)
    assert lean.equals(full)
    assert len(lean) > 0


def test_rows_are_in_identity_order(logs: Path) -> None:
    frame = frames.frame_at(logs)
    keys = list(zip(frame["run_key"], frame["item_id"], strict=True))
    firsts = list(dict.fromkeys(keys))
    assert firsts == sorted(firsts)
    assert set(frame["seed"]) == {1, 2}


def test_a_log_url_reads_like_the_directory(logs: Path) -> None:
    """Log locations Inspect reads through fsspec (s3://…, file://…) are read as directories."""
    assert frames.frame_at(logs.as_uri()).equals(frames.frame_at(logs))
