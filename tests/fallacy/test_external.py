"""Answers given outside Inspect: the same replies as a run's logs and as a file give the same
results; unusable rows are counted, never a reason to stop; a malformed file is one line."""

from __future__ import annotations

import csv
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from biaslab.cli import cli, main
from biaslab.errors import BiaslabError
from biaslab.frames import frame_at
from biaslab.schema import GenerationMeta, read_items, write_items
from biaslab.suites.fallacy.analysis import analyze
from biaslab.suites.fallacy.external import read_answers
from biaslab.suites.fallacy.suite import SUITE
from tests.helpers.junk import CSV_VALUE, csv_junk, is_blank, jsonl_junk, with_junk

MODELS = ("oracle", "etr", "random")
PROBLEMS = [
    {
        "id": "e49",
        "premises": ["∃x ∃y {Ace(Mary())King(x*),Jack(y)Queen(John())}", "{King(Sally()*)}"],
    },
    {"id": "mp", "premises": ["{P(a())Q(a())}^{P(a())}", "{P(a())}"]},
    {"id": "inc", "premises": ["{P(a())}", "{~P(a())}", "{Q(b())}"]},
    {"id": 7, "premises": ["∀x {Q(x*)}^{P(x*)}", "{P(c()*)}", "{R(d())R(c()),S(d())}"]},
    {"id": "af", "premises": ["{P(b())Q(b())}^{P(b())}", "{Q(b())}"]},
]
COLUMNS = ("model", "problem_id", "answer", "order", "epoch")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A real run of the three reference agents on an imported set in both orders, and the items
    file of the same set (the logs and --problems ITEMS.jsonl)."""
    directory = tmp_path_factory.mktemp("fallacy-run")
    problems = directory / "problems.jsonl"
    problems.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS), encoding="utf-8")
    params = ["-p", f"problems={problems}", "-p", "order=both"]
    command = ["run", "fallacy", *params]
    command += [arg for model in MODELS for arg in ("--model", f"biaslab/{model}")]
    command += ["--log-dir", str(directory / "logs"), "--display", "none"]
    items = directory / "items.jsonl"
    with pytest.MonkeyPatch.context() as patch:  # in-process: the commands, not a second process
        patch.chdir(directory)
        assert main(command) == 0
        assert main(["generate", "fallacy", *params, "-o", str(items)]) == 0
    return directory / "logs", items


def _records(logs: Path) -> list[dict[str, Any]]:
    frame = frame_at(logs)
    return [
        {
            "model": r.model,
            "problem_id": r.item_problem_id,
            "answer": r.completion,
            "order": r.item_order,
            "epoch": r.epoch,
        }
        for r in frame.itertuples()
    ]


def _write_csv(
    path: Path, records: list[dict[str, Any]], columns: tuple[str, ...] = COLUMNS
) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(records)
    return path


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_file_of_the_runs_answers_gives_the_same_results_json(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    logs, items = run
    frame = frame_at(logs)
    from_logs = analyze(frame)
    records = _records(logs)
    assert len(records) == len(MODELS) * len(PROBLEMS) * 2
    for path in (
        _write_csv(tmp_path / "answers.csv", records),
        _write_jsonl(tmp_path / "answers.jsonl", records),
    ):
        assert analyze(read_answers(path, items)).model_dump_json() == from_logs.model_dump_json()
    rows = {(r.model, r.order): r for r in from_logs.rows}
    etr = rows[("biaslab/etr", "standard")]
    assert etr.fallacies >= 1 and etr.fallacy_rate == 1.0 and etr.fallacy_rate_null is not None
    assert etr.inconsistent == 1 and rows[("biaslab/oracle", "reversed")].accuracy == 1.0
    assert {r.model for r in from_logs.reversal} == {f"biaslab/{m}" for m in MODELS}
    (tmp_path / "file").mkdir()
    (tmp_path / "logs").mkdir()
    from_file = analyze(read_answers(tmp_path / "answers.csv", items))
    assert SUITE.report(from_file, tmp_path / "file") == SUITE.report(from_logs, tmp_path / "logs")


def test_the_cli_gives_the_same_json_report_and_capability_for_logs_and_file(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    logs, items = run
    answers = _write_csv(tmp_path / "answers.csv", _records(logs))
    scores = tmp_path / "scores.csv"
    scores.write_text("model,score\nbiaslab/etr,1\nbiaslab/random,2\n", encoding="utf-8")
    runner = CliRunner()
    file_args = [str(answers), "--suite", "fallacy", "--problems", str(items)]
    capability = ["--capability", str(scores)]
    from_logs = runner.invoke(cli, ["analyze", str(logs), "--json", *capability])
    from_file = runner.invoke(cli, ["analyze", *file_args, "--json", *capability])
    assert from_logs.exit_code == 0 and from_file.exit_code == 0, from_file.output
    logged, filed = json.loads(from_logs.stdout), json.loads(from_file.stdout)
    assert filed["suites"] == logged["suites"] and filed["suites"]["fallacy"]["capability"]
    assert filed["notes"] == [f"answers.csv: read {len(_records(logs))} answers"]
    report = runner.invoke(cli, ["report", *file_args, "-o", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    assert "Premise-order reversal" in (tmp_path / "report" / "report.md").read_text("utf-8")


# ------------------------------------------------------------------ rows from other pipelines


@pytest.fixture(scope="module")
def items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from biaslab.runner import generate_items

    directory = tmp_path_factory.mktemp("fallacy-items")
    problems = directory / "problems.jsonl"
    problems.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS[1:3]), encoding="utf-8")
    params = {"problems": str(problems), "order": "both"}
    generated = generate_items("fallacy", preset=None, n=1, seed=0, params=params)

    path = directory / "items.jsonl"
    meta = GenerationMeta(
        suite="fallacy", generator_version="x", seed=0, config={}, n_items=len(generated.items)
    )
    write_items(path, generated.items, meta)
    return path


def test_unusable_rows_are_counted_and_the_rest_analysed(items: Path, tmp_path: Path) -> None:
    rows = [
        {"model": "m", "problem_id": "mp", "answer": "Answer: the ace is red"},  # standard
        {"model": "m2", "problem_id": "fallacy-mp-r", "answer": "nothing follows"},  # item id
        {"model": "m", "problem_id": "mp", "answer": "x", "order": "reversed"},  # conflicts ...
        {"model": "m", "problem_id": "mp", "answer": "y", "order": "reversed"},  # ... both dropped
        {"model": "m", "problem_id": "inc", "answer": "Answer: nothing follows", "epoch": 2},
        {"model": "m", "problem_id": "inc", "answer": "Answer: nothing follows", "epoch": "2"},
        {"model": "m", "problem_id": "nope", "answer": "Answer: nothing follows"},
        {"model": "m", "problem_id": "inc", "answer": "  "},
        {"model": "", "problem_id": "inc", "answer": "Answer: nothing follows"},
        {"model": "m", "problem_id": "inc", "answer": "a", "order": "sideways"},
        {"model": "m", "problem_id": "inc", "answer": "a", "epoch": "0"},
        {"model": "m", "problem_id": "inc", "answer": "b", "epoch": "\u0663"},  # Arabic-Indic 3
        {"model": "m", "problem_id": "fallacy-inc-r", "answer": "a", "order": "standard"},
    ]
    frame = read_answers(_write_jsonl(tmp_path / "a.jsonl", rows), items)
    assert sorted(frame["item_id"]) == ["fallacy-inc", "fallacy-mp", "fallacy-mp-r"]
    (note,) = frame.attrs["notes"]
    assert note == (
        "a.jsonl: read 3 answers; skipped 10 rows: 1 repeated, kept once (line 6); 2 with an "
        "epoch that is not an integer ≥ 1 (first: line 11); 1 with an order that is not standard "
        "or reversed (line 10); 1 with an order their item does not have (line 13); 1 with an unknown "
        "problem_id (line 7); 2 with another answer for the same model, problem, order and "
        "epoch (first: line 3: lines 3, 4); 1 without a model (line 9); 1 without an answer "
        "(line 8)"
    )
    results = analyze(frame)
    assert results.n_rows == 3


def _scored(frame: Any) -> str:
    """A frame of scored answers without the file's line numbers (which junk rows shift)."""
    return str(frame.drop(columns="file_line").to_dict("records"))


