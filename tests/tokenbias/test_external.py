"""Answers from outside Inspect: the long-format importer reproduces the log path byte for byte on a
fixture built from a real ``biaslab run``; a row it cannot use (unreadable, a bad value, a
contradiction) is left out and counted by reason with its line, never a reason to stop, and the
results are those of the file without it; a file with nothing usable is one line."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from biaslab.cli import cli, main
from biaslab.errors import BiaslabError
from biaslab.frames import frame_at
from biaslab.suites.tokenbias.analysis import analyze
from biaslab.suites.tokenbias.config import Config
from biaslab.suites.tokenbias.directions import FAMILIES
from biaslab.suites.tokenbias.external import (
    COLUMNS,
    EXAMPLE,
    long_answers,
    read_answers,
    to_records,
)
from biaslab.suites.tokenbias.generate import generate
from biaslab.suites.tokenbias.levels import answer_rows
from biaslab.suites.tokenbias.suite import SUITE
from tests.helpers.junk import CSV_VALUE, csv_junk, is_blank, jsonl_junk, with_junk

MODELS = ("token-biased", "no-bias")
SEEDS = (1, 2)
N = 2


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run: two reference agents, two seeds, every default block."""
    directory = tmp_path_factory.mktemp("tokenbias-run")
    command = [sys.executable, "-m", "biaslab.cli", "run", "tokenbias", "--n", str(N)]
    command += [arg for model in MODELS for arg in ("--model", f"biaslab/{model}")]
    command += ["--seeds", "1-2", "--log-dir", str(directory / "logs"), "--display", "none"]
    subprocess.run(command, check=True, capture_output=True, cwd=directory)
    return directory / "logs"


