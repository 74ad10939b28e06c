"""Generation: byte reproducibility, per-pair stability, exact twins, balanced positions."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter

import pytest

from biaslab.errors import BiaslabError
from biaslab.schema import Item, Turn, dumps_sorted
from biaslab.suites.tokenbias.checks import (
    check_twins,
    duplicate_problems,
    duplicate_prompts,
    label_stats,
    rendering_parts,
    token_diff_problems,
)
from biaslab.suites.tokenbias.config import Config, combinations, resolve_config
from biaslab.suites.tokenbias.families import strata
from biaslab.suites.tokenbias.generate import generate, make_pair
from biaslab.suites.tokenbias.pools import capacity
from biaslab.suites.tokenbias.render import NUMBER_WORDS, exemplar_part, question_part
from biaslab.suites.tokenbias.suite import SUITE

ID_RE = re.compile(r"^tokenbias-(linda|syllogism|horses)-H[1-6]-\d+-\d{4}-(orig|twin)$")


def _json(items: list[Item]) -> str:
    return dumps_sorted([item.model_dump(mode="json") for item in items])


def _capped(config: Config, n: int) -> int:
    """``n``, or the largest number of pairs every block of ``config`` can supply."""
    blocks = [capacity([s.pool for s in strata(config, f, h)]) for f, h in combinations(config)]
    return min(n, *blocks)


def test_linda_h2_is_byte_reproducible() -> None:
    config = Config(family="linda", hypothesis="H2")
    first = _json(generate(config, seed=1, n=100))
    assert first == _json(generate(config, seed=1, n=100))
    assert first != _json(generate(config, seed=2, n=100))


def test_reproducible_across_processes_and_hash_seeds() -> None:
    code = (
        "import hashlib; from biaslab.schema import dumps_sorted;"
        "from biaslab.suites.tokenbias.config import Config;"
        "from biaslab.suites.tokenbias.generate import generate;"
        "items = generate(Config(), 1, 5);"
        "print(hashlib.sha256(dumps_sorted([i.model_dump(mode='json') for i in items]).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(digests) == 1


def test_pair_i_is_the_same_whatever_n() -> None:
    small = {item.id: item for item in generate(Config(), seed=4, n=10)}
    large = {item.id: item for item in generate(Config(), seed=4, n=60)}
    assert small and all(large[key] == item for key, item in small.items())


def test_two_items_per_pair_with_ids_and_shared_pair_id() -> None:
    items = generate(Config(), seed=3, n=7)
    assert len(items) == 2 * 7 * 8  # eight (family, hypothesis) blocks
    assert all(ID_RE.match(item.id) for item in items)
    by_pair = Counter(item.meta["pair_id"] for item in items)
    assert set(by_pair.values()) == {2}
    for original, twin in zip(items[::2], items[1::2], strict=True):
        assert original.meta["variant"] == "original" and twin.meta["variant"] == "twin"
        assert original.id.removesuffix("-orig") == twin.id.removesuffix("-twin")
        assert original.meta["pair_id"] == twin.meta["pair_id"]


def test_nothing_for_n_zero_and_error_for_negative_n() -> None:
    assert generate(Config(), seed=1, n=0) == []
    with pytest.raises(ValueError):
        generate(Config(), seed=1, n=-1)


CONFIGS = [
    {},
    {"mode": "zs-cot"},
    {"mode": "one-shot"},
    {"mode": "one-shot-cot", "exemplar": "bob"},
    {"mode": "few-shot"},
    {"mode": "few-shot-cot", "hint": "weak"},
    {"hint": "strong"},
    {"h6_hint": "weak"},
    {"quantifiers": "classic"},
    {"added_event": "mixed"},
    {"validity": "invalid"},
    {"family": "horses", "horses_twin": "numbers"},
    {"family": "horses", "horses_twin": "both", "mode": "one-shot"},
    {"family": "horses", "horses_numbers": "classic", "mode": "few-shot"},
    {"mode": "one-shot-incorrect-cot"},
    {"family": "horses", "mode": "one-shot", "horses_exemplar": "both"},
    {"family": "linda", "connectors": "so-that,to"},
]


@pytest.mark.parametrize(
    "overrides", CONFIGS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default"
)
def test_every_pair_passes_the_twin_check(overrides: dict[str, str]) -> None:
    config = resolve_config("default", overrides)
    items = generate(config, seed=9, n=_capped(config, 40))
    assert check_twins(items) == []


def _swap(item: Item) -> tuple[str, str]:
    swaps = item.meta["swaps"]
    assert isinstance(swaps, list) and isinstance(swaps[0], list)
    return str(swaps[0][0]), str(swaps[0][1])


def test_twin_diff_is_exactly_the_declared_swap() -> None:
    original, twin = make_pair(Config(), 5, "linda", "H3", 0)
    before, after = rendering_parts(original), rendering_parts(twin)
    celebrity, generic = _swap(original)
    assert before["system"] == after["system"] and before["exemplars"] == after["exemplars"]
    assert before["question"].replace(str(celebrity), str(generic)) == after["question"]
    assert not set(re.findall(r"\w+", str(celebrity))) & set(re.findall(r"\w+", after["question"]))


def _replace_prompt(item: Item, old: str, new: str) -> Item:
    turn = item.turns[0]
    changed = Turn(**{**turn.model_dump(), "prompt": turn.prompt.replace(old, new)})
    return item.model_copy(update={"turns": (changed,)})


def test_check_flags_an_extra_change() -> None:
    original, twin = make_pair(Config(), 5, "linda", "H1", 0)
    broken = _replace_prompt(twin, "Which is more", "Which seems more")
    assert any("undeclared change" in p for p in check_twins([original, broken]))


def test_check_flags_a_case_change_like_the_original_h4_bug() -> None:
    original, twin = make_pair(Config(), 5, "syllogism", "H4", 0)
    broken = _replace_prompt(twin, "Therefore", "therefore")
    assert check_twins([original, twin]) == []
    assert any("undeclared change" in p for p in check_twins([original, broken]))


def test_check_flags_a_surname_leak() -> None:
    original, twin = make_pair(Config(), 5, "linda", "H3", 0)
    celebrity, generic = _swap(original)
    leaky = f"{generic.split()[0]} {celebrity.split()[-1]}"
    broken = _replace_prompt(twin, generic, leaky)
    broken = broken.model_copy(update={"meta": {**twin.meta, "swaps": [[celebrity, leaky]]}})
    original = original.model_copy(
        update={"meta": {**original.meta, "swaps": [[celebrity, leaky]]}}
    )
    assert any("survives in the twin" in p for p in check_twins([original, broken]))


def test_check_flags_missing_members_and_pair_level_mismatches() -> None:
    original, twin = make_pair(Config(), 5, "horses", "H3", 0)
    assert "expected an original and a twin" in check_twins([original])[0]
    moved = twin.model_copy(update={"meta": {**twin.meta, "correct_position": 9}})
    assert any("correct_position differs" in p for p in check_twins([original, moved]))
    assert any(
        "does not differ" in p
        for p in check_twins(
            [original, original.model_copy(update={"meta": {**original.meta, "variant": "twin"}})]
        )
    )


def test_token_diff_allows_numbers_only_when_declared() -> None:
    assert (
        token_diff_problems("There are 25 horses.", "There are 36 horses.", [], allow_numbers=True)
        == []
    )
    assert token_diff_problems("There are 25 horses.", "There are 36 horses.", [])


@pytest.mark.parametrize(
    "block", [("linda", "H1"), ("linda", "H2"), ("linda", "H3"), ("linda", "H6"), ("horses", "H3")]
)
def test_correct_position_is_balanced_and_equal_within_pairs(block: tuple[str, str]) -> None:
    family, hypothesis = block
    items = generate(Config(family=family, hypothesis=hypothesis), seed=2, n=100)  # type: ignore[arg-type]
    originals = [i for i in items if i.meta["variant"] == "original"]
    counts = Counter(i.meta["correct_position"] for i in originals)
    slots = 5 if family == "horses" else 2
    assert counts == {p: 100 // slots for p in range(slots)}  # block randomisation: exact
    for original, twin in zip(items[::2], items[1::2], strict=True):
        assert original.meta["correct_position"] == twin.meta["correct_position"]
        assert (
            original.turns[0].labels.index(original.turns[0].gold)
            == original.meta["correct_position"]
        )


@pytest.mark.parametrize("hypothesis", ["H4", "H5", "H6"])
def test_syllogisms_answer_both_yes_and_no_with_balanced_positions(hypothesis: str) -> None:
    items = generate(Config(family="syllogism", hypothesis=hypothesis), seed=6, n=100)  # type: ignore[arg-type]
    gold = Counter(i.turns[0].gold for i in items)
    assert gold["yes"] == gold["no"] == 100
    assert Counter(i.meta["correct_position"] for i in items) == {0: 100, 1: 100}
    assert {i.meta["valid"] for i in items} == {True, False}


def test_test_questions_never_use_the_exemplar_names() -> None:
    for item in generate(Config(family="linda", mode="few-shot"), seed=8, n=60):
        question = rendering_parts(item)["question"]
        assert not re.search(r"\b(Linda|Bob|Robert)\b", question)


def test_label_stats_reports_positions_and_gold() -> None:
    items = generate(Config(), seed=1, n=20)
    stats = label_stats(items)
    assert stats["all"]["n"] == len(items)
    assert stats["linda/H1/original"]["position"] == {"0": 10, "1": 10}
    assert stats["linda/H1/original"]["first_position_share"] == 0.5
    assert set(stats["syllogism/H4/twin"]["gold"]) == {"yes", "no"}


def test_h2_upgrades_direct_to_one_shot_and_mode_labels_carry_the_contrast() -> None:
    original, twin = make_pair(Config(mode="direct"), 1, "linda", "H2", 0)
    assert original.meta["mode"] == "one-shot" and "Linda" in original.turns[0].prompt
    assert "Bob" in twin.turns[0].prompt and "Linda" not in twin.turns[0].prompt
    hinted, _ = make_pair(Config(h6_hint="weak"), 1, "syllogism", "H6", 0)
    assert hinted.meta["mode"] == "direct+weak-hint-vs-control"
    bare, _ = make_pair(Config(h6_hint="weak", h6_control="none"), 1, "syllogism", "H6", 0)
    assert bare.meta["mode"] == "direct+weak-hint"


@pytest.mark.parametrize("family", ["linda", "syllogism"])
@pytest.mark.parametrize("hint", ["weak", "strong"])
def test_the_h6_original_carries_an_irrelevant_instruction_of_the_hints_length(
    family: str, hint: str
) -> None:
    """The length control: original and twin have system messages of equal word count, and the
    twin differs only by the hint (the declared swap); without the control the twin is longer."""
    config = resolve_config("default", {"family": family, "hypothesis": "H6", "h6_hint": hint})
    items = generate(config, seed=3, n=4)
    for original, twin in zip(items[::2], items[1::2], strict=True):
        assert original.system and twin.system and original.system != twin.system
        assert len(original.system.split()) == len(twin.system.split())
        assert 0.9 < len(original.system) / len(twin.system) < 1.1
        assert original.turns[0].prompt == twin.turns[0].prompt
        assert original.meta["hint"] == f"control-{hint}" and twin.meta["hint"] == hint
    assert check_twins(items) == []
    bare = resolve_config(
        "default", {"family": family, "hypothesis": "H6", "h6_hint": hint, "h6_control": "none"}
    )
    original, twin = generate(bare, seed=3, n=1)
    assert len((twin.system or "").split()) > len((original.system or "").split())


def test_counterbalanced_order_alternates_the_correct_position_pair_by_pair() -> None:
    for family, window in (("linda", 2), ("syllogism", 2), ("horses", 5)):
        config = resolve_config("default", {"family": family, "order": "counterbalanced"})
        items = generate(config, seed=2, n=10)
        for original, twin in zip(items[::2], items[1::2], strict=True):
            assert original.meta["correct_position"] == twin.meta["correct_position"]
            assert original.meta["correct_position"] == int(original.meta["index"]) % window


def test_items_carry_the_metadata_the_analysis_needs() -> None:
    for item in generate(Config(), seed=1, n=2):
        for key in (
            "pair_id",
            "family",
            "hypothesis",
            "mode",
            "variant",
            "correct_position",
            "gold",
        ):
            assert key in item.meta
        assert item.suite == "tokenbias" and len(item.turns) == 1
        assert item.turns[0].prompt.endswith(".") and "Answer: <label>" in item.turns[0].prompt


# ------------------------------------------------------------------ unique items and pool sizes

UNIQUE_CONFIGS = [
    {},
    {"added_event": "mixed"},
    {"quantifiers": "classic", "validity": "valid"},
    {"family": "horses", "horses_twin": "numbers"},
    {"family": "horses", "horses_twin": "both"},
    {"family": "horses", "horses_numbers": "classic"},
    {"family": "linda", "connectors": "to", "styles": "story,news"},
    {"family": "linda", "hypothesis": "H1", "styles": "bio,medical", "mode": "few-shot"},
]


@pytest.mark.parametrize(
    "overrides",
    UNIQUE_CONFIGS,
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default",
)
def test_no_two_members_share_a_prompt_or_a_problem(overrides: dict[str, str]) -> None:
    """Originals and twins alike, and as a reasoner counts problems (names, towns, option order
    and framing aside); the classic horse original is the one problem its block shows."""
    config = resolve_config("default", overrides)
    items = generate(config, seed=3, n=_capped(config, 200))
    assert duplicate_prompts(items) == []
    assert duplicate_problems(items) == []
    keys = Counter((i.meta["family"], i.meta["hypothesis"], i.meta["pair_key"]) for i in items)
    assert set(keys.values()) == {2}  # one key per pair, shared by its two members only
    shared = [i for i in items if i.meta["shared_original"] and i.meta["variant"] == "original"]
    classic = overrides.get("horses_numbers") == "classic" or "horses_twin" in overrides
    assert bool(shared) == classic
    assert len({i.meta["problem_key"] for i in shared}) == (1 if classic else 0)


def test_h1_twins_no_longer_repeat_within_a_set() -> None:
    """Seed 1, --n 200: pairs 0072 and 0099 once had the same twin (its unrelated added event
    was drawn per pair, not from the pool)."""
    items = generate(Config(family="linda", hypothesis="H1"), seed=1, n=200)
    twins = [i for i in items if i.meta["variant"] == "twin"]
    assert len({i.turns[0].prompt for i in twins}) == 200
    assert len({i.meta["problem_key"] for i in twins}) == 200


def test_horse_originals_are_distinct_numbers_within_a_seed() -> None:
    """A reasoner who ignores the farm's owner and town still sees 50 different problems."""
    for seed in (1, 2, 3):
        items = generate(Config(family="horses"), seed=seed, n=50)
        numbers = {(i.meta["n"], i.meta["k"], i.meta["m"]) for i in items[::2]}
        assert len(numbers) == 50
        assert {i.meta["m"] == 1 for i in items[::2]} == {True, False}  # both kinds, in halves
        assert sum(i.meta["m"] == 1 for i in items[::2]) == 25


