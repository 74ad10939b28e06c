"""Labelling a planned conversation: replay its statements through :class:`Premises` and give
every event its gold answer from the one resolver, its effect, distance and on/off-path flag; and
make sure the sections revise (:func:`ensure_revisions`)."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from biaslab.suites.defeasible.config import Topology
from biaslab.suites.defeasible.conversation import (
    Claim,
    ClassProperty,
    ExceptionFact,
    Fact,
    Implication,
    KindOf,
    Premises,
    Section,
    Statement,
    Update,
    effect_of,
    statement_link,
)
from biaslab.suites.defeasible.lexicon import Domain
from biaslab.suites.defeasible.network import Link, Network
from biaslab.suites.defeasible.resolver import (
    SubjectResolution,
    reachable_nodes,
    relevant_nodes,
)


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
        self._distances: dict[str, dict[str, int]] = {}  # start -> hops to every node it reaches
        for a, b in edges:
            self.add(a, b)

    def copy(self) -> StructureGraph:
        graph = StructureGraph(())
        graph.neighbours = {node: set(others) for node, others in self.neighbours.items()}
        graph._distances = dict(self._distances)  # walks are replaced, never changed
        return graph

    def add(self, a: str, b: str) -> None:
        self.neighbours.setdefault(a, set()).add(b)
        self.neighbours.setdefault(b, set()).add(a)
        self._distances.clear()

    def hops(self, start: str, goal: str) -> int | None:
        """Shortest-path length, None if unconnected (or a node is not in the graph). One
        breadth-first walk per start until the graph next grows (a section asks from its subject
        and its property once per update)."""
        if start == goal:
            return 0
        if start not in self.neighbours or goal not in self.neighbours:
            return None
        seen = self._distances.get(start)
        if seen is None:
            seen = {start: 0}
            queue = deque([start])
            while queue:
                node = queue.popleft()
                for other in self.neighbours[node]:
                    if other not in seen:
                        seen[other] = seen[node] + 1
                        queue.append(other)
            self._distances[start] = seen
        return seen.get(goal)


def on_path(network: Network, subject: str, prop: str, link: Link) -> bool:
    """Whether ``link`` lies on a route from the subject to the property: its source is the
    subject or positively reachable from it, and its target is the property or reaches it by
    positive links and one last link of either sign (the link's own sign does not matter: a
    negative link on the route blocks it)."""
    forward = _positive_reach(network, (subject,), {subject})
    if link.src not in forward:
        return False
    if link.dst == prop:
        return True
    backward = {into.src for into in network.in_links(prop)}
    _positive_ancestry(network, tuple(backward), backward)
    return link.dst in backward


def _positive_reach(network: Network, start: Iterable[str], found: set[str]) -> set[str]:
    """``found`` grown by every node reached from ``start`` along positive links."""
    return _positive_closure(network.out_links, lambda link: link.dst, start, found)


def _positive_ancestry(network: Network, start: Iterable[str], found: set[str]) -> set[str]:
    """``found`` grown by every node with a positive link-chain into ``start``."""
    return _positive_closure(network.in_links, lambda link: link.src, start, found)


def _positive_closure(
    links_of: Callable[[str], Sequence[Link]],
    far_end: Callable[[Link], str],
    start: Iterable[str],
    found: set[str],
) -> set[str]:
    stack = list(start)
    while stack:
        for link in links_of(stack.pop()):
            if link.positive and far_end(link) not in found:
                found.add(far_end(link))
                stack.append(far_end(link))
    return found


class _Routes:
    """:func:`on_path` for one section's updates, with its two node sets (the subject's positive
    reach; the property's in-neighbours and their positive ancestry) kept from update to update:
    an added link can only grow them, from its own ends, so they are extended rather than walked
    again (a tenth of labelling a long conversation); a removed link makes them walked again.
    Tested against :func:`on_path` in tests/defeasible/test_generate.py."""

    def __init__(self, subject: str, prop: str) -> None:
        self.subject, self.prop = subject, prop
        self.network: Network | None = None
        self.forward: set[str] = set()
        self.backward: set[str] = set()

    def advance(
        self, before: Network, network: Network, added: Sequence[Link], removed: Sequence[Link]
    ) -> None:
        """Follow the conversation from ``before`` to ``network`` (``added``/``removed``: the
        links between them)."""
        if self.network is not before or removed:
            self.network = None
            return
        for link in added:
            if link.positive and link.src in self.forward and link.dst not in self.forward:
                self.forward.add(link.dst)
                _positive_reach(network, (link.dst,), self.forward)
            joins = link.dst == self.prop or (link.positive and link.dst in self.backward)
            if joins and link.src not in self.backward:
                self.backward.add(link.src)
                _positive_ancestry(network, (link.src,), self.backward)
        self.network = network

    def on_path(self, network: Network, link: Link) -> bool:
        if self.network is not network:
            self.forward = _positive_reach(network, (self.subject,), {self.subject})
            sources = {into.src for into in network.in_links(self.prop)}
            self.backward = _positive_ancestry(network, sources, set(sources))
            self.network = network
        if link.src not in self.forward:
            return False
        return link.dst == self.prop or link.dst in self.backward


@dataclass
class _Replay:
    """Labelling state between sections (what a section's labels depend on)."""

    premises: Premises
    structure: StructureGraph
    network: Network
    events: list[Labelled]

    def copy(self) -> _Replay:
        return _Replay(self.premises.copy(), self.structure.copy(), self.network, list(self.events))


class _Answers:
    """One section's answer (:func:`resolve`) after each update, resolved again only when the
    update can change it; most updates of a long conversation (irrelevant attributes, other
    objects' facts, claims off the chain) cannot. An update's changed links cannot change the
    answer, nor the node set that shows it, when either

    * none points into a node the answer reads (:func:`relevant_nodes`; that set is then also
      unchanged), or
    * none starts at a node the subject reaches (:func:`reachable_nodes`; likewise unchanged).

    Each set is kept from call to call, grown from the ends of the links added (links can only
    add to either set) and walked again after a link is removed. When it must resolve again,
    the subject's resolution is kept from the last time (:class:`SubjectResolution`): only the
    nodes the added links reach are evaluated again."""

    def __init__(self, subject: str, prop: str) -> None:
        self.subject, self.prop = subject, prop
        self.gold: str | None = None
        self.relevant: set[str] | None = None
        self.reachable: set[str] | None = None
        # the resolution kept from the last resolve, and the changes since
        self.resolution: SubjectResolution | None = None
        self.added: list[Link] = []
        self.removed = False

    def after(self, network: Network, added: Sequence[Link], removed: Sequence[Link]) -> str:
        """The answer on ``network``, which differs from the previous call's by ``added`` and
        ``removed`` (the first call's by anything)."""
        self.added.extend(added)
        if removed:
            self.removed = True
            self.reachable = self.relevant = None
        elif added:  # the kept sets can only grow, from the added links' ends
            if self.reachable is not None:
                self.reachable = _grown(network.out_map(), self.reachable, added, True)
            if self.relevant is not None:
                self.relevant = _grown(network.in_map(), self.relevant, added, False)
        if self.gold is not None:
            if not added and not removed:
                return self.gold
            changed = (*added, *removed)
            if self.reachable is None:
                self.reachable = reachable_nodes(network, self.subject)
            if not any(link.src in self.reachable for link in changed):
                return self.gold
            if self.relevant is None:
                self.relevant = relevant_nodes(network, self.prop)
            if not any(link.dst in self.relevant for link in changed):
                return self.gold
        if self.resolution is None:
            self.resolution = SubjectResolution(network, self.subject)
        else:
            self.resolution.update(network, self.added, self.removed)
        self.added, self.removed = [], False
        self.gold, self.reachable = self.resolution.answer(self.prop), self.resolution.reach
        return self.gold


def _grown(
    links_of: Mapping[str, Sequence[Link]], found: set[str], added: Sequence[Link], forward: bool
) -> set[str]:
    """``found`` (a node set closed under following links forward, or backward) after ``added``
    joined the network: each added link that leaves it (forward: from a node in it to one out of
    it; backward: into it from a node out of it) brings in its far end and everything that end
    leads to (or comes from). A new set when it grows: the old one may be shared."""
    grown: set[str] | None = None
    for link in added:
        near, far = (link.src, link.dst) if forward else (link.dst, link.src)
        current = found if grown is None else grown
        if near in current and far not in current:
            if grown is None:
                grown = set(found)
            grown.add(far)
            stack = [far]
            while stack:
                for other in links_of.get(stack.pop(), ()):
                    end = other.dst if forward else other.src
                    if end not in grown:
                        grown.add(end)
                        stack.append(end)
    return found if grown is None else grown


def _label_section(state: _Replay, section: Section) -> None:
    answers = _Answers(section.hypothesis.subject, section.hypothesis.prop)
    before = state.network
    state.premises.add_all(section.pretext)
    state.network = state.premises.network
    gold = answers.after(state.network, (), ())
    state.events.append(Labelled(section.index, None, None, gold, *_delta(before, state.network)))
    _label_updates(state, section, section.updates, answers)


def _label_updates(
    state: _Replay, section: Section, updates: Sequence[Update], answers: _Answers
) -> None:
    """Label ``updates``, the rest of ``section`` after what ``state`` holds (``answers``: the
    section's answers kept so far, or new ones)."""
    routes = _Routes(section.hypothesis.subject, section.hypothesis.prop)
    gold = state.events[-1].gold
    for update in updates:
        before = state.network
        state.premises.add(update.statement)
        state.network = state.premises.network
        state.events.append(
            _label_update(
                section, update, gold, before, state.network, state.structure, answers, routes
            )
        )
        _add_structure(state.structure, update)
        gold = state.events[-1].gold


def _add_structure(structure: StructureGraph, update: Update) -> None:
    """A revealed "kind of" link joins the structure (after its own distance was measured)."""
    if isinstance(update.statement, KindOf):
        structure.add(update.statement.child, update.statement.parent)


def _relabel_section(
    state: _Replay, section: Section, labelled: Sequence[Labelled], same: int
) -> None:
    """:func:`_label_section` of ``section`` into ``state``, given ``labelled``, the events of a
    section with the same pretext and first ``same`` updates labelled from the same state: those
    events are kept (the premises and structure only take their statements), and labelling
    starts at the first update that differs."""
    kept = section.updates[:same]
    state.premises.add_all((*section.pretext, *(update.statement for update in kept)))
    for update in kept:
        _add_structure(state.structure, update)
    state.network = state.premises.network
    state.events.extend(labelled[: same + 1])
    answers = _Answers(section.hypothesis.subject, section.hypothesis.prop)
    _label_updates(state, section, section.updates[same:], answers)


def _replay(plan: Plan, state: _Replay) -> tuple[list[Labelled], Network]:
    for section in plan.sections:
        _label_section(state, section)
    return state.events, state.network


def _fresh_state(plan: Plan) -> _Replay:
    premises = Premises()
    return _Replay(premises, StructureGraph(plan.structure), premises.network, [])


def label_plan(plan: Plan) -> tuple[list[Labelled], Network]:
    """Replay the plan through :class:`Premises` and label every event with :func:`resolve`;
    also return the final network."""
    return _replay(plan, _fresh_state(plan))


def _constant(events: Sequence[Labelled]) -> str | None:
    """The gold of a section's events if it never changes, else None."""
    golds = {event.gold for event in events}
    return golds.pop() if len(golds) == 1 else None


def _constant_gold(premises: Premises, section: Section) -> str | None:
    """Add the section's statements to ``premises``; the section's gold if it never changes,
    else None (the same answer as labelling it, without the events: once the gold has changed,
    the rest of the section is only added)."""
    answers = _Answers(section.hypothesis.subject, section.hypothesis.prop)
    premises.add_all(section.pretext)
    network = premises.network
    gold: str | None = answers.after(network, (), ())
    for update in section.updates:
        before = network
        premises.add(update.statement)
        if gold is None:
            continue
        network = premises.network
        added, removed = _delta(before, network)
        if answers.after(network, added, removed) != gold:
            gold = None
    return gold


def ensure_revisions(
    plan: Plan, rng: random.Random, cap: int | None = None
) -> tuple[list[Labelled], Network]:
    """Label the plan; give each section whose gold never changes (in the plan as planned) one
    update that revises it (the plan's decider; replacing an update or inserting one at a random
    place), and label the revised sections and everything after them. A conversation of sections
    that never revise tests nothing about belief revision.

    One pass: sections are decided in order, each on its gold in the plan as planned. Up to the
    first revised section that is also the labelling (that section's events before its revised
    update are kept); from there on the planned conversation is only followed far enough to tell
    whether each section's gold is constant (:func:`_constant_gold`), beside the labelling of the
    revised one."""
    state = _fresh_state(plan)
    if plan.decider is None:
        return _replay(plan, state)
    planned: Premises | None = None  # the conversation as planned, once a section was revised
    for number, section in enumerate(list(plan.sections)):
        if planned is None:
            before = state.copy()
            start = len(state.events)
            _label_section(state, section)
            gold = _constant(state.events[start:])
        else:
            gold = _constant_gold(planned, section)
        found = None if gold is None else plan.decider(section, gold)
        revised = section
        if found is not None:
            old, new = found
            updates = list(section.updates)
            same = len(updates)  # updates before the first that differs
            if old is not None:
                same = updates.index(old)
                updates[same] = new
            elif cap is None or len(updates) < cap:
                same = rng.randint(0, len(updates))
                updates.insert(same, new)
            revised = replace(section, updates=tuple(updates))
            plan.sections[number] = revised
            if planned is None:  # labelled as planned: keep the events up to the revision
                labelled = state.events[start:]
                planned, state = state.premises, before
                _relabel_section(state, revised, labelled, same)
            else:
                _label_section(state, revised)
        elif planned is not None:
            _label_section(state, revised)
    return state.events, state.network


def _label_update(
    section: Section,
    update: Update,
    gold_before: str,
    before: Network,
    network: Network,
    structure: StructureGraph,
    answers: _Answers,
    routes: _Routes,
) -> Labelled:
    subject, prop = section.hypothesis.subject, section.hypothesis.prop
    node = updated_node(update.statement, subject)
    asserted = statement_link(update.statement)
    added, removed = _delta(before, network)
    routes.advance(before, network, added, removed)
    relevant = asserted is not None and routes.on_path(network, asserted)
    measured = node is not None and update.update_type != "distractor"
    return Labelled(
        section=section.index,
        update=update,
        gold_before=gold_before,
        gold=answers.after(network, added, removed),
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


def _delta(before: Network, after: Network) -> tuple[tuple[Link, ...], tuple[Link, ...]]:
    """(links added, links removed) from ``before`` to ``after``, each sorted."""
    if after is before:
        return (), ()
    added = after.grown_from(before)
    if added is not None:  # the usual case: a plain statement added its link
        return (added,), ()
    was, now = before.link_set, after.link_set
    return (
        tuple(sorted(now - was)),
        tuple(sorted(was - now)),
    )
