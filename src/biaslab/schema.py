"""Records written to disk. Every file carries ``schema_version`` so old files fail loudly, not subtly.

An :class:`Item` is one sample of an evaluation: a (possibly multi-turn) conversation in which every
:class:`Turn` is a user message that expects one answer with a formally computed gold. A turn either
allows a fixed set of labels (read by the shared parser) or is open-ended and names the suite parser
that reads it. Single-turn suites simply have one turn. Suite-specific facts live in ``meta``
dictionaries so the shared layer never needs to know a suite's internals.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from biaslab.errors import BiaslabError

SCHEMA_VERSION = 2
#: versions this biaslab reads (1 had no open-ended turns: every file of version 1 is valid 2)
READABLE_SCHEMA_VERSIONS = (1, 2)
#: why a JSON text with an integer literal longer than Python's ``int()`` converts is unreadable
#: (``json`` raises a plain ``ValueError`` for it, not ``JSONDecodeError``)
TOO_MANY_DIGITS = "a number with more digits than can be read"


class Record(BaseModel):
    """Base for on-disk records: immutable, no unknown keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Turn(Record):
    """One user message and the single answer it asks for."""

    index: int = Field(ge=0)
    prompt: str
    kind: str = Field(description="question kind, e.g. 'entailment' or 'effect'")
    labels: tuple[str, ...] | None = Field(
        default=None, description="the answer labels the question allows (None: open-ended)"
    )
    parser: str | None = Field(
        default=None, description="the suite parser that reads an open-ended answer"
    )
    synonyms: dict[str, str] = Field(
        default_factory=dict,
        description="other wordings of a label the reply may use (phrase -> label), e.g. "
        "'not necessarily' -> 'no'; read by the shared parser",
    )
    gold: str
    # JSON values by contract, not checked one by one here: a turn's meta comes from a generator
    # (each suite's tests check its turns' meta is JSON) or from a parsed file, and pydantic's
    # ``JsonValue`` check was 60% of building a turn (the canonical defeasible set builds 26,600)
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _labels_or_parser(self) -> Turn:
        if (self.labels is None) == (self.parser is None):
            raise ValueError(
                "a turn has either labels or a parser (open-ended), not both or neither"
            )
        unknown = sorted(set(self.synonyms.values()) - set(self.labels or ()))
        if unknown:
            raise ValueError(f"synonyms must map to the turn's labels; not a label: {unknown}")
        return self

    @model_serializer(mode="wrap")
    def _without_empty_synonyms(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A turn without synonyms is written as before they existed, so files stay byte-identical."""
        data: dict[str, Any] = handler(self)
        if not data.get("synonyms"):
            data.pop("synonyms", None)
        return data


class Item(Record):
    """One sample: a system prompt and the turns, in the order they are asked."""

    schema_version: int = SCHEMA_VERSION
    suite: str
    id: str
    system: str | None = None
    turns: tuple[Turn, ...]
    meta: dict[str, JsonValue] = Field(default_factory=dict)


class RejectedRow(Record):
    """A row of an imported file that made no item, and why (its line, or for a JSON file its
    record's position from 1, and, if it has one, id)."""

    line: int
    id: str | None = None
    reason: str


class ItemList(list[Item]):
    """Items made from someone else's file: besides the items, the rows that made none
    (``rejected_rows``), one summary line and any further detail the import reports (``notes``,
    e.g. where the file's labels differ from ours); ``biaslab generate`` writes rows and notes into
    the sidecar and prints the line."""

    def __init__(
        self,
        items: Iterable[Item] = (),
        rejected_rows: Sequence[RejectedRow] = (),
        summary: str | None = None,
        notes: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(items)
        self.rejected_rows = list(rejected_rows)
        self.summary = summary
        self.notes = dict(notes or {})


class GenerationMeta(Record):
    """What is needed to regenerate a file of items byte for byte."""

    schema_version: int = SCHEMA_VERSION
    suite: str
    generator_version: str
    seed: int
    config: dict[str, JsonValue]
    n_items: int
    #: rows of an imported file that made no item (None: nothing was imported, or all was used)
    rejected_rows: list[RejectedRow] | None = None
    notes: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="what an import reported beside its items and rejected rows (key -> detail), "
        "e.g. where a file's labels differ from ours",
    )

    @model_serializer(mode="wrap")
    def _without_import_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Sidecars of generated sets are written as before these fields existed."""
        data: dict[str, Any] = handler(self)
        if data.get("rejected_rows") is None:
            data.pop("rejected_rows", None)
        if not data.get("notes"):
            data.pop("notes", None)
        return data


def dumps_sorted(data: Any) -> str:
    """Canonical JSON: sorted keys, no ASCII escaping, so equal data gives equal bytes."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def meta_path(items_path: Path) -> Path:
    """``a.jsonl`` -> ``a.meta.json``: the sidecar holding seed, version and resolved config."""
    return items_path.with_name(items_path.stem + ".meta.json")


def write_items(path: Path, items: Sequence[Item], meta: GenerationMeta) -> None:
    """Write items as JSONL (one sorted-key object per line) and the metadata sidecar."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            for item in items:
                handle.write(dumps_sorted(item.model_dump(mode="json")) + "\n")
        meta_path(path).write_text(
            json.dumps(meta.model_dump(mode="json"), sort_keys=True, indent=2) + "\n",
            encoding="utf-8",
        )
    except OSError as exc:
        raise BiaslabError(f"cannot write {path}: {exc.strerror or exc}") from exc


def read_items(path: Path) -> list[Item]:
    """Read a JSONL file of items, naming the line of the first malformed record."""
    try:
        # "\n" only: write_items leaves U+2028 and the like unescaped, and splitlines splits there
        lines = path.read_text(encoding="utf-8").split("\n")
    except OSError as exc:
        raise BiaslabError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise BiaslabError(f"cannot read {path}: not UTF-8 text") from exc
    return list(_parse_item_lines(path, lines))


def read_generation_meta(items_path: Path) -> GenerationMeta:
    """The ``*.meta.json`` sidecar of an items file (seed, generator version, resolved config)."""
    path = meta_path(items_path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BiaslabError(
            f"{path} is missing: it holds the seed, generator version and config of {items_path}"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BiaslabError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    except json.JSONDecodeError as exc:
        raise BiaslabError(f"{path}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("schema_version") not in READABLE_SCHEMA_VERSIONS:
        raise BiaslabError(f"{path}: not a biaslab generation sidecar of a supported version")
    data["schema_version"] = SCHEMA_VERSION
    try:
        return GenerationMeta.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BiaslabError(f"{path}: {where}: {first['msg']}") from None


#: what :func:`jsonl_objects` tells ``unreadable`` of a line it skips: (line number, reason, detail)
Unreadable = Callable[[int, str, str], None]


def jsonl_objects(
    lines: Iterable[str], where: Callable[[int], str], unreadable: Unreadable | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of JSON-lines text. A line that is not JSON,
    or not a JSON object, is a one-line error that starts with ``where(line number)`` (our own
    files: one bad line means the file is not what we wrote); given ``unreadable``, it is reported
    there instead and skipped (other people's files, where one bad line must not cost the rest),
    as is an object that gives a key twice (our own files are written from dicts: no such check,
    which would slow reading them)."""
    hook = None if unreadable is None else json_object
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line, object_pairs_hook=hook)
        except ValueError as exc:  # JSONDecodeError, or an integer longer than int() converts
            message = exc.msg if isinstance(exc, json.JSONDecodeError) else TOO_MANY_DIGITS
            if unreadable is None:
                raise BiaslabError(f"{where(number)}: not valid JSON ({message})") from None
            unreadable(number, "not valid JSON", message)
            continue
        if not isinstance(data, dict):
            if unreadable is None:
                raise BiaslabError(f"{where(number)}: expected a JSON object")
            unreadable(number, "not a JSON object", f"a JSON {json_kind(data)}")
            continue
        twice = keys_given_twice(data)
        if twice and unreadable is not None:
            unreadable(number, "with a key given twice", ", ".join(twice))
            continue
        yield number, data


class _KeysTwice(dict[str, Any]):
    """A JSON object in which a key stood more than once (``twice`` names them)."""

    twice: tuple[str, ...] = ()


def json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :func:`json.loads` that marks an object whose keys repeat:
    ``json`` itself keeps the last value silently, and which value was meant cannot be known."""
    data = dict(pairs)
    if len(data) == len(pairs):
        return data
    names = [key for key, _ in pairs]
    marked = _KeysTwice(data)
    marked.twice = tuple(sorted({key for key in names if names.count(key) > 1}))
    return marked


def keys_given_twice(data: Any) -> tuple[str, ...]:
    """The keys that stood twice in a JSON object read with :func:`json_object` (top level)."""
    return data.twice if isinstance(data, _KeysTwice) else ()


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in JSON's own words (for saying why it is not an object)."""
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    return "null" if value is None else "number"


def _parse_item_lines(path: Path, lines: Iterable[str]) -> Iterable[Item]:
    for number, data in jsonl_objects(lines, lambda number: f"{path}:{number}"):
        version = data.get("schema_version")
        if version not in READABLE_SCHEMA_VERSIONS:
            raise BiaslabError(
                f"{path}:{number}: schema_version {version!r} is not supported "
                f"(this biaslab reads versions {', '.join(map(str, READABLE_SCHEMA_VERSIONS))})"
            )
        data["schema_version"] = SCHEMA_VERSION
        try:
            yield Item.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise BiaslabError(f"{path}:{number}: {where}: {first['msg']}") from exc
