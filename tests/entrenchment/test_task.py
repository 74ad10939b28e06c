"""The suite's own Inspect task end to end: reasoner and judge calls, records, roles, failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from biaslab.suites.entrenchment import prompts
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents
from biaslab.suites.entrenchment.prompts import SYSTEM_PROMPTS

from .helpers import beliefs, mock, run

COT = (
    "First, consider who pays for this and whether the costs fall on those least able to bear "
    "them.\n\nSecond, look at the evidence from places that already tried it; it is mixed at "
    "best.\n\nThird, weigh the principle against the practical problems of enforcement today."
)


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def test_agents_end_to_end_one_row_per_judgement(tmp_path: Path) -> None:
    log, frame = run(
        tmp_path / "logs", "biaslab/urn-bayes", "biaslab/judge-reader", n=4,
        judge_replicates="2", constructs="judge,judge_logprob,self_report",
    )  # fmt: skip
    assert log.status == "success" and frame is not None
    rows = beliefs(frame)
    # per item 7 prefixes; judge and logprob twice (replicates), self-report once, model only
    model = rows[rows["source"] == "model"]
    base = rows[rows["source"] == "judge_baseline"]
    assert len(model) == 4 * 7 * (2 + 2 + 1) and len(base) == 4 * 7 * (2 + 2)
    assert rows["parsed"].all()
    # the noiseless reader reads the Bayesian agent's stated posterior: beliefs are exact
    judged = base[base["belief_construct"] == "judge"]
    assert (judged["belief"] - judged["exact"]).abs().max() < 1e-4
    self_report = model[model["belief_construct"] == "self_report"].sort_values(["item_id", "step"])
    judge0 = model[(model["belief_construct"] == "judge") & (model["replicate"] == 0)]
    merged = self_report.merge(judge0, on=["item_id", "step"], suffixes=("_s", "_j"))
    assert (merged["belief_s"] - merged["belief_j"]).abs().max() < 1e-4
    lp = model[model["belief_construct"] == "judge_logprob"]
    assert lp["belief"].between(0, 1).all()
    trajectories = frame[frame["record"] == "trajectory"]
    assert len(trajectories) == 8 and (trajectories["n_steps"] == 6).all()
    keys = {"question", "step", "belief_construct", "replicate", "belief", "side", "parsed"}
    assert keys <= set(frame.columns)


def test_in_process_runner_gives_the_inspect_records(tmp_path: Path) -> None:
    params = {"judge_replicates": "2", "constructs": "judge,judge_logprob"}
    _, frame = run(
        tmp_path / "logs", "biaslab/urn-entrenched?w=0.5", "biaslab/judge-reader?noise=0.5",
        n=5, seed=3, **params,
    )  # fmt: skip
    assert frame is not None
    config = resolve_config(None, params)
    local = run_agents(
        generate(config, 3, 5), config, "urn-entrenched?w=0.5", "judge-reader?noise=0.5", seed=3
    )
    columns = ["item_id", "record", "belief_construct", "replicate", "step", "belief", "parsed"]
    key = ["item_id", "record", "belief_construct", "replicate", "step"]
    a = frame[columns].sort_values(key).reset_index(drop=True)
    b = local[columns].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)


def test_judge_sees_neither_the_system_prompt_nor_later_steps(tmp_path: Path) -> None:
    seen: list[str] = []

    def judge(messages: list[Any]) -> str:
        seen.append("\n".join(m.text for m in messages))
        return '{"belief": 0.6}'

    log, frame = run(
        tmp_path / "logs", mock(lambda m: COT), mock(judge), n=2,
        domain="claims", system_prompt="prior-conforming", judge_baseline="false",
    )  # fmt: skip
    assert log.status == "success" and frame is not None
    system = SYSTEM_PROMPTS["prior-conforming"]
    assert system and len(seen) == 2 * 4
    assert not any(system in text or "one direction" in text for text in seen)
    for text in seen:  # a prefix never shows a step beyond its own
        shown = text.count("[Step ")
        assert "Third, weigh" not in text or shown == 3
    assert sorted(text.count("[Step ") for text in seen) == [0, 0, 1, 1, 2, 2, 3, 3]
    rows = beliefs(frame)
    asked_yes = rows["asked_yes"].astype(bool)
    assert ((rows["belief"] - asked_yes.map({True: 0.6, False: 0.4})).abs() < 1e-12).all()


def test_malformed_judge_replies_are_recorded_as_unparsed(tmp_path: Path) -> None:
    replies = iter(["I refuse.", "70%", '```json\n{"belief": 0.2}\n```', "banana"] * 10)
    log, frame = run(
        tmp_path / "logs", mock(lambda m: COT), mock(lambda m: next(replies)), n=2,
        domain="claims", judge_baseline="false",
    )  # fmt: skip
    assert log.status == "success" and frame is not None
    rows = beliefs(frame)
    assert rows["parsed"].sum() == 4 and (~rows["parsed"]).sum() == 4
    assert rows.loc[~rows["parsed"], "error"].notna().all()
    assert rows.loc[~rows["parsed"], "belief"].isna().all()


def test_a_missing_judge_fails_with_one_line(tmp_path: Path) -> None:
    log, _ = run(tmp_path / "logs", "biaslab/urn-bayes", None, n=1)
    errors = [s.error.message for s in log.samples or [] if s.error]
    assert len(errors) == 2  # the question and its judge-baseline question
    assert all("needs a judge model" in e for e in errors)
    assert all("--model-role judge=MODEL" in e for e in errors)


def test_paper_mode_retries_once_then_marks_the_trajectory_failed(tmp_path: Path) -> None:
    calls: list[int] = []

    def judge(messages: list[Any]) -> str:
        calls.append(len(messages))
        return '{"beliefs": [0.5, 0.6]}'  # always two, never the four needed

    log, frame = run(
        tmp_path / "logs", mock(lambda m: COT), mock(judge), n=1,
        domain="claims", judge_mode="trajectory", judge_baseline="false",
    )  # fmt: skip
    assert log.status == "success" and frame is not None
    assert calls == [1, 3]  # the retry adds the reply and a correction
    rows = beliefs(frame)
    assert len(rows) == 4 and rows["failed"].all() and rows["retried"].all()
    assert not rows["parsed"].any() and "after one retry" in rows["error"].iloc[0]


def test_paper_mode_accepts_a_corrected_reply(tmp_path: Path) -> None:
    replies = iter(["[0.5, 0.6]", '{"beliefs": [0.5, 0.6, 0.7, 0.8]}'])
    log, frame = run(
        tmp_path / "logs", mock(lambda m: COT), mock(lambda m: next(replies)), n=1,
        domain="claims", judge_mode="trajectory", judge_baseline="false",
    )  # fmt: skip
    assert log.status == "success" and frame is not None
    rows = beliefs(frame).sort_values("step")
    assert rows["parsed"].all() and rows["retried"].all() and not rows["failed"].any()
    assert (rows["judge_mode"] == "trajectory").all()


def test_paper_mode_asks_again_when_a_reply_mixes_scales(tmp_path: Path) -> None:
    follow_ups: list[str] = []
    replies = iter(["[0.5, 60, 0.7, 0.8]", "[0.5, 0.6, 0.7, 0.8]"])

    def judge(messages: list[Any]) -> str:
        if len(messages) > 1:
            follow_ups.append(messages[-1].text)
        return next(replies)

    log, frame = run(
        tmp_path / "logs", mock(lambda m: COT), mock(judge), n=1,
        domain="claims", judge_mode="trajectory", judge_baseline="false",
    )  # fmt: skip
    assert log.status == "success" and frame is not None
    [follow_up] = follow_ups
    assert "mixed scales: 0.5 and 60" in follow_up and "from 0 to 1" in follow_up
    rows = beliefs(frame).sort_values("step")
    assert rows["parsed"].all() and rows["retried"].all()
    assert not rows["rescaled"].any()
    yes = rows["asked_yes"].iloc[0]
    expected = [0.5, 0.6, 0.7, 0.8] if yes else [0.5, 0.4, 0.3, 0.2]
    assert rows["belief"].tolist() == pytest.approx(expected)


def test_debate_alternates_tagged_sides_from_a_random_opener(tmp_path: Path) -> None:
    def debater(messages: list[Any]) -> str:
        first = messages[0].text
        side = "yes" if 'the answer is "yes"' in first else "no"
        return f"I argue {side}: speech {sum(m.role == 'assistant' for m in messages) + 1}."

    prompts_seen: list[str] = []

    def judge(messages: list[Any]) -> str:
        prompts_seen.append(messages[-1].text)
        return '{"belief": 0.5}'

    log, frame = run(
        tmp_path / "logs", mock(debater), mock(judge), n=6,
        domain="claims", mode="debate", rounds="2", judge_baseline="false",
    )  # fmt: skip
    assert log.status == "success" and frame is not None
    rows = beliefs(frame)
    openers = set()
    for _, group in rows.groupby("item_id"):
        group = group.sort_values("step")
        sides = group["side"].tolist()
        assert sides[0] is None or pd.isna(sides[0])
        speech_sides = sides[1:]
        assert len(speech_sides) == 4
        assert speech_sides[0] != speech_sides[1] and speech_sides[0::2] == [speech_sides[0]] * 2
        assert group["round"].tolist() == [0, 1, 1, 2, 2]
        openers.add(speech_sides[0])
        assert speech_sides[0] == group["item_opener"].iloc[0]
    assert openers == {"yes", "no"}
    assert any('[Speech 1, for "' in p for p in prompts_seen)
    assert any("I argue yes: speech 2." in p or "I argue no: speech 2." in p for p in prompts_seen)


def test_urn_debaters_see_the_draws_and_the_judge_sees_only_the_speeches(tmp_path: Path) -> None:
    openings: list[str] = []
    judged: list[str] = []

    def debater(messages: list[Any]) -> str:
        openings.append(messages[0].text)
        return "The draws favour my side, as I will show."

    def judge(messages: list[Any]) -> str:
        judged.append(messages[-1].text)
        return '{"belief": 0.5}'

    log, frame = run(
        tmp_path / "logs", mock(debater), mock(judge), n=2,
        mode="debate", rounds="1", judge_baseline="false",
    )  # fmt: skip
    assert log.status == "success" and frame is not None
    items = generate(resolve_config(None, {"mode": "debate", "rounds": "1"}), 0, 2)
    draws = {i.meta["detail"]["reasoner_text"].rsplit("\n", 1)[1] for i in items}
    assert all(d.startswith("The draws, in order: ") for d in draws)
    assert len(openings) == 2 * 2  # two debaters per question, one speech each
    assert all(any(d in text for d in draws) for text in openings)
    assert judged and not any("The draws, in order" in text for text in judged)


def test_replicates_have_their_own_cache_entries_even_with_one_wording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # with a single wording both replicates send the same text: only the scope tells them apart
    monkeypatch.setattr(prompts, "JUDGE_WORDINGS", prompts.JUDGE_WORDINGS[:1])
    calls: list[str] = []

    def judge(messages: list[Any]) -> str:
        calls.append(messages[-1].text)
        return '{"belief": 0.5}'

    judge_model = mock(judge)
    common = {"domain": "claims", "judge_baseline": "false"}
    run(tmp_path / "a", mock(lambda m: COT), judge_model, n=2, judge_replicates="1", **common)
    first = list(calls)
    assert len(first) == 2 * 4
    run(tmp_path / "b", mock(lambda m: COT), judge_model, n=2, judge_replicates="2", **common)
    # replicate 0 comes from run a's entries; replicate 1, the same texts, is asked anew
    assert sorted(calls[len(first) :]) == sorted(first)
    run(tmp_path / "c", mock(lambda m: COT), judge_model, n=2, judge_replicates="2", **common)
    assert len(calls) == 2 * 2 * 4  # and both are cached for good


def test_questions_with_identical_prompts_have_their_own_cache_entries(tmp_path: Path) -> None:
    calls: list[str] = []

    def judge(messages: list[Any]) -> str:
        calls.append(messages[-1].text)
        return '{"belief": 0.5}'

    judge_model = mock(judge)
    # every urn question states prior 0.5, and the reasoner always writes the same steps: two
    # questions with the same presentation send the judge the same texts
    common = {"prior_low": "0.5", "prior_high": "0.504", "judge_baseline": "false"}
    run(tmp_path / "a", mock(lambda m: COT), judge_model, n=1, **common)
    first = set(calls)
    assert len(calls) == 4
    run(tmp_path / "b", mock(lambda m: COT), judge_model, n=8, **common)
    later = calls[4:]
    assert first <= set(later)  # a later question repeats question 0's prompts ...
    assert len(later) == 7 * 4  # ... and is still asked: only question 0 is served from the cache
