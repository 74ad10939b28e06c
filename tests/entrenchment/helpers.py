"""Running the suite's task with Inspect on reference agents and mock models."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from biaslab.frames import frame_at
from biaslab.runner import suite_task
from biaslab.task_settings import roles_given_at_eval


def out(text: str) -> ModelOutput:
    """A mock reply with usage set (else Inspect counts tokens with a downloaded tokenizer)."""
    output = ModelOutput.from_content("mockllm/model", text)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def mock(reply: Callable[[list[Any]], str]) -> Any:
    def outputs(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        return out(reply(messages))

    return get_model("mockllm/model", custom_outputs=outputs, memoize=False)


def run(
    log_dir: Path,
    model: Any,
    judge: Any | None,
    *,
    n: int = 3,
    seed: int = 0,
    **params: str,
) -> tuple[Any, pd.DataFrame | None]:
    with roles_given_at_eval():  # the roles are given to the eval below
        task = suite_task("entrenchment", n=n, seed=seed, params=params)
    roles = {"judge": judge} if judge is not None else None
    [log] = inspect_eval(
        task, model=model, model_roles=roles, log_dir=str(log_dir), display="none",
        fail_on_error=False,
    )  # fmt: skip
    try:
        frame = frame_at(log_dir)
    except Exception:
        frame = None
    return log, frame


def beliefs(frame: pd.DataFrame) -> pd.DataFrame:
    """The belief rows, with their boolean columns as booleans (the frame mixes record types)."""
    rows = frame[frame["record"] == "belief"].copy()
    for column in ("parsed", "failed", "retried", "asked_yes", "rescaled"):
        rows[column] = rows[column].astype(bool)
    return rows
