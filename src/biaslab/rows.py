"""Rows of someone else's table: the one reader every importer uses for CSV, JSON Lines and JSON.

An importer declares the columns it needs; this module reads the file as it comes and yields
``(line, row)`` pairs, so the importer can count and report rows it cannot use without stopping.
What makes the *file* unreadable is one :class:`~biaslab.errors.BiaslabError` line naming the file
and the line: not UTF-8, not the format its suffix says, a record that is not an object, and a file
of the wrong shape: a CSV header without a required column, or a first JSON record without a
required field (the error names the fields expected and can show a valid record). Extra columns are
allowed (files from other pipelines carry more than we read); a later record that lacks a field is
the importer's to count, since one bad row must not cost the rest of the file.

* ``.csv``: a header row, UTF-8 with or without a byte-order mark (spreadsheets write one), quoted
  fields may span lines (``line`` is where the record starts); a row with more values than the
  header has columns is reported as such.
* ``.jsonl``: one JSON object per non-blank line (:func:`biaslab.schema.jsonl_objects`).
* ``.json``: a list of objects, or an object holding one under a key the caller names (``line``
  is then the record's position, 1-based).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError
from biaslab.schema import jsonl_objects

SUFFIXES = (".csv", ".jsonl", ".json")


def read_text(path: Path) -> str:
    """A file's text, or one line saying why it cannot be read."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BiaslabError(f"{path.name}: not UTF-8 text ({exc.reason})") from None
    except IsADirectoryError:
        raise BiaslabError(f"{path}: is a directory, expected a file") from None
    except OSError as exc:
        raise BiaslabError(f"cannot read {path}: {exc.strerror or exc}") from None


def read_rows(
    path: Path,
    required: Sequence[str],
    *,
    json_keys: Sequence[str] = (),
    example: Mapping[str, Any] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, row)`` for each record of a ``.csv``, ``.jsonl`` or ``.json`` file.

    ``required``: columns every record must have (a CSV header without one, or a JSON record without
    one, is a one-line error naming what is missing and what is expected; ``example``, if given, is
    shown as a valid record). ``json_keys``: keys under which a ``.json`` object may hold its list.
    """
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise BiaslabError(f"{path.name}: expected a {', '.join(SUFFIXES)} file")
    text = read_text(path)
    if suffix == ".csv":
        yield from _csv_rows(path.name, text, required, example)
        return
    records = (
        jsonl_objects(text.splitlines(), lambda number: f"{path.name} line {number}")
        if suffix == ".jsonl"
        else _json_records(path.name, text, json_keys)
    )
    for position, (number, record) in enumerate(records):
        missing = [column for column in required if column not in record]
        if missing and position == 0:
            where = "line" if suffix == ".jsonl" else "record"
            raise BiaslabError(
                f"{path.name} {where} {number}: missing {_fields(missing)}"
                + _expected(required, example)
            )
        yield number, record


def _fields(names: Sequence[str], kind: str = "field") -> str:
    return f"{kind}{'' if len(names) == 1 else 's'} {', '.join(names)}"


def _expected(required: Sequence[str], example: Mapping[str, Any] | None) -> str:
    text = f" (expected {', '.join(required)}"
    if example is not None:
        text += f"; e.g. {json.dumps(dict(example), ensure_ascii=False)}"
    return text + ")"


def _csv_rows(
    name: str, text: str, required: Sequence[str], example: Mapping[str, Any] | None
) -> Iterator[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = [column.strip() for column in reader.fieldnames or []]
        reader.fieldnames = header
        missing = [column for column in required if column not in header]
        if missing:
            found = ", ".join(header) if header else "no header"
            raise BiaslabError(
                f"{name} line 1: missing {_fields(missing, 'column')} (found: {found}; "
                + _expected(required, example).removeprefix(" (")
            )
        start = reader.line_num + 1
        for row in reader:
            if None in row:
                raise BiaslabError(f"{name} line {start}: more values than columns")
            yield start, dict(row)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise BiaslabError(f"{name} line {reader.line_num}: not valid CSV ({exc})") from None


def _json_records(
    name: str, text: str, keys: Sequence[str]
) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (one object per line is a .jsonl file)" if exc.msg == "Extra data" else ""
        raise BiaslabError(f"{name}: not valid JSON (line {exc.lineno}: {exc.msg}){hint}") from None
    if isinstance(data, dict):
        for key in keys:
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if not isinstance(data, list):
        holders = f" or an object with {' / '.join(repr(k) for k in keys)}" if keys else ""
        raise BiaslabError(f"{name}: expected a list of records{holders}")
    for number, record in enumerate(data, start=1):
        if not isinstance(record, dict):
            raise BiaslabError(f"{name} record {number}: expected a JSON object")
        yield number, record
