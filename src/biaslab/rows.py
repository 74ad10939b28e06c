"""Rows of someone else's table: the one reader every importer uses for CSV, JSON Lines and JSON.

An importer declares the columns it needs; this module reads the file as it comes and yields
``(line, row)`` pairs. A record that cannot be read as a row is never a reason to stop: it is
counted in the importer's :class:`LeftOut` tally by reason, with its line, and the rest of the
file is read. What makes the *file* unusable is one :class:`~biaslab.errors.BiaslabError` line
naming the file: not UTF-8, not the format its suffix says (a ``.json`` that does not parse as a
whole, or holds no list of records), or a file of the wrong shape: a CSV header without a required
column or naming a column it reads twice, or a first JSON record (the first that is an object)
without a required field (the error names the fields expected and can show a valid record). Extra
columns are allowed (files from other pipelines carry more than we read); a later record that
lacks a field is the importer's to count. A file with no usable row is the importer's one line.

* ``.csv``: a header row, UTF-8 with or without a byte-order mark (spreadsheets write one), quoted
  fields may span lines (``line`` is where the record starts). Left out and counted: a row with
  more or fewer values than the header has columns (which value is missing cannot be known), a
  row with a NUL byte, a row the CSV reader refuses (a quote opened and never closed takes the
  rest of the file with it: one record, lines named), blank lines are skipped.
* ``.jsonl``: one JSON object per non-blank line (:func:`biaslab.schema.jsonl_objects`; lines end
  at ``\n``, as JSON Lines says, and a ``\r`` before it is whitespace); a line that is not JSON, not
  an object, or an object with a key given twice (JSON would keep the last value: a guess) is left
  out and counted.
* ``.json``: a list of objects, or an object holding one under a key the caller names (``line``
  is then the record's position, 1-based); a record that is not an object, or gives a key twice,
  is left out and counted.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError
from biaslab.schema import TOO_MANY_DIGITS, json_kind, json_object, jsonl_objects, keys_given_twice

SUFFIXES = (".csv", ".jsonl", ".json")
#: the largest whole number a table's integer columns hold (pandas' int64): a seed, step or epoch
#: beyond it is a bad value of its row, not an overflow of the whole file
LARGEST_INTEGER = 2**63 - 1
_INTEGER = re.compile(r"[+-]?[0-9]+")
_MOST_DIGITS = 4300  # CPython's default int() limit, kept whatever PYTHONINTMAXSTRDIGITS says


def integer(value: Any) -> int | None:
    """``value`` as an integer when it is one as written: an ``int`` (not a bool), or ASCII
    digits with an optional sign and spaces around them. ``None`` for anything else, whatever
    Python's ``int()`` would make of it: ``"1_000"``, ``"٣"`` (Arabic-Indic three), ``"3.0"`` or
    a string too long for ``int()`` are not integers as a table writes them, and guessing what
    such a cell meant is not an importer's job."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) > _MOST_DIGITS or not _INTEGER.fullmatch(text):
        return None
    return int(text)


