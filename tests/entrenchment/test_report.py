"""Results serialise, and the report section has its tables, figures and decisions."""

from __future__ import annotations

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
