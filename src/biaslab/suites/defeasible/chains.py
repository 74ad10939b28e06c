"""Default reasoning: a property chain, objects with evidence, sources and bypass rules, planned
as hypothesis sections (see :mod:`~biaslab.suites.defeasible.generate`)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import pairwise

from biaslab.suites.defeasible.config import Config
from biaslab.suites.defeasible.conversation import (
    Claim,
    EqualReliability,
    ExceptionFact,
    Fact,
    Hypothesis,
    Implication,
    Reliability,
    Section,
    Statement,
    Update,
)
from biaslab.suites.defeasible.labelling import (
    Decider,
    Plan,
)
from biaslab.suites.defeasible.lexicon import Domain, Lexicon
from biaslab.suites.defeasible.planning import coin, entity_names, order_updates, pick_domain


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


def plan_default(config: Config, rng: random.Random, lexicon: Lexicon) -> Plan:
    domain = pick_domain(config, rng, lexicon)
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
        reveal, ordered = order_updates(rng, updates, config)
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
    final_positive = not coin(rng, config.negative_rule_prob)
    rules = [Implication(keys[i], keys[i + 1], i + 1 < last or final_positive) for i in range(last)]
    objects = entity_names(rng, config, lexicon, domain, rng.randint(*config.num_objects))
    sparsity = rng.uniform(*config.sparsity)
    evidence: dict[str, dict[int, bool]] = {}
    for obj in objects:
        facts = {i: coin(rng, 0.5) for i in range(1, last) if coin(rng, sparsity)}
        if not facts:  # every subject gets at least one piece of evidence on the chain
            facts[rng.randint(1, last - 1)] = coin(rng, 0.5)
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
        if len(kept) < len(facts) or coin(rng, config.target_evidence_prob):
            kept[last] = False
        return kept or {last: False}
    if config.weakening == "mixed" and coin(rng, config.target_evidence_prob):
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
    if not coin(rng, config.source_section_prob):
        return "plain"
    if chain.last >= 4 and coin(rng, config.bypass_prob):
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
    if not agrees and not contradicts and coin(rng, config.exception_wording_prob):
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
        found[subject].append(Fact(subject, predicate.key, coin(rng, 0.5)))
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
        if coin(rng, config.equal_priority_prob):
            tier[lower] = tier[upper]
            statements.append(EqualReliability(upper, lower))
        else:
            tier[lower] = tier[upper] + 1
            statements.append(Reliability(upper, lower, worded_less=coin(rng, 0.5)))
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
    stronger_positive = coin(rng, 0.5)
    claims = [
        Update(Claim(weaker, Fact(subject, node, not stronger_positive)), "source-claim"),
        Update(Claim(stronger, Fact(subject, node, stronger_positive)), "source-claim"),
    ]
    if not coin(rng, config.weaker_claim_first_prob):
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
    if coin(rng, config.contested_rule_prob):
        denier = rng.choice([s for s in sources.names if s != supporter])
        denial = Update(Claim(denier, Implication(*bypass, positive=False)), "source-rule")
        pair = [updates[1], denial]
        if sources.weaker_first(supporter, denier)[0] != supporter:
            pair.reverse()  # pair is now weaker first
        if not coin(rng, config.weaker_claim_first_prob):
            pair.reverse()
        updates[1:] = pair
    return updates
