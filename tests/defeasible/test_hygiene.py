"""Item hygiene over the canonical set (seed 42, 150 conversations per topology x difficulty): no
self-contradicting exception wording, no update that states the hypothesis, few sections whose
gold never changes, and no surface cue that gives "unknown" away."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import pytest

from biaslab.schema import Item
from biaslab.suites.defeasible.config import TOPOLOGIES, resolve_config
from biaslab.suites.defeasible.conversation import Claim, ExceptionFact, Fact, Hypothesis, Statement
from biaslab.suites.defeasible.generate import generate, label_stats
from biaslab.suites.defeasible.lexicon import load_lexicon
from biaslab.suites.defeasible.render import parse_message

SPLITS = [(t, d) for d in ("easy", "hard") for t in TOPOLOGIES]


@cache
def canonical(topology: str, difficulty: str) -> tuple[Item, ...]:
    return tuple(generate(resolve_config(difficulty, {"topology": topology}), 42, 150))


def statements(item: Item) -> Iterator[tuple[str, Hypothesis | None, Statement]]:
    """(event kind, current hypothesis, statement) for every premise and update of the item."""
    lexicon = load_lexicon()
    hypothesis: Hypothesis | None = None
    for turn in item.turns:
        for kind, payload, _ in parse_message(turn.prompt, lexicon):
            if kind == "section":
                assert isinstance(payload, Hypothesis)
                hypothesis = payload
            elif kind in ("premise", "update"):
                yield kind, hypothesis, payload  # type: ignore[misc]


def _content(statement: Statement) -> Statement:
    return statement.content if isinstance(statement, Claim) else statement


@pytest.mark.parametrize(("topology", "difficulty"), SPLITS)
def test_no_exception_wording_contradicts_a_denial(topology: str, difficulty: str) -> None:
    """ "x is an exception to the rule that A's generally B" says x is an A: never in a
    conversation that also says (or reports) that x is not A."""
    found = 0
    for item in canonical(topology, difficulty):
        said = [_content(s) for _, _, s in statements(item)]
        denied = {(s.entity, s.prop) for s in said if isinstance(s, Fact) and not s.positive}
        for s in said:
            if isinstance(s, ExceptionFact):
                found += 1
                assert (s.entity, s.rule.src) not in denied, (item.id, s)
    assert found > 0 or topology != "default"


@pytest.mark.parametrize(("topology", "difficulty"), SPLITS)
def test_no_update_states_the_hypothesis(topology: str, difficulty: str) -> None:
    for item in canonical(topology, difficulty):
        for kind, hypothesis, statement in statements(item):
            content = _content(statement)
            if kind == "update" and hypothesis is not None and isinstance(content, Fact):
                states = (content.entity, content.prop) == (hypothesis.subject, hypothesis.prop)
                assert not (states and content.positive), (item.id, statement)


@pytest.mark.parametrize(("topology", "difficulty"), SPLITS)
def test_at_most_a_tenth_of_sections_never_revise(topology: str, difficulty: str) -> None:
    constant = total = 0
    for item in canonical(topology, difficulty):
        for section in item.meta["sections"]:  # type: ignore[union-attr]
            golds = {
                t.gold
                for t in item.turns
                if t.kind != "effect" and t.meta["section"] == section["section"]  # type: ignore[index]
            }
            total += 1
            constant += len(golds) == 1
    assert constant <= 0.10 * total, (constant, total)


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_also_a_kind_of_does_not_give_unknown_away(difficulty: str) -> None:
    """The shortcut answering "unknown" exactly at/after an "is also a kind of" sentence stays
    within 10 points of the majority baseline, and the sentence appears without any unknown."""
    items = canonical("tree", difficulty)
    stats = label_stats(items)[f"tree/{difficulty}"]["entailment"]
    assert stats["also_unknown"] <= stats["majority"] + 0.10
    cue_without_unknown = [
        item
        for item in items
        if any(" is also a kind of " in t.prompt for t in item.turns)
        and all(t.gold != "unknown" for t in item.turns)
    ]
    assert len(cue_without_unknown) >= 10
    unknown_in_pretext_cue = [
        item
        for item in items
        if " is also a kind of " in item.turns[0].prompt
        and any(t.gold == "unknown" for t in item.turns[1:])
    ]
    assert unknown_in_pretext_cue  # a route to unknown that the cue sentence does not announce
