"""A brute-force reference for skeptical inheritance, written straight from the paper's definitions.

Horty, Thomason & Touretzky (1990), "A skeptical theory of inheritance in nonmonotonic semantic
networks", AIJ 42. This module is deliberately naive and shares no code with
``biaslab.suites.defeasible.resolver`` (only the ``Network`` type): it enumerates every path from
the subject, computes each path's degree as the length of the longest generalized path (links of
either sign) from its start to its end node by enumerating generalized paths, and then decides
support path by path in order of increasing degree, applying the inductive definition literally.
Every support fact the definition consults must already be decided (it has a smaller degree); a
lookup of an undecided path raises, which checks the induction is well founded.

The two extensions the resolver documents (strict links; contradictory direct links) are restated
literally here too. Exponential in the worst case; meant for networks of a handful of nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

from biaslab.suites.defeasible.network import Network

# (src, dst, positive) -> strict (True if any copy of the link is strict)
LinkTable = dict[tuple[str, str, bool], bool]


@dataclass(frozen=True)
class RefPath:
    """A path: nodes x, …, u, y; every link positive except possibly the last."""

    nodes: tuple[str, ...]
    positive: bool

    @property
    def end(self) -> str:
        return self.nodes[-1]


def _link_table(network: Network) -> LinkTable:
    table: LinkTable = {}
    for link in network.links:
        key = (link.src, link.dst, link.positive)
        table[key] = table.get(key, False) or link.strict
    return table


def _all_paths(table: LinkTable, subject: str) -> list[RefPath]:
    """Every path (positive or negative) starting at subject, of length >= 1."""
    out: dict[str, list[tuple[str, bool]]] = {}
    for src, dst, positive in table:
        out.setdefault(src, []).append((dst, positive))
    paths: list[RefPath] = []

    def extend(prefix: tuple[str, ...]) -> None:
        for dst, positive in out.get(prefix[-1], []):
            nodes = (*prefix, dst)
            paths.append(RefPath(nodes, positive))
            if positive:
                extend(nodes)

    extend((subject,))
    return paths


def _degrees(table: LinkTable, subject: str) -> dict[str, int]:
    """Length of the longest generalized path (links of any sign) from subject to each node."""
    out: dict[str, list[str]] = {}
    for src, dst, _ in table:
        out.setdefault(src, []).append(dst)
    degree: dict[str, int] = {}

    def walk(node: str, length: int) -> None:
        for dst in out.get(node, []):
            if degree.get(dst, 0) < length + 1:
                degree[dst] = length + 1
            walk(dst, length + 1)

    walk(subject, 0)
    return degree


class _Support:
    """Γ |~ σ, decided by induction on degree."""

    def __init__(self, network: Network, subject: str) -> None:
        self.subject = subject
        self.table = _link_table(network)
        self.paths = _all_paths(self.table, subject)
        self.degree = _degrees(self.table, subject)
        self.decided: dict[RefPath, bool] = {}
        self.current_degree = 0
        for path in sorted(self.paths, key=lambda p: self.degree[p.end]):
            self.current_degree = self.degree[path.end]
            self.decided[path] = self._decide(path)

    def supports(self, path: RefPath) -> bool:
        """Look up an earlier decision; the induction only ever asks about smaller degrees."""
        if self.degree[path.end] >= self.current_degree or path not in self.decided:
            raise AssertionError(f"support of {path} consulted before it was decided")
        return self.decided[path]

    def _positive_paths_to(self, node: str) -> list[RefPath]:
        return [p for p in self.paths if p.positive and p.end == node]

    def _constructible(self, path: RefPath) -> bool:
        if len(path.nodes) == 2:
            return True  # a direct link is its own (trivially supported) prefix
        return self.supports(RefPath(path.nodes[:-1], True))

    def _strict(self, path: RefPath) -> bool:
        return self.table[(path.nodes[-2], path.nodes[-1], path.positive)]

    def _decide(self, sigma: RefPath) -> bool:
        x, y, sign = self.subject, sigma.end, sigma.positive
        # Extension (strict links): a conflicting constructible path with a strict last link.
        strict_conflict = any(
            tau.end == y and tau.positive != sign and self._strict(tau) and self._constructible(tau)
            for tau in self.paths
        )
        if strict_conflict or not self._constructible(sigma):
            return False
        if self._strict(sigma):
            return True  # a strict path is not defeated by defeasible ones
        if (x, y, not sign) in self.table:
            # clause 1 for direct links (extension: contradictory direct links support neither),
            # clause (c) for compound paths.
            return False
        if len(sigma.nodes) == 2:
            return True  # clause 1: direct links are supported
        # clause (d): every supported x -> … -> v with v (opposite) y must be preempted by some
        # z (same sign) y with z = x or Γ |~ x -> … -> z -> … -> v.
        for tau in self.paths:
            v = tau.end
            if not tau.positive or (v, y, not sign) not in self.table or not self.supports(tau):
                continue
            preempted = False
            for z_src, z_dst, z_sign in self.table:
                if z_dst != y or z_sign != sign:
                    continue
                if z_src == x or any(
                    z_src in rho.nodes[1:-1] and self.supports(rho)
                    for rho in self._positive_paths_to(v)
                ):
                    preempted = True
                    break
            if not preempted:
                return False
        return True

    def answer(self, prop: str) -> str:
        yes = any(p.end == prop and p.positive and self.decided[p] for p in self.paths)
        no = any(p.end == prop and not p.positive and self.decided[p] for p in self.paths)
        assert not (yes and no), f"both {self.subject} -> {prop} and its negation are supported"
        return "yes" if yes else "no" if no else "unknown"


def reference_supported(network: Network, subject: str) -> dict[tuple[tuple[str, ...], bool], bool]:
    """Every path from subject (as (nodes, positive)) mapped to whether Γ supports it."""
    support = _Support(network, subject)
    return {(p.nodes, p.positive): ok for p, ok in support.decided.items()}


def reference_conclusions(network: Network, subject: str) -> dict[str, str]:
    """The skeptical answer for every node of the network (unknown where no path is supported)."""
    support = _Support(network, subject)
    nodes = {n for link in network.links for n in (link.src, link.dst)}
    return {node: support.answer(node) for node in sorted(nodes) if node != subject}


def reference_resolve(network: Network, subject: str, prop: str) -> str:
    """The skeptical answer for one query."""
    if subject == prop:
        return "unknown"
    return _Support(network, subject).answer(prop)
