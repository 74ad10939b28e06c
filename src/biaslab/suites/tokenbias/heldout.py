"""Held-out answerers for the token-bias tests: written apart from the analysis and its nulls, and
not used to tune them.

Each agent reads what a model reads — the system message, the prompt and the option labels — and
answers like a model at temperature 0: a uniform draw fixed by a hash of what it attends to decides
whether it is right, so the same text always gets the same answer, in any seed. A wrong answer is
another label, drawn the same way. (Knowing the gold label stands in for solving the problem: these
agents simulate *how often* a model is right, which is all the tests see.)

Without token bias (no test should reject them above its level):

* ``length``: right with a probability that falls with the prompt's length in words;
* ``latent``: right or wrong per *problem*, whatever the names, ages, time phrases and towns (its
  own reading of the text, not the suite's problem key), with accuracy 0.65;
* ``latent-length``: the same per-problem draw, against a threshold that falls with the length;
* ``position``: accuracy 0.85 when the correct option is listed first, 0.55 otherwise (a position
  effect, not a token bias: both members of a pair share the position);
* ``family``: accuracy set by the family and hypothesis (0.35–0.9).

With a bias, each on its own construct:

* ``celebrity-lured`` (H3 linda): with a celebrity in the question it picks the conjunction 75% of
  the time; otherwise right with probability 0.75;
* ``hint-follower`` (H6): right with probability 0.95 when the system message carries a hint,
  0.6 otherwise (the length control is no hint);
* ``source-trusting`` (H5): with a reputable outlet or university cited it answers "yes" 85% of
  the time; otherwise right with probability 0.75;
* ``first-option`` (position): half its answers are the first option, whatever it says; else
  right with probability 0.7.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from biaslab.schema import Item
from biaslab.seeding import stable_hash
from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.render import STRONG_HINTS, WEAK_HINTS, YES


def _uniform(*parts: str) -> float:
    return stable_hash("tokenbias-heldout", *parts) / 2.0**64


def _text(item: Item) -> str:
    return f"{item.system or ''}\n{item.turns[0].prompt}"


def _words(item: Item) -> int:
    return len(_text(item).split())


@cache
def _celebrity_regex() -> re.Pattern[str]:
    names = sorted((c.name for c in wl.celebrities()), key=len, reverse=True)
    return re.compile("|".join(re.escape(n) for n in names))


@cache
def _reputable() -> tuple[str, ...]:
    return (*wl.sources("outlets", True), *wl.sources("institutions", True))


_CAPITALISED = re.compile(r"\b[A-Z][\w'-]*(?: [A-Z][\w'-]*)*")
_AGE = re.compile(r"\b\d+(?= years old|-year-old)")
_PRONOUN = re.compile(r"\b(?:he|she|him|her|his|hers|himself|herself)\b", re.I)


def problem_reading(item: Item) -> str:
    """What the ``latent`` agents attend to: the text with every capitalised word (names, towns,
    outlets, and sentence openings with them), ages, time phrases and pronouns blanked out."""
    text = _text(item)
    for time in wl.times():
        text = text.replace(time, "_")
    text = _AGE.sub("_", text)
    text = _PRONOUN.sub("_", text)
    return _CAPITALISED.sub("_", text)


@dataclass(frozen=True)
class HeldOutAgent:
    """``correct(item) -> (probability, what the draw is fixed by)``; ``forced`` may override the
    answer with a label of its own."""

    name: str
    biased: bool
    construct: str
    correct: Callable[[Item], tuple[float, str]]
    forced: Callable[[Item], str | None] = lambda item: None

    def answer(self, item: Item) -> str:
        turn = item.turns[0]
        labels = tuple(turn.labels or ())
        forced = self.forced(item)
        if forced is not None:
            return forced
        probability, fixed_by = self.correct(item)
        if _uniform(self.name, "right", fixed_by) < probability:
            return str(turn.gold)
        others = [label for label in labels if label != turn.gold]
        return others[int(_uniform(self.name, "wrong", fixed_by) * len(others))]


def _length_accuracy(item: Item) -> float:
    return min(0.95, max(0.2, 1.05 - 0.004 * _words(item)))


def _by_prompt(probability: Callable[[Item], float]) -> Callable[[Item], tuple[float, str]]:
    return lambda item: (probability(item), _text(item))


def _position(item: Item) -> int:
    turn = item.turns[0]
    return tuple(turn.labels or ()).index(str(turn.gold))


_FAMILY_ACCURACY = {"linda": 0.35, "syllogism-invalid": 0.55, "syllogism-valid": 0.9, "horses": 0.5}
_HYPOTHESIS_SHIFT = {"H1": 0.0, "H2": 0.1, "H3": -0.05, "H4": 0.05, "H5": -0.1, "H6": 0.1}


def _family_accuracy(item: Item) -> float:
    family = str(item.meta.get("analysis_family", item.meta.get("family")))
    return _FAMILY_ACCURACY.get(family, 0.5) + _HYPOTHESIS_SHIFT.get(
        str(item.meta.get("hypothesis")), 0.0
    )


def _celebrity(item: Item) -> tuple[float, str]:
    lured = _celebrity_regex().search(item.turns[0].prompt) is not None
    return (0.25 if lured else 0.75), _text(item)


def _hinted(item: Item) -> tuple[float, str]:
    system = item.system or ""
    hinted = any(h in system for h in (*WEAK_HINTS.values(), *STRONG_HINTS.values()))
    return (0.95 if hinted else 0.6), _text(item)


def _trusting(item: Item) -> str | None:
    prompt = item.turns[0].prompt
    if any(source in prompt for source in _reputable()) and _uniform("trust", _text(item)) < 0.85:
        return YES
    return None


def _first_option(item: Item) -> str | None:
    if _uniform("first", _text(item)) < 0.5:
        return str(next(iter(item.turns[0].labels or ())))
    return None


AGENTS: dict[str, HeldOutAgent] = {
    agent.name: agent
    for agent in (
        HeldOutAgent("length", False, "none", _by_prompt(_length_accuracy)),
        HeldOutAgent("latent", False, "none", lambda item: (0.65, problem_reading(item))),
        HeldOutAgent(
            "latent-length",
            False,
            "none",
            lambda item: (_length_accuracy(item), problem_reading(item)),
        ),
        HeldOutAgent(
            "position",
            False,
            "position",
            _by_prompt(lambda item: 0.85 if _position(item) == 0 else 0.55),
        ),
        HeldOutAgent("family", False, "none", _by_prompt(_family_accuracy)),
        HeldOutAgent("celebrity-lured", True, "H3 linda", _celebrity),
        HeldOutAgent("hint-follower", True, "H6", _hinted),
        HeldOutAgent("source-trusting", True, "H5", _by_prompt(lambda item: 0.75), _trusting),
        HeldOutAgent("first-option", True, "position", _by_prompt(lambda item: 0.7), _first_option),
    )
}


def answer_rows(items: Sequence[Item], agent: HeldOutAgent) -> list[dict[str, Any]]:
    """Long-format answer rows (:mod:`biaslab.suites.tokenbias.external`) of one agent."""
    rows = []
    for item in items:
        answer = agent.answer(item)
        rows.append(
            {
                "model": agent.name,
                "family": item.meta["analysis_family"],
                "hypothesis": item.meta["hypothesis"],
                "mode": item.meta["mode"],
                "pair_id": item.meta["pair_id"],
                "variant": item.meta["variant"],
                "correct": answer == item.turns[0].gold,
                "parsed": True,
                "seed": item.meta["seed"],
                "epoch": 1,
                "pair_key": item.meta["pair_key"],
                "problem_key": item.meta["problem_key"],
                "correct_position": item.meta["correct_position"],
            }
        )
    return rows