#: what every family × hypothesis of the default preset must supply without a repeat: four times
#: the default --n (ages and time phrases are not problems, so the celebrity block holds 240)
MIN_DEFAULT_POOL = 200


def _default_pools() -> dict[tuple[str, str], int]:
    config = Config()
    return {
        (family, hypothesis): capacity([s.pool for s in strata(config, family, hypothesis)])
        for family, hypothesis in combinations(config)
    }


def test_every_default_pool_holds_four_times_the_default_n_and_suites_shows_it() -> None:
    found = _default_pools()
    assert len(found) == len(combinations(Config()))
    small = {block: size for block, size in found.items() if size < MIN_DEFAULT_POOL}
    assert small == {}
    assert found[("linda", "H1")] == 576 and found[("linda", "H3")] == 240
    described = " ".join(SUITE.describe() or [])
    for (family, hypothesis), size in found.items():
        assert f"{family} {hypothesis} {size:,}" in described


@pytest.mark.parametrize("block", [("linda", "H1"), ("linda", "H3"), ("horses", "H3")])
def test_a_whole_small_pool_is_distinct_problems(block: tuple[str, str]) -> None:
    """The blocks whose pools are smallest: --n at the cap draws distinct originals and twins, and
    one more is an error."""
    family, hypothesis = block
    config = resolve_config("default", {"family": family, "hypothesis": hypothesis})
    n = _default_pools()[block]
    items = generate(config, seed=4, n=n)
    assert len(items) == 2 * n
    assert duplicate_prompts(items) == []
    assert duplicate_problems(items) == []
    with pytest.raises(BiaslabError, match=f"--n {n + 1} exceeds the {n:,} distinct problems"):
        generate(config, seed=4, n=n + 1)


