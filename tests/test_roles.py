"""Model roles and suite-owned tasks: a judge through ``biaslab run --judge`` and ``inspect eval
--model-role``, several calls per item, replicate judgements kept apart, roles in the run identity."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from biaslab.agents.provider import ReferenceAgentAPI
from biaslab.cli import main
from biaslab.frames import answer_frame, frame_at, read_log_set
from tests.helpers.children import DRIVER, default_sigint
from tests.helpers.inspect_cli import inspect_eval

ROOT = Path(__file__).resolve().parent.parent
RUN = ["run", "judged", "--model", "biaslab/oracle", "--n", "3", "--display", "none"]
#: the suite's task as ``inspect eval`` names a task in a file
JUDGED_TASK = f"{ROOT / 'tests' / 'helpers' / 'judged_suite.py'}@judged"


@pytest.fixture(scope="module", autouse=True)
def judged() -> Iterator[ModuleType]:
    """The test suite is registered for this module only, so ``run all`` elsewhere never sees it."""
    from biaslab.suites.registry import SUITE_MODULES

    module = importlib.import_module("tests.helpers.judged_suite")
    SUITE_MODULES.setdefault(module.NAME, module.__name__)
    yield module
    SUITE_MODULES.pop(module.NAME, None)


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Judge calls are cached: a private cache keeps every test's calls its own."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def test_a_judge_role_gives_a_row_per_judgement(tmp_path: Path) -> None:
    assert main([*RUN, "--judge", "biaslab/random", "--log-dir", str(tmp_path)]) == 0
    frame = frame_at(tmp_path)
    assert sorted(frame["record"].value_counts().items()) == [("answer", 3), ("judgement", 6)]
    assert set(frame["roles"]) == {"judge=biaslab/random"}
    judgements = frame[frame["record"] == "judgement"]
    assert sorted(judgements["replicate"].unique().tolist()) == [0, 1]
    assert judgements["verdict"].isin(["yes", "no"]).all()


def test_replicates_are_separate_calls_and_a_rerun_hits_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judged: ModuleType
) -> None:
    calls: list[str] = []
    original = ReferenceAgentAPI.generate

    async def counting(self: ReferenceAgentAPI, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(self.model_name)
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(ReferenceAgentAPI, "generate", counting)
    assert main([*RUN, "--judge", "biaslab/random", "--log-dir", str(tmp_path / "a")]) == 0
    assert calls.count("random") == 3 * judged.REPLICATES  # replicates never share a cache entry
    calls.clear()
    assert main([*RUN, "--judge", "biaslab/random", "--log-dir", str(tmp_path / "b")]) == 0
    assert calls.count("random") == 0  # the same judgements again come from Inspect's cache
    assert calls.count("oracle") == 3


def test_the_model_role_spelling_and_self_judge(tmp_path: Path) -> None:
    assert main([*RUN, "--model-role", "judge=biaslab/random", "--log-dir", str(tmp_path)]) == 0
    assert main([*RUN, "--self-judge", "--log-dir", str(tmp_path / "self")]) == 0
    assert set(frame_at(tmp_path / "self")["roles"]) == {"judge=biaslab/oracle"}


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ((), "needs a judge model: add --judge MODEL (or --self-judge)"),
        (("--judge", "biaslab/random", "--self-judge"), "mutually exclusive"),
        (("--model-role", "judge"), "expected ROLE=MODEL"),
        (
            ("--judge", "biaslab/random", "--model-role", "critic=biaslab/oracle"),
            "no 'critic' role",
        ),
        (("--judge", "biaslab/nosuch"), "unknown agent 'nosuch'"),
    ],
)
def test_role_errors_are_one_line(
    extra: tuple[str, ...], fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*RUN, *extra, "--log-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0], err


def test_roles_are_part_of_the_run_identity(tmp_path: Path) -> None:
    for judge in ("biaslab/random", "biaslab/always-yes"):
        assert main([*RUN, "--judge", judge, "--log-dir", str(tmp_path)]) == 0
    log_set = read_log_set(tmp_path)
    assert not log_set.collapsed  # two judges: two runs, neither counted into the other
    assert len(answer_frame(log_set)) == 2 * 9


def test_inspect_eval_with_model_role_is_the_same_run(tmp_path: Path) -> None:
    assert main([*RUN, "--judge", "biaslab/random", "--log-dir", str(tmp_path)]) == 0
    code = inspect_eval(
        JUDGED_TASK, "--model", "biaslab/oracle", "--model-role", "judge=biaslab/random",
        "-T", "n=3", "--log-dir", str(tmp_path), "--display", "none",
    )  # fmt: skip
    assert code == 0
    log_set = read_log_set(tmp_path)
    assert len(log_set.logs) == 2 and len(log_set.collapsed) == 1
    assert len(answer_frame(log_set)) == 9


def _drive(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DRIVER, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        preexec_fn=default_sigint,
    )


def test_an_interrupted_judged_run_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "c"))  # the stopped run's cache
    env = {**os.environ, "BIASLAB_TEST_STOP": "INT:4"}
    args = [*RUN, "--judge", "biaslab/random", "--log-dir", str(tmp_path), "--max-connections", "1"]
    stopped = _drive(args, env)
    assert stopped.returncode == 130, stopped.stderr
    capfd.readouterr()
    resumed = main(args)  # the resume needs no second process: it runs here
    err = capfd.readouterr().err
    assert resumed == 0 and "resuming" in err, err
    assert len(frame_at(tmp_path)) == 9


def test_a_role_with_generation_settings_is_its_own_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--model-role 'judge={model: M, temperature: T}'`` as Inspect takes it: the temperature
    is recorded in the log, two temperatures are two runs, a rerun of one is up to date, and
    ``inspect eval`` with the same spelling is the same run."""
    for temperature in ("0.3", "1.0"):
        role = f"judge={{model: biaslab/random, temperature: {temperature}}}"
        assert main([*RUN, "--model-role", role, "--log-dir", str(tmp_path)]) == 0
    log_set = read_log_set(tmp_path)
    assert len(log_set.logs) == 2 and not log_set.collapsed
    frame = answer_frame(log_set)
    assert {json.loads(text)["judge"]["temperature"] for text in frame["generation"]} == {0.3, 1.0}
    capsys.readouterr()
    role = '{"model": "biaslab/random", "temperature": 0.3}'
    assert main([*RUN, "--model-role", f"judge={role}", "--log-dir", str(tmp_path)]) == 0
    assert "up to date" in capsys.readouterr().err
    code = inspect_eval(
        JUDGED_TASK, "--model", "biaslab/oracle",
        "--model-role", "judge={model: biaslab/random, temperature: 0.3}",
        "-T", "n=3", "--log-dir", str(tmp_path), "--display", "none",
    )  # fmt: skip
    assert code == 0
    assert len(read_log_set(tmp_path).collapsed) == 1


@pytest.mark.parametrize(
    ("role", "fragment"),
    [
        ("judge={model: biaslab/random, tempreature: 0.3}", "Unknown GenerateConfig field"),
        ("judge={temperature: 0.3}", "needs model: NAME"),
        ("judge={model: biaslab/random, temperature: hot}", "temperature"),
        ("judge={model: [", "not a YAML or JSON mapping"),
    ],
)
def test_bad_role_settings_are_one_line(
    role: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*RUN, "--model-role", role, "--log-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0], err
