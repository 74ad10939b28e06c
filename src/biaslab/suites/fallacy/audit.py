"""An audit of the answer reader on real data: a few random answers of every reply kind, each
beside what it was read as, so a user can check the coder in a minute instead of trusting it.

The sample is seeded and drawn from the answers in a fixed order (model, item, epoch, turn), so
the same frame and seed give the same sample whatever order the frame came in.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from biaslab.suites.fallacy.reading import STATUSES

if TYPE_CHECKING:
    import pandas as pd

#: answers shown per reply kind in the report
REPORT_SAMPLE_SIZE = 5
REPORT_SEED = 0
_ORDER = ("model", "item_id", "epoch", "turn")
_MAX_TEXT = 240


class ReadingSample(BaseModel):
    """One sampled answer: its kind, the answer line (or the reply's end when it has none), what
    it was read as (the suite's English, else the view) and why it was not read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    model: str
    item_id: str
    answer: str
    read_as: str | None
    note: str | None


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    text = " ".join(str(value).split())
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 1] + "…"


def _sample(row: Mapping[Any, Any]) -> ReadingSample:
    answer = _text(row.get("sentence"))
    if not answer:
        completion = _text(str(row.get("completion") or "")[-_MAX_TEXT:])
        answer = f"(no answer line) …{completion}" if completion else "(empty reply)"
    return ReadingSample(
        kind=str(row.get("parse_status")),
        model=str(row.get("model")),
        item_id=str(row.get("item_id")),
        answer=answer,
        read_as=_text(row.get("read_as")) or _text(row.get("predicted")),
        note=_text(row.get("parse_error")),
    )


def sample_readings(frame: pd.DataFrame, n: int, seed: int) -> tuple[ReadingSample, ...]:
    """Up to ``n`` random answers of every reply kind present (the kinds in
    :data:`~biaslab.suites.fallacy.reading.STATUSES` order, then any other), seeded."""
    if n <= 0 or frame.empty or "parse_status" not in frame.columns:
        return ()
    keys = [c for c in _ORDER if c in frame.columns]
    data = frame.assign(parse_status=frame["parse_status"].fillna("unknown").astype(str))
    if keys:
        data = data.sort_values(keys, kind="stable", key=lambda s: s.astype(str))
    records = data.to_dict("records")
    present = {str(r["parse_status"]) for r in records}
    kinds = [k for k in STATUSES if k in present] + sorted(present - set(STATUSES))
    chosen: list[ReadingSample] = []
    for kind in kinds:
        rows = [r for r in records if r["parse_status"] == kind]
        rng = random.Random(f"fallacy-readings:{seed}:{kind}")
        picks = sorted(rng.sample(range(len(rows)), min(n, len(rows))))
        chosen.extend(_sample(rows[i]) for i in picks)
    return tuple(chosen)


def _cell(text: str | None) -> str:
    """Markdown table cell text: pipes escaped, nothing for a missing value."""
    return "—" if not text else text.replace("\\", "\\\\").replace("|", "\\|")


def readings_markdown(samples: tuple[ReadingSample, ...]) -> str:
    """The report section's table: kind, model, item, answer, read as, note."""
    lines = [
        "| kind | model | item | answer | read as | note |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        "| "
        + " | ".join(_cell(v) for v in (s.kind, s.model, s.item_id, s.answer, s.read_as, s.note))
        + " |"
        for s in samples
    ]
    return "\n".join(lines)


def show_readings(frame: pd.DataFrame, n: int, seed: int) -> str:
    """Plain text for a terminal: ``n`` random answers per reply kind with what each was read
    as (the function a ``--show-readings N`` option prints)."""
    samples = sample_readings(frame, n, seed)
    if not samples:
        return "no fallacy answers with a reading to show"
    lines: list[str] = []
    kind = ""
    for sample in samples:
        if sample.kind != kind:
            kind = sample.kind
            count = sum(s.kind == kind for s in samples)
            lines += ["", f"== {kind} ({count} shown) =="]
        lines.append(f"- [{sample.model} · {sample.item_id}] {sample.answer}")
        if sample.read_as:
            lines.append(f"    read as: {sample.read_as}")
        if sample.note:
            lines.append(f"    note: {sample.note}")
    return "\n".join(lines).lstrip("\n")