class LeftOut:
    """The rows of one file an importer could not use: a count per reason, and the first place
    (and what was wrong there) of each, so a note can say "2 not valid JSON (first: line 4: …)".

    Reasons are short phrases that read after a count ("not valid JSON", "with a bad value in
    column correct"); the reader adds its own, the importer adds the rest. ``unit`` is what a
    position is called ("line", or "record" in a ``.json`` list)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.first: dict[str, tuple[int, str]] = {}
        self.unit = "line"

    def add(self, reason: str, line: int, detail: str = "", count: int = 1) -> None:
        """``count`` rows left out for ``reason``; ``line`` the first of them."""
        self.counts[reason] += count
        if reason not in self.first or line < self.first[reason][0]:
            self.first[reason] = (line, detail)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def __bool__(self) -> bool:
        return self.total > 0

    def text(self) -> str:
        """Every reason with its count and first place, by reason (so the text is deterministic):
        ``2 not valid JSON (first: line 4: Expecting value); 1 without a model (line 7)``."""
        parts = []
        for reason, count in sorted(self.counts.items()):
            line, detail = self.first[reason]
            where = f"{'first: ' if count > 1 else ''}{self.unit} {line}"
            parts.append(f"{count} {reason} ({where}{': ' + detail if detail else ''})")
        return "; ".join(parts)


def read_text(path: Path) -> str:
    """A file's text with its line ends as they are, or one line saying why it cannot be read.
    Line ends are the reader's to find: a quoted CSV value may hold a ``\r\n`` of its own (the
    csv module's rule), and a JSON Lines line ends at ``\n`` only (a ``\r`` is JSON whitespace)."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            return handle.read()
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
    left_out: LeftOut,
    optional: Sequence[str] = (),
    json_keys: Sequence[str] = (),
    example: Mapping[str, Any] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, row)`` for each readable record of a ``.csv``, ``.jsonl`` or ``.json`` file; a
    record that cannot be read is added to ``left_out`` and skipped.

    ``required``: columns every record must have (a CSV header without one, or a first JSON record
    without one, is a one-line error naming what is missing and what is expected; ``example``, if
    given, is shown as a valid record). ``optional``: the other columns the importer reads (a CSV
    header naming a read column twice is an error: which one is meant cannot be known).
    ``json_keys``: keys under which a ``.json`` object may hold its list.
    """
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise BiaslabError(f"{path.name}: expected a {', '.join(SUFFIXES)} file")
    text = read_text(path)
    if suffix == ".csv":
        yield from _csv_rows(path.name, text, (required, optional), example, left_out)
        return

    def unreadable(number: int, reason: str, detail: str) -> None:
        left_out.add(reason, number, detail)

    if suffix == ".json":
        left_out.unit = "record"
        records = _json_records(path.name, text, json_keys, unreadable)
    else:
        # lines end at "\n" only: str.splitlines would also split at "\r", U+2028 and the like,
        # which JSON allows as whitespace or unescaped inside a string
        lines = text.split("\n")
        records = jsonl_objects(lines, lambda n: f"{path.name} line {n}", unreadable)
    shape_checked = False
    for number, record in records:
        if not shape_checked:
            missing = [column for column in required if column not in record]
            if missing:
                raise BiaslabError(
                    f"{path.name} {left_out.unit} {number}: missing {_fields(missing)}"
                    + _expected(required, example)
                )
            shape_checked = True
        yield number, record


def _fields(names: Sequence[str], kind: str = "field") -> str:
    return f"{kind}{'' if len(names) == 1 else 's'} {', '.join(names)}"


def _expected(required: Sequence[str], example: Mapping[str, Any] | None) -> str:
    text = f" (expected {', '.join(required)}"
    if example is not None:
        text += f"; e.g. {json.dumps(dict(example), ensure_ascii=False)}"
    return text + ")"


def _csv_rows(
    name: str,
    text: str,
    columns: tuple[Sequence[str], Sequence[str]],
    example: Mapping[str, Any] | None,
    left_out: LeftOut,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows of a CSV text; ``strict`` quoting, so a field like ``"a"b`` is counted as broken
    rather than read as ``ab`` (the lenient reading is a guess)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header = _csv_header(name, reader, columns, example)
    start = reader.line_num + 1
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            left_out.add(*_broken_quoting(exc, start, reader.line_num))
        else:
            problem = _row_shape(values, len(header))
            if problem is not None:
                left_out.add(problem[0], start, problem[1])
            elif "".join(values).strip():  # a blank row is skipped, as a blank line
                yield start, dict(zip(header, values, strict=True))
        start = reader.line_num + 1


def _csv_header(
    name: str,
    reader: Iterator[list[str]],
    columns: tuple[Sequence[str], Sequence[str]],
    example: Mapping[str, Any] | None,
) -> list[str]:
    """The header's column names, or one line saying why the file has the wrong shape."""
    required, optional = columns
    try:
        header = [column.strip() for column in next(reader, [])]
    except csv.Error as exc:
        raise BiaslabError(f"{name} line 1: not a valid CSV header ({exc})") from None
    missing = [column for column in required if column not in header]
    if missing:
        found = ", ".join(header) if header else "no header"
        raise BiaslabError(
            f"{name} line 1: missing {_fields(missing, 'column')} (found: {found}; "
            + _expected(required, example).removeprefix(" (")
        )
    twice = [c for c in (*required, *optional) if header.count(c) > 1]
    if twice:
        raise BiaslabError(f"{name} line 1: {_fields(twice, 'column')} named twice in the header")
    return header


def _row_shape(values: list[str], width: int) -> tuple[str, str] | None:
    """Why a CSV row cannot be read as one record of the header's columns, if it cannot (a row of
    blank values is none of these: it is skipped as blank)."""
    joined = "".join(values)
    if len(values) == width:
        return ("with a NUL byte", "") if "\x00" in joined else None
    if not joined.strip():
        return None
    count = f"{len(values)} value{'s' * (len(values) != 1)} for {width} columns"
    if len(values) > width:
        return "with more values than columns", count
    return "with fewer values than columns", count


def _broken_quoting(exc: csv.Error, start: int, end: int) -> tuple[str, int, str]:
    """(reason, line, detail) of a record the CSV reader refused."""
    if "unexpected end of data" in str(exc):
        return "with a quote never closed", start, f"lines {start}-{end} unreadable"
    return "not valid CSV", start, str(exc)


def _json_records(
    name: str,
    text: str,
    keys: Sequence[str],
    unreadable: Callable[[int, str, str], None],
) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        data = json.loads(text, object_pairs_hook=json_object)
    except json.JSONDecodeError as exc:
        hint = " (one object per line is a .jsonl file)" if exc.msg == "Extra data" else ""
        raise BiaslabError(f"{name}: not valid JSON (line {exc.lineno}: {exc.msg}){hint}") from None
    except ValueError:  # an integer literal longer than int() converts
        raise BiaslabError(f"{name}: not valid JSON ({TOO_MANY_DIGITS})") from None
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
            unreadable(number, "not a JSON object", f"a JSON {json_kind(record)}")
        elif keys_given_twice(record):
            unreadable(number, "with a key given twice", ", ".join(keys_given_twice(record)))
        else:
            yield number, record
