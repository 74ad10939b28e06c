"""Skeptical inheritance (Horty, Thomason & Touretzky 1990): the ground truth for defeasible items.

The gold label of a query "does ``x`` have ``y``?" is decided by the skeptical theory of inheritance of
J. F. Horty, R. H. Thomason and D. S. Touretzky, "A skeptical theory of inheritance in nonmonotonic
semantic networks", Artificial Intelligence 42 (1990) 311-348 ("HTT" below). The original DeReLab
("PMPM") resolver is node-based and differs from HTT (denying the antecedent, polarity-blind
preemption); this module follows the paper's definitions, which are restated here so that every label
can be checked by hand.

Definitions implemented (HTT's names)
-------------------------------------
*Network* Γ: a finite acyclic set of links ``u -> y`` (positive) and ``u -/-> y`` (negative).

*Path*: a positive path ``x -> ... -> y`` is a chain of positive links; a negative path
``x -> ... -> u -/-> y`` is a chain of positive links followed by exactly one negative link. Nothing
extends past a negative link, so "x is not B; B's are generally C" yields no path from x to C.

*Generalized path* and *degree*: a generalized path is any chain of links of either sign; the degree
of a path from x to y is the length of the longest generalized path from x to y. Support is defined by
induction on degree; every path the definition consults ends at a node with a link into y, hence has a
smaller degree, so the induction is the same as a recursion over the nodes in topological order.

*Constructible*: ``σ = π(x…u) -> y`` (resp. ``-/->``) is constructible iff Γ supports the positive
path π from x to u (or u = x) and the link ``u -> y`` (resp. ``u -/-> y``) is in Γ.

*Conflict*: two constructible paths from x to y of opposite polarity conflict.

*Support*, Γ |~ σ (HTT's inductive definition, three clauses):

1. a direct link (``x -> y`` or ``x -/-> y``, u = x) is supported;
2. a compound positive path ``x -> τ -> u -> y`` is supported iff (a) Γ |~ ``x -> τ -> u``,
   (b) ``u -> y`` ∈ Γ, (c) ``x -/-> y`` ∉ Γ, and (d) for every v such that Γ |~ ``x -> … -> v`` and
   ``v -/-> y`` ∈ Γ there is a z with ``z -> y`` ∈ Γ and either z = x or Γ |~ ``x -> … -> z -> … -> v``;
3. a compound negative path: the mirror image of 2 (swap the signs of the links into y).

Clause (d) is HTT's *off-path preemption*: every conflicting path ``x -> … -> v -/-> y`` must itself
be preempted by a link ``z -> y`` whose source is more specific than v, i.e. z = x or z lies on some
supported path from x to v (on σ or not: hence "off-path"; Clyde the royal elephant needs this). The
paper quantifies over the conflicting paths rather than asking whether σ's own last link is
overridden, so a compound path whose link ``u -> y`` is overridden by a more specific ``v -/-> y`` is
still supported when an even more specific ``z -> y`` overrides v. The answer for y is the same
either way, but such a path makes u a supported subclass of y for later specificity checks (see
``test_paper_quantifies_over_conflicting_paths_not_over_the_own_link``).

*Skepticism*: where conflicts stay unpreempted, no path to y is supported, so no path is extended
through y and nothing is inherited via y (ambiguity propagates as ``unknown``). HTT's theory is
ambiguity *blocking*: an unopposed path that would only have competed with a path through y is
supported (extended Nixon diamond: pacifist unknown, yet a footballfan -/-> antimilitary path wins).

Answer for (x, y): ``yes`` iff Γ supports some positive path from x to y, ``no`` iff some negative
path, else ``unknown``. The definition makes both impossible (two conflicting supported paths would
need an infinite descending chain of ever more specific preemptors); we assert it anyway.

Decisions beyond the paper (the test reference in tests/defeasible implements the same ones)
-------------------------------------------------------------------------------------------------
*Strict links* (HTT have none). A strict link cannot be defeated:

- a constructible path whose last link is strict is supported unless a conflicting constructible path
  with a strict last link exists (strict against strict: neither is supported, so ``unknown``);
- a path whose last link is defeasible is not supported if a conflicting constructible path with a
  strict last link exists, even when it is a direct link from the subject; otherwise clauses 1-3 apply.

A strict link is otherwise an ordinary link: it extends paths and can act as the preempting z of (d).
If the same pair carries a strict and a defeasible link of the same sign, it counts as strict.

*Contradictory direct links*: clause 1 assumes Γ never holds both ``x -> y`` and ``x -/-> y``. If it
does (and neither is strict, or both are), neither direct link is supported, so the answer is
``unknown`` and clause (c) blocks every compound path to y. This keeps "yes and no are never both
supported" true for every input.

*Direct links* from the subject are never preempted by defeasible paths (clauses 1 and (c)): a
direct ``x -> y`` beats any inherited ``… -/-> y``.

*Unknown nodes and trivial queries*: a subject or property that is not in the network, or a property
the subject has no path to, gives ``unknown``; so does ``resolve(net, x, x)`` (there is no path from
a node to itself in an acyclic network).
"""

