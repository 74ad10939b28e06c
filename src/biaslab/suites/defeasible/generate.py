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

import random
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

from biaslab.errors import BiaslabError
from biaslab.schema import Item, Turn
from biaslab.seeding import item_random
from biaslab.suites.defeasible.config import SHAPES, Config, Topology
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
    Statement,
    Update,
    build_network,
    effect_of,
    link_key,
    polarity,
    statement_link,
)
from biaslab.suites.defeasible.lexicon import Domain, Lexicon, load_lexicon
from biaslab.suites.defeasible.network import Link, Network
from biaslab.suites.defeasible.render import (
    EFFECT_LABELS,
    ENTAILMENT_LABELS,
    SYSTEM_PROMPTS,
    Renderer,
    Style,
    effect_question,
    entailment_question,
    has_negation_cue,
    new_section_message,
    opening_message,
    update_message,
)
from biaslab.suites.defeasible.resolver import resolve
from biaslab.suites.defeasible.words import pseudowords

SUITE = "defeasible"


# ------------------------------------------------------------------------------------ public API


def generate(config: Config, seed: int, n: int) -> list[Item]:
    """``n`` conversations per topology of ``config`` (default, linear, tree for "all")."""
    if n < 0:
        raise BiaslabError(f"n must be >= 0, got {n}")
    if seed < 0:
        raise BiaslabError(f"seed must be a non-negative integer, got {seed}")
    lexicon = load_lexicon()
    if config.domain != "any":
        lexicon.domain(config.domain)  # an unknown domain is one readable error, before any work
    return [
        generate_one(config, topology, seed, index, lexicon)
        for topology in config.topologies()
        for index in range(n)
    ]


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
    return Item(
        suite=SUITE,
        id=item_id,
        system=SYSTEM_PROMPTS[config.instructions] or None,
        turns=tuple(turns),
        meta=item_meta(plan, network, config, seed, index),
    )


# ------------------------------------------------------------------------------------ plans


@dataclass
class Plan:
    """A conversation before labelling: sections of statements plus what rendering and meta need."""

    topology: Topology
    domain: Domain
    sections: list[Section]
    classes: frozenset[str] = frozenset()  # named with "a"/"an"
    definite: frozenset[str] = frozenset()  # named with "the"
    #: links whose undirected hops define ``distance`` (grows when a cross-link is revealed)
    structure: set[tuple[str, str]] = field(default_factory=set)
    meta: dict[str, Any] = field(default_factory=dict)
    #: (section, its constant gold) -> (update to replace or None, the update that revises it)
    decider: Decider | None = None


#: what makes a section whose gold never changes revise (see :func:`ensure_revisions`)
Decider = Callable[[Section, str], tuple[Update | None, Update] | None]


def _pick_domain(config: Config, rng: random.Random, lexicon: Lexicon) -> Domain:
    if config.domain != "any":
        return lexicon.domain(config.domain)
    return lexicon.domain(rng.choice(sorted(lexicon.domains)))


def _names(
    rng: random.Random, config: Config, lexicon: Lexicon, domain: Domain, count: int
) -> list[str]:
    """Entity names: fresh pseudowords, or the domain's real nouns (topped up from other domains)."""
    if config.entities == "pseudo":
        return pseudowords(rng, count, exclude=lexicon.source_names)
    own = list(domain.real_nouns)
    picked = rng.sample(own, min(count, len(own)))
    if count > len(own):
        others = [
            noun
            for name in sorted(lexicon.domains)
            if name != domain.name
            for noun in lexicon.domains[name].real_nouns
        ]
        if count - len(own) > len(others):
            raise BiaslabError(f"not enough real nouns for {count} entities")
        picked += rng.sample(others, count - len(own))
    return picked


def _order_updates(
    rng: random.Random, updates: list[Update], config: Config
) -> tuple[str, tuple[Update, ...]]:
    """(reveal mode, updates in reveal order). Random reveal shuffles everything; serial reveal
    shows the evidence general -> specific and slots the other updates in at random places, keeping
    their planned order; mixed flips a fair coin per section between the two (as the paper)."""
    mode = config.reveal
    if mode == "mixed":
        mode = "random" if _coin(rng, 0.5) else "serial"
    if mode == "random":
        ordered = list(updates)
        rng.shuffle(ordered)
    else:
        serial = sorted((u for u in updates if u.serial is not None), key=lambda u: u.serial or 0)
        ordered = list(serial)
        position = 0
        for update in (u for u in updates if u.serial is None):
            position = rng.randint(position, len(ordered))
            ordered.insert(position, update)
            position += 1
    if config.max_updates_per_section is not None:
        ordered = ordered[: config.max_updates_per_section]
    return mode, tuple(ordered)


def _coin(rng: random.Random, probability: float) -> bool:
    return rng.random() < probability


# ---- default reasoning


@dataclass
class _Chain:
    """The default topology's world: chain, objects and every object's evidence."""

    keys: list[str]
    rules: list[Implication]
    objects: list[str]
    evidence: dict[str, dict[int, bool]]
    serials: dict[tuple[str, int], int]
    revealed: dict[str, set[int]]
    attributes: list[str]
    #: (object, index) of evidence worded as an exception to rule index-1 (the object is P_{i-1})
    exceptions: set[tuple[str, int]] = field(default_factory=set)
    #: (object, index) of claims that the object is not P_i
    denied: set[tuple[str, int]] = field(default_factory=set)

    def says_not(self, obj: str, index: int) -> bool:
        """Whether the conversation says (or may say) that ``obj`` is not P_index."""
        return self.evidence[obj].get(index) is False or (obj, index) in self.denied

    @property
    def last(self) -> int:
        return len(self.keys) - 1


