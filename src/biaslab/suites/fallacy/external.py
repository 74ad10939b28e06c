"""Answers given outside Inspect to fallacy problems, read and scored as a run's replies are.

``biaslab analyze ANSWERS.csv|.jsonl --suite fallacy --problems ITEMS.jsonl``: one row per answer,
columns ``model, problem_id, answer[, order, epoch]`` (other columns are ignored). ``problem_id``
is a problem's ``id`` in an imported problem file (``-p problems=FILE``), a generated problem's
id (``s1-p0007``) or an item's id (``fallacy-s1-p0007-r``, which fixes the order); ``order`` is
``standard`` (default) or ``reversed``; ``epoch`` an integer ≥ 1 (default 1). ITEMS.jsonl is the
file of items the answers were given to (``biaslab generate fallacy … -o ITEMS.jsonl``).

Each answer is read by the suite's own parser (:func:`biaslab.suites.fallacy.scoring.read_view`:
the grammar over the problem's names, no second LLM) and scored by its deciders, so a file of a
run's replies gives the run's results. The answer is the reply as given: its last ``Answer:``
line is read, as in a run; a one-line answer without one is read as the answer sentence itself
(the column holds the answer); a longer reply without one is unparsed (``no_answer``), never
searched for a sentence.

Rows that cannot be used are counted by reason, with the first line of each, in one note, never a
reason to stop (:mod:`biaslab.rows`): a row the reader cannot read (not JSON, not an object, more
or fewer values than the header), an unknown ``problem_id``, an empty answer or model, an
``order`` or ``epoch`` that is not one, an order the named item does not have, a problem id that
several items carry (an items file of several seeds: give the item id), and different answers for
one (model, problem, order, epoch) (all dropped: none can be preferred; the same answer twice is
kept once). Only what makes the file unusable is a one-line error naming the line: not UTF-8, a
missing required column (or a first JSON record without a required field), or no usable answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biaslab.errors import BiaslabError
from biaslab.rows import LARGEST_INTEGER, LeftOut, integer, read_rows
from biaslab.schema import Item, read_items

if TYPE_CHECKING:
    import pandas as pd

REQUIRED = ("model", "problem_id", "answer")
EXAMPLE = {"model": "openai/gpt-4o", "problem_id": "p12", "answer": "Answer: the ace is red"}
OPTIONAL = ("order", "epoch")
ORDERS = ("standard", "reversed")
_CONFLICT = "with another answer for the same model, problem, order and epoch"


@dataclass(frozen=True)
class _Answer:
    line: int
    model: str
    item: Item
    epoch: int
    text: str


class _Unusable(Exception):
    """A row that is skipped, with the kind of problem (the key it is counted under)."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def read_answers(path: Path, problems: Path | None = None) -> pd.DataFrame:
    """A file of answers and the items they answer -> the tidy frame a run's logs give, with a
    note (``frame.attrs["notes"]``) counting the rows that could not be used."""
    import pandas as pd

    if problems is None:
        raise BiaslabError(
            f"{path.name}: fallacy answers are read beside the problems they answer: add "
            "--problems ITEMS.jsonl (the items file the answers were given to)"
        )
    index = _ItemIndex(_fallacy_items(problems))
    answers, skipped = _usable_answers(path, index)
    if not answers:
        raise BiaslabError(f"{path.name}: no usable answers ({skipped.text() or 'no rows'})")
    frame = pd.DataFrame([_frame_row(answer) for answer in answers])
    notes = [f"{path.name}: read {len(answers)} answers"]
    if skipped:
        count = skipped.total
        notes[0] += f"; skipped {count} row{'s' * (count != 1)}: {skipped.text()}"
    frame.attrs["notes"] = notes
    return frame


# --------------------------------------------------------------------------------------------------
# problems
# --------------------------------------------------------------------------------------------------


def _fallacy_items(path: Path) -> list[Item]:
    if path.suffix != ".jsonl" or not path.is_file():
        raise BiaslabError(f"--problems {path}: expected the .jsonl file of fallacy items")
    items = [item for item in read_items(path) if item.suite == "fallacy"]
    if not items:
        raise BiaslabError(f"--problems {path}: no fallacy items in the file")
    return items