def test_a_small_pool_is_drawn_completely_without_repeats() -> None:
    config = resolve_config(
        "default", {"family": "linda", "hypothesis": "H1", "styles": "news", "connectors": "to"}
    )
    (layer,) = strata(config, "linda", "H1")
    size = layer.pool.size
    items = generate(config, seed=5, n=size)
    assert duplicate_prompts(items) == [] and len(items) == 2 * size
    with pytest.raises(BiaslabError) as excinfo:
        generate(config, seed=5, n=size + 1)
    message = str(excinfo.value)
    assert (
        "\n" not in message and f"{size:,} distinct problems" in message and "linda/H1" in message
    )


def test_n_beyond_a_stratified_pool_names_the_strata() -> None:
    config = resolve_config("default", {"family": "syllogism", "hypothesis": "H4"})
    with pytest.raises(
        BiaslabError,
        match=r"exceeds the 2,240 distinct problems that syllogism/H4 \(2 equal strata: valid",
    ):
        generate(config, seed=1, n=2241)


def test_pool_decoding_is_a_bijection() -> None:
    pool = strata(resolve_config("default", {"family": "horses"}), "horses", "H3")[0].pool
    decoded = {tuple(sorted(pool.decode(i).items())) for i in range(0, pool.size, 7)}
    assert len(decoded) == len(range(0, pool.size, 7))
    with pytest.raises(IndexError):
        strata(Config(), "linda", "H3")[0].pool.decode(10**9)


