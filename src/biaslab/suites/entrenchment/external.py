"""Belief trajectories computed elsewhere (another pipeline, the paper's own) as the suite's tidy
frame, so ``biaslab analyze BELIEFS.csv --suite entrenchment`` gives the same analysis as a run.

One row per belief::

    model,question_id,step,belief[,replicate,construct,truth,setup]

``step`` is 0 for the belief before any reasoning and k after step k; ``belief`` is P(yes) in
[0, 1]. Optional: ``replicate`` (an integer ≥ 0; two replicates give M_IV), ``construct`` (how the
belief was measured, e.g. ``judge`` or ``self_report``; default ``judge``; constructs are never
pooled), ``truth`` (the question's outcome, 0/1 or true/false: gives the Brier scores) and
``setup`` (a free label such as ``forecasting/cot/critical``: setups are never pooled). Other
columns are ignored. ``.csv`` files (UTF-8, with or without a byte-order mark) have a header row;
``.jsonl`` files hold one JSON object per line.

Files are taken as they come: a row whose belief is empty or unreadable is kept as an unparsed
belief (it drops the pairs it ends, as in a run); a row that cannot be placed (no model or question,
a step or replicate that is not a whole number, a truth that is not 0/1) is left out and counted by
reason in the results' decisions. Only a file with no usable row, a missing column, malformed JSON
or two different beliefs for one (model, setup, construct, question, replicate, step) is an error.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biaslab.errors import BiaslabError
from biaslab.rows import read_rows
from biaslab.suites.entrenchment.beliefs import EMPTY, NOT_NUMBER, OUT_OF_RANGE

if TYPE_CHECKING:
    import pandas as pd

REQUIRED = ("model", "question_id", "step", "belief")
OPTIONAL = ("replicate", "construct", "truth", "setup")
EXAMPLE = (
    '{"model": "gpt-4o", "question_id": "q17", "step": 0, "belief": 0.42, "replicate": 0, '
    '"construct": "judge", "truth": 1, "setup": "forecasting/cot"}'
)
#: what the analysis writes in place of the judge baseline for imported beliefs
NO_BASELINE = "beliefs read from a file: no judge baseline was run"
_TRUE, _FALSE = {"1", "true", "yes"}, {"0", "false", "no"}
#: the trajectory a belief belongs to, and the belief's place in it
_KEY = ("model", "setup", "construct", "question_id", "replicate")


def read_beliefs_file(path: Path) -> pd.DataFrame:
    """A ``.csv`` or ``.jsonl`` file of beliefs -> the tidy frame the analysis reads (one
    ``belief`` record per row); ``frame.attrs["import"]`` says what was read and left out."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    rejected: Counter[str] = Counter()
    seen: dict[tuple[Any, ...], tuple[int, float | None]] = {}
    duplicates = 0
    example = json.loads(EXAMPLE)
    for number, raw in read_rows(path, REQUIRED, example=example):
        row, problem = _row(raw)
        if row is None:
            rejected[str(problem)] += 1
            continue
        key = (*(row[k] for k in _KEY), row["step"])
        if key in seen:
            first, value = seen[key]
            if value != row["belief"]:
                raise BiaslabError(
                    f"{path.name} lines {first} and {number}: two beliefs ({value}, "
                    f"{row['belief']}) for model {row['model']!r}, question "
                    f"{row['question_id']!r}, step {row['step']}"
                )
            duplicates += 1
            continue
        seen[key] = (number, row["belief"])
        rows.append(row)
    if not rows:
        why = f" ({_reasons(rejected)})" if rejected else ""
        raise BiaslabError(f"{path.name}: no usable belief rows{why}; a row looks like {EXAMPLE}")
    frame = _frame(pd.DataFrame(rows), path.name)
    frame.attrs["import"] = _summary(path.name, len(rows), rejected, duplicates)
    return frame


def _reasons(rejected: Counter[str]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in sorted(rejected.items()))


