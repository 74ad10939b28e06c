"""lm-evaluation-harness ``--log_samples`` output -> the suites' answer tables -> their importers.

The harness writes, per model, ``samples_<task>_<date>.jsonl`` (one JSON object per document:
``doc``, ``resps``, ``filtered_resps``, ``arguments``, …) beside ``results_<date>.json`` (which
names the model). A document written by ``biaslab export --format lm-eval`` carries its whole item,
so each raw reply (``resps``, never the harness's filtered text) is read here with the suite's own
answer parser, exactly as a biaslab run reads it, and put into the columns the suite's answers
importer reads. The importer then checks the table and gives the same frame a run's logs give.

Other people's output is taken as it comes: a line that is not JSON, a document that biaslab did
not write, a reply that is not text — each is counted and reported, never fatal. Only the newest
run of a task per model folder is read (older ones are listed as skipped), because a rerun of the
same documents would otherwise be the same answers twice.
"""

from __future__ import annotations

import csv
import json
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from biaslab.errors import BiaslabError
from biaslab.frames import ProvenanceRow
from biaslab.schema import Item, dumps_sorted

SAMPLES_FILE = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")
#: the answers importers' columns, per suite whose items can be a harness task
FALLACY_COLUMNS = ("model", "problem_id", "answer", "order", "epoch")


@dataclass(frozen=True)
class HarnessAnswer:
    """One reply the harness logged, joined to the item it answers."""

    model: str
    item: Item
    seed: int | None
    epoch: int
    completion: str