def _plan_default(config: Config, rng: random.Random, lexicon: Lexicon) -> Plan:
    domain = _pick_domain(config, rng, lexicon)
    chain = _make_chain(config, rng, lexicon, domain)
    subjects = rng.sample(chain.objects, min(config.max_sections, len(chain.objects)))
    kinds = [_section_kind(config, rng, chain) for _ in subjects]
    if config.weakening == "defeat":  # source conflicts withhold: no yes->unknown weakenings
        kinds = ["plain"] * len(kinds)
    distractors = _distractors(config, rng, lexicon, chain, subjects, domain)
    sources = _make_sources(config, rng, lexicon) if any(k != "plain" for k in kinds) else None
    pretext: list[Statement] = [*chain.rules]
    pretext += [Fact(obj, chain.keys[0], True) for obj in chain.objects]
    if sources is not None:
        pretext += sources.statements
    used_pairs: set[tuple[str, str]] = set()
    sections: list[Section] = []
    for number, (subject, kind) in enumerate(zip(subjects, kinds, strict=True)):
        updates = _default_section_updates(config, rng, chain, subject, distractors[subject])
        claims, kind = _source_claims(config, rng, chain, subject, kind, sources, used_pairs)
        updates += claims
        reveal, ordered = _order_updates(rng, updates, config)
        sections.append(
            Section(
                index=number,
                hypothesis=Hypothesis(subject, chain.keys[-1]),
                pretext=tuple(pretext) if number == 0 else (),
                updates=ordered,
                kind=kind,
                reveal=reveal,
            )
        )
    structure = {(obj, chain.keys[0]) for obj in chain.objects}
    structure |= {(rule.src, rule.dst) for rule in chain.rules}
    return Plan(
        decider=_chain_decider(config, chain),
        topology="default",
        domain=domain,
        sections=sections,
        definite=frozenset(chain.objects) if config.entities == "real" else frozenset(),
        structure=structure,
        meta={
            "chain_length": len(chain.keys),
            "n_objects": len(chain.objects),
            "n_sources": len(sources.names) if sources else 0,
            "final_rule": "+" if chain.rules[-1].positive else "-",
        },
    )


def _make_chain(config: Config, rng: random.Random, lexicon: Lexicon, domain: Domain) -> _Chain:
    length = rng.randint(*config.chain_length)
    predicates = lexicon.sample_chain(rng, domain.name, length)
    keys = [p.key for p in predicates]
    last = length - 1
    final_positive = not _coin(rng, config.negative_rule_prob)
    rules = [Implication(keys[i], keys[i + 1], i + 1 < last or final_positive) for i in range(last)]
    objects = _names(rng, config, lexicon, domain, rng.randint(*config.num_objects))
    sparsity = rng.uniform(*config.sparsity)
    evidence: dict[str, dict[int, bool]] = {}
    for obj in objects:
        facts = {i: _coin(rng, 0.5) for i in range(1, last) if _coin(rng, sparsity)}
        if not facts:  # every subject gets at least one piece of evidence on the chain
            facts[rng.randint(1, last - 1)] = _coin(rng, 0.5)
        evidence[obj] = _weakening_mix(config, rng, facts, last)
    ranked = sorted(
        ((i, objects.index(obj)) for obj in objects for i in evidence[obj]),
    )
    serials = {(objects[o], i): number for number, (i, o) in enumerate(ranked, start=1)}
    return _Chain(
        keys=keys,
        rules=rules,
        objects=objects,
        evidence=evidence,
        serials=serials,
        revealed={obj: set() for obj in objects},
        attributes=[p.attribute for p in predicates],
    )


def _weakening_mix(
    config: Config, rng: random.Random, facts: dict[int, bool], last: int
) -> dict[int, bool]:
    """An object's evidence under the ``weakening`` mix. Evidence about the hypothesis property
    itself is only ever negative (a positive one would state the hypothesis). ``defeat``: facts
    against intermediate nodes (which leave the hypothesis undetermined beyond the break) become
    one negative fact about the property itself, a more specific link that defeats the chain;
    ``withhold``: never evidence about the property itself."""
    if config.weakening == "defeat":
        kept: dict[int, bool] = {i: v for i, v in facts.items() if v}
        if len(kept) < len(facts) or _coin(rng, config.target_evidence_prob):
            kept[last] = False
        return kept or {last: False}
    if config.weakening == "mixed" and _coin(rng, config.target_evidence_prob):
        facts[last] = False
    return facts


