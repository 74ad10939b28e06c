"""Inheritance networks: signed links between nodes, and their hand-writable JSON form.

A positive link ``x -> y`` reads "x is a y" / "x's are generally y"; a negative link ``x -/-> y`` reads
"x's are generally not y". A link may be marked strict (it then admits no exceptions). The JSON form
users write by hand is::

    {"edges": [{"from": "tweety", "to": "penguin", "sign": "+"},
               {"from": "penguin", "to": "flies", "sign": "-", "strict": false}],
     "query": {"subject": "tweety", "property": "flies"}}

Networks are immutable and canonical: links are kept sorted, so nothing downstream can depend on the
order in which edges were written.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from biaslab.errors import BiaslabError

_EDGE_KEYS = {"from", "to", "sign", "strict"}
_TOP_KEYS = {"edges", "query"}
_QUERY_KEYS = {"subject", "property"}


class NetworkError(BiaslabError):
    """A malformed network (bad JSON shape, unknown key, cycle, self-loop)."""


class Link(NamedTuple):
    """One signed link ``src -> dst`` (positive) or ``src -/-> dst`` (negative).

    A named tuple rather than a frozen dataclass: equally immutable and ordered field by field,
    but hashed and compared in C, and the generator hashes links millions of times."""

    src: str
    dst: str
    positive: bool = True
    strict: bool = False

    @property
    def sign(self) -> str:
        return "+" if self.positive else "-"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"from": self.src, "to": self.dst, "sign": self.sign}
        if self.strict:
            data["strict"] = True
        return data

    def __str__(self) -> str:
        arrow = "->" if self.positive else "-/->"
        return f"{self.src} {'=' if self.strict else ''}{arrow} {self.dst}"


@dataclass(frozen=True)
class Query:
    """Does ``subject`` have ``property``?"""

    subject: str
    property: str


@dataclass(frozen=True)
class Network:
    """An acyclic set of signed links. Construct with :func:`make_network` to validate."""

    links: tuple[Link, ...]
    _out: Mapping[str, tuple[Link, ...]] = field(repr=False, compare=False, hash=False)
    _in: Mapping[str, tuple[Link, ...]] = field(repr=False, compare=False, hash=False)
    #: (the links of the network this one was grown from by :meth:`plus`, the link it added)
    _grown_from: tuple[tuple[Link, ...], Link] | None = field(
        default=None, repr=False, compare=False, hash=False
    )

    @property
    def nodes(self) -> tuple[str, ...]:
        found = {link.src for link in self.links} | {link.dst for link in self.links}
        return tuple(sorted(found))

    def out_links(self, node: str) -> tuple[Link, ...]:
        return self._out.get(node, ())

    def in_links(self, node: str) -> tuple[Link, ...]:
        return self._in.get(node, ())

    def out_map(self) -> Mapping[str, tuple[Link, ...]]:
        """node -> its outgoing links (:meth:`out_links` for every node; for graph walks)."""
        return self._out

    def in_map(self) -> Mapping[str, tuple[Link, ...]]:
        """node -> its incoming links (:meth:`in_links` for every node; for graph walks)."""
        return self._in

    @cached_property
    def link_set(self) -> frozenset[Link]:
        """The links as a set (built once per network)."""
        return frozenset(self.links)

    def plus(self, link: Link) -> Network:
        """This network and one more link it does not hold yet, canonical as
        :func:`make_network` would order it, without validation (the caller knows the link keeps
        the network acyclic) and without sorting everything again: the generator adds one link
        per revealed statement."""
        links = self.links
        at = bisect_right(links, link)  # where insort would put it
        out, inn = dict(self._out), dict(self._in)
        for index, node in ((out, link.src), (inn, link.dst)):
            row = index.get(node, ())
            place = bisect_right(row, link)
            index[node] = (*row[:place], link, *row[place:])
        return Network(
            links=(*links[:at], link, *links[at:]), _out=out, _in=inn, _grown_from=(links, link)
        )

    def grown_from(self, other: Network) -> Link | None:
        """The one link :meth:`plus` added to ``other`` to make this network, else None."""
        grown = self._grown_from
        return grown[1] if grown is not None and grown[0] is other.links else None

    def has_link(self, src: str, dst: str, positive: bool) -> bool:
        return any(link.dst == dst and link.positive == positive for link in self.out_links(src))

    def with_links(self, extra: Iterable[Link]) -> Network:
        return make_network((*self.links, *extra))

    def to_dict(self, query: Query | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"edges": [link.to_dict() for link in self.links]}
        if query is not None:
            data["query"] = {"subject": query.subject, "property": query.property}
        return data


def make_network(links: Iterable[Link]) -> Network:
    """Validate and canonicalise links: no self-loops, no cycles; duplicates collapse."""
    unique = tuple(sorted(set(links)))
    for link in unique:
        if not link.src or not link.dst:
            raise NetworkError("every edge needs a non-empty 'from' and 'to'")
        if link.src == link.dst:
            raise NetworkError(f"edge {link} is a self-loop")
    out: dict[str, list[Link]] = {}
    inn: dict[str, list[Link]] = {}
    for link in unique:
        out.setdefault(link.src, []).append(link)
        inn.setdefault(link.dst, []).append(link)
    network = Network(
        links=unique,
        _out={k: tuple(v) for k, v in out.items()},
        _in={k: tuple(v) for k, v in inn.items()},
    )
    cycle = find_cycle(network)
    if cycle:
        raise NetworkError("the network has a cycle: " + " -> ".join(cycle))
    return network


def find_cycle(network: Network) -> list[str]:
    """Return one cycle as a node list (first node repeated at the end), or [] if acyclic."""
    colour: dict[str, int] = {}  # 0/absent = new, 1 = on stack, 2 = done
    for start in network.nodes:
        if colour.get(start):
            continue
        stack: list[tuple[str, int]] = [(start, 0)]
        path: list[str] = []
        while stack:
            node, next_index = stack.pop()
            if next_index == 0:
                colour[node] = 1
                path.append(node)
            successors = network.out_links(node)
            if next_index < len(successors):
                stack.append((node, next_index + 1))
                child = successors[next_index].dst
                if colour.get(child) == 1:
                    return [*path[path.index(child) :], child]
                if not colour.get(child):
                    stack.append((child, 0))
            else:
                colour[node] = 2
                path.pop()
    return []


def network_from_dict(data: object) -> tuple[Network, Query | None]:
    """Parse the JSON form; every problem is one readable NetworkError."""
    if not isinstance(data, dict):
        raise NetworkError("a network must be a JSON object with an 'edges' list")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise NetworkError(f"unknown key(s) in network: {', '.join(unknown)}")
    edges = data.get("edges")
    if not isinstance(edges, list):
        raise NetworkError("'edges' must be a list of {from, to, sign} objects")
    links = [_link_from_dict(number, edge) for number, edge in enumerate(edges)]
    query = _query_from_dict(data["query"]) if "query" in data else None
    return make_network(links), query


def _link_from_dict(number: int, edge: object) -> Link:
    where = f"edges[{number}]"
    if not isinstance(edge, dict):
        raise NetworkError(f"{where} must be an object with 'from', 'to' and 'sign'")
    unknown = sorted(set(edge) - _EDGE_KEYS)
    if unknown:
        raise NetworkError(f"{where}: unknown key(s): {', '.join(unknown)}")
    missing = [key for key in ("from", "to", "sign") if key not in edge]
    if missing:
        raise NetworkError(f"{where}: missing key(s): {', '.join(missing)}")
    src, dst, sign = edge["from"], edge["to"], edge["sign"]
    if not isinstance(src, str) or not isinstance(dst, str) or not src or not dst:
        raise NetworkError(f"{where}: 'from' and 'to' must be non-empty strings")
    if sign not in ("+", "-"):
        raise NetworkError(f'{where}: \'sign\' must be "+" or "-", got {sign!r}')
    strict = edge.get("strict", False)
    if not isinstance(strict, bool):
        raise NetworkError(f"{where}: 'strict' must be true or false")
    return Link(src=src, dst=dst, positive=sign == "+", strict=strict)


def _query_from_dict(query: object) -> Query:
    if not isinstance(query, dict):
        raise NetworkError("'query' must be an object with 'subject' and 'property'")
    unknown = sorted(set(query) - _QUERY_KEYS)
    if unknown:
        raise NetworkError(f"unknown key(s) in query: {', '.join(unknown)}")
    subject, prop = query.get("subject"), query.get("property")
    if not isinstance(subject, str) or not isinstance(prop, str) or not subject or not prop:
        raise NetworkError("'query' needs non-empty string 'subject' and 'property'")
    return Query(subject=subject, property=prop)


def load_network(path: Path) -> tuple[Network, Query | None]:
    """Read a network JSON file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise NetworkError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise NetworkError(f"cannot read {path}: not UTF-8 text (byte {exc.start})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NetworkError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from exc
    return network_from_dict(data)