def test_rows_the_reader_cannot_read_are_counted_and_the_rest_scored(
    items: Path, tmp_path: Path
) -> None:
    rows = [
        {"model": "m", "problem_id": "mp", "answer": "Answer: nothing follows"},
        {"model": "m", "problem_id": "inc", "answer": "Answer: a is P", "order": "reversed"},
        {"model": "n", "problem_id": "mp", "answer": "Answer: a is Q", "order": "reversed"},
    ]
    good = _write_csv(tmp_path / "good.csv", rows)
    lines = good.read_text(encoding="utf-8").splitlines()
    junk = ["m,mp,x,standard,1,extra", "m,mp", "n,inc,Answer: \x00,standard,1", 'n,"inc"x,y,,']
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([*lines[:2], *junk, *lines[2:]]) + "\n", encoding="utf-8")
    frame = read_answers(bad, items)
    assert frame.attrs["notes"] == [
        "bad.csv: read 3 answers; skipped 4 rows: 1 not valid CSV (line 6: ',' expected after "
        "'\"'); 1 with a NUL byte (line 5); 1 with fewer values than columns (line 4: 2 values "
        "for 5 columns); 1 with more values than columns (line 3: 6 values for 5 columns)"
    ]
    assert _scored(frame) == _scored(read_answers(good, items))
    records = [json.dumps(r) for r in rows]
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text("\n".join(["[]", *records[:1], "{", *records[1:], "7"]) + "\n", "utf-8")
    frame = read_answers(jsonl, items)
    assert frame.attrs["notes"] == [
        "bad.jsonl: read 3 answers; skipped 3 rows: 2 not a JSON object (first: line 1: a JSON "
        "array); 1 not valid JSON (line 3: Expecting property name enclosed in double quotes)"
    ]
    assert _scored(frame) == _scored(read_answers(good, items))


