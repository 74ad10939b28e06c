"""In-process agent runs give the answers an Inspect run gives, turn for turn."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from biaslab.suites.defeasible import analysis as A
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.inprocess import agent_frame

AGENTS = ["random", "sticky?p=0.9", "last-polarity", "calibrated"]
COLUMNS = ["model", "item_id", "turn", "kind", "gold", "predicted", "parsed", "correct"]


def _key(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["model", "item_id", "turn"]).reset_index(drop=True)


@pytest.mark.parametrize(
    ("params", "n", "agents"),
    [
        ({"topology": "all"}, 3, AGENTS),
        ({"topology": "default", "question_order": "reversed"}, 2, ["oracle", "sticky?p=0.9"]),
    ],
)
def test_in_process_answers_equal_an_inspect_run(
    tmp_path: Path, params: dict[str, str], n: int, agents: list[str]
) -> None:
    import inspect_ai

    from biaslab.frames import frame_at
    from biaslab.runner import suite_task

    task = suite_task("defeasible", n=n, seed=5, params=params)
    inspect_ai.eval(
        task, model=[f"biaslab/{a}" for a in agents], log_dir=str(tmp_path), display="none"
    )
    logged = _key(frame_at(tmp_path))
    items = generate(resolve_config("easy", params), 5, n)
    local = _key(agent_frame(items, agents, seed=5))
    assert len(local) == len(logged) > 0
    pd.testing.assert_frame_equal(local[COLUMNS], logged[COLUMNS], check_dtype=False)
    for a, b in zip(local["label_probs"], logged["label_probs"], strict=True):
        assert a.keys() == b.keys() and all(a[k] == pytest.approx(b[k]) for k in a)
    meta = [c for c in logged.columns if c.startswith("item_") or c in ("distance", "on_path")]
    missing = sorted(set(meta) - set(local.columns))
    assert not missing
    for column in meta:
        assert local[column].astype(str).tolist() == logged[column].astype(str).tolist(), column


def test_shuffled_frame_of_real_answers_gives_identical_results_json() -> None:
    items = generate(resolve_config("easy", {}), 3, 4)
    df = agent_frame(items, ["sticky?p=0.9", "random", "calibrated"], seed=3)
    reference = A.analyze(df, n_boot=200).model_dump_json()
    shuffled = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
    assert A.analyze(shuffled, n_boot=200).model_dump_json() == reference
