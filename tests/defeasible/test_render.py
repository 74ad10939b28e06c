"""Rendering: grammatical sentences from the lexicon's forms, and an exact inverse (parse_premises)."""

from __future__ import annotations

import re
from functools import cache

import pytest

from biaslab.answers import format_instruction
from biaslab.schema import Item
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.conversation import (
    Claim,
    ClassProperty,
    EqualReliability,
    ExceptionFact,
    Fact,
    Implication,
    KindOf,
    Reliability,
    Statement,
)
from biaslab.suites.defeasible.generate import generate
from biaslab.suites.defeasible.lexicon import load_lexicon, third_person_singular
from biaslab.suites.defeasible.render import (
    EFFECT_LABELS,
    ENTAILMENT_LABELS,
    MINIMAL_PROMPT,
    SYSTEM_PROMPT,
    Renderer,
    RenderError,
    SentenceParser,
    Style,
    has_negation_cue,
    parse_premises,
)

LEXICON = load_lexicon()
VERB_LEMMAS = {p.bare.split()[0] for p in LEXICON.all_predicates() if p.kind == "verb"}
THIRD_PERSON = {third_person_singular(v) for v in VERB_LEMMAS} - VERB_LEMMAS
SINGULAR_HEADS = {"is", "has", "can", "cannot", "does"} | THIRD_PERSON


@cache
def items(preset: str, entities: str = "pseudo") -> tuple[Item, ...]:
    return tuple(generate(resolve_config(preset, {"entities": entities}), 21, 10))


def keys() -> tuple[str, str, str]:
    animal = LEXICON.domain("animal")
    verbs = [p for a in animal.attributes for p in a.values if p.kind == "verb"]
    copulas = [p for a in animal.attributes for p in a.values if p.kind == "copula"]
    return verbs[0].key, copulas[0].key, verbs[-1].key


def statements() -> list[Statement]:
    verb, copula, other = keys()
    rule = Implication(copula, verb, True)
    return [
        Fact("Kitylu", verb, True),
        Fact("Kitylu", verb, False),
        Fact("otter", copula, False),
        ExceptionFact("Kitylu", rule),
        ExceptionFact("Kitylu", Implication(copula, verb, False)),
        rule,
        Implication(verb, other, False),
        ClassProperty("Zibber", verb, True),
        ClassProperty("animal", other, False),
        KindOf("Zibber", "animal"),
        KindOf("Ogler", "Zibber", also=True),
        Claim("Alice", Fact("Kitylu", copula, False)),
        Claim("Bruno", Implication(copula, other, True)),
        Claim("Alice", Fact("otter", verb, True)),
        Reliability("Alice", "Bruno"),
        Reliability("Bruno", "Chen", worded_less=True),
        EqualReliability("Alice", "Chen"),
    ]


STYLE = Style(
    plural_noun="animals",
    classes=frozenset({"Zibber", "Ogler", "animal"}),
    definite=frozenset({"otter"}),
)


@pytest.mark.parametrize("statement", statements(), ids=lambda s: type(s).__name__)
def test_every_statement_round_trips(statement: Statement) -> None:
    sentence = Renderer(LEXICON, STYLE).sentence(statement)
    parsed = SentenceParser(LEXICON).statement(sentence)
    assert parsed == statement
    assert Renderer(LEXICON, STYLE).sentence(parsed) == sentence  # wording variants survive too


def test_sample_sentences_read_as_expected() -> None:
    renderer = Renderer(LEXICON, STYLE)
    rendered = [renderer.sentence(s) for s in statements()]
    assert rendered[2].startswith("The otter is not ")
    assert rendered[3].startswith("Kitylu is an exception to the rule that animals that ")
    assert rendered[5].startswith("Animals that ")
    assert rendered[8].startswith("An animal generally ")
    assert rendered[9] == "A Zibber is a kind of animal."
    assert rendered[10] == "An Ogler is also a kind of Zibber."
    assert rendered[11].startswith("According to Alice, Kitylu is not ")
    assert rendered[15] == "Chen is less reliable than Bruno."
    assert rendered[16] == "Alice and Chen are equally reliable."


def all_sentences() -> list[str]:
    found: list[str] = []
    for preset in ("easy", "hard"):
        for entities in ("pseudo", "real"):
            for item in items(preset, entities):
                for turn in item.turns:
                    for line in turn.prompt.splitlines():
                        line = line.removeprefix("Information update: ")
                        if line.endswith(".") and not line.startswith(("End your", "We now")):
                            found.append(line.split(": ", 1)[-1])
    return found


