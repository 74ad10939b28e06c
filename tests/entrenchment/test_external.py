"""Belief trajectories from a file (``biaslab analyze BELIEFS.csv --suite entrenchment``): the same
analysis as the run they came from; rows that cannot be used (unreadable, unplaceable, or part of a
contradiction) counted by reason, the rest analysed as if they were alone; a file with nothing
usable is one line."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biaslab.cli import main
from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.external import NO_BASELINE, read_beliefs_file
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents
from biaslab.suites.entrenchment.results import EntrenchmentResults
from tests.helpers.junk import csv_junk, is_blank, jsonl_junk, with_junk

COMPARED = ("n_questions", "n_pairs", "mean_steps", "m", "m_lo", "m_hi", "m_p", "m_mde",
            "m_first_last", "m_iv", "m_iv_lo", "m_iv_hi", "n_iv_pairs", "brier_first",
            "brier_final", "n_brier", "unparsed_rate", "se_type")  # fmt: skip


@pytest.fixture(scope="module")
def run_frame() -> pd.DataFrame:
    config = resolve_config(None, {"judge_replicates": "2", "judge_baseline": "false"})
    frame = run_agents(generate(config, 5, 14), config, "urn-entrenched", "judge-reader?noise=0.3")
    hit = (frame["record"] == "belief") & (frame["step"] == 4) & (frame["replicate"] == 0)
    hit &= frame["question"].isin(sorted(frame["question"].dropna().unique())[:3])
    frame.loc[hit, "belief"] = None
    frame.loc[hit, "parsed"] = False
    return frame


def _belief_rows(frame: pd.DataFrame) -> list[dict[str, object]]:
    rows = frame[frame["record"] == "belief"]
    return [
        {
            "model": r.model,
            "question_id": r.question,
            "step": int(r.step),
            "belief": None if pd.isna(r.belief) else float(r.belief),
            "replicate": int(r.replicate),
            "construct": r.belief_construct,
            "truth": int(r.outcome),
            "setup": "urn",
        }
        for r in rows.itertuples()
    ]


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    else:
        pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_a_file_gives_the_analysis_of_the_run(run_frame: pd.DataFrame, tmp_path: Path) -> None:
    [from_run] = analyze(run_frame).model_setups()
    rows = _belief_rows(run_frame)
    results = []
    for name in ("beliefs.csv", "beliefs.jsonl"):
        [setup] = analyze(read_beliefs_file(_write(tmp_path / name, rows))).setups
        for field in COMPARED:
            assert getattr(setup, field) == pytest.approx(getattr(from_run, field)), field
        assert setup.m is not None and setup.m_iv is not None and setup.brier_final is not None
        assert setup.m_judge_baseline is None and setup.judge_baseline_refused == NO_BASELINE
        results.append(setup.model_dump())
    assert results[0] == results[1]  # CSV and JSON Lines read alike
    assert set(results[0]) == set(from_run.model_dump())  # the same keys as a run


def test_incomplete_rows_are_counted_not_refused(run_frame: pd.DataFrame, tmp_path: Path) -> None:
    rows = _belief_rows(run_frame)
    rows += [
        {**rows[0], "step": "two"},
        {**rows[0], "model": ""},
        {**rows[0], "truth": "maybe"},
        {**rows[0], "step": 99, "belief": "seventy"},
        dict(rows[0]),  # the same row again
    ]
    res = analyze(read_beliefs_file(_write(tmp_path / "b.csv", rows)))
    note = res.decisions["import"]
    assert f"{len(rows) - 4} belief rows read" in note
    assert "3 rows left out" in note and "1 repeated rows" in note
    assert "with a step that is not a whole number" in note and "truth that is not 0/1" in note
    [setup] = res.setups
    assert setup.unparsed_reasons.get("belief not a number") == 1


def _analysed(path: Path) -> dict[str, object]:
    """A file's results without the ``import`` decision (which counts what was left out)."""
    results = analyze(read_beliefs_file(path)).model_dump()
    results["decisions"].pop("import")
    return results


def _without(rows: list[dict[str, object]], **match: object) -> list[dict[str, object]]:
    return [r for r in rows if any(r[k] != v for k, v in match.items())]


