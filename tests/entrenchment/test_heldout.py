"""A small version of ``bench/bench_heldout.py --suite entrenchment``: held-out reasoners (written
apart from the calibration agents and the judge baseline's text) through the suite's pipeline,
judged by the noiseless ``judge-reader``."""

from __future__ import annotations

from functools import cache

import pandas as pd
import pytest

from biaslab.schema import Item
from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.heldout import AGENTS, asker, read_question
from biaslab.suites.entrenchment.inprocess import run_agents
from biaslab.suites.entrenchment.results import SetupResult
from biaslab.suites.entrenchment.urn import parse_problem, posterior_path

SEEDS = (4101, 4102, 4103)
N = 60
CONFIG = resolve_config(None, {"judge_replicates": "1"})
MARTINGALES = tuple(name for name, agent in AGENTS.items() if agent.biased is False)


@cache
def model_items(seed: int) -> tuple[Item, ...]:
    return tuple(i for i in generate(CONFIG, seed, N) if i.meta["source"] == "model")


def frame(seed: int, name: str) -> pd.DataFrame:
    agent = AGENTS[name]
    return run_agents(
        list(model_items(seed)), CONFIG, f"heldout/{name}", "judge-reader", seed=seed,
        ask_model=asker(agent),
    )  # fmt: skip


@cache
def setups(seed: int) -> dict[str, SetupResult]:
    frames = [frame(seed, name) for name in AGENTS]
    results = analyze(pd.concat(frames, ignore_index=True))
    return {s.model.removeprefix("heldout/"): s for s in results.setups}


@pytest.mark.parametrize("name", list(AGENTS))
def test_the_judge_reads_back_exactly_the_beliefs_the_agent_states(name: str) -> None:
    """The reference judge reads the belief stated at the end of each paragraph (about urn A or
    urn B) and, before any, the prior the question states."""
    data = frame(SEEDS[0], name)
    beliefs = data[data["record"] == "belief"].sort_values(["item_id", "step"])
    assert beliefs["parsed"].all()
    for item in model_items(SEEDS[0])[:10]:
        question = read_question(item.turns[0].prompt)
        assert question is not None
        expected = [question.prior, *AGENTS[name].beliefs(question)]
        found = beliefs[beliefs["item_id"] == item.id]["belief"].tolist()
        assert found == pytest.approx([round(b, 4) for b in expected], abs=1e-4), name
        if name == "states-urn-b":  # the exact posterior, stated about the other urn
            problem = parse_problem(item.turns[0].prompt)
            assert problem is not None
            assert found == pytest.approx(posterior_path(problem), abs=1e-4)


def test_martingale_reasoners_are_not_rejected_above_the_nominal_rate() -> None:
    """5 martingales x 3 seeds at 60 questions: CR1 p < 0.05 in at most 2 of 15 (expected 0.75;
    the bench: 30 seeds at 100 questions with exact CIs)."""
    cells = [setups(seed)[name] for seed in SEEDS for name in MARTINGALES]
    assert all(c.m is not None and c.m_p is not None for c in cells)
    rejected = [c.model for c in cells if c.m_p is not None and c.m_p < 0.05]
    assert len(rejected) <= 2, rejected
    assert abs(sum(c.m or 0.0 for c in cells) / len(cells)) < 0.01


def test_the_entrenched_reasoner_is_caught_in_every_seed() -> None:
    for seed in SEEDS:
        cell = setups(seed)["discards-disconfirming"]
        assert cell.m is not None and cell.m > 0.01, seed
        assert cell.m_p is not None and cell.m_p < 0.01, seed


def test_replies_depend_on_the_prompt_alone() -> None:
    prompt = model_items(SEEDS[0])[0].turns[0].prompt
    for agent in AGENTS.values():
        assert agent.reply(prompt) == agent.reply(prompt)
        assert agent.reply("no urn here") != agent.reply(prompt)
