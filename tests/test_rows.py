"""The one reader of other people's tables: CSV, JSON Lines and JSON in, (line, row) out, and a
file it cannot read is one line naming the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from biaslab.errors import BiaslabError
from biaslab.rows import read_rows

REQUIRED = ("model", "answer")


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_csv_with_a_byte_order_mark_and_a_quoted_newline(tmp_path: Path) -> None:
    text = '\ufeffmodel,answer,extra\nm1,"yes\nreally",x\nm2,no,y\n'
    rows = list(read_rows(write(tmp_path, "a.csv", text), REQUIRED))
    assert rows == [
        (2, {"model": "m1", "answer": "yes\nreally", "extra": "x"}),
        (4, {"model": "m2", "answer": "no", "extra": "y"}),
    ]


def test_jsonl_and_json_give_the_same_rows(tmp_path: Path) -> None:
    jsonl = write(
        tmp_path, "a.jsonl", '{"model": "m", "answer": "yes"}\n\n{"model": "n", "answer": 1}\n'
    )
    as_list = write(
        tmp_path, "a.json", '[{"model": "m", "answer": "yes"}, {"model": "n", "answer": 1}]'
    )
    held = write(tmp_path, "b.json", '{"beliefs": [{"model": "m", "answer": "yes"}]}')
    assert [r for _, r in read_rows(jsonl, REQUIRED)] == [
        r for _, r in read_rows(as_list, REQUIRED)
    ]
    assert [n for n, _ in read_rows(jsonl, REQUIRED)] == [1, 3]
    assert list(read_rows(held, REQUIRED, json_keys=("beliefs",))) == [
        (1, {"model": "m", "answer": "yes"})
    ]


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
        ("a.csv", "model,answer\nm,yes,extra\n", "a.csv line 2: more values than columns"),
        (
            "a.jsonl",
            '{"model": "m"}\n{"model": "m", "answer": "y"}\n',
            "a.jsonl line 1: missing field answer (expected model, answer",
        ),
        ("a.jsonl", '{"model": "m"\n', "a.jsonl line 1: not valid JSON"),
        ("a.jsonl", "[1]\n", "a.jsonl line 1: expected a JSON object"),
        (
            "a.json",
            '{"model": "m", "answer": 1}\n{"model": "n", "answer": 2}\n',
            "one object per line is a .jsonl file",
        ),
        ("a.json", '{"rows": 3}', "a.json: expected a list of records"),
        ("a.json", "[1]", "a.json record 1: expected a JSON object"),
    ],
)
def test_a_file_that_cannot_be_read_is_one_line(
    tmp_path: Path, name: str, content: str | bytes, message: str
) -> None:
    with pytest.raises(BiaslabError) as caught:
        list(read_rows(write(tmp_path, name, content), REQUIRED))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_missing_field_shows_a_valid_record(tmp_path: Path) -> None:
    path = write(tmp_path, "a.jsonl", '{"model": "m"}\n')
    with pytest.raises(BiaslabError) as caught:
        list(read_rows(path, REQUIRED, example={"model": "gpt", "answer": "yes"}))
    assert 'e.g. {"model": "gpt", "answer": "yes"}' in str(caught.value)


def test_a_missing_file_or_a_directory_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(BiaslabError, match="cannot read"):
        list(read_rows(tmp_path / "none.csv", REQUIRED))
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(BiaslabError, match="is a directory"):
        list(read_rows(tmp_path / "d.csv", REQUIRED))


def test_a_later_record_without_a_field_is_the_importers_to_count(tmp_path: Path) -> None:
    path = write(tmp_path, "a.jsonl", '{"model": "m", "answer": "y"}\n{"model": "n"}\n')
    assert list(read_rows(path, REQUIRED)) == [
        (1, {"model": "m", "answer": "y"}),
        (2, {"model": "n"}),
    ]
