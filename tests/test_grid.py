"""``biaslab run all``: four suites x several models as one Inspect eval set, resumable, and a bias
card that flags exactly the bias each reference agent was built with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biaslab.analysis import analyse
from biaslab.cli import main

#: agent -> the one method whose bias it was built to show (None: no bias)
BUILT_WITH = {
    "biaslab/oracle": None,
    "biaslab/random": None,
    # at n = 4 no defeat turn shares its stratum with a stable turn, so the defeasible null
    # cannot test it (checked below); tests/defeasible/test_heldout.py flags a sticky agent at n=90
    "biaslab/sticky?p=0.9": None,
    "biaslab/token-biased": "tokenbias",
    "biaslab/etr": "fallacy",
    "biaslab/urn-entrenched?w=0.5": "entrenchment",
}
#: the smallest sizes at which each built-in bias is flagged (defeasible only has to run)
ARGS = ["--judge", "biaslab/judge-reader", "--n", "12", "-p", "entrenchment.n=40"]
ARGS += ["-p", "defeasible.n=4"]


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log_dir = tmp_path_factory.mktemp("grid")
    models = [arg for model in BUILT_WITH for arg in ("--model", model)]
    command = ["run", "all", *models, *ARGS, "--log-dir", str(log_dir), "--display", "none"]
    assert main(command) == 0
    return log_dir


def log_statuses(log_dir: Path) -> list[str]:
    from inspect_ai.log import read_eval_log

    out = []
    for path in sorted(log_dir.glob("*.eval")):
        log = read_eval_log(str(path), header_only=True)
        error = log.error.message.splitlines()[0][:200] if log.error else ""
        out.append(f"{path.name} {log.status} {log.eval.model} {error}")
    return out


def test_a_rerun_of_a_finished_grid_generates_nothing(
    grid: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import biaslab.runner
    from biaslab.suites.fallacy import workers

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a finished grid's re-run generated items or started a worker pool")

    monkeypatch.setattr(biaslab.runner, "generate_items", refuse)
    monkeypatch.setattr(workers, "pool", refuse)
    before = sorted(p.name for p in grid.glob("*.eval"))
    assert len(before) == 4 * len(BUILT_WITH), "\n".join(log_statuses(grid))
    models = [arg for model in BUILT_WITH for arg in ("--model", model)]
    assert main(["run", "all", *models, *ARGS, "--log-dir", str(grid), "--display", "none"]) == 0
    assert sorted(p.name for p in grid.glob("*.eval")) == before


def test_a_grid_cell_without_a_finished_log_runs_again(tmp_path: Path) -> None:
    """The cell whose log is gone runs (its items generated); the finished one is only skipped."""
    from inspect_ai.log import read_eval_log

    command = ["run", "all", "--model", "biaslab/oracle", "--judge", "biaslab/judge-reader"]
    command += ["--n", "2", "-p", "entrenchment.n=4", "--log-dir", str(tmp_path)]
    command += ["--display", "none"]
    assert main(command) == 0
    logs = {read_eval_log(str(p), header_only=True).eval.task: p for p in tmp_path.glob("*.eval")}
    assert sorted(logs) == ["defeasible", "entrenchment", "fallacy", "tokenbias"]
    first = read_eval_log(str(logs["tokenbias"]))
    logs["tokenbias"].unlink()
    assert main(command) == 0
    again = {read_eval_log(str(p), header_only=True).eval.task: p for p in tmp_path.glob("*.eval")}
    assert sorted(again) == sorted(logs)
    assert again["tokenbias"] != logs["tokenbias"]
    assert all(again[task] == logs[task] for task in ("defeasible", "entrenchment", "fallacy"))
    rerun = read_eval_log(str(again["tokenbias"]))
    assert rerun.status == "success" and rerun.samples and first.samples
    assert [s.id for s in rerun.samples] == [s.id for s in first.samples]


def test_the_card_flags_exactly_the_built_in_biases(grid: Path, tmp_path: Path) -> None:
    card = analyse(grid).card()
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
    assert main(["report", str(grid), "-o", str(tmp_path / "report")]) == 0
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
