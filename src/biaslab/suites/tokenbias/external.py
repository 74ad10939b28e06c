"""The long answer table the analysis reads, from Inspect logs or from a file of answers.

One row per answer::

    model,family,hypothesis,mode,pair_id,variant,correct,parsed[,seed,epoch,pair_key]

``family`` is ``linda``, ``syllogism-invalid``, ``syllogism-valid`` or ``horses``; ``hypothesis``
H1–H6 as the family allows; ``variant`` ``original`` or ``twin``; ``correct`` and ``parsed`` are
``true``/``false`` (a correct answer must be parsed). Optional: ``seed`` (an integer; tests are then
also run per seed), ``epoch`` (an integer ≥ 1; later epochs of an answer are dropped) and
``pair_key`` (pairs with equal keys are the same question and count once when seeds are pooled;
default: the ``pair_id``). Other columns are ignored. ``.csv`` files have a header row; ``.jsonl``
files hold one JSON object per line (booleans and numbers as JSON values or as the strings above).

:func:`long_answers` makes the same table from a tidy log frame (:func:`biaslab.frames.answer_frame`),
so a file written from it gives the same analysis byte for byte.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biaslab.errors import BiaslabError
from biaslab.suites.tokenbias.analysis import DIRECTIONS, KEY

if TYPE_CHECKING:
    import pandas as pd

REQUIRED = ("model", "family", "hypothesis", "mode", "pair_id", "variant", "correct", "parsed")
OPTIONAL = ("seed", "epoch", "pair_key")
COLUMNS = (*REQUIRED, *OPTIONAL)
FAMILIES = tuple(dict.fromkeys(f for f, _ in DIRECTIONS))
_TRUE, _FALSE = {"true", "1"}, {"false", "0"}


# --------------------------------------------------------------------------------------------------
# from a tidy log frame
# --------------------------------------------------------------------------------------------------


def long_answers(frame: pd.DataFrame) -> pd.DataFrame:
    """The long table from a tidy log frame, or a long table checked and completed (optional
    columns filled in)."""
    import pandas as pd

    data = _from_log_frame(frame) if "item_pair_id" in frame.columns else frame
    missing = [c for c in REQUIRED if c not in data.columns]
    if missing:
        raise BiaslabError(
            f"tokenbias analysis needs columns {', '.join(missing)} (required: {', '.join(REQUIRED)})"
        )
    out = pd.DataFrame({c: data[c].astype(str) for c in (*KEY, "pair_id", "variant")})
    out["parsed"] = data["parsed"].fillna(False).astype(bool).to_numpy()
    out["correct"] = data["correct"].fillna(False).astype(bool).to_numpy() & out["parsed"]
    out["seed"] = _integers(data, "seed")
    out["epoch"] = _integers(data, "epoch").fillna(1).astype(int)
    keys = data["pair_key"] if "pair_key" in data.columns else data["pair_id"]
    out["pair_key"] = keys.where(keys.notna(), data["pair_id"]).astype(str).to_numpy()
    bad = sorted(set(out["variant"]) - {"original", "twin"})
    if bad:
        raise BiaslabError(f"variant must be 'original' or 'twin', got {bad[0]!r}")
    clash = out.duplicated([*KEY, "seed", "epoch", "pair_id", "variant"])
    if clash.any():
        row = out[clash].iloc[0]
        raise BiaslabError(
            f"tokenbias analysis: {row['pair_id']} ({row['variant']}) answered twice by "
            f"{row['model']} in mode {row['mode']}"
        )
    return out.reset_index(drop=True)


def _integers(data: pd.DataFrame, column: str) -> pd.Series:
    import pandas as pd

    if column not in data.columns:
        return pd.Series([pd.NA] * len(data), dtype="Int64")
    return pd.to_numeric(data[column], errors="raise").astype("Int64").reset_index(drop=True)


def _from_log_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Rename the frame's item columns; syllogism families by validity (``analysis_family``, or
    ``valid`` for items generated before it existed)."""
    import pandas as pd

    data = pd.DataFrame(
        {
            "model": frame["model"],
            "hypothesis": frame["item_hypothesis"],
            "mode": frame["item_mode"],
            "pair_id": frame["item_pair_id"],
            "variant": frame["item_variant"],
            "correct": frame["correct"],
            "parsed": frame["parsed"],
            "seed": frame["seed"],
            "epoch": frame["epoch"],
        }
    )
    if "item_analysis_family" in frame.columns:
        data["family"] = frame["item_analysis_family"]
    else:
        valid = frame.get("item_valid", pd.Series([None] * len(frame), index=frame.index))
        syllogism = frame["item_family"] == "syllogism"
        by_validity = valid.map({True: "syllogism-valid", False: "syllogism-invalid"})
        data["family"] = frame["item_family"].where(~syllogism, by_validity)
    if "item_pair_key" in frame.columns:
        data["pair_key"] = frame["item_pair_key"]
    return data