def _write_csv(path: Path, records: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for record in records:
            writer.writerow([str(v).lower() if isinstance(v, bool) else v for v in record.values()])


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_a_file_of_the_runs_answers_gives_the_same_results_json(logs: Path, tmp_path: Path) -> None:
    frame = frame_at(logs)
    from_logs = analyze(frame).model_dump_json()
    records = to_records(long_answers(frame))
    assert len(records) == 8 * N * 2 * len(MODELS) * len(SEEDS)  # 8 blocks of N pairs
    _write_csv(tmp_path / "answers.csv", records)
    _write_jsonl(tmp_path / "answers.jsonl", records)
    for name in ("answers.csv", "answers.jsonl"):
        assert analyze(read_answers(tmp_path / name)).model_dump_json() == from_logs
    results = json.loads(from_logs)
    assert results["seeds"] == list(SEEDS) and results["seed_tests"]
    (tmp_path / "file").mkdir()
    (tmp_path / "logs").mkdir()
    report = SUITE.report(analyze(read_answers(tmp_path / "answers.csv")), tmp_path / "file")
    assert report == SUITE.report(analyze(frame), tmp_path / "logs")
    figures = sorted(p.name for p in (tmp_path / "file").iterdir())
    assert figures and figures == sorted(p.name for p in (tmp_path / "logs").iterdir())
    for name in figures:
        assert (tmp_path / "file" / name).read_bytes() == (tmp_path / "logs" / name).read_bytes()
    assert "Per seed" in report


def test_the_cli_prints_the_same_json_for_logs_and_for_the_file(logs: Path, tmp_path: Path) -> None:
    _write_csv(tmp_path / "answers.csv", to_records(long_answers(frame_at(logs))))
    runner = CliRunner()
    from_logs = runner.invoke(cli, ["analyze", str(logs), "--json"])
    from_file = runner.invoke(
        cli, ["analyze", str(tmp_path / "answers.csv"), "--suite", "tokenbias", "--json"]
    )
    assert from_logs.exit_code == 0 and from_file.exit_code == 0, from_file.output
    logged, filed = json.loads(from_logs.stdout), json.loads(from_file.stdout)
    assert logged["provenance"] and not filed["provenance"]  # where the answers came from differs
    assert json.dumps(filed["suites"], sort_keys=True) == json.dumps(
        logged["suites"], sort_keys=True
    )
    tables = runner.invoke(cli, ["analyze", str(tmp_path / "answers.csv"), "--suite", "tokenbias"])
    assert tables.stdout in runner.invoke(cli, ["analyze", str(logs)]).stdout


def test_in_process_answers_are_the_answers_of_the_run(logs: Path) -> None:
    """What levels.py (the 100-seed table) computes without Inspect is what the run logged."""
    logged = long_answers(frame_at(logs))
    columns = ["model", "family", "hypothesis", "mode", "pair_id", "variant", "correct", "parsed"]
    keys = ["model", "pair_id", "variant"]
    expected = logged[columns].sort_values(keys).reset_index(drop=True)
    rows = [r for s in SEEDS for m in MODELS for r in answer_rows(generate(Config(), s, N), m)]
    computed = pd.DataFrame(rows)[columns].sort_values(keys).reset_index(drop=True)
    pd.testing.assert_frame_equal(computed, expected, check_dtype=False)


# ------------------------------------------------------------------ the documented format

HEADER = "model,family,hypothesis,mode,pair_id,variant,correct,parsed"


def _answers(tmp_path: Path, *lines: str, name: str = "a.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_existing_studys_outputs_in_the_long_format(tmp_path: Path) -> None:
    rows = [HEADER]
    for idx in range(12):  # gpt-x answers the celebrity original wrongly, the generic twin right
        rows.append(f"gpt-x,linda,H3,baseline,variant_four-{idx},original,false,true")
        rows.append(f"gpt-x,linda,H3,baseline,variant_four-{idx},twin,true,true")
    (test,) = analyze(read_answers(_answers(tmp_path, *rows))).tests
    assert (test.n21, test.n12, test.rejected, test.seed, test.seeds) == (12, 0, True, None, ())


def test_optional_columns_seed_epoch_pair_key_and_problem_key(tmp_path: Path) -> None:
    path = _answers(
        tmp_path,
        HEADER + ",seed,epoch,pair_key,notes,problem_key",
        "m,horses,H3,direct,p1,original,true,true,1,1,k1,ignored,",
        "m,horses,H3,direct,p1,twin,false,true,1,1,k1,,",
        "m,horses,H3,direct,p2,original,true,true,2,1,k1,,",
        "m,horses,H3,direct,p2,twin,false,false,2,,k1,,",
        "m,horses,H3,direct,p3,original,true,true,2,1,k3,,classic",
        "m,horses,H3,direct,p3,twin,false,true,2,1,k3,,cats",
        "m,horses,H3,direct,p4,original,true,true,3,1,k4,,classic",
        "m,horses,H3,direct,p4,twin,false,true,3,1,k4,,dogs",
    )
    results = analyze(read_answers(path))
    assert results.seeds == (1, 2, 3)
    # p1/p2 share a pair_key, p3/p4 their original: two clusters
    assert (results.tests[0].n_pairs, results.tests[0].n_linked_pairs) == (2, 2)


BAD_ROWS = [
    ("m,linda,H1,direct,p1,original,true", "with fewer values than columns .line 2: 7 values"),
    ("m,lindas,H1,direct,p1,original,true,true", r"column family \(line 2: 'lindas' is not one"),
    ("m,syllogism,H4,direct,p1,original,true,true", r"column family \(line 2: 'syllogism'"),
    ("m,horses,H1,direct,p1,original,true,true", r"hypothesis \(line 2: 'H1' is not tested"),
    ("m,linda,H1,direct,p1,perturbed,true,true", r"column variant \(line 2: 'perturbed'"),
    (
        "m,linda,H1,direct,p1,original,yes,true",
        r"column correct \(line 2: 'yes' is not true or false",
    ),
    (
        "m,linda,H1,direct,p1,original,true,false",
        r"column correct \(line 2: true, but parsed is false",
    ),
    ("m,linda,H1,direct,,original,true,true", r"column pair_id \(line 2: empty"),
    ("m,linda,H1,direct,p1,original,true,true,extra", r"more values than columns \(line 2"),
]


@pytest.mark.parametrize(("row", "message"), BAD_ROWS)
def test_a_file_of_one_bad_row_is_a_one_line_error_naming_line_and_column(
    tmp_path: Path, row: str, message: str
) -> None:
    with pytest.raises(BiaslabError, match=message) as excinfo:
        read_answers(_answers(tmp_path, HEADER, row))
    assert "\n" not in str(excinfo.value) and "a.csv: no usable answers" in str(excinfo.value)


GOOD = [
    "m,linda,H1,direct,p1,original,true,true",
    "m,linda,H1,direct,p1,twin,false,true",
    "m,linda,H1,direct,p2,original,false,true",
    "m,linda,H1,direct,p2,twin,true,true",
    "m,linda,H1,direct,p3,original,true,true",
    "m,linda,H1,direct,p3,twin,false,true",
]


def _same_results(with_bad: Path, without: Path) -> None:
    """The analysis of a file with bad rows is that of the file without them (only the notes
    counting the left-out rows differ)."""
    assert (
        analyze(read_answers(with_bad)).model_dump_json()
        == analyze(read_answers(without)).model_dump_json()
    )


def test_bad_rows_among_good_ones_are_left_out_and_counted(tmp_path: Path) -> None:
    bad = [
        "m,linda,H1,direct,p9,original,maybe,true",
        "m,linda,H1,direct,p9,twin,perhaps,true",
        "m,linda,H1,direct,p8,original,true,true,extra",
        "m,linda,H1,direct",
        "m,linda,H1,direct,p7,origi\x00nal,true,true",
    ]
    path = _answers(tmp_path, HEADER, *GOOD[:2], *bad, *GOOD[2:])
    frame = read_answers(path)
    assert len(frame) == len(GOOD)
    (note,) = frame.attrs["notes"]
    assert note == (
        "a.csv: 5 row(s) left out (a pair that lost one member is incomplete): "
        "1 with a NUL byte (line 8); "
        "2 with a bad value in column correct (first: line 4: 'maybe' is not true or false); "
        "1 with fewer values than columns (line 7: 4 values for 8 columns); "
        "1 with more values than columns (line 6: 9 values for 8 columns)"
    )
    _same_results(path, _answers(tmp_path, HEADER, *GOOD, name="good.csv"))


@pytest.mark.parametrize(
    ("junk", "reason"),
    [
        ("not json", "1 not valid JSON (line 3: Expecting value)"),
        ("[1, 2]", "1 not a JSON object (line 3: a JSON array)"),
        ('"m"', "1 not a JSON object (line 3: a JSON string)"),
        ('{"model": "m"}', "1 with a bad value in column family (line 3: empty)"),
    ],
)
def test_a_jsonl_line_that_cannot_be_used_is_counted(
    tmp_path: Path, junk: str, reason: str
) -> None:
    good = to_records(read_answers(_answers(tmp_path, HEADER, *GOOD, name="good.csv")))
    lines = [json.dumps(r) for r in good]
    path = _answers(tmp_path, *lines[:2], junk, *lines[2:], name="a.jsonl")
    (note,) = read_answers(path).attrs["notes"]
    assert note.endswith(f"incomplete): {reason}")
    _same_results(path, _answers(tmp_path, *lines, name="good.jsonl"))


def test_a_quote_never_closed_costs_the_rows_it_swallows_and_says_so(tmp_path: Path) -> None:
    path = _answers(tmp_path, HEADER, *GOOD, 'm,linda,H1,direct,"p4,original,true,true', GOOD[0])
    (note,) = read_answers(path).attrs["notes"]
    assert note.endswith("1 with a quote never closed (line 8: lines 8-9 unreadable)")
    _same_results(path, _answers(tmp_path, HEADER, *GOOD, name="good.csv"))
    broken = _answers(tmp_path, HEADER, *GOOD[:2], '"p"x,linda', *GOOD[2:], name="b.csv")
    (note,) = read_answers(broken).attrs["notes"]
    assert "1 not valid CSV (line 4: " in note
    _same_results(broken, _answers(tmp_path, HEADER, *GOOD, name="good.csv"))


def _read(path: Path) -> str:
    """An imported table as text (its notes, which count the rows left out, aside)."""
    frame = read_answers(path)
    return frame.to_json(orient="records") + str(list(frame.dtypes))


_NOT_A_FAMILY = CSV_VALUE.filter(lambda family: family.strip() not in FAMILIES)


@settings(max_examples=40, deadline=None)
@given(suffix=st.sampled_from([".csv", ".jsonl"]), data=st.data())
def test_junk_anywhere_in_a_good_file_changes_nothing_read(
    suffix: str, data: st.DataObject
) -> None:
    """Lines the reader cannot read and rows with a bad family, put in anywhere, are counted and
    leave the answers read from the good rows as they are."""
    with tempfile.TemporaryDirectory() as directory:
        good = _answers(Path(directory), HEADER, *GOOD, name="good.csv")
        if suffix == ".csv":
            bad_rows = _NOT_A_FAMILY.map(lambda f: f"m,{f},H1,direct,p1,original,true,true")
            lines, junk = data.draw(with_junk(GOOD, csv_junk(8) | bad_rows))
            path = _answers(Path(directory), HEADER, *lines)
        else:
            records = [json.dumps(r) for r in to_records(read_answers(good))]
            bad_objects = _NOT_A_FAMILY.map(lambda f: json.dumps({**EXAMPLE, "family": f}))
            lines, junk = data.draw(with_junk(records, jsonl_junk() | bad_objects))
            path = _answers(Path(directory), *lines, name="a.jsonl")
        assert _read(path) == _read(good)
        counted = sum(not is_blank(line, suffix) for line in junk)
        notes = read_answers(path).attrs.get("notes", [])
        if counted:
            assert len(notes) == 1 and notes[0].startswith(f"{path.name}: {counted} row(s) left")
        else:
            assert notes == []


def test_file_level_errors(tmp_path: Path) -> None:
    good = "m,linda,H1,direct,p1,original,true,true"
    cases = [
        (("model,family,hypothesis",), "a0.csv line 1: missing column"),
        ((HEADER,), "a1.csv: no answers"),
        ((HEADER + ",seed", good + ",x"), r"a2.csv: no usable answers \(1 with a bad value in "
         r"column seed \(line 2: 'x' is not an"),
        ((HEADER + ",epoch", good + ",0"), r"column epoch \(line 2: 0 is below 1"),
        (('{"model": "m"}',), "a4.jsonl line 1: missing fields"),
        (("not json",), r"a5.jsonl: no usable answers \(1 not valid JSON \(line 1"),
        (("[1, 2]",), r"a6.jsonl: no usable answers \(1 not a JSON object \(line 1"),
        ((HEADER + ",seed,seed", good + ",1,2"), "a7.csv line 1: column seed named twice"),
        ((HEADER, '"m",li"nda'), r"no usable answers \(1 with fewer values than columns"),
        ((HEADER, 'm,"linda'), r"no usable answers \(1 with a quote never closed"),
        ((HEADER + ",seed", good + f",{2**63}"), r"seed \(line 2: 9223372036854775808 is beyond 64"),
    ]  # fmt: skip
    for number, (lines, message) in enumerate(cases):
        suffix = ".jsonl" if "jsonl" in message else ".csv"
        with pytest.raises(BiaslabError, match=message):
            read_answers(_answers(tmp_path, *lines, name=f"a{number}{suffix}"))
    (tmp_path / "e.csv").write_bytes(b"\xff\xfe")
    with pytest.raises(BiaslabError, match="not UTF-8"):
        read_answers(tmp_path / "e.csv")


def test_a_pair_key_that_differs_between_the_members_leaves_out_the_pair(tmp_path: Path) -> None:
    rows = [f"{row},k{idx // 2}" for idx, row in enumerate(GOOD)]
    clash = ["m,linda,H1,direct,p4,original,true,true,k1", "m,linda,H1,direct,p4,twin,true,true,k2"]
    path = _answers(tmp_path, HEADER + ",pair_key", *rows[:2], *clash, *rows[2:])
    (note,) = read_answers(path).attrs["notes"]
    assert note.endswith(
        "2 of a pair whose original and twin name different pair_keys (first: line 4: "
        "pair p4: 'k1' (line 4), 'k2' (line 5))"
    )
    _same_results(path, _answers(tmp_path, HEADER + ",pair_key", *rows, name="good.csv"))
    frame = pd.read_csv(path)  # the same rows handed over as a table: a frame is not a file
    with pytest.raises(BiaslabError, match=r"pair p4 \(m\): original and twin differ in pair_key"):
        analyze(frame)


def test_one_pair_id_in_every_test_with_incomplete_pairs_is_counted_not_refused(
    tmp_path: Path,
) -> None:
    """As a released study writes it: one pair_id per problem in every test and mode, one answer
    missing in two different tests (each then holds one incomplete pair)."""
    rows = [HEADER]
    for mode in ("baseline", "zs_cot"):
        for hypothesis in ("H1", "H6"):
            for idx in range(12):
                for variant, correct in (("original", "false"), ("twin", "true")):
                    if (hypothesis, mode, idx, variant) in {
                        ("H1", "baseline", 3, "twin"),
                        ("H6", "zs_cot", 5, "original"),
                    }:
                        continue
                    rows.append(f"m,linda,{hypothesis},{mode},q{idx},{variant},{correct},true")
    for suffix, write in ((".csv", None), (".jsonl", _write_jsonl)):
        path = _answers(tmp_path, *rows, name="study" + suffix)
        if write is not None:
            write(path, to_records(read_answers(tmp_path / "study.csv")))
        results = analyze(read_answers(path))
        counts = {(t.hypothesis, t.mode): (t.n_pairs, t.n_incomplete_pairs) for t in results.tests}
        assert counts == {
            ("H1", "baseline"): (11, 1),
            ("H1", "zs_cot"): (12, 0),
            ("H6", "baseline"): (12, 0),
            ("H6", "zs_cot"): (11, 1),
        }
        assert results.n_incomplete_pairs == 2
        assert [(i.hypothesis, i.mode) for i in results.incomplete] == [
            ("H1", "baseline"),
            ("H6", "zs_cot"),
        ]
    text = SUITE.tables(results)
    assert "H1 linda m baseline: 1; H6 linda m zs_cot: 1" in text
    runner = CliRunner()
    out = runner.invoke(cli, ["analyze", str(path), "--suite", "tokenbias", "--json"])
    assert out.exit_code == 0, out.output
    suite = json.loads(out.stdout)["suites"]["tokenbias"]
    assert suite["n_incomplete_pairs"] == 2 and len(suite["incomplete"]) == 2
    assert suite["test_rule"] == "exact" and suite["decisions"]["test_rule"].startswith("exact")


def test_one_member_answered_twice_differently_is_left_out_and_its_pair_incomplete(
    tmp_path: Path,
) -> None:
    """Two different originals of one pair of one test: neither is taken, so the pair misses its
    original (incomplete); the same id in another test is another pair, and a repeat counts once."""
    rows = [f"{row},4" for row in GOOD]
    path = _answers(
        tmp_path,
        HEADER + ",seed",
        *rows,
        "m,linda,H1,direct,p5,original,true,true,4",
        "m,linda,H6,direct,p5,original,true,true,4",  # another test: another pair
        "m,linda,H1,direct,p5,original,false,true,4",
        "m,linda,H1,direct,p5,twin,false,true,4",
        "m,linda,H1,direct,p5,twin,false,true,4",  # the same row again: counted once
    )
    frame = read_answers(path)
    assert frame.attrs["notes"] == [
        "a.csv: 2 row(s) left out (a pair that lost one member is incomplete): 2 answering one "
        "member of a pair in two ways (first: line 8: pair p5 (original) on lines 8, 10)",
        "a.csv: 1 repeated row(s) (the same answer) counted once",
    ]
    results = analyze(frame)
    assert results.n_incomplete_pairs == 2  # p5 in H1 (its twin alone), p5 in H6 (its original)
    without = _answers(
        tmp_path,
        HEADER + ",seed",
        *rows,
        "m,linda,H6,direct,p5,original,true,true,4",
        "m,linda,H1,direct,p5,twin,false,true,4",
        name="good.csv",
    )
    assert results.model_dump_json() == analyze(read_answers(without)).model_dump_json()


def test_rows_left_out_are_named_on_stderr_in_results_and_in_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _answers(tmp_path, HEADER, *GOOD, "m,linda,H1,direct,p9,original,maybe,true")
    note = (
        "a.csv: 1 row(s) left out (a pair that lost one member is incomplete): 1 with a bad value "
        "in column correct (line 8: 'maybe' is not true or false)"
    )
    out = tmp_path / "results.json"
    assert main(["analyze", str(path), "--suite", "tokenbias", "-o", str(out)]) == 0
    assert f"biaslab: {note}" in capsys.readouterr().err
    assert json.loads(out.read_text(encoding="utf-8"))["notes"] == [note]
    assert main(["report", str(path), "--suite", "tokenbias", "-o", str(tmp_path / "r")]) == 0
    assert f"- {note}" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def test_the_paper_rule_is_chosen_with_p_and_recorded(tmp_path: Path) -> None:
    rows = [HEADER]
    for idx in range(12):  # 9 vs 3 discordant: exact one-sided p 0.073, normal p 0.042
        first, second = ("false", "true") if idx < 9 else ("true", "false")
        rows += [f"m,linda,H1,direct,q{idx},original,{first},true"]
        rows += [f"m,linda,H1,direct,q{idx},twin,{second},true"]
    path = _answers(tmp_path, *rows)
    runner = CliRunner()
    found = {}
    for rule in ("exact", "paper"):
        out = runner.invoke(
            cli, ["analyze", str(path), "--suite", "tokenbias", "--json", "-p", f"test={rule}"]
        )
        assert out.exit_code == 0, out.output
        found[rule] = json.loads(out.stdout)["suites"]["tokenbias"]
    assert found["exact"]["tests"][0]["p_value"] > 0.05 > found["paper"]["tests"][0]["p_value"]
    assert found["paper"]["test_rule"] == "paper"
    assert found["paper"]["decisions"]["test_rule"].startswith("paper")
    report = runner.invoke(
        cli, ["report", str(path), "--suite", "tokenbias", "-o", str(tmp_path / "r"), "-p",
              "test=paper"],
    )  # fmt: skip
    assert report.exit_code == 0, report.output
    assert "normal" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("test=fisher", "bad value 'fisher' for tokenbias parameter test"),
        ("order=counterbalanced", "-p order: not an analysis parameter of tokenbias"),
        ("test", "bad parameter 'test': expected key=value"),
    ],
)
def test_a_bad_analysis_parameter_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, message: str
) -> None:
    path = _answers(tmp_path, HEADER, "m,horses,H3,direct,p1,original,true,true",
                    "m,horses,H3,direct,p1,twin,true,true")  # fmt: skip
    assert main(["analyze", str(path), "--suite", "tokenbias", "-p", option]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.splitlines()) == 1