from __future__ import annotations

import copy
import heapq
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal

from biaslab.suites.defeasible.network import Link, Network

Answer = Literal["yes", "no", "unknown"]

#: paths of each kind ``explain`` lists at most by default
DEFAULT_MAX_PATHS = 50

__all__ = [
    "Answer",
    "DefeatedPath",
    "Explanation",
    "Path",
    "PathStream",
    "explain",
    "explain_stream",
    "reachable_nodes",
    "relevant_nodes",
    "resolve",
    "resolve_with_reach",
    "supported_conclusions",
]


@dataclass(frozen=True)
class Path:
    """A path x -> … -> u (-/)-> y: its nodes and the sign of its last link."""

    nodes: tuple[str, ...]
    positive: bool

    @property
    def start(self) -> str:
        return self.nodes[0]

    @property
    def end(self) -> str:
        return self.nodes[-1]

    @property
    def last_link(self) -> tuple[str, str]:
        return self.nodes[-2], self.nodes[-1]

    def __str__(self) -> str:
        text = " -> ".join(self.nodes[:-1])
        return f"{text} {'->' if self.positive else '-/->'} {self.nodes[-1]}"

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": list(self.nodes), "sign": "+" if self.positive else "-", "text": str(self)}


@dataclass(frozen=True)
class DefeatedPath(Path):
    """A constructible path that Γ does not support, and why (for explanations and debugging)."""

    reason: str

    @property
    def path(self) -> Path:
        return Path(self.nodes, self.positive)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "reason": self.reason}


@dataclass(frozen=True)
class Explanation:
    """Why a query got its answer: the supported paths to the property and the defeated ones."""

    answer: Answer
    supporting: tuple[Path, ...]
    defeated: tuple[DefeatedPath, ...]
    #: paths of each kind left out by ``explain``'s bound (a DAG can hold exponentially many)
    omitted_supporting: int = 0
    omitted_defeated: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "supporting": [path.to_dict() for path in self.supporting],
            "defeated": [path.to_dict() for path in self.defeated],
            "omitted_supporting": self.omitted_supporting,
            "omitted_defeated": self.omitted_defeated,
        }


# --------------------------------------------------------------------------------------------------
# The fast resolver: one pass over the nodes in topological order.
#
# Because clauses (c) and (d), and the strict-link rule, only look at the links into y and at
# node-level facts about y's predecessors, whether a constructible path is supported depends only on
# its last link (and on whether that link leaves the subject). So the supported paths are exactly the
# chains of "admissible" links from the subject, and "Γ supports x -> … -> z -> … -> v" reduces to
# "z is an ancestor of v in the graph of admissible positive links", which we keep as a bitset per
# node. The brute-force reference in tests/defeasible checks this reduction against the literal
# definition on random networks.
# --------------------------------------------------------------------------------------------------


@dataclass
class _Incoming:
    """The constructible links into one node, by source, each with its strictness."""

    pos: dict[str, bool]
    neg: dict[str, bool]


@dataclass
class _Rules:
    """Which kinds of link into one node are admissible for one sign (see the module docstring)."""

    strict_ok: bool  # a strict link: no conflicting constructible strict path
    direct_ok: bool  # a defeasible direct link: no strict conflict and no opposite direct link
    compound_ok: bool  # a defeasible compound path: the above plus clause (d)

    def admits(self, source: str, strict: bool, subject: str) -> bool:
        if strict:
            return self.strict_ok
        return self.direct_ok if source == subject else self.compound_ok


