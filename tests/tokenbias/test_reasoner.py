"""The reasoner recomputes gold from text; reference agents behave as documented."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import biaslab.suites.tokenbias.reasoner as reasoner_module
from biaslab.agents.base import Message, Request, make_agent, reasoner_for
from biaslab.answers import format_instruction
from biaslab.errors import BiaslabError
from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.analysis import DIRECTIONS
from biaslab.suites.tokenbias.config import resolve_config
from biaslab.suites.tokenbias.families import HORSE_GRID, HorseProblem
from biaslab.suites.tokenbias.generate import generate
from biaslab.suites.tokenbias.levels import generated
from biaslab.suites.tokenbias.render import (
    parse_horses,
    parse_syllogism,
    render_horses,
    render_syllogism,
)
from biaslab.suites.tokenbias.syllogism import (
    ALL_WORDINGS,
    FORMS,
    SOME_WORDINGS,
    Statement,
    Syllogism,
    follows,
    is_valid,
    shape_of,
)
from tests.tokenbias.helpers import accuracy, answer_rows, request_for


def test_registered_and_claims_its_items() -> None:
    item = generate(resolve_config("default", {}), seed=1, n=1)[0]
    found = reasoner_for(request_for(item))
    assert isinstance(found, reasoner_module.TokenBiasReasoner)
    assert found.prior_answer(request_for(item)) is None
    assert not found.accepts(Request((Message("user", "Hello. Answer: yes or no"),)))


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"mode": "few-shot-cot"},
        {"mode": "one-shot", "hint": "weak"},
        {"horses_twin": "both"},
        {"quantifiers": "classic"},
        {"mode": "one-shot-incorrect-cot", "added_event": "mixed"},
        {"mode": "one-shot", "horses_exemplar": "both", "connectors": "so-that"},
        {"horses_numbers": "classic", "validity": "valid"},
    ],
)
def test_oracle_scores_100_percent(overrides: dict[str, str]) -> None:
    items = generate(resolve_config("default", overrides), seed=12, n=24)
    rows = answer_rows(items, "oracle")
    assert all(r["parsed"] and r["correct"] for r in rows)


def test_form_table_validity_matches_venn_models_and_has_both_kinds() -> None:
    for form in FORMS:
        terms = {"X": "xs", "Y": "ys", "Z": "zs"}
        premises = tuple(Statement(q, terms[s], terms[p]) for q, s, p in form.premises)
        conclusion = Statement(
            form.conclusion[0], terms[form.conclusion[1]], terms[form.conclusion[2]]
        )
        assert follows(premises, conclusion) == form.valid, form.name
    assert {f.valid for f in FORMS} == {True, False}


_STATEMENTS = st.builds(
    Statement,
    st.sampled_from(["all", "some", "no", "some-not"]),
    st.sampled_from(["roses", "flowers", "red things"]),
    st.sampled_from(["roses", "flowers", "red things"]),
)


@given(st.lists(_STATEMENTS, min_size=1, max_size=3), _STATEMENTS)
def test_validity_cached_by_form_equals_the_brute_force(
    premises: list[Statement], conclusion: Statement
) -> None:
    assert is_valid(tuple(premises), conclusion) == follows(tuple(premises), conclusion)


def test_the_form_ignores_the_words() -> None:
    barbara = (Statement("all", "ys", "zs"), Statement("all", "xs", "ys"))
    renamed = (Statement("all", "flowers", "red"), Statement("all", "roses", "flowers"))
    assert shape_of(barbara, Statement("all", "xs", "zs")) == shape_of(
        renamed, Statement("all", "roses", "red")
    )
    assert shape_of(barbara, Statement("all", "xs", "zs")) != shape_of(
        barbara, Statement("all", "zs", "xs")
    )


def test_oracle_is_right_on_every_valid_and_invalid_form() -> None:
    oracle = make_agent("oracle")
    for form, all_wording, some_wording in itertools.product(
        FORMS, range(len(ALL_WORDINGS)), range(len(SOME_WORDINGS))
    ):
        terms = {"X": "roses", "Y": "flowers", "Z": "fragrant"}
        syllogism = Syllogism(
            form.name,
            tuple(Statement(q, terms[s], terms[p]) for q, s, p in form.premises),  # type: ignore[arg-type]
            Statement(form.conclusion[0], terms[form.conclusion[1]], terms[form.conclusion[2]]),
            all_wording=all_wording,
            some_wording=some_wording,
            outlet="Reuters",
            institution="a diploma mill",
        )
        question = render_syllogism(syllogism, ("no", "yes"))
        assert parse_syllogism(question.body) == (syllogism.premises, syllogism.conclusion)
        prompt = question.body + "\n" + format_instruction(("no", "yes"))
        text, _ = oracle.respond(Request((Message("user", prompt),)))
        assert text == f"Answer: {'yes' if form.valid else 'no'}", form.name


def test_horse_text_round_trips_for_every_emitted_triple_and_animal() -> None:
    for (n, k, m), animal in itertools.product(HORSE_GRID, wl.animals()[:5]):
        body = render_horses(HorseProblem(n, k, m, animal), 2).body
        assert parse_horses(body) == (n, k, m)


def _rows_by_agent(spec: str) -> list[dict[str, Any]]:
    """One agent's answers to one shared set of default items (seed 21, 150 pairs per test),
    generated once for the module."""
    return answer_rows(generated(resolve_config("default", {}), 21, 150), spec)


#: how the token-biased agent's accuracy moves where the test is two-sided
AGENT_TWO_SIDED = {("syllogism-valid", "H4"): "greater", ("syllogism-valid", "H6"): "less"}


def test_token_biased_accuracy_moves_in_the_documented_direction() -> None:
    rows = _rows_by_agent("token-biased")
    for (family, hypothesis), direction in DIRECTIONS.items():
        before = accuracy(rows, family=family, hypothesis=hypothesis, variant="original")
        after = accuracy(rows, family=family, hypothesis=hypothesis, variant="twin")
        change = after - before
        expected = AGENT_TWO_SIDED.get((family, hypothesis), direction)
        assert (change < -0.25) if expected == "greater" else (change > 0.25), (
            family,
            hypothesis,
            change,
        )


def test_random_agent_is_at_chance() -> None:
    rows = _rows_by_agent("random")
    binary = [r for r in rows if r["family"] != "horses"]
    assert abs(sum(r["correct"] for r in binary) / len(binary) - 0.5) < 0.05
    assert abs(accuracy(rows, family="horses") - 0.2) < 0.06


def test_token_biased_with_full_knowledge_is_the_oracle_and_is_deterministic() -> None:
    items = generate(resolve_config("default", {}), seed=5, n=10)
    rows = answer_rows(items, "token-biased?cue=1&lure=0&base=1")
    assert all(r["correct"] for r in rows)
    agent = make_agent("token-biased")
    assert [agent.respond(request_for(i))[0] for i in items] == [
        agent.respond(request_for(i))[0] for i in items
    ]


def test_token_biased_distribution_follows_the_cue_rules() -> None:
    original, twin = generate(
        resolve_config(
            "default", {"family": "syllogism", "hypothesis": "H5", "validity": "invalid"}
        ),
        seed=2,
        n=1,
    )
    reasoner = reasoner_module.TokenBiasReasoner()
    agent = make_agent("token-biased?lure=0.6&cue=0.9")
    lured = agent.distribution(request_for(original), reasoner)
    assert reasoner_module.find_cues(request_for(original)).lure == ("reputable-source",)
    assert lured["yes"] == pytest.approx(0.6 + 0.4 / 2)  # lured, else a guess (base = 0)
    sceptical = agent.distribution(request_for(twin), reasoner)
    assert reasoner_module.find_cues(request_for(twin)).lure == ("less-reputable-source",)
    assert sceptical["no"] == pytest.approx(0.6 + 0.4 / 2)  # doubts the argument


@pytest.mark.parametrize(
    "spec", ["token-biased?colour=1", "token-biased?cue=2", "token-biased?lure=x"]
)
def test_token_biased_rejects_bad_parameters(spec: str) -> None:
    with pytest.raises(BiaslabError):
        make_agent(spec)


def test_cues_found_for_each_hypothesis() -> None:
    config = resolve_config("default", {"mode": "one-shot"})
    expected = {
        ("linda", "H1"): ("representative-event", None),
        ("linda", "H3"): ("celebrity", None),
        ("horses", "H3"): (None, "famous-animal"),
        ("syllogism", "H4"): (None, "textbook-quantifiers"),
    }
    items = generate(config, seed=3, n=3)
    seen: defaultdict[tuple[object, ...], set[str]] = defaultdict(set)
    for item in items:
        cues = reasoner_module.find_cues(request_for(item))
        seen[(item.meta["family"], item.meta["hypothesis"], item.meta["variant"])].update(
            (*cues.engage, *cues.lure)
        )
    for (family, hypothesis), (lure, engage) in expected.items():
        original, twin = seen[(family, hypothesis, "original")], seen[(family, hypothesis, "twin")]
        for cue in filter(None, (lure, engage)):
            assert cue in original and cue not in twin, (family, hypothesis, cue)


def test_importing_the_reasoner_is_cheap() -> None:
    code = (
        "import sys, biaslab.suites.tokenbias.reasoner;"
        "print(sorted(m for m in ('pandas', 'inspect_ai', 'scipy', 'statsmodels') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------ replies as models write them


def _digits(label: str) -> str:
    from biaslab.suites.tokenbias.render import NUMBER_WORDS

    return str(NUMBER_WORDS.index(label))


REPLY_FORMS = {
    "horses": (
        lambda gold: f"Answer: {_digits(gold)}",
        lambda gold: f"The heats and the final give **{_digits(gold)}** races",
        lambda gold: f"The answer is {gold}.",
        lambda gold: f"Let me count the races carefully.\n\nAnswer: **{_digits(gold)}**",
    ),
    "linda": (
        lambda gold: f"({gold})",
        lambda gold: gold.upper(),
        lambda gold: f"Answer: {gold}",
        lambda gold: (
            f"A conjunction is never more probable than one of its parts.\nAnswer: ({gold})"
        ),
        lambda gold: f"Option {gold.upper()} is more likely.",
    ),
    "syllogism": (
        lambda gold: f"Answer: {gold}",
        lambda gold: f"{gold.capitalize()}.",
        lambda gold: f"The answer is {gold}.",
    ),
}


@pytest.mark.parametrize("family", sorted(REPLY_FORMS))
def test_number_letter_and_word_replies_parse_for_every_family(family: str) -> None:
    from biaslab.answers import parse_answer

    items = generate(resolve_config("default", {"family": family, "mode": "zs-cot"}), seed=4, n=25)
    for item in items:
        turn = item.turns[0]
        for form in REPLY_FORMS[family]:
            assert parse_answer(form(turn.gold), turn.labels) == turn.gold, (
                item.id,
                form(turn.gold),
            )


def test_a_syllogism_reply_of_not_necessarily_is_a_no() -> None:
    from biaslab.tasks import turn_record

    items = generate(resolve_config("default", {"family": "syllogism"}), seed=4, n=10)
    for item in items:
        turn = item.turns[0]
        for reply in ("Answer: Not necessarily.", "It does not follow.", "Answer: doesn't follow"):
            assert turn_record(turn, reply, None).predicted == "no", (item.id, reply)


def test_no_bias_agent_is_fixed_per_prompt_and_blind_to_the_perturbation() -> None:
    items = generated(resolve_config("default", {}), 21, 150)
    rows = answer_rows(items, "no-bias")
    assert rows == answer_rows(items, "no-bias")
    assert abs(sum(r["correct"] for r in rows) / len(rows) - 0.7) < 0.03
    for variant in ("original", "twin"):
        assert abs(accuracy(rows, variant=variant) - 0.7) < 0.04
    assert all(r["correct"] for r in answer_rows(items[:40], "no-bias?accuracy=1"))
    with pytest.raises(BiaslabError):
        make_agent("no-bias?accuracy=2")


def test_no_bias_by_problem_answers_one_problem_alike_and_others_independently() -> None:
    """Two prompts of one problem (another name, the options swapped) get the same answer; the
    answers over many problems are right at the configured rate, blind to the perturbation."""
    agent = make_agent("no-bias?by=problem&accuracy=0.6")
    items = generate(resolve_config("default", {"family": "linda", "styles": "bio"}), seed=5, n=120)
    for item in items[:20]:
        name = str(item.meta["name"])
        other = next(p.name for p in wl.people() if p.name != name)
        prompt = item.turns[0].prompt.replace(name, other)
        first, second = (f"({x}) " for x in "ab")
        swapped = prompt.replace(first, "(@) ").replace(second, first).replace("(@) ", second)
        renamed = (*request_for(item).messages[:-1], Message("user", swapped))
        gold = item.turns[0].gold
        answer = agent.respond(request_for(item))[0] == f"Answer: {gold}"
        other_gold = "b" if gold == "a" else "a"  # the options swapped places
        assert (agent.respond(Request(renamed))[0] == f"Answer: {other_gold}") == answer
    rows = answer_rows(items, "no-bias?by=problem&accuracy=0.6")
    for variant in ("original", "twin"):
        assert abs(accuracy(rows, variant=variant) - 0.6) < 0.08
    with pytest.raises(BiaslabError, match="by must be"):
        make_agent("no-bias?by=name")


def test_h5_cues_are_a_reputable_or_a_less_reputable_source() -> None:
    items = generate(
        resolve_config("default", {"family": "syllogism", "hypothesis": "H5"}), seed=3, n=10
    )
    for original, twin in zip(items[::2], items[1::2], strict=True):
        assert reasoner_module.find_cues(request_for(original)).lure_label == "yes"
        assert reasoner_module.find_cues(request_for(twin)).lure_label == "no"


def test_recorded_label_probabilities_of_a_letter_turn_come_from_the_answer_token() -> None:
    """What tasks.turn_record stores for every token-bias turn: the article "a" later in the reply
    must not become the answer token."""
    import math

    from inspect_ai.model import Logprob, Logprobs, TopLogprob

    from biaslab.tasks import turn_record

    item = generate(resolve_config("default", {"family": "linda", "hypothesis": "H1"}), 1, 1)[0]

    def position(token: str, alternatives: dict[str, float]) -> Logprob:
        tops = [TopLogprob(token=t, logprob=math.log(p)) for t, p in alternatives.items()]
        return Logprob(token=token, logprob=math.log(alternatives[token]), top_logprobs=tops)

    reply = [
        position("Answer", {"Answer": 1.0}),
        position(":", {":": 1.0}),
        position(" b", {" b": 0.75, " a": 0.25}),
        position(".", {".": 1.0}),
        position(" It", {" It": 1.0}),
        position(" is", {" is": 1.0}),
        position(" a", {" a": 0.9, " the": 0.1}),
        position(" conjunction", {" conjunction": 1.0}),
    ]
    record = turn_record(item.turns[0], "Answer: b. It is a conjunction", Logprobs(content=reply))
    assert record.predicted == "b"
    assert record.label_probs == pytest.approx({"a": 0.25, "b": 0.75})
