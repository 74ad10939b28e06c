"""The one reader of other people's tables: CSV, JSON Lines and JSON in, (line, row) out; a record
it cannot read is counted by reason with its line and the rest is read; a file it cannot read is
one line naming the file and the line."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biaslab.errors import BiaslabError
from biaslab.rows import LeftOut, integer, read_rows
from biaslab.schema import jsonl_objects
from tests.helpers.junk import csv_junk, is_blank, jsonl_junk, with_junk

REQUIRED = ("model", "answer")


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def rows(path: Path, **options: Any) -> tuple[list[tuple[int, dict[str, Any]]], LeftOut]:
    """The rows read and the tally of records left out."""
    left_out = LeftOut()
    return list(read_rows(path, REQUIRED, left_out=left_out, **options)), left_out


def test_csv_with_a_byte_order_mark_and_a_quoted_newline(tmp_path: Path) -> None:
    text = '\ufeffmodel,answer,extra\nm1,"yes\nreally",x\nm2,no,y\n'
    found, left_out = rows(write(tmp_path, "a.csv", text))
    assert found == [
        (2, {"model": "m1", "answer": "yes\nreally", "extra": "x"}),
        (4, {"model": "m2", "answer": "no", "extra": "y"}),
    ]
    assert not left_out


def test_jsonl_and_json_give_the_same_rows(tmp_path: Path) -> None:
    jsonl = write(
        tmp_path, "a.jsonl", '{"model": "m", "answer": "yes"}\n\n{"model": "n", "answer": 1}\n'
    )
    as_list = write(
        tmp_path, "a.json", '[{"model": "m", "answer": "yes"}, {"model": "n", "answer": 1}]'
    )
    held = write(tmp_path, "b.json", '{"beliefs": [{"model": "m", "answer": "yes"}]}')
    assert [r for _, r in rows(jsonl)[0]] == [r for _, r in rows(as_list)[0]]
    assert [n for n, _ in rows(jsonl)[0]] == [1, 3]
    assert rows(held, json_keys=("beliefs",))[0] == [(1, {"model": "m", "answer": "yes"})]


GOOD_CSV = ["model,answer", "m1,yes", "m2,no"]
GOOD_JSONL = ['{"model": "m1", "answer": "yes"}', '{"model": "m2", "answer": "no"}']


@pytest.mark.parametrize(
    ("name", "lines", "junk", "counted"),
    [
        ("a.csv", GOOD_CSV, "m,yes,extra", "1 with more values than columns (line 3: 3 values for "
         "2 columns)"),
        ("a.csv", GOOD_CSV, "m", "1 with fewer values than columns (line 3: 1 value for 2 columns)"),
        ("a.csv", GOOD_CSV, "m,y\x00es", "1 with a NUL byte (line 3)"),
        ("a.csv", GOOD_CSV, '"m"x,yes', "1 not valid CSV (line 3: ',' expected after '\"')"),
        ("a.jsonl", GOOD_JSONL, '{"model": "m"', "1 not valid JSON (line 2: Expecting ',' delimiter)"),
        ("a.jsonl", GOOD_JSONL, "[1]", "1 not a JSON object (line 2: a JSON array)"),
        ("a.jsonl", GOOD_JSONL, "null", "1 not a JSON object (line 2: a JSON null)"),
        ("a.jsonl", GOOD_JSONL, '{"model": "m", "answer": "y", "model": "n"}',
         "1 with a key given twice (line 2: model)"),
        ("a.jsonl", GOOD_JSONL, '{"model": "m", "answer": "y\x00"}', "1 not valid JSON (line 2: "
         "Invalid control character at)"),
        ("a.jsonl", GOOD_JSONL, '{"model": "m", "answer": ' + "9" * 5000 + "}", "1 not valid JSON "
         "(line 2: a number with more digits than can be read)"),
    ],
)  # fmt: skip
def test_a_record_that_cannot_be_read_is_counted_and_the_rest_read(
    tmp_path: Path, name: str, lines: list[str], junk: str, counted: str
) -> None:
    good, _ = rows(write(tmp_path, "good" + name[1:], "\n".join(lines) + "\n"))
    text = "\n".join([*lines[:-1], junk, lines[-1]]) + "\n"
    found, left_out = rows(write(tmp_path, name, text))
    assert [row for _, row in found] == [row for _, row in good]
    assert left_out.total == 1 and left_out.text() == counted


def test_a_quote_never_closed_is_one_record_naming_the_lines_it_takes(tmp_path: Path) -> None:
    path = write(tmp_path, "a.csv", 'model,answer\nm1,yes\nm2,"no\nm3,yes\nm4,no\n')
    found, left_out = rows(path)
    assert found == [(2, {"model": "m1", "answer": "yes"})]
    assert left_out.text() == "1 with a quote never closed (line 3: lines 3-5 unreadable)"


def test_blank_rows_are_skipped_and_a_json_list_counts_records(tmp_path: Path) -> None:
    found, left_out = rows(write(tmp_path, "a.csv", "model,answer\n\n,\n  \nm,yes\n"))
    assert found == [(5, {"model": "m", "answer": "yes"})] and not left_out
    listed = write(
        tmp_path,
        "a.json",
        '[1, {"model": "m", "answer": 2}, "x", [], {"model": "m", "answer": 2, "answer": {"a": 1, '
        '"a": 2}}, {"model": "n", "answer": {"b": 1, "b": 2}}]',
    )
    found, left_out = rows(listed)
    assert found == [(2, {"model": "m", "answer": 2}), (6, {"model": "n", "answer": {"b": 2}})]
    assert left_out.text() == (
        "3 not a JSON object (first: record 1: a JSON number); "
        "1 with a key given twice (record 5: answer)"
    )


def test_the_first_object_decides_the_shape(tmp_path: Path) -> None:
    """Junk before the first record is counted; the first object without a field is an error."""
    path = write(tmp_path, "a.jsonl", 'junk\n{"model": "m", "answer": 1}\n{"model": "n"}\n')
    found, left_out = rows(path)
    assert found == [(2, {"model": "m", "answer": 1}), (3, {"model": "n"})]
    assert left_out.text() == "1 not valid JSON (line 1: Expecting value)"
    with pytest.raises(BiaslabError, match=r"a\.jsonl line 2: missing field answer"):
        rows(write(tmp_path, "a.jsonl", '[1]\n{"model": "n"}\n{"model": "m", "answer": 1}\n'))


def test_left_out_counts_by_reason_with_the_first_place() -> None:
    left_out = LeftOut()
    left_out.add("without a model", 9, "")
    left_out.add("with a bad value", 7, "'x'")
    left_out.add("without a model", 4, "", count=2)
    assert left_out.total == 4 and bool(left_out)
    assert left_out.text() == "1 with a bad value (line 7: 'x'); 3 without a model (first: line 4)"
    assert not LeftOut() and LeftOut().text() == ""


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("a.txt", "x", "a.txt: expected a .csv, .jsonl, .json file"),
        ("a.csv", b"model,answer\n\xff\xfe,1\n", "a.csv: not UTF-8 text"),
        (
            "a.csv",
            "model,reply\nm,yes\n",
            "a.csv line 1: missing column answer (found: model, reply; expected model, answer",
        ),
        ("a.csv", "", "a.csv line 1: missing columns model, answer (found: no header"),
        ("a.csv", "model,answer,answer\nm,yes,no\n", "a.csv line 1: column answer named twice"),
        ("a.csv", 'model,"answer\nm,yes\n', "a.csv line 1: not a valid CSV header"),
        (
            "a.jsonl",
            '{"model": "m"}\n{"model": "m", "answer": "y"}\n',
            "a.jsonl line 1: missing field answer (expected model, answer",
        ),
        (
            "a.json",
            '{"model": "m", "answer": 1}\n{"model": "n", "answer": 2}\n',
            "one object per line is a .jsonl file",
        ),
        ("a.json", '{"rows": 3}', "a.json: expected a list of records"),
        ("a.json", '[1, {"model": "m"}]', "a.json record 2: missing field answer"),
    ],
)
def test_a_file_that_cannot_be_read_is_one_line(
    tmp_path: Path, name: str, content: str | bytes, message: str
) -> None:
    with pytest.raises(BiaslabError) as caught:
        rows(write(tmp_path, name, content))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_missing_field_shows_a_valid_record(tmp_path: Path) -> None:
    path = write(tmp_path, "a.jsonl", '{"model": "m"}\n')
    with pytest.raises(BiaslabError) as caught:
        rows(path, example={"model": "gpt", "answer": "yes"})
    assert 'e.g. {"model": "gpt", "answer": "yes"}' in str(caught.value)


def test_a_missing_file_or_a_directory_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(BiaslabError, match="cannot read"):
        rows(tmp_path / "none.csv")
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(BiaslabError, match="is a directory"):
        rows(tmp_path / "d.csv")


def test_a_later_record_without_a_field_is_the_importers_to_count(tmp_path: Path) -> None:
    path = write(tmp_path, "a.jsonl", '{"model": "m", "answer": "y"}\n{"model": "n"}\n')
    assert rows(path)[0] == [
        (1, {"model": "m", "answer": "y"}),
        (2, {"model": "n"}),
    ]


def test_our_own_jsonl_files_still_stop_at_a_bad_line() -> None:
    """Without ``unreadable`` (items files we wrote), a bad line is the one-line error it was."""
    lines = ['{"a": 1}', "[2]"]
    with pytest.raises(BiaslabError, match="f:2: expected a JSON object"):
        list(jsonl_objects(lines, lambda number: f"f:{number}"))
    skipped: list[tuple[int, str, str]] = []
    found = list(jsonl_objects(lines, str, lambda *args: skipped.append(args)))
    assert found == [(1, {"a": 1})] and skipped == [(2, "not a JSON object", "a JSON array")]


_GOOD_VALUE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))
_GOOD_ROWS = st.lists(
    st.fixed_dictionaries({"model": _GOOD_VALUE.filter(str.strip), "answer": _GOOD_VALUE}),
    min_size=1,
    max_size=5,
)


def _csv_record(row: dict[str, str]) -> str:
    out = io.StringIO()
    csv.writer(out).writerow([row["model"], row["answer"]])  # quotes a value with "\r" or "\n"
    return out.getvalue().removesuffix("\r\n")


@settings(max_examples=150, deadline=None)
@given(good=_GOOD_ROWS, suffix=st.sampled_from([".csv", ".jsonl"]), data=st.data())
def test_junk_lines_never_stop_the_reader_nor_change_the_rows_it_reads(
    good: list[dict[str, str]], suffix: str, data: st.DataObject
) -> None:
    """Whatever junk stands between the records of a good file, the reader yields the good rows
    as they are and counts every junk line that is not blank."""
    if suffix == ".csv":
        records = [_csv_record(row) for row in good]
        lines, junk = data.draw(with_junk(records, csv_junk(len(REQUIRED))))
        text = "\n".join(["model,answer", *lines]) + "\n"
    else:
        records = [json.dumps(row, ensure_ascii=False) for row in good]
        lines, junk = data.draw(with_junk(records, jsonl_junk()))
        text = "\n".join(lines) + "\n"
    with tempfile.TemporaryDirectory() as directory:
        found, left_out = rows(write(Path(directory), "a" + suffix, text))
    assert [row for _, row in found] == good
    assert left_out.total == sum(not is_blank(line, suffix) for line in junk)


@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_an_integer_cell_reads_as_written(number: int) -> None:
    assert integer(number) == integer(str(number)) == integer(f" {number}\t") == number


@pytest.mark.parametrize(
    "cell",
    ["1_000", "\u0663", "\uff13", "3.0", "3e2", "", "0x1f", "--3", True, 3.0, None, "9" * 5000],
)
def test_a_cell_that_is_not_an_integer_as_a_table_writes_one_is_none(cell: object) -> None:
    """Python's int() reads "1_000", Arabic-Indic and full-width digits: an importer does not
    guess what such a cell meant (and a 5,000-digit one is refused, not an int() error)."""
    assert integer(cell) is None


def test_a_json_file_with_a_number_too_long_to_read_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "a.json", '[{"model": "m", "answer": ' + "9" * 5000 + "}]")
    with pytest.raises(BiaslabError, match=r"a\.json: not valid JSON \(a number with more digits"):
        rows(path)
