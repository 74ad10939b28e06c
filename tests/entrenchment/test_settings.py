"""Generation settings: the suite's temperatures reach every call, runs at two temperatures are two
setups, the paper preset, and a missing judge under ``inspect eval`` is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai.model import get_model

from biaslab.runner import suite_task
from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents
from biaslab.task_settings import roles_given_at_eval

from .helpers import out

ROOT = Path(__file__).resolve().parents[2]
COT = "First, the costs fall on those least able to pay.\n\nSecond, the evidence is mixed so far."


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def _recording(seen: list[float | None], reply: str) -> Any:
    def outputs(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        seen.append(config.temperature)
        return out(reply)

    return get_model("mockllm/model", custom_outputs=outputs, memoize=False)


def test_the_paper_preset() -> None:
    config = resolve_config("paper", {})
    assert (config.reasoner_temperature, config.judge_temperature) == (0.1, 0.3)
    assert config.judge_mode == "trajectory" and config.min_step_chars == 0
    assert config.max_steps == 50 and not config.judge_baseline


def test_the_suite_temperatures_reach_every_call(tmp_path: Path) -> None:
    from inspect_ai import eval as inspect_eval

    reasoner: list[float | None] = []
    judge: list[float | None] = []
    # the roles are given to the eval below; Inspect's context may still hold an earlier
    # in-process eval's roles (see ``roles_given_at_eval``)
    with roles_given_at_eval():
        task = suite_task(
            "entrenchment",
            n=2,
            params={
                "domain": "claims",
                "judge_baseline": "false",
                "constructs": "judge,self_report",
                "reasoner_temperature": "0.1",
                "judge_temperature": "0.3",
            },
        )
    [log] = inspect_eval(
        task,
        model=_recording(reasoner, COT),
        model_roles={"judge": _recording(judge, '{"belief": 0.4}')},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success"
    assert reasoner and set(reasoner) == {0.1}  # reasoning and self-reports
    assert judge and set(judge) == {0.3}


def test_two_judge_temperatures_are_two_setups_and_their_baselines_stay_apart() -> None:
    frames = []
    for temperature in ("0.3", "1.0"):
        config = resolve_config(None, {"judge_temperature": temperature})
        frames.append(run_agents(generate(config, 0, 10), config, "urn-bayes", "judge-reader"))
    res = analyze(pd.concat(frames, ignore_index=True))
    models = res.model_setups()
    assert len(models) == 2 and len(res.baseline_setups()) == 2
    assert {s.judge_settings for s in models} == {"temperature=0.3", "temperature=1"}
    for setup in models:
        [base] = [b for b in res.baseline_setups() if b.judge_settings == setup.judge_settings]
        assert setup.m_judge_baseline == base.m
        assert f"judge {setup.judge_settings}" in setup.label


def test_a_run_level_temperature_enters_the_setup_key() -> None:
    """Settings given to the roles (the frame's ``generation`` column) count like the suite's."""
    config = resolve_config(None, {"judge_baseline": "false"})
    frame = run_agents(generate(config, 0, 10), config, "urn-bayes", "judge-reader")
    hot = frame.assign(generation='{"judge": {"temperature": 1.0}, "model": {}}')
    cold = frame.assign(generation='{"judge": {"temperature": 0.0}, "model": {}}')
    hot["run_key"], cold["run_key"] = "a", "b"
    res = analyze(pd.concat([hot, cold], ignore_index=True))
    assert sorted(s.judge_settings for s in res.setups) == ["temperature=0", "temperature=1"]


def test_a_missing_judge_under_inspect_eval_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable, "-m", "inspect_ai", "eval", "biaslab/entrenchment",
            "--model", "biaslab/urn-bayes", "-T", "n=1", "--log-dir", str(tmp_path),
            "--display", "plain",  # Inspect prints nothing at all under --display none
        ],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    text = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0
    assert "Traceback" not in text and "needs a judge model" in text
    assert not list(tmp_path.glob("*.eval"))  # refused before any sample ran


def test_a_task_built_after_an_earlier_eval_takes_the_judge_given_at_eval(tmp_path: Path) -> None:
    """A caller builds the entrenchment task and passes the judge to ``inspect_ai.eval`` while
    Inspect's context still holds an earlier eval's roles, without a judge (set here as Inspect's
    ``eval_resolve_tasks`` sets them; an earlier in-process eval has left them so in a test
    worker). The builder must not read them as this eval's; ``inspect eval`` without a judge is
    still refused at build time (``test_a_missing_judge_under_inspect_eval_is_one_line``)."""
    import contextvars

    from inspect_ai import eval as inspect_eval
    from inspect_ai.model._model import _model_roles, init_model_roles

    def build_then_eval() -> Any:
        init_model_roles({})  # the earlier eval's roles: none
        assert _model_roles in contextvars.copy_context()  # the premise
        task = suite_task(
            "entrenchment", n=1, params={"domain": "claims", "judge_baseline": "false"}
        )
        return inspect_eval(
            task,
            model=_recording([], COT),
            model_roles={"judge": _recording([], '{"belief": 0.4}')},
            log_dir=str(tmp_path / "logs"),
            display="none",
        )

    [log] = contextvars.copy_context().run(build_then_eval)  # the roles set stay in this test
    assert log.status == "success" and log.samples and not any(s.error for s in log.samples)
