"""Inspect logs -> one tidy row per answer, each answer counted once. Reads logs; never calls a model.

However the logs were produced — ``biaslab run`` twice, ``inspect eval`` into the same directory, a
retry, a killed process, two processes at once — answers are keyed by (run identity, item id,
epoch) (:mod:`biaslab.identity`), and each key keeps one sample: a finished sample beats an
unfinished one, then the one with more recorded answers, then the newest log (then the file name,
so the choice never depends on listing order). Rows are sorted by that identity, never by Inspect's
random run ids or by file order, so the same answers give the same frame.

Samples are read by a lean reader: the ``.eval`` zip's ``samples/*.json`` members parsed
(``pydantic_core.from_json``, twice as fast as ``json`` here) into the few fields the frame uses
(id, epoch, error, scores, store, metadata), and its ``header.json`` into the few fields of the
run's spec that identity and provenance read. Validating every message and event into Inspect's
models was most of the cost of reading (20k answers: several seconds) and the frame reads none of
them; the lean reader does not import Inspect at all (the import alone costs about 2.5 CPU-s),
only ``zipfile_zstd``, the package Inspect itself uses to read its zstd-compressed members.
Anything the lean reader does not understand — a ``.json`` log, a log format version other than
:data:`LEAN_LOG_VERSIONS`, a sample with fields Inspect would migrate, a member it cannot open, a
URL, a log without ``header.json`` (still running or killed) — is read by Inspect's reader
instead, whole (its ``exclude_fields`` option was measured slower here: it walks every sample with
a streaming JSON parser). Both give the same frame (``tests/test_frames.py``).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict
from pydantic_core import from_json

from biaslab.errors import BiaslabError
from biaslab.identity import generation_settings, roles_label, run_key
from biaslab.records import ANSWERS_KEY

#: where logs written before typed records kept the label conversation's turns
LEGACY_TURNS_KEY = "biaslab_turns"
#: Inspect log format versions whose sample members the lean reader parses itself
LEAN_LOG_VERSIONS = frozenset({2})
#: sample keys Inspect migrates on reading (older formats): such a log goes to Inspect's reader
_MIGRATED_SAMPLE_KEYS = ("score", "transcript")
#: whether sample members may be parsed around their transcript (decided once per process)
_SKIP_TRANSCRIPT: bool | None = None
IDENTITY_COLUMNS = ("suite", "model", "roles", "run_key", "seed", "item_id", "epoch")


class ProvenanceRow(BaseModel):
    """One log the analysis read: what it is and how many of its answers were used."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    status: str
    suite: str
    model: str
    roles: str
    seed: int | None
    preset: str | None
    run_key: str
    samples: int
    samples_total: int | None
    samples_used: int


@dataclass(frozen=True)
class _Candidate:
    rank: tuple[Any, ...]
    log_index: int
    sample: Any


@dataclass
class LogSet:
    """The biaslab logs at a path, with one sample kept per (run, item, epoch)."""

    logs: list[Any]
    files: list[str]
    chosen: dict[tuple[str, str, int], _Candidate]
    skipped: list[str] = field(default_factory=list)
    collapsed: list[str] = field(default_factory=list)
    provenance: list[ProvenanceRow] = field(default_factory=list)

    def suites(self) -> list[str]:
        return sorted({_suite(log) for log in self.logs})

    def samples(self, suite: str | None = None) -> Iterator[tuple[Any, Any]]:
        """(log, sample) for every kept sample, in identity order."""
        for key in sorted(self.chosen):
            candidate = self.chosen[key]
            log = self.logs[candidate.log_index]
            if suite is None or _suite(log) == suite:
                yield log, candidate.sample


def _suite(log: Any) -> str:
    return str((log.eval.metadata or {}).get("biaslab_suite", ""))


def is_url(path: Path | str) -> bool:
    """A log location Inspect reads through fsspec (``s3://bucket/logs``, ``file:///…``)."""
    return isinstance(path, str) and "://" in path


#: the names Inspect lists as ``.json`` logs (every ``.eval`` file is listed)
_JSON_LOG_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$")


def _log_files(path: Path | str) -> list[str]:
    if isinstance(path, str):
        if is_url(path):
            return _inspect_listing(path)
        path = Path(path)
    if not path.exists():
        raise BiaslabError(f"no such log file or directory: {path}")
    if path.is_dir():
        local = _local_listing(path)
        return _inspect_listing(str(path)) if local is None else local
    if path.suffix not in (".eval", ".json"):
        raise BiaslabError(f"{path} is not an Inspect log (.eval or .json) or a log directory")
    return [str(path)]