def to_records(answers: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows of a long table as plain dicts in column order (for writing a file of answers)."""
    records = []
    for row in answers[list(COLUMNS)].itertuples(index=False):
        record = dict(zip(COLUMNS, row, strict=True))
        record["seed"] = (
            None if record["seed"] is None or str(record["seed"]) == "<NA>" else int(record["seed"])
        )
        record["epoch"] = int(record["epoch"])
        record["correct"], record["parsed"] = bool(record["correct"]), bool(record["parsed"])
        records.append(record)
    return records


# --------------------------------------------------------------------------------------------------
# from a file
# --------------------------------------------------------------------------------------------------


def read_answers(path: Path) -> pd.DataFrame:
    """A ``.csv`` or ``.jsonl`` file of answers -> the long table; a one-line error naming the line
    and column of the first bad value."""
    import pandas as pd

    rows = [_checked(path.name, number, raw) for number, raw in _raw_rows(path)]
    if not rows:
        raise BiaslabError(f"{path.name}: no answers")
    _no_duplicates(path.name, rows)
    frame = pd.DataFrame([values for _, values in rows])
    return long_answers(frame)


def _raw_rows(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BiaslabError(f"{path.name}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise BiaslabError(f"cannot read {path}: {exc.strerror or exc}") from None
    if path.suffix == ".jsonl":
        yield from _jsonl_rows(path.name, text)
        return
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise BiaslabError(
            f"{path.name} line 1: missing column(s) {', '.join(missing)} "
            f"(required: {', '.join(REQUIRED)})"
        )
    for row in reader:
        if None in row:
            raise BiaslabError(f"{path.name} line {reader.line_num}: more values than columns")
        yield reader.line_num, row


def _jsonl_rows(name: str, text: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BiaslabError(f"{name} line {number}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise BiaslabError(f"{name} line {number}: expected a JSON object")
        missing = [c for c in REQUIRED if c not in row]
        if missing:
            raise BiaslabError(f"{name} line {number}: missing column(s) {', '.join(missing)}")
        yield number, row


def _checked(name: str, number: int, raw: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    """One row's values, typed, or a one-line error naming the line and the column."""

    def fail(column: str, problem: str) -> BiaslabError:
        return BiaslabError(f"{name} line {number}, column {column}: {problem}")

    values: dict[str, Any] = {}
    for column in ("model", "family", "hypothesis", "mode", "pair_id", "variant"):
        value = raw.get(column)
        if not isinstance(value, str) or not value.strip():
            raise fail(column, "empty")
        values[column] = value.strip()
    if values["family"] not in FAMILIES:
        raise fail("family", f"{values['family']!r} is not one of {', '.join(FAMILIES)}")
    if (values["family"], values["hypothesis"]) not in DIRECTIONS:
        allowed = ", ".join(h for f, h in DIRECTIONS if f == values["family"])
        raise fail(
            "hypothesis",
            f"{values['hypothesis']!r} is not tested on {values['family']} ({allowed})",
        )
    if values["variant"] not in ("original", "twin"):
        raise fail("variant", f"{values['variant']!r} is not original or twin")
    for column in ("correct", "parsed"):
        values[column] = _boolean(raw.get(column), lambda problem, c=column: fail(c, problem))
    if values["correct"] and not values["parsed"]:
        raise fail("correct", "true, but parsed is false (an unparsed answer cannot be correct)")
    for column, lowest in (("seed", None), ("epoch", 1)):
        values[column] = _optional_int(raw.get(column), lowest, lambda p, c=column: fail(c, p))
    key = raw.get("pair_key")
    values["pair_key"] = str(key).strip() if key not in (None, "") else values["pair_id"]
    return number, values


def _boolean(value: Any, fail: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if value is not None else ""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise fail(f"{value!r} is not true or false" if text else "empty")


def _optional_int(value: Any, lowest: int | None, fail: Any) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise fail(f"{value!r} is not an integer")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise fail(f"{value!r} is not an integer") from None
    if lowest is not None and number < lowest:
        raise fail(f"{number} is below {lowest}")
    return number


def _no_duplicates(name: str, rows: list[tuple[int, dict[str, Any]]]) -> None:
    seen: dict[tuple[Any, ...], int] = {}
    for number, values in rows:
        key = tuple(values[c] for c in (*KEY, "seed", "epoch", "pair_id", "variant"))
        if key in seen:
            raise BiaslabError(
                f"{name} line {number}, column pair_id: {values['pair_id']} ({values['variant']}) "
                f"is already answered on line {seen[key]}"
            )
        seen[key] = number