class _State:
    """Supported paths from one subject, summarised per node."""

    def __init__(self, network: Network, subject: str) -> None:
        self.network = network
        self.into = network.in_map()
        self.subject = subject
        # ancestors[v] (only for the subject and nodes with a supported positive path): bitset of the
        # nodes strictly before v on some supported path (the subject included).
        self.ancestors: dict[str, int] = {subject: 0}
        self.bit: dict[str, int] = {subject: 1}
        self.next_bit = 2  # bits are never reused: a node visited again gets a fresh one
        self.parents: dict[str, tuple[str, ...]] = {}  # admissible positive sources, for explain
        self.verdict: dict[str, Answer] = {}

    def incoming(self, node: str) -> _Incoming:
        pos: dict[str, bool] = {}
        neg: dict[str, bool] = {}
        ancestors = self.ancestors
        for link in self.network.in_links(node):
            if link.src in ancestors:  # constructible: the source is the subject or supported
                side = pos if link.positive else neg
                side[link.src] = side.get(link.src, False) or link.strict
        return _Incoming(pos, neg)

    def mask(self, sources: Iterable[str]) -> int:
        bits = 0
        for source in sources:
            bits |= self.bit[source]
        return bits

    def rules(self, own: dict[str, bool], other: dict[str, bool]) -> _Rules:
        strict_ok = not any(other.values())
        direct_ok = strict_ok and self.subject not in other
        compound_ok = direct_ok
        if compound_ok and other:
            own_mask = self.mask(own)
            ancestors = self.ancestors
            compound_ok = all(ancestors[v] & own_mask for v in other)
        return _Rules(strict_ok, direct_ok, compound_ok)

    def _admitted(self, own: dict[str, bool], other: dict[str, bool]) -> list[str]:
        """The sources in ``own`` whose link is admissible (:meth:`rules` and
        :meth:`_Rules.admits` in one pass: this runs for every node of every query)."""
        if any(other.values()):  # a conflicting strict link: nothing in own is admissible
            return []
        subject = self.subject
        if subject in other:  # an opposite direct link: no defeasible direct or compound path
            return [source for source, strict in own.items() if strict]
        if other:
            own_mask = self.mask(own)
            ancestors = self.ancestors
            if not all(ancestors[v] & own_mask for v in other):
                return [s for s, strict in own.items() if strict or s == subject]
        return list(own)

    def visit(self, node: str) -> None:
        pos: dict[str, bool] = {}
        neg: dict[str, bool] = {}
        ancestors = self.ancestors
        # links unpacked as the tuples they are (faster than their named fields, in this loop
        # over every incoming link of every node evaluated)
        for source, _, positive, strict in self.into.get(node, ()):
            if source in ancestors:  # constructible: the source is the subject or supported
                side = pos if positive else neg
                side[source] = side.get(source, False) or strict
        if not pos and not neg:
            self.verdict[node] = "unknown"
            return
        supported_pos = self._admitted(pos, neg) if pos else []
        supported_neg = bool(neg) and bool(self._admitted(neg, pos))
        assert not (supported_pos and supported_neg), f"yes and no both supported at {node}"
        if supported_pos:
            bits = 0
            for source in supported_pos:
                bits |= self.ancestors[source] | self.bit[source]
            self.ancestors[node] = bits
            self.bit[node] = self.next_bit
            self.next_bit <<= 1
            self.parents[node] = tuple(supported_pos)
            self.verdict[node] = "yes"
        else:
            self.verdict[node] = "no" if supported_neg else "unknown"


def _topological_order(network: Network, subject: str, keep: set[str] | None) -> list[str]:
    """Nodes reachable from subject by links of either sign (within keep), in topological order:
    the reverse postorder of a depth-first walk that takes each node's links in their order."""
    return _walk(network, subject, keep)[0]


def _walk(network: Network, subject: str, keep: set[str] | None) -> tuple[list[str], set[str]]:
    """(:func:`_topological_order`, the subject and every node it ordered)."""
    order, seen = _depth_first(network, (subject,), keep)
    return order[1:], seen  # drop the subject itself