# ------------------------------------------------------------------ exemplars never leak the question


def _stem(text: str) -> str:
    """A question's first line (setup, first premise or the horse numbers)."""
    return question_part(text).strip().splitlines()[0]


@pytest.mark.parametrize("family", ["linda", "syllogism", "horses"])
def test_exemplars_never_contain_the_question_or_its_twin(family: str) -> None:
    config = resolve_config("default", {"family": family, "mode": "few-shot"})
    n = 1000 // (2 * len(combinations(config))) + 1
    items = [item for seed in (11, 12, 13) for item in generate(config, seed, _capped(config, n))]
    assert len(items) >= 1000
    for original, twin in zip(items[::2], items[1::2], strict=True):
        for item in (original, twin):
            shots = exemplar_part(item.turns[0].prompt)
            assert shots.count("Answer:") == 3
            for member in (original, twin):
                assert _stem(member.turns[0].prompt) not in shots, item.id


def _pattern(template: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\\{\w+\\\}", ".+?", re.escape(template)))


def _templates(source: str) -> list[str]:
    """Text templates that identify where a conjunction problem came from."""
    from biaslab.suites.tokenbias import wordlists as wl

    kind, _, rest = source.partition(":")
    if kind == "bio":
        return list(next(p for p in wl.profiles() if p.id == rest).backgrounds)
    if kind == "medical":
        return [f"diagnosed with {rest}."]
    story_kind, number = source.rsplit("-", 1)
    return [wl.stories(story_kind)[int(number)].setup]


def test_linda_exemplars_come_from_other_templates_than_the_question() -> None:
    config = resolve_config("default", {"family": "linda", "hypothesis": "H1", "mode": "few-shot"})
    items = [item for seed in (2, 3) for item in generate(config, seed, n=240)]
    checked = 0
    for item in items[::2]:
        shots = exemplar_part(item.turns[0].prompt)
        question = question_part(item.turns[0].prompt)
        for template in _templates(str(item.meta["source"])):
            if _pattern(template).search(question):
                checked += 1
                assert not _pattern(template).search(shots), (item.id, template)
    assert checked >= 480  # every question matched its own templates


def test_one_shot_syllogism_exemplar_switches_when_the_question_uses_its_terms() -> None:
    config = resolve_config(
        "default", {"family": "syllogism", "hypothesis": "H4", "mode": "one-shot"}
    )
    items = generate(config, seed=1, n=400)
    roses = [i for i in items if "roses" in question_part(i.turns[0].prompt)]
    assert roses
    for item in roses:
        assert "roses" not in exemplar_part(item.turns[0].prompt)


# ------------------------------------------------------------------ the paper's modes and wording


def test_one_shot_incorrect_answers_the_exemplar_wrongly() -> None:
    for family, wrong in (("linda", None), ("syllogism", "yes"), ("horses", None)):
        config = resolve_config("default", {"family": family, "mode": "one-shot-incorrect"})
        for item in generate(config, seed=4, n=6):
            shot = exemplar_part(item.turns[0].prompt)
            answer = re.search(r"Answer: (\w+)", shot)
            assert answer is not None
            if wrong is not None:
                assert answer.group(1) == wrong
            elif family == "linda":
                single = re.search(r"\((\w)\) Linda is a bank teller\.\n", shot) or re.search(
                    r"\((\w)\) Bob is a bank teller\.\n", shot
                )
                assert single is not None and answer.group(1) != single.group(1)
            else:
                numbers = re.search(r"There are (\d+) \w+\. At most (\d+)", shot)
                assert numbers is not None and answer.group(1) != "eight"  # 36/6/3 needs 8 races
        assert all(i.meta["mode"].startswith("one-shot-incorrect") for i in generate(config, 4, 1))


@pytest.mark.parametrize(
    ("kind", "label"),
    [("numbers", "one-shot"), ("animal", "one-shot-ani"), ("both", "one-shot-ran")],
)
def test_horse_exemplars_of_other_numbers_animals_or_both(kind: str, label: str) -> None:
    config = resolve_config(
        "default", {"family": "horses", "mode": "one-shot", "horses_exemplar": kind}
    )
    for original, twin in zip(*[iter(generate(config, seed=6, n=30))] * 2, strict=True):
        assert original.meta["mode"] == label
        shot = exemplar_part(original.turns[0].prompt)
        match = re.search(r"There are (\d+) (\w+)\. At most (\d+)", shot)
        assert match is not None
        numbers, animal = (int(match.group(1)), int(match.group(3))), match.group(2)
        assert (animal == "horses") == (kind == "numbers")
        assert (numbers == (25, 5)) == (kind == "animal")
        for member in (original, twin):
            assert (animal, numbers) != (
                member.meta["animal"],
                (member.meta["n"], member.meta["k"]),
            )


def test_story_and_news_connectors() -> None:
    items = generate(
        resolve_config("default", {"family": "linda", "hypothesis": "H1", "styles": "story,news"}),
        seed=3,
        n=120,
    )
    options = " ".join(item.turns[0].prompt for item in items)
    for connector in (" because ", " so that ", " to "):
        assert connector in options
    only_to = generate(
        resolve_config(
            "default",
            {"family": "linda", "hypothesis": "H1", "styles": "story", "connectors": "to"},
        ),
        seed=3,
        n=24,
    )
    assert not any(
        " because " in i.turns[0].prompt or " so that " in i.turns[0].prompt for i in only_to
    )
    assert check_twins(only_to) == []


def test_names_are_not_repeated_where_a_pronoun_fits() -> None:
    config = resolve_config(
        "default", {"family": "linda", "hypothesis": "H1", "styles": "bio,story"}
    )
    for item in generate(config, seed=9, n=80)[::2]:
        name = str(item.meta["name"])
        setup = question_part(item.turns[0].prompt).strip().split("\nWhich is more")[0]
        assert setup.count(name) <= 1, setup
    linda = rendering_parts(make_pair(Config(), 1, "linda", "H2", 0)[0])["exemplars"]
    assert linda.count("Linda") == 3 and " She " in linda  # setup once, then both options


def test_wording_is_exact_and_unambiguous() -> None:
    items = generate(Config(), seed=2, n=60)
    text = "\n".join(i.turns[0].prompt for i in items)
    assert "subset of" not in text and "portion of" not in text
    assert "always runs at the same speed" not in text
    assert "its own constant speed" in text


def test_classic_horses_original() -> None:
    config = resolve_config("default", {"family": "horses", "horses_numbers": "classic"})
    items = generate(config, seed=1, n=24)
    assert {(i.meta["n"], i.meta["k"], i.meta["m"]) for i in items[::2]} == {(25, 5, 3)}
    assert {i.meta["gold"] for i in items} <= {"seven"} | set(NUMBER_WORDS)
    assert all(i.turns[0].gold == "seven" for i in items)


def test_irrelevant_added_events_are_plausible_causes_and_aims_not_absurd_ones() -> None:
    """An absurd conjunct ("because the company's logo is blue") would make the H1 twin easy for
    a reason that is not the representativeness of the relevant one."""
    from biaslab.suites.tokenbias import wordlists as wl

    absurd = re.compile(
        r"\b(?:blue|red|green|grey|white|black|yellow|silver|striped|glossy|painted|printed|"
        r"colours?|logo|lockers?)\b"
    )
    clauses = [
        clause
        for kind in ("story", "news")
        for story in wl.stories(kind)
        for clause in (*story.irrelevant_reasons, *story.irrelevant_purposes)
    ]
    assert len(clauses) == 372
    assert [c for c in clauses if absurd.search(c)] == []
    for story in (*wl.stories("story"), *wl.stories("news")):
        assert set(story.irrelevant_reasons).isdisjoint(story.reasons)
        assert set(story.irrelevant_purposes).isdisjoint(story.purposes)
        assert bool(story.purposes) == bool(story.irrelevant_purposes)
        # the H1 twin's unrelated event is one-to-one with the original only if there are enough
        assert len(story.irrelevant_reasons) >= len(story.reasons)
        assert len(story.irrelevant_purposes) >= len(story.purposes)
        assert len(set(story.reasons)) == len(story.reasons)
        assert len(set(story.purposes)) == len(story.purposes)


def test_pronouns_have_one_possible_referent() -> None:
    """ "{name}'s best friend is turning thirty, and {he} loves baking": whose baking?"""
    from biaslab.suites.tokenbias import wordlists as wl

    person = r"(?:friend|sister|brother|mother|father|partner|neighbour|colleague|boss|manager)"
    ambiguous = re.compile(rf"\{{name\}}'s (?:best )?{person}\b[^.]*\{{(?:he|him|his)\}}")
    setups = [s.setup for kind in ("story", "news") for s in wl.stories(kind)]
    assert [s for s in setups if ambiguous.search(s)] == []


def test_medical_conditions_fit_the_patients_ages() -> None:
    from biaslab.suites.tokenbias import wordlists as wl
    from biaslab.suites.tokenbias.conjunction import AGES

    assert min(AGES["medical"]) >= 40
    childhood = {"chickenpox", "measles", "mumps", "croup", "rubella", "whooping cough"}
    assert not childhood & {d.name for d in wl.diseases()}


def test_generic_twin_names_are_not_famous_people() -> None:
    from biaslab.suites.tokenbias import wordlists as wl

    famous = wl.famous_names()
    assert {"Margaret Mitchell", "John Adams", "Larry King", "Patrick Stewart"} <= famous
    names = {*wl.generic_names("female"), *wl.generic_names("male")}
    assert not names & famous
    firsts = {p.name for p in wl.people()}
    surnames = set(wl.surnames())
    for name in famous:  # every entry is a name the lists could form, so the filter is not idle
        first, last = name.split()
        assert first in firsts and last in surnames, name