def _chain_decider(config: Config, chain: _Chain) -> Decider:
    """Revise a default-reasoning section whose gold never changes with one fact about its subject
    on a node it has no evidence or claim on: yes -> a denial of the hypothesis property (a
    defeat; under ``withhold`` a break after every positive entry instead), unknown -> a positive
    re-entry after every break, no under a negative last rule -> a break after every entry."""

    def decide(section: Section, gold: str) -> tuple[Update | None, Update] | None:
        subject = section.hypothesis.subject
        evidence = chain.evidence[subject]
        claimed = {i for obj, i in chain.denied if obj == subject}

        def free(i: int, positive: bool) -> bool:
            if i in evidence or i in claimed:
                return False
            # a denial of P_i must not meet "x is an exception to the rule that P_i's ..."
            nxt = evidence.get(i + 1)
            return positive or i == chain.last or nxt is None or nxt == chain.rules[i].positive

        entries = max((i for i, v in evidence.items() if v), default=0)
        breaks = max([i for i, v in evidence.items() if not v] + list(claimed), default=0)
        last_rule = chain.rules[-1]
        plans: list[tuple[list[int], bool]] = []
        if gold == "yes":
            if config.weakening != "withhold":
                plans.append(([chain.last], False))  # a denial of the hypothesis property
            plans.append((list(range(entries + 1, chain.last)), False))  # a break after entries
        elif gold == "unknown":
            plans.append((list(range(breaks + 1, chain.last)), True))  # a re-entry after breaks
            if config.weakening != "withhold":
                plans.append(([chain.last], False))
        elif not last_rule.positive:  # "no" from the negative last rule
            plans.append((list(range(entries + 1, chain.last)), False))
            if chain.last not in evidence and not chain.says_not(subject, chain.last - 1):
                # an exception to the negative last rule (it says the subject has P_{n-1})
                return None, Update(ExceptionFact(subject, last_rule), "exception")
        for options, positive in plans:
            options = [i for i in options if free(i, positive)]
            if options:
                index = options[-1]
                evidence[index] = positive
                agrees = positive == chain.rules[index - 1].positive
                fact = Fact(subject, chain.keys[index], positive)
                return None, Update(fact, "confirm" if agrees else "exception")
        return None

    return decide


def _section_kind(config: Config, rng: random.Random, chain: _Chain) -> str:
    if not _coin(rng, config.source_section_prob):
        return "plain"
    if chain.last >= 4 and _coin(rng, config.bypass_prob):
        return "bypass"
    return "contradiction"


def _evidence_update(
    config: Config, rng: random.Random, chain: _Chain, obj: str, index: int, other: bool
) -> Update:
    """One evidence fact; a fact against its rule may be worded as an exception to that rule."""
    positive = chain.evidence[obj][index]
    rule = chain.rules[index - 1]
    agrees = positive == rule.positive
    statement: Statement = Fact(obj, chain.keys[index], positive)
    # "x is an exception to the rule that A's generally B" says x is an A: never when the
    # conversation also says x is not A
    contradicts = chain.says_not(obj, index - 1)
    if not agrees and not contradicts and _coin(rng, config.exception_wording_prob):
        statement = ExceptionFact(obj, rule)
        chain.exceptions.add((obj, index))
    chain.revealed[obj].add(index)
    if other:
        return Update(statement, "other-object")
    return Update(statement, "confirm" if agrees else "exception", chain.serials[(obj, index)])


def _distractors(
    config: Config,
    rng: random.Random,
    lexicon: Lexicon,
    chain: _Chain,
    subjects: list[str],
    domain: Domain,
) -> dict[str, list[Fact]]:
    """Irrelevant-attribute facts (attributes off the chain): as in the original, a number per
    conversation, each about a random object; here always a section's subject, so every one is
    revealed (a section may get several, or none)."""
    count = rng.randint(*config.irrelevant_attributes)
    found: dict[str, list[Fact]] = {subject: [] for subject in subjects}
    for predicate in lexicon.sample_distractors(rng, chain.attributes, count, domain=domain.name):
        subject = rng.choice(subjects)
        found[subject].append(Fact(subject, predicate.key, _coin(rng, 0.5)))
    return found


def _default_section_updates(
    config: Config,
    rng: random.Random,
    chain: _Chain,
    subject: str,
    distractors: list[Fact],
) -> list[Update]:
    updates = [
        _evidence_update(config, rng, chain, subject, index, other=False)
        for index in sorted(chain.evidence[subject])
        if index not in chain.revealed[subject]
    ]
    updates += [Update(fact, "distractor") for fact in distractors]
    for _ in range(rng.randint(*config.other_object_updates)):
        candidates = [
            (obj, index)
            for obj in chain.objects
            if obj != subject
            for index in sorted(chain.evidence[obj])
            if index not in chain.revealed[obj]
        ]
        if not candidates:
            break
        obj, index = rng.choice(candidates)
        updates.append(_evidence_update(config, rng, chain, obj, index, other=True))
    return updates


@dataclass
class _Sources:
    """Named sources in reliability tiers (0 = most reliable) and the statements that say so."""

    names: list[str]
    tier: dict[str, int]
    statements: list[Statement]

    def weaker_first(self, first: str, second: str) -> tuple[str, str]:
        """The pair ordered less reliable first (ties keep their order)."""
        return (second, first) if self.tier[second] > self.tier[first] else (first, second)


def _make_sources(config: Config, rng: random.Random, lexicon: Lexicon) -> _Sources:
    names = rng.sample(list(lexicon.source_names), rng.randint(*config.num_sources))
    tier = {names[0]: 0}
    statements: list[Statement] = []
    for upper, lower in pairwise(names):
        if _coin(rng, config.equal_priority_prob):
            tier[lower] = tier[upper]
            statements.append(EqualReliability(upper, lower))
        else:
            tier[lower] = tier[upper] + 1
            statements.append(Reliability(upper, lower, worded_less=_coin(rng, 0.5)))
    rng.shuffle(statements)  # non-adjacent pairs need transitivity
    return _Sources(names=names, tier=tier, statements=statements)