def _depth_first(
    network: Network, roots: Iterable[str], keep: set[str] | None
) -> tuple[list[str], set[str]]:
    """(the roots and every node they reach within keep, in topological order: the reverse
    postorder of one depth-first walk from each root in turn that takes each node's links in their
    order; that node set)."""
    out = network.out_map()
    empty: tuple[Link, ...] = ()
    seen: set[str] = set()
    postorder: list[str] = []
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(out.get(root, empty)))]
        while stack:
            node, links = stack[-1]
            for _, child, _, _ in links:
                if child not in seen and (keep is None or child in keep):
                    seen.add(child)
                    stack.append((child, iter(out.get(child, empty))))
                    break
            else:
                stack.pop()
                postorder.append(node)
    postorder.reverse()
    return postorder, seen


def _ancestors_of(network: Network, node: str) -> set[str]:
    """The node and every node with a link-chain (either sign) to it."""
    into = network.in_map()
    found = {node}
    stack = [node]
    while stack:
        for link in into.get(stack.pop(), ()):
            if link.src not in found:
                found.add(link.src)
                stack.append(link.src)
    return found


def relevant_nodes(network: Network, property: str) -> set[str]:
    """The nodes whose incoming links :func:`resolve` reads for ``property`` (the property and
    every node with a link-chain to it): a change to links into other nodes cannot change any
    subject's answer, nor this set."""
    return _ancestors_of(network, property)


def reachable_nodes(network: Network, subject: str) -> set[str]:
    """The subject and every node it reaches by links of either sign: :func:`resolve` reads no
    link out of any other node, so changing such links cannot change the subject's answers, nor
    this set."""
    out = network.out_map()
    found = {subject}
    stack = [subject]
    while stack:
        for link in out.get(stack.pop(), ()):
            if link.dst not in found:
                found.add(link.dst)
                stack.append(link.dst)
    return found


def _evaluate(
    network: Network, subject: str, target: str | None, keep: set[str] | None = None
) -> _State:
    if keep is None and target is not None:
        keep = _ancestors_of(network, target)
    state = _State(network, subject)
    for node in _topological_order(network, subject, keep):
        state.visit(node)
    return state


def _has_node(network: Network, node: str) -> bool:
    return bool(network.out_links(node) or network.in_links(node))


def supported_conclusions(network: Network, subject: str) -> dict[str, Answer]:
    """Answer for every node reachable from subject (by links of either sign); others are unknown."""
    if not _has_node(network, subject):
        return {}
    return dict(_evaluate(network, subject, None).verdict)


def resolve(network: Network, subject: str, property: str) -> Answer:
    """Skeptical answer to "does subject have property?" (only the relevant part of Γ is visited)."""
    if subject == property or not _has_node(network, subject):
        return "unknown"
    if not network.in_links(property):
        return "unknown"
    return _evaluate(network, subject, property).verdict.get(property, "unknown")


def resolve_with_reach(network: Network, subject: str, property: str) -> tuple[Answer, set[str]]:
    """:func:`resolve` and :func:`reachable_nodes` at once. The answer is found by evaluating
    every node the subject reaches, not only those with a link-chain to the property: nodes
    outside that set are never upstream of it, so the answer is the same, and for one subject's
    questions the reachable part is small while the property's ancestry can be the whole
    network."""
    if not _has_node(network, subject):
        return "unknown", {subject}
    order, reach = _walk(network, subject, None)
    state = _State(network, subject)
    for node in order:
        state.visit(node)
    answer: Answer = "unknown" if subject == property else state.verdict.get(property, "unknown")
    return answer, reach


