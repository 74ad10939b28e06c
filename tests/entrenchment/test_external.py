"""Belief trajectories from a file (``biaslab analyze BELIEFS.csv --suite entrenchment``): the same
analysis as the run they came from, incomplete rows counted, malformed files one line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from biaslab.cli import main
from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.external import NO_BASELINE, read_beliefs_file
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents
from biaslab.suites.entrenchment.results import EntrenchmentResults

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


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("model,question,step,belief\nm,q,0,0.5\n", "missing column question_id"),
        ("model,question_id,step,belief\n,q,0,0.5\nm,q,x,0.5\n", "no usable belief rows"),
        (
            "model,question_id,step,belief\nm,q,0,0.5\nm,q,0,0.6\n",
            "lines 2 and 3: two beliefs",
        ),
        ("model,question_id,step,belief,truth\nm,q,0,0.5,1\nm,q,1,0.6,0\n", "two different"),
        ("", "missing columns model, question_id, step, belief"),
    ],
)
def test_malformed_files_are_one_line(
    text: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "beliefs.csv"
    path.write_text(text, encoding="utf-8")
    assert main(["analyze", str(path), "--suite", "entrenchment"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0], err


def test_malformed_json_lines_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "beliefs.jsonl"
    path.write_text('{"model": "m", "question_id": "q", "step": 0, "belief": 0.5}\n{"model"\n')
    assert main(["analyze", str(path), "--suite", "entrenchment"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 2: not valid JSON" in err[0]
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
