"""The long answer table the analysis reads, from Inspect logs or from a file of answers.

One row per answer::

    model,family,hypothesis,mode,pair_id,variant,correct,parsed[,seed,epoch,pair_key,problem_key]

``family`` is ``linda``, ``syllogism-invalid``, ``syllogism-valid`` or ``horses``; ``hypothesis``
H1–H6 as the family allows; ``variant`` ``original`` or ``twin``; ``correct`` and ``parsed`` are
``true``/``false`` (a correct answer must be parsed). Optional: ``seed`` (an integer; tests are then
also run per seed), ``epoch`` (an integer ≥ 1; later epochs of an answer are dropped),
``pair_key`` (pairs with equal keys are the same pair of questions; default: the ``pair_id``) and
``problem_key`` (this answer's question: rows with equal keys are the same question, e.g. a hash of
its text, so pairs that share a member count as one cluster; default: none) and
``correct_position`` (an integer ≥ 0, where the correct option stands, 0 = first: the report then
measures a preference for a position; default: none). A pair is one
``pair_id`` of one test: (model, seed, epoch, family, hypothesis, mode, ``pair_id``). The same
``pair_id`` in other tests or modes is another pair (a study may use one id per problem
everywhere); a pair that misses its original or its twin is counted per test, never an error. Only
a contradiction is an error: two originals (or two twins) of one pair, or an original and a twin
of one pair that name different ``pair_key`` values. Other columns are
ignored. ``.csv`` files (UTF-8, with or without a byte-order mark) have a header row; ``.jsonl``
files hold one JSON object per line (booleans and numbers as JSON values or as the strings above;
``pair_id`` may be a JSON integer).

:func:`long_answers` makes the same table from a tidy log frame (:func:`biaslab.frames.answer_frame`),
so a file written from it gives the same analysis byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biaslab.errors import BiaslabError
from biaslab.rows import read_rows
from biaslab.suites.tokenbias.directions import DIRECTIONS, FAMILIES, KEY

if TYPE_CHECKING:
    import pandas as pd

REQUIRED = ("model", "family", "hypothesis", "mode", "pair_id", "variant", "correct", "parsed")
OPTIONAL = ("seed", "epoch", "pair_key", "problem_key", "correct_position")
COLUMNS = (*REQUIRED, *OPTIONAL)
EXAMPLE = {
    "model": "openai/gpt-4o",
    "family": "linda",
    "hypothesis": "H1",
    "mode": "direct",
    "pair_id": "p17",
    "variant": "original",
    "correct": True,
    "parsed": True,
}
_TRUE, _FALSE = {"true", "1"}, {"false", "0"}
#: what makes one pair: a pair_id of one test (the same id in other tests or modes is another pair)
PAIR = ("model", "seed", "epoch", "family", "hypothesis", "mode", "pair_id")
Fail = Callable[[str], BiaslabError]


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
    problems = data["problem_key"] if "problem_key" in data.columns else None
    out["problem_key"] = "" if problems is None else problems.fillna("").astype(str).to_numpy()
    out["correct_position"] = _integers(data, "correct_position")
    bad = sorted(set(out["variant"]) - {"original", "twin"})
    if bad:
        raise BiaslabError(f"variant must be 'original' or 'twin', got {bad[0]!r}")
    _pairs_agree(out)
    clash = out.duplicated([*KEY, "seed", "epoch", "pair_id", "variant"])
    if clash.any():
        row = out[clash].iloc[0]
        raise BiaslabError(
            f"tokenbias analysis: {row['pair_id']} ({row['variant']}) answered twice by "
            f"{row['model']} in mode {row['mode']}"
        )
    return out.reset_index(drop=True)


def _pairs_agree(answers: pd.DataFrame) -> None:
    """The original and the twin of one pair that name different pair_keys would silently become
    two incomplete pairs: a one-line error instead."""
    rows = answers.assign(seed=answers["seed"].astype("string").fillna(""))
    keys = rows.groupby(list(PAIR), sort=True)["pair_key"].nunique()
    clashes = keys[keys > 1]
    if clashes.empty:
        return
    model, seed, _, _, _, _, pid = clashes.index[0]
    chosen = rows.set_index(list(PAIR)).loc[clashes.index[:1]]
    original = chosen[chosen["variant"] == "original"]["pair_key"].iloc[0]
    twin = chosen[chosen["variant"] == "twin"]["pair_key"].iloc[0]
    where = f", seed {seed}" if seed else ""
    raise BiaslabError(
        f"tokenbias analysis: pair {pid} ({model}{where}): original and twin differ in "
        f"pair_key ({original!r} vs {twin!r})"
    )


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
    for column in ("pair_key", "problem_key", "correct_position"):
        if f"item_{column}" in frame.columns:
            data[column] = frame[f"item_{column}"]
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
        position = record["correct_position"]
        record["correct_position"] = (
            None if position is None or str(position) == "<NA>" else int(position)
        )
        record["correct"], record["parsed"] = bool(record["correct"]), bool(record["parsed"])
        records.append(record)
    return records


# --------------------------------------------------------------------------------------------------
# from a file
# --------------------------------------------------------------------------------------------------


def read_answers(path: Path) -> pd.DataFrame:
    """A ``.csv``, ``.jsonl`` or ``.json`` file of answers -> the long table. A row with a bad value
    is left out and counted (``frame.attrs["notes"]`` names the first such line and column), so its
    pair counts as incomplete; a file that cannot be read, or two originals of one pair, is a
    one-line error."""
    import pandas as pd

    rows: list[tuple[int, dict[str, Any]]] = []
    left_out: list[str] = []
    for number, raw in read_rows(path, REQUIRED, example=EXAMPLE):
        try:
            rows.append(_checked(path.name, number, raw))
        except BiaslabError as exc:
            left_out.append(str(exc))
    if not rows:
        why = f" ({left_out[0]}{_more(left_out)})" if left_out else ""
        raise BiaslabError(f"{path.name}: no {'usable ' if left_out else ''}answers{why}")
    _no_duplicates(path.name, rows)
    _members_agree(path.name, rows)
    frame = long_answers(pd.DataFrame([values for _, values in rows]))
    if left_out:
        frame.attrs["notes"] = [
            f"{path.name}: {len(left_out)} row(s) left out, their pairs incomplete: "
            f"{left_out[0]}{_more(left_out)}"
        ]
    return frame


def _more(problems: list[str]) -> str:
    return f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""


def _checked(name: str, number: int, raw: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    """One row's values, typed, or a one-line error naming the line and the column."""

    def fail(column: str, problem: str) -> BiaslabError:
        return BiaslabError(f"{name} line {number}, column {column}: {problem}")

    values: dict[str, Any] = {}
    for column in ("model", "family", "hypothesis", "mode", "pair_id", "variant"):
        values[column] = _text(raw.get(column), column == "pair_id", partial(fail, column))
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
        values[column] = _boolean(raw.get(column), partial(fail, column))
    if values["correct"] and not values["parsed"]:
        raise fail("correct", "true, but parsed is false (an unparsed answer cannot be correct)")
    for column, lowest in (("seed", None), ("epoch", 1), ("correct_position", 0)):
        values[column] = _optional_int(raw.get(column), lowest, partial(fail, column))
    key = raw.get("pair_key")
    values["pair_key"] = str(key).strip() if key not in (None, "") else values["pair_id"]
    problem = raw.get("problem_key")
    values["problem_key"] = str(problem).strip() if problem not in (None, "") else ""
    return number, values