class SubjectResolution:
    """:func:`resolve_with_reach` for one subject over a conversation whose network grows: after
    links are added, only the nodes downstream of an added link the subject reaches are
    evaluated again (in topological order); every other node's incoming links, and so its
    answer, are unchanged. A removed link evaluates everything again. Tested against
    :func:`resolve_with_reach` on random sequences of additions and removals."""

    def __init__(self, network: Network, subject: str) -> None:
        self.subject = subject
        self._evaluate_all(network)

    def _evaluate_all(self, network: Network) -> None:
        self.network = network
        self.state = _State(network, self.subject)
        if _has_node(network, self.subject):
            order, self.reach = _walk(network, self.subject, None)
            for node in order:
                self.state.visit(node)
        else:
            self.reach = {self.subject}

    def update(self, network: Network, added: Iterable[Link], removed: bool) -> None:
        """Follow the network from :attr:`network` to ``network``: ``added``, every link added
        between the two; ``removed``, whether any was removed."""
        if removed or not _has_node(self.network, self.subject):
            self._evaluate_all(network)
            return
        self.network = network
        # an added link the subject reaches starts a walk; a link that only a later one makes
        # reachable is on that one's walk (and so is everything else new in the reach)
        roots = [link.dst for link in added if link.src in self.reach]
        state = self.state
        state.network, state.into = network, network.in_map()
        order, seen = _depth_first(network, roots, None)
        for node in order:
            for table in (state.ancestors, state.bit, state.parents, state.verdict):
                table.pop(node, None)
            state.visit(node)
        if not seen <= self.reach:
            self.reach = self.reach | seen  # a new set: callers may hold the old one

    def copy(self) -> SubjectResolution:
        """An independent copy, to follow a different growth of the same network (the tables
        :meth:`update` changes are copied; networks and reach sets are never changed in place)."""
        copied = SubjectResolution.__new__(SubjectResolution)
        copied.subject, copied.network, copied.reach = self.subject, self.network, self.reach
        state = copy.copy(self.state)
        state.ancestors, state.bit = dict(state.ancestors), dict(state.bit)
        state.parents, state.verdict = dict(state.parents), dict(state.verdict)
        copied.state = state
        return copied

    def answer(self, property: str) -> Answer:
        if property == self.subject:
            return "unknown"
        return self.state.verdict.get(property, "unknown")


# --------------------------------------------------------------------------------------------------
# Explanations: enumerate the constructible paths into the property and say which are supported.
# --------------------------------------------------------------------------------------------------


