"""Per-answer records: what every answer leaves in the Inspect sample store for the analysis.

A solver appends one typed record per answer (a turn of a label conversation, an open-ended answer
read by a suite parser, one judge's belief after one reasoning step) to the sample's store as it
arrives, so a sample cut short by an error keeps what it had already answered, and
:mod:`biaslab.frames` turns records into one tidy row each whatever the task shape. Records are
flat (scalars, lists, small dicts) so they become frame columns as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

if TYPE_CHECKING:
    from inspect_ai.util import Store

    from biaslab.schema import Item, Turn

RECORD_SCHEMA_VERSION = 1
#: where a task's per-answer records live in the sample store
ANSWERS_KEY = "biaslab_answers"


class AnswerRecord(BaseModel):
    """Base of every record: its type, schema version and the item turn it answers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = RECORD_SCHEMA_VERSION
    record: str
    turn: int = Field(default=0, ge=0, description="index of the item's turn this answers")


class TurnRecord(AnswerRecord):
    """One answered turn of the label conversation."""

    record: Literal["turn"] = "turn"
    kind: str
    gold: str
    predicted: str | None
    parsed: bool
    correct: bool
    label_probs: dict[str, float] | None = None
    completion: str = ""


class OpenAnswerRecord(AnswerRecord):
    """An open-ended answer read by a suite parser: ``predicted`` is the parser's canonical
    reading (None when unparsed); suites subclass it to add what their analysis needs."""

    record: str = "open"
    kind: str
    gold: str
    predicted: str | None
    parsed: bool
    correct: bool
    completion: str = ""
    details: dict[str, JsonValue] = Field(default_factory=dict)


#: (turn, item, completion) -> the record of an open-ended answer; must never raise on model text
AnswerParser = Callable[["Turn", "Item", str], AnswerRecord]


def append_record(store: Store, record: AnswerRecord) -> None:
    """Add one record to the sample store (immediately, so errors later keep it)."""
    records: list[dict[str, Any]] = list(store.get(ANSWERS_KEY, []))
    records.append(record.model_dump(mode="json"))
    store.set(ANSWERS_KEY, records)


def stored_records(store: Store) -> Sequence[dict[str, Any]]:
    """The records a sample has so far (plain dicts, as written)."""
    records: list[dict[str, Any]] = store.get(ANSWERS_KEY, [])
    return records
