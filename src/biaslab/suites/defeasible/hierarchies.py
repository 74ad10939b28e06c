"""Linear and tree inheritance: taxonomies, class exceptions and cross-links, planned as one
hypothesis section (see :mod:`~biaslab.suites.defeasible.generate`)."""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

from biaslab.suites.defeasible.config import SHAPES, Config, Topology
from biaslab.suites.defeasible.conversation import (
    ClassProperty,
    Hypothesis,
    KindOf,
    Premises,
    Section,
    Statement,
    Update,
    build_network,
)
from biaslab.suites.defeasible.labelling import (
    Decider,
    Plan,
)
from biaslab.suites.defeasible.lexicon import Domain, Lexicon
from biaslab.suites.defeasible.network import Link
from biaslab.suites.defeasible.planning import coin, entity_names, order_updates, pick_domain
from biaslab.suites.defeasible.resolver import SubjectResolution


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
    root_positive = not coin(rng, config.root_lacks_prob)
    exceptions = {node: coin(rng, 0.5) for node in holders}
    return _Hierarchy(taxonomy, subject, prop, root_positive, exceptions)


def plan_linear(config: Config, rng: random.Random, lexicon: Lexicon) -> Plan:
    domain = pick_domain(config, rng, lexicon)
    depth = rng.randint(*config.linear_depth)
    names = entity_names(rng, config, lexicon, domain, depth)
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


def plan_tree(config: Config, rng: random.Random, lexicon: Lexicon) -> Plan:
    domain = pick_domain(config, rng, lexicon)
    shape = rng.choice(SHAPES) if config.shape == "mixed" else config.shape
    grown = _tree_shape_counts(config, rng, shape)
    names = entity_names(rng, config, lexicon, domain, len(grown))
    order = [domain.noun, *names]
    taxonomy = _Taxonomy(
        root=domain.noun,
        parent={names[i]: order[parent] for i, (parent, _) in enumerate(grown)},
        depth={domain.noun: 0, **{names[i]: d for i, (_, d) in enumerate(grown)}},
        order=order,
    )
    leaves = taxonomy.leaves()
    deepest = max(taxonomy.depth[leaf] for leaf in leaves)
    if coin(rng, config.deepest_leaf_prob):
        subject = rng.choice([leaf for leaf in leaves if taxonomy.depth[leaf] == deepest])
    else:
        subject = rng.choice(leaves)
    sparsity = rng.uniform(*config.tree_sparsity)
    holders = [n for n in order[1:] if n != subject and coin(rng, sparsity)]
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
    if not coin(rng, config.cross_link_prob):
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
    base = build_network(Premises(world.statements()).links())

    def nixon() -> list[KindOf]:
        """The candidates that leave the answer unknown once everything is revealed (worked out
        only when the draw needs them: the subject's resolution of the whole hierarchy is made
        once, and each candidate's link evaluates again only what it reaches, in a copy)."""
        resolution = SubjectResolution(base, subject)
        final = resolution.answer(world.prop)
        conflicts = []
        for c in candidates:
            link = Link(c.child, c.parent)
            if link in base.link_set:
                continue  # the answer is the final one
            with_link = resolution.copy()
            with_link.update(base.plus(link), (link,), False)
            if with_link.answer(world.prop) == "unknown" != final:
                conflicts.append(c)
        return conflicts

    # harmless at every stage of the reveal: no exception on the second parent's own ancestry
    harmless = [
        c
        for c in candidates
        if not ({c.parent, *taxonomy.ancestors(c.parent)} & set(world.exceptions))
    ]
    if config.weakening == "defeat":
        pool = harmless
    elif config.weakening == "withhold":
        pool = nixon() or candidates
    else:
        pool = (nixon() if coin(rng, 0.5) else harmless) or harmless or candidates
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
        updates.append(Update(ClassProperty(holder, predicate.key, coin(rng, 0.5)), "distractor"))
    in_pretext = cross is not None and coin(rng, 0.5)
    if cross is not None and not in_pretext:
        updates.append(Update(cross, "cross-link"))
    pretext: list[Statement] = [ClassProperty(taxonomy.root, world.prop, world.root_positive)]
    pretext += [KindOf(child, taxonomy.parent[child]) for child in taxonomy.order[1:]]
    structure = set(taxonomy.parent.items())
    if in_pretext and cross is not None:
        pretext.append(cross)
        structure.add((cross.child, cross.parent))
    reveal, ordered = order_updates(rng, updates, config)
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
