"""Domains, attributes and their values as grammatical English predicates, plus names and nouns.

Why this exists: the original built negations and plurals by string prefixing ("does not lives",
"Objects that lives in ..."). Here every value is stored as a lemma with its form type, and the four
surface forms (singular / plural, affirmative / negated) are derived by rule:

=========================  ===========  ==========  ==================  ==================
JSON value                 singular     plural      negated singular    negated plural
=========================  ===========  ==========  ==================  ==================
``{"copula": "red"}``      is red       are red     is not red          are not red
``{"verb": "roll"}``       rolls        roll        does not roll       do not roll
``{"have": "fur"}``        has fur      have fur    does not have fur   do not have fur
``{"can": "float"}``       can float    can float   cannot float        cannot float
=========================  ===========  ==========  ==================  ==================

(``"verb"`` takes an optional ``"rest"``: ``{"verb": "live", "rest": "in caves"}``.)

The oracle agent parses rendered sentences back by exact lookup, so load-time validation guarantees
that every surface form belongs to exactly one predicate and polarity (:meth:`Lexicon.lookup`), and
that no form contains sentence punctuation or a word the templates use as a marker
(:data:`RESERVED_WORDS`). Everything is ordered by name, never by set or file order, so sampling with
a seeded ``random.Random`` is reproducible. Data: ``data/lexicon.json`` (hand-written, Apache-2.0).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from biaslab.errors import BiaslabError

LEXICON_PATH = Path(__file__).parent / "data" / "lexicon.json"
LEXICON_FORMAT = 1

SINGULAR = "singular"
PLURAL = "plural"
ANY_NUMBER = "any"  # modal forms ("can float") read the same in both numbers

# words the sentence templates use as markers ("Objects that P generally Q.", "X is a kind of Y.",
# "According to S, ...", "S is more reliable than T.", "X is an exception to the rule that ...");
# a predicate containing one could make a sentence parse two ways
RESERVED_WORDS = frozenset(
    {
        "generally", "exception", "exceptions", "rule", "however", "also", "typically", "usually",
        "kind", "reliable", "according", "that",
    }
)  # fmt: skip
FORM_KINDS = ("copula", "verb", "have", "can")

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_PHRASE = re.compile(r"^[a-z]+(?:[ -][a-z]+)*$")
_NOUN = _PHRASE
_SOURCE = re.compile(r"^[A-Z][a-z]+$")


class LexiconError(BiaslabError):
    """The lexicon data is malformed, or a request cannot be met (unknown name, chain too long)."""


# ---------------------------------------------------------------------------------------- morphology

_THIRD_PERSON_IRREGULAR = {"be": "is", "have": "has", "do": "does", "go": "goes"}
_SIBILANT_ENDINGS = ("s", "x", "z", "ch", "sh")


def third_person_singular(verb: str) -> str:
    """Present-tense third-person singular of a bare verb: roll->rolls, carry->carries, wash->washes.

    Handles the English spelling rules (-es after sibilants and after consonant + o, -ies after
    consonant + y) and the irregulars be/have/do/go. Only the first word is inflected
    ("give off" -> "gives off").
    """
    head, sep, tail = verb.partition(" ")
    if not head:
        raise LexiconError("cannot inflect an empty verb")
    if head in _THIRD_PERSON_IRREGULAR:
        inflected = _THIRD_PERSON_IRREGULAR[head]
    elif head.endswith(_SIBILANT_ENDINGS):
        inflected = head + "es"
    elif len(head) > 1 and head[-1] == "y" and head[-2] not in "aeiou":
        inflected = head[:-1] + "ies"
    elif len(head) > 1 and head[-1] == "o" and head[-2] not in "aeiou":
        inflected = head + "es"
    else:
        inflected = head + "s"
    return inflected + sep + tail


_IRREGULAR_PLURALS = {
    "mouse": "mice",
    "louse": "lice",
    "goose": "geese",
    "tooth": "teeth",
    "foot": "feet",
    "man": "men",
    "woman": "women",
    "child": "children",
    "person": "people",
    "ox": "oxen",
    "cactus": "cacti",
    "fungus": "fungi",
    "nucleus": "nuclei",
    "bacterium": "bacteria",
    "criterion": "criteria",
    "phenomenon": "phenomena",
    "crisis": "crises",
    "quiz": "quizzes",
    "leaf": "leaves",
    "loaf": "loaves",
    "knife": "knives",
    "wife": "wives",
    "life": "lives",
    "wolf": "wolves",
    "calf": "calves",
    "half": "halves",
    "elf": "elves",
    "shelf": "shelves",
    "thief": "thieves",
    "sheaf": "sheaves",
    "scarf": "scarves",
    "hoof": "hooves",
    "potato": "potatoes",
    "tomato": "tomatoes",
    "mango": "mangoes",
    "hero": "heroes",
    "echo": "echoes",
    "mosquito": "mosquitoes",
    "volcano": "volcanoes",
    "tornado": "tornadoes",
    "torpedo": "torpedoes",
    "buffalo": "buffaloes",
    "domino": "dominoes",
}
_UNCHANGED_PLURALS = frozenset(
    {
        "sheep", "deer", "fish", "moose", "salmon", "trout", "bison", "species", "series",
        "aircraft", "spacecraft", "hovercraft", "offspring", "swine", "cod",
    }
)  # fmt: skip


def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def pluralise(noun: str) -> str:
    """English plural of a real noun or pseudoword, keeping its capitalisation.

    Known irregulars (mouse->mice, knife->knives, cactus->cacti, potato->potatoes, sheep->sheep) are
    looked up; otherwise -es after s/x/z/ch/sh (box->boxes), -ies after consonant + y
    (berry->berries, Kitly->Kitlies), else -s (Kitylu->Kitylus, taco->tacos, roof->roofs). Only the
    last word of a compound is changed ("fruit bat" -> "fruit bats").
    """
    stripped = noun.strip()
    if not stripped:
        raise LexiconError("cannot pluralise an empty noun")
    head, sep, last = stripped.rpartition(" ")
    lower = last.lower()
    if lower in _IRREGULAR_PLURALS:
        plural = _match_case(last, _IRREGULAR_PLURALS[lower])
    elif lower in _UNCHANGED_PLURALS:
        plural = last
    elif lower.endswith(_SIBILANT_ENDINGS):
        plural = last + "es"
    elif len(lower) > 1 and lower[-1] == "y" and lower[-2] not in "aeiou":
        plural = last[:-1] + "ies"
    else:
        plural = last + "s"
    return head + sep + plural


# ---------------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Predicate:
    """One attribute value with its four surface forms (e.g. color=red: "is red" / "are red" ...).

    ``kind`` is the stored form type (copula / verb / have / can) and ``bare`` the predicate without
    its auxiliary ("red", "roll", "have fur", "float"); together they give :meth:`question`.
    """

    key: str
    attribute: str
    value: str
    singular: str
    plural: str
    negated_singular: str
    negated_plural: str
    kind: str = "copula"
    bare: str = ""

    def form(self, *, positive: bool = True, plural: bool = False) -> str:
        """The surface form for a polarity and grammatical number."""
        if positive:
            return self.plural if plural else self.singular
        return self.negated_plural if plural else self.negated_singular

    def forms(self) -> tuple[str, str, str, str]:
        """(singular, plural, negated singular, negated plural)."""
        return (self.singular, self.plural, self.negated_singular, self.negated_plural)

    def question(self, subject: str, *, plural: bool = False) -> str:
        """A yes/no question: "Is Zib red?", "Does Zib roll?", "Do Zibs have fur?", "Can Zib dig?"."""
        if self.kind == "copula":
            return f"{'Are' if plural else 'Is'} {subject} {self.bare}?"
        if self.kind == "can":
            return f"Can {subject} {self.bare}?"
        return f"{'Do' if plural else 'Does'} {subject} {self.bare}?"


@dataclass(frozen=True)
class Attribute:
    """A group of mutually exclusive values (color: red, blue, ...) belonging to one domain."""

    name: str
    domain: str
    values: tuple[Predicate, ...]


@dataclass(frozen=True)
class Domain:
    """A root concept with its own attributes and real nouns (for the real-entity control)."""

    name: str
    noun: str
    plural_noun: str
    attributes: tuple[Attribute, ...]
    real_nouns: tuple[str, ...]


def _make_predicate(attribute: str, value: str, spec: Any, where: str) -> Predicate:
    """Derive the four forms from one JSON value spec, rejecting anything malformed."""
    if not isinstance(spec, dict):
        raise LexiconError(f"{where}: value must be an object like {{'copula': 'red'}}")
    kinds = [k for k in FORM_KINDS if k in spec]
    unknown = sorted(set(spec) - {*FORM_KINDS, "rest"})
    if len(kinds) != 1 or unknown:
        raise LexiconError(
            f"{where}: need exactly one of {', '.join(FORM_KINDS)} (plus 'rest' for a verb); "
            f"got keys {sorted(spec)}"
        )
    kind = kinds[0]
    if "rest" in spec and kind != "verb":
        raise LexiconError(f"{where}: 'rest' is only allowed with 'verb'")
    lemma = spec[kind]
    rest = spec.get("rest", "")
    for label, text in (("lemma", lemma), ("rest", rest)):
        if not isinstance(text, str) or (text and not _PHRASE.match(text)):
            raise LexiconError(
                f"{where}: {label} {text!r} must be lowercase words (letters, spaces, hyphens)"
            )
    if not lemma:
        raise LexiconError(f"{where}: empty {kind}")
    if kind == "copula":
        forms = (f"is {lemma}", f"are {lemma}", f"is not {lemma}", f"are not {lemma}")
        bare = lemma
    elif kind == "have":
        forms = (f"has {lemma}", f"have {lemma}", f"does not have {lemma}", f"do not have {lemma}")
        bare = f"have {lemma}"
    elif kind == "can":
        forms = (f"can {lemma}", f"can {lemma}", f"cannot {lemma}", f"cannot {lemma}")
        bare = lemma
    else:
        if " " in lemma:
            raise LexiconError(f"{where}: verb {lemma!r} must be one word; put the rest in 'rest'")
        if lemma in {"be", "have", "can", "do", "cannot"}:
            raise LexiconError(f"{where}: use the {lemma!r} form type, not 'verb'")
        bare = f"{lemma} {rest}".strip()
        forms = (
            third_person_singular(bare),
            bare,
            f"does not {bare}",
            f"do not {bare}",
        )
    for text in forms:
        bad = RESERVED_WORDS.intersection(text.split())
        if bad:
            raise LexiconError(f"{where}: form {text!r} contains reserved word {sorted(bad)[0]!r}")
    return Predicate(f"{attribute}={value}", attribute, value, *forms, kind=kind, bare=bare)


# ---------------------------------------------------------------------------------------- lexicon


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: usable as a cache key
class Lexicon:
    """All domains, source names and class words, with form lookup and seeded sampling.

    Build it with :func:`load_lexicon` / :func:`parse_lexicon`, which also fill the lookup indexes.
    """

    domains: Mapping[str, Domain]
    source_names: tuple[str, ...]
    class_words: Mapping[str, str]  # singular -> plural
    generic_domain: str = "object"
    _by_key: Mapping[str, Predicate] = field(default_factory=dict, repr=False)
    _by_form: Mapping[str, tuple[Predicate, bool, str]] = field(default_factory=dict, repr=False)
    _attributes: Mapping[str, Attribute] = field(default_factory=dict, repr=False)

    def domain(self, name: str) -> Domain:
        """The domain called ``name`` (error lists the known ones)."""
        try:
            return self.domains[name]
        except KeyError:
            known = ", ".join(sorted(self.domains))
            raise LexiconError(f"unknown domain {name!r}; known: {known}") from None

    def attribute(self, name: str) -> Attribute:
        """The attribute called ``name`` (names are unique across domains)."""
        try:
            return self._attributes[name]
        except KeyError:
            raise LexiconError(f"unknown attribute {name!r}") from None

    def predicate(self, key: str) -> Predicate:
        """The predicate with stable id ``key`` ("attribute=value")."""
        try:
            return self._by_key[key]
        except KeyError:
            raise LexiconError(f"unknown predicate {key!r} (expected 'attribute=value')") from None

    def all_predicates(self) -> tuple[Predicate, ...]:
        """Every predicate, ordered by domain, attribute and value name."""
        return tuple(self._by_key.values())

    def lookup(self, form: str) -> tuple[Predicate, bool, str] | None:
        """Parse a surface form back: (predicate, positive, number) or None if unknown.

        ``number`` is "singular", "plural" or "any" (modal forms such as "can float"). Matching is
        exact apart from surrounding whitespace.
        """
        return self._by_form.get(form.strip())

    def chain_attributes(
        self, domain: str, *, exclude_attributes: Collection[str] = ()
    ) -> tuple[tuple[Attribute, ...], tuple[Attribute, ...]]:
        """(the domain's own, the generic top-up pool) attributes usable in a chain, minus exclusions."""
        own_domain = self.domain(domain)
        excluded = set(exclude_attributes)
        own = tuple(a for a in own_domain.attributes if a.name not in excluded)
        generic: tuple[Attribute, ...] = ()
        if domain != self.generic_domain:
            generic = tuple(
                a for a in self.domains[self.generic_domain].attributes if a.name not in excluded
            )
        return own, generic

    def max_chain_length(self, domain: str, *, exclude_attributes: Collection[str] = ()) -> int:
        """How long a chain :meth:`sample_chain` can build: one value per distinct attribute."""
        own, generic = self.chain_attributes(domain, exclude_attributes=exclude_attributes)
        return len(own) + len(generic)

    def sample_chain(
        self,
        rng: random.Random,
        domain: str,
        length: int,
        *,
        exclude_attributes: Collection[str] = (),
    ) -> list[Predicate]:
        """``length`` predicates with pairwise distinct attributes, one random value each.

        The domain's own attributes are used first and the generic ("object") pool only tops up,
        so short chains stay domain-specific. Attributes in ``exclude_attributes`` (e.g. those of
        another chain in the same item) are never used. Raises if fewer attributes are available
        than ``length`` (see :meth:`max_chain_length`).
        """
        if length < 0:
            raise LexiconError(f"chain length must be >= 0, got {length}")
        own, generic = self.chain_attributes(domain, exclude_attributes=exclude_attributes)
        if length > len(own) + len(generic):
            raise LexiconError(
                f"domain {domain!r} has only {len(own) + len(generic)} usable attributes "
                f"({len(own)} own + {len(generic)} generic), cannot build a chain of {length}"
            )
        picked = rng.sample(own, min(length, len(own)))
        if length > len(own):
            picked += rng.sample(generic, length - len(own))
        rng.shuffle(picked)
        return [rng.choice(attribute.values) for attribute in picked]

    def sample_distractors(
        self,
        rng: random.Random,
        exclude_attributes: Collection[str],
        n: int,
        *,
        domain: str | None = None,
    ) -> list[Predicate]:
        """``n`` predicates of distinct attributes none of which is in ``exclude_attributes``.

        With ``domain``, they come from that domain and the generic pool first (plausible for the
        entity, so they cannot be dismissed as off-topic), topped up from other domains; without
        it, from every domain alike.
        """
        if n < 0:
            raise LexiconError(f"n must be >= 0, got {n}")
        excluded = set(exclude_attributes)
        everything = [a for a in self._attributes.values() if a.name not in excluded]
        if domain is None:
            near, far = everything, []
        else:
            own, generic = self.chain_attributes(domain, exclude_attributes=excluded)
            near = [*own, *generic]
            near_names = {a.name for a in near}
            far = [a for a in everything if a.name not in near_names]
        if n > len(near) + len(far):
            raise LexiconError(
                f"only {len(near) + len(far)} attributes remain after exclusions, asked for {n}"
            )
        picked = rng.sample(near, min(n, len(near)))
        if n > len(near):
            picked += rng.sample(far, n - len(near))
        return [rng.choice(attribute.values) for attribute in picked]


# ---------------------------------------------------------------------------------------- loading


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise LexiconError(f"lexicon JSON: duplicate key {key!r}")
        result[key] = value
    return result


def _require(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in data:
        raise LexiconError(f"{where}: missing {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (kind in (dict, list) and not value):
        raise LexiconError(f"{where}: {key!r} must be a non-empty {kind.__name__}")
    return value


def _check_keys(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise LexiconError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(allowed)}")


def parse_lexicon(data: Mapping[str, Any]) -> Lexicon:
    """Validate the JSON structure and build a :class:`Lexicon` (errors name the offending path)."""
    if not isinstance(data, Mapping):
        raise LexiconError("lexicon JSON: top level must be an object")
    _check_keys(data, {"format", "generic_domain", "domains", "class_words", "source_names"}, "top")
    if data.get("format") != LEXICON_FORMAT:
        raise LexiconError(
            f"lexicon JSON: format must be {LEXICON_FORMAT}, got {data.get('format')}"
        )
    raw_domains = _require(data, "domains", dict, "top")
    generic = _require(data, "generic_domain", str, "top")
    if generic not in raw_domains:
        raise LexiconError(f"top: generic_domain {generic!r} is not a domain")

    domains: dict[str, Domain] = {}
    attribute_owner: dict[str, str] = {}
    noun_owner: dict[str, str] = {}
    for domain_name in sorted(raw_domains):
        where = f"domains.{domain_name}"
        raw = raw_domains[domain_name]
        if not _NAME.match(domain_name) or not isinstance(raw, dict):
            raise LexiconError(f"{where}: bad domain name or body")
        _check_keys(raw, {"noun", "plural", "attributes", "real_nouns"}, where)
        noun = _require(raw, "noun", str, where)
        plural_noun = _require(raw, "plural", str, where)
        attributes = []
        raw_attributes = _require(raw, "attributes", dict, where)
        for attr_name in sorted(raw_attributes):
            attr_where = f"{where}.attributes.{attr_name}"
            if not _NAME.match(attr_name):
                raise LexiconError(f"{attr_where}: attribute names are lowercase identifiers")
            if attr_name in attribute_owner:
                raise LexiconError(
                    f"{attr_where}: attribute name already used in domain "
                    f"{attribute_owner[attr_name]!r} (names must be unique across domains)"
                )
            attribute_owner[attr_name] = domain_name
            raw_values = _require(raw_attributes, attr_name, dict, f"{where}.attributes")
            if len(raw_values) < 2:
                raise LexiconError(f"{attr_where}: needs at least two alternative values")
            values = []
            for value_name in sorted(raw_values):
                if not _NAME.match(value_name):
                    raise LexiconError(f"{attr_where}.{value_name}: value names are identifiers")
                values.append(
                    _make_predicate(
                        attr_name, value_name, raw_values[value_name], f"{attr_where}.{value_name}"
                    )
                )
            attributes.append(Attribute(attr_name, domain_name, tuple(values)))
        real_nouns = _require(raw, "real_nouns", list, where)
        for noun_text in real_nouns:
            if not isinstance(noun_text, str) or not _NOUN.match(noun_text):
                raise LexiconError(f"{where}.real_nouns: {noun_text!r} must be lowercase words")
            if noun_text in noun_owner:
                raise LexiconError(
                    f"{where}.real_nouns: {noun_text!r} already listed in {noun_owner[noun_text]!r}"
                )
            noun_owner[noun_text] = domain_name
        domains[domain_name] = Domain(
            domain_name, noun, plural_noun, tuple(attributes), tuple(real_nouns)
        )

    class_words = _require(data, "class_words", dict, "top")
    for singular, plural in class_words.items():
        if not (isinstance(plural, str) and _NOUN.match(singular) and _NOUN.match(plural)):
            raise LexiconError(f"class_words: {singular!r} -> {plural!r} must be lowercase words")
        if singular in noun_owner:
            raise LexiconError(
                f"class_words: {singular!r} is also a real noun of {noun_owner[singular]!r}"
            )
    for domain in domains.values():
        if class_words.get(domain.noun) != domain.plural_noun:
            raise LexiconError(
                f"class_words must map domain noun {domain.noun!r} to {domain.plural_noun!r}"
            )

    source_names = _require(data, "source_names", list, "top")
    seen_names: set[str] = set()
    for name in source_names:
        if not isinstance(name, str) or not _SOURCE.match(name):
            raise LexiconError(f"source_names: {name!r} must be one capitalised word")
        if name.lower() in seen_names:
            raise LexiconError(f"source_names: duplicate {name!r}")
        if name.lower() in noun_owner or name.lower() in class_words:
            raise LexiconError(f"source_names: {name!r} is also a noun in the lexicon")
        seen_names.add(name.lower())

    by_key: dict[str, Predicate] = {}
    by_form: dict[str, tuple[Predicate, bool, str]] = {}
    attributes_by_name: dict[str, Attribute] = {}
    for domain in domains.values():
        for attribute in domain.attributes:
            attributes_by_name[attribute.name] = attribute
            for pred in attribute.values:
                by_key[pred.key] = pred
                entries = [
                    (pred.singular, True, SINGULAR),
                    (pred.plural, True, PLURAL),
                    (pred.negated_singular, False, SINGULAR),
                    (pred.negated_plural, False, PLURAL),
                ]
                for text, positive, number in entries:
                    previous = by_form.get(text)
                    if previous is None:
                        by_form[text] = (pred, positive, number)
                    elif previous[0] is pred and previous[1] == positive:
                        by_form[text] = (pred, positive, ANY_NUMBER)
                    else:
                        raise LexiconError(
                            f"surface form {text!r} is shared by {previous[0].key} and {pred.key}; "
                            "every form must parse back to one predicate and polarity"
                        )
    return Lexicon(
        domains=MappingProxyType(domains),
        source_names=tuple(source_names),
        class_words=MappingProxyType(dict(class_words)),
        generic_domain=generic,
        _by_key=MappingProxyType(by_key),
        _by_form=MappingProxyType(by_form),
        _attributes=MappingProxyType(attributes_by_name),
    )


def read_lexicon(path: Path) -> Lexicon:
    """Load and validate a lexicon JSON file (e.g. a user's own)."""
    try:
        data = json.loads(
            path.read_text(encoding="utf-8"), object_pairs_hook=_reject_duplicate_keys
        )
    except FileNotFoundError:
        raise LexiconError(f"lexicon file not found: {path}") from None
    except json.JSONDecodeError as exc:
        raise LexiconError(f"{path}: invalid JSON ({exc})") from None
    try:
        return parse_lexicon(data)
    except LexiconError as exc:
        raise LexiconError(f"{path.name}: {exc}") from None


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    """The shipped lexicon (validated once, then cached)."""
    return read_lexicon(LEXICON_PATH)