def _source_claims(
    config: Config,
    rng: random.Random,
    chain: _Chain,
    subject: str,
    kind: str,
    sources: _Sources | None,
    used_pairs: set[tuple[str, str]],
) -> tuple[list[Update], str]:
    if sources is None or kind == "plain":
        return [], "plain"
    if kind == "bypass":
        claims = _bypass_claims(config, rng, chain, sources, used_pairs)
        if claims:
            return claims, "bypass"
    claims = _contradiction_claims(config, rng, chain, subject, sources)
    return claims, ("contradiction" if claims else "plain")


def _contradiction_claims(
    config: Config, rng: random.Random, chain: _Chain, subject: str, sources: _Sources
) -> list[Update]:
    """Two sources report opposite facts about the subject at a node it has no evidence on."""
    # never at the hypothesis property (a claim would state the hypothesis) nor at a node that
    # the subject's evidence at the next node may, worded as an exception, say it has
    evidence = chain.evidence[subject]
    free = [
        i
        for i in range(1, chain.last)
        if i not in evidence
        and evidence.get(i + 1, chain.rules[i].positive) == chain.rules[i].positive
    ]
    if not free:
        return []
    index = rng.choice(free)
    chain.denied.add((subject, index))
    node = chain.keys[index]
    weaker, stronger = sources.weaker_first(*rng.sample(sources.names, 2))
    stronger_positive = _coin(rng, 0.5)
    claims = [
        Update(Claim(weaker, Fact(subject, node, not stronger_positive)), "source-claim"),
        Update(Claim(stronger, Fact(subject, node, stronger_positive)), "source-claim"),
    ]
    if not _coin(rng, config.weaker_claim_first_prob):
        claims.reverse()
    return claims


def _bypass_claims(
    config: Config,
    rng: random.Random,
    chain: _Chain,
    sources: _Sources,
    used_pairs: set[tuple[str, str]],
) -> list[Update]:
    """A blocking rule Pj -/-> Pk and a bypass Pa -> Pb around it (a < j < k - 1 < b - 2), and
    optionally a denial of the bypass by a third source."""
    last = chain.last
    for _ in range(20):
        j = rng.randint(1, last - 3)
        k = rng.randint(j + 2, last - 1)
        a = rng.randint(0, j - 1)
        b = rng.randint(k + 1, last)
        block, bypass = (chain.keys[j], chain.keys[k]), (chain.keys[a], chain.keys[b])
        if block not in used_pairs and bypass not in used_pairs:
            break
    else:
        return []
    used_pairs.update({block, bypass})
    blocker, supporter = rng.sample(sources.names, 2)
    updates = [
        Update(Claim(blocker, Implication(*block, positive=False)), "source-rule"),
        Update(Claim(supporter, Implication(*bypass, positive=True)), "bypass"),
    ]
    if _coin(rng, config.contested_rule_prob):
        denier = rng.choice([s for s in sources.names if s != supporter])
        denial = Update(Claim(denier, Implication(*bypass, positive=False)), "source-rule")
        pair = [updates[1], denial]
        if sources.weaker_first(supporter, denier)[0] != supporter:
            pair.reverse()  # pair is now weaker first
        if not _coin(rng, config.weaker_claim_first_prob):
            pair.reverse()
        updates[1:] = pair
    return updates


# ---- inheritance


@dataclass
class _Taxonomy:
    """Classes with their parents (child -> parent), depths, and a breadth-first order."""

    root: str
    parent: dict[str, str]
    depth: dict[str, int]
    order: list[str]

    def ancestors(self, node: str) -> list[str]:
        found = []
        while node in self.parent:
            node = self.parent[node]
            found.append(node)
        return found

    def descendants(self, node: str) -> set[str]:
        children: dict[str, list[str]] = {}
        for child, parent in self.parent.items():
            children.setdefault(parent, []).append(child)
        found: set[str] = set()
        stack = [node]
        while stack:
            for child in children.get(stack.pop(), []):
                found.add(child)
                stack.append(child)
        return found

    def leaves(self) -> list[str]:
        parents = set(self.parent.values())
        return [n for n in self.order if n not in parents and n != self.root]


def _linear_taxonomy(names: list[str], root: str) -> _Taxonomy:
    chain = [root, *names]
    return _Taxonomy(
        root=root,
        parent={chain[i]: chain[i - 1] for i in range(1, len(chain))},
        depth={node: i for i, node in enumerate(chain)},
        order=chain,
    )


def _tree_shape_counts(config: Config, rng: random.Random, shape: str) -> list[tuple[int, int]]:
    """Galton-Watson growth: (parent index, depth) of every class after the root, breadth first."""
    params = config.tree_shape(shape)
    low, high = params["branching"]
    nodes: list[tuple[int, int]] = [(-1, 0)]
    queue = deque([0])
    while queue:
        index = queue.popleft()
        depth = nodes[index][1]
        if depth >= params["max_depth"]:
            continue
        if depth > 0 and rng.random() > params["survival"]:
            continue
        if depth == 0:
            count = params["root_breadth"]
        else:
            cap = int(high * params["decay"] ** (depth - 1))
            count = rng.randint(low, max(low, cap))
        for _ in range(count):
            nodes.append((index, depth + 1))
            queue.append(len(nodes) - 1)
    return nodes[1:]