def _inspect_listing(location: str) -> list[str]:
    from inspect_ai.log import list_eval_logs

    return sorted(info.name for info in list_eval_logs(location, recursive=True))


def _local_listing(directory: Path) -> list[str] | None:
    """The logs Inspect's ``list_eval_logs`` lists in a local directory, named as it names them
    (``file://`` + absolute path), without importing Inspect; None when the tree holds a
    symbolic link (Inspect's listing decides how to follow it)."""
    names = []
    for root, dirs, files in os.walk(directory):
        for name in (*dirs, *files):
            if os.path.islink(os.path.join(root, name)):
                return None
        for name in files:
            if name.endswith(".eval") or _JSON_LOG_NAME.match(name):
                names.append("file://" + Path(os.path.abspath(os.path.join(root, name))).as_posix())
    return sorted(names)


def _read(file: str, lean: bool = True) -> Any:
    """A log with its samples: the lean reader where it understands the file, else Inspect's."""
    if lean:
        log = _read_lean(file)
        if log is not None:
            return log
    from inspect_ai.log import read_eval_log

    return read_eval_log(file)


@dataclass(frozen=True)
class _Error:
    message: str


@dataclass(frozen=True)
class _Score:
    metadata: dict[str, Any] | None


@dataclass(frozen=True)
class _Sample:
    """The fields of Inspect's ``EvalSample`` that the frame reads, as parsed from the log."""

    id: int | str
    epoch: int
    error: _Error | None
    scores: dict[str, _Score] | None
    store: dict[str, Any]
    metadata: dict[str, Any]


@dataclass(frozen=True)
class _Dataset:
    samples: int | None


@dataclass(frozen=True)
class _Spec:
    """The fields of Inspect's ``EvalSpec`` that identity and provenance read, as written in the
    log's ``header.json`` (plain dicts where Inspect has models: :mod:`biaslab.identity` takes
    both)."""

    model: str
    model_args: dict[str, Any]
    model_roles: dict[str, Any] | None
    model_generate_config: dict[str, Any]
    metadata: dict[str, Any] | None
    task_args: dict[str, Any]
    created: str
    dataset: _Dataset


@dataclass(frozen=True)
class _Log:
    """The fields of Inspect's ``EvalLog`` that the frame reads."""

    eval: Any
    status: str
    samples: list[_Sample]


def _dict_or_none(value: Any) -> bool:
    return value is None or isinstance(value, dict)


#: GenerateConfig fields Inspect reads back unchanged when they hold plain values; a header with any
#: other key (one a newer Inspect wrote, which the installed one drops, or ``reasoning_history`` as a
#: bool, which it rewrites) goes to Inspect's reader so the run identity is the one it would give
_PLAIN_GENERATE_KEYS = frozenset(
    {
        "max_retries", "timeout", "attempt_timeout", "max_connections", "system_message",
        "max_tokens", "top_p", "temperature", "stop_seqs", "best_of", "frequency_penalty",
        "presence_penalty", "seed", "top_k", "num_choices", "logprobs", "top_logprobs",
        "parallel_tool_calls", "internal_tools", "max_tool_output", "cache_prompt",
        "reasoning_effort", "reasoning_tokens", "reasoning_summary",
    }
)  # fmt: skip


def _plain_value(value: Any) -> bool:
    if isinstance(value, list):
        return all(isinstance(item, str) for item in value)
    return value is None or isinstance(value, bool | int | float | str)


def _plain_generate_config(config: Any) -> bool:
    """True when Inspect would read this generation config back exactly as written."""
    if config is None:
        return True
    return isinstance(config, dict) and all(
        key in _PLAIN_GENERATE_KEYS and _plain_value(value) for key, value in config.items()
    )


def _plain_roles(roles: Any) -> bool:
    if roles is None:
        return True
    return isinstance(roles, dict) and all(
        isinstance(role, dict) and _plain_generate_config(role.get("config"))
        for role in roles.values()
    )


