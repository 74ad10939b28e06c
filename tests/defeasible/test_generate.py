"""The DeReLab generator: determinism, labels that match the resolver, meta, balance, config."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from functools import cache
from itertools import pairwise

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from biaslab.errors import BiaslabError
from biaslab.schema import Item
from biaslab.suites.defeasible.config import PARAMETER_DOCS, PRESETS, Config, resolve_config
from biaslab.suites.defeasible.conversation import (
    Claim,
    ClassProperty,
    EqualReliability,
    ExceptionFact,
    Fact,
    Hypothesis,
    Implication,
    KindOf,
    Premises,
    Reliability,
    Section,
    SourceOrder,
    Statement,
    Update,
    compile_claims,
    effect_of,
)
from biaslab.suites.defeasible.generate import (
    Plan,
    generate,
    label_plan,
    label_stats,
)
from biaslab.suites.defeasible.lexicon import load_lexicon
from biaslab.suites.defeasible.network import Link, Network, make_network
from biaslab.suites.defeasible.resolver import resolve
from tests.helpers.schema import assert_turn_meta_is_json

TOPOLOGIES = ("default", "linear", "tree")


@cache
def items_for(preset: str, seed: int = 7, n: int = 12, **overrides: str) -> tuple[Item, ...]:
    return tuple(generate(resolve_config(preset, overrides), seed, n))


# ------------------------------------------------------------------------------ determinism


def test_same_seed_gives_identical_items() -> None:
    config = resolve_config("easy", {})
    first = [item.model_dump_json() for item in generate(config, 5, 4)]
    second = [item.model_dump_json() for item in generate(config, 5, 4)]
    assert first == second


def test_item_i_does_not_depend_on_how_many_are_generated() -> None:
    config = resolve_config("hard", {})
    few = generate(config, 9, 3)
    many = generate(config, 9, 10)
    for topology in TOPOLOGIES:
        head = [i for i in many if i.meta["topology"] == topology][:3]
        assert [i.model_dump_json() for i in head] == [
            i.model_dump_json() for i in few if i.meta["topology"] == topology
        ]


def test_different_seeds_give_different_items() -> None:
    config = resolve_config("easy", {})
    a = [item.model_dump_json() for item in generate(config, 1, 3)]
    b = [item.model_dump_json() for item in generate(config, 2, 3)]
    assert all(x != y for x, y in zip(a, b, strict=True))


def test_output_does_not_depend_on_the_hash_seed() -> None:
    code = (
        "import hashlib\n"
        "from biaslab.suites.defeasible.config import resolve_config\n"
        "from biaslab.suites.defeasible.generate import generate\n"
        "items = generate(resolve_config('hard', {}), 4, 3)\n"
        "text = ''.join(item.model_dump_json() for item in items)\n"
        "print(hashlib.sha256(text.encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for hash_seed in ("1", "2")
    }
    assert len(digests) == 1


def test_generated_items_are_pinned() -> None:
    """The first 4 conversations of every split of the canonical set (seed 42), byte for byte:
    speed work on the generator must not change an item (``bench/bench_generate.py --digest``
    checks the whole set). A deliberate change of the items updates this digest and the
    generator version."""
    import hashlib

    items = [
        item
        for difficulty in ("easy", "hard")
        for item in generate(resolve_config(difficulty, {"topology": "all"}), 42, 4)
    ]
    text = "\n".join(item.model_dump_json() for item in items)
    digest = hashlib.sha256(text.encode()).hexdigest()
    assert digest == "09812d306ea7086dd65a41cc9d4a20399679e16d2fcd6d776bc802756f9606a3"


def test_routes_kept_across_updates_agree_with_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Labelling extends the on-path node sets from update to update instead of walking them
    again; every answer must be :func:`on_path`'s on the same network."""
    from biaslab.suites.defeasible import labelling

    kept = labelling._Routes.on_path
    answers: list[bool] = []

    def checked(self: labelling._Routes, network: Network, link: Link) -> bool:
        answer = kept(self, network, link)
        assert answer == labelling.on_path(network, self.subject, self.prop, link)
        answers.append(answer)
        return answer

    monkeypatch.setattr(labelling._Routes, "on_path", checked)
    for difficulty in ("easy", "hard"):
        generate(resolve_config(difficulty, {"topology": "all"}), 11, 10)
    assert len(answers) > 1000 and 0.1 < sum(answers) / len(answers) < 0.9


