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

Files are taken as they come (:mod:`biaslab.rows`): a row whose belief is empty or unreadable is
kept as an unparsed belief (it drops the pairs it ends, as in a run). Left out, and counted by
reason with the first line of each in the results' ``import`` decision: a row the reader cannot read
(not JSON, not an object, more or fewer values than the header), a row that cannot be placed (no
model or question, a step or replicate that is not a whole number, a truth that is not 0/1), and
every row of a contradiction, which is never resolved by picking a row: a question given two
different truths in one setup (all its rows in that setup; a question id is read per setup, so
the same id in another setup with another truth is another question), and two different beliefs
for one (model, setup, construct, question, replicate, step) (the whole trajectory, every
replicate: see :func:`_without_contradictions`). The same row twice is counted once. Only what
makes the file unusable is a one-line error: not UTF-8, a missing column (or a first JSON record
without a required field), or no usable row at all.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biaslab.errors import BiaslabError
from biaslab.rows import LARGEST_INTEGER, LeftOut, integer, read_rows
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
#: a trajectory (all its replicates), and one replicate's readings of it: a belief's place is a step
_TRAJECTORY = ("model", "setup", "construct", "question_id")
_KEY = (*_TRAJECTORY, "replicate")
_TWO_TRUTHS = "of a question given two different truths in one setup"
_TWO_BELIEFS = "of a trajectory given two different beliefs for one step"


def read_beliefs_file(path: Path) -> pd.DataFrame:
    """A ``.csv`` or ``.jsonl`` file of beliefs -> the tidy frame the analysis reads (one
    ``belief`` record per row); ``frame.attrs["import"]`` says what was read and left out."""
    import pandas as pd

    left_out = LeftOut()
    placed: list[tuple[int, dict[str, Any]]] = []
    example = json.loads(EXAMPLE)
    for number, raw in read_rows(
        path, REQUIRED, left_out=left_out, optional=OPTIONAL, example=example
    ):
        row, problem = _row(raw)
        if row is None:
            left_out.add(str(problem), number)
        else:
            placed.append((number, row))
    rows, repeated = _without_contradictions(placed, left_out)
    if not rows:
        why = f" ({left_out.text()})" if left_out else ""
        raise BiaslabError(f"{path.name}: no usable belief rows{why}; a row looks like {EXAMPLE}")
    frame = _frame(pd.DataFrame(rows), path.name)
    frame.attrs["import"] = _summary(path.name, len(rows), left_out, repeated)
    return frame


def _without_contradictions(
    placed: list[tuple[int, dict[str, Any]]], left_out: LeftOut
) -> tuple[list[dict[str, Any]], int]:
    """The rows no other row contradicts, in file order, and how many repeats were dropped.

    A question given two different truths in one setup leaves out every row of that question
    in that setup (its outcome cannot be known; in another setup the same id is another
    question). Two different beliefs (or unreadable beliefs) for one step leave out the whole
    trajectory, every replicate of (model, setup, construct, question): keeping either belief
    is a guess, and dropping only that step would leave a trajectory with a hole no one
    recorded, whose update pairs would join beliefs that were never adjacent; the replicates
    are readings of the same reasoning, and M and M_IV should see the same questions. The same
    row twice is kept once. Each row left out is counted in ``left_out`` with the lines."""
    rows = _one_truth_per_question(placed, left_out)
    by_step: dict[tuple[Any, ...], list[tuple[int, dict[str, Any]]]] = {}
    for number, row in rows:
        by_step.setdefault((*(row[k] for k in _KEY), row["step"]), []).append((number, row))
    broken: dict[tuple[Any, ...], str] = {}
    for (*key, step), group in by_step.items():
        if len({(row["belief"], row["error"]) for _, row in group}) > 1:
            trajectory = tuple(key[: len(_TRAJECTORY)])
            lines = ", ".join(str(number) for number, _ in group)
            broken.setdefault(trajectory, f"question {key[3]!r}, step {step}, lines {lines}")
    kept: list[dict[str, Any]] = []
    repeated = 0
    for group in by_step.values():
        number, row = group[0]
        trajectory = tuple(row[k] for k in _TRAJECTORY)
        if trajectory in broken:
            left_out.add(_TWO_BELIEFS, number, broken[trajectory], count=len(group))
            continue
        repeated += len(group) - 1
        kept.append(row)
    return kept, repeated


def _one_truth_per_question(
    placed: list[tuple[int, dict[str, Any]]], left_out: LeftOut
) -> list[tuple[int, dict[str, Any]]]:
    """The rows of questions given at most one truth in their setup, each row carrying that truth
    (a row that leaves it empty is not a row that says otherwise); the others are counted."""
    truths: dict[tuple[str, str], set[int]] = {}
    for _, row in placed:
        found = truths.setdefault((row["setup"], row["question_id"]), set())
        if row["truth"] is not None:
            found.add(row["truth"])
    kept = []
    for number, row in placed:
        truth = truths[(row["setup"], row["question_id"])]
        if len(truth) > 1:
            left_out.add(_TWO_TRUTHS, number, f"question {row['question_id']!r}")
        else:
            kept.append((number, {**row, "truth": next(iter(truth), None)}))
    return kept


def _summary(name: str, used: int, left_out: LeftOut, repeated: int) -> str:
    text = f"{used} belief rows read from {name}"
    if left_out:
        text += f"; {left_out.total} rows left out ({left_out.text()})"
    if repeated:
        text += f"; {repeated} repeated rows (same belief) counted once"
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
        return None, "with a step that is not a whole number in [0, 2^63)"
    replicate = _whole(raw.get("replicate"), default=0)
    if replicate is None:
        return None, "with a replicate that is not a whole number in [0, 2^63)"
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
    """A whole number ≥ 0 (``3``, ``"3"``, ``3.0``, ``"3.0"``) that a 64-bit column holds;
    ``default`` when absent or empty. Digits are read as an integer, not through a float, which
    would round ``9007199254740993`` to a neighbour; only ASCII digits (:func:`integer`)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    number = integer(value)
    if number is None:
        number = _whole_float(value)
    return number if number is not None and 0 <= number <= LARGEST_INTEGER else None


_WHOLE_DECIMAL = re.compile(r"[+-]?[0-9]+\.0*")


def _whole_float(value: Any) -> int | None:
    """A float that is whole (``3.0``, and ``"3.0"`` as a spreadsheet writes it)."""
    if isinstance(value, str):
        text = value.strip()
        return integer(text.split(".")[0]) if _WHOLE_DECIMAL.fullmatch(text) else None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


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
    construct, question); its length is its last step over all replicates; a question's outcome
    is the truth its rows give in its setup (at most one, :func:`_one_truth_per_question`)."""
    import pandas as pd

    outcome = rows.groupby(["setup", "question_id"])["truth"].transform("first")
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
