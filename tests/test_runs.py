"""Runs a user can trust: each answer counted once whatever was re-run, resume after any stop, exit
codes that stop a shell pipeline, one writer per run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from biaslab import runs
from biaslab.cli import main
from biaslab.frames import answer_frame, frame_at, read_log_set
from biaslab.suites.registry import get_suite
from tests.helpers.children import DRIVER, default_sigint, ignored_sigint
from tests.helpers.inspect_cli import inspect_eval

ROOT = Path(__file__).resolve().parent.parent
#: 3 default-topology conversations with 4 hypothesis sections each: ~40 model calls
RUN = ["run", "defeasible", "--model", "biaslab/sticky?p=1", "--n", "3", "--seed", "5"]
RUN += ["-p", "topology=default", "--display", "none"]


def drive(*args: str, stop: str = "", delay: float = 0.0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BIASLAB_TEST_STOP": stop, "BIASLAB_TEST_DELAY": str(delay)}
    return subprocess.run(
        [*DRIVER, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        preexec_fn=default_sigint,
    )


def in_process(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``biaslab ARGS…`` in this process (where a second process is not what a test is about):
    its exit code and what it wrote to stderr."""
    capfd.readouterr()
    code = main(list(args))
    return code, capfd.readouterr().err


def copy_run(log_dir: Path, into: Path) -> None:
    """The log directory of a finished run, as if its command had been run into ``into``."""
    shutil.copytree(log_dir, into, dirs_exist_ok=True)


def analysis(log_dir: Path) -> str:
    frame = frame_at(log_dir)
    result = get_suite("defeasible").analyze(frame).model_dump(mode="json")
    return json.dumps(result, sort_keys=True)


def statuses(log_dir: Path) -> list[str]:
    return sorted(read_eval_log(i, header_only=True).status for i in list_eval_logs(str(log_dir)))


@pytest.fixture(scope="module")
def single_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, int]:
    """The reference: one uninterrupted run, its analysis and its number of answers."""
    log_dir = tmp_path_factory.mktemp("single")
    assert main([*RUN, "--log-dir", str(log_dir)]) == 0
    return log_dir, analysis(log_dir), len(frame_at(log_dir))


