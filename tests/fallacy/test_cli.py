"""The suite through the CLI: reference agents run as Inspect evals, analysed, reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biaslab.cli import main


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    logs = tmp_path_factory.mktemp("fallacy") / "logs"
    models = ["--model", "biaslab/oracle", "--model", "biaslab/etr", "--model", "biaslab/random"]
    run = ["run", "fallacy", *models, "--n", "4", "--seed", "4", "-p", "order=both"]
    assert main([*run, "--log-dir", str(logs), "--display", "none"]) == 0
    out = logs.parent / "results.json"
    assert main(["analyze", str(logs), "-o", str(out)]) == 0
    report = logs.parent / "report"
    assert main(["report", str(logs), "-o", str(report)]) == 0
    document = json.loads(out.read_text())
    return {
        "results": document["suites"]["fallacy"],
        "card": document["card"],
        "report": (report / "report.md").read_text(),
    }


def rows(results: dict[str, object], model: str) -> list[dict[str, object]]:
    data = results["results"]
    assert isinstance(data, dict)
    return [r for r in data["rows"] if r["model"] == f"biaslab/{model}"]


def test_oracle_is_always_right_so_its_fallacy_rate_is_undefined(
    results: dict[str, object],
) -> None:
    for row in rows(results, "oracle"):
        assert row["unparsed"] == 0 and row["accuracy"] == 1.0 and row["n"] == 4
        assert row["fallacy_rate"] is None and "no incorrect" in str(row["reason"])


def test_every_etr_error_is_a_fallacy(results: dict[str, object]) -> None:
    for row in rows(results, "etr"):
        assert row["unparsed"] == 0 and row["lenient"] == 0
        assert row["fallacy_rate"] == 1.0
        if row["order"] == "standard":  # ETR's conclusion of the standard order is never valid
            assert row["accuracy"] == 0.0 and row["fallacy_rate_null_p"] < 0.05  # type: ignore[operator]


def test_random_answers_are_read_and_not_above_chance(results: dict[str, object]) -> None:
    for row in rows(results, "random"):
        assert row["unparsed"] == 0
        assert row["fallacy_rate_null"] is not None
        assert row["fallacy_rate_null_p"] > 0.01  # type: ignore[operator]


def test_reversal_table_and_report(results: dict[str, object]) -> None:
    data = results["results"]
    assert isinstance(data, dict)
    reversal = {r["model"]: r for r in data["reversal"]}
    assert set(reversal) == {"biaslab/oracle", "biaslab/etr", "biaslab/random"}
    assert reversal["biaslab/oracle"]["fallacies_standard"] == 0
    assert reversal["biaslab/etr"]["pairs"] == 4
    report = str(results["report"])
    assert "## Fallacies (ETR)" in report and "Premise-order reversal" in report


def test_bias_card_cells(results: dict[str, object]) -> None:
    card = results["card"]
    assert isinstance(card, dict) and "fallacy" in card["methods"]
    cells = {row["model"]: row["cells"]["fallacy"] for row in card["rows"]}
    assert not cells["biaslab/oracle"]["defined"]
    assert cells["biaslab/etr"]["value"] == 1.0 and cells["biaslab/etr"]["null_label"] == "chance"
    assert cells["biaslab/etr"]["significant"] is True


def test_generate_with_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "items.jsonl"
    assert main(["generate", "fallacy", "--n", "3", "--seed", "9", "-o", str(out), "--stats"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (
        stats["problems"] == 3
        and stats["invalid"] == 3
        and stats["atoms"] == {"4": 1, "5": 1, "6": 1}
    )
    assert main(["generate", "fallacy", "-p", "order=upside-down", "-o", str(out)]) == 2
