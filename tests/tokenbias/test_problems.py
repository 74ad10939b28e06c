"""The problem key: prompts that differ only in what a reasoner ignores are one problem, and
prompts that differ in anything else are not."""

from __future__ import annotations

import re

import pytest

from biaslab.schema import Item
from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.config import Config, resolve_config
from biaslab.suites.tokenbias.generate import generate, make_pair
from biaslab.suites.tokenbias.problems import anonymised, problem_key, problem_text


def _key(item: Item, prompt: str | None = None) -> str:
    return problem_key(item.system or "", prompt if prompt is not None else item.turns[0].prompt)


def test_anonymised_drops_people_celebrities_ages_towns_times_and_pronouns() -> None:
    text = (
        "Mary's friend met John Smith in Ashford; she told herself that Kevin Durant played "
        "next month. A 45-year-old patient, 52 years old."
    )
    assert anonymised(text) == (
        "<person>'s friend met <person> in <place>; <pronoun> told <pronoun>self that "
        "<person> played <time>. A <age>-year-old patient, <age> years old."
    )
    assert anonymised("Hermione, the mark of the shell") == "Hermione, the mark of the shell"


def test_the_stored_key_is_the_key_of_the_text() -> None:
    for item in generate(Config(), seed=2, n=3):
        assert item.meta["problem_key"] == _key(item)


def _other_person(name: str) -> str:
    gender = next(p.gender for p in wl.people() if p.name == name)
    return next(p.name for p in wl.people() if p.gender == gender and p.name != name)


@pytest.mark.parametrize("style", ["bio", "story", "medical"])
def test_another_name_is_the_same_problem(style: str) -> None:
    config = resolve_config("default", {"family": "linda", "hypothesis": "H1", "styles": style})
    for item in generate(config, seed=4, n=6):
        name = str(item.meta["name"])
        renamed = re.sub(rf"\b{name}\b", _other_person(name), item.turns[0].prompt)
        assert renamed != item.turns[0].prompt
        assert _key(item, renamed) == _key(item)
        she_or_he = re.sub(r"\b(she|he)\b", lambda m: {"she": "he", "he": "she"}[m[1]], renamed)
        assert _key(item, she_or_he) == _key(item)


def test_another_town_option_order_or_label_order_is_the_same_problem() -> None:
    config = resolve_config("default", {"family": "linda", "hypothesis": "H6", "styles": "news"})
    for item in generate(config, seed=5, n=4):
        prompt = item.turns[0].prompt
        town = next(p for p in wl.places() if p in prompt)
        other = next(p for p in wl.places() if p != town)
        assert _key(item, prompt.replace(town, other)) == _key(item)
        first, second = re.findall(r"^\((?:a|b)\) (.+)$", prompt, re.M)
        swapped = prompt.replace(f"(a) {first}", "(a) @").replace(f"(b) {second}", f"(b) {first}")
        assert _key(item, swapped.replace("(a) @", f"(a) {second}")) == _key(item)


def test_a_horse_farm_and_the_label_window_are_framing() -> None:
    for item in generate(Config(family="horses"), seed=6, n=10):
        prompt = item.turns[0].prompt
        n = item.meta["n"]
        animals = item.meta["animal"]
        plain = re.sub(rf"^.*? {n} {animals}[^.]*\.", f"There are {n} {animals}.", prompt)
        farm = plain.replace(f"There are {n}", f"Julie keeps {n}").replace(
            f"{n} {animals}.", f"{n} {animals} on a farm near Ashford.", 1
        )
        shifted = re.sub(r"one of: .*\.$", "one of: two, three, four, five, six.", prompt)
        for variant in (plain, farm, shifted):
            assert _key(item, variant) == _key(item), variant
        more = prompt.replace(f" {n} {animals}", f" {n + 1} {animals}", 1)
        assert _key(item, more) != _key(item)