@dataclass
class _Hierarchy:
    """An inheritance world: taxonomy, subject, property, and each exception holder's polarity."""

    taxonomy: _Taxonomy
    subject: str
    prop: str
    root_positive: bool
    exceptions: dict[str, bool]

    def statements(self, cross: KindOf | None = None) -> list[Statement]:
        """Everything the conversation will have said (for checking a candidate cross-link)."""
        found: list[Statement] = [ClassProperty(self.taxonomy.root, self.prop, self.root_positive)]
        found += [KindOf(child, parent) for child, parent in self.taxonomy.parent.items()]
        found += [ClassProperty(n, self.prop, p) for n, p in self.exceptions.items()]
        return found + ([cross] if cross is not None else [])


def _hierarchy(
    config: Config,
    rng: random.Random,
    lexicon: Lexicon,
    domain: Domain,
    taxonomy: _Taxonomy,
    subject: str,
    holders: list[str],
) -> _Hierarchy:
    prop = lexicon.sample_chain(rng, domain.name, 1)[0].key
    root_positive = not _coin(rng, config.root_lacks_prob)
    exceptions = {node: _coin(rng, 0.5) for node in holders}
    return _Hierarchy(taxonomy, subject, prop, root_positive, exceptions)


def _plan_linear(config: Config, rng: random.Random, lexicon: Lexicon) -> Plan:
    domain = _pick_domain(config, rng, lexicon)
    depth = rng.randint(*config.linear_depth)
    names = _names(rng, config, lexicon, domain, depth)
    taxonomy = _linear_taxonomy(names, domain.noun)
    fraction = rng.uniform(*config.linear_exception_fraction)
    count = max(1, min(depth - 1, round(fraction * depth)))
    holders = [taxonomy.order[d] for d in sorted(rng.sample(range(1, depth), count))]
    world = _hierarchy(config, rng, lexicon, domain, taxonomy, names[-1], holders)
    plan = _inheritance_plan(
        "linear", config, rng, lexicon, domain, world, None, config.linear_distractors
    )
    plan.meta.update({"depth": depth, "n_classes": len(taxonomy.order)})
    return plan


def _plan_tree(config: Config, rng: random.Random, lexicon: Lexicon) -> Plan:
    domain = _pick_domain(config, rng, lexicon)
    shape = rng.choice(SHAPES) if config.shape == "mixed" else config.shape
    grown = _tree_shape_counts(config, rng, shape)
    names = _names(rng, config, lexicon, domain, len(grown))
    order = [domain.noun, *names]
    taxonomy = _Taxonomy(
        root=domain.noun,
        parent={names[i]: order[parent] for i, (parent, _) in enumerate(grown)},
        depth={domain.noun: 0, **{names[i]: d for i, (_, d) in enumerate(grown)}},
        order=order,
    )
    leaves = taxonomy.leaves()
    deepest = max(taxonomy.depth[leaf] for leaf in leaves)
    if _coin(rng, config.deepest_leaf_prob):
        subject = rng.choice([leaf for leaf in leaves if taxonomy.depth[leaf] == deepest])
    else:
        subject = rng.choice(leaves)
    sparsity = rng.uniform(*config.tree_sparsity)
    holders = [n for n in order[1:] if n != subject and _coin(rng, sparsity)]
    world = _hierarchy(config, rng, lexicon, domain, taxonomy, subject, holders)
    cross = _cross_link(config, rng, world)
    plan = _inheritance_plan(
        "tree", config, rng, lexicon, domain, world, cross, config.tree_distractors
    )
    plan.meta.update(
        {
            "shape": shape,
            "depth": taxonomy.depth[subject],
            "max_depth": max(taxonomy.depth.values()),
            "n_classes": len(order),
        }
    )
    return plan


def _cross_link(config: Config, rng: random.Random, world: _Hierarchy) -> KindOf | None:
    """A second parent for the subject or its parent, in another branch.

    So that "is also a kind of" carries no information about "unknown", the parent is drawn half
    the time among those whose route conflicts with the subject's own once everything is revealed
    (a Nixon diamond), else among those that change nothing (``weakening=defeat``: always the
    latter; ``withhold``: always a conflict when one exists)."""
    if not _coin(rng, config.cross_link_prob):
        return None
    taxonomy, subject = world.taxonomy, world.subject
    lowers = [subject, *taxonomy.ancestors(subject)[:1]]
    candidates = []
    for lower in lowers:
        if lower == taxonomy.root:
            continue
        excluded = {lower, taxonomy.root, *taxonomy.ancestors(lower), *taxonomy.descendants(lower)}
        candidates += [KindOf(lower, n, also=True) for n in taxonomy.order if n not in excluded]
    if not candidates:
        return None
    base = Premises(world.statements()).links()
    final = resolve(build_network(base), subject, world.prop)
    answers = {  # the answer once everything is revealed
        c: resolve(build_network({*base, Link(c.child, c.parent)}), subject, world.prop)
        for c in candidates
    }
    nixon = [c for c in candidates if answers[c] == "unknown" != final]
    # harmless at every stage of the reveal: no exception on the second parent's own ancestry
    harmless = [
        c
        for c in candidates
        if not ({c.parent, *taxonomy.ancestors(c.parent)} & set(world.exceptions))
    ]
    if config.weakening == "defeat":
        pool = harmless
    elif config.weakening == "withhold":
        pool = nixon or candidates
    else:
        pool = (nixon if _coin(rng, 0.5) else harmless) or harmless or candidates
    return rng.choice(pool) if pool else None


