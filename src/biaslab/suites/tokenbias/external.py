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
everywhere); a pair that misses its original or its twin is counted per test, never an error.
Other columns are ignored. ``.csv`` files (UTF-8, with or without a byte-order mark) have a header
row; ``.jsonl`` files hold one JSON object per line (booleans and numbers as JSON values or as the
strings above; ``pair_id`` may be a JSON integer).

Files are taken as they come (:mod:`biaslab.rows`). Left out, and counted by reason with the first
line of each in the results' notes: a row the reader cannot read (not JSON, not an object, more or
fewer values than the header), a row with a bad value (the note names the column), and every row of
a contradiction, which is never resolved by picking a row: one member of a pair answered in two
different ways (the member's rows go; the pair counts as incomplete), or an original and a twin of
one pair that name different ``pair_key`` values (both go). The same row twice is counted once.
Only what makes the file unusable is a one-line error: not UTF-8, a header without a required
column (or a first JSON record without a required field), or no usable answer at all.

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
from biaslab.rows import LARGEST_INTEGER, LeftOut, integer, read_rows
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
Fail = Callable[[str], Exception]


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
    """A ``.csv``, ``.jsonl`` or ``.json`` file of answers -> the long table. Rows that cannot be
    used are left out and counted by reason with the first line of each (``frame.attrs["notes"]``):
    a row the reader cannot read, a row with a bad value, and every row of a contradiction (see
    :func:`_consistent`); a pair that loses one member counts as incomplete in its test. A file
    that cannot be read, or holds no usable answer, is a one-line error."""
    import pandas as pd

    rows: list[tuple[int, dict[str, Any]]] = []
    left_out = LeftOut()
    for number, raw in read_rows(
        path, REQUIRED, left_out=left_out, optional=OPTIONAL, example=EXAMPLE
    ):
        try:
            rows.append((number, _checked(raw)))
        except _BadValue as exc:
            left_out.add(f"with a bad value in column {exc.column}", number, exc.problem)
    rows, repeated = _consistent(rows, left_out)
    if not rows:
        why = f" ({left_out.text()})" if left_out else ""
        raise BiaslabError(f"{path.name}: no {'usable ' if left_out else ''}answers{why}")
    frame = long_answers(pd.DataFrame([values for _, values in rows]))
    notes = []
    if left_out:
        notes.append(
            f"{path.name}: {left_out.total} row(s) left out (a pair that lost one member is "
            f"incomplete): {left_out.text()}"
        )
    if repeated:
        notes.append(f"{path.name}: {repeated} repeated row(s) (the same answer) counted once")
    if notes:
        frame.attrs["notes"] = notes
    return frame


class _BadValue(Exception):
    """A row whose value in one column cannot be used: the column and what is wrong with it."""

    def __init__(self, column: str, problem: str) -> None:
        super().__init__(f"column {column}: {problem}")
        self.column = column
        self.problem = problem


def _checked(raw: Mapping[str, Any]) -> dict[str, Any]:
    """One row's values, typed, or :class:`_BadValue` naming the column."""
    fail = _BadValue
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
    return values


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
    number = integer(value)
    if number is None:
        raise fail(f"{value!r} is not an integer")
    if lowest is not None and number < lowest:
        raise fail(f"{number} is below {lowest}")
    if abs(number) > LARGEST_INTEGER:
        raise fail(f"{number} is beyond 64-bit integers")
    return number


def _consistent(
    rows: list[tuple[int, dict[str, Any]]], left_out: LeftOut
) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The rows that contradict no other row, in file order, and how many repeats were dropped.

    Within one pair (:data:`PAIR`): the same row twice is kept once; one member (original or twin)
    answered in two different ways leaves out every row of that member, since neither answer can
    be preferred (the pair then misses that member and counts as incomplete); an original and a
    twin that name different ``pair_key`` values leave out both, since which pair they belong to
    cannot be known. Each left-out row is counted in ``left_out`` with the lines involved."""
    by_member: dict[tuple[Any, ...], list[tuple[int, dict[str, Any]]]] = {}
    for number, values in rows:
        member = (*(values[c] for c in PAIR), values["variant"])
        by_member.setdefault(member, []).append((number, values))
    by_pair: dict[tuple[Any, ...], list[tuple[int, dict[str, Any]]]] = {}
    repeated = 0
    for member, group in by_member.items():
        if any(values != group[0][1] for _, values in group[1:]):
            lines = [number for number, _ in group]
            left_out.add(
                "answering one member of a pair in two ways",
                lines[0],
                f"pair {group[0][1]['pair_id']} ({member[-1]}) on lines "
                f"{', '.join(map(str, lines))}",
                count=len(group),
            )
            continue
        repeated += len(group) - 1
        by_pair.setdefault(member[:-1], []).append(group[0])
    kept: list[tuple[int, dict[str, Any]]] = []
    for survivors in by_pair.values():
        if len({values["pair_key"] for _, values in survivors}) > 1:
            named = ", ".join(f"{values['pair_key']!r} (line {n})" for n, values in survivors)
            left_out.add(
                "of a pair whose original and twin name different pair_keys",
                min(number for number, _ in survivors),
                f"pair {survivors[0][1]['pair_id']}: {named}",
                count=len(survivors),
            )
            continue
        kept.extend(survivors)
    return sorted(kept, key=lambda row: row[0]), repeated