def test_rendered_grammar_uses_the_right_verb_forms() -> None:
    sentences = all_sentences()
    assert len(sentences) > 500
    for sentence in sentences:
        for negated in re.findall(r"\b(?:does|do) not (\w+)", sentence):
            assert negated not in THIRD_PERSON, sentence  # no "does not rolls"
        for plural in re.findall(r"\b[a-z]+s that (\w+)", sentence, flags=re.IGNORECASE):
            assert plural not in THIRD_PERSON | {"is", "has", "does"}, (
                sentence
            )  # no "Objects that rolls"
        for plural in re.findall(r"s that .+ generally (\w+)", sentence):
            assert plural not in THIRD_PERSON | {"is", "has", "does"}, sentence
        assert "  " not in sentence and not re.search(r"\bnot not\b", sentence)
        assert sentence[0].isupper()


def test_singular_subjects_take_singular_verbs() -> None:
    parser = SentenceParser(LEXICON)
    for sentence in all_sentences():
        statement = parser.statement(sentence)
        if isinstance(statement, Claim):
            statement = statement.content
            sentence = sentence.split(", ", 1)[1]
        if isinstance(statement, Fact | ClassProperty):
            predicate = LEXICON.predicate(statement.prop).form(positive=statement.positive)
            assert sentence.endswith(f" {predicate}."), sentence
            assert predicate.split()[0] in SINGULAR_HEADS, sentence


def test_every_question_ends_with_the_instruction_line() -> None:
    for item in items("easy"):
        assert item.system == MINIMAL_PROMPT  # the default: the paper's minimal instructions
        for turn in item.turns:
            expected = EFFECT_LABELS if turn.kind == "effect" else ENTAILMENT_LABELS
            assert turn.labels == expected
            assert turn.prompt.splitlines()[-1] == format_instruction(expected)
            assert turn.gold in expected


@pytest.mark.parametrize("entities", ["pseudo", "real"])
@pytest.mark.parametrize("preset", ["easy", "hard"])
def test_parse_premises_recovers_the_labelled_network(preset: str, entities: str) -> None:
    for item in items(preset, entities):
        texts = [turn.prompt for turn in item.turns]
        parsed = parse_premises(texts)
        assert parsed.network.to_dict() == item.meta["network"]
        sections = item.meta["sections"]
        assert [s.hypothesis.subject for s in parsed.sections] == [s["subject"] for s in sections]
        assert [s.hypothesis.prop for s in parsed.sections] == [s["property"] for s in sections]
        assert parsed.query is not None and parsed.query.subject == sections[-1]["subject"]
        assert len(parsed.updates) == item.meta["n_updates"]
        if item.meta.get("n_sources"):
            assert len(parsed.priorities) == item.meta["n_sources"] - 1


def test_real_entities_keep_the_structure_and_use_real_nouns() -> None:
    nouns = {n for d in LEXICON.domains.values() for n in d.real_nouns}
    for pseudo, real in zip(items("easy"), items("easy", "real"), strict=True):
        assert len(pseudo.meta["network"]["edges"]) > 0
        subjects = [s["subject"] for s in real.meta["sections"]]
        assert all(subject in nouns for subject in subjects)
        if real.meta["topology"] == "default":
            assert "The " in real.turns[0].prompt or "the " in real.turns[0].prompt


def test_parse_premises_tracks_the_state_before_the_latest_update() -> None:
    item = next(i for i in items("easy") if i.meta["topology"] == "default")
    texts = [t.prompt for t in item.turns[:2]]
    parsed = parse_premises(texts)
    assert parsed.last_update is not None and parsed.previous_network is not None
    assert parsed.last_question == "entailment"
    assert parse_premises(texts[:1]).previous_network is None


def test_unknown_sentences_are_a_render_error() -> None:
    with pytest.raises(RenderError):
        parse_premises(["Pretext:\nThe moon is made of cheese.\n\nHypothesis: Kitylu rolls."])


def test_negation_cue() -> None:
    assert has_negation_cue("Kitylu cannot swim.")
    assert has_negation_cue("Kitylu is an exception to the rule that animals that are red ...")
    assert has_negation_cue("Kitylu does not roll.")
    assert not has_negation_cue("Kitylu is nothing special.")


@pytest.mark.parametrize(("mode", "prompt"), [("rules", SYSTEM_PROMPT), ("none", None)])
def test_instructions_choose_the_system_prompt_and_are_recorded(
    mode: str, prompt: str | None
) -> None:
    from biaslab.suites.defeasible.config import resolve_config
    from biaslab.suites.defeasible.generate import generate

    (item,) = generate(resolve_config("easy", {"topology": "tree", "instructions": mode}), 1, 1)
    assert item.system == prompt and item.meta["instructions"] == mode
    assert "tells you nothing" not in MINIMAL_PROMPT  # minimal teaches no inference rule


def test_minimal_instructions_still_define_every_effect_label() -> None:
    """The answer format asks for strengthening / weakening / no effect, so even the paper's
    minimal prompt says what each means (support after vs before), without the rules mode's
    definition from the entailment answers."""
    for label in ("strengthening if", "weakening if", "no effect if"):
        assert label in MINIMAL_PROMPT, label
    assert "yes above unknown" not in MINIMAL_PROMPT
