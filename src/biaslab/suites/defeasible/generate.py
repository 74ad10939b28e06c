"""DeReLab conversations as networks, labelled at every turn by the one skeptical resolver.

Pure and deterministic: item ``i`` of a topology draws only from
``item_random(seed, topology, difficulty, i)``, so it is the same whether 10 or 1000 items are
generated; ids are ``defeasible-<topology>-<difficulty>-<seed>-<i:04d>``.

Topologies, all expressed as :mod:`~biaslab.suites.defeasible.conversation` statements whose
compiled network :func:`~biaslab.suites.defeasible.resolver.resolve` labels:

* **default** - a property chain ``P0 -> P1 -> ... -> Pn`` ("Objects that P0 generally P1"; the
  last rule is negative with ``negative_rule_prob``), objects ``x -> P0``, and per object a set of
  evidence facts on intermediate nodes (``x -> Pi`` "has", ``x -/-> Pi`` "lacks", or "is an
  exception to the rule that ...") and sometimes on ``Pn`` itself, numbered general -> specific
  (serial = order along the chain). Each hypothesis section takes a new object as subject (premises
  accumulate) and reveals its evidence, irrelevant-attribute facts (links to nodes off the chain),
  facts about other objects, and in source sections claims by named sources:
  *contradiction*: two sources report ``x -> Pc`` and ``x -/-> Pc``; *bypass*: one source reports a
  blocking rule ``Pj -/-> Pk`` (an exception rule inside the chain), another a bypass rule
  ``Pa -> Pb`` with ``a < j < k < b`` that reinstates the chain around the block, and optionally a
  third source denies the bypass (``Pa -/-> Pb``).
* **linear** / **tree** inheritance - classes linked child -> parent ("A C is a kind of D"), the
  root -> property (or root -/-> property with ``root_lacks_prob``), class-level exceptions
  ``C -> P`` / ``C -/-> P`` on every class but the subject (tree: also on sibling branches, which
  must not matter), irrelevant-attribute facts about classes, and for trees an optional cross-link
  (a second "kind of" parent) that makes multiple inheritance and Nixon-style conflicts possible.

Compilation rules (source priority, bypass) are those of
:class:`~biaslab.suites.defeasible.conversation.Premises`: a source claim enters the network unless
a strictly more reliable source claimed the opposite about the same pair of nodes; equal or
unordered sources' conflicting claims both enter (the resolver then answers "unknown"); the
reliability of every source pair follows from the stated adjacent pairs by transitivity. A rule
claim is a link between properties (``Pa -> Pb``), so a bypass needs no special rule: it is simply a
second, unblocked path.

Effect (one definition for every topology): order the resolver's answers yes > unknown > no; an
update whose answer after is higher than before is "strengthening", lower "weakening", equal
"no effect". Distance: undirected hops from the hypothesis subject to the updated node in the
structural graph (default: instantiations and chain rules; inheritance: the "kind of" links revealed
so far), None for irrelevant-attribute updates. ``on_path``: the revealed link lies on a route
from the subject to the hypothesis property (see :func:`on_path`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from biaslab.errors import BiaslabError
from biaslab.schema import Item, ItemList, RejectedRow, Turn
from biaslab.seeding import item_random
from biaslab.suites.defeasible.balance import label_stats
from biaslab.suites.defeasible.chains import plan_default
from biaslab.suites.defeasible.config import MAX_CONVERSATIONS, Config, Topology
from biaslab.suites.defeasible.conversation import (
    Claim,
    EqualReliability,
    ExceptionFact,
    Reliability,
    Section,
    Statement,
    effect_of,
    polarity,
)
from biaslab.suites.defeasible.hierarchies import plan_linear, plan_tree
from biaslab.suites.defeasible.labelling import (
    Labelled,
    Plan,
    StructureGraph,
    ensure_revisions,
    label_plan,
    on_path,
    updated_node,
)
from biaslab.suites.defeasible.lexicon import Lexicon, load_lexicon
from biaslab.suites.defeasible.network import Network
from biaslab.suites.defeasible.render import (
    EFFECT_LABELS,
    ENTAILMENT_LABELS,
    SYSTEM_PROMPTS,
    Renderer,
    Style,
    effect_question,
    entailment_question,
    new_section_message,
    opening_message,
    update_message,
)

SUITE = "defeasible"


# ------------------------------------------------------------------------------------ public API


def generate(config: Config, seed: int, n: int) -> list[Item]:
    """``n`` conversations per topology of ``config`` (default, linear, tree for "all")."""
    if n < 0:
        raise BiaslabError(f"n must be >= 0, got {n}")
    if n > MAX_CONVERSATIONS:
        raise BiaslabError(
            f"defeasible: --n {n} is above the limit of {MAX_CONVERSATIONS:,} conversations per "
            "topology per call (generate larger sets as several seeds)"
        )
    if seed < 0:
        raise BiaslabError(f"seed must be a non-negative integer, got {seed}")
    if config.conversations is not None:
        return _imported(config, n)
    lexicon = load_lexicon()
    if config.domain != "any":
        lexicon.domain(config.domain)  # an unknown domain is one readable error, before any work
    with _cycle_collector_paused():
        return [
            generate_one(config, topology, seed, index, lexicon)
            for topology in config.topologies()
            for index in range(n)
        ]


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """Generating makes no reference cycles (tests/defeasible/test_generate.py checks that a
    collection afterwards finds no garbage), so the cyclic collector's passes over the growing
    set of items and everything alive beside them find nothing: they were a tenth of generating
    the canonical set. It is paused while items are generated and restored as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def generate_one(
    config: Config, topology: Topology, seed: int, index: int, lexicon: Lexicon | None = None
) -> Item:
    """Item ``index`` of one topology: a function of (config, topology, seed, index) only."""
    lexicon = lexicon or load_lexicon()
    rng = item_random(seed, topology, config.difficulty, index)
    plan = PLANNERS[topology](config, rng, lexicon)
    labelled, network = ensure_revisions(plan, rng, config.max_updates_per_section)
    turns = render_turns(plan, labelled, config, lexicon)
    item_id = f"{SUITE}-{topology}-{config.difficulty}-{seed}-{index:04d}"
    # the turns are validated as they are made; the item around them is built without validating
    # them again (pydantic re-runs every turn's validator inside an item: a twentieth of
    # generating the canonical set); tests/defeasible/test_generate.py validates generated items
    return Item.model_construct(
        suite=SUITE,
        id=item_id,
        system=SYSTEM_PROMPTS[config.instructions] or None,
        turns=tuple(turns),
        meta=item_meta(plan, network, config, seed, index),
    )


