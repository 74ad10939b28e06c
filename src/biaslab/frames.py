"""Inspect logs -> one tidy row per answered turn. Reads logs only; never calls a model."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from biaslab.errors import BiaslabError


def read_logs(path: Path) -> list[EvalLog]:
    """Every biaslab eval log at ``path`` (a log file or a directory of them)."""
    if not path.exists():
        raise BiaslabError(f"no such log file or directory: {path}")
    if path.is_dir():
        files = [info.name for info in list_eval_logs(str(path), recursive=True)]
    else:
        files = [str(path)]
    logs: list[EvalLog] = []
    for file in sorted(files):
        try:
            log = read_eval_log(file)
        except Exception as exc:  # Inspect raises several types for unreadable logs
            raise BiaslabError(f"cannot read Inspect log {file}: {exc}") from exc
        if (log.eval.metadata or {}).get("biaslab_suite"):
            logs.append(log)
    if not logs:
        raise BiaslabError(f"no biaslab eval logs found at {path}")
    return latest_attempts(logs)


def latest_attempts(logs: list[EvalLog]) -> list[EvalLog]:
    """Drop logs superseded by a retry: a resumed run keeps its task id and carries the samples the
    failed attempt had finished, so counting both would count those samples twice."""
    latest: dict[tuple[str, str], EvalLog] = {}
    for log in logs:
        key = (log.eval.task_id, log.eval.model)
        if key not in latest or log.eval.created > latest[key].eval.created:
            latest[key] = log
    return [log for log in logs if latest[(log.eval.task_id, log.eval.model)] is log]


def _flatten(prefix: str, data: dict[str, Any]) -> dict[str, Any]:
    return {f"{prefix}{key}": value for key, value in data.items() if not isinstance(value, dict)}


def turn_rows(log: EvalLog) -> Iterable[dict[str, Any]]:
    suite = (log.eval.metadata or {}).get("biaslab_suite")
    for sample in log.samples or []:
        item = sample.metadata.get("item", {})
        score = next(iter((sample.scores or {}).values()), None)
        records = (score.metadata or {}).get("turns") if score else None
        if records is None:  # errored sample: the solver's store still has what was answered
            records = sample.store.get("biaslab_turns", [])
        turns = {turn["index"]: turn for turn in item.get("turns", [])}
        for record in records:
            turn = turns.get(record["index"], {})
            row: dict[str, Any] = {
                "model": log.eval.model,
                "suite": suite,
                "run_id": log.eval.run_id,
                "item_id": sample.id,
                "turn": record["index"],
                "kind": record["kind"],
                "gold": record["gold"],
                "predicted": record["predicted"],
                "parsed": record["parsed"],
                "correct": record["correct"],
                "label_probs": record.get("label_probs"),
                "sample_error": sample.error.message if sample.error else None,
            }
            row.update(_flatten("item_", item.get("meta", {})))
            row.update(_flatten("", turn.get("meta", {})))
            yield row


def turn_frame(logs: Iterable[EvalLog]) -> pd.DataFrame:
    rows = [row for log in logs for row in turn_rows(log)]
    frame = pd.DataFrame(rows)
    if frame.empty:
        raise BiaslabError("the logs contain no answered turns")
    return frame


def logs_by_suite(logs: Iterable[EvalLog]) -> dict[str, list[EvalLog]]:
    grouped: dict[str, list[EvalLog]] = {}
    for log in logs:
        grouped.setdefault(str((log.eval.metadata or {})["biaslab_suite"]), []).append(log)
    return grouped
