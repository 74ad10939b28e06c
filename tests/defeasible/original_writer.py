"""Writes our generated conversations in the original DeReLab dataset layout and wording, so the
importer can be checked against our own generator: every gold it recomputes must be the gold we
generated, on any conversation the original's templates can express.

Written apart from the importer, from the original's templates as the reference notes describe them
(section 2e): "Objects that P generally Q.", "X Q." / "X does not Q.", "X is an exception to the rule
that V objects Q.", "S reports: …", "S is more reliable than T.", "C is a kind of D.". Predicates
are ours written as "has <words>" / "have <words>".
"""

from __future__ import annotations

from typing import Any

from biaslab.schema import Item
from biaslab.suites.defeasible.conversation import (
    Claim,
    ClassProperty,
    EqualReliability,
    ExceptionFact,
    Fact,
    Hypothesis,
    Implication,
    KindOf,
    Reliability,
    Statement,
)
from biaslab.suites.defeasible.lexicon import load_lexicon
from biaslab.suites.defeasible.render import parse_message

ASK = "Question: Given all the information so far about {s}, does it support the latest hypothesis?"
EFFECT = "Question: Does this update strengthen, weaken, or have no effect on the support for the hypothesis?"
TASKS = {"initial": "initial_answer", "entailment": "update_answer", "effect": "effect_of_update"}


def words(key: str) -> str:
    """Our predicate key ("color=red") as the words of a phrase ("color red"); a value word the
    importer rightly refuses inside a predicate ("licence=none") is spelled another way."""
    spelled = key.replace("=", " ").replace("_", " ").split()
    return " ".join("nil" if word == "none" else word for word in spelled)


def singular(key: str, positive: bool = True) -> str:
    return f"has {words(key)}" if positive else f"does not have {words(key)}"


def plural(key: str, positive: bool = True) -> str:
    return f"have {words(key)}" if positive else f"do not have {words(key)}"


def node(key: str) -> str:
    """The property node the importer should build for our key."""
    return f"have {words(key)}"


def sentence(statement: Statement) -> str:
    match statement:
        case Claim(source, Fact() as fact):
            return f"{source} reports: {sentence(fact)}"
        case Claim(source, Implication(src, dst, positive)):
            return f"{source} reports: objects with property {words(src)} generally {plural(dst, positive)}."
        case Fact(entity, prop, positive):
            return f"{entity} {singular(prop, positive)}."
        case Implication(src, dst, positive):
            return f"Objects that {plural(src)} generally {plural(dst, positive)}."
        case ClassProperty(cls, prop, positive):
            return f"{cls} {singular(prop, positive)}."
        case KindOf(child, parent):
            return f"{child} is a kind of {parent}."
        case ExceptionFact(entity, rule):
            return (
                f"{entity} is an exception to the rule that {words(rule.src)} objects "
                f"{plural(rule.dst, rule.positive)}."
            )
        case Reliability(more, less):
            return f"{more} is more reliable than {less}."
        case EqualReliability(first, second):
            return f"{first} and {second} are equally reliable."
    raise AssertionError(statement)


def hypothesis_sentence(hypothesis: Hypothesis) -> str:
    return f"{hypothesis.subject} {singular(hypothesis.prop)}."


def conversation(item: Item) -> dict[str, Any]:
    """One of our items as the original would have written it."""
    lexicon = load_lexicon()
    turns: list[dict[str, Any]] = []
    subject = ""
    for turn in item.turns:
        premises: list[str] = []
        parts: list[str] = []
        for kind, payload, _ in parse_message(turn.prompt, lexicon):
            if kind == "section":
                assert isinstance(payload, Hypothesis)
                subject = payload.subject
                if turn.index == 0:
                    parts.append("Pretext: " + " ".join(premises))
                    parts.append(f"Hypothesis: {hypothesis_sentence(payload)}")
                else:
                    parts.append("We now turn to a different object.")
                    parts.append(f"New hypothesis: {hypothesis_sentence(payload)}")
            elif kind == "premise":
                premises.append(sentence(payload))  # type: ignore[arg-type]
            elif kind == "update":
                parts.append(f"Information update: {sentence(payload)}")  # type: ignore[arg-type]
        if turn.index == 0 and premises and not any(p.startswith("Pretext") for p in parts):
            parts.insert(0, "Pretext: " + " ".join(premises))
        parts.append(EFFECT if turn.kind == "effect" else ASK.format(s=subject))
        turns.append({"role": "user", "content": " ".join(parts)})
        gold: dict[str, Any] = {"ground_truth": turn.gold}
        turns.append({"role": "assistant", "content": "", "task_type": TASKS[turn.kind], **gold})
    return {"id": item.id, "topology": item.meta["topology"], "turns": turns}


def dataset(items: list[Item]) -> dict[str, Any]:
    return {
        "metadata": {"note": "written by the test suite"},
        "samples": [
            {"id": f"s{i}", "conversations": [conversation(item)]} for i, item in enumerate(items)
        ],
    }