def _path_counts(state: _State, order: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Number of supported positive paths from the subject to each node, and the length of the
    shortest, by one pass in topological order (no enumeration: a DAG can hold exponentially many)."""
    counts, shortest = {state.subject: 1}, {state.subject: 0}
    for node in order:
        parents = [p for p in state.parents.get(node, ()) if p in counts]
        if parents:
            counts[node] = sum(counts[p] for p in parents)
            shortest[node] = 1 + min(shortest[p] for p in parents)
    return counts, shortest


def _shortest_supported_paths(
    state: _State, node: str, shortest: dict[str, int]
) -> Iterator[tuple[str, ...]]:
    """The supported positive paths from the subject to ``node``, shortest first, then by node
    names, one at a time: a best-first walk forward from the subject along admissible links, keyed
    by (length so far + exact distance left, path). The distance left is exact, so a path's key is
    never above its extensions' and the heap pops whole paths in that order; among equals it
    follows the lexicographically first route straight to the end, so the walk touches about
    k x depth x width paths for the first k however many the DAG holds. A run of vertices with one
    way on is taken in one step, so a long chain costs its length, not its length squared."""
    if node not in shortest:
        return
    to_node, children = {node: 0}, defaultdict(list)
    frontier = deque([node])
    while frontier:  # breadth-first back from the node: the distance left from each vertex
        head = frontier.popleft()
        for parent in state.parents.get(head, ()):
            if parent in shortest:
                children[parent].append(head)
                if parent not in to_node:
                    to_node[parent] = to_node[head] + 1
                    frontier.append(parent)

    def forced(path: tuple[str, ...]) -> tuple[str, ...]:
        run = []
        last = path[-1]
        while last != node and len(children[last]) == 1:
            last = children[last][0]
            run.append(last)
        return (*path, *run) if run else path

    start = forced((state.subject,))
    heap: list[tuple[int, tuple[str, ...]]] = [(len(start) - 1 + to_node[start[-1]], start)]
    while heap:
        _, path = heapq.heappop(heap)
        if path[-1] == node:
            yield path
            continue
        for child in children[path[-1]]:
            extended = forced((*path, child))
            heapq.heappush(heap, (len(extended) - 1 + to_node[extended[-1]], extended))


def _find_link(network: Network, src: str, dst: str, positive: bool) -> Link:
    matches = [k for k in network.in_links(dst) if k.src == src and k.positive == positive]
    return max(matches, key=lambda link: link.strict)  # show the strict one if both exist


def _defeat_reason(
    state: _State, node: str, source: str, positive: bool, strict: bool, incoming: _Incoming
) -> str:
    """Why the constructible link source (-/)-> node is not admissible, in HTT's vocabulary."""
    own, other = (incoming.pos, incoming.neg) if positive else (incoming.neg, incoming.pos)
    network, subject = state.network, state.subject
    strict_rivals = sorted(v for v, st in other.items() if st)
    if strict_rivals:
        rival = _find_link(network, strict_rivals[0], node, not positive)
        return f"{'conflicted' if strict else 'overridden'} by strict link {rival}"
    if subject in other:
        return f"contradicted by direct link {_find_link(network, subject, node, not positive)}"
    own_mask = state.mask(own)
    unresolved = sorted(v for v in other if not state.ancestors[v] & own_mask)
    source_ancestors = state.ancestors[source]
    more_specific = [v for v in unresolved if source_ancestors & state.bit[v]]
    if more_specific:
        return f"preempted by {_find_link(network, more_specific[0], node, not positive)}"
    rival = _find_link(network, unresolved[0], node, not positive)
    return f"conflicted by {rival} (neither is more specific)"


@dataclass(frozen=True)
class PathStream:
    """An explanation whose paths are produced on demand, each kind in (length, nodes, sign) order:
    a DAG can hold exponentially many paths, and a long chain one very long path, so a caller that
    prints them (``biaslab resolve --json``) never holds more than one."""

    answer: Answer
    supporting: Iterator[Path]
    defeated: Iterator[DefeatedPath]
    total_supporting: int = 0
    total_defeated: int = 0


def _path_order(path: Path) -> tuple[int, tuple[str, ...], bool]:
    return len(path.nodes), path.nodes, path.positive


def explain_stream(network: Network, subject: str, property: str) -> PathStream:
    """The answer with iterators over the constructible paths to the property, supported or
    defeated (and why), shortest first, and how many of each kind there are."""
    if subject == property or not _has_node(network, subject):
        return PathStream("unknown", iter(()), iter(()))
    order_nodes = _topological_order(network, subject, _ancestors_of(network, property))
    state = _State(network, subject)
    for node in order_nodes:
        state.visit(node)
    answer = state.verdict.get(property, "unknown")
    if property not in state.verdict:
        return PathStream(answer, iter(()), iter(()))
    counts, shortest = _path_counts(state, order_nodes)
    incoming = state.incoming(property)
    supporting: list[Iterator[Path]] = []
    defeated: list[Iterator[DefeatedPath]] = []
    totals = {True: 0, False: 0}  # supporting, defeated
    for positive, sources in ((True, incoming.pos), (False, incoming.neg)):
        own, other = (incoming.pos, incoming.neg) if positive else (incoming.neg, incoming.pos)
        rules = state.rules(own, other)
        for source, strict in sources.items():
            prefixes = _shortest_supported_paths(state, source, shortest)
            admitted = rules.admits(source, strict, subject)
            totals[admitted] += counts.get(source, 0)
            if admitted:
                supporting.append(_completed(prefixes, property, positive))
            else:
                reason = _defeat_reason(state, property, source, positive, strict, incoming)
                defeated.append(_defeated(prefixes, property, positive, reason))
    return PathStream(
        answer=answer,
        supporting=heapq.merge(*supporting, key=_path_order),
        defeated=heapq.merge(*defeated, key=_path_order),
        total_supporting=totals[True],
        total_defeated=totals[False],
    )


def _completed(
    prefixes: Iterator[tuple[str, ...]], property: str, positive: bool
) -> Iterator[Path]:
    for prefix in prefixes:
        yield Path((*prefix, property), positive)


def _defeated(
    prefixes: Iterator[tuple[str, ...]], property: str, positive: bool, reason: str
) -> Iterator[DefeatedPath]:
    for prefix in prefixes:
        yield DefeatedPath((*prefix, property), positive, reason)


def explain(
    network: Network, subject: str, property: str, max_paths: int | None = DEFAULT_MAX_PATHS
) -> Explanation:
    """The answer with the constructible paths to the property, supported or defeated (and why):
    at most ``max_paths`` of each kind, shortest first, with the number left out."""
    stream = explain_stream(network, subject, property)
    kept_supporting = tuple(islice(stream.supporting, max_paths))
    kept_defeated = tuple(islice(stream.defeated, max_paths))
    return Explanation(
        answer=stream.answer,
        supporting=kept_supporting,
        defeated=kept_defeated,
        omitted_supporting=stream.total_supporting - len(kept_supporting),
        omitted_defeated=stream.total_defeated - len(kept_defeated),
    )