@settings(max_examples=25, deadline=None)
@given(suffix=st.sampled_from([".csv", ".jsonl"]), data=st.data())
def test_junk_anywhere_in_a_good_file_changes_nothing_scored(
    items: Path, suffix: str, data: st.DataObject
) -> None:
    """Lines the reader cannot read and answers to unknown problems, put in anywhere, are counted
    and leave the answers scored from the good rows as they are."""
    rows = [
        {"model": "m", "problem_id": "mp", "answer": "Answer: nothing follows"},
        {"model": "n", "problem_id": "inc", "answer": "Answer: a is P", "order": "reversed"},
    ]
    unknown = CSV_VALUE.filter(lambda name: name.strip() not in {"", "mp", "inc"})
    with tempfile.TemporaryDirectory() as directory:
        good = Path(directory) / f"good{suffix}"
        if suffix == ".csv":
            records = _write_csv(good, rows).read_text(encoding="utf-8").splitlines()
            bad = unknown.map(lambda name: f"m,{name},Answer: x,,")
            lines, junk = data.draw(with_junk(records[1:], csv_junk(5) | bad))
            lines = [records[0], *lines]
        else:
            records = _write_jsonl(good, rows).read_text(encoding="utf-8").splitlines()
            bad = unknown.map(lambda name: json.dumps({**rows[0], "problem_id": name}))
            lines, junk = data.draw(with_junk(records, jsonl_junk() | bad))
        path = Path(directory) / f"b{suffix}"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        frame = read_answers(path, items)
        assert _scored(frame) == _scored(read_answers(good, items))
        counted = sum(not is_blank(line, suffix) for line in junk)
        skipped = f"; skipped {counted} row{'s' * (counted != 1)}: " if counted else ""
        assert frame.attrs["notes"][0].startswith(f"{path.name}: read 2 answers{skipped}")