def _summary(name: str, used: int, rejected: Counter[str], duplicates: int) -> str:
    text = f"{used} belief rows read from {name}"
    if rejected:
        text += f"; {sum(rejected.values())} rows left out ({_reasons(rejected)})"
    if duplicates:
        text += f"; {duplicates} repeated rows (same belief) counted once"
    return text + f"; {NO_BASELINE}"


def _row(raw: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """One row's values, or None and why it cannot be placed."""
    model, question = _text(raw.get("model")), _text(raw.get("question_id"))
    if not model:
        return None, "without a model"
    if not question:
        return None, "without a question_id"
    step = _whole(raw.get("step"))
    if step is None:
        return None, "with a step that is not a whole number ≥ 0"
    replicate = _whole(raw.get("replicate"), default=0)
    if replicate is None:
        return None, "with a replicate that is not a whole number ≥ 0"
    truth = _truth(raw.get("truth"))
    if truth == "bad":
        return None, "with a truth that is not 0/1"
    belief, error = _belief(raw.get("belief"))
    return {
        "model": model,
        "question_id": question,
        "step": step,
        "replicate": replicate,
        "construct": _text(raw.get("construct")) or "judge",
        "setup": _text(raw.get("setup")),
        "truth": truth,
        "belief": belief,
        "error": error,
    }, None


def _text(value: Any) -> str:
    if value is None or isinstance(value, bool | dict | list):
        return ""
    if isinstance(value, float):
        return f"{value:g}" if math.isfinite(value) else ""
    return str(value).strip()


def _whole(value: Any, default: int | None = None) -> int | None:
    """A whole number ≥ 0 (``3``, ``"3"``, ``3.0``); ``default`` when absent or empty."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() and number >= 0 else None


def _truth(value: Any) -> int | str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip().lower()
    if isinstance(value, bool):
        return int(value)
    if text in _TRUE or text in ("1.0",):
        return 1
    if text in _FALSE or text in ("0.0",):
        return 0
    return "bad"


def _belief(value: Any) -> tuple[float | None, str | None]:
    """A probability in [0, 1], or None and the reason (kinds of :mod:`.beliefs`); never
    rescaled: a 70 in a belief column is out of range, not 70%."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, f"{EMPTY}: no belief in the file"
    if isinstance(value, bool):
        return None, f"{NOT_NUMBER}: {value!r}"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None, f"{NOT_NUMBER}: {str(value)[:40]!r}"
    if not (math.isfinite(number) and 0.0 <= number <= 1.0):
        return None, f"{OUT_OF_RANGE}: {number:g} is not in [0, 1]"
    return number, None


def _frame(rows: pd.DataFrame, name: str) -> pd.DataFrame:
    """The rows as the analysis reads a run's records: every trajectory is (model, setup,
    construct, question); its length is its last step over all replicates."""
    import pandas as pd

    truths = rows.dropna(subset=["truth"]).groupby(["question_id"])["truth"].nunique()
    if (truths > 1).any():
        question = truths[truths > 1].index[0]
        raise BiaslabError(f"{name}: question {question!r} is given two different truths")
    outcome = rows.groupby("question_id")["truth"].transform("first")
    length = rows.groupby(["model", "setup", "construct", "question_id"])["step"].transform("max")
    return pd.DataFrame(
        {
            "suite": "entrenchment",
            "record": "belief",
            "model": rows["model"],
            "judge": "",
            "run_key": name,
            "item_id": rows["question_id"],
            "epoch": 1,
            "question": rows["question_id"],
            "source": "model",
            "domain": rows["setup"],
            "mode": "",
            "system_prompt": "",
            "belief_construct": rows["construct"],
            "judge_mode": "",
            "replicate": rows["replicate"],
            "step": rows["step"],
            "n_steps": length,
            "belief": rows["belief"],
            "parsed": rows["belief"].notna(),
            "error": rows["error"],
            "failed": False,
            "outcome": outcome,
        }
    )
