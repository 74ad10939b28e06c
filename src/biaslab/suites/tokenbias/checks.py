"""Integrity checks of generated token-bias items and their label statistics.

:func:`check_twins` proves each twin is its original with only the declared perturbation applied
(a word diff), :func:`duplicate_prompts` that no two originals of a block share a prompt, and
:func:`label_stats` that the correct option's position carries no information.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import JsonValue

from biaslab.schema import Item
from biaslab.suites.tokenbias.render import NUMBER_WORDS, exemplar_part, question_part

_SAME_WITHIN_PAIR = (
    "family",
    "analysis_family",
    "hypothesis",
    "mode",
    "pair_key",
    "correct_position",
    "perturbation",
    "swaps",
    "scope",
)
_NUMBER_TOKENS = frozenset(NUMBER_WORDS)
_PARTS = ("system", "exemplars", "question")


def rendering(item: Item) -> str:
    """Everything a model sees: the system message and the prompt."""
    return f"{item.system or ''}\n\n{item.turns[0].prompt}"


def rendering_parts(item: Item) -> dict[str, str]:
    """The system message, the exemplars and the test question (with its instruction)."""
    prompt = item.turns[0].prompt
    return {
        "system": item.system or "",
        "exemplars": exemplar_part(prompt),
        "question": question_part(prompt),
    }


def check_twins(items: Iterable[Item]) -> list[str]:
    """Problems found (empty = fine): every pair has one original and one twin that agree on their
    pair-level metadata, whose renderings are identical outside the perturbation's scope, and whose
    token diff inside it consists of the declared swaps only, with no original word leaking."""
    by_pair: dict[str, dict[str, Item]] = defaultdict(dict)
    problems: list[str] = []
    for item in items:
        pid, variant = str(item.meta.get("pair_id")), str(item.meta.get("variant"))
        if variant in by_pair[pid]:
            problems.append(f"{pid}: two {variant} items")
        by_pair[pid][variant] = item
    for pid, members in sorted(by_pair.items()):
        if set(members) != {"original", "twin"}:
            problems.append(f"{pid}: expected an original and a twin, got {sorted(members)}")
            continue
        problems.extend(f"{pid}: {p}" for p in _check_pair(members["original"], members["twin"]))
    return problems


def _check_pair(original: Item, twin: Item) -> list[str]:
    problems = [
        f"{key} differs within the pair"
        for key in _SAME_WITHIN_PAIR
        if original.meta.get(key) != twin.meta.get(key)
    ]
    scope = str(original.meta.get("scope"))
    if scope not in _PARTS:
        return [*problems, f"unknown perturbation scope {scope!r}"]
    before, after = rendering_parts(original), rendering_parts(twin)
    problems += [
        f"{part} differs outside the perturbation"
        for part in _PARTS
        if part != scope and before[part] != after[part]
    ]
    swaps = [(str(a), str(b)) for a, b in _pairs_of(original.meta.get("swaps"))]
    allow_numbers = bool(original.meta.get("allow_numbers"))
    problems += token_diff_problems(before[scope], after[scope], swaps, allow_numbers)
    leak = [str(t) for t in _list(original.meta.get("leak"))]
    problems += [
        f"original word {t!r} survives in the twin" for t in leak if _has_word(after[scope], t)
    ]
    return problems


def _list(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []


def _pairs_of(value: JsonValue) -> list[tuple[JsonValue, JsonValue]]:
    return [(v[0], v[1]) for v in _list(value) if isinstance(v, list) and len(v) == 2]


def token_diff_problems(
    original: str, twin: str, swaps: Sequence[tuple[str, str]], allow_numbers: bool = False
) -> list[str]:
    """Diff the word tokens of two texts (every declared phrase one token, on both sides) and report
    every changed span that is not made of declared swaps (or, where allowed, number changes)."""
    phrases = [p for swap in swaps for p in swap if p]
    a, b = _tokens(original, phrases), _tokens(twin, phrases)
    allowed = set(swaps)
    problems: list[str] = []
    applied = 0
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        steps = _steps(tag, a[i1:i2], b[j1:j2])
        if steps is not None and all(
            s in allowed or (allow_numbers and _numeric(*s)) for s in steps
        ):
            applied += len(steps)
        else:
            problems.append(f"undeclared change {' '.join(a[i1:i2])!r} -> {' '.join(b[j1:j2])!r}")
    if not applied:
        problems.append("the twin does not differ from the original in the perturbed part")
    return problems


def _steps(tag: str, old: list[str], new: list[str]) -> list[tuple[str, str]] | None:
    """Token-by-token changes of one diff opcode (None if a replace changes the token count)."""
    if tag == "insert":
        return [("", t) for t in new]
    if tag == "delete":
        return [(t, "") for t in old]
    return list(zip(old, new, strict=True)) if len(old) == len(new) else None


def _tokens(text: str, phrases: Sequence[str]) -> list[str]:
    longest_first = sorted(set(phrases), key=len, reverse=True)
    alternatives = [rf"(?<!\w){re.escape(p)}(?!\w)" for p in longest_first]
    pattern = re.compile("|".join([*alternatives, r"\w+(?:[-']\w+)*", r"[^\w\s]"]))
    return pattern.findall(text)


def _numeric(*tokens: str) -> bool:
    return all(t.isdigit() or t in _NUMBER_TOKENS or t in {"", ",", "."} for t in tokens)


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


def label_stats(items: Iterable[Item]) -> dict[str, Any]:
    """Where the correct option sits and which answers are gold, per (family, hypothesis, variant)
    and overall: the position-confound check the original dataset failed."""
    groups: dict[str, dict[str, Counter[str]]] = defaultdict(
        lambda: {"position": Counter(), "gold": Counter()}
    )
    for item in items:
        keys = (
            "all",
            f"{item.meta.get('family')}/{item.meta.get('hypothesis')}/{item.meta.get('variant')}",
        )
        for key in keys:
            groups[key]["position"][str(item.meta.get("correct_position"))] += 1
            groups[key]["gold"][item.turns[0].gold] += 1
    return {
        key: {
            "n": sum(counts["position"].values()),
            "position": dict(sorted(counts["position"].items())),
            "gold": dict(sorted(counts["gold"].items())),
            "first_position_share": counts["position"]["0"]
            / max(1, sum(counts["position"].values())),
        }
        for key, counts in sorted(groups.items())
    }


def duplicate_prompts(items: Iterable[Item]) -> list[str]:
    """Originals of one block (family × hypothesis) that share a prompt with an earlier one."""
    seen: dict[tuple[str, str, str], str] = {}
    found = []
    for item in items:
        if item.meta.get("variant") != "original":
            continue
        key = (str(item.meta.get("family")), str(item.meta.get("hypothesis")), rendering(item))
        if key in seen:
            found.append(f"{item.id} repeats {seen[key]}")
        seen.setdefault(key, item.id)
    return found
