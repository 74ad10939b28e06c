"""The real lm-evaluation-harness runs an exported task offline with a reference agent as its model
(``tests/helpers/harness_agent.py``), and ``biaslab analyze`` on its ``--log_samples`` output gives
the numbers the same agent gives through Inspect. Needs the ``lm-eval`` extra: where it is missing
this file is not collected, and ``.ci/run-lm-eval`` installs it and runs this file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from biaslab.cli import main
from biaslab.export.harness_samples import read_harness, tokenbias_table
from tests.export.conftest import same_analysis

pytestmark = pytest.mark.lm_eval

REPO = Path(__file__).resolve().parents[2]


def _run_harness(task_folder: Path, task: str, agent: str, out: Path) -> dict:
    """``lm_eval run`` in a subprocess, offline; returns the harness's results json."""
    env = {
        **os.environ,
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)]),
    }
    command = [sys.executable, "-m", "tests.helpers.harness_agent", "run"]
    command += ["--model", "biaslab-agent", "--model_args", f"model=biaslab/{agent}"]
    command += ["--include_path", str(task_folder), "--tasks", task, "--apply_chat_template"]
    command += ["--log_samples", "--output_path", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=out.parent, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    (results,) = out.rglob("results_*.json")
    return json.loads(results.read_text())


def _export(items: Path, out: Path) -> Path:
    assert main(["export", str(items), "--format", "lm-eval", "-o", str(out)]) == 0
    return out


def test_export_harness_analyze_gives_the_inspect_numbers(
    tokenbias_items: Path, inspect_results: dict, tmp_path: Path
) -> None:
    task = _export(tokenbias_items, tmp_path / "task")
    harness = _run_harness(task, "biaslab_tokenbias", "token-biased", tmp_path / "out")
    assert harness["model_name"] == "biaslab/token-biased"
    assert main(["analyze", str(tmp_path / "out"), "-o", str(tmp_path / "results.json")]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert same_analysis(results, inspect_results)
    assert results["provenance"][0]["status"] == "lm-eval samples"
    # the task's own filter and metric agree with biaslab's reading of the same replies
    rows = tokenbias_table(read_harness(tmp_path / "out").answers)
    harness_accuracy = harness["results"]["biaslab_tokenbias"]["exact_match,answer-line"]
    assert harness_accuracy == pytest.approx(sum(r["correct"] for r in rows) / len(rows))
    assert 0 < harness_accuracy < 1


def test_fallacy_replies_come_back_as_the_importers_table(
    fallacy_items: Path, tmp_path: Path
) -> None:
    from biaslab.export.harness_samples import fallacy_table

    task = _export(fallacy_items, tmp_path / "task")
    harness = _run_harness(task, "biaslab_fallacy", "oracle", tmp_path / "out")
    # the oracle states the gold conclusion on its Answer line: the harness's metric finds it
    assert harness["results"]["biaslab_fallacy"]["exact_match,answer-line"] == 1.0
    answers = read_harness(tmp_path / "out").answers
    table = fallacy_table(answers)
    docs = [json.loads(line) for line in (task / "biaslab_fallacy.jsonl").read_text().splitlines()]
    assert [row["problem_id"] for row in table] == [
        json.loads(doc["item"])["meta"]["problem_id"] for doc in docs
    ]
    assert all(row["answer"].startswith("Answer: ") and row["epoch"] == 1 for row in table)
    assert {row["model"] for row in table} == {"biaslab/oracle"}
