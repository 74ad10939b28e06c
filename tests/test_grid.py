"""``biaslab run all``: four suites x several models as one Inspect eval set, resumable, and a bias
card that flags exactly the bias each reference agent was built with."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from biaslab.analysis import analyse
from biaslab.cli import main
from biaslab.grid import (
    REGISTERED_TASKS,
    TASK_ARG_DEFAULTS,
    Cell,
    FinishedLog,
    GridSpec,
    finished_grid,
    grid_cells,
    split_params,
)
from biaslab.report import write_report
from biaslab.suites.registry import suite_names

#: agent -> the one method whose bias it was built to show (None: no bias)
BUILT_WITH = {
    "biaslab/oracle": None,
    "biaslab/random": None,
    # at n = 2 no defeat turn shares its stratum with a stable turn, so the defeasible null
    # cannot test it (checked below); tests/defeasible/test_heldout.py flags a sticky agent at n=90
    "biaslab/sticky?p=0.9": None,
    "biaslab/token-biased": "tokenbias",
    "biaslab/etr": "fallacy",
    "biaslab/urn-entrenched?w=0.5": "entrenchment",
}
#: small sizes at which each built-in bias is flagged with room to spare (defeasible only has to
#: run): token bias at n = 8 rejects 3 of 11 hypotheses (p = 0.004; 2 of 11 at n = 6), the fallacy
#: rate at n = 6 has p = 6e-6 and leaves the random agent's cell defined, the Martingale score at
#: n = 40 has p = 0.007 (0.013 at n = 30, 0.08 at n = 20)
ARGS = ["--judge", "biaslab/judge-reader", "--n", "8", "-p", "entrenchment.n=40"]
ARGS += ["-p", "fallacy.n=6", "-p", "defeasible.n=2"]


def grid_command(log_dir: Path) -> list[str]:
    models = [arg for model in BUILT_WITH for arg in ("--model", model)]
    return ["run", "all", *models, *ARGS, "--log-dir", str(log_dir), "--display", "none"]


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log_dir = tmp_path_factory.mktemp("grid")
    assert main(grid_command(log_dir)) == 0
    return log_dir


def log_statuses(log_dir: Path) -> list[str]:
    from inspect_ai.log import read_eval_log

    out = []
    for path in sorted(log_dir.glob("*.eval")):
        log = read_eval_log(str(path), header_only=True)
        error = log.error.message.splitlines()[0][:200] if log.error else ""
        out.append(f"{path.name} {log.status} {log.eval.model} {error}")
    return out


#: ``biaslab ARGS…``, exiting 99 if it imported Inspect
WITHOUT_INSPECT = """
import sys
from biaslab.cli import main
code = main(sys.argv[1:])
sys.exit(code or (99 if "inspect_ai" in sys.modules else 0))
"""


def child(script: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300
    )


def file_bytes(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def test_a_rerun_of_a_finished_grid_generates_nothing(
    grid: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Through the eval set, a finished grid's re-run generates no items and writes no log; read
    from the logs' headers, it does not even import Inspect, and prints and writes the same."""
    import rich

    import biaslab.grid
    import biaslab.runner
    from biaslab.suites.fallacy import workers

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a finished grid's re-run generated items or started a worker pool")

    monkeypatch.setattr(biaslab.runner, "generate_items", refuse)
    monkeypatch.setattr(workers, "pool", refuse)
    monkeypatch.setattr(biaslab.grid, "finished_grid", lambda *args, **kwargs: None)
    # the console as a fresh process has it (an earlier eval here left Inspect's quiet one)
    monkeypatch.setattr(rich, "_console", None)
    before = file_bytes(grid)
    assert len([name for name in before if name.endswith(".eval")]) == 4 * len(BUILT_WITH), (
        "\n".join(log_statuses(grid))
    )
    capfd.readouterr()
    assert main(grid_command(grid)) == 0
    present = capfd.readouterr()
    # rich folds the line at the console's width (80 when captured): a long path breaks it
    assert f"Completed all tasks in '{grid}' successfully" in present.out.replace("\n", "")
    assert len(present.err.splitlines()) == 4 * len(BUILT_WITH), present.err
    assert file_bytes(grid) == before  # the manifests rewritten byte for byte, no new log
    lean = child(WITHOUT_INSPECT, grid_command(grid))
    assert lean.returncode == 0, lean.stderr
    assert (lean.stdout, lean.stderr) == (present.out, present.err)
    assert file_bytes(grid) == before


def grid_cells_of(log_dir: Path) -> list[Cell]:
    """The cells ``run all`` builds for :func:`grid_command`."""
    names = tuple(suite_names())
    params = split_params({"entrenchment.n": "40", "fallacy.n": "6", "defeasible.n": "2"}, names)
    spec = GridSpec(tuple(BUILT_WITH), (0,), names, params, n=8, judge="biaslab/judge-reader")
    return grid_cells(spec)