def test_an_answer_without_an_answer_line(items: Path, tmp_path: Path) -> None:
    """One line is the answer sentence itself; a longer reply without the line is not searched."""
    item = next(i for i in read_items(items) if i.id == "fallacy-mp")
    sentence = str(item.meta["oracle_conclusion"]).capitalize() + "."
    rows = [
        {"model": "m", "problem_id": "mp", "answer": sentence},
        {"model": "n", "problem_id": "mp", "answer": f"Let me think.\n{sentence}"},
    ]
    frame = read_answers(_write_csv(tmp_path / "a.csv", rows), items).set_index("model")
    assert frame.loc["m", "parsed"] and frame.loc["m", "correct"]
    assert frame.loc["n", "parse_status"] == "no_answer" and not frame.loc["n", "parsed"]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.csv", "model,problem_id\nm,mp\n", "a.csv line 1: missing column answer (found: model"),
        (
            "a.csv",
            "model,problem_id,answer\nm,mp,x,extra\n",
            "a.csv: no usable answers (1 with more values than columns (line 2: 4 values for 3",
        ),
        (
            "a.jsonl",
            "{oops\n[1]\n",
            "a.jsonl: no usable answers (1 not a JSON object (line 2: a JSON array); 1 not valid "
            "JSON (line 1: ",
        ),
        ("a.jsonl", '{"model": "m", "answer": "x"}\n', "a.jsonl line 1: missing field problem_id"),
        ("a.csv", "model,problem_id,answer\nm,nope,x\n", "no usable answers (1 with an unknown"),
        ("a.csv", "model,problem_id,answer\nm,mp,x\nm,mp,y\n", "(2 with another answer for"),
    ],
)
def test_a_malformed_file_or_empty_result_is_one_line_and_exit_2(
    items: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
    message: str,
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BiaslabError, match=re.escape(message)):
        read_answers(path, items)
    assert main(["analyze", str(path), "--suite", "fallacy", "--problems", str(items)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("biaslab: error: ") and "\n" not in error


def test_problems_are_required_for_fallacy_and_refused_elsewhere(
    items: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _write_csv(tmp_path / "a.csv", [{"model": "m", "problem_id": "mp", "answer": "x"}])
    assert main(["analyze", str(answers), "--suite", "fallacy"]) == 2
    assert "add --problems ITEMS.jsonl" in capsys.readouterr().err
    assert main(["analyze", str(answers), "--suite", "tokenbias", "--problems", str(items)]) == 2
    assert "reads its answers without problems" in capsys.readouterr().err
    assert main(["analyze", str(answers), "--suite", "fallacy", "--problems", str(answers)]) == 2
    assert "expected the .jsonl file of fallacy items" in capsys.readouterr().err


# ------------------------------------------------------------------ the example in docs/import.md

DOC_PROBLEMS = """\
{"id": "q1", "premises": ["{floating(quantix())gravityDefying(quantix())}^{floating(quantix())}", "{gravityDefying(quantix())}"]}
{"id": "q2", "premises": ["∀x {gravityDefying(x*)}^{floating(x*)}", "{floating(zorblat()*)}"]}
{"id": "q3", "premises": ["{shiny(quantix())}", "{~shiny(quantix())}", "{floating(zorblat())}"]}
{"id": "q4", "premises": ["{floating(lamp())}^{floating(lamp())}", "{shiny(lamp())}"]}
{"id": "q5", "premises": ["{floating(quantix())}|"]}
"""  # noqa: E501
DOC_ANSWERS = """\
model,problem_id,answer,order
study-model,q1,Answer: quantix is floating,standard
study-model,q1,Answer: nothing follows,reversed
study-model,q2,Zorblat is gravity-defying.,standard
study-model,q2,Answer: zorblat is gravity-defying,reversed
study-model,q3,Answer: zorblat is shiny,standard
study-model,q9,Answer: nothing follows,standard
other-model,q1,I cannot tell.,standard
other-model,q2,Answer: zorblat is floating and zorblat is gravity-defying,standard
"""


def test_the_documented_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/import.md, Fallacy: the same files, the same commands, the figures it shows."""
    (tmp_path / "problems.jsonl").write_text(DOC_PROBLEMS, encoding="utf-8")
    (tmp_path / "answers.csv").write_text(DOC_ANSWERS, encoding="utf-8")
    problems, items = tmp_path / "problems.jsonl", tmp_path / "items.jsonl"
    generate = ["generate", "fallacy", "-p", f"problems={problems}", "-p", "names=source"]
    assert main([*generate, "-p", "order=both", "-o", str(items)]) == 0
    summary = capsys.readouterr().err.splitlines()[0]
    assert summary.startswith(
        "biaslab: problems.jsonl: imported 3 of 5 problems (1 with inconsistent premises"
    )
    assert "skipped 2" in summary and "line 4: cannot render" in summary
    assert "line 5: premise 1" in summary
    prompt = read_items(items)[0].turns[0].prompt
    assert "- If quantix is floating, then quantix is gravity-defying." in prompt
    out = tmp_path / "results.json"
    command = ["analyze", str(tmp_path / "answers.csv"), "--suite", "fallacy"]
    assert main([*command, "--problems", str(items), "-o", str(out)]) == 0
    assert (
        "biaslab: answers.csv: read 7 answers; skipped 1 row: 1 with an unknown problem_id (line 7)"
        in capsys.readouterr().err
    )
    results = json.loads(out.read_text(encoding="utf-8"))["suites"]["fallacy"]
    rows = {(r["model"], r["order"]): r for r in results["rows"]}
    study = rows[("study-model", "standard")]
    assert (study["n"], study["correct"], study["fallacies"], study["inconsistent"]) == (3, 2, 1, 1)
    assert study["fallacy_rate"] == 1.0 and study["fallacy_rate_null"] == pytest.approx(1 / 3)
    other = rows[("other-model", "standard")]
    assert other["undecided"] == 1 and other["excluded"] is True
    (reversal,) = results["reversal"]
    assert reversal["model"] == "study-model" and reversal["blocked"] == 1


def test_a_problem_id_of_several_items_is_not_guessed(items: Path, tmp_path: Path) -> None:
    """Two sets in one items file (e.g. two seeds of one imported file): the same id names two
    differently worded items, so an answer to it is skipped, not given to either."""
    both = tmp_path / "both.jsonl"
    lines = items.read_text(encoding="utf-8").splitlines()
    other = [line.replace('"theme":"', '"theme":"x') for line in lines[:1]]
    both.write_text("\n".join([*lines, *other]) + "\n", encoding="utf-8")
    first = read_items(items)[0]
    answer = {"model": "m", "answer": "Answer: nothing follows"}
    rows = [{**answer, "problem_id": first.id}, {**answer, "problem_id": "inc"}]
    frame = read_answers(_write_jsonl(tmp_path / "a.jsonl", rows), both)
    assert list(frame["item_id"]) == ["fallacy-inc"]
    assert "1 with a problem_id of several items (give the item id)" in frame.attrs["notes"][0]
