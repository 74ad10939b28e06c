"""The lexicon: valid data, grammatical forms that parse back uniquely, seeded chain sampling."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from biaslab.errors import BiaslabError
from biaslab.suites.defeasible.lexicon import (
    ANY_NUMBER,
    LEXICON_PATH,
    PLURAL,
    RESERVED_WORDS,
    SINGULAR,
    Lexicon,
    LexiconError,
    load_lexicon,
    parse_lexicon,
    pluralise,
    read_lexicon,
    third_person_singular,
)


@pytest.fixture(scope="module")
def lex() -> Lexicon:
    return load_lexicon()


@pytest.fixture
def raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(LEXICON_PATH.read_text(encoding="utf-8"))
    return data


# ---------------------------------------------------------------------------------------- sizes


def test_sizes(lex: Lexicon) -> None:
    attributes = [a for d in lex.domains.values() for a in d.attributes]
    assert len(lex.domains) >= 6
    assert {"object", "animal", "plant", "tool", "food", "vehicle", "material", "mineral"} <= set(
        lex.domains
    )
    assert len(attributes) >= 40
    assert len(lex.all_predicates()) >= 150
    assert len(lex.source_names) >= 100
    for domain in lex.domains.values():
        assert len(domain.real_nouns) >= 40, domain.name
        # chains of 20 plus up to 4 distractors from the same pool
        assert lex.max_chain_length(domain.name) >= 24, domain.name
    assert all(len(a.values) >= 2 for a in attributes)


def test_loaded_once_and_frozen(lex: Lexicon) -> None:
    assert load_lexicon() is lex
    assert {lex: 1}[lex] == 1  # hashable, so usable as a cache key
    pred = lex.all_predicates()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        pred.singular = "is blue"  # type: ignore[misc]
    with pytest.raises(TypeError):
        lex.domains["x"] = lex.domains["object"]  # type: ignore[index]


# ---------------------------------------------------------------------------------------- forms


def test_every_surface_form_belongs_to_one_predicate_and_polarity(lex: Lexicon) -> None:
    owner: dict[str, tuple[str, bool]] = {}
    for pred in lex.all_predicates():
        entries = [
            (pred.singular, True),
            (pred.plural, True),
            (pred.negated_singular, False),
            (pred.negated_plural, False),
        ]
        for text, positive in entries:
            if text in owner:
                assert owner[text] == (pred.key, positive), f"{text!r}: {owner[text]} vs {pred.key}"
            owner[text] = (pred.key, positive)
        affirmative = {pred.singular, pred.plural}
        negated = {pred.negated_singular, pred.negated_plural}
        assert not affirmative & negated
        # only modal forms read the same in both numbers
        assert (pred.singular == pred.plural) == (pred.kind == "can")


def test_no_form_contains_punctuation_or_template_markers(lex: Lexicon) -> None:
    for pred in lex.all_predicates():
        for text in pred.forms():
            assert re.fullmatch(r"[a-z]+(?:[ -][a-z]+)*", text), text
            assert not RESERVED_WORDS & set(text.split()), text
            assert "generally" not in text and "exception" not in text and "." not in text


def test_lookup_round_trips_every_form(lex: Lexicon) -> None:
    for pred in lex.all_predicates():
        any_number = pred.kind == "can"
        expected = {
            pred.singular: (True, ANY_NUMBER if any_number else SINGULAR),
            pred.plural: (True, ANY_NUMBER if any_number else PLURAL),
            pred.negated_singular: (False, ANY_NUMBER if any_number else SINGULAR),
            pred.negated_plural: (False, ANY_NUMBER if any_number else PLURAL),
        }
        for text, (positive, number) in expected.items():
            assert lex.lookup(text) == (pred, positive, number)
            assert lex.lookup(f"  {text} ") == (pred, positive, number)
        assert pred.form(positive=True, plural=False) == pred.singular
        assert pred.form(positive=False, plural=True) == pred.negated_plural
    assert lex.lookup("is purple-ish") is None
    assert lex.lookup("does not lives in caves") is None


@pytest.mark.parametrize(
    ("key", "forms"),
    [
        ("color=red", ("is red", "are red", "is not red", "are not red")),
        (
            "habitat=caves",
            ("lives in caves", "live in caves", "does not live in caves", "do not live in caves"),
        ),
        ("covering=fur", ("has fur", "have fur", "does not have fur", "do not have fur")),
        ("ability=climb", ("can climb", "can climb", "cannot climb", "cannot climb")),
        ("call=buzz", ("buzzes", "buzz", "does not buzz", "do not buzz")),
        ("locomotion=fly", ("flies", "fly", "does not fly", "do not fly")),
        (
            "capacity=cargo",
            (
                "carries heavy cargo",
                "carry heavy cargo",
                "does not carry heavy cargo",
                "do not carry heavy cargo",
            ),
        ),
        (
            "reaction=fizzes",
            ("fizzes in acid", "fizz in acid", "does not fizz in acid", "do not fizz in acid"),
        ),
        (
            "scratch_test=scratches_glass",
            ("scratches glass", "scratch glass", "does not scratch glass", "do not scratch glass"),
        ),
        (
            "scent=strong",
            (
                "gives off a strong scent",
                "give off a strong scent",
                "does not give off a strong scent",
                "do not give off a strong scent",
            ),
        ),
        (
            "requirement=training",
            (
                "requires training",
                "require training",
                "does not require training",
                "do not require training",
            ),
        ),
    ],
)
def test_known_predicates_render_as_expected(
    lex: Lexicon, key: str, forms: tuple[str, str, str, str]
) -> None:
    assert lex.predicate(key).forms() == forms


def test_every_template_is_grammatical(lex: Lexicon) -> None:
    for pred in lex.all_predicates():
        s, p, ns, np_ = pred.forms()
        if pred.kind == "copula":
            assert s == f"is {pred.bare}" and p == f"are {pred.bare}"
            assert ns == f"is not {pred.bare}" and np_ == f"are not {pred.bare}"
        elif pred.kind == "have":
            assert s.startswith("has ") and p.startswith("have ")
            assert ns == f"does not {p}" and np_ == f"do not {p}"
        elif pred.kind == "can":
            assert s == p == f"can {pred.bare}" and ns == np_ == f"cannot {pred.bare}"
        else:
            assert pred.kind == "verb"
            verb, _, rest = p.partition(" ")
            assert s == " ".join(filter(None, [third_person_singular(verb), rest]))
            # the original's bug: "does not lives", "Objects that lives ..."
            assert ns == f"does not {p}" and np_ == f"do not {p}"
            assert not verb.endswith("s") or verb.endswith("ss"), p
        assert s != p or pred.kind == "can"


def test_questions(lex: Lexicon) -> None:
    assert lex.predicate("color=red").question("Zib") == "Is Zib red?"
    assert lex.predicate("habitat=caves").question("Zib") == "Does Zib live in caves?"
    assert lex.predicate("covering=fur").question("Zibs", plural=True) == "Do Zibs have fur?"
    assert lex.predicate("ability=climb").question("Zib") == "Can Zib climb?"


@pytest.mark.parametrize(
    ("verb", "expected"),
    [
        ("roll", "rolls"), ("carry", "carries"), ("wash", "washes"), ("go", "goes"),
        ("have", "has"), ("be", "is"), ("do", "does"), ("fix", "fixes"), ("buzz", "buzzes"),
        ("hiss", "hisses"), ("watch", "watches"), ("fly", "flies"), ("play", "plays"),
        ("echo", "echoes"), ("live", "lives"), ("give off", "gives off"), ("fizz", "fizzes"),
        ("scratch", "scratches"), ("obey", "obeys"), ("veto", "vetoes"), ("zoo", "zoos"),
    ],
)  # fmt: skip
def test_third_person_singular(verb: str, expected: str) -> None:
    assert third_person_singular(verb) == expected


@pytest.mark.parametrize(
    ("noun", "expected"),
    [
        ("box", "boxes"), ("berry", "berries"), ("leaf", "leaves"), ("knife", "knives"),
        ("mouse", "mice"), ("Mouse", "Mice"), ("goose", "geese"), ("ox", "oxen"),
        ("cactus", "cacti"), ("potato", "potatoes"), ("taco", "tacos"), ("roof", "roofs"),
        ("day", "days"), ("bus", "buses"), ("church", "churches"), ("dish", "dishes"),
        ("quartz", "quartzes"), ("sheep", "sheep"), ("fruit bat", "fruit bats"),
        ("Kitylu", "Kitylus"), ("Glorby", "Glorbies"), ("Zibber", "Zibbers"),
        ("Vantox", "Vantoxes"), ("Blorus", "Bloruses"), ("ABC", "ABCs"), ("grass", "grasses"),
    ],
)  # fmt: skip
def test_pluralise(noun: str, expected: str) -> None:
    assert pluralise(noun) == expected


def test_pluralise_rejects_empty() -> None:
    with pytest.raises(LexiconError):
        pluralise("  ")


def test_class_words_and_domain_nouns_pluralise_consistently(lex: Lexicon) -> None:
    for singular, plural in lex.class_words.items():
        assert pluralise(singular) == plural
        assert plural != singular
    for domain in lex.domains.values():
        assert lex.class_words[domain.noun] == domain.plural_noun == pluralise(domain.noun)


# ---------------------------------------------------------------------------------------- nouns


def test_real_nouns_are_clean(lex: Lexicon) -> None:
    seen: dict[str, str] = {}
    predicate_words = {
        word
        for pred in lex.all_predicates()
        for text in pred.forms()
        for word in re.split("[ -]", text)
    }
    for domain in lex.domains.values():
        for noun in domain.real_nouns:
            assert noun not in seen, f"{noun} in {seen.get(noun)} and {domain.name}"
            seen[noun] = domain.name
            assert pluralise(noun) != noun  # singular and plural must be told apart
            assert noun not in lex.class_words
            assert noun not in predicate_words and pluralise(noun) not in predicate_words, noun


def _edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def test_source_names_are_distinct_and_not_confusable(lex: Lexicon) -> None:
    names = [n.lower() for n in lex.source_names]
    assert len(set(names)) == len(names)
    nouns = {n for d in lex.domains.values() for n in d.real_nouns} | set(lex.class_words)
    assert not set(names) & nouns
    for i, a in enumerate(names):
        assert re.fullmatch(r"[a-z]+", a)
        for b in names[i + 1 :]:
            assert _edit_distance(a, b) >= 2, (a, b)


# ---------------------------------------------------------------------------------------- sampling


def test_sample_chain_uses_distinct_attributes_and_is_seeded(lex: Lexicon) -> None:
    for domain in lex.domains:
        for length in (1, 5, 10, 20, lex.max_chain_length(domain)):
            chain = lex.sample_chain(random.Random(length), domain, length)
            assert len(chain) == length
            assert len({p.attribute for p in chain}) == length
            again = lex.sample_chain(random.Random(length), domain, length)
            assert [p.key for p in chain] == [p.key for p in again]


def test_sample_chain_prefers_the_domain_and_tops_up_from_generic(lex: Lexicon) -> None:
    animal = lex.domain("animal")
    own = {a.name for a in animal.attributes}
    generic = {a.name for a in lex.domain(lex.generic_domain).attributes}
    short = lex.sample_chain(random.Random(1), "animal", len(own))
    assert {p.attribute for p in short} == own
    long = lex.sample_chain(random.Random(1), "animal", len(own) + 3)
    assert len({p.attribute for p in long} - own) == 3
    assert {p.attribute for p in long} - own <= generic


def test_sample_chain_respects_exclusions_and_limits(lex: Lexicon) -> None:
    first = lex.sample_chain(random.Random(2), "tool", 10)
    used = [p.attribute for p in first]
    second = lex.sample_chain(random.Random(3), "tool", 10, exclude_attributes=used)
    assert not set(used) & {p.attribute for p in second}
    limit = lex.max_chain_length("tool", exclude_attributes=used)
    assert limit == lex.max_chain_length("tool") - 10
    with pytest.raises(LexiconError, match="cannot build a chain"):
        lex.sample_chain(random.Random(0), "tool", limit + 1, exclude_attributes=used)
    with pytest.raises(LexiconError):
        lex.sample_chain(random.Random(0), "tool", -1)
    assert lex.sample_chain(random.Random(0), "tool", 0) == []


def test_sample_chain_only_uses_the_given_rng(lex: Lexicon) -> None:
    random.seed(5)
    before = random.getstate()
    lex.sample_chain(random.Random(1), "plant", 12)
    lex.sample_distractors(random.Random(1), [], 4)
    assert random.getstate() == before


def test_sample_distractors(lex: Lexicon) -> None:
    chain = lex.sample_chain(random.Random(4), "food", 15)
    used = {p.attribute for p in chain}
    for domain in (None, "food"):
        picks = lex.sample_distractors(random.Random(9), used, 4, domain=domain)
        assert len(picks) == 4 and len({p.attribute for p in picks}) == 4
        assert not used & {p.attribute for p in picks}
        again = lex.sample_distractors(random.Random(9), used, 4, domain=domain)
        assert [p.key for p in picks] == [p.key for p in again]
    near = {a.name for a in lex.domain("food").attributes}
    near |= {a.name for a in lex.domain(lex.generic_domain).attributes}
    picks = lex.sample_distractors(random.Random(9), used, 4, domain="food")
    assert {p.attribute for p in picks} <= near
    total = sum(len(d.attributes) for d in lex.domains.values())
    everything = lex.sample_distractors(random.Random(0), [], total, domain="food")
    assert len({p.attribute for p in everything}) == total  # tops up from other domains
    with pytest.raises(LexiconError):
        lex.sample_distractors(random.Random(0), [], total + 1)


def test_lookups_by_name_fail_clearly(lex: Lexicon) -> None:
    with pytest.raises(LexiconError, match="known: animal, food"):
        lex.domain("fungus")
    with pytest.raises(BiaslabError):
        lex.predicate("color=plaid")
    with pytest.raises(BiaslabError):
        lex.attribute("nope")
    assert lex.predicate("color=red").attribute == "color"
    assert lex.attribute("color").domain == "object"


def test_order_does_not_depend_on_the_file_order(raw: dict[str, Any], lex: Lexicon) -> None:
    shuffled = copy.deepcopy(raw)
    rng = random.Random(0)
    for domain in shuffled["domains"].values():
        items = list(domain["attributes"].items())
        rng.shuffle(items)
        domain["attributes"] = {k: dict(reversed(list(v.items()))) for k, v in items}
    shuffled["domains"] = dict(reversed(list(shuffled["domains"].items())))
    other = parse_lexicon(shuffled)
    assert [p.key for p in other.all_predicates()] == [p.key for p in lex.all_predicates()]
    a = other.sample_chain(random.Random(3), "vehicle", 18)
    b = lex.sample_chain(random.Random(3), "vehicle", 18)
    assert [p.key for p in a] == [p.key for p in b]


# ---------------------------------------------------------------------------------------- validation


def _value(data: dict[str, Any], domain: str, attribute: str) -> dict[str, Any]:
    values: dict[str, Any] = data["domains"][domain]["attributes"][attribute]
    return values


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: _value(d, "object", "color").update(crimson={"copula": "red"}), "shared by"),
        (lambda d: _value(d, "object", "color").update(x={"copula": "not red"}), "shared by"),
        (lambda d: _value(d, "object", "color").update(x={"colour": "teal"}), "exactly one"),
        (lambda d: _value(d, "object", "color").update(x={"copula": "teal", "rest": "a"}), "rest"),
        (lambda d: _value(d, "object", "color").update(x={"copula": "teal."}), "lowercase"),
        (lambda d: _value(d, "object", "color").update(x={"copula": "generally teal"}), "reserved"),
        (lambda d: _value(d, "object", "color").update(x={"verb": "roll over"}), "one word"),
        (lambda d: _value(d, "object", "color").update(x={"verb": "have"}), "form type"),
        (lambda d: d["domains"]["object"]["attributes"].update(solo={"a": {"copula": "x"}}), "two"),
        (
            lambda d: d["domains"]["animal"]["attributes"].update(
                color={"a": {"copula": "q"}, "b": {"copula": "qq"}}
            ),
            "unique",
        ),
        (lambda d: d["domains"]["animal"]["real_nouns"].append("hammer"), "already listed"),
        (lambda d: d["source_names"].append("Alice"), "duplicate"),
        (lambda d: d["source_names"].append("heron"), "capitalised"),
        (lambda d: d.update(extra=1), "unknown key"),
        (lambda d: d.update(generic_domain="thing"), "not a domain"),
        (lambda d: d["class_words"].update(animal="animalz"), "domain noun"),
    ],
)  # fmt: skip
def test_validation_errors_name_the_problem(raw: dict[str, Any], mutate: Any, message: str) -> None:
    mutate(raw)
    with pytest.raises(LexiconError, match=message):
        parse_lexicon(raw)


def test_read_lexicon_reports_file_problems(tmp_path: Path) -> None:
    with pytest.raises(LexiconError, match="not found"):
        read_lexicon(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(LexiconError, match="invalid JSON"):
        read_lexicon(bad)
    dup = tmp_path / "dup.json"
    dup.write_text('{"format": 1, "format": 1}', encoding="utf-8")
    with pytest.raises(LexiconError, match="duplicate key"):
        read_lexicon(dup)
    ok = tmp_path / "ok.json"
    ok.write_text(LEXICON_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    assert len(read_lexicon(ok).all_predicates()) == len(load_lexicon().all_predicates())
