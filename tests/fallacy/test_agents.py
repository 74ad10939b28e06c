"""The reference agents read only the prompt; the parser scores their answers (and others')."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import pandas as pd

from biaslab.agents.base import Message, Request, make_agent
from biaslab.runner import generate_items
from biaslab.schema import Item
from biaslab.suites.fallacy.reasoner import read_prompt
from biaslab.suites.fallacy.scoring import FallacyRecord, read_view
from biaslab.suites.fallacy.views import Literal, MView, Term, parse_pyetr


@pytest.fixture(scope="module")
def items() -> list[Item]:
    return generate_items("fallacy", preset=None, n=4, seed=7, params={"quantified": "0.5"}).items


def ask(item: Item, agent: str) -> str:
    text, _ = make_agent(agent).respond(Request((Message("user", item.turns[0].prompt),)))
    return text


def rename(view: MView, item: Item, words_to_names: dict[str, str]) -> str:
    """The item's view in the prompt reader's names (c1.., P1.. in the order the prompt lists)."""
    words = {**item.meta["names"]["objects"], **item.meta["names"]["properties"]}  # type: ignore[index]

    def literal(lit: Literal) -> Literal:
        term = lit.term if lit.term.variable else Term(words_to_names[words[lit.term.name]])
        return Literal(words_to_names[words[lit.predicate]], term, lit.positive)

    renamed = MView(
        stage=frozenset(frozenset(literal(x) for x in s) for s in view.stage),
        supposition=frozenset(literal(x) for x in view.supposition),
        universals=view.universals,
        existentials=view.existentials,
        dependencies=view.dependencies,
        issues=frozenset(literal(x) for x in view.issues),
    )
    return renamed.canonical().to_pyetr()


def test_the_prompt_reads_back_into_the_items_premises(items: list[Item]) -> None:
    for item in items:
        problem = read_prompt(item.turns[0].prompt)
        assert problem is not None
        reverse = {
            **{w: c for c, w in problem.names.objects.items()},
            **{w: p for p, w in problem.names.properties.items()},
        }
        expected = [rename(parse_pyetr(p), item, reverse) for p in item.meta["premises"]]  # type: ignore[union-attr]
        assert [p.to_pyetr() for p in problem.premises] == expected  # issue marks included


def test_oracle_etr_and_random_answers_score_as_designed(items: list[Item]) -> None:
    for item in items:
        turn = item.turns[0]
        oracle = read_view(turn, item, ask(item, "oracle"))
        assert oracle.parse_mode in ("strict", "nothing") and oracle.correct and not oracle.fallacy
        etr = read_view(turn, item, ask(item, "etr"))
        assert etr.parse_mode == "strict" and not etr.correct and etr.fallacy and etr.matches_etr
        assert etr.deciders_agree
        random = read_view(turn, item, ask(item, "random"))
        assert random.parsed and random.fallacy is not None
        assert ask(item, "random") == ask(item, "random")  # seeded by the request


def test_records_for_unread_and_nothing_follows(items: list[Item]) -> None:
    item, turn = items[0], items[0].turns[0]
    refusal = read_view(turn, item, "I would rather not say.")
    assert isinstance(refusal, FallacyRecord)
    assert not refusal.parsed and not refusal.correct and refusal.fallacy is None
    assert refusal.parse_error == "no 'Answer:' line"
    nothing = read_view(turn, item, "Answer: nothing follows")
    assert nothing.parsed and nothing.parse_mode == "nothing" and nothing.correct
    assert nothing.predicted == "{0}" and nothing.fallacy is False
    other = make_agent("always-yes").respond(Request((Message("user", turn.prompt),)))[0]
    assert not read_view(turn, item, other).parsed  # agents without an open answer refuse


def agent_frame(items: list[Item], agents: tuple[str, ...]) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for agent in agents:
        for item in items:
            record = read_view(item.turns[0], item, ask(item, agent))
            meta = {f"item_{k}": v for k, v in item.meta.items()}
            rows.append({**record.model_dump(), **meta, "model": agent, "item_id": item.id})
    return pd.DataFrame(rows)


def test_reference_agents_through_the_analysis_etr_detected_oracle_and_random_not(
    items: list[Item],
) -> None:
    from biaslab.suites.fallacy.analysis import analyze

    results = analyze(agent_frame(items, ("oracle", "etr", "random")))
    rows = {r.model: r for r in results.rows}
    assert rows["oracle"].fallacy_rate is None and rows["oracle"].unparsed == 0
    etr = rows["etr"]
    ground = [i for i in items if not {"∀", "∃"} & set(str(i.meta["etr_conclusion"]))]
    assert etr.fallacy_rate == 1.0 and etr.incorrect == len(items)
    assert etr.chance_by_shape == len(ground) >= 1  # quantified conclusions: the pooled share
    assert etr.fallacy_rate_null is not None and etr.fallacy_rate_null < 0.6
    assert etr.fallacy_rate_null_p is not None and etr.fallacy_rate_null_p < 0.05
    random = rows["random"]
    assert random.unparsed == 0 and random.chance_by_shape == random.incorrect
    assert random.fallacy_rate_null_p is None or random.fallacy_rate_null_p > 0.05
