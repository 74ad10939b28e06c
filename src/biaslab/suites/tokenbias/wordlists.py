"""Typed access to the hand-written word lists in ``data/`` (see ``data/README.md`` for sources).

Everything is loaded lazily and cached, and returned as tuples so callers cannot mutate the shared
lists; item generation indexes into these tuples, so their order is part of reproducibility.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

_DATA = "biaslab.suites.tokenbias.data"

#: names that must never appear in generated test items: they are the H2 exemplar names
EXEMPLAR_NAMES = frozenset({"Linda", "Bob", "Robert"})


@dataclass(frozen=True)
class Profile:
    """A personality sketch whose activities are representative of its background."""

    id: str
    traits: tuple[str, ...]
    backgrounds: tuple[str, ...]
    activities: tuple[str, ...]


@dataclass(frozen=True)
class Person:
    name: str
    gender: str


@dataclass(frozen=True)
class Story:
    """A situation and a likely event, with added events for each connector: ``reasons`` explain the
    event ("because ..."), ``purposes`` are what it is for ("to ...", "so that <subject> can ...",
    only for intentional events); the ``irrelevant_`` ones are plausible but say nothing about it."""

    id: str
    setup: str
    event: str
    reasons: tuple[str, ...]
    irrelevant_reasons: tuple[str, ...]
    purposes: tuple[str, ...] = ()
    irrelevant_purposes: tuple[str, ...] = ()
    subject: str = "{he}"


@dataclass(frozen=True)
class Disease:
    name: str
    symptoms: tuple[str, ...]


@dataclass(frozen=True)
class Celebrity:
    name: str
    gender: str
    field: str


@dataclass(frozen=True)
class Scenario:
    """A celebrity scenario that an ordinary person could also be in: unlikely single events, and
    likely events (likely for the celebrity) to add to any of them with 'but'."""

    id: str
    setup: str
    singles: tuple[str, ...]
    extras: tuple[str, ...]


@dataclass(frozen=True)
class Animal:
    singular: str
    plural: str


@dataclass(frozen=True)
class Terms:
    """Syllogism vocabulary: member ⊂ category (plural nouns) and adjectives that fit both."""

    member: str
    category: str
    properties: tuple[str, ...]


def _load(name: str) -> Any:
    return json.loads(resources.files(_DATA).joinpath(name).read_text(encoding="utf-8"))


@cache
def first_names(gender: str) -> tuple[str, ...]:
    """First names of one gender, without the exemplar names."""
    return tuple(n for n in _load("first_names.json")[gender] if n not in EXEMPLAR_NAMES)


@cache
def people() -> tuple[Person, ...]:
    """Every first name with its gender (female names first), without the exemplar names."""
    return tuple(Person(n, g) for g in ("female", "male") for n in first_names(g))


@cache
def places() -> tuple[str, ...]:
    """Invented-sounding town names for news reports and horse farms."""
    return tuple(_load("places.json"))


@cache
def surnames() -> tuple[str, ...]:
    return tuple(_load("surnames.json"))


@cache
def occupations() -> tuple[str, ...]:
    return tuple(_load("occupations.json"))


@cache
def profiles() -> tuple[Profile, ...]:
    return tuple(
        Profile(p["id"], tuple(p["traits"]), tuple(p["backgrounds"]), tuple(p["activities"]))
        for p in _load("profiles.json")
    )


@cache
def neutral_activities() -> tuple[str, ...]:
    return tuple(_load("neutral_activities.json"))


@cache
def stories(kind: str) -> tuple[Story, ...]:
    """``kind`` is "story" (about a person, ``{name}``) or "news" (about a town, ``{place}``)."""
    raw = _load("stories.json" if kind == "story" else "news.json")
    lists = ("reasons", "irrelevant_reasons", "purposes", "irrelevant_purposes")
    return tuple(
        Story(
            id=f"{kind}-{i}",
            setup=s["setup"],
            event=s["event"],
            **{key: tuple(s.get(key, ())) for key in lists},
            subject=s.get("subject", "{he}"),
        )
        for i, s in enumerate(raw)
    )


@cache
def diseases() -> tuple[Disease, ...]:
    return tuple(
        Disease(d["name"], tuple(d["symptoms"])) for d in _load("diseases.json")["diseases"]
    )


@cache
def unrelated_findings() -> tuple[str, ...]:
    return tuple(_load("diseases.json")["unrelated_findings"])


@cache
def celebrities() -> tuple[Celebrity, ...]:
    return tuple(Celebrity(**c) for c in _load("celebrities.json")["celebrities"])


@cache
def scenarios(field: str) -> tuple[Scenario, ...]:
    return tuple(
        Scenario(f"{field}-{i}", s["setup"], tuple(s["singles"]), tuple(s["extras"]))
        for i, s in enumerate(_load("celebrities.json")["scenarios"][field])
    )


@cache
def times() -> tuple[str, ...]:
    """When a celebrity scenario happens ("next month", ...)."""
    return tuple(_load("celebrities.json")["times"])


@cache
def celebrity_tokens() -> frozenset[str]:
    """Every word of every celebrity name: generic names must share none of them."""
    return frozenset(t.lower() for c in celebrities() for t in re.findall(r"\w+", c.name))


@cache
def generic_names(gender: str) -> tuple[str, ...]:
    """'First Last' names with no token in common with any celebrity (so nothing can leak)."""
    banned = celebrity_tokens()
    firsts = [f for f in first_names(gender) if f.lower() not in banned]
    lasts = [s for s in surnames() if s.lower() not in banned]
    return tuple(f"{f} {s}" for f in firsts for s in lasts)


@cache
def animals() -> tuple[Animal, ...]:
    return tuple(Animal(**a) for a in _load("animals.json"))


@cache
def syllogism_terms() -> tuple[Terms, ...]:
    return tuple(
        Terms(t["member"], t["category"], tuple(t["properties"]))
        for t in _load("syllogism_terms.json")
    )


@cache
def sources(kind: str, reputable: bool) -> tuple[str, ...]:
    """``kind`` is "outlets" or "institutions"."""
    return tuple(_load("sources.json")[kind]["reputable" if reputable else "less_reputable"])