def test_the_same_command_twice_counts_once(
    single_run: tuple[Path, str, int], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log_dir, expected, n_answers = single_run
    copy_run(log_dir, tmp_path)  # the first command's output
    code, err = in_process(capfd, *RUN, "--log-dir", str(tmp_path))
    assert code == 0, err
    assert "up to date" in err
    assert "file://" not in err  # log paths print one way
    assert statuses(tmp_path) == ["success"]  # the second run asked nothing
    assert len(frame_at(tmp_path)) == n_answers
    assert analysis(tmp_path) == expected


def test_a_fresh_rerun_and_inspect_eval_into_one_directory_collapse(
    single_run: tuple[Path, str, int], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log_dir, expected, n_answers = single_run
    copy_run(log_dir, tmp_path)  # the first run
    assert main([*RUN, "--log-dir", str(tmp_path), "--no-resume"]) == 0
    code = inspect_eval(
        "biaslab/defeasible", "--model", "biaslab/sticky?p=1", "-T", "n=3", "-T", "seed=5",
        "-T", "topology=default", "--log-dir", str(tmp_path), "--display", "none",
    )  # fmt: skip
    assert code == 0
    log_set = read_log_set(tmp_path)
    assert len(log_set.logs) == 3
    assert len(log_set.collapsed) == 1 and log_set.collapsed[0].startswith("3 logs of the same run")
    assert len(answer_frame(log_set)) == n_answers
    assert analysis(tmp_path) == expected
    code, err = in_process(capfd, "analyze", str(tmp_path))
    assert code == 0, err
    assert "3 logs of the same run collapsed" in err


def test_distinct_seeds_stay_distinct_runs(tmp_path: Path) -> None:
    args = ["run", "defeasible", "--model", "biaslab/oracle", "--n", "1", "--seeds", "1-2"]
    args += ["-p", "topology=linear", "--display", "none", "--log-dir", str(tmp_path)]
    assert main(args) == 0
    log_set = read_log_set(tmp_path)
    assert not log_set.collapsed
    assert sorted(set(answer_frame(log_set)["seed"])) == [1, 2]


StoppedRun = tuple[Path, subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def stopped_by(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], StoppedRun]:
    """``stopped_by("TERM")``: the run sent SIGTERM at its 20th model call, made once for the
    tests that read it (a test that resumes it resumes a copy): its log directory and process."""
    made: dict[str, StoppedRun] = {}

    def stopped(signame: str) -> StoppedRun:
        if signame not in made:
            log_dir = tmp_path_factory.mktemp(f"stopped-{signame}")
            run = drive(*RUN, "--log-dir", str(log_dir), stop=f"{signame}:20", delay=0.02)
            made[signame] = (log_dir, run)
        return made[signame]

    return stopped


@pytest.mark.parametrize(("signame", "code"), [("INT", 130), ("TERM", 143)])
def test_an_interrupted_run_exits_non_zero_then_resumes(
    single_run: tuple[Path, str, int],
    stopped_by: Callable[[str], StoppedRun],
    tmp_path: Path,
    signame: str,
    code: int,
    capfd: pytest.CaptureFixture[str],
) -> None:
    _, expected, n_answers = single_run
    log_dir, stopped = stopped_by(signame)
    copy_run(log_dir, tmp_path)
    assert stopped.returncode == code, stopped.stderr
    last = stopped.stderr.strip().splitlines()[-1]
    assert last.startswith("biaslab: interrupted: ") and "run the same command to resume" in last
    assert "Traceback" not in stopped.stderr
    assert statuses(tmp_path) == ["cancelled"]
    resumed, err = in_process(capfd, *RUN, "--log-dir", str(tmp_path))
    assert resumed == 0, err
    assert "resuming" in err
    assert len(frame_at(tmp_path)) == n_answers
    assert analysis(tmp_path) == expected


def test_sigterm_stops_a_run_started_with_sigint_ignored(
    single_run: tuple[Path, str, int], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """``biaslab run … &`` in a script (or nohup, or a batch job step) starts with SIGINT ignored;
    SIGTERM must still cancel the eval through Inspect, promptly, leaving a resumable log."""
    _, expected, n_answers = single_run
    env = {**os.environ, "BIASLAB_TEST_DELAY": "1.0"}  # ~40 calls one at a time: > 40 s
    args = [*RUN, "--log-dir", str(tmp_path), "--max-connections", "1"]
    started = subprocess.Popen(
        [*DRIVER, *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=ignored_sigint,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while started.poll() is None and time.monotonic() < deadline:
            if any(tmp_path.glob("*.eval")):  # Inspect has started the task
                break
            time.sleep(0.1)
        time.sleep(2.0)  # a few model calls in
        signalled = time.monotonic()
        started.send_signal(signal.SIGTERM)
        _, err = started.communicate(timeout=120)
        took = time.monotonic() - signalled
    finally:
        if started.poll() is None:
            started.kill()
            started.wait()
    assert started.returncode == 143, err
    assert took < 30, f"SIGTERM took {took:.1f} s to stop the run"
    last = err.strip().splitlines()[-1]
    assert last.startswith("biaslab: interrupted: ") and last.endswith(
        "run the same command to resume"
    )
    assert statuses(tmp_path) == ["cancelled"]
    resumed, err = in_process(capfd, *RUN, "--log-dir", str(tmp_path))
    assert resumed == 0 and "resuming" in err, err
    assert len(frame_at(tmp_path)) == n_answers
    assert analysis(tmp_path) == expected


def test_the_interruption_line_counts_what_the_log_holds(
    stopped_by: Callable[[str], StoppedRun],
) -> None:
    """The line counts the samples the log holds (finished without error), whatever else was in
    flight when the signal landed."""
    log_dir, stopped = stopped_by("TERM")
    assert stopped.returncode == 143, stopped.stderr
    (info,) = list_eval_logs(str(log_dir))
    log = read_eval_log(info)
    held = sum(1 for sample in log.samples or [] if sample.error is None)
    total = int(log.eval.dataset.samples or 0)
    line = stopped.stderr.strip().splitlines()[-1]
    assert line == (
        f"biaslab: interrupted: {held} of {total} samples logged; run the same command to resume"
    )


def test_a_killed_run_resumes_and_counts_once(
    single_run: tuple[Path, str, int], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL leaves a 'started' log; the rerun recovers its finished samples (Inspect's sample
    buffer, kept with --realtime) and asks only the rest."""
    _, expected, n_answers = single_run
    args = [*RUN, "--log-dir", str(tmp_path), "--realtime", "--max-connections", "1"]
    killed = drive(*args, stop="KILL:30", delay=0.02)
    assert killed.returncode == -signal.SIGKILL
    assert statuses(tmp_path) == ["started"]
    resumed, err = in_process(capfd, *args)
    assert resumed == 0, err
    assert "resuming" in err
    log = max(
        (read_eval_log(i) for i in list_eval_logs(str(tmp_path))), key=lambda lg: lg.eval.created
    )
    reused = [s for s in log.samples or [] if str(s.started_at) < str(log.eval.created)]
    assert reused, "the finished samples of the killed run were asked again"
    assert len(frame_at(tmp_path)) == n_answers
    assert analysis(tmp_path) == expected


def test_a_live_run_is_not_hijacked(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Two identical runs started together: the second (this process) refuses in one line,
    nothing doubles."""
    hold = tmp_path.parent / f"{tmp_path.name}.hold"  # the first run's calls wait while it exists
    hold.touch()
    env = {**os.environ, "BIASLAB_TEST_HOLD": str(hold)}
    first = subprocess.Popen(
        [*DRIVER, *RUN, "--log-dir", str(tmp_path), "--max-connections", "1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_sigint,
    )  # fmt: skip
    try:
        lock_dir = tmp_path / ".biaslab-locks"
        deadline = time.monotonic() + 120
        locked = False
        while not locked and first.poll() is None and time.monotonic() < deadline:
            locked = lock_dir.is_dir() and any(p.read_text() for p in lock_dir.iterdir())
            time.sleep(0 if locked else 0.1)
        assert locked, "the first run never took its lock"
        second, second_err = in_process(
            capfd, *RUN, "--log-dir", str(tmp_path), "--max-connections", "1"
        )
        assert first.poll() is None, "the first run ended before the second one started"
    finally:
        hold.unlink()
        _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert second == 2
    lines = second_err.strip().splitlines()
    assert len(lines) == 1 and "already running" in lines[0], second_err
    assert statuses(tmp_path) == ["success"]


def test_a_corrupt_log_does_not_block_the_directory(
    single_run: tuple[Path, str, int], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log_dir, expected, _ = single_run
    for info in list_eval_logs(str(log_dir)):
        name = info.name.removeprefix("file://")
        (tmp_path / Path(name).name).write_bytes(Path(name).read_bytes())
    (tmp_path / "2026-01-01T00-00-00-00-00_defeasible_broken.eval").write_bytes(b"PK\x03\x04junk")
    code, err = in_process(capfd, "analyze", str(tmp_path))
    assert code == 0, err
    assert "skipped unreadable log 2026-01-01T00-00-00-00-00_defeasible_broken.eval" in err
    assert analysis(tmp_path) == expected
    rerun, err = in_process(capfd, *RUN, "--log-dir", str(tmp_path))
    assert rerun == 0 and "up to date" in err, err


def test_the_embedded_model_runs_one_conversation_per_slot() -> None:
    """Inspect's adaptive concurrency would interleave conversations on the embedded model's slots
    and throw each one's KV cache away; an eval with the embedded model gets its slot count."""
    assert runs.embedded_connections(["biaslab/local"]) == 1
    assert runs.embedded_connections(["biaslab/oracle", "biaslab/local?parallel=3"]) == 3
    assert runs.embedded_connections(["biaslab/local?parallel=4", "biaslab/local"]) == 1
    assert runs.embedded_connections(["biaslab/oracle", "openai/local"]) is None
    # Inspect would apply the limit to a remote model (or judge) of the same eval too
    assert runs.embedded_connections(["openai/gpt-4o", "biaslab/local"]) is None