def test_only_incomplete_pairs_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _answers(tmp_path, HEADER, "m,horses,H3,direct,p1,original,true,true",
                    "m,horses,H3,zs-cot,p1,twin,true,true")  # fmt: skip
    for command in (["analyze"], ["report", "-o", str(tmp_path / "r")]):
        assert main([*command, str(path), "--suite", "tokenbias"]) == 2
        captured = capsys.readouterr()
        assert "no complete pair to test (2 pair(s) miss" in captured.err
        assert len(captured.err.splitlines()) == 1 and "DataFrame" not in captured.out


def test_the_same_pair_id_in_several_modes_is_several_pairs(tmp_path: Path) -> None:
    """As in the original study's outputs: one item, asked in every prompting mode."""
    rows = [HEADER]
    for mode in ("baseline", "zs_cot"):
        rows += [f"m,linda,H3,{mode},item-1,original,false,true"]
        rows += [f"m,linda,H3,{mode},item-1,twin,true,true"]
    results = analyze(read_answers(_answers(tmp_path, *rows)))
    assert [t.mode for t in results.tests] == ["baseline", "zs_cot"]
    assert results.n_incomplete_pairs == 0


def test_json_integers_as_pair_ids_and_a_byte_order_mark(tmp_path: Path) -> None:
    records = [
        {"model": "m", "family": "horses", "hypothesis": "H3", "mode": "direct", "pair_id": 7,
         "variant": variant, "correct": correct, "parsed": True}
        for variant, correct in (("original", True), ("twin", False))
    ]  # fmt: skip
    _write_jsonl(tmp_path / "a.jsonl", records)
    assert analyze(read_answers(tmp_path / "a.jsonl")).tests[0].n12 == 1
    _write_jsonl(tmp_path / "b.jsonl", [dict(records[0], model=3), records[1]])
    (note,) = read_answers(tmp_path / "b.jsonl").attrs["notes"]
    assert "column model (line 1: expected text, got the JSON" in note
    bom = "\ufeff" + HEADER + "\nm,horses,H3,direct,p1,original,true,true\n"
    (tmp_path / "bom.csv").write_text(bom + "m,horses,H3,direct,p1,twin,false,true\n", "utf-8")
    assert analyze(read_answers(tmp_path / "bom.csv")).tests[0].n12 == 1


