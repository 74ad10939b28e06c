"""A small version of ``bench/bench_heldout.py --suite fallacy``: held-out answerers (written apart
from the chance level's code) read and scored by the suite's own reader, through its analysis."""

from __future__ import annotations

import itertools
from functools import cache

import pytest

from biaslab.runner import generate_items
from biaslab.schema import Item
from biaslab.suites.fallacy.analysis import ModelRow, analyze
from biaslab.suites.fallacy.heldout import AGENTS, Scorer, read_problem, replies
from biaslab.suites.fallacy.render import view_text
from biaslab.suites.fallacy.views import Literal, MView, Term

PROBLEM_SEED = 4201
N = 8
AGENT_SEEDS = (1, 2)
CHANCE = tuple(a for a in AGENTS.values() if a.kind == "chance")
SCORER = Scorer()


@cache
def items() -> tuple[Item, ...]:
    generated = generate_items("fallacy", preset=None, n=N, seed=PROBLEM_SEED,
                               params={"order": "both"})  # fmt: skip
    return tuple(generated.items)


@cache
def rows(seed: int) -> dict[tuple[str, str], ModelRow]:
    results = analyze(SCORER.frame(items(), list(AGENTS.values()), seed))
    return {(r.model.removeprefix("heldout/"), r.order): r for r in results.rows}


def test_the_null_counts_per_size_are_what_the_scorer_says_of_every_conjunction() -> None:
    """The agents' own candidates (every conjunction of 1 or 2 literals over distinct atoms of
    the problem), read and scored like a reply: the wrong ones and the ETR-predicted ones among
    them, per size, are the counts the item's chance level carries."""
    for item in items()[:4:2]:  # two problems, standard order
        problem = read_problem(item)
        counted = {size: (wrong, robust, paper) for size, wrong, robust, paper
                   in item.meta["chance_by_size"]}  # type: ignore[union-attr]  # fmt: skip
        for size in (1, 2):
            if size not in counted:
                continue
            wrong = robust = paper = 0
            for atoms in itertools.combinations(problem.atoms, size):
                for signs in itertools.product((True, False), repeat=size):
                    view = MView.build(
                        [[Literal(p, Term(c), s) for (p, c), s in zip(atoms, signs, strict=True)]]
                    )
                    record = SCORER.record(item, f"Answer: {view_text(view, problem.names)}")
                    assert record["answer_shape"] == "conjunction"
                    assert record["answer_literals"] == size
                    if not record["correct"]:
                        wrong += 1
                        robust += bool(record["fallacy"])
                        paper += bool(record["fallacy_paper"])
            assert (wrong, robust, paper) == counted[size], (item.id, size)


def test_chance_agents_are_not_flagged_above_the_nominal_rate() -> None:
    """7 agents x 2 orders x 2 answer seeds on 8 problems: robust or paper-label null p < 0.05 in
    at most 3 of the cells with a test (the bench: 6 problem sets x 5 answer seeds at n = 30)."""
    tested = rejected = 0
    for seed in AGENT_SEEDS:
        for agent in CHANCE:
            for order in ("standard", "reversed"):
                row = rows(seed)[(agent.name, order)]
                for p in (row.fallacy_rate_null_p, row.fallacy_rate_paper_null_p):
                    if p is not None:
                        tested += 1
                        rejected += p < 0.05
    assert tested >= 30, tested
    assert rejected <= 3, (rejected, tested)


def test_the_etr_lured_agent_is_caught_in_the_standard_order() -> None:
    """Four answer seeds pooled (as four epochs): ETR's conclusion on half of its errors is well
    above the chance level of its answers' shapes."""
    import pandas as pd

    lured = [AGENTS["etr-lured"]]
    frame = pd.concat([SCORER.frame(items(), lured, s).assign(epoch=s) for s in (1, 2, 3, 4)])
    row = next(r for r in analyze(frame).rows if r.order == "standard")
    assert row.fallacy_rate is not None and row.fallacy_rate_null is not None
    assert row.fallacy_rate_excess is not None and row.fallacy_rate_excess > 0.15
    assert row.fallacy_rate_null_p is not None and row.fallacy_rate_null_p < 0.01


def test_replies_are_seeded_per_item_and_read_by_the_suite() -> None:
    chosen = list(items()[:4])
    for agent in AGENTS.values():
        assert replies(chosen, agent, 1) == replies(chosen, agent, 1)
    assert any(replies(chosen, a, 1) != replies(chosen, a, 2) for a in CHANCE)
    for (name, _), row in rows(AGENT_SEEDS[0]).items():
        assert row.unparsed == 0, name
        assert row.chance_by_shape <= row.incorrect


@pytest.mark.parametrize("name", ["premises-one-literal", "quantified-size", "order"])
def test_wrong_answers_have_the_size_the_agent_chose(name: str) -> None:
    frame = SCORER.frame(items(), [AGENTS[name]], AGENT_SEEDS[0])
    wrong = frame[~frame["correct"].astype(bool)]
    quantified = wrong["item_quantified"].astype(bool)
    expected = 1 if name != "quantified-size" else quantified.map({True: 2, False: 1})
    assert (wrong["answer_literals"] == expected).all()


def test_an_etr_conclusion_without_english_form_falls_back_to_the_agents_own_error() -> None:
    """Some reversed orders give ETR a conclusion with an empty disjunct ("{0,~P1(c1())}"), which
    no sentence says: the lured agent then errs its own way rather than stopping the run."""
    from dataclasses import replace

    problem = replace(read_problem(items()[0]), etr_shown="{0,~P1(c1())}")
    always = replace(AGENTS["etr-lured"], accuracy=lambda _: 0.0, lure=1.0)
    reply = always.reply(problem, 1)
    assert reply.startswith("Answer: ") and reply != "Answer: nothing follows"
    assert always.reply(replace(problem, etr_shown=items()[0].meta["etr_conclusion"]), 1) == (
        f"Answer: {items()[0].meta['etr_conclusion_english']}"
    )
