"""Conjunction-fallacy problems ("Linda" problems) as structured records built from templates and the
word lists, each style with its pool of distinct problems (:mod:`biaslab.suites.tokenbias.pools`).

A pool counts problems, not wordings: the person's name and age, the news report's town, the
celebrity of a scenario and when it happens are drawn per pair (a reasoner reads two problems that
differ only there as one, see :mod:`biaslab.suites.tokenbias.problems`). The H1 twin's unrelated
added event is a function of the original (:func:`_both`), one-to-one among the originals of one
stem, so distinct originals have distinct twins too.

A record keeps its templates and fillers apart (``{name}``, pronouns, ``{place}``), so a twin is the
*same record* with one field replaced and renders identically apart from those tokens. The single
event is always at least as probable as the single event combined with another one, whatever the
added event: that is the gold answer, by the conjunction rule.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from biaslab.seeding import stable_hash
from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.config import CONNECTORS, LINDA_STYLES, AddedEvent, Connector, Style
from biaslab.suites.tokenbias.pools import Choice, Choices, Pool, Product, Union

AGES = {"bio": range(25, 51), "medical": range(40, 71)}

_PRONOUNS = {
    "female": {"he": "she", "him": "her", "his": "her"},
    "male": {"he": "he", "him": "him", "his": "his"},
}
#: gender -> (placeholder, pronoun) for every pronoun placeholder, lower-case and capitalised
_PRONOUN_FILLS = {
    gender: tuple(
        (f"{{{form(key)}}}", form(word))
        for key, word in pronouns.items()
        for form in (str.lower, str.capitalize)
    )
    for gender, pronouns in _PRONOUNS.items()
}


def fill_person(template: str, name: str, gender: str, place: str = "") -> str:
    """Put a name, its pronouns (``{he}``, ``{him}``, ``{his}``, capitalised ``{He}``, ``{His}``)
    and a place into a template."""
    text = template.replace("{name}", name).replace("{place}", place)
    fills = _PRONOUN_FILLS[gender]  # a KeyError for an unknown gender, as ever
    if "{" not in text:  # most options and setups have no pronoun
        return text
    for placeholder, word in fills:
        text = text.replace(placeholder, word)
    return text


@dataclass(frozen=True)
class Conjunction:
    """Which is more probable: ``single`` or ``single <connector> <added event>``?

    ``relevant`` picks the representative or the unrelated added event, so the H1 twin flips one
    flag. ``source`` names the template the problem came from: exemplars never share it with the
    question they precede.
    """

    style: Style
    source: str
    name: str
    gender: str
    setup: str
    single: str
    connector: str
    relevant_extra: str
    irrelevant_extra: str
    relevant: bool = True
    place: str = ""

    @property
    def extra(self) -> str:
        return self.relevant_extra if self.relevant else self.irrelevant_extra

    def fill(self, template: str) -> str:
        return fill_person(template, self.name, self.gender, self.place)

    @property
    def single_text(self) -> str:
        return self.fill(self.single)

    @property
    def conjunction_text(self) -> str:
        return f"{self.single_text} {self.fill(self.connector)} {self.fill(self.extra)}"


# --------------------------------------------------------------------------------------------------
# pools: every original a style can write
# --------------------------------------------------------------------------------------------------


@cache
def conjunction_pool(style: Style, shown: AddedEvent, connectors: tuple[Connector, ...]) -> Pool:
    """The distinct problems of a style that show the ``shown`` kind of added event."""
    if style == "bio":
        profiles = Union(
            "profile",
            tuple(
                Product(
                    (
                        Choice("traits", _pair_count(len(p.traits))),
                        Choice("backgrounds", _pair_count(len(p.backgrounds))),
                        Choice("extra", _extra_count(shown, len(p.activities), _neutral())),
                    )
                )
                for p in wl.profiles()
            ),
        )
        occupations = Choice("occupation", len(wl.occupations()))
        return Product((profiles, occupations))
    if style in ("story", "news"):
        kind = "story" if style == "story" else "news"
        return Union(
            "connector",
            tuple(
                Union(
                    "story",
                    tuple(
                        Choice("extra", _extra_count(shown, *map(len, _extras(s, connector))))
                        for s in stories_for(kind, connector)
                    ),
                )
                for connector in connectors
            ),
        )
    if style == "medical":
        diseases = Union(
            "disease",
            tuple(
                Product(
                    (
                        Choice("first", len(d.symptoms)),
                        Choice("extra", _extra_count(shown, len(d.symptoms) - 1, _findings())),
                    )
                )
                for d in wl.diseases()
            ),
        )
        return diseases
    return celebrity_pool()


def celebrity_fields() -> tuple[str, ...]:
    """The celebrities' fields, in the order the list first names them."""
    return tuple(dict.fromkeys(c.field for c in wl.celebrities()))