def test_a_json_file_is_pointed_to_jsonl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "answers.json").write_text("[]", encoding="utf-8")
    assert main(["analyze", str(tmp_path / "answers.json"), "--suite", "tokenbias"]) == 2
    error = capsys.readouterr().err
    assert "answers.json: a file of answers is .csv or .jsonl" in error
    assert len(error.splitlines()) == 1


def test_incomplete_pairs_are_a_line_in_tables_and_report(tmp_path: Path) -> None:
    path = _answers(
        tmp_path,
        HEADER,
        "m,horses,H3,direct,p1,original,true,true",
        "m,horses,H3,direct,p1,twin,false,true",
        "m,horses,H3,direct,p2,original,true,true",
    )
    results = analyze(read_answers(path))
    assert "1 pair(s) miss their original or their twin" in SUITE.tables(results)
    (tmp_path / "out").mkdir()
    assert "**Warning:** 1 pair(s) miss their original" in SUITE.report(results, tmp_path / "out")


def test_the_cli_turns_a_file_of_bad_rows_into_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _answers(tmp_path, HEADER, "m,linda,H9,direct,p1,original,true,true", "[1]")
    assert main(["analyze", str(path), "--suite", "tokenbias"]) == 2
    error = capsys.readouterr().err
    assert len(error.splitlines()) == 1
    assert (
        "a.csv: no usable answers (1 with a bad value in column hypothesis (line 2: 'H9'" in error
    )
    assert "1 with fewer values than columns (line 3: 1 value for 8 columns)" in error
    jsonl = _answers(tmp_path, "[1]", "", "not json", name="a.jsonl")
    assert main(["analyze", str(jsonl), "--suite", "tokenbias"]) == 2
    error = capsys.readouterr().err
    assert (
        "a.jsonl: no usable answers (1 not a JSON object (line 1: a JSON array); 1 not valid"
        in (error)
    )
    assert len(error.splitlines()) == 1


def test_log_frames_of_items_without_analysis_family_split_syllogisms_by_validity() -> None:
    """Items of generator version 1 carry ``valid`` but no ``analysis_family``."""
    items = generate(Config(family="syllogism", hypothesis="H5"), seed=1, n=6)
    rows = answer_rows(items, "oracle")
    frame = pd.DataFrame(
        {
            "model": [r["model"] for r in rows],
            "item_family": "syllogism",
            "item_valid": [i.meta["valid"] for i in items],
            "item_hypothesis": "H5",
            "item_mode": "direct",
            "item_pair_id": [r["pair_id"] for r in rows],
            "item_variant": [r["variant"] for r in rows],
            "correct": [r["correct"] for r in rows],
            "parsed": True,
            "seed": 1,
            "epoch": 1,
        }
    )
    answers = long_answers(frame)
    assert list(answers["family"]) == [r["family"] for r in rows]
    assert {t.family for t in analyze(frame).tests} == {"syllogism-invalid", "syllogism-valid"}
