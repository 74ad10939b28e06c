"""Syllogisms: categorical forms, validity decided from the form, quantifier wordings, and the
pool of distinct originals per validity (:mod:`biaslab.suites.tokenbias.pools`).

A syllogism is valid iff every Venn model of its premises satisfies its conclusion (Boolean
semantics, no existential import): :func:`follows` checks that by brute force, :func:`is_valid`
once per form. Quantifier wordings are exact: every wording of "some" asserts that at least one
thing is both (so not "a subset of", which the empty set satisfies).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from functools import cache
from typing import Literal

from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.pools import Choice, Choices, Pool, Product, Union

Quantifier = Literal["all", "some", "no", "some-not"]
Role = Literal[
    "X", "Y", "Z"
]  # X: member noun (conclusion subject), Y: category (middle), Z: property


@dataclass(frozen=True)
class Statement:
    quantifier: Quantifier
    subject: str
    predicate: str


@dataclass(frozen=True)
class Form:
    name: str
    premises: tuple[tuple[Quantifier, Role, Role], tuple[Quantifier, Role, Role]]
    conclusion: tuple[Quantifier, Role, Role]
    valid: bool


def _form(name: str, p1: str, p2: str, conclusion: str, valid: bool) -> Form:
    def parse(spec: str) -> tuple[Quantifier, Role, Role]:
        q, s, p = spec.split()
        return (q, s, p)  # type: ignore[return-value]

    return Form(name, (parse(p1), parse(p2)), parse(conclusion), valid)


#: Categorical forms whose terms fit "plural noun are plural noun/adjective" (Z is always a predicate).
#: Validity uses Boolean semantics (no existential import); the tests recompute it from the Venn models.
FORMS: tuple[Form, ...] = (
    _form("barbara", "all Y Z", "all X Y", "all X Z", True),
    _form("barbara-swapped", "all X Y", "all Y Z", "all X Z", True),
    _form("celarent", "no Y Z", "all X Y", "no X Z", True),
    _form("darii", "all Y Z", "some X Y", "some X Z", True),
    _form("ferio", "no Y Z", "some X Y", "some-not X Z", True),
    _form("datisi", "all Y Z", "some Y X", "some X Z", True),
    _form("disamis", "some Y Z", "all Y X", "some X Z", True),
    _form("ferison", "no Y Z", "some Y X", "some-not X Z", True),
    _form("undistributed-middle", "all X Y", "some Y Z", "some X Z", False),
    _form("undistributed-some", "some X Y", "some Y Z", "some X Z", False),
    _form("illicit-major", "all Y Z", "no X Y", "no X Z", False),
    _form("illicit-minor", "all Y Z", "all Y X", "all X Z", False),
    _form("converse-negative", "all X Y", "some-not Y Z", "some-not X Z", False),
    _form("exclusive-premises", "no X Y", "no Y Z", "no X Z", False),
    _form("affirmative-from-negative", "no Y Z", "all X Y", "all X Z", False),
    _form("negative-middle", "some-not X Y", "no Y Z", "some X Z", False),
)


#: wordings of "all X are P" and "some X are P" ({s} subject, {p} predicate, with "not " before the
#: predicate for "some ... are not"); the first of each is the textbook one
ALL_WORDINGS = (
    "all {s} are {p}",
    "without exception, {s} are {p}",
    "invariably, {s} are {p}",
    "{s} are always {p}",
)
SOME_WORDINGS = (
    "some {s} are {p}",
    "certain {s} are {p}",
    "there are {s} that are {p}",
    "one or more {s} are {p}",
)
NO_WORDING = "no {s} are {p}"
Wording = Literal["classic", "synonyms"]


@dataclass(frozen=True)
class Syllogism:
    """Two premises and a conclusion; the quantifier wordings (indices into ``ALL_WORDINGS`` and
    ``SOME_WORDINGS``) and the source framing are rendering choices."""

    form: str
    premises: tuple[Statement, Statement]
    conclusion: Statement
    all_wording: int = 0
    some_wording: int = 0
    outlet: str | None = None
    institution: str | None = None

    @property
    def valid(self) -> bool:
        return is_valid(self.premises, self.conclusion)

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(
            t for s in (*self.premises, self.conclusion) for t in (s.subject, s.predicate)
        )


def uses(form: Form, quantifier: str) -> bool:
    """Whether a form has a statement with ``quantifier`` ("some" covers "some ... not")."""
    return any(
        q == quantifier or (quantifier == "some" and q == "some-not")
        for q, _, _ in _statements(form)
    )


def _statements(form: Form) -> tuple[tuple[Quantifier, Role, Role], ...]:
    return (*form.premises, form.conclusion)


def forms_for(valid: bool, need_all_or_some: bool) -> tuple[Form, ...]:
    """Forms of one validity; H4 needs a form in which "all" or "some" appears."""
    return tuple(
        f
        for f in FORMS
        if f.valid == valid and (not need_all_or_some or uses(f, "all") or uses(f, "some"))
    )


@cache
def syllogism_pool(valid: bool, need_all_or_some: bool, wording: Wording, sourced: bool) -> Pool:
    """Distinct originals of one validity: form × terms × property (× the synonym wordings the form
    shows, × a reputable outlet and university when ``sourced``)."""
    terms = Union(
        "terms", tuple(Choice("property", len(t.properties)) for t in wl.syllogism_terms())
    )
    sources = (
        (
            Choice("outlet", len(wl.sources("outlets", True))),
            Choice("institution", len(wl.sources("institutions", True))),
        )
        if sourced
        else ()
    )
    return Union(
        "form",
        tuple(
            Product((terms, *_wording_choices(form, wording), *sources))
            for form in forms_for(valid, need_all_or_some)
        ),
    )


def _wording_choices(form: Form, wording: Wording) -> tuple[Choice, ...]:
    if wording == "classic":
        return ()
    choices = []
    if uses(form, "all"):
        choices.append(Choice("all_wording", len(ALL_WORDINGS) - 1))
    if uses(form, "some"):
        choices.append(Choice("some_wording", len(SOME_WORDINGS) - 1))
    return tuple(choices)


def build_syllogism(
    valid: bool, need_all_or_some: bool, wording: Wording, sourced: bool, choices: Choices
) -> Syllogism:
    """The original that ``choices`` (decoded from :func:`syllogism_pool`) describes."""
    form = forms_for(valid, need_all_or_some)[choices["form"]]
    terms = wl.syllogism_terms()[choices["terms"]]
    binding = {"X": terms.member, "Y": terms.category, "Z": terms.properties[choices["property"]]}

    def bind(spec: tuple[Quantifier, Role, Role]) -> Statement:
        return Statement(spec[0], binding[spec[1]], binding[spec[2]])

    synonyms = 1 if wording == "synonyms" else 0
    return Syllogism(
        form=form.name,
        premises=(bind(form.premises[0]), bind(form.premises[1])),
        conclusion=bind(form.conclusion),
        all_wording=choices.get("all_wording", 0) + synonyms if uses(form, "all") else 0,
        some_wording=choices.get("some_wording", 0) + synonyms if uses(form, "some") else 0,
        outlet=wl.sources("outlets", True)[choices["outlet"]] if sourced else None,
        institution=wl.sources("institutions", True)[choices["institution"]] if sourced else None,
    )


def random_syllogism(rng: random.Random, valid: bool, avoid: frozenset[str]) -> Syllogism:
    """A textbook-worded syllogism for an exemplar that shares no term with ``avoid``."""
    pool = syllogism_pool(valid, False, "classic", False)
    while True:
        syllogism = build_syllogism(
            valid, False, "classic", False, pool.decode(rng.randrange(pool.size))
        )
        if not syllogism.terms & avoid:
            return syllogism


#: the one-shot exemplar (an undistributed middle), and the one used when a question shares its terms
CLASSIC_EXEMPLARS = (
    Syllogism(
        "undistributed-middle",
        (Statement("all", "roses", "flowers"), Statement("some", "flowers", "fragrant")),
        Statement("some", "roses", "fragrant"),
    ),
    Syllogism(
        "undistributed-middle",
        (Statement("all", "carrots", "vegetables"), Statement("some", "vegetables", "crunchy")),
        Statement("some", "carrots", "crunchy"),
    ),
)


def classic_exemplar(avoid: frozenset[str]) -> Syllogism:
    return next(s for s in CLASSIC_EXEMPLARS if not s.terms & avoid)


#: a syllogism's logical form: (quantifier, subject, predicate) per statement, conclusion last, with
#: the terms numbered by first appearance; validity depends on nothing else
Shape = tuple[tuple[Quantifier, int, int], ...]


def shape_of(premises: tuple[Statement, ...], conclusion: Statement) -> Shape:
    """The form of an argument, independent of which words fill its terms."""
    numbers: dict[str, int] = {}

    def number(term: str) -> int:
        return numbers.setdefault(term, len(numbers))

    return tuple(
        (s.quantifier, number(s.subject), number(s.predicate)) for s in (*premises, conclusion)
    )


def is_valid(premises: tuple[Statement, ...], conclusion: Statement) -> bool:
    """Validity, decided once per form by :func:`follows` and then looked up: validity is invariant
    under renaming terms, and the brute force (2^(2^t) Venn models) would otherwise be repeated for
    every generated syllogism and every answer the reasoner checks."""
    return _valid_shape(shape_of(premises, conclusion))


@cache
def _valid_shape(shape: Shape) -> bool:
    statements = [Statement(q, f"t{s}", f"t{p}") for q, s, p in shape]
    return follows(tuple(statements[:-1]), statements[-1])


def follows(premises: tuple[Statement, ...], conclusion: Statement) -> bool:
    """Validity by brute force over Venn models: each of the 2^t regions empty or not (the
    reference that :func:`is_valid` caches by form)."""
    terms = sorted({t for s in (*premises, conclusion) for t in (s.subject, s.predicate)})
    regions = list(itertools.product((False, True), repeat=len(terms)))
    for occupied in itertools.product((False, True), repeat=len(regions)):
        model = [
            dict(zip(terms, r, strict=True)) for r, o in zip(regions, occupied, strict=True) if o
        ]
        if all(_holds(p, model) for p in premises) and not _holds(conclusion, model):
            return False
    return True


def _holds(statement: Statement, model: list[dict[str, bool]]) -> bool:
    s, p = statement.subject, statement.predicate
    if statement.quantifier == "all":
        return all(region[p] for region in model if region[s])
    if statement.quantifier == "no":
        return not any(region[s] and region[p] for region in model)
    if statement.quantifier == "some":
        return any(region[s] and region[p] for region in model)
    return any(region[s] and not region[p] for region in model)
