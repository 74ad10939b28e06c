"""``biaslab analyze`` on lm-evaluation-harness ``--log_samples`` output: the replies go through the
suites' answers importers and give the numbers a biaslab run gives for the same answers; what
cannot be used is counted, never fatal. The output here is written by hand in the harness's shape
(``harness_output.py``); ``test_lm_eval.py`` runs the real harness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biaslab.cli import main
from biaslab.export.harness_samples import (
    FALLACY_COLUMNS,
    fallacy_table,
    is_harness_output,
    read_harness,
    tokenbias_table,
)
from biaslab.schema import read_items
from tests.export.conftest import same_analysis
from tests.export.harness_output import DATE, agent_replies, read_docs, write_samples

TASK = "biaslab_tokenbias"


@pytest.fixture(scope="module")
def tokenbias_docs(tokenbias_items: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    out = tmp_path_factory.mktemp("task") / "task"
    assert main(["export", str(tokenbias_items), "--format", "lm-eval", "-o", str(out)]) == 0
    return read_docs(out, TASK)


def _analyze(path: Path, out: Path) -> dict:
    assert main(["analyze", str(path), "-o", str(out)]) == 0
    return json.loads(out.read_text())


def _analyze_suite(path: Path, suite: str, out: Path) -> dict:
    assert main(["analyze", str(path), "--suite", suite, "-o", str(out)]) == 0
    return json.loads(out.read_text())["suites"]


def test_harness_replies_give_the_numbers_of_the_same_answers_through_inspect(
    tokenbias_docs: list[dict], inspect_results: dict, tmp_path: Path
) -> None:
    folder = tmp_path / "out" / "biaslab__token-biased"
    replies = agent_replies(tokenbias_docs, "token-biased")
    write_samples(folder, TASK, tokenbias_docs, replies, "biaslab/token-biased")
    results = _analyze(tmp_path / "out", tmp_path / "results.json")
    assert same_analysis(results, inspect_results)
    assert results["suites"]["tokenbias"]["seeds"] == [1]
    (row,) = results["provenance"]
    assert (row["model"], row["suite"], row["samples_used"]) == (
        "biaslab/token-biased",
        "tokenbias",
        len(tokenbias_docs),
    )
    # --suite picks a suite; a suite the output has no answers for is one line, exit 2
    assert main(["analyze", str(tmp_path / "out"), "--suite", "fallacy"]) == 2
    assert _analyze_suite(tmp_path / "out", "tokenbias", tmp_path / "tb.json") == results["suites"]
    # a single samples file is read the same way as its folder
    alone = _analyze(next(folder.glob("samples_*.jsonl")), tmp_path / "alone.json")
    assert alone["suites"] == results["suites"]


def test_a_different_agent_gives_different_numbers(
    tokenbias_docs: list[dict], inspect_results: dict, tmp_path: Path
) -> None:
    folder = tmp_path / "out" / "biaslab__oracle"
    write_samples(folder, TASK, tokenbias_docs, agent_replies(tokenbias_docs, "oracle"), None)
    results = _analyze(tmp_path / "out", tmp_path / "results.json")
    assert not same_analysis(results, inspect_results)
    # without results json the model is named after the harness's folder
    assert results["provenance"][0]["model"] == "biaslab__oracle"


def test_unusable_lines_are_counted_and_older_runs_skipped(
    tokenbias_docs: list[dict], inspect_results: dict, tmp_path: Path
) -> None:
    folder = tmp_path / "out" / "m"
    replies = agent_replies(tokenbias_docs, "token-biased")
    older = "2025-12-31T23-59-59.000000"
    write_samples(folder, TASK, tokenbias_docs[:3], replies[:3], "biaslab/token-biased", older)
    samples = write_samples(folder, TASK, tokenbias_docs, replies, "biaslab/token-biased")
    foreign = {"doc_id": 99, "doc": {"question": "2+2?"}, "resps": [["4"]]}
    no_replies = {"doc_id": 98, "doc": tokenbias_docs[0], "resps": []}
    with samples.open("a", encoding="utf-8") as handle:
        handle.write("{not json\n" + json.dumps(foreign) + "\n" + json.dumps(no_replies) + "\n")
    read = read_harness(tmp_path / "out")
    notes = "\n".join(read.notes)
    assert "an older lm-eval run" in notes and older in notes
    assert "1 line(s) not used: not valid JSON" in notes
    assert "1 line(s) not used: not a document written by biaslab export" in notes
    assert "1 line(s) not used: no replies (resps) logged" in notes
    assert len(read.answers) == len(tokenbias_docs)
    results = _analyze(tmp_path / "out", tmp_path / "results.json")
    assert same_analysis(results, inspect_results)


def test_a_reply_that_is_not_text_is_an_unparsed_answer(
    tokenbias_docs: list[dict], tmp_path: Path
) -> None:
    replies = agent_replies(tokenbias_docs, "oracle")
    replies[0] = [None]  # type: ignore[list-item]
    write_samples(tmp_path / "out" / "m", TASK, tokenbias_docs, replies, "m")
    answers = read_harness(tmp_path / "out").answers
    (answer,) = [a for a in answers if a.item.id == tokenbias_docs[0]["id"]]
    assert answer.completion == ""
    rows = tokenbias_table(answers)
    assert sum(not row["parsed"] for row in rows) == 1
    assert sum(row["correct"] for row in rows) == len(rows) - 1  # the oracle's other replies
    assert main(["analyze", str(tmp_path / "out"), "-o", str(tmp_path / "r.json")]) == 0


def test_fallacy_replies_become_the_fallacy_importer_columns(
    fallacy_items: Path, tmp_path: Path
) -> None:
    out = tmp_path / "task"
    assert main(["export", str(fallacy_items), "--format", "lm-eval", "-o", str(out)]) == 0
    docs = read_docs(out, "biaslab_fallacy")
    replies = [
        [f"Thinking.\nAnswer: reply {i} a", f"Answer: reply {i} b"] for i in range(len(docs))
    ]
    write_samples(tmp_path / "out" / "m", "biaslab_fallacy", docs, replies, "org/model")
    assert is_harness_output(tmp_path / "out")
    table = fallacy_table(read_harness(tmp_path / "out").answers)
    items = read_items(fallacy_items)
    assert [tuple(row) for row in table] == [FALLACY_COLUMNS] * len(items) * 2
    expected = [
        {
            "model": "org/model",
            "problem_id": item.meta["problem_id"],
            "answer": reply,
            "order": item.meta["order"],
            "epoch": epoch,
        }
        for item, pair in zip(items, replies, strict=True)
        for epoch, reply in enumerate(pair, start=1)
    ]
    assert table == expected


def test_inspect_logs_and_answer_files_are_not_taken_for_harness_output(
    tokenbias_items: Path, tmp_path: Path
) -> None:
    assert not is_harness_output(tokenbias_items)
    assert not is_harness_output(tmp_path)
    assert not is_harness_output("s3://bucket/logs")
    odd = tmp_path / f"samples_x_{DATE}.jsonl"
    odd.write_text('{"model": "m", "answer": "yes"}\n')
    assert not is_harness_output(odd)


def test_fallacy_harness_replies_give_the_numbers_of_the_same_answers_through_inspect(
    fallacy_items: Path, tmp_path: Path
) -> None:
    """The fallacy items travel inside the harness's documents, so its output is read beside
    them (the answers importer's --problems) and gives the run's numbers."""
    out = tmp_path / "task"
    assert main(["export", str(fallacy_items), "--format", "lm-eval", "-o", str(out)]) == 0
    docs = read_docs(out, "biaslab_fallacy")
    write_samples(
        tmp_path / "out" / "etr", "biaslab_fallacy", docs, agent_replies(docs, "etr"), "biaslab/etr"
    )
    via_harness = _analyze(tmp_path / "out", tmp_path / "harness.json")

    logs = tmp_path / "logs"
    command = ["run", "fallacy", "--n", "3", "--seed", "1", "--model", "biaslab/etr"]
    assert main([*command, "--log-dir", str(logs), "--display", "none"]) == 0
    via_inspect = _analyze(logs, tmp_path / "inspect.json")
    assert same_analysis(via_harness, via_inspect)
    (row,) = via_harness["suites"]["fallacy"]["rows"]
    assert (row["model"], row["n"], row["fallacy_rate"]) == ("biaslab/etr", 3, 1.0)