def _hierarchy_decider(world: _Hierarchy) -> Decider:
    """Revise a section whose gold never changes: flip the most specific exception on the
    subject's own ancestry, or, without one, give its parent an exception against the answer."""
    taxonomy = world.taxonomy

    def decide(section: Section, gold: str) -> tuple[Update | None, Update] | None:
        path = [n for n in taxonomy.ancestors(world.subject) if n != taxonomy.root]
        holders = [n for n in path if n in world.exceptions]
        if holders:
            node = holders[0]
            old = next(
                (
                    u
                    for u in section.updates
                    if isinstance(u.statement, ClassProperty)
                    and u.statement.cls == node
                    and u.statement.prop == world.prop
                ),
                None,
            )
            if old is None:
                return None
            world.exceptions[node] = not world.exceptions[node]
            new = ClassProperty(node, world.prop, world.exceptions[node])
            return old, Update(new, old.update_type, old.serial)
        if path:
            world.exceptions[path[0]] = gold != "yes"
            exception = ClassProperty(path[0], world.prop, gold != "yes")
            return None, Update(exception, "class-exception")
        # the subject's parent is the root: a second parent whose exception goes against the answer
        related = {world.subject, *taxonomy.descendants(world.subject)}
        against = [
            n
            for n, positive in sorted(world.exceptions.items())
            if positive == (gold != "yes") and n not in related
        ]
        if not against:
            return None
        return None, Update(KindOf(world.subject, against[0], also=True), "cross-link")

    return decide


def _inheritance_plan(
    topology: Topology,
    config: Config,
    rng: random.Random,
    lexicon: Lexicon,
    domain: Domain,
    world: _Hierarchy,
    cross: KindOf | None,
    distractors: tuple[int, int],
) -> Plan:
    taxonomy = world.taxonomy
    by_specificity = sorted(
        world.exceptions, key=lambda n: (taxonomy.depth[n], taxonomy.order.index(n))
    )
    updates = [
        Update(ClassProperty(node, world.prop, world.exceptions[node]), "class-exception", serial)
        for serial, node in enumerate(by_specificity, start=1)
    ]
    attribute = lexicon.predicate(world.prop).attribute
    count = rng.randint(*distractors)
    for predicate in lexicon.sample_distractors(rng, [attribute], count, domain=domain.name):
        holder = rng.choice(taxonomy.order)
        updates.append(Update(ClassProperty(holder, predicate.key, _coin(rng, 0.5)), "distractor"))
    in_pretext = cross is not None and _coin(rng, 0.5)
    if cross is not None and not in_pretext:
        updates.append(Update(cross, "cross-link"))
    pretext: list[Statement] = [ClassProperty(taxonomy.root, world.prop, world.root_positive)]
    pretext += [KindOf(child, taxonomy.parent[child]) for child in taxonomy.order[1:]]
    structure = set(taxonomy.parent.items())
    if in_pretext and cross is not None:
        pretext.append(cross)
        structure.add((cross.child, cross.parent))
    reveal, ordered = _order_updates(rng, updates, config)
    section = Section(
        index=0,
        hypothesis=Hypothesis(world.subject, world.prop),
        pretext=tuple(pretext),
        updates=ordered,
        kind="inheritance",
        reveal=reveal,
    )
    return Plan(
        topology=topology,
        domain=domain,
        sections=[section],
        classes=frozenset(taxonomy.order),
        structure=structure,
        decider=_hierarchy_decider(world),
        meta={
            "root_property": "+" if world.root_positive else "-",
            "cross_link": None if cross is None else ("pretext" if in_pretext else "update"),
        },
    )


PLANNERS = {"default": _plan_default, "linear": _plan_linear, "tree": _plan_tree}


# ------------------------------------------------------------------------------------ labelling


@dataclass(frozen=True)
class Labelled:
    """One revealed event with its gold labels and analysis facts."""

    section: int
    update: Update | None  # None for the section opening
    gold_before: str | None
    gold: str
    added: tuple[Link, ...]
    removed: tuple[Link, ...]
    node: str | None = None
    distance: int | None = None
    distance_to_property: int | None = None
    on_path: bool | None = None
    update_type: str = "initial"

    @property
    def effect(self) -> str | None:
        return None if self.gold_before is None else effect_of(self.gold_before, self.gold)


def updated_node(statement: Statement, subject: str) -> str | None:
    """The node an update is about: the property for the subject's own facts, else the link's
    source (another object, a class, a rule's antecedent; a cross-link's lower class)."""
    if isinstance(statement, Claim):
        statement = statement.content
    if isinstance(statement, Fact | ExceptionFact):
        link_src = statement.entity
        dst = statement.prop if isinstance(statement, Fact) else statement.rule.dst
        return dst if link_src == subject else link_src
    if isinstance(statement, Implication):
        return statement.src
    if isinstance(statement, ClassProperty):
        return statement.cls
    if isinstance(statement, KindOf):
        return statement.child if statement.child != subject else statement.parent
    return None