def _utc_created(value: str) -> str | None:
    """``created`` as Inspect reads it back: converted to UTC (a time without a zone taken as
    UTC), so attempts compare alike whichever reader read them; None if it does not parse."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def _lean_header(raw: bytes) -> tuple[Any, str, _Spec] | None:
    """(format version, status, spec) from ``header.json``, or None when a field is not the
    shape Inspect writes (then Inspect's reader decides)."""
    data = json.loads(raw)
    spec = data.get("eval") if isinstance(data, dict) else None
    if not isinstance(spec, dict) or not isinstance(data.get("status"), str):
        return None
    dataset = spec.get("dataset")
    samples = dataset.get("samples") if isinstance(dataset, dict) else None
    if not isinstance(dataset, dict) or not (samples is None or isinstance(samples, int)):
        return None
    if not isinstance(spec.get("model"), str) or not isinstance(spec.get("created"), str):
        return None
    fields = ("model_args", "model_roles", "model_generate_config", "metadata", "task_args")
    if not all(_dict_or_none(spec.get(name)) for name in fields):
        return None
    created = _utc_created(spec["created"])
    plain = _plain_generate_config(spec.get("model_generate_config"))
    if created is None or not plain or not _plain_roles(spec.get("model_roles")):
        return None
    return (
        data.get("version"),
        data["status"],
        _Spec(
            model=spec["model"],
            model_args=spec.get("model_args") or {},
            model_roles=spec.get("model_roles"),
            model_generate_config=spec.get("model_generate_config") or {},
            metadata=spec.get("metadata"),
            task_args=spec.get("task_args") or {},
            created=created,
            dataset=_Dataset(samples),
        ),
    )


def _local_eval_file(file: str) -> Path | None:
    plain = file.removeprefix("file://")
    if is_url(plain) or not plain.endswith(".eval"):
        return None
    path = Path(plain)
    return path if path.is_file() else None


def _read_lean(file: str) -> _Log | None:
    """The log read by the lean reader, or None when it is one for Inspect's reader."""
    import zipfile

    global _SKIP_TRANSCRIPT
    path = _local_eval_file(file)
    if path is None:
        return None
    if _SKIP_TRANSCRIPT is None:
        _SKIP_TRANSCRIPT = _skippable_in_this_inspect()
    try:
        # Inspect's logs are zstd-compressed: ``zipfile_zstd`` (what Inspect imports for this on
        # Python < 3.14) teaches ``zipfile`` to read them; an unsupported member raises and
        # falls back below.
        if sys.version_info < (3, 14):
            import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401
        samples = []
        with zipfile.ZipFile(path) as archive:
            if "header.json" not in archive.NameToInfo:
                return None  # a log still being written (or killed): Inspect reads its journal
            header = _lean_header(archive.read("header.json"))
            if header is None or header[0] not in LEAN_LOG_VERSIONS:
                return None
            # a re-logged sample repeats its member name; the last one counts, as in Inspect
            for name in dict.fromkeys(archive.namelist()):
                if name.startswith("samples/") and name.endswith(".json"):
                    sample = _lean_sample(_sample_fields(archive.read(name)))
                    if sample is None:
                        return None
                    samples.append(sample)
    except Exception:  # anything unexpected: Inspect's reader decides (and reports) instead
        return None
    samples.sort(key=lambda s: (s.epoch, s.id if isinstance(s.id, str) else str(s.id).zfill(20)))
    return _Log(eval=header[2], status=header[1], samples=samples)


#: the top-level keys of a sample member that the lean reader skips without parsing: the
#: transcript, two thirds of a member's bytes, written between ``store`` and ``model_usage``
_SKIPPED_KEYS = ("events", "timelines")
_FRAME_KEYS = frozenset({"id", "epoch", "scores", "metadata", "store", "error", "score"})


def _skippable_in_this_inspect() -> bool:
    """Whether Inspect writes nothing the frame reads between ``events`` and ``model_usage``
    (members are written in the field order of its ``EvalSample``)."""
    fields = _inspect_sample_fields()
    if fields is None or "events" not in fields or "model_usage" not in fields:
        return False
    between = fields[fields.index("events") : fields.index("model_usage")]
    return set(between) == set(_SKIPPED_KEYS) and not _FRAME_KEYS & set(between)


def _inspect_sample_fields() -> list[str] | None:
    """The field order of the installed Inspect's ``EvalSample``, read from its source with
    ``ast`` (importing Inspect to ask its model costs about 2.5 CPU-s; parsing the one module,
    0.03 s); None when the class is not a plain ``BaseModel`` with annotated fields there."""
    import ast
    import importlib.util

    try:
        found = importlib.util.find_spec("inspect_ai")
        if found is None or not found.submodule_search_locations:
            return None
        source = Path(next(iter(found.submodule_search_locations))) / "log" / "_log.py"
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, ImportError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "EvalSample":
            if [ast.unparse(base) for base in node.bases] != ["BaseModel"]:
                return None
            return [
                statement.target.id
                for statement in node.body
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
            ]
    return None


def _sample_fields(raw: bytes) -> Any:
    """A sample member's top-level fields, parsing around its transcript where that is safe.

    The part before ``,"events":`` closed with ``}`` parses as an object only if that key sits
    at the top level (from inside a nested value the brackets would not balance); likewise the
    part from the last ``,"model_usage":`` opened with ``{``. Anything else (a key missing, a
    parse error, an Inspect whose field order differs) parses the whole member.
    """
    if _SKIP_TRANSCRIPT:
        head_end = raw.find(b',"events":')
        tail_start = raw.rfind(b',"model_usage":')
        if 0 < head_end < tail_start:
            try:
                head = from_json(raw[:head_end] + b"}")
                tail = from_json(b"{" + raw[tail_start + 1 :])
            except ValueError:
                pass
            else:
                if (
                    isinstance(head, dict)
                    and isinstance(tail, dict)
                    and not head.keys() & tail.keys()
                ):
                    return {**head, **tail}
    return from_json(raw)


def _lean_sample(data: Any) -> _Sample | None:
    """The frame's fields of one sample member, or None if it is not the shape Inspect writes."""
    if not isinstance(data, dict) or any(key in data for key in _MIGRATED_SAMPLE_KEYS):
        return None
    sample_id, epoch = data.get("id"), data.get("epoch")
    error, scores = data.get("error"), data.get("scores")
    store, metadata = data.get("store", {}), data.get("metadata", {})
    if not isinstance(sample_id, int | str) or isinstance(sample_id, bool):
        return None
    if not isinstance(epoch, int) or isinstance(epoch, bool):
        return None
    if not isinstance(store, dict) or not isinstance(metadata, dict):
        return None
    if error is not None and not (
        isinstance(error, dict) and isinstance(error.get("message"), str)
    ):
        return None
    if scores is not None and not (
        isinstance(scores, dict)
        and all(
            isinstance(s, dict) and isinstance(s.get("metadata"), dict | None)
            for s in scores.values()
        )
    ):
        return None
    return _Sample(
        id=sample_id,
        epoch=epoch,
        error=_Error(error["message"]) if error is not None else None,
        scores=None
        if scores is None
        else {name: _Score(score.get("metadata")) for name, score in scores.items()},
        store=store,
        metadata=metadata,
    )


def _display_name(file: str) -> str:
    return file.removeprefix("file://").rsplit("/", 1)[-1]


def records_of(sample: Any) -> list[dict[str, Any]]:
    """A sample's answer records: typed records, else the label conversation's legacy turns."""
    store = sample.store or {}
    if ANSWERS_KEY in store:
        return list(store[ANSWERS_KEY])
    score = next(iter((sample.scores or {}).values()), None)
    turns = (score.metadata or {}).get("turns") if score else None
    if turns is None:
        turns = store.get(LEGACY_TURNS_KEY, [])
    return [_legacy_turn(turn) for turn in turns]


def _legacy_turn(turn: dict[str, Any]) -> dict[str, Any]:
    data = {"record": "turn", **turn}
    data["turn"] = data.pop("index")
    data.pop("completion", None)
    return data


def _finished(sample: Any) -> bool:
    return sample.error is None and bool(sample.scores)


def read_log_set(path: Path | str, *, lean: bool = True) -> LogSet:
    """Read every biaslab log at ``path`` (a log file or a directory), skipping unreadable ones
    with a warning, and keep one sample per (run identity, item id, epoch). ``lean=False`` reads
    every log with Inspect's reader (the lean reader's reference)."""
    logs: list[Any] = []
    files: list[str] = []
    skipped: list[str] = []
    for file in _log_files(path):
        try:
            log = _read(file, lean)
        except Exception as exc:  # Inspect raises several types for unreadable logs
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if not is_url(path) and not Path(path).is_dir():
                raise BiaslabError(f"cannot read Inspect log {path}: {first[:200]}") from exc
            skipped.append(f"skipped unreadable log {_display_name(file)}: {first[:200]}")
            continue
        if _suite(log):
            logs.append(log)
            files.append(file)
    if not logs:
        extra = f" ({len(skipped)} unreadable; first: {skipped[0]})" if skipped else ""
        raise BiaslabError(f"no biaslab eval logs found at {path}{extra}")
    chosen: dict[tuple[str, str, int], _Candidate] = {}
    keys = [run_key(log.eval) for log in logs]
    for index, log in enumerate(logs):
        for sample in log.samples or []:
            rank = (
                _finished(sample),
                len(records_of(sample)),
                str(log.eval.created),
                _display_name(files[index]),
            )
            key = (keys[index], str(sample.id), int(sample.epoch))
            if key not in chosen or rank > chosen[key].rank:
                chosen[key] = _Candidate(rank=rank, log_index=index, sample=sample)
    log_set = LogSet(logs=logs, files=files, chosen=chosen, skipped=skipped)
    log_set.provenance = _provenance(log_set, keys)
    log_set.collapsed = _collapse_notes(log_set, keys)
    return log_set


def _provenance(log_set: LogSet, keys: list[str]) -> list[ProvenanceRow]:
    used = [0] * len(log_set.logs)
    for candidate in log_set.chosen.values():
        used[candidate.log_index] += 1
    rows = []
    for index, log in enumerate(log_set.logs):
        spec = log.eval
        rows.append(
            ProvenanceRow(
                file=_display_name(log_set.files[index]),
                status=str(log.status),
                suite=_suite(log),
                model=spec.model,
                roles=roles_label(spec.model_roles),
                seed=(spec.metadata or {}).get("biaslab_seed"),
                preset=(spec.task_args or {}).get("preset"),
                run_key=keys[index],
                samples=sum(1 for s in log.samples or [] if _finished(s)),
                samples_total=spec.dataset.samples,
                samples_used=used[index],
            )
        )
    return sorted(rows, key=lambda r: (r.suite, r.model, r.roles, r.seed or 0, r.run_key, r.file))


def _collapse_notes(log_set: LogSet, keys: list[str]) -> list[str]:
    """One line per run identity that more than one log holds."""
    notes = []
    by_key: dict[str, list[ProvenanceRow]] = {}
    for row in log_set.provenance:
        by_key.setdefault(row.run_key, []).append(row)
    for rows in by_key.values():
        if len(rows) < 2:
            continue
        read = sum(
            len(log_set.logs[i].samples or []) for i, k in enumerate(keys) if k == rows[0].run_key
        )
        kept = sum(r.samples_used for r in rows)
        sources = ", ".join(f"{r.samples_used} from {r.file}" for r in rows if r.samples_used)
        roles = f" ({rows[0].roles})" if rows[0].roles else ""
        notes.append(
            f"{len(rows)} logs of the same run collapsed ({rows[0].suite}, {rows[0].model}{roles}, "
            f"seed {rows[0].seed}): kept {kept} of {read} samples — {sources}"
        )
    return notes


def _flatten(prefix: str, data: dict[str, Any]) -> dict[str, Any]:
    return {f"{prefix}{key}": value for key, value in data.items() if not isinstance(value, dict)}


def answer_rows(log: Any, sample: Any) -> Iterable[dict[str, Any]]:
    """One row per answer record of a kept sample: identity, record fields, item and turn meta."""
    return _sample_rows(_log_identity(log), sample)


def _log_identity(log: Any) -> dict[str, Any]:
    """The identity columns every answer of ``log`` shares."""
    spec = log.eval
    return {
        "suite": _suite(log),
        "model": spec.model,
        "roles": roles_label(spec.model_roles),
        "run_key": run_key(spec),
        "generation": generation_settings(spec),
        "seed": (spec.metadata or {}).get("biaslab_seed"),
    }


def _sample_rows(shared: dict[str, Any], sample: Any) -> Iterator[dict[str, Any]]:
    identity = {**shared, "item_id": str(sample.id), "epoch": int(sample.epoch)}
    item = (sample.metadata or {}).get("item", {})
    turns = {turn["index"]: turn for turn in item.get("turns", [])}
    item_meta = _flatten("item_", item.get("meta", {}))
    error = sample.error.message if sample.error else None
    for record in records_of(sample):
        row: dict[str, Any] = dict(identity)
        row.update({k: v for k, v in record.items() if k not in identity})
        row["sample_error"] = error
        row.update(item_meta)
        row.update(_flatten("", turns.get(record.get("turn", 0), {}).get("meta", {})))
        yield row


def answer_frame(log_set: LogSet, suite: str | None = None) -> pd.DataFrame:
    """The tidy frame: one row per answer, sorted by identity, each answer once."""
    identities: dict[int, dict[str, Any]] = {}  # a log's identity, computed once per log
    rows: list[dict[str, Any]] = []
    for log, sample in log_set.samples(suite):
        shared = identities.get(id(log))
        if shared is None:
            shared = identities[id(log)] = _log_identity(log)
        rows.extend(_sample_rows(shared, sample))
    frame = pd.DataFrame(rows)
    if frame.empty:
        raise BiaslabError("the logs contain no answers")
    return frame


def frame_at(path: Path | str, suite: str | None = None, *, lean: bool = True) -> pd.DataFrame:
    """Shortcut: the tidy frame of every biaslab log at ``path``."""
    return answer_frame(read_log_set(path, lean=lean), suite)