def test_whole_numbers_are_read_exactly_and_held_in_64_bits(tmp_path: Path) -> None:
    """A step beyond 64 bits is a bad value of its row (not an overflow of the file), and digits
    are never rounded through a float."""
    rows = [{**SMALL[0], "step": step} for step in (0, "2.0", 9007199254740993)]
    rows += [{**SMALL[0], "step": step} for step in ("1e300", 2**63, "1_0", "\u0663", "2.5")]
    rows += [{**SMALL[0], "step": 1, "replicate": 10**30}]
    rows += [{**SMALL[0], "step": 4.0}]
    frame = read_beliefs_file(_write(tmp_path / "b.jsonl", rows))
    assert sorted(frame["step"]) == [0, 2, 4, 9007199254740993]
    assert frame.attrs["import"].startswith(
        "4 belief rows read from b.jsonl; 6 rows left out (1 with a replicate that is not a whole "
        "number in [0, 2^63) (line 9); 5 with a step that is not a whole number in [0, 2^63) "
        "(first: line 4))"
    )


def test_two_beliefs_for_one_step_leave_out_the_whole_trajectory(
    run_frame: pd.DataFrame, tmp_path: Path
) -> None:
    rows = _belief_rows(run_frame)
    question = rows[0]["question_id"]
    replicate_1 = next(r for r in rows if r["question_id"] == question and r["replicate"] == 1)
    clash = {**replicate_1, "belief": 0.123}
    path = _write(tmp_path / "b.jsonl", [*rows[:5], clash, *rows[5:]])
    note = analyze(read_beliefs_file(path)).decisions["import"]
    n_gone = sum(1 for r in rows if r["question_id"] == question) + 1  # every replicate
    assert (
        f"; {n_gone} rows left out ({n_gone} of a trajectory given two different beliefs " in note
    )
    assert f"question {question!r}, step {replicate_1['step']}, lines " in note
    assert _analysed(path) == _analysed(
        _write(tmp_path / "good.jsonl", _without(rows, question_id=question))
    )


def test_two_truths_for_a_question_in_one_setup_leave_out_its_rows_there(
    run_frame: pd.DataFrame, tmp_path: Path
) -> None:
    rows = _belief_rows(run_frame)
    question = rows[-1]["question_id"]
    flipped = {**rows[-1], "truth": 1 - int(str(rows[-1]["truth"])), "step": 0, "replicate": 7}
    path = _write(tmp_path / "b.csv", [*rows, flipped])
    n_gone = sum(1 for r in rows if r["question_id"] == question) + 1
    note = analyze(read_beliefs_file(path)).decisions["import"]
    assert f"{n_gone} of a question given two different truths in one setup (first: line " in note
    good = _write(tmp_path / "good.csv", _without(rows, question_id=question))
    assert _analysed(path) == _analysed(good)


def test_a_question_id_in_another_setup_with_another_truth_is_another_question(
    tmp_path: Path,
) -> None:
    """Truth is read per (setup, question_id): the same id in two setups, two outcomes."""
    rows = []
    for setup, truth in (("a", 1), ("b", 0)):
        for step, belief in enumerate((0.5, 0.7, 0.8)):
            rows.append({"model": "m", "question_id": "q1", "step": step, "belief": belief,
                         "truth": truth, "setup": setup})  # fmt: skip
    frame = read_beliefs_file(_write(tmp_path / "b.csv", rows))
    assert frame.groupby("domain")["outcome"].unique().to_dict() == {"a": [1], "b": [0]}
    assert "left out" not in frame.attrs["import"]
    briers = {s.domain: s.brier_final for s in analyze(frame).setups}
    assert briers == {"a": pytest.approx(0.2**2), "b": pytest.approx(0.8**2)}


def test_rows_the_reader_cannot_read_are_counted(run_frame: pd.DataFrame, tmp_path: Path) -> None:
    rows = _belief_rows(run_frame)
    lines = [json.dumps(r) for r in rows]
    path = tmp_path / "b.jsonl"
    path.write_text("\n".join([lines[0], "{oops", "[1]", *lines[1:], '"x"']) + "\n")
    note = analyze(read_beliefs_file(path)).decisions["import"]
    assert "; 3 rows left out (2 not a JSON object (first: line 3: a JSON array); " in note
    assert "1 not valid JSON (line 2: " in note
    assert _analysed(path) == _analysed(_write(tmp_path / "good.jsonl", rows))
    text = pd.DataFrame(rows).to_csv(index=False).splitlines()
    broken = tmp_path / "b.csv"
    broken.write_text("\n".join([*text[:3], "m,q", "m,q,0,0.5,0,judge,1,urn,x", *text[3:]]) + "\n")
    note = analyze(read_beliefs_file(broken)).decisions["import"]
    assert "1 with fewer values than columns (line 4: 2 values for 8 columns)" in note
    assert "1 with more values than columns (line 5: 9 values for 8 columns)" in note
    assert _analysed(broken) == _analysed(_write(tmp_path / "good.csv", rows))


