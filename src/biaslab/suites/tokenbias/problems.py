"""What makes two prompts the same problem: the problem as a reasoner reads it.

Two prompts are one problem when they differ only in what a reasoner treats like a name, no
difference at all: the name of a person, famous or not, and the pronouns that follow it (who the
celebrity is does not change the events compared, and the pool draws the celebrity per pair), a
person's or patient's age, the name of an invented town, when a celebrity scenario happens ("next
month", "this autumn"), which reputable (or which less reputable) outlet and university a
syllogism cites (only their reputation is kept: it is what H5 perturbs), a horse farm's owner and
town (the framing), the order of the options and of the number labels, the quantifier wording of
a syllogism ("certain roses are red" is "some roses are red"), and the exemplars shown before the
question (only the H2 exemplar's name, its perturbation, is kept). Everything else is the problem:
the events and their order of words, the numbers and the animal, the logical form and terms, the
system message and its hint. An H3 celebrity original and its generic twin are therefore one
problem, as the token-bias claim says they are.

:func:`problem_key` hashes :func:`problem_text`. The generator draws each seed's items so that no two
members of a block share a key (``checks.duplicate_problems``), the analysis counts pairs that share
one as a single cluster (:mod:`biaslab.suites.tokenbias.clusters`), and the ``no-bias?by=problem``
agent answers by it, so the level tests face an answerer that treats the copies alike. It reads only
the text, as an agent must.
"""

from __future__ import annotations

import re
from functools import cache

from biaslab.seeding import stable_hash
from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.render import (
    exemplar_part,
    parse_conjunction_options,
    parse_horses,
    parse_syllogism,
    question_part,
)

PERSON, PLACE, PRONOUN, AGE, TIME = "<person>", "<place>", "<pronoun>", "<age>", "<time>"
#: the H2 perturbation lives in the exemplar: its name is part of the problem
EXEMPLAR_NAMES = ("Linda", "Bob")

_SOURCE_RE = re.compile(r"^Premise \d: According to (?:researchers at )?(?P<source>.+?), ", re.M)
_ANIMAL_RE = re.compile(r"At most \d+ (?P<animal>[a-z][a-z -]*?) can run in a race")
_QUESTION_LINE_RE = re.compile(r"^Which is more \w+\?$", re.M)


def problem_key(system: str, prompt: str) -> str:
    """A stable 16-hex-digit hash of :func:`problem_text`."""
    return f"{stable_hash('tokenbias-problem', problem_text(system, prompt)):016x}"


def problem_text(system: str, prompt: str) -> str:
    """The problem of a rendered prompt, with every difference a reasoner ignores taken out."""
    question = question_part(prompt)
    shots = exemplar_part(prompt)
    exemplar = [name for name in EXEMPLAR_NAMES if re.search(rf"\b{name}\b", shots)]
    return "\n".join((system, f"exemplar: {','.join(exemplar)}", _question_text(question)))


def _question_text(question: str) -> str:
    options = parse_conjunction_options(question)
    if options is not None:
        setup = _QUESTION_LINE_RE.split(question, maxsplit=1)[0]
        asked = _QUESTION_LINE_RE.search(question)
        texts = sorted(anonymised(text) for text in options.values())
        return "\n".join(
            ("conjunction", anonymised(setup.strip()), asked[0] if asked else "", *texts)
        )
    syllogism = parse_syllogism(question)
    if syllogism is not None:
        (first, second), conclusion = syllogism
        statements = [f"{s.quantifier} {s.subject} / {s.predicate}" for s in (first, second)]
        sources = _SOURCE_RE.findall(question)
        return "\n".join(
            (
                "syllogism",
                *statements,
                f"{conclusion.quantifier} {conclusion.subject} / {conclusion.predicate}",
                f"sources: {' | '.join(_reputation(source) for source in sources)}",
            )
        )
    horses = parse_horses(question)
    animal = _ANIMAL_RE.search(question)
    if horses is not None and animal is not None:
        n, k, m = horses
        return f"horses n={n} k={k} m={m} {animal['animal']}"
    return anonymised(question)


def _reputation(source: str) -> str:
    """A cited source as its reputation: which reputable outlet is cited is like a name."""
    for kind in ("outlets", "institutions"):
        for reputable in (True, False):
            if source in wl.sources(kind, reputable):
                return f"<{'reputable' if reputable else 'less reputable'} {kind[:-1]}>"
    return source


def anonymised(text: str) -> str:
    """``text`` with people (celebrities too), ages, invented towns, celebrity scenarios' time
    phrases and pronouns replaced by placeholders."""
    return _name_regex().sub(_placeholder, text)


def _placeholder(match: re.Match[str]) -> str:
    if match["celebrity"]:
        return PERSON
    if match["age"]:
        return AGE
    if match["time"]:
        return TIME
    if match["person"]:
        return PERSON
    if match["place"]:
        return PLACE
    return PRONOUN + ("self" if match[0].lower().endswith("self") else "")


@cache
def _name_regex() -> re.Pattern[str]:
    def alternatives(words: set[str]) -> str:
        return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))

    celebrities = {c.name for c in wl.celebrities()}
    firsts = {p.name for p in wl.people()}
    surnames = set(wl.surnames())
    places = set(wl.places())
    times = set(wl.times())
    return re.compile(
        rf"(?<![\w'])(?:(?P<celebrity>{alternatives(celebrities)})"
        r"|(?P<age>\d+)(?= years old\b|-year-old\b)"
        rf"|(?P<time>{alternatives(times)})"
        rf"|(?P<person>(?:{alternatives(firsts)})(?: (?:{alternatives(surnames)}))?)"
        rf"|(?P<place>{alternatives(places)})"
        r"|(?P<pronoun>(?i:he|she|him|her|his|hers|himself|herself)))(?!\w)"
    )