class StructureGraph:
    """The undirected graph ``distance`` is measured on (grows as cross-links are revealed)."""

    def __init__(self, edges: Iterable[tuple[str, str]]) -> None:
        self.neighbours: dict[str, set[str]] = {}
        for a, b in edges:
            self.add(a, b)

    def add(self, a: str, b: str) -> None:
        self.neighbours.setdefault(a, set()).add(b)
        self.neighbours.setdefault(b, set()).add(a)

    def hops(self, start: str, goal: str) -> int | None:
        """Shortest-path length, None if unconnected (or a node is not in the graph)."""
        if start == goal:
            return 0
        if start not in self.neighbours or goal not in self.neighbours:
            return None
        seen = {start: 0}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            for other in self.neighbours[node]:
                if other not in seen:
                    if other == goal:
                        return seen[node] + 1
                    seen[other] = seen[node] + 1
                    queue.append(other)
        return None


def on_path(network: Network, subject: str, prop: str, link: Link) -> bool:
    """Whether ``link`` lies on a route from the subject to the property: its source is the
    subject or positively reachable from it, and its target is the property or reaches it by
    positive links and one last link of either sign (the link's own sign does not matter: a
    negative link on the route blocks it)."""
    forward = {subject}
    stack = [subject]
    while stack:
        for out in network.out_links(stack.pop()):
            if out.positive and out.dst not in forward:
                forward.add(out.dst)
                stack.append(out.dst)
    if link.src not in forward:
        return False
    if link.dst == prop:
        return True
    backward = {into.src for into in network.in_links(prop)}
    stack = list(backward)
    while stack:
        for into in network.in_links(stack.pop()):
            if into.positive and into.src not in backward:
                backward.add(into.src)
                stack.append(into.src)
    return link.dst in backward


def label_plan(plan: Plan) -> tuple[list[Labelled], Network]:
    """Replay the plan through :class:`Premises` and label every event with :func:`resolve`;
    also return the final network."""
    premises = Premises()
    structure = StructureGraph(plan.structure)
    events: list[Labelled] = []
    network = premises.network
    for section in plan.sections:
        subject, prop = section.hypothesis.subject, section.hypothesis.prop
        before = set(network.links)
        for statement in section.pretext:
            premises.add(statement)
        network = premises.network
        gold: str = resolve(network, subject, prop)
        events.append(Labelled(section.index, None, None, gold, *_delta(before, network.links)))
        for update in section.updates:
            before = set(network.links)
            premises.add(update.statement)
            network = premises.network
            events.append(_label_update(section, update, gold, before, network, structure))
            if isinstance(update.statement, KindOf):  # measured before it shortens anything
                structure.add(update.statement.child, update.statement.parent)
            gold = events[-1].gold
    return events, network


def _constant(labelled: Sequence[Labelled], section: int) -> str | None:
    """The section's gold if it never changes, else None."""
    golds = {event.gold for event in labelled if event.section == section}
    return golds.pop() if len(golds) == 1 else None


def ensure_revisions(
    plan: Plan, rng: random.Random, cap: int | None = None
) -> tuple[list[Labelled], Network]:
    """Label the plan; give each section whose gold never changes one update that revises it
    (the plan's decider; replacing an update or inserting one at a random place), then relabel.
    A conversation of sections that never revise tests nothing about belief revision."""
    labelled, network = label_plan(plan)
    if plan.decider is None:
        return labelled, network
    changed = False
    for number, section in enumerate(plan.sections):
        gold = _constant(labelled, section.index)
        found = None if gold is None else plan.decider(section, gold)
        if found is None:
            continue
        old, new = found
        updates = list(section.updates)
        if old is not None:
            updates[updates.index(old)] = new
        elif cap is None or len(updates) < cap:
            updates.insert(rng.randint(0, len(updates)), new)
        plan.sections[number] = replace(section, updates=tuple(updates))
        changed = True
    return label_plan(plan) if changed else (labelled, network)


def _label_update(
    section: Section,
    update: Update,
    gold_before: str,
    before: set[Link],
    network: Network,
    structure: StructureGraph,
) -> Labelled:
    subject, prop = section.hypothesis.subject, section.hypothesis.prop
    node = updated_node(update.statement, subject)
    asserted = statement_link(update.statement)
    relevant = asserted is not None and on_path(network, subject, prop, asserted)
    measured = node is not None and update.update_type != "distractor"
    added, removed = _delta(before, network.links)
    return Labelled(
        section=section.index,
        update=update,
        gold_before=gold_before,
        gold=resolve(network, subject, prop),
        added=added,
        removed=removed,
        node=node,
        distance=structure.hops(subject, node) if measured and node else None,
        distance_to_property=structure.hops(prop, node) if measured and node else None,
        on_path=relevant,
        update_type=_final_type(update.update_type, relevant),
    )


def _final_type(planned: str, relevant: bool) -> str:
    """Class exceptions off the subject's ancestry (at reveal time) are sibling-branch updates."""
    if planned == "class-exception" and not relevant:
        return "sibling-branch"
    return planned