@cache
def celebrity_pool() -> Pool:
    """Celebrity scenarios (H3): field × scenario × single × extra. The celebrity and the time
    phrase are drawn per pair (the celebrity among the field's): its generic twins would otherwise
    repeat a problem (the same scenario under another generic name), and a reasoner reads "next
    month" and "next year" alike."""
    return Union(
        "field",
        tuple(
            Union(
                "scenario",
                tuple(
                    Product((Choice("single", len(s.singles)), Choice("extra", len(s.extras))))
                    for s in wl.scenarios(field)
                ),
            )
            for field in celebrity_fields()
        ),
    )


@cache
def stories_for(kind: str, connector: str) -> tuple[wl.Story, ...]:
    """The stories an added event can join with ``connector`` (purposes need intentional events)."""
    return tuple(s for s in wl.stories(kind) if _extras(s, connector)[0])


def _extras(story: wl.Story, connector: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if connector == "because":
        return story.reasons, story.irrelevant_reasons
    return story.purposes, story.irrelevant_purposes


def _connector_phrase(story: wl.Story, connector: str) -> str:
    return {"because": "because", "to": "to", "so-that": f"so that {story.subject} can"}[connector]


def _neutral() -> int:
    return len(wl.neutral_activities())


def _findings() -> int:
    return len(wl.unrelated_findings())


def _pair_count(size: int) -> int:
    return size * (size - 1) // 2


@cache
def _pairs(size: int) -> tuple[tuple[int, int], ...]:
    return tuple(combinations(range(size), 2))


def _extra_count(shown: AddedEvent, relevant: int, irrelevant: int) -> int:
    return {"relevant": relevant, "irrelevant": irrelevant, "mixed": relevant + irrelevant}[shown]


def _extra_choice(shown: AddedEvent, index: int, relevant: int) -> tuple[bool, int]:
    """(is the shown added event the relevant one, its index in its list)."""
    if shown == "relevant" or (shown == "mixed" and index < relevant):
        return True, index
    return False, index - relevant if shown == "mixed" else index


def _both(
    shown: AddedEvent,
    index: int,
    relevant: tuple[str, ...],
    irrelevant: tuple[str, ...],
    stem: str,
) -> tuple[bool, str, str]:
    """The shown added event from the pool index; the other one (the H1 twin's) by a rotation
    that depends on the stem, so it is one-to-one among the originals of one stem: two originals
    never share a twin (the lists hold at least as many unrelated events as related ones)."""
    is_relevant, k = _extra_choice(shown, index, len(relevant))
    offset = stable_hash("tokenbias-twin-extra", stem)
    if is_relevant:
        return True, relevant[k], irrelevant[(k + offset) % len(irrelevant)]
    return False, relevant[(k + offset) % len(relevant)], irrelevant[k]


# --------------------------------------------------------------------------------------------------
# builders: pool choices (+ a random stream for what the original does not show) -> record
# --------------------------------------------------------------------------------------------------


def build_conjunction(
    style: Style,
    choices: Choices,
    shown: AddedEvent,
    connectors: tuple[Connector, ...],
    rng: random.Random,
) -> Conjunction:
    """The original that ``choices`` (decoded from :func:`conjunction_pool`) describes."""
    if style == "bio":
        return _bio(choices, shown, rng)
    if style in ("story", "news"):
        return _story(style, choices, shown, connectors, rng)
    if style == "medical":
        return _medical(choices, shown, rng)
    return _celebrity(choices, rng)


def _bio(c: Choices, shown: AddedEvent, rng: random.Random) -> Conjunction:
    profile = wl.profiles()[c["profile"]]
    t1, t2 = (profile.traits[i] for i in _pairs(len(profile.traits))[c["traits"]])
    b1, b2 = (profile.backgrounds[i] for i in _pairs(len(profile.backgrounds))[c["backgrounds"]])
    person = rng.choice(wl.people())
    age = rng.choice(AGES["bio"])
    stem = f"bio:{profile.id}:{c['traits']}:{c['backgrounds']}:{c['occupation']}"
    relevant, relevant_extra, irrelevant_extra = _both(
        shown, c["extra"], profile.activities, wl.neutral_activities(), stem
    )
    return Conjunction(
        style="bio",
        source=f"bio:{profile.id}",
        name=person.name,
        gender=person.gender,
        setup=f"{{name}} is {age} years old, {t1} and {t2}. {b1} {b2}",
        single=f"{{name}} is {wl.occupations()[c['occupation']]}",
        connector="and",
        relevant_extra=relevant_extra,
        irrelevant_extra=irrelevant_extra,
        relevant=relevant,
    )


def _story(
    style: Style,
    c: Choices,
    shown: AddedEvent,
    connectors: tuple[Connector, ...],
    rng: random.Random,
) -> Conjunction:
    kind = "story" if style == "story" else "news"
    connector = connectors[c["connector"]]
    story = stories_for(kind, connector)[c["story"]]
    relevant, relevant_extra, irrelevant_extra = _both(
        shown, c["extra"], *_extras(story, connector), f"{story.id}:{connector}"
    )
    person = rng.choice(wl.people()) if kind == "story" else wl.Person("", "male")
    return Conjunction(
        style=style,
        source=story.id,
        name=person.name,
        gender=person.gender,
        setup=story.setup,
        single=story.event,
        connector=_connector_phrase(story, connector),
        relevant_extra=relevant_extra,
        irrelevant_extra=irrelevant_extra,
        relevant=relevant,
        place="" if kind == "story" else rng.choice(wl.places()),
    )


def _medical(c: Choices, shown: AddedEvent, rng: random.Random) -> Conjunction:
    disease = wl.diseases()[c["disease"]]
    first = disease.symptoms[c["first"]]
    others = tuple(s for s in disease.symptoms if s != first)
    relevant, relevant_extra, irrelevant_extra = _both(
        shown, c["extra"], others, wl.unrelated_findings(), f"medical:{disease.name}:{first}"
    )
    person = rng.choice(wl.people())
    age = rng.choice(AGES["medical"])
    return Conjunction(
        style="medical",
        source=f"medical:{disease.name}",
        name=person.name,
        gender=person.gender,
        setup=f"{{name}}, a {age}-year-old patient, has been diagnosed with {disease.name}.",
        single=f"{{name}} has {first}",
        connector="and",
        relevant_extra=relevant_extra,
        irrelevant_extra=irrelevant_extra,
        relevant=relevant,
    )


def _celebrity(c: Choices, rng: random.Random) -> Conjunction:
    field = celebrity_fields()[c["field"]]
    celebrity = rng.choice([x for x in wl.celebrities() if x.field == field])
    scenario = wl.scenarios(field)[c["scenario"]]
    extra = scenario.extras[c["extra"]]
    return Conjunction(
        style="celebrity",
        source=f"celebrity:{scenario.id}",
        name=celebrity.name,
        gender=celebrity.gender,
        setup=scenario.setup.replace("{time}", rng.choice(wl.times())),
        single=scenario.singles[c["single"]],
        connector="but",
        relevant_extra=extra,
        irrelevant_extra=extra,
    )


def generic_name_for(celebrity: str, rng: random.Random) -> str:
    """A same-gender 'First Last' name sharing no word with any celebrity (no surname leak)."""
    gender = next(c.gender for c in wl.celebrities() if c.name == celebrity)
    return rng.choice(wl.generic_names(gender))


def random_conjunction(rng: random.Random, avoid: frozenset[str]) -> Conjunction:
    """A conjunction problem for an exemplar, from any test style, whose template is not in
    ``avoid`` (the sources of the question it precedes)."""
    while True:
        style = rng.choice(LINDA_STYLES)
        pool = conjunction_pool(style, "relevant", CONNECTORS)
        problem = build_conjunction(
            style, pool.decode(rng.randrange(pool.size)), "relevant", CONNECTORS, rng
        )
        if problem.source not in avoid:
            return problem