_DAG_LINKS = st.builds(
    lambda a, b, positive: Link(f"n{min(a, b)}", f"n{max(a, b)}", positive),
    st.integers(0, 5),
    st.integers(0, 5),
    st.booleans(),
).filter(lambda link: link.src != link.dst)


@settings(max_examples=300, deadline=None)
@given(steps=st.lists(st.tuples(st.booleans(), _DAG_LINKS, _DAG_LINKS), max_size=12))
def test_routes_kept_across_any_additions_and_removals_agree_with_on_path(
    steps: list[tuple[bool, Link, Link]],
) -> None:
    """The same, on small networks grown and shrunk at random (subject n0, property n5)."""
    from biaslab.suites.defeasible.labelling import _delta, _Routes, on_path

    routes = _Routes("n0", "n5")
    network = make_network([])
    for remove, link, asked in steps:
        before = network
        if remove and link in network.link_set:
            network = make_network(set(network.links) - {link})
        elif link not in network.link_set:
            network = network.plus(link)
        routes.advance(before, network, *_delta(before, network))
        for query in (*network.links, asked):
            assert routes.on_path(network, query) == on_path(network, "n0", "n5", query)


@settings(max_examples=300, deadline=None)
@given(
    subject=st.integers(0, 5),
    prop=st.integers(0, 5),
    steps=st.lists(st.tuples(st.integers(0, 9), st.lists(_DAG_LINKS, min_size=1, max_size=3)),
                   max_size=15),
)  # fmt: skip
# links first off the property's ancestry (no resolve), later joined to it by another
@example(
    subject=0,
    prop=5,
    steps=[
        (0, [Link(f"n{a}", f"n{b}", positive)])
        for a, b, positive in (
            (0, 3, True),
            (3, 5, False),
            (0, 1, True),
            (1, 2, True),
            (2, 5, True),
        )
    ],
)
def test_answers_kept_through_a_section_agree_with_resolving_afresh(
    subject: int, prop: int, steps: list[tuple[int, list[Link]]]
) -> None:
    """A section's answer after every update, as labelling keeps it (returning early when the
    changed links cannot matter, resolving again with every link added since the last time),
    is :func:`resolve` on that update's network: links added one or several at a time, removed,
    or both in one step."""
    from biaslab.suites.defeasible.labelling import _Answers, _delta

    answers = _Answers(f"n{subject}", f"n{prop}")
    network = make_network([])
    assert answers.after(network, (), ()) == resolve(network, f"n{subject}", f"n{prop}")
    for kind, links in steps:
        before = network
        fresh = [link for link in dict.fromkeys(links) if link not in network.link_set]
        if kind < 6 and fresh:  # the usual update: one new link
            network = network.plus(fresh[0])
        else:  # several added, and now and then one withdrawn
            kept = set(network.links) | set(links)
            if kind == 9 and network.links:
                kept.discard(network.links[len(network.links) // 2])
            network = make_network(kept)
        answer = answers.after(network, *_delta(before, network))
        assert answer == resolve(network, f"n{subject}", f"n{prop}")


@settings(max_examples=200, deadline=None)
@given(links=st.lists(_DAG_LINKS, max_size=12), extra=_DAG_LINKS)
def test_a_network_grown_by_one_link_is_the_network_made_afresh(
    links: list[Link], extra: Link
) -> None:
    """:meth:`Network.plus` inserts the link into the kept orderings: the same links and the
    same per-node rows, in the same order, as :func:`make_network` sorting everything."""
    network = make_network(links)
    if extra in network.link_set:
        return
    grown, fresh = network.plus(extra), make_network([*links, extra])
    assert grown.links == fresh.links
    assert dict(grown.out_map()) == dict(fresh.out_map())
    assert dict(grown.in_map()) == dict(fresh.in_map())
    assert grown.grown_from(network) == extra


_NAMES = st.sampled_from(["Ann", "Bo", "p1", "p2", "x"])
_SIGNS = st.booleans()
_STATEMENTS = st.one_of(
    st.builds(Fact, _NAMES, _NAMES, _SIGNS),
    st.builds(Implication, _NAMES, _NAMES, _SIGNS),
    st.builds(ClassProperty, _NAMES, _NAMES, _SIGNS),
    st.builds(KindOf, _NAMES, _NAMES, _SIGNS),
    st.builds(ExceptionFact, _NAMES, st.builds(Implication, _NAMES, _NAMES, _SIGNS)),
    st.builds(Claim, _NAMES, st.builds(Fact, _NAMES, _NAMES, _SIGNS)),
    st.builds(Claim, _NAMES, st.builds(Implication, _NAMES, _NAMES, _SIGNS)),
    st.builds(Reliability, _NAMES, _NAMES),
    st.builds(EqualReliability, _NAMES, _NAMES),
)


@settings(max_examples=300, deadline=None)
@given(statement=_STATEMENTS)
def test_statement_links_by_type_are_those_by_pattern(statement: object) -> None:
    from biaslab.suites.defeasible.conversation import _matched_link, statement_link

    assert statement_link(statement) == _matched_link(statement)  # type: ignore[arg-type]


def test_a_subclassed_statement_still_asserts_its_link() -> None:
    from biaslab.suites.defeasible.conversation import statement_link

    class Noted(Fact):
        pass

    assert statement_link(Noted("Ann", "p1", False)) == Link("Ann", "p1", False)


def test_generated_items_pass_the_schema() -> None:
    """The generator builds its items without validating them a second time, and a turn's meta
    is not checked value by value: every item of every split must still be one the schema
    accepts, every turn's meta JSON, and each item read back to the same bytes."""
    for difficulty in ("easy", "hard"):
        items = generate(resolve_config(difficulty, {"topology": "all"}), 5, 6)
        assert_turn_meta_is_json(items)
        for item in items:
            text = item.model_dump_json()
            assert Item.model_validate(item.model_dump()).model_dump_json() == text
            assert Item.model_validate_json(text).model_dump_json() == text


def test_generated_turns_are_the_validated_turns() -> None:
    """Turns are made without pydantic's validation: each must be the turn the validating
    constructor makes from the same values, down to the fields it records as set."""
    from biaslab.schema import Turn

    for preset in ("easy", "hard"):
        for item in items_for(preset):
            for turn in item.turns:
                validated = Turn(
                    index=turn.index,
                    prompt=turn.prompt,
                    kind=turn.kind,
                    labels=turn.labels,
                    gold=turn.gold,
                    meta=turn.meta,
                )
                assert turn == validated
                assert list(turn.__dict__.items()) == list(validated.__dict__.items())
                assert turn.model_fields_set == validated.model_fields_set
                assert turn.__pydantic_extra__ == validated.__pydantic_extra__
                assert turn.__pydantic_private__ == validated.__pydantic_private__
                assert turn.model_dump_json() == validated.model_dump_json()


@pytest.mark.parametrize("preset", ["easy", "hard"])
@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_revising_keeps_the_labels_of_labelling_the_revised_plan_afresh(
    preset: str, topology: str
) -> None:
    """ensure_revisions keeps a revised section's events up to its revised update and labels
    the rest (and the planned conversation only as far as it must): its events and network
    must be those of labelling the revised plan from the start."""
    from biaslab.seeding import item_random
    from biaslab.suites.defeasible.generate import PLANNERS, ensure_revisions

    config = resolve_config(preset, {"topology": topology})
    lexicon = load_lexicon()
    revised = 0
    for index in range(25):
        rng = item_random(13, topology, config.difficulty, index)
        plan = PLANNERS[topology](config, rng, lexicon)
        planned = list(plan.sections)
        events, network = ensure_revisions(plan, rng, config.max_updates_per_section)
        revised += sum(a is not b for a, b in zip(planned, plan.sections, strict=True))
        afresh, afresh_network = label_plan(plan)
        assert events == afresh
        assert network.links == afresh_network.links
    assert revised >= 2  # sections revised (2 to 31 of 25 conversations, by split)


def test_generating_makes_no_reference_cycles_and_restores_the_collector() -> None:
    """The cyclic collector is paused while items are generated, which is only free if
    generating leaves no cyclic garbage behind; and the collector is left as it was found."""
    import gc

    generate(resolve_config("hard", {}), 20, 1)  # what a first call loads and keeps
    gc.collect()
    assert gc.isenabled()
    gc.disable()
    try:
        for difficulty in ("easy", "hard"):
            generate(resolve_config(difficulty, {"topology": "all"}), 21, 6)
        assert not gc.isenabled()
        assert gc.collect() == 0
    finally:
        gc.enable()
    generate(resolve_config("easy", {}), 21, 2)
    assert gc.isenabled()


def test_easy_and_hard_streams_differ() -> None:
    easy = generate(resolve_config("easy", {"topology": "linear"}), 3, 2)
    hard = generate(resolve_config("easy", {"topology": "linear", "difficulty": "hard"}), 3, 2)
    assert [i.turns for i in easy] != [i.turns for i in hard]


# ------------------------------------------------------------------------------ shape and meta


@pytest.mark.parametrize("preset", ["easy", "hard"])
def test_every_topology_generates_with_ids_and_meta(preset: str) -> None:
    items = items_for(preset)
    assert Counter(i.meta["topology"] for i in items) == dict.fromkeys(TOPOLOGIES, 12)
    for item in items:
        topology = item.meta["topology"]
        assert re.fullmatch(rf"defeasible-{topology}-{preset}-7-\d{{4}}", item.id)
        assert item.suite == "defeasible" and item.system
        for key in ("difficulty", "reveal", "question_order", "entities", "seed", "index"):
            assert key in item.meta
        assert item.meta["difficulty"] == preset
        assert item.meta["network"]["edges"]
        assert item.turns[0].kind == "initial"
        assert [t.index for t in item.turns] == list(range(len(item.turns)))
        for section in item.meta["sections"]:
            assert section["subject"] and section["property"]
    ids = [item.id for item in items]
    assert len(set(ids)) == len(ids)


def test_tree_meta_names_the_shape_and_linear_the_depth() -> None:
    items = items_for("easy")
    trees = [i for i in items if i.meta["topology"] == "tree"]
    assert {i.meta["shape"] for i in trees} <= {"jellyfish", "balanced", "bushy"}
    linear = [i for i in items if i.meta["topology"] == "linear"]
    assert all(4 <= i.meta["depth"] <= 6 for i in linear)
    default = [i for i in items if i.meta["topology"] == "default"]
    assert all(5 <= i.meta["chain_length"] <= 10 for i in default)


def test_update_turns_carry_the_analysis_fields() -> None:
    keys = {
        "section", "update_index", "update_type", "polarity", "gold_before", "gold_after",
        "effect", "distance", "on_path", "serial",
    }  # fmt: skip
    for item in items_for("easy"):
        for turn in item.turns:
            assert keys <= set(turn.meta)
            if turn.kind == "initial":
                assert turn.meta["update_type"] == "initial"
                continue
            assert turn.meta["polarity"] in ("+", "-")
            assert turn.meta["effect"] == effect_of(
                str(turn.meta["gold_before"]), str(turn.meta["gold_after"])
            )
            if turn.meta["update_type"] == "distractor":
                assert turn.meta["distance"] is None and turn.meta["on_path"] is False


def test_default_topology_asks_effect_questions_and_inheritance_does_not() -> None:
    for item in items_for("easy"):
        kinds = {t.kind for t in item.turns}
        if item.meta["topology"] == "default":
            assert "effect" in kinds
        else:
            assert "effect" not in kinds
    always = items_for("easy", effect_questions="always", topology="tree")
    assert all(any(t.kind == "effect" for t in i.turns) for i in always)
    never = items_for("easy", effect_questions="never", topology="default")
    assert not any(t.kind == "effect" for i in never for t in i.turns)


# ------------------------------------------------------------------------------ gold labels


def replay_and_check(item: Item) -> None:
    """Rebuild the premises turn by turn from the meta deltas and re-resolve every gold label."""
    links: set[Link] = set()
    subject = prop = ""
    before = after = ""
    for turn in item.turns:
        meta = turn.meta
        for edge in meta["added"]:  # type: ignore[union-attr]
            links.add(Link(edge["from"], edge["to"], edge["sign"] == "+"))  # type: ignore[index]
        for edge in meta["removed"]:  # type: ignore[union-attr]
            links.discard(Link(edge["from"], edge["to"], edge["sign"] == "+"))  # type: ignore[index]
        section = item.meta["sections"][meta["section"]]  # type: ignore[index]
        subject, prop = section["subject"], section["property"]  # type: ignore[index]
        answer = resolve(make_network(links), subject, prop)
        if turn.kind == "initial":
            assert turn.gold == answer
            after = answer
            continue
        if turn.prompt.startswith("Information update: "):  # the turn that reveals the update
            before, after = after, answer
        if turn.kind == "entailment":
            assert turn.gold == answer, (item.id, turn.index)
        else:
            assert turn.gold == effect_of(before, after), (item.id, turn.index)
        assert meta["gold_before"] == before and meta["gold_after"] == after
    assert make_network(links).to_dict() == item.meta["network"]


@pytest.mark.parametrize("preset", ["easy", "hard"])
@pytest.mark.parametrize("reveal", ["serial", "random"])
@pytest.mark.parametrize("order", ["standard", "reversed"])
def test_every_gold_label_is_the_resolver_on_the_revealed_premises(
    preset: str, reveal: str, order: str
) -> None:
    for item in items_for(preset, seed=3, n=8, reveal=reveal, question_order=order):
        replay_and_check(item)


def test_effect_rule_orders_yes_above_unknown_above_no() -> None:
    assert effect_of("no", "unknown") == "strengthening"
    assert effect_of("unknown", "yes") == "strengthening"
    assert effect_of("no", "yes") == "strengthening"
    assert effect_of("yes", "unknown") == "weakening"
    assert effect_of("unknown", "no") == "weakening"
    assert effect_of("yes", "no") == "weakening"
    for answer in ("yes", "no", "unknown"):
        assert effect_of(answer, answer) == "no effect"


def test_reversed_order_asks_the_effect_question_first() -> None:
    for item in items_for("easy", question_order="reversed", topology="default"):
        turns = item.turns
        for first, second in pairwise(turns):
            if first.kind == "effect":
                assert first.prompt.startswith("Information update: ")
                assert second.kind == "entailment"
                assert not second.prompt.startswith("Information update: ")
                assert first.meta["effect"] == first.gold


def test_standard_order_asks_entailment_then_effect() -> None:
    for item in items_for("easy", topology="default"):
        for first, second in pairwise(item.turns):
            if first.prompt.startswith("Information update: "):
                assert first.kind == "entailment" and second.kind == "effect"


def test_serial_reveal_shows_evidence_general_to_specific() -> None:
    for item in items_for("hard", reveal="serial"):
        serials = [
            t.meta["serial"]
            for t in item.turns
            if t.meta.get("serial") is not None and (t.meta["added"] or t.meta["removed"])
        ]
        by_section: dict[object, list[object]] = {}
        for turn in item.turns:
            if turn.meta.get("serial") is not None and turn.kind != "effect":
                by_section.setdefault(turn.meta["section"], []).append(turn.meta["serial"])
        for values in by_section.values():
            assert values == sorted(values)  # type: ignore[type-var]
        assert serials or item.meta["topology"] != "default"


# ------------------------------------------------------------------------------ distances


def hand_plan(updates: list[Update], structure: set[tuple[str, str]]) -> Plan:
    lexicon = load_lexicon()
    prop = lexicon.domain("animal").attributes[0].values[0].key
    kinds = [KindOf(child, parent) for child, parent in sorted(structure)]
    section = Section(
        index=0,
        hypothesis=Hypothesis("S", prop),
        pretext=(ClassProperty("animal", prop, True), *kinds),
        updates=tuple(updates),
        kind="inheritance",
    )
    return Plan(
        topology="tree",
        domain=lexicon.domain("animal"),
        sections=[section],
        classes=frozenset({"animal", "A", "B", "C", "D", "S", "E"}),
        structure=set(structure),
    )


def test_distances_on_a_hand_built_tree() -> None:
    prop = load_lexicon().domain("animal").attributes[0].values[0].key
    # animal <- A <- B <- S ;  animal <- C <- D ; animal <- E
    structure = {("A", "animal"), ("B", "A"), ("S", "B"), ("C", "animal"), ("D", "C")}
    structure.add(("E", "animal"))
    updates = [
        Update(ClassProperty("B", prop, False), "class-exception", 2),
        Update(ClassProperty("A", prop, True), "class-exception", 1),
        Update(ClassProperty("D", prop, True), "class-exception", 3),
        Update(KindOf("S", "D", also=True), "cross-link"),
        Update(ClassProperty("E", prop, False), "class-exception", 4),
    ]
    events, _ = label_plan(hand_plan(updates, structure))
    updates_only = events[1:]
    assert [e.distance for e in updates_only] == [1, 2, 5, 5, 4]
    assert [e.on_path for e in updates_only] == [True, True, False, True, False]
    assert [e.update_type for e in updates_only] == [
        "class-exception",
        "class-exception",
        "sibling-branch",
        "cross-link",
        "sibling-branch",
    ]
    # B's exception preempts A and the root; the cross-link to D (which has P) is a Nixon diamond
    assert [e.gold for e in events] == ["yes", "no", "no", "no", "unknown", "unknown"]
    assert [e.effect for e in updates_only] == [
        "weakening",
        "no effect",
        "no effect",
        "strengthening",
        "no effect",
    ]


def test_linear_distance_is_not_capped_at_two() -> None:
    for item in items_for("hard", topology="linear"):
        depth = item.meta["depth"]
        distances = [
            t.meta["distance"] for t in item.turns if t.meta["update_type"] == "class-exception"
        ]
        assert max(distances) > 2  # type: ignore[type-var]
        assert all(1 <= d < depth for d in distances)  # type: ignore[operator]


def test_default_distance_counts_chain_hops_from_the_subject() -> None:
    for item in items_for("easy", topology="default"):
        for turn in item.turns:
            meta = turn.meta
            if meta["update_type"] in ("confirm", "exception") and turn.kind == "entailment":
                total = meta["distance"] + meta["distance_to_property"]  # type: ignore[operator]
                assert total == item.meta["chain_length"]
                assert meta["on_path"] is True
            if meta["update_type"] == "other-object":
                assert meta["on_path"] is False


# ------------------------------------------------------------------------------ compilation


_SOURCES = st.sampled_from(["Ava", "Ben", "Cy"])
_PAIR_FACTS = st.builds(
    lambda a, b, positive: Fact(f"n{min(a, b)}", f"n{max(a, b)}", positive),
    st.integers(0, 2),
    st.integers(0, 2),
    st.booleans(),
).filter(lambda fact: fact.entity != fact.prop)
_PREMISE_STATEMENTS = st.one_of(
    _PAIR_FACTS,
    st.builds(Claim, _SOURCES, _PAIR_FACTS),
    st.builds(Claim, _SOURCES, _PAIR_FACTS),
    st.builds(Reliability, _SOURCES, _SOURCES).filter(lambda r: r.more != r.less),
    st.builds(EqualReliability, _SOURCES, _SOURCES).filter(lambda e: e.first != e.second),
)


@settings(max_examples=300, deadline=None)
@given(statements=st.lists(_PREMISE_STATEMENTS, max_size=14), read_every=st.integers(1, 2))
# a more reliable source's claim pushes out a link a less reliable one had put in
@example(
    statements=[
        Reliability("Ben", "Ava"),
        Claim("Ava", Fact("n0", "n1", False)),
        Claim("Ben", Fact("n0", "n1", True)),
    ],
    read_every=1,
)
def test_premises_followed_claim_by_claim_are_the_premises_compiled_afresh(
    statements: list[Statement], read_every: int
) -> None:
    """A claim changes the kept network only at its own pair of nodes (a link may enter; its
    opposite may leave): read after any statement, the network must be the one compiled from
    everything said so far."""
    from biaslab.suites.defeasible.conversation import build_network

    premises = Premises()
    for number, statement in enumerate(statements):
        premises.add(statement)
        if number % read_every == 0:
            fresh = build_network(premises.links())
            assert premises.network.links == fresh.links
            assert dict(premises.network.in_map()) == dict(fresh.in_map())
            assert dict(premises.network.out_map()) == dict(fresh.out_map())


def test_source_priority_keeps_only_the_more_reliable_claim() -> None:
    order = SourceOrder()
    for statement in (Reliability("Ann", "Bob"), Reliability("Bob", "Cid")):
        order.add(statement)
    yes = Claim("Cid", Fact("x", "p", True))
    no = Claim("Ann", Fact("x", "p", False))
    assert compile_claims([yes, no], order) == [Link("x", "p", False)]  # Ann > Cid by transitivity
    equal = SourceOrder()
    equal.add(EqualReliability("Ann", "Bob"))
    both = compile_claims(
        [Claim("Ann", Fact("x", "p")), Claim("Bob", Fact("x", "p", False))], equal
    )
    assert sorted(both) == [Link("x", "p", False), Link("x", "p", True)]
    unordered = compile_claims(
        [Claim("Ann", Fact("x", "p")), Claim("Dee", Fact("x", "p", False))], order
    )
    assert len(unordered) == 2


def test_conflicting_equal_claims_make_the_resolver_withhold() -> None:
    premises = Premises(
        [
            Implication("p0", "p1"),
            Implication("p1", "p2"),
            Fact("x", "p0"),
            EqualReliability("Ann", "Bob"),
            Claim("Ann", Fact("x", "p1", True)),
            Claim("Bob", Fact("x", "p1", False)),
        ]
    )
    assert resolve(premises.network, "x", "p2") == "unknown"
    ranked = Premises(
        [
            Implication("p0", "p1"),
            Implication("p1", "p2"),
            Fact("x", "p0"),
            Claim("Bob", Fact("x", "p1", False)),
            Reliability("Ann", "Bob"),
        ]
    )
    assert resolve(ranked.network, "x", "p2") == "unknown"  # Bob's denial alone blocks the chain
    ranked.add(Claim("Ann", Fact("x", "p1", True)))  # the more reliable Ann removes it
    assert resolve(ranked.network, "x", "p2") == "yes"
    assert Link("x", "p1", False) not in ranked.network.links


def test_bypass_rule_reinstates_a_blocked_chain() -> None:
    chain = [Implication(f"p{i}", f"p{i + 1}") for i in range(5)]
    premises = Premises([*chain, Fact("x", "p0")])
    assert resolve(premises.network, "x", "p5") == "yes"
    premises.add(Claim("Bob", Implication("p1", "p3", positive=False)))
    assert resolve(premises.network, "x", "p5") == "unknown"
    premises.add(Claim("Ann", Implication("p0", "p4")))
    assert resolve(premises.network, "x", "p5") == "yes"


# ------------------------------------------------------------------------------ label balance


@cache
def canonical(preset: str) -> dict[str, object]:
    return label_stats(generate(resolve_config(preset, {}), 0, 60))


@pytest.mark.parametrize("preset", ["easy", "hard"])
def test_label_balance_and_shortcut_baselines(preset: str) -> None:
    stats = canonical(preset)
    for topology in TOPOLOGIES:
        split = stats[f"{topology}/{preset}"]
        assert isinstance(split, dict)
        initial, entail = split["initial"], split["entailment"]
        assert len(initial["gold"]) >= 2, "initial answers must not always be yes"
        if topology != "linear":  # a single class chain cannot hold a genuine conflict
            assert set(entail["gold"]) == {"yes", "no", "unknown"}
        for shortcut in ("last_polarity", "negation"):
            assert entail[shortcut] <= entail["majority"] + 0.12, (topology, shortcut)
    effects = stats[f"default/{preset}"]["effect"]  # type: ignore[index]
    assert set(effects["gold"]) == {"strengthening", "weakening", "no effect"}


def test_label_stats_reports_every_split_and_kind() -> None:
    stats = canonical("easy")
    assert sorted(stats) == ["default/easy", "linear/easy", "tree/easy"]
    split = stats["default/easy"]
    assert isinstance(split, dict)
    for kind in ("initial", "entailment", "effect"):
        assert split[kind]["n"] > 0
        assert 0 <= split[kind]["majority"] <= 1


# ------------------------------------------------------------------------------ config


def test_presets_are_valid_configs_and_documented() -> None:
    for name in PRESETS:
        assert isinstance(resolve_config(name, {}), Config)
    assert set(PARAMETER_DOCS) == set(Config.model_fields)
    assert resolve_config("hard", {}).num_objects == (4, 7)
    assert resolve_config(None, {"difficulty": "hard"}).chain_length == (10, 20)


def test_overrides_are_parsed_into_typed_values() -> None:
    config = resolve_config(
        "easy",
        {
            "chain_length": "6,8",
            "sparsity": "0.2, 0.4",
            "max_sections": "3",
            "reveal": "serial",
            "max_updates_per_section": "none",
            "num_sources": "3",
        },
    )
    assert config.chain_length == (6, 8) and config.sparsity == (0.2, 0.4)
    assert config.max_sections == 3 and config.reveal == "serial"
    assert config.max_updates_per_section is None and config.num_sources == (3, 3)


@pytest.mark.parametrize(
    ("preset", "overrides", "fragment"),
    [
        ("easy", {"chain_lenght": "5"}, "valid: topology"),
        ("easy", {"chain_length": "five"}, "chain_length"),
        ("easy", {"reveal": "sideways"}, "serial, random"),
        ("easy", {"sparsity": "0.2,1.5"}, "between 0 and 1"),
        ("easy", {"chain_length": "9,3"}, "above high end"),
        ("medium", {}, "unknown defeasible preset"),
    ],
)
def test_config_errors_are_one_readable_line(
    preset: str, overrides: dict[str, str], fragment: str
) -> None:
    with pytest.raises(BiaslabError) as info:
        resolve_config(preset, overrides)
    message = str(info.value)
    assert fragment in message and "\n" not in message


def test_unknown_domain_is_a_readable_error() -> None:
    with pytest.raises(BiaslabError, match="unknown domain"):
        generate(resolve_config("easy", {"domain": "spaceship"}), 0, 1)


def test_max_updates_per_section_caps_sections() -> None:
    for item in items_for("hard", max_updates_per_section="3"):
        assert all(s["n_updates"] <= 3 for s in item.meta["sections"])  # type: ignore[index]


def _weakenings_from_yes(items: tuple[Item, ...]) -> Counter[str]:
    return Counter(
        str(t.gold)
        for i in items
        for t in i.turns
        if t.kind == "entailment" and t.meta["gold_before"] == "yes" and t.gold != "yes"
    )


@pytest.mark.parametrize("topology", ["default", "tree"])
def test_weakening_defeat_makes_every_weakening_of_a_yes_a_defeat(topology: str) -> None:
    mixed = _weakenings_from_yes(items_for("hard", seed=4, n=60, topology=topology))
    defeat = _weakenings_from_yes(
        items_for("hard", seed=4, n=60, topology=topology, weakening="defeat")
    )
    assert mixed["unknown"] > 0 and mixed["no"] > 0
    assert set(defeat) == {"no"} and defeat["no"] >= 20


def test_weakening_withhold_makes_default_weakenings_of_a_yes_withhold() -> None:
    """No evidence about the hypothesis property itself: breaking the chain withholds (a few
    source rules against a negative last rule still defeat)."""
    mixed = _weakenings_from_yes(items_for("hard", seed=4, n=60, topology="default"))
    withhold = _weakenings_from_yes(
        items_for("hard", seed=4, n=60, weakening="withhold", topology="default")
    )
    assert mixed["no"] > 0.3 * sum(mixed.values())
    assert withhold["unknown"] >= 0.95 * sum(withhold.values()) and withhold["unknown"] >= 50
    for item in items_for("easy", seed=4, n=30, weakening="withhold", topology="default"):
        replay_and_check(item)


def test_reveal_mixed_flips_a_coin_per_subject() -> None:
    """The paper's per-subject coin flip: each section has its own subject and its own mode, so
    one conversation can show one subject's evidence serially and another's shuffled."""
    items = items_for("hard", seed=2, n=12, reveal="mixed", topology="default")
    sections = [i.meta["sections"] for i in items]
    modes = Counter(s["reveal"] for conv in sections for s in conv)  # type: ignore[union-attr]
    assert set(modes) == {"serial", "random"}
    assert min(modes.values()) >= 0.3 * sum(modes.values())  # a fair coin
    for conv in sections:
        subjects = [s["subject"] for s in conv]  # type: ignore[index,union-attr]
        assert len(set(subjects)) == len(subjects)
    assert any(len({s["reveal"] for s in conv}) == 2 for conv in sections)  # type: ignore[union-attr]
    for item in items:
        for turn in item.turns:
            section = item.meta["sections"][turn.meta["section"]]  # type: ignore[index]
            assert turn.meta["reveal"] == section["reveal"]  # type: ignore[index]