SMALL = [
    {"model": "m", "question_id": f"q{q}", "step": step, "belief": belief, "truth": q % 2}
    for q in range(3)
    for step, belief in enumerate((0.5, 0.6 + q / 10, 0.4))
]


def _imported(path: Path) -> str:
    """An imported frame as text (its ``import`` summary, which counts what was left out, aside;
    the file's name is in it as ``run_key``)."""
    frame = read_beliefs_file(path)
    return frame.to_json(orient="records") + str(list(frame.dtypes))


@settings(max_examples=40, deadline=None)
@given(suffix=st.sampled_from([".csv", ".jsonl"]), data=st.data())
def test_junk_anywhere_in_a_good_file_changes_nothing_read(
    suffix: str, data: st.DataObject
) -> None:
    """Lines the reader cannot read and rows that cannot be placed (a step that is no number),
    put in anywhere, are counted and leave the beliefs read from the good rows as they are."""
    unplaced = st.text("abcxyz", min_size=1, max_size=4)
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "good").mkdir()
        good = _write(Path(directory) / "good" / f"b{suffix}", SMALL)  # the same name: run_key
        records = good.read_text(encoding="utf-8").splitlines()
        if suffix == ".csv":
            bad = unplaced.map(lambda step: f"m,q0,{step},0.5,1")
            lines, junk = data.draw(with_junk(records[1:], csv_junk(5) | bad))
            lines = [records[0], *lines]
        else:
            bad = unplaced.map(lambda step: json.dumps({**SMALL[0], "step": step}))
            lines, junk = data.draw(with_junk(records, jsonl_junk() | bad))
        path = Path(directory) / f"b{suffix}"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert _imported(path) == _imported(good)
        counted = sum(not is_blank(line, suffix) for line in junk)
        summary = read_beliefs_file(path).attrs["import"]
        assert (f"; {counted} rows left out (" in summary) == (counted > 0)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("model,question,step,belief\nm,q,0,0.5\n", "missing column question_id"),
        ("model,question_id,step,belief\n,q,0,0.5\nm,q,x,0.5\n", "no usable belief rows"),
        (
            "model,question_id,step,belief\nm,q,0,0.5\nm,q,0,0.6\n",
            "no usable belief rows (2 of a trajectory given two different beliefs for one step "
            "(first: line 2: question 'q', step 0, lines 2, 3))",
        ),
        (
            "model,question_id,step,belief,truth\nm,q,0,0.5,1\nm,q,1,0.6,0\n",
            "no usable belief rows (2 of a question given two different truths in one setup "
            "(first: line 2: question 'q'))",
        ),
        ("model,question_id,step,belief\nm,q\nm,q,0,0.5,1\n", "no usable belief rows (1 with "),
        ("", "missing columns model, question_id, step, belief"),
    ],
)
def test_files_without_a_usable_row_are_one_line(
    text: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "beliefs.csv"
    path.write_text(text, encoding="utf-8")
    assert main(["analyze", str(path), "--suite", "entrenchment"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0], err


def test_json_lines_without_a_usable_row_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "beliefs.jsonl"
    path.write_text('{"model"\n[1]\n', encoding="utf-8")
    assert main(["analyze", str(path), "--suite", "entrenchment"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no usable belief rows (1 not a JSON object (line 2" in err[0]
    assert "1 not valid JSON (line 1: " in err[0]
    path.write_text('{"id": 1, "p": 0.5}\n')
    assert main(["analyze", str(path), "--suite", "entrenchment"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing fields model, question_id, step, belief" in err[0]
    assert '"question_id": "q17"' in err[0]  # one valid record shown


def test_analyze_and_report_from_the_command_line(
    run_frame: pd.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "beliefs.csv", _belief_rows(run_frame))
    out = tmp_path / "results.json"
    assert main(["analyze", str(path), "--suite", "entrenchment", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "belief rows read from beliefs.csv" in text and "n/a: beliefs read from a file" in text
    assert main(["report", str(path), "--suite", "entrenchment", "-o", str(tmp_path / "r")]) == 0
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "Belief entrenchment" in md and "no judge baseline was run" in md
    results = EntrenchmentResults.model_validate(
        json.loads(out.read_text())["suites"]["entrenchment"]
    )
    assert results.setups[0].m is not None
