"""What a conversation says, abstractly, and how its accumulated premises compile into one network.

The generator plans conversations as :class:`Section` s of :class:`Update` s over *statements*; the
renderer turns statements into sentences and :func:`biaslab.suites.defeasible.render.parse_premises`
turns sentences back into statements. Both sides then call the same :class:`Premises` to get the
network the resolver labels, so "the text means this network" is decided in exactly one place.

Compilation rules (each statement -> links):

* ``Fact(x, P, +)`` "x P" -> ``x -> P``; ``Fact(x, P, -)`` "x does not P" -> ``x -/-> P``.
* ``ExceptionFact(x, rule)`` "x is an exception to the rule that A's generally (do not) B" ->
  the opposite of the rule's sign from x to B: ``x -/-> B`` for a positive rule, ``x -> B`` for a
  negative one. Nothing is said about A.
* ``Implication(A, B, ±)`` "Objects that A generally (do not) B" and ``ClassProperty(C, B, ±)``
  "A C generally (does not) B" -> ``A -> B`` / ``A -/-> B`` (a defeasible generic).
* ``KindOf(C, D)`` "A C is a kind of D" -> ``C -> D``.
* ``Claim(s, content)`` "According to s, <content>": the content's link, *subject to source
  priority*: a claim enters the network unless a claim of the opposite sign about the same pair of
  nodes comes from a strictly more reliable source. So of two conflicting claims only the more
  reliable source's enters; when neither source is more reliable (stated equal, or no order can be
  derived) both enter and the resolver withholds the conclusion ("unknown"). A later, more reliable
  claim therefore *removes* a link an earlier claim had put in. Claims only compete with claims:
  unattributed statements are premises, and the generator never makes a claim about a pair an
  unattributed statement already settles.
* ``Reliability(a, b)`` "a is more reliable than b" and ``EqualReliability(a, b)``: the priority
  order is the transitive closure of the stated relations (equal sources share a rank), so pairs the
  text only connects through other sources are still ordered.

Every link ever asserted (including claims later outranked) is checked for self-loops and cycles
as it arrives, so the compiled network is always a valid acyclic network.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from biaslab.suites.defeasible.network import Link, Network, NetworkError, Query


@dataclass(frozen=True)
class Fact:
    """An individual (or class, in a hypothesis) has or lacks a property."""

    entity: str
    prop: str
    positive: bool = True


@dataclass(frozen=True)
class Implication:
    """A default rule between properties: things that are ``src`` are generally (not) ``dst``."""

    src: str
    dst: str
    positive: bool = True


@dataclass(frozen=True)
class ClassProperty:
    """A class generally has (or lacks) a property."""

    cls: str
    prop: str
    positive: bool = True


@dataclass(frozen=True)
class KindOf:
    """Taxonomy: ``child`` is a kind of ``parent`` (``also``: worded "is also a kind of")."""

    child: str
    parent: str
    also: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class ExceptionFact:
    """An individual is an exception to a stated rule (so it has the opposite of the rule's dst)."""

    entity: str
    rule: Implication


@dataclass(frozen=True)
class Claim:
    """A named source reports a fact or a rule; it enters the network subject to source priority."""

    source: str
    content: Fact | Implication


@dataclass(frozen=True)
class Reliability:
    """``more`` is more reliable than ``less`` (``worded_less``: "less is less reliable than more")."""

    more: str
    less: str
    worded_less: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class EqualReliability:
    """Two sources are equally reliable (neither overrides the other)."""

    first: str
    second: str


@dataclass(frozen=True)
class Hypothesis:
    """The question of a section: does ``subject`` have ``prop``?"""

    subject: str
    prop: str

    @property
    def query(self) -> Query:
        return Query(subject=self.subject, property=self.prop)


Statement = (
    Fact
    | Implication
    | ClassProperty
    | KindOf
    | ExceptionFact
    | Claim
    | Reliability
    | EqualReliability
)


#: the order used to compare answers: an update that raises the answer strengthens the hypothesis
ANSWER_RANK = {"no": 0, "unknown": 1, "yes": 2}


def effect_of(before: str, after: str) -> str:
    """The effect of an update, defined once for every topology: the change in the resolver's
    answer with yes > unknown > no (up: "strengthening", down: "weakening", same: "no effect")."""
    if ANSWER_RANK[after] > ANSWER_RANK[before]:
        return "strengthening"
    if ANSWER_RANK[after] < ANSWER_RANK[before]:
        return "weakening"
    return "no effect"


def statement_link(statement: Statement) -> Link | None:
    """The link a statement asserts (before source priority), None for reliability statements."""
    link_of = _LINK_OF.get(type(statement))
    return link_of(statement) if link_of is not None else _matched_link(statement)


#: :func:`statement_link` of each statement kind, by exact type: labelling asks it of every
#: statement several times, and :func:`_matched_link` tries the class patterns one by one
_LINK_OF: dict[type, Callable[[Any], Link | None]] = {
    Fact: lambda s: Link(s.entity, s.prop, s.positive),
    Implication: lambda s: Link(s.src, s.dst, s.positive),
    ClassProperty: lambda s: Link(s.cls, s.prop, s.positive),
    KindOf: lambda s: Link(s.child, s.parent, True),
    ExceptionFact: lambda s: Link(s.entity, s.rule.dst, not s.rule.positive),
    Claim: lambda s: statement_link(s.content),
    Reliability: lambda s: None,
    EqualReliability: lambda s: None,
}


def _matched_link(statement: Statement) -> Link | None:
    """:func:`statement_link` by class patterns (also for subclasses of the statement kinds)."""
    match statement:
        case Fact(entity, prop, positive):
            return Link(entity, prop, positive)
        case Implication(src, dst, positive):
            return Link(src, dst, positive)
        case ClassProperty(cls, prop, positive):
            return Link(cls, prop, positive)
        case KindOf(child, parent, _):
            return Link(child, parent, True)
        case ExceptionFact(entity, rule):
            return Link(entity, rule.dst, not rule.positive)
        case Claim(_, content):
            return _matched_link(content)
    return None


def polarity(statement: Statement) -> str | None:
    """ "+" or "-": the sign of the link a statement reveals (None for reliability statements)."""
    link = statement_link(statement)
    if link is None:
        return None
    return "+" if link.positive else "-"


@dataclass
class SourceOrder:
    """The stated reliability relation, closed under transitivity (equal sources share a rank)."""

    _parent: dict[str, str] = field(default_factory=dict)
    _above: list[tuple[str, str]] = field(default_factory=list)
    _closure: dict[str, set[str]] | None = None

    def add(self, statement: Reliability | EqualReliability) -> None:
        self._closure = None
        if isinstance(statement, Reliability):
            self._above.append((statement.more, statement.less))
        else:
            self._parent[self._rank(statement.first)] = self._rank(statement.second)

    def copy(self) -> SourceOrder:
        # the closure is replaced, never changed in place, so the copy may share it
        return SourceOrder(dict(self._parent), list(self._above), self._closure)

    def _rank(self, source: str) -> str:
        while self._parent.get(source, source) != source:
            source = self._parent[source]
        return source

    def _below(self) -> dict[str, set[str]]:
        if self._closure is None:
            direct: dict[str, set[str]] = {}
            for more, less in self._above:
                direct.setdefault(self._rank(more), set()).add(self._rank(less))
            closure: dict[str, set[str]] = {}
            for rank in direct:
                seen: set[str] = set()
                stack = list(direct[rank])
                while stack:
                    node = stack.pop()
                    if node not in seen:
                        seen.add(node)
                        stack.extend(direct.get(node, ()))
                closure[rank] = seen
            self._closure = closure
        return self._closure

    def more_reliable(self, first: str, second: str) -> bool:
        """Strictly more reliable (a contradictory, cyclic statement set orders nobody)."""
        a, b = self._rank(first), self._rank(second)
        below = self._below()
        return b in below.get(a, set()) and a not in below.get(b, set())


def compile_claims(claims: Iterable[Claim], order: SourceOrder) -> list[Link]:
    """The claim links that survive source priority (see the module docstring)."""
    by_link: dict[Link, list[str]] = {}
    for claim in claims:
        link = statement_link(claim)
        assert link is not None
        by_link.setdefault(link, []).append(claim.source)
    kept: list[Link] = []
    for link, sources in by_link.items():
        rivals = by_link.get(Link(link.src, link.dst, not link.positive))
        if not rivals or any(
            not any(order.more_reliable(rival, source) for rival in rivals) for source in sources
        ):
            kept.append(link)
    return kept


def link_key(link: Link) -> tuple[str, str, bool, bool]:
    """Sort key equal to :class:`Link`'s own ordering (a link is itself that tuple)."""
    return (link.src, link.dst, link.positive, link.strict)


def build_network(links: Iterable[Link]) -> Network:
    """The canonical network of already-validated links: what ``make_network`` returns, built
    without its comparisons and full cycle search (:class:`Premises` rejects cycles as links
    arrive). The generator rebuilds a network after every update, so this is its hot path."""
    unique = tuple(sorted(set(links)))
    out: dict[str, list[Link]] = {}
    inn: dict[str, list[Link]] = {}
    for link in unique:
        out.setdefault(link.src, []).append(link)
        inn.setdefault(link.dst, []).append(link)
    return Network(
        links=unique,
        _out={k: tuple(v) for k, v in out.items()},
        _in={k: tuple(v) for k, v in inn.items()},
    )


class Premises:
    """Everything said so far; :attr:`network` is what it means (see the module docstring)."""

    def __init__(self, statements: Iterable[Statement] = ()) -> None:
        self._given: dict[Link, None] = {}
        self._claims: list[Claim] = []
        self._claimed: dict[Link, list[str]] = {}  # link -> the sources claiming it, in order
        self.order = SourceOrder()
        self._network: Network | None = None
        self._successors: dict[str, set[str]] = {}  # every link ever asserted, for cycle checks
        self._targets: set[str] = set()  # nodes some asserted link points to
        for statement in statements:
            self.add(statement)

    def copy(self) -> Premises:
        """An independent copy (statements are immutable, so only the containers are copied)."""
        copied = Premises()
        copied._given = dict(self._given)
        copied._claims = list(self._claims)
        copied._claimed = {link: list(sources) for link, sources in self._claimed.items()}
        copied.order = self.order.copy()
        copied._network = self._network
        copied._successors = {node: set(after) for node, after in self._successors.items()}
        copied._targets = set(self._targets)
        return copied

    def add(self, statement: Statement) -> None:
        """Add one statement; a self-loop or a cycle is a :class:`NetworkError`."""
        if isinstance(statement, Reliability | EqualReliability):
            self._network = None
            self.order.add(statement)
            return
        link = statement_link(statement)
        assert link is not None
        self._check_acyclic(link)
        if isinstance(statement, Claim):
            self._claims.append(statement)
            self._claimed.setdefault(link, []).append(statement.source)
            if self._network is not None:
                self._network = self._after_claim(self._network, link)
        elif link not in self._given:
            self._given[link] = None
            # a plain statement adds its link to what the claims left: the network grows by it
            network = self._network
            if network is not None and link not in network.out_links(link.src):
                self._network = network.plus(link)

    def add_all(self, statements: Sequence[Statement]) -> None:
        """:meth:`add` each statement; the network is then built once rather than grown by one
        link per statement (a conversation's opening states most of its premises at once)."""
        if len(statements) > 1:
            self._network = None
        for statement in statements:
            self.add(statement)

    def _after_claim(self, network: Network, link: Link) -> Network | None:
        """``network`` after a claim of ``link`` (None: to be built again). Only the claimed
        pair's two links can change (no other link's claims or rivals did): a further source can
        only let ``link`` in (see :func:`compile_claims`) and only push its opposite out."""
        held = network.out_links(link.src)
        opposite = Link(link.src, link.dst, not link.positive)
        if opposite in held and opposite not in self._given and not self._claim_kept(opposite):
            return None  # a link leaves: built again, as a removal is rare
        if link not in held and self._claim_kept(link):
            return network.plus(link)
        return network

    def _claim_kept(self, link: Link) -> bool:
        """Whether :func:`compile_claims` keeps ``link`` (claimed, and by some source no rival
        source is more reliable than)."""
        sources = self._claimed.get(link)
        if not sources:
            return False
        rivals = self._claimed.get(Link(link.src, link.dst, not link.positive))
        return not rivals or any(
            not any(self.order.more_reliable(rival, source) for rival in rivals)
            for source in sources
        )

    def _check_acyclic(self, link: Link) -> None:
        if link.src == link.dst:
            raise NetworkError(f"edge {link} is a self-loop")
        successors = self._successors
        if link.dst in successors.get(link.src, ()):
            return
        if link.src in self._targets:  # else nothing leads back to the source: no cycle
            seen = {link.dst}
            stack = [link.dst]
            while stack:
                node = stack.pop()
                if node == link.src:
                    raise NetworkError(f"the network has a cycle through {link.src} and {link.dst}")
                for nxt in successors.get(node, ()):
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append(nxt)
        successors.setdefault(link.src, set()).add(link.dst)
        self._targets.add(link.dst)

    def links(self) -> set[Link]:
        return set(self._given) | set(compile_claims(self._claims, self.order))

    @property
    def network(self) -> Network:
        if self._network is None:
            self._network = build_network(self.links())
        return self._network


@dataclass(frozen=True)
class Update:
    """One revealed statement and why it was planned (analysis metadata)."""

    statement: Statement
    update_type: str
    serial: int | None = None


@dataclass(frozen=True)
class Section:
    """One hypothesis: statements revealed at its opening, then the updates in reveal order."""

    index: int
    hypothesis: Hypothesis
    pretext: tuple[Statement, ...]
    updates: tuple[Update, ...]
    kind: str = "plain"
    reveal: str = "random"


__all__ = [
    "ANSWER_RANK",
    "Claim",
    "ClassProperty",
    "EqualReliability",
    "ExceptionFact",
    "Fact",
    "Hypothesis",
    "Implication",
    "KindOf",
    "Premises",
    "Reliability",
    "Section",
    "SourceOrder",
    "Statement",
    "Update",
    "build_network",
    "compile_claims",
    "effect_of",
    "link_key",
    "polarity",
    "statement_link",
]