def test_a_finished_grid_is_told_only_beyond_doubt(grid: Path, tmp_path: Path) -> None:
    """Each doubt leaves the decision to the eval set: another max_tokens or a limit (other task
    identities), a missing, extra, duplicated, unreadable or changed log, a stale manifest."""
    cells = grid_cells_of(grid)
    options = {"limit": None, "max_tokens": None}
    found = finished_grid(cells, grid, options)
    assert found is not None and len(found) == len(cells)
    assert [(log.eval.task, log.eval.model) for log in found] == [(c.suite, c.model) for c in cells]
    assert finished_grid(cells, grid, {**options, "max_tokens": 64}) is None
    assert finished_grid(cells, grid, {**options, "limit": 3}) is None
    assert finished_grid(cells[1:], grid, options) is None  # a log of no cell
    assert finished_grid(cells, str(grid), options) is None  # a location, not a local directory

    def broken(change: Callable[[Path, list[Path]], None]) -> list[FinishedLog] | None:
        copy = tmp_path / f"copy{len(list(tmp_path.iterdir()))}"
        shutil.copytree(grid, copy)
        change(copy, sorted(copy.glob("*.eval")))
        return finished_grid(cells, copy, options)

    assert broken(lambda d, logs: logs[0].unlink()) is None
    assert broken(lambda d, logs: shutil.copy(logs[0], d / f"x{logs[0].name}")) is None
    cut = broken(lambda d, logs: (logs[0].write_bytes(logs[0].read_bytes()[:-200]), touch(d)))
    assert cut is None
    assert broken(lambda d, logs: os.utime(logs[0])) is None  # newer than logs.json
    assert broken(lambda d, logs: (d / "logs.json").unlink()) is None
    assert broken(lambda d, logs: (d / "eval-set.json").write_text("{}")) is None
    assert broken(lambda d, logs: (d / "notes.json").write_text("{}")) is None
    assert broken(lambda d, logs: (d / "sub").mkdir() or shutil.copy(logs[0], d / "sub")) is None


def touch(directory: Path) -> None:
    """The manifest written after every log again."""
    os.utime(directory / "logs.json")


def test_the_tasks_record_what_the_finished_grid_expects() -> None:
    """The registered task functions' defaults, and the suites whose tasks have one."""
    from biaslab import _registry
    from biaslab.orchestrate import recorded_task_args, task_factory

    assert {name for name in suite_names() if hasattr(_registry, name)} == REGISTERED_TASKS
    for suite in REGISTERED_TASKS:
        assert recorded_task_args(task_factory(suite), {}) == TASK_ARG_DEFAULTS


def test_the_settings_a_finished_grid_ignores_are_inspects() -> None:
    """The fast path keeps its own copy of Inspect's partition (importing Inspect is what it
    avoids); it must be Inspect's exactly, not :data:`biaslab.identity.TRANSPORT_KEYS`, which
    is ours for another purpose (what can change an answer)."""
    from inspect_ai._eval.evalset import GENERATE_CONFIG_FIELDS_TO_EXCLUDE

    from biaslab import grid as grid_module

    assert frozenset(GENERATE_CONFIG_FIELDS_TO_EXCLUDE) == grid_module._TRANSPORT_SETTINGS


def test_a_grid_cell_without_a_finished_log_runs_again(grid: Path, tmp_path: Path) -> None:
    """The cell whose log is gone runs (its items generated); the finished ones are only skipped.
    The gone cell is the oracle's defeasible run, the grid's smallest (6 samples)."""
    from inspect_ai.log import read_eval_log

    def oracle_logs() -> dict[str, Path]:
        headers = {p: read_eval_log(str(p), header_only=True).eval for p in tmp_path.glob("*.eval")}
        return {e.task: p for p, e in headers.items() if e.model == "biaslab/oracle"}

    shutil.copytree(grid, tmp_path, dirs_exist_ok=True)  # a finished grid of its own
    before = sorted(p.name for p in tmp_path.glob("*.eval"))
    logs = oracle_logs()
    assert sorted(logs) == ["defeasible", "entrenchment", "fallacy", "tokenbias"]
    first = read_eval_log(str(logs["defeasible"]))
    logs["defeasible"].unlink()
    assert main(grid_command(tmp_path)) == 0
    again = oracle_logs()
    assert sorted(again) == sorted(logs)
    assert again["defeasible"] != logs["defeasible"]
    assert all(again[task] == logs[task] for task in ("entrenchment", "fallacy", "tokenbias"))
    others = sorted(p.name for p in tmp_path.glob("*.eval") if p != again["defeasible"])
    assert others == [name for name in before if name != logs["defeasible"].name]
    rerun = read_eval_log(str(again["defeasible"]))
    assert rerun.status == "success" and rerun.samples and first.samples
    assert [s.id for s in rerun.samples] == [s.id for s in first.samples]


def test_the_card_flags_exactly_the_built_in_biases(grid: Path, tmp_path: Path) -> None:
    analysis = analyse(grid)
    card = analysis.card()
    assert card is not None
    assert set(card.methods) == {"defeasible", "tokenbias", "fallacy", "entrenchment"}
    flagged = {
        row.model: sorted(m for m, cell in row.cells.items() if cell.significant)
        for row in card.rows
    }
    expected = {model: [method] if method else [] for model, method in BUILT_WITH.items()}
    assert flagged == expected
    sticky = next(row for row in card.rows if row.model == "biaslab/sticky?p=0.9")
    assert not sticky.cells["defeasible"].defined
    assert "stable turn of its stratum" in (sticky.cells["defeasible"].reason or "")
    # the report of this analysis (``biaslab report`` would analyse the logs again: the command
    # itself is tested in tests/test_cli.py and tests/test_report.py)
    write_report(analysis, tmp_path / "report")
    document = json.loads((tmp_path / "report" / "results.json").read_text(encoding="utf-8"))
    assert document["card"]["methods"] == list(card.methods)
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert markdown.index("## Bias card") < markdown.index("## Defeasible")
    assert (tmp_path / "report" / "bias_card.svg").is_file()
    assert (tmp_path / "report" / "bias_card.png").is_file()


def test_run_all_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["run", "all", "--model", "biaslab/oracle", "--log-dir", str(tmp_path)]
    for extra, fragment in (
        ((), "needs a judge model"),
        (("--judge", "biaslab/judge-reader", "-p", "topology=linear"), "SUITE.KEY=VALUE"),
        (("--judge", "biaslab/judge-reader", "--self-judge"), "mutually exclusive"),
    ):
        assert main([*base, *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and fragment in err[0], err