class _ItemIndex:
    """Items by their own id and by (problem id, order)."""

    def __init__(self, items: list[Item]) -> None:
        self.by_id: dict[str, Item] = {}
        self.ambiguous_ids: set[str] = set()
        for item in items:
            if item.id in self.by_id and self.by_id[item.id] != item:
                self.ambiguous_ids.add(item.id)
            self.by_id[item.id] = item
        self.by_problem: dict[tuple[str, str], Item] = {}
        #: (problem id, order) of several items (sets of several seeds in one file): no guessing
        self.ambiguous: set[tuple[str, str]] = set()
        for item in items:
            key = (str(item.meta.get("problem_id")), str(item.meta.get("order", "standard")))
            if key in self.by_problem and self.by_problem[key] != item:
                self.ambiguous.add(key)
            self.by_problem[key] = item
        self.problems = {problem for problem, _ in self.by_problem}

    def find(self, problem_id: str, order: str | None) -> Item:
        if problem_id in self.ambiguous_ids:
            raise _Unusable("with a problem_id of several items (give the item id)")
        item = self.by_id.get(problem_id)
        if item is not None:
            if order is not None and item.meta.get("order", "standard") != order:
                raise _Unusable("with an order their item does not have")
            return item
        if problem_id not in self.problems:
            raise _Unusable("with an unknown problem_id")
        if (problem_id, order or "standard") in self.ambiguous:
            raise _Unusable("with a problem_id of several items (give the item id)")
        item = self.by_problem.get((problem_id, order or "standard"))
        if item is None:
            raise _Unusable("with an order their item does not have")
        return item


# --------------------------------------------------------------------------------------------------
# rows
# --------------------------------------------------------------------------------------------------


def _usable_answers(path: Path, index: _ItemIndex) -> tuple[list[_Answer], LeftOut]:
    """The answers that can be scored, and the rows left out by reason (with the first line of
    each). Different answers for one (model, item, epoch) are all left out: which one the model
    gave cannot be known; the same answer twice is kept once."""
    skipped = LeftOut()
    by_key: dict[tuple[str, str, int], list[_Answer]] = {}
    for number, raw in read_rows(
        path, REQUIRED, left_out=skipped, optional=OPTIONAL, example=EXAMPLE
    ):
        try:
            answer = _answer(number, raw, index)
        except _Unusable as exc:
            skipped.add(exc.kind, number)
            continue
        by_key.setdefault((answer.model, answer.item.id, answer.epoch), []).append(answer)
    answers = []
    for group in by_key.values():
        lines = [answer.line for answer in group]
        if len({a.text for a in group}) > 1:
            where = f"lines {', '.join(map(str, lines))}"
            skipped.add(_CONFLICT, lines[0], where, count=len(group))
            continue
        if len(group) > 1:
            skipped.add("repeated, kept once", lines[1], count=len(group) - 1)
        answers.append(group[0])
    return sorted(answers, key=lambda a: (a.model, a.item.id, a.epoch)), skipped


def _answer(number: int, raw: Mapping[str, Any], index: _ItemIndex) -> _Answer:
    model = _text(raw.get("model"))
    if not model:
        raise _Unusable("without a model")
    problem_id = raw.get("problem_id")
    if isinstance(problem_id, int) and not isinstance(problem_id, bool):
        problem_id = str(problem_id)
    if not isinstance(problem_id, str) or not problem_id.strip():
        raise _Unusable("without a problem_id")
    text = raw.get("answer")
    if not isinstance(text, str) or not text.strip():
        raise _Unusable("without an answer")
    order = _text(raw.get("order")) or None
    if order is not None and order not in ORDERS:
        raise _Unusable("with an order that is not standard or reversed")
    item = index.find(problem_id.strip(), order)
    return _Answer(number, model, item, _epoch(raw.get("epoch")), text)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _epoch(value: Any) -> int:
    if value is None or (isinstance(value, str) and not value.strip()):
        return 1
    epoch = integer(value)
    if epoch is None or not 1 <= epoch <= LARGEST_INTEGER:
        raise _Unusable("with an epoch that is not an integer ≥ 1")
    return epoch


# --------------------------------------------------------------------------------------------------
# reading and scoring
# --------------------------------------------------------------------------------------------------


def _frame_row(answer: _Answer) -> dict[str, Any]:
    """The row :func:`biaslab.frames.answer_rows` makes for the same reply in a log."""
    from biaslab.suites.fallacy.scoring import read_view

    item = answer.item
    turn = item.turns[0]
    record = read_view(turn, item, answer.text)
    if record.parse_status == "no_answer" and "\n" not in answer.text.strip():
        record = read_view(turn, item, f"Answer: {answer.text.strip()}")
    identity = {
        "suite": item.suite,
        "model": answer.model,
        "item_id": item.id,
        "epoch": answer.epoch,
    }
    row: dict[str, Any] = dict(identity)
    row.update({k: v for k, v in record.model_dump().items() if k not in identity})
    row["file_line"] = answer.line
    row.update({f"item_{k}": v for k, v in item.meta.items() if not isinstance(v, dict)})
    return row
