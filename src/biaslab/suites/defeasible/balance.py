"""Gold-label balance and shortcut baselines of generated items, from the items alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from biaslab.schema import Item, Turn
from biaslab.suites.defeasible.render import (
    has_negation_cue,
)


def _shortcut_answers(turn: Turn) -> tuple[str, str]:
    """(last-polarity, negation) answers to a turn, from its meta and its update sentence."""
    meta = turn.meta
    statement = meta.get("statement")
    if turn.kind == "initial" or not isinstance(statement, str):
        return "yes", "yes"
    positive = meta.get("polarity") == "+"
    negated = has_negation_cue(statement)
    if turn.kind == "effect":
        return (
            "strengthening" if positive else "weakening",
            "weakening" if negated else "strengthening",
        )
    return ("yes" if positive else "no", "no" if negated else "yes")


def _accuracy(pairs: Sequence[tuple[str, str]]) -> float | None:
    if not pairs:
        return None
    return round(sum(a == b for a, b in pairs) / len(pairs), 4)


def _cue_answers(item: Item) -> list[str | None]:
    """The ``also-unknown`` shortcut's entailment answer per turn (None for effect turns): unknown
    at and after a message saying "is also a kind of", else the last-polarity answer."""
    seen = False
    answers: list[str | None] = []
    for turn in item.turns:
        seen = seen or " is also a kind of " in turn.prompt
        answers.append(
            None if turn.kind == "effect" else "unknown" if seen else _shortcut_answers(turn)[0]
        )
    return answers


def _kind_stats(turns: Sequence[Turn], cue: Sequence[str | None]) -> dict[str, Any]:
    golds = Counter(t.gold for t in turns)
    if not turns:
        return {"n": 0}
    majority_label, majority_count = sorted(golds.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    shortcuts = [(_shortcut_answers(t), t.gold) for t in turns]
    stats = {
        "n": len(turns),
        "gold": dict(sorted(golds.items())),
        "majority_label": majority_label,
        "majority": round(majority_count / len(turns), 4),
        "last_polarity": _accuracy([(s[0], g) for s, g in shortcuts]),
        "negation": _accuracy([(s[1], g) for s, g in shortcuts]),
        "always_yes": _accuracy([("yes", g) for _, g in shortcuts]),
    }
    if turns[0].kind != "effect":
        stats["also_unknown"] = _accuracy(
            [(a, t.gold) for a, t in zip(cue, turns, strict=True) if a is not None]
        )
    return stats


def label_stats(items: Sequence[Item]) -> dict[str, Any]:
    """Gold-label balance and shortcut baselines per topology x difficulty, from the items alone.

    For each split and turn kind (initial, entailment, effect): the gold counts, the majority-class
    accuracy, and the accuracy of the ``last-polarity`` and ``negation`` shortcut agents (computed
    from each turn's meta: the revealed link's polarity and the update sentence's wording).
    """
    splits: dict[str, list[Item]] = {}
    for item in items:
        key = f"{item.meta.get('topology')}/{item.meta.get('difficulty')}"
        splits.setdefault(key, []).append(item)
    result: dict[str, Any] = {}
    for key in sorted(splits):
        group = splits[key]
        turns = [turn for item in group for turn in item.turns]
        cue = [answer for item in group for answer in _cue_answers(item)]
        updates = Counter(
            str(t.meta.get("update_type")) for t in turns if t.kind in ("entailment",)
        )
        effects = Counter(str(t.meta.get("effect")) for t in turns if t.kind == "entailment")
        result[key] = {
            "conversations": len(group),
            "turns": len(turns),
            "update_types": dict(sorted(updates.items())),
            "effects": dict(sorted(effects.items())),
            **{
                kind: _kind_stats(
                    [t for t in turns if t.kind == kind],
                    [a for a, t in zip(cue, turns, strict=True) if t.kind == kind],
                )
                for kind in ("initial", "entailment", "effect")
            },
        }
    return result