def _imported(config: Config, n: int) -> ItemList:
    """The conversations of an original-layout file, relabelled (see :mod:`.original`): what it
    could not read are the rejected rows, where its golds differ from ours a note."""
    from pathlib import Path

    from biaslab.suites.defeasible.original import disagreements, import_conversations

    assert config.conversations is not None
    result = import_conversations(Path(config.conversations), config, n)
    if not result.items:
        first = f": {result.skipped[0].reason}" if result.skipped else ""
        raise BiaslabError(
            f"{config.conversations}: no conversation of topology {config.topology} "
            f"could be read ({result.total} in the file){first}"
        )
    differing = disagreements(result.items)
    asked = sum(len(item.turns) for item in result.items)
    more = f" (the first {result.read}: raise --n for more)" if result.read < result.total else ""
    return ItemList(
        result.items,
        rejected_rows=[
            RejectedRow(line=s.position, id=s.conversation, reason=s.reason) for s in result.skipped
        ],
        summary=f"read {len(result.items)} of {result.total} conversations{more}; "
        f"{len(result.skipped)} skipped as unreadable; our gold differs from the file's on "
        f"{len(differing)} of {asked} questions (listed in the items' .meta.json)",
        notes={"disagreements": differing},
    )


# ------------------------------------------------------------------------------------ plans


PLANNERS = {"default": plan_default, "linear": plan_linear, "tree": plan_tree}


# ------------------------------------------------------------------------------------ rendering


def render_turns(
    plan: Plan, labelled: Sequence[Labelled], config: Config, lexicon: Lexicon
) -> list[Turn]:
    """The user messages, one per question, with gold labels and meta."""
    renderer = Renderer(
        lexicon,
        Style(plural_noun=plan.domain.plural_noun, classes=plan.classes, definite=plan.definite),
    )
    asks_effect = config.asks_effect(plan.topology)
    reversed_order = config.question_order == "reversed"
    turns: list[Turn] = []
    update_index = 0
    wordings: dict[int, tuple[str, str]] = {}  # section -> its two questions (worded once)
    for event in labelled:
        section = plan.sections[event.section]
        hypothesis = section.hypothesis
        if event.section not in wordings:
            wordings[event.section] = (
                entailment_question(renderer, hypothesis),
                effect_question(renderer, hypothesis),
            )
        entail_q, effect_q = wordings[event.section]
        statement = event.update.statement if event.update is not None else None
        sentence = renderer.sentence(statement) if statement is not None else None
        meta = {**turn_meta(event, sentence), "reveal": section.reveal}
        if event.update is None:
            update_index = 0
            turns.append(
                _turn(turns, _opening(renderer, section, entail_q), "initial", event, meta)
            )
            continue
        meta["update_index"] = update_index
        update_index += 1
        questions = [("entailment", entail_q)] + ([("effect", effect_q)] if asks_effect else [])
        if reversed_order:
            questions.reverse()
        for number, (kind, question) in enumerate(questions):
            prompt = update_message(str(sentence), question) if number == 0 else question
            asked = meta if number == 0 else {**meta, "added": [], "removed": []}
            turns.append(_turn(turns, prompt, kind, event, asked))
    return turns


