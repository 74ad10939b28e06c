"""The reader's audit: a seeded sample of answers of every reply kind with what each was read
as, the same whatever order the answers come in, in the report and as terminal text."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from biaslab.suites.fallacy.analysis import analyze
from biaslab.suites.fallacy.audit import sample_readings, show_readings
from biaslab.suites.fallacy.report import report, tables
from biaslab.suites.fallacy.scoring import reading_english
from biaslab.suites.fallacy.views import parse_pyetr
from tests.fallacy.golden_answers import NAMES

KINDS = {
    "strict": 9,
    "lenient": 2,
    "nothing": 4,
    "hedged": 3,
    "refusal": 1,
    "no_answer": 2,
    "unreadable": 7,
}


def frame() -> pd.DataFrame:
    rows = []
    for kind, count in KINDS.items():
        for i in range(count):
            parsed = kind in ("strict", "lenient", "nothing")
            rows.append(
                {
                    "model": f"m{i % 2}",
                    "item_id": f"{kind}-{i}",
                    "epoch": 1,
                    "turn": 0,
                    "parsed": parsed,
                    "correct": False,
                    "parse_mode": kind if parsed else None,
                    "parse_status": kind,
                    "sentence": "" if kind == "no_answer" else f"answer {kind} {i} | with a pipe",
                    "completion": f"reasoning for {kind} {i}",
                    "read_as": f"the lamp is bright ({kind} {i})" if parsed else None,
                    "predicted": "{P1(c1())}" if parsed else None,
                    "parse_error": None if parsed else f"{kind} answer",
                    "item_problem_id": f"{kind}-{i}",
                    "item_order": "standard",
                    "item_chance_share": 0.2,
                    "item_chance_share_paper": 0.1,
                }
            )
    return pd.DataFrame(rows)


def test_every_kind_is_sampled_up_to_n_answers_each() -> None:
    samples = sample_readings(frame(), 3, seed=1)
    by_kind = {kind: sum(s.kind == kind for s in samples) for kind in KINDS}
    assert by_kind == {kind: min(3, count) for kind, count in KINDS.items()}
    assert [s.kind for s in samples] == sorted(
        (s.kind for s in samples), key=list(KINDS).index
    )  # the kinds in the reader's order


def test_the_sample_depends_on_the_seed_not_on_the_frame_order() -> None:
    data = frame()
    shuffled = data.sample(frac=1.0, random_state=7).reset_index(drop=True)
    assert sample_readings(data, 3, seed=1) == sample_readings(shuffled, 3, seed=1)
    assert sample_readings(data, 3, seed=1) != sample_readings(data, 3, seed=2)


def test_a_sampled_answer_shows_its_reading_or_why_it_was_not_read() -> None:
    samples = sample_readings(frame(), 9, seed=0)
    for sample in samples:
        if sample.kind in ("strict", "lenient", "nothing"):
            assert sample.read_as is not None and sample.read_as.startswith("the lamp")
        else:
            assert sample.read_as is None and sample.note == f"{sample.kind} answer"
    no_line = next(s for s in samples if s.kind == "no_answer")
    assert no_line.answer.startswith("(no answer line)") and "reasoning for" in no_line.answer


def test_show_readings_prints_each_kind_with_its_answers() -> None:
    text = show_readings(frame(), 2, seed=0)
    for kind in KINDS:
        assert f"== {kind} (" in text
    assert "read as: the lamp is bright" in text and "note: hedged answer" in text
    assert show_readings(frame().iloc[0:0], 2, seed=0).startswith("no fallacy answers")


def test_the_report_counts_every_kind_and_shows_the_audit(tmp_path: Path) -> None:
    results = analyze(frame())
    counted = {
        "strict": sum(r.strict for r in results.rows),
        "lenient": sum(r.lenient for r in results.rows),
        "nothing": sum(r.nothing_follows for r in results.rows),
        "hedged": sum(r.hedged for r in results.rows),
        "refusal": sum(r.refusals for r in results.rows),
        "no_answer": sum(r.no_answer for r in results.rows),
        "unreadable": sum(r.unreadable for r in results.rows),
    }
    assert counted == KINDS
    markdown = report(results, tmp_path)
    assert "### Audit: answers of every kind" in markdown
    assert (
        "with a pipe" in markdown and "\\| with a pipe" in markdown
    )  # a pipe cannot break the table
    assert "no answer line" in tables(results)


def test_a_reading_is_recorded_in_the_problems_own_words() -> None:
    view = parse_pyetr("{P1(c1())P2(c2())}^{P1(c1())}")
    english = reading_english(view, NAMES["shop"])
    assert english == "if the lamp is bright, then the kettle is hot"
