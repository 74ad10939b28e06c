"""The defeasible reasoner through the reference agents: the oracle must be right on every turn of
every preset when fed the real message history (which proves rendering is faithful)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import cache

import pytest

from biaslab.agents.base import Message, Request, make_agent, reasoner_for
from biaslab.answers import format_instruction
from biaslab.schema import Item
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.reasoner import REASONER, DefeasibleReasoner
from biaslab.suites.defeasible.render import has_negation_cue

Answerer = Callable[[Request], str]


@cache
def conversations(preset: str, reveal: str, entities: str, order: str, n: int) -> tuple[Item, ...]:
    overrides = {"reveal": reveal, "entities": entities, "question_order": order}
    return tuple(generate(resolve_config(preset, overrides), 17, n))


def play(item: Item, answer: Answerer) -> Iterator[tuple[int, str, Request]]:
    """Feed the item turn by turn, appending the agent's own replies; yield (turn, reply, request)."""
    messages = [Message("system", item.system or "")]
    for turn in item.turns:
        messages.append(Message("user", turn.prompt))
        request = Request(tuple(messages))
        reply = answer(request)
        yield turn.index, reply, request
        messages.append(Message("assistant", reply))


def agent_answerer(spec: str) -> Answerer:
    agent = make_agent(spec)
    return lambda request: agent.respond(request)[0].removeprefix("Answer: ")


@pytest.mark.parametrize("preset", ["easy", "hard"])
@pytest.mark.parametrize("reveal", ["serial", "random"])
@pytest.mark.parametrize("entities", ["pseudo", "real"])
def test_oracle_answers_every_turn_correctly(preset: str, reveal: str, entities: str) -> None:
    order = "reversed" if reveal == "serial" else "standard"
    oracle = agent_answerer("oracle")
    items = conversations(preset, reveal, entities, order, 20)
    assert len(items) == 60
    for item in items:
        for index, reply, _ in play(item, oracle):
            assert reply == item.turns[index].gold, (item.id, index)


def test_reasoner_accepts_its_own_questions_only() -> None:
    item = conversations("easy", "random", "pseudo", "standard", 2)[0]
    first = Request((Message("user", item.turns[0].prompt),))
    assert REASONER.accepts(first)
    assert isinstance(reasoner_for(first), DefeasibleReasoner)
    other = Request((Message("user", f"PARITY 3\n{format_instruction(('yes', 'no'))}"),))
    assert not REASONER.accepts(other)


def test_prior_answer_is_the_previous_same_kind_answer_in_the_section() -> None:
    item = next(
        i
        for i in conversations("hard", "random", "pseudo", "standard", 6)
        if i.meta["topology"] == "default" and i.meta["n_sections"] > 1
    )
    answers = iter(["yes", "no", "unknown"] * 200)
    priors = [
        (index, REASONER.prior_answer(request), reply)
        for index, reply, request in play(item, lambda _: next(answers))
    ]
    last_by_kind: dict[str, str] = {}
    for (index, prior, reply), turn in zip(priors, item.turns, strict=True):
        kind = "effect" if turn.kind == "effect" else "entailment"
        if turn.kind == "initial":
            assert prior is None, index
            last_by_kind = {}
        else:
            assert prior == last_by_kind.get(kind), index
        labels = turn.labels
        last_by_kind[kind] = reply if reply in labels else None  # type: ignore[assignment]


def test_sticky_with_p1_never_revises_a_prior_yes() -> None:
    sticky = agent_answerer("sticky?p=1")
    revised_somewhere = False
    for item in conversations("easy", "random", "pseudo", "standard", 20):
        previous: str | None = None
        for index, reply, _ in play(item, sticky):
            turn = item.turns[index]
            if turn.kind == "initial":
                previous = reply
                continue
            if turn.kind != "entailment":
                continue
            if previous == "yes":
                assert reply == "yes", (item.id, index)
            if reply != turn.gold:
                revised_somewhere = True  # the bias shows: it stayed with yes against the gold
            previous = reply
    assert revised_somewhere


def test_shortcut_agents_match_their_definitions() -> None:
    polarity_agent = agent_answerer("last-polarity")
    negation_agent = agent_answerer("negation")
    checked = 0
    for item in conversations("easy", "random", "pseudo", "standard", 10):
        for (index, by_polarity, _), (_, by_negation, _) in zip(
            play(item, polarity_agent), play(item, negation_agent), strict=True
        ):
            turn = item.turns[index]
            statement = turn.meta["statement"]
            if turn.kind == "initial":
                assert by_polarity == by_negation == "yes"
                continue
            assert isinstance(statement, str)
            negative_sign = turn.meta["polarity"] == "-"
            negated_text = has_negation_cue(statement)
            if turn.kind == "effect":
                assert by_polarity == ("weakening" if negative_sign else "strengthening")
                assert by_negation == ("weakening" if negated_text else "strengthening")
            else:
                assert by_polarity == ("no" if negative_sign else "yes")
                assert by_negation == ("no" if negated_text else "yes")
            checked += 1
    assert checked > 50


def test_shortcut_agents_reject_parameters() -> None:
    from biaslab.errors import BiaslabError

    with pytest.raises(BiaslabError):
        make_agent("negation?p=1")


def test_importing_the_reasoner_is_cheap() -> None:
    code = (
        "import sys, biaslab.suites.defeasible.reasoner\n"
        "heavy = [m for m in ('inspect_ai', 'pandas', 'matplotlib') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