def _opening(renderer: Renderer, section: Section, question: str) -> str:
    hypothesis = renderer.sentence(section.hypothesis)
    if section.index > 0:
        if section.pretext:
            raise BiaslabError("only the first section may carry a pretext")
        return new_section_message(hypothesis, question)
    reliability = [s for s in section.pretext if isinstance(s, Reliability | EqualReliability)]
    premises = [s for s in section.pretext if not isinstance(s, Reliability | EqualReliability)]
    return opening_message(
        [renderer.sentence(s) for s in premises],
        [renderer.sentence(s) for s in reliability],
        hypothesis,
        question,
    )


def _turn(turns: list[Turn], prompt: str, kind: str, event: Labelled, meta: dict[str, Any]) -> Turn:
    labels, gold = (
        (EFFECT_LABELS, event.effect) if kind == "effect" else (ENTAILMENT_LABELS, event.gold)
    )
    assert gold is not None
    return _trusted_turn(
        {
            "index": len(turns),
            "prompt": prompt,
            "kind": kind,
            "labels": labels,
            "parser": None,
            "synonyms": {},
            "gold": gold,
            "meta": meta,
        }
    )


#: the fields a turn built by the validating constructor with labels and no parser records as set
_TURN_FIELDS_SET = frozenset({"index", "prompt", "kind", "labels", "gold", "meta"})


def _trusted_turn(fields: dict[str, Any]) -> Turn:
    """The turn with these fields (every one, in the model's order), made as pydantic's
    ``model_construct`` makes one (the instance dict, the fields set, no extra, no private
    attributes) without validating it: every value is already of its type and a turn with
    labels and no parser or synonyms passes the turn's own check. Validation was a tenth of
    generating the canonical set, and ``model_construct`` itself costs more than validating (it
    looks at every field's aliases and defaults). tests/defeasible/test_generate.py checks that
    generated turns equal validated ones, fields set included."""
    turn = Turn.__new__(Turn)
    object.__setattr__(turn, "__dict__", fields)
    object.__setattr__(turn, "__pydantic_fields_set__", set(_TURN_FIELDS_SET))
    object.__setattr__(turn, "__pydantic_extra__", None)
    object.__setattr__(turn, "__pydantic_private__", None)
    return turn


def turn_meta(event: Labelled, sentence: str | None) -> dict[str, Any]:
    """What the analysis needs of one labelled event (``sentence``: the update as worded)."""
    update = event.update
    statement = update.statement if update is not None else None
    return {
        "section": event.section,
        "update_index": None,
        "update_type": event.update_type,
        "polarity": polarity(statement) if statement is not None else None,
        "gold_before": event.gold_before,
        "gold_after": event.gold,
        "effect": event.effect,
        "distance": event.distance,
        "distance_to_property": event.distance_to_property,
        "on_path": event.on_path,
        "serial": update.serial if update is not None else None,
        "node": event.node,
        "statement": sentence,
        "wording": wording(statement),
        "source": statement.source if isinstance(statement, Claim) else None,
        "added": [link.to_dict() for link in event.added],
        "removed": [link.to_dict() for link in event.removed],
    }


def wording(statement: Statement | None) -> str | None:
    if statement is None:
        return None
    if isinstance(statement, ExceptionFact):
        return "exception"
    return "claim" if isinstance(statement, Claim) else "plain"


def structure_meta(plan: Plan, network: Network) -> dict[str, Any]:
    """The conversation's sections and final network, as every item records them."""
    return {
        "sections": [
            {
                "section": s.index,
                "subject": s.hypothesis.subject,
                "property": s.hypothesis.prop,
                "kind": s.kind,
                "reveal": s.reveal,
                "n_updates": len(s.updates),
            }
            for s in plan.sections
        ],
        "n_sections": len(plan.sections),
        "n_updates": sum(len(s.updates) for s in plan.sections),
        "n_nodes": len(network.nodes),
        "n_links": len(network.links),
        "network": network.to_dict(),
    }


def item_meta(
    plan: Plan, network: Network, config: Config, seed: int, index: int
) -> dict[str, Any]:
    """What analyses need about the whole conversation, including the final network."""
    return {
        "topology": plan.topology,
        "difficulty": config.difficulty,
        "shape": plan.meta.get("shape"),
        "reveal": config.reveal,
        "instructions": config.instructions,
        "weakening": config.weakening,
        "question_order": config.question_order,
        "entities": config.entities,
        "effect_questions": config.asks_effect(plan.topology),
        "domain": plan.domain.name,
        "seed": seed,
        "index": index,
        **{key: value for key, value in plan.meta.items() if key != "shape"},
        **structure_meta(plan, network),
    }


__all__ = [
    "PLANNERS",
    "Labelled",
    "Plan",
    "StructureGraph",
    "effect_of",
    "ensure_revisions",
    "generate",
    "generate_one",
    "label_plan",
    "label_stats",
    "on_path",
    "updated_node",
]