def test_what_the_hypotheses_perturb_changes_the_problem() -> None:
    config = Config()
    for family, hypothesis in (("linda", "H1"), ("linda", "H2"), ("linda", "H6")):
        original, twin = make_pair(config, 1, family, hypothesis, 0)  # type: ignore[arg-type]
        assert _key(original) != _key(twin), hypothesis
    for family, hypothesis in (("horses", "H3"), ("syllogism", "H5"), ("syllogism", "H6")):
        original, twin = make_pair(config, 1, family, hypothesis, 0)  # type: ignore[arg-type]
        assert _key(original) != _key(twin), hypothesis
    # H3 celebrity twins (a name for a name) and H4 twins (the originals in other words) are the
    # same problem for a reasoner
    original, twin = make_pair(config, 1, "linda", "H3", 0)
    assert _key(original) == _key(twin)
    original, twin = make_pair(config, 1, "syllogism", "H4", 0)
    assert original.turns[0].prompt != twin.turns[0].prompt and _key(original) == _key(twin)


def test_a_celebrity_is_a_name_like_any_other_so_the_h3_twin_is_the_same_problem() -> None:
    original, twin = make_pair(Config(), 3, "linda", "H3", 0)
    celebrity = str(original.meta["name"])
    other = next(c.name for c in wl.celebrities() if c.name != celebrity)
    assert _key(original, original.turns[0].prompt.replace(celebrity, other)) == _key(original)
    assert _key(original) == _key(twin)
    generic = str(twin.meta["name"])
    gender = next(c.gender for c in wl.celebrities() if c.name == celebrity)
    another = next(n for n in wl.generic_names(gender) if n != generic)
    assert _key(twin, twin.turns[0].prompt.replace(generic, another)) == _key(twin)


def test_exemplars_only_count_by_the_h2_name() -> None:
    config = resolve_config("default", {"family": "linda", "hypothesis": "H1", "mode": "few-shot"})
    item = generate(config, seed=7, n=1)[0]
    text = problem_text(item.system or "", item.turns[0].prompt)
    assert "exemplar: Linda" in text and "Here are some" not in text


@pytest.mark.parametrize("style", ["bio", "medical"])
def test_another_age_is_the_same_problem(style: str) -> None:
    config = resolve_config("default", {"family": "linda", "hypothesis": "H1", "styles": style})
    for item in generate(config, seed=6, n=4):
        prompt = item.turns[0].prompt
        older = re.sub(r"\b(\d+)(?= years old|-year-old)", lambda m: str(int(m[1]) + 7), prompt)
        assert older != prompt
        assert _key(item, older) == _key(item)


def test_another_time_phrase_or_another_celebrity_is_the_same_problem() -> None:
    config = resolve_config("default", {"family": "linda", "hypothesis": "H3"})
    for item in generate(config, seed=6, n=4)[::2]:
        prompt = item.turns[0].prompt
        time = next(t for t in wl.times() if t in prompt)
        other = next(t for t in wl.times() if t != time)
        assert _key(item, prompt.replace(time, other)) == _key(item)
        celebrity = str(item.meta["name"])
        field = next(c.field for c in wl.celebrities() if c.name == celebrity)
        rival = next(c for c in wl.celebrities() if c.field == field and c.name != celebrity)
        assert _key(item, prompt.replace(celebrity, rival.name)) == _key(item)
        assert str(item.meta["variant"]) == "original"


def test_which_reputable_source_is_cited_is_no_difference_but_reputation_is() -> None:
    config = resolve_config("default", {"family": "syllogism", "hypothesis": "H5"})
    original, twin = generate(config, seed=6, n=1)
    outlet = str(original.meta["outlet"])
    prompt = original.turns[0].prompt
    other = next(o for o in wl.sources("outlets", True) if o != outlet)
    assert _key(original, prompt.replace(outlet, other)) == _key(original)
    assert _key(original) != _key(twin)


def test_pools_count_problems_without_ages_or_time_phrases() -> None:
    """The medical and celebrity pools are the same size whatever the ages and times lists hold:
    those slots are drawn per pair."""
    from biaslab.suites.tokenbias.conjunction import celebrity_pool, conjunction_pool

    medical = conjunction_pool("medical", "relevant", ("because",))
    assert medical.size == sum(len(d.symptoms) * (len(d.symptoms) - 1) for d in wl.diseases())
    assert celebrity_pool().size == 240