@dataclass
class HarnessRead:
    """Every usable reply at a path, with what was read and what was not."""

    answers: list[HarnessAnswer] = field(default_factory=list)
    provenance: list[ProvenanceRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# finding the harness's files
# --------------------------------------------------------------------------------------------------


def _looks_like_samples(path: Path) -> bool:
    """A ``samples_*.jsonl`` file whose first line is a harness sample (``doc_id``, ``resps``)."""
    if not path.name.startswith("samples_") or path.suffix != ".jsonl":
        return False
    try:
        with path.open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
        data = json.loads(first)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and "doc_id" in data and "resps" in data


def samples_files(path: Path) -> list[Path]:
    """The harness sample files at ``path`` (a file, or a folder searched recursively)."""
    if path.is_file():
        return [path] if _looks_like_samples(path) else []
    if path.is_dir():
        return [p for p in sorted(path.rglob("samples_*.jsonl")) if _looks_like_samples(p)]
    return []


def is_harness_output(path: Path | str) -> bool:
    """Whether ``path`` is lm-evaluation-harness ``--log_samples`` output (not Inspect logs)."""
    if isinstance(path, str) and "://" in path:
        return False
    return bool(samples_files(Path(path)))


def _newest_per_task(files: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """The newest samples file per (folder, task); the others as notes. Files not named the
    harness's way are each their own run."""
    newest: dict[tuple[Path, str], tuple[str, Path]] = {}
    kept: list[Path] = []
    for file in files:
        match = SAMPLES_FILE.match(file.name)
        if match is None:
            kept.append(file)
            continue
        key = (file.parent, match["task"])
        if key not in newest or match["date"] > newest[key][0]:
            newest[key] = (match["date"], file)
    chosen = {file for _, file in newest.values()}
    notes = [
        f"skipped {file}: an older lm-eval run of the same task in the same folder"
        for file in files
        if SAMPLES_FILE.match(file.name) and file not in chosen
    ]
    return sorted([*kept, *chosen]), notes


def harness_model(samples: Path) -> str:
    """The model's name: ``model_name`` of the ``results_<date>.json`` beside the samples, else
    its ``config.model`` and arguments, else the folder's name (the harness names it after the
    model)."""
    match = SAMPLES_FILE.match(samples.name)
    results = samples.with_name(f"results_{match['date']}.json") if match else None
    if results is not None and results.is_file():
        try:
            data = json.loads(results.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            data = None
        if isinstance(data, dict):
            if isinstance(data.get("model_name"), str) and data["model_name"]:
                return str(data["model_name"])
            config = data.get("config")
            if isinstance(config, dict) and isinstance(config.get("model"), str):
                args = config.get("model_args")
                return f"{config['model']}({args})" if args else str(config["model"])
    return samples.parent.name


# --------------------------------------------------------------------------------------------------
# reading the samples
# --------------------------------------------------------------------------------------------------


def read_harness(path: Path) -> HarnessRead:
    files, notes = _newest_per_task(samples_files(path))
    read = HarnessRead(notes=notes)
    for file in files:
        model = harness_model(file)
        unusable: Counter[str] = Counter()
        answers, total = _file_answers(file, model, unusable)
        read.answers.extend(answers)
        read.provenance.extend(_provenance(file, model, answers, total))
        for reason, count in sorted(unusable.items()):
            read.notes.append(f"{file.name}: {count} line(s) not used: {reason}")
    return read


def _file_answers(
    file: Path, model: str, unusable: Counter[str]
) -> tuple[list[HarnessAnswer], int]:
    answers: list[HarnessAnswer] = []
    seen: set[Any] = set()
    total = 0
    for data in _json_lines(file, unusable):
        doc_id = data.get("doc_id")
        if doc_id in seen and doc_id is not None:
            continue  # the same document again under another of the task's filters
        seen.add(doc_id)
        total += 1
        answers.extend(_sample_answers(data, model, unusable))
    return answers, total


def _json_lines(file: Path, unusable: Counter[str]) -> Iterator[dict[str, Any]]:
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise BiaslabError(f"{file}: not UTF-8 text") from None
    except OSError as exc:
        raise BiaslabError(f"cannot read {file}: {exc.strerror or exc}") from None
    for line in lines:
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            unusable["not valid JSON"] += 1
            continue
        if not isinstance(data, dict):
            unusable["not a JSON object"] += 1
            continue
        yield data


def _sample_answers(
    data: dict[str, Any], model: str, unusable: Counter[str]
) -> list[HarnessAnswer]:
    """The replies of one logged document (one per repeat, as epochs 1, 2, …)."""
    doc = data.get("doc")
    if not isinstance(doc, dict) or not isinstance(doc.get("item"), str):
        unusable["not a document written by biaslab export"] += 1
        return []
    try:
        item = Item.model_validate_json(doc["item"])
    except ValidationError:
        unusable["the document's item is not a valid biaslab item"] += 1
        return []
    replies = _replies(data.get("resps"))
    if replies is None:
        unusable["no replies (resps) logged"] += 1
        return []
    seed = doc.get("seed") if isinstance(doc.get("seed"), int) else None
    return [
        # a reply that is not text is kept as an empty reply: recorded as unparsed
        HarnessAnswer(model, item, seed, epoch, reply if isinstance(reply, str) else "")
        for epoch, reply in enumerate(replies, start=1)
    ]


def _replies(resps: Any) -> list[Any] | None:
    """``resps`` is one list of replies per request; a generate_until document has one request,
    whose list holds one reply per repeat."""
    if not isinstance(resps, list) or not resps:
        return None
    first = resps[0]
    replies = first if isinstance(first, list) else [first]
    return replies or None


def _provenance(
    file: Path, model: str, answers: Sequence[HarnessAnswer], total: int
) -> list[ProvenanceRow]:
    match = SAMPLES_FILE.match(file.name)
    task = match["task"] if match else file.stem
    by_suite = Counter(answer.item.suite for answer in answers if answer.epoch == 1)
    seeds = {answer.item.suite: answer.seed for answer in answers}
    return [
        ProvenanceRow(
            file=file.name,
            status="lm-eval samples",
            suite=suite,
            model=model,
            roles="",
            seed=seeds[suite],
            preset=None,
            run_key=f"lm-eval:{task}:{match['date'] if match else ''}",
            samples=used,
            samples_total=total,
            samples_used=used,
        )
        for suite, used in sorted(by_suite.items())
    ]


# --------------------------------------------------------------------------------------------------
# the importers' tables
# --------------------------------------------------------------------------------------------------


def tokenbias_table(answers: Sequence[HarnessAnswer]) -> list[dict[str, Any]]:
    """Token-bias replies as the suite's long answer table: each reply read by the shared label
    parser (the run's own reading), then the suite's own mapping from item metadata to columns."""
    import pandas as pd

    from biaslab.suites.tokenbias.external import long_answers, to_records
    from biaslab.tasks import turn_record

    rows = []
    for answer in answers:
        record = turn_record(answer.item.turns[0], answer.completion, None)
        rows.append(
            {
                "model": answer.model,
                "seed": answer.seed,
                "epoch": answer.epoch,
                "correct": record.correct,
                "parsed": record.parsed,
                **{f"item_{k}": v for k, v in answer.item.meta.items() if not isinstance(v, dict)},
            }
        )
    return to_records(long_answers(pd.DataFrame(rows)))


def fallacy_table(answers: Sequence[HarnessAnswer]) -> list[dict[str, Any]]:
    """Fallacy replies in the columns of the fallacy answers importer
    (``model, problem_id, answer, order, epoch``): the whole reply, which the importer reads with
    the suite's conclusion parser."""
    return [
        {
            "model": answer.model,
            "problem_id": answer.item.meta.get("problem_id", answer.item.id),
            "answer": answer.completion,
            "order": answer.item.meta.get("order", ""),
            "epoch": answer.epoch,
        }
        for answer in answers
    ]


TABLES: dict[str, Callable[[Sequence[HarnessAnswer]], list[dict[str, Any]]]] = {
    "tokenbias": tokenbias_table,
    "fallacy": fallacy_table,
}


def write_table(rows: Sequence[dict[str, Any]], path: Path) -> None:
    """A table as CSV: booleans as ``true``/``false``, missing values empty."""

    def cell(value: Any) -> Any:
        if isinstance(value, bool):
            return "true" if value else "false"
        return "" if value is None else value

    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: cell(v) for k, v in row.items()} for row in rows)


def write_item_lines(path: Path, items: Iterable[Item]) -> None:
    """Items as JSON lines (sorted keys), in id order: what ``--problems`` reads."""
    lines = [
        dumps_sorted(item.model_dump(mode="json")) for item in sorted(items, key=lambda i: i.id)
    ]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def analyse_harness(
    path: Path, suite: str | None = None
) -> tuple[dict[str, BaseModel], list[ProvenanceRow], list[str]]:
    """Each suite's results from the harness output at ``path`` (with ``suite``: that suite
    only), the files read and the notes; through the suites' answer importers."""
    from biaslab.suites.registry import get_suite

    read = read_harness(path)
    notes = list(read.notes)
    by_suite: dict[str, list[HarnessAnswer]] = {}
    for answer in read.answers:
        by_suite.setdefault(answer.item.suite, []).append(answer)
    results: dict[str, BaseModel] = {}
    for name, answers in sorted(by_suite.items()):
        if suite is not None and name != suite:
            continue
        table = TABLES.get(name)
        chosen = get_suite(name)
        if table is None or chosen.read_answers is None:
            notes.append(
                f"skipped {len(answers)} {name} answer(s): this biaslab has no {name} answers "
                "importer to read them through"
            )
            continue
        with tempfile.TemporaryDirectory(prefix="biaslab-lm-eval-") as folder:
            answers_file = Path(folder) / f"lm-eval-{name}-answers.csv"
            write_table(table(answers), answers_file)
            if chosen.answers_need_problems:  # the items travel inside the harness's documents
                problems = Path(folder) / f"lm-eval-{name}-items.jsonl"
                write_item_lines(problems, {a.item.id: a.item for a in answers}.values())
                frame = chosen.read_answers(answers_file, problems)
            else:
                frame = chosen.read_answers(answers_file)
            notes.extend(str(note) for note in frame.attrs.get("notes", []))
            results[name] = chosen.analyze(frame)
    if not results:
        wanted = f"{suite} " if suite else ""
        why = f" ({notes[-1]})" if notes else ""
        raise BiaslabError(
            f"no {wanted}answers that biaslab can analyse in the lm-eval output at {path}{why}"
        )
    provenance = [row for row in read.provenance if row.suite in results]
    return results, provenance, notes
