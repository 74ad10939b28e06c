"""Results serialise, and the report section has its tables, figures and decisions."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pandas as pd

from biaslab.analysis import Analysis
from biaslab.report import write_report
from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents
from biaslab.suites.entrenchment.report import tables
from biaslab.suites.entrenchment.results import EntrenchmentResults


def results() -> EntrenchmentResults:
    config = resolve_config(None, {"judge_replicates": "2"})
    items = generate(config, 0, 15)
    frames = [
        run_agents(items, config, agent, "judge-reader?noise=0.3")
        for agent in ("urn-bayes", "urn-entrenched")
    ]
    return analyze(pd.concat(frames, ignore_index=True))


def test_results_round_trip_and_report(tmp_path: Path) -> None:
    res = results()
    again = EntrenchmentResults.model_validate_json(res.model_dump_json())
    assert again == res
    fields = set(res.setups[0].model_dump())
    for name in ("m", "m_lo", "m_hi", "m_p", "se_type", "n_questions", "n_pairs", "mean_steps",
                 "m_iv", "m_judge_baseline", "brier_first", "brier_final", "m_null",
                 "m_null_lo", "m_null_hi", "m_excess", "m_null_p"):  # fmt: skip
        assert name in fields
    text = tables(res)
    assert "judge baseline" in text and "CR1" in text
    analysis = Analysis({"entrenchment": res}, source="in-process")
    md = write_report(analysis, tmp_path / "report").read_text(encoding="utf-8")
    assert "## Belief entrenchment (Martingale score)" in md
    for figure in ("forest", "scatter", "trajectories", "steps", "failures"):
        assert f"entrenchment_{figure}.svg" in md
        assert (tmp_path / "report" / f"entrenchment_{figure}.svg").is_file()
    assert "### Decisions" in md and "never subtracted" in md


def _cells(line: str) -> int:
    return len(re.split(r"(?<!\\)\|", line.strip().strip("|")))


def test_every_markdown_table_row_lines_up_with_its_header(tmp_path: Path) -> None:
    """Setup labels hold no table delimiter, so every row has its header's cell count; the
    reasons for unparsed judgements and the capped count are in the report."""
    config = resolve_config(None, {"judge_replicates": "2"})
    frame = run_agents(generate(config, 0, 12), config, "urn-bayes", "judge-reader?noise=0.3")
    hit = (frame["record"] == "belief") & (frame["step"] == 2)
    frame["error"] = frame["error"].astype(object)
    frame.loc[hit, "belief"] = None
    frame.loc[hit, "parsed"] = False
    frame.loc[hit, "error"] = "echo of the prompt: z"
    res = analyze(frame)
    assert all("|" not in s.label for s in res.setups)
    md = write_report(Analysis({"entrenchment": res}, source="x"), tmp_path / "r").read_text()
    tables_seen = 0
    lines = md.splitlines()
    for index, line in enumerate(lines):
        rule = lines[index + 1] if index + 1 < len(lines) else ""
        if line.startswith("|") and rule.startswith("|-") and set(rule) <= set("|-: "):
            tables_seen += 1
            width = _cells(line)
            body = itertools.takewhile(lambda x: x.startswith("|"), lines[index + 2 :])
            assert all(_cells(row) == width for row in body), line
    assert tables_seen >= 3
    assert "Unparsed judgements by reason" in md and "echo of the prompt" in md
    assert "| capped |" in md