def _text(value: Any, integer_allowed: bool, fail: Fail) -> str:
    """A non-empty text value; a JSON integer is accepted where it identifies (``pair_id``)."""
    if integer_allowed and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise fail("empty")
    if not isinstance(value, str):
        raise fail(f"expected text, got the JSON value {json.dumps(value)}")
    return value.strip()


def _boolean(value: Any, fail: Fail) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if value is not None else ""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise fail(f"{value!r} is not true or false" if text else "empty")


def _optional_int(value: Any, lowest: int | None, fail: Fail) -> int | None:
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


def _members_agree(name: str, rows: list[tuple[int, dict[str, Any]]]) -> None:
    """The two rows of one pair (:data:`PAIR`) agree on its pair_key: a twin that names another
    key than its original is a one-line error at the later of the two lines."""
    first: dict[tuple[Any, ...], int] = {}
    by_line = dict(rows)
    for number, values in rows:
        pair = tuple(values[c] for c in PAIR)
        early = first.setdefault(pair, number)
        if by_line[early]["pair_key"] != values["pair_key"]:
            raise BiaslabError(
                f"{name} line {number}, column pair_key: {values['pair_key']!r}, but line {early} "
                f"gives {by_line[early]['pair_key']!r} for the other member of pair "
                f"{values['pair_id']}"
            )