def _delta(before: set[Link], after: Iterable[Link]) -> tuple[tuple[Link, ...], tuple[Link, ...]]:
    now = set(after)
    return (
        tuple(sorted(now - before, key=link_key)),
        tuple(sorted(before - now, key=link_key)),
    )


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
    for event in labelled:
        section = plan.sections[event.section]
        hypothesis = section.hypothesis
        entail_q = entailment_question(renderer, hypothesis)
        meta = {**_turn_meta(event, renderer), "reveal": section.reveal}
        if event.update is None:
            update_index = 0
            turns.append(
                _turn(turns, _opening(renderer, section, entail_q), "initial", event, meta)
            )
            continue
        meta["update_index"] = update_index
        update_index += 1
        sentence = str(meta["statement"])
        effect_q = effect_question(renderer, hypothesis)
        questions = [("entailment", entail_q)] + ([("effect", effect_q)] if asks_effect else [])
        if reversed_order:
            questions.reverse()
        for number, (kind, question) in enumerate(questions):
            prompt = update_message(sentence, question) if number == 0 else question
            turn_meta = meta if number == 0 else {**meta, "added": [], "removed": []}
            turns.append(_turn(turns, prompt, kind, event, turn_meta))
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
    return Turn(index=len(turns), prompt=prompt, kind=kind, labels=labels, gold=gold, meta=meta)


def _turn_meta(event: Labelled, renderer: Renderer) -> dict[str, Any]:
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
        "statement": renderer.sentence(statement) if statement is not None else None,
        "wording": _wording(statement),
        "source": statement.source if isinstance(statement, Claim) else None,
        "added": [link.to_dict() for link in event.added],
        "removed": [link.to_dict() for link in event.removed],
    }


def _wording(statement: Statement | None) -> str | None:
    if statement is None:
        return None
    if isinstance(statement, ExceptionFact):
        return "exception"
    return "claim" if isinstance(statement, Claim) else "plain"


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
        **{key: value for key, value in plan.meta.items() if key != "shape"},
        "network": network.to_dict(),
    }


# ------------------------------------------------------------------------------------ statistics


def _shortcut_answers(turn: Turn) -> tuple[str, str]:
    """(last-polarity, negation) answers to a turn, from its meta and its update sentence."""
    meta = turn.meta
    statement = meta.get("statement")
    if turn.kind == "initial" or not isinstance(statement, str):
        return "yes", "yes"
    positive = meta.get("polarity") == "+"
    negated = has_negation_cue(statement)
    if turn.kind == "effect":
        return (
            "strengthening" if positive else "weakening",
            "weakening" if negated else "strengthening",
        )
    return ("yes" if positive else "no", "no" if negated else "yes")


def _accuracy(pairs: Sequence[tuple[str, str]]) -> float | None:
    if not pairs:
        return None
    return round(sum(a == b for a, b in pairs) / len(pairs), 4)


def _cue_answers(item: Item) -> list[str | None]:
    """The ``also-unknown`` shortcut's entailment answer per turn (None for effect turns): unknown
    at and after a message saying "is also a kind of", else the last-polarity answer."""
    seen = False
    answers: list[str | None] = []
    for turn in item.turns:
        seen = seen or " is also a kind of " in turn.prompt
        answers.append(
            None if turn.kind == "effect" else "unknown" if seen else _shortcut_answers(turn)[0]
        )
    return answers


def _kind_stats(turns: Sequence[Turn], cue: Sequence[str | None]) -> dict[str, Any]:
    golds = Counter(t.gold for t in turns)
    if not turns:
        return {"n": 0}
    majority_label, majority_count = sorted(golds.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    shortcuts = [(_shortcut_answers(t), t.gold) for t in turns]
    stats = {
        "n": len(turns),
        "gold": dict(sorted(golds.items())),
        "majority_label": majority_label,
        "majority": round(majority_count / len(turns), 4),
        "last_polarity": _accuracy([(s[0], g) for s, g in shortcuts]),
        "negation": _accuracy([(s[1], g) for s, g in shortcuts]),
        "always_yes": _accuracy([("yes", g) for _, g in shortcuts]),
    }
    if turns[0].kind != "effect":
        stats["also_unknown"] = _accuracy(
            [(a, t.gold) for a, t in zip(cue, turns, strict=True) if a is not None]
        )
    return stats


def label_stats(items: Sequence[Item]) -> dict[str, Any]:
    """Gold-label balance and shortcut baselines per topology x difficulty, from the items alone.

    For each split and turn kind (initial, entailment, effect): the gold counts, the majority-class
    accuracy, and the accuracy of the ``last-polarity`` and ``negation`` shortcut agents (computed
    from each turn's meta: the revealed link's polarity and the update sentence's wording).
    """
    splits: dict[str, list[Item]] = {}
    for item in items:
        key = f"{item.meta.get('topology')}/{item.meta.get('difficulty')}"
        splits.setdefault(key, []).append(item)
    result: dict[str, Any] = {}
    for key in sorted(splits):
        group = splits[key]
        turns = [turn for item in group for turn in item.turns]
        cue = [answer for item in group for answer in _cue_answers(item)]
        updates = Counter(
            str(t.meta.get("update_type")) for t in turns if t.kind in ("entailment",)
        )
        effects = Counter(str(t.meta.get("effect")) for t in turns if t.kind == "entailment")
        result[key] = {
            "conversations": len(group),
            "turns": len(turns),
            "update_types": dict(sorted(updates.items())),
            "effects": dict(sorted(effects.items())),
            **{
                kind: _kind_stats(
                    [t for t in turns if t.kind == kind],
                    [a for a, t in zip(cue, turns, strict=True) if t.kind == kind],
                )
                for kind in ("initial", "entailment", "effect")
            },
        }
    return result


__all__ = [
    "PLANNERS",
    "Labelled",
    "StructureGraph",
    "effect_of",
    "generate",
    "generate_one",
    "label_plan",
    "label_stats",
    "on_path",
    "updated_node",
]
