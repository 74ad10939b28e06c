"""The twelve themes problems are told in, and the words a problem's logical names become.

The themes follow the domains of Appendix B of "Theory-Grounded Evaluation of Human-Like Fallacy
Patterns in LLM Reasoning" (arXiv 2506.11128); every word in ``data/themes.json`` is our own (see
``data/README.md``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from pydantic import JsonValue

from biaslab.errors import BiaslabError

#: words of the answer grammar, which no theme word may contain
GRAMMAR_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "be",
        "been",
        "being",
        "not",
        "no",
        "nor",
        "and",
        "or",
        "but",
        "if",
        "then",
        "either",
        "neither",
        "both",
        "all",
        "every",
        "each",
        "any",
        "some",
        "something",
        "everything",
        "anything",
        "nothing",
        "there",
        "exists",
        "exist",
        "such",
        "that",
        "which",
        "who",
        "for",
        "it",
        "its",
        "they",
        "them",
        "must",
        "also",
        "only",
        "least",
        "one",
        "of",
        "follows",
        "follow",
        "x",
        "y",
        "z",
        "thing",
        "things",
        "answer",
        "can",
        "cannot",
        "true",
        "false",
    ]
)


def normalise(text: str) -> str:
    """Lower case, hyphens/underscores/apostrophes as spaces, single spaces: how names are compared."""
    text = re.sub(r"[-_’'`]", " ", text.lower())
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", text)).strip()


@dataclass(frozen=True)
class Theme:
    key: str
    title: str
    intro: str
    kind: tuple[str, str]  # singular, plural
    objects: tuple[str, ...]
    predicates: tuple[str, ...]


@cache
def themes() -> dict[str, Theme]:
    raw = json.loads(
        resources.files("biaslab.suites.fallacy").joinpath("data/themes.json").read_text("utf-8")
    )
    return {
        key: Theme(
            key=key,
            title=value["title"],
            intro=value["intro"],
            kind=(value["kind"][0], value["kind"][1]),
            objects=tuple(value["objects"]),
            predicates=tuple(value["predicates"]),
        )
        for key, value in sorted(raw.items())
    }


THEME_KEYS: tuple[str, ...] = (
    "cards",
    "materials",
    "celestial",
    "creatures",
    "artifacts",
    "particles",
    "programs",
    "dreams",
    "alchemy",
    "zones",
    "powers",
    "organisms",
)


#: the pseudo-theme of problems told in their file's own names (``-p names=source``)
SOURCE = "source"
SOURCE_THEME = Theme(
    key=SOURCE,
    title="The problem file's own names",
    intro="Here are some statements about a few items and their properties. I want to work out "
    "by careful reasoning what they imply. This is what I know:",
    kind=("item", "items"),
    objects=(),
    predicates=(),
)


def get_theme(key: str) -> Theme:
    if key == SOURCE:
        return SOURCE_THEME
    if key not in themes():
        raise BiaslabError(f"unknown fallacy theme {key!r} (themes: {', '.join(THEME_KEYS)})")
    return themes()[key]


def hygiene_problems(theme: Theme) -> list[str]:
    """What would make a theme's names ambiguous to the answer parser (empty = none)."""
    problems = []
    names = [*theme.objects, *theme.predicates, *theme.kind]
    normal = [normalise(n) for n in names]
    if len(set(normal)) != len(normal):
        problems.append("two names are equal once normalised")
    for name, norm in zip(names, normal, strict=True):
        words = norm.split()
        clash = sorted(set(words[1:] if norm.startswith("the ") else words) & GRAMMAR_WORDS)
        if clash:
            problems.append(f"{name!r} contains grammar word(s) {clash}")
    bare = [_without_article(n) for n in normal]
    for i, a in enumerate(bare):
        for j, b in enumerate(bare):
            if i != j and f" {a} " in f" {b} ":
                problems.append(f"{names[i]!r} is contained in {names[j]!r}")
    return problems


def _without_article(norm: str) -> str:
    return norm[4:] if norm.startswith("the ") else norm


@dataclass(frozen=True)
class Names:
    """The words of one problem: logical constant / predicate name -> theme word."""

    theme: str
    objects: Mapping[str, str]
    properties: Mapping[str, str]

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "theme": self.theme,
            "objects": dict(self.objects),
            "properties": dict(self.properties),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Names:
        objects, properties = data["objects"], data["properties"]
        assert isinstance(objects, dict) and isinstance(properties, dict)
        return cls(str(data["theme"]), dict(objects), dict(properties))


def draw_names(
    theme: Theme, constants: Iterable[str], predicates: Iterable[str], rng: random.Random
) -> Names:
    """Map a problem's constants and predicates to distinct theme words (seeded)."""
    consts, preds = sorted(set(constants)), sorted(set(predicates))
    if len(consts) > len(theme.objects) or len(preds) > len(theme.predicates):
        raise BiaslabError(
            f"theme {theme.key!r} has {len(theme.objects)} objects and {len(theme.predicates)} "
            f"properties; the problem needs {len(consts)} and {len(preds)}"
        )
    objects = rng.sample(theme.objects, len(consts))
    properties = rng.sample(theme.predicates, len(preds))
    return Names(
        theme.key,
        dict(zip(consts, objects, strict=True)),
        dict(zip(preds, properties, strict=True)),
    )


_HUMPS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\s]+")


def source_word(identifier: str, kind: str) -> str:
    """A PyETR identifier in English: ``gravityDefying`` / ``gravity_defying`` -> "gravity-defying"
    (a property), ``quantix()`` -> "quantix", ``SallyJones()`` -> "Sally Jones" (an object keeps
    the case of a name written with a capital)."""
    words = [w for w in _HUMPS.split(identifier.removesuffix("()")) if w]
    if kind == "property":
        return "-".join(w.lower() for w in words)
    if identifier[:1].isupper():
        return " ".join(words)
    return " ".join(w.lower() for w in words)


def source_names(
    constants: Iterable[str], predicates: Iterable[str], given: Mapping[str, str]
) -> Names:
    """The problem told in its own identifiers (``given``: identifier -> English, which wins;
    a constant may be given with or without ``()``). Names the answer reader could not tell apart
    (equal once normalised, one inside another, a grammar word) are a one-line error."""

    def word(identifier: str, kind: str) -> str:
        chosen = given.get(identifier, given.get(f"{identifier}()"))
        return chosen.strip() if chosen and chosen.strip() else source_word(identifier, kind)

    objects = {c: word(c, "object") for c in sorted(set(constants))}
    properties = {p: word(p, "property") for p in sorted(set(predicates))}
    told = Theme(SOURCE, "", "", SOURCE_THEME.kind, (*objects.values(),), (*properties.values(),))
    problems = hygiene_problems(told)
    if problems:
        raise BiaslabError(f"cannot tell the problem in its own names: {problems[0]}")
    return Names(SOURCE, objects, properties)
