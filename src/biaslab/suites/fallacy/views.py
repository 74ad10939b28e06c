"""Monadic views: the suite's own small form of the PyETR views it generates, renders and reads.

A view of the Erotetic Theory of Reasoning (Koralus 2022; PyETR, Koralus, Moss & Todd 2025) is a
disjunction of states (each a conjunction of atoms) under an optional supposition, with a prefix of
arbitrary objects (universal or existential) and an *issue structure* (the atoms marked ``*``). This
suite uses the monadic fragment the paper uses: unary predicates over constants and variables, one
state of supposition. :class:`MView` holds such a view as frozensets, so equal views are equal
values whatever order they were built in, and writes it in PyETR's string syntax with every state
and atom sorted, so the text never depends on set iteration order (or ``PYTHONHASHSEED``).

Quantifier structure is kept as PyETR keeps it: universals, existentials and the set of
(existential, universal) dependencies; an existential depends on the universals before it in the
prefix. :func:`prefix` recovers one canonical prefix from that. :meth:`MView.canonical` renames the
variables to x, y, z, … choosing, among all renamings, the one whose text sorts first, so two views
equal up to the names of their arbitrary objects get the same canonical text.

Nothing here imports PyETR (see :mod:`biaslab.suites.fallacy.etr` for the bridge).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal as TypingLiteral

Quantifier = TypingLiteral["forall", "exists"]
#: canonical variable names, in order (lower case: PyETR reserves the letters A and E)
VARIABLE_NAMES = ("x", "y", "z", "w", "v", "u")
_MAX_ORDERS = 5040  # renamings tried per view when canonicalising


@dataclass(frozen=True, order=True)
class Term:
    """A constant (PyETR: a 0-ary function, written ``c1()``) or a variable (``x``)."""

    name: str
    variable: bool = False

    def pyetr(self, issue: bool = False) -> str:
        star = "*" if issue else ""
        return f"{self.name}{star}" if self.variable else f"{self.name}(){star}"


@dataclass(frozen=True, order=True)
class Literal:
    """``P(t)`` or its negation ``~P(t)``. In PyETR a negated atom is an atom of its own."""

    predicate: str
    term: Term
    positive: bool = True

    def negated(self) -> Literal:
        return replace(self, positive=not self.positive)

    def with_term(self, term: Term) -> Literal:
        return replace(self, term=term)

    def sort_key(self) -> tuple[str, str, bool]:
        return (self.predicate, self.term.name, not self.positive)

    @property
    def atom_key(self) -> tuple[str, str]:
        """(predicate, term name): the atom without its polarity."""
        return (self.predicate, self.term.name)

    def pyetr(self, issue: bool = False) -> str:
        tilde = "" if self.positive else "~"
        return f"{tilde}{self.predicate}({self.term.pyetr(issue)})"


State = frozenset[Literal]
VERUM_STATE: State = frozenset()


def sorted_state(state: Iterable[Literal]) -> tuple[Literal, ...]:
    return tuple(sorted(set(state), key=Literal.sort_key))


def _state_key(state: Iterable[Literal]) -> tuple[tuple[str, str, bool], ...]:
    return tuple(lit.sort_key() for lit in sorted_state(state))


@dataclass(frozen=True)
class MView:
    """One monadic view: stage (a set of states), a one-state supposition (empty = none), the
    arbitrary objects with their dependencies, and the literals at issue."""

    stage: frozenset[State]
    supposition: State = VERUM_STATE
    universals: frozenset[str] = frozenset()
    existentials: frozenset[str] = frozenset()
    dependencies: frozenset[tuple[str, str]] = frozenset()  # (existential, universal)
    issues: frozenset[Literal] = field(default=frozenset())

    def __post_init__(self) -> None:
        bound = self.universals | self.existentials
        if self.universals & self.existentials:
            raise ValueError("a variable cannot be both universal and existential")
        used = {lit.term.name for lit in self.literals() if lit.term.variable}
        if used != bound:
            raise ValueError(f"bound variables {sorted(bound)} differ from used {sorted(used)}")
        for e, u in self.dependencies:
            if e not in self.existentials or u not in self.universals:
                raise ValueError(f"bad dependency ({e}, {u})")
        if not self.issues <= self.literals():
            raise ValueError("issues must be literals of the view")

    # ------------------------------------------------------------------ construction

    @classmethod
    def build(
        cls,
        stage: Iterable[Iterable[Literal]],
        supposition: Iterable[Literal] = (),
        prefix: Sequence[tuple[Quantifier, str]] = (),
        issues: Iterable[Literal] = (),
    ) -> MView:
        """From states and a quantifier prefix (an existential depends on the universals before
        it). Issues outside the view's literals are dropped."""
        universals: list[str] = []
        existentials: set[str] = set()
        dependencies: set[tuple[str, str]] = set()
        for kind, name in prefix:
            if kind == "forall":
                universals.append(name)
            else:
                existentials.add(name)
                dependencies.update((name, u) for u in universals)
        view_stage = frozenset(frozenset(s) for s in stage)
        supp = frozenset(supposition)
        literals = frozenset(lit for s in view_stage for lit in s) | supp
        return cls(
            stage=view_stage,
            supposition=supp,
            universals=frozenset(universals),
            existentials=frozenset(existentials),
            dependencies=frozenset(dependencies),
            issues=frozenset(issues) & literals,
        )

    # ------------------------------------------------------------------ queries

    def literals(self) -> frozenset[Literal]:
        return frozenset(lit for state in self.stage for lit in state) | self.supposition

    @property
    def n_atoms(self) -> int:
        """PyETR's ``len(view.atoms)``: distinct atoms of stage and supposition (a negated atom
        counts as an atom of its own)."""
        return len(self.literals())

    def predicates(self) -> frozenset[str]:
        return frozenset(lit.predicate for lit in self.literals())

    def constants(self) -> frozenset[str]:
        return frozenset(lit.term.name for lit in self.literals() if not lit.term.variable)

    def variables(self) -> frozenset[str]:
        return self.universals | self.existentials

    @property
    def quantified(self) -> bool:
        return bool(self.variables())

    @property
    def is_verum(self) -> bool:
        return self.stage == frozenset({VERUM_STATE}) and not self.supposition

    @property
    def is_falsum(self) -> bool:
        return not self.stage and not self.supposition

    @property
    def categorical(self) -> bool:
        """One non-empty state and no supposition: a conclusion without alternatives."""
        return len(self.stage) == 1 and not self.supposition and not self.is_verum

    def sorted_stage(self) -> list[tuple[Literal, ...]]:
        return sorted((sorted_state(s) for s in self.stage), key=_state_key)

    def without_issues(self) -> MView:
        return replace(self, issues=frozenset())

    def with_issues(self, issues: Iterable[Literal]) -> MView:
        return replace(self, issues=frozenset(issues) & self.literals())

    # ------------------------------------------------------------------ text

    def to_pyetr(self) -> str:
        """PyETR view-string syntax, sorted: ``∀x ∃y {P1(x*)P2(c1()),~P3(y)}^{P1(x*)}``."""
        quantifiers = " ".join(
            ("∀" if kind == "forall" else "∃") + name for kind, name in prefix(self)
        )
        states = ",".join(self._state_text(s) for s in self.sorted_stage())
        text = "{" + (states if self.stage != frozenset({VERUM_STATE}) else "0") + "}"
        if not self.stage:
            text = "{}"
        if self.supposition:
            text += "^{" + self._state_text(sorted_state(self.supposition)) + "}"
        return f"{quantifiers} {text}" if quantifiers else text

    def _state_text(self, state: Sequence[Literal]) -> str:
        return "".join(lit.pyetr(lit in self.issues) for lit in state) or "0"

    def __str__(self) -> str:
        return self.to_pyetr()

    # ------------------------------------------------------------------ renaming

    def rename(self, mapping: Mapping[str, str]) -> MView:
        """Rename variables (names not in ``mapping`` stay)."""

        def term(t: Term) -> Term:
            return Term(mapping.get(t.name, t.name), True) if t.variable else t

        def lit(x: Literal) -> Literal:
            return x.with_term(term(x.term))

        return MView(
            stage=frozenset(frozenset(lit(x) for x in s) for s in self.stage),
            supposition=frozenset(lit(x) for x in self.supposition),
            universals=frozenset(mapping.get(u, u) for u in self.universals),
            existentials=frozenset(mapping.get(e, e) for e in self.existentials),
            dependencies=frozenset(
                (mapping.get(e, e), mapping.get(u, u)) for e, u in self.dependencies
            ),
            issues=frozenset(lit(x) for x in self.issues),
        )

    def canonical(self) -> MView:
        """The same view with variables named x, y, z, … so that equal-up-to-renaming views get
        equal text: variables are ordered by how they occur (quantifier, dependencies, the
        literals around them); among the orders that leaves open, the renaming whose text sorts
        first wins (tried exhaustively up to a few thousand orders)."""
        names = sorted(self.variables())
        if not names:
            return self
        targets = [*VARIABLE_NAMES, *(f"x{i}" for i in range(len(names)))][: len(names)]
        # rename to temporary names first so that no target collides with a current name
        temporary = self.rename({n: f"_{i}" for i, n in enumerate(names)})
        groups = _tie_groups(temporary)
        best: MView | None = None
        best_text = ""
        for order in _orders(groups):
            candidate = temporary.rename(dict(zip(order, targets, strict=True)))
            text = candidate.to_pyetr()
            if best is None or text < best_text:
                best, best_text = candidate, text
        assert best is not None
        return best

    def equivalent_up_to_renaming(self, other: MView) -> bool:
        return self.canonical().to_pyetr() == other.canonical().to_pyetr()


def _signature(view: MView, name: str) -> tuple[object, ...]:
    """What a variable looks like without its name: its quantifier and dependencies, and every
    literal around each of its occurrences (itself as '#', other variables as '?')."""

    def pattern(lit: Literal) -> tuple[str, str, bool, bool]:
        mark = "#" if lit.term.name == name else ("?" if lit.term.variable else lit.term.name)
        return (lit.predicate, mark, lit.positive, lit in view.issues)

    contexts = sorted(
        (state is view.supposition, tuple(sorted(pattern(lit) for lit in state)))
        for state in [*view.stage, view.supposition]
        if any(lit.term.name == name for lit in state)
    )
    kind = "forall" if name in view.universals else "exists"
    depends = sum(1 for e, u in view.dependencies if name in (e, u))
    return (kind, depends, tuple(contexts))


def _tie_groups(view: MView) -> list[list[str]]:
    """Variables grouped by signature, groups in signature order."""
    by_signature: dict[tuple[object, ...], list[str]] = {}
    for name in sorted(view.variables()):
        by_signature.setdefault(_signature(view, name), []).append(name)
    return [by_signature[key] for key in sorted(by_signature, key=repr)]


def _orders(groups: list[list[str]]) -> Iterable[tuple[str, ...]]:
    """Every order of the variables that keeps the groups in sequence (or, when that is too
    many, just the groups' own order)."""
    count = 1
    for group in groups:
        count *= math.factorial(len(group))
    if count > _MAX_ORDERS:
        yield tuple(name for group in groups for name in group)
        return
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield tuple(name for part in parts for name in part)


def prefix(view: MView) -> list[tuple[Quantifier, str]]:
    """The view's quantifier prefix (see :func:`prefix_order`)."""
    return prefix_order(view.universals, view.existentials, view.dependencies)


def prefix_order(
    universals: Iterable[str], existentials: Iterable[str], dependencies: Iterable[tuple[str, str]]
) -> list[tuple[Quantifier, str]]:
    """A quantifier prefix with the given dependencies ((existential, universal) pairs): an
    existential comes after exactly the universals it depends on. Ties are broken by name
    (existentials first), so the prefix is canonical."""
    unis, exis, deps = set(universals), set(existentials), set(dependencies)
    constraints: dict[str, set[str]] = {v: set() for v in unis | exis}  # v -> must precede v
    for e in exis:
        for u in unis:
            if (e, u) in deps:
                constraints[e].add(u)
            else:
                constraints[u].add(e)
    kind: dict[str, Quantifier] = {u: "forall" for u in unis}
    kind.update({e: "exists" for e in exis})
    order: list[tuple[Quantifier, str]] = []
    placed: set[str] = set()
    while len(placed) < len(constraints):
        ready = [v for v in constraints if v not in placed and constraints[v] <= placed]
        if not ready:
            raise ValueError("dependencies are not a valid prefix (Matryoshka condition fails)")
        chosen = min(ready, key=lambda v: (kind[v] == "forall", v))
        order.append((kind[chosen], chosen))
        placed.add(chosen)
    return order


# --------------------------------------------------------------------------------------------------
# PyETR string syntax (the fragment): a small reader, so stored views load without pyparsing
# --------------------------------------------------------------------------------------------------

_QUANT = re.compile(r"\s*([∀∃AE])\s*([a-z][a-z0-9_]*)")
_ATOM = re.compile(r"(~?)([A-Za-z_][A-Za-z0-9_]*)\(\s*([A-Za-z_][A-Za-z0-9_]*)(\(\))?(\*?)\s*\)")


def parse_pyetr(text: str) -> MView:
    """Read a monadic view written in PyETR's string syntax (unary predicates over constants and
    variables, one state of supposition). Raises ``ValueError`` on anything outside the fragment."""
    rest = text.strip()
    quantifiers: list[tuple[Quantifier, str]] = []
    while rest and rest[0] != "{":
        match = _QUANT.match(rest)
        if not match:
            raise ValueError(f"bad quantifier prefix in {text!r}")
        kind: Quantifier = "forall" if match.group(1) in "∀A" else "exists"
        quantifiers.append((kind, match.group(2)))
        rest = rest[match.end() :].lstrip()
    stage_text, _, supp_text = rest.partition("^")
    bound = {name for _, name in quantifiers}
    issues: set[Literal] = set()
    stage = _parse_states(stage_text, bound, issues, text)
    supposition: frozenset[Literal] = frozenset()
    if supp_text:
        supp_states = _parse_states(supp_text, bound, issues, text)
        if len(supp_states) != 1:
            raise ValueError(f"only a one-state supposition is supported: {text!r}")
        (supposition,) = supp_states
    if len(set(bound)) != len(quantifiers):
        raise ValueError(f"a variable is quantified twice in {text!r}")
    return MView.build(stage, supposition, quantifiers, issues)


def _parse_states(
    part: str, bound: set[str], issues: set[Literal], text: str
) -> list[frozenset[Literal]]:
    part = part.strip()
    if not (part.startswith("{") and part.endswith("}")):
        raise ValueError(f"expected {{...}} in {text!r}")
    body = part[1:-1].strip()
    if not body:
        return []
    states: list[frozenset[Literal]] = []
    for chunk in _split_states(body):
        chunk = chunk.strip()
        if chunk == "0":
            states.append(VERUM_STATE)
            continue
        literals: set[Literal] = set()
        pos = 0
        for match in _ATOM.finditer(chunk):
            if chunk[pos : match.start()].strip():
                raise ValueError(f"unexpected {chunk[pos : match.start()]!r} in {text!r}")
            pos = match.end()
            tilde, predicate, name, parens, star = match.groups()
            if parens is None and name not in bound:
                raise ValueError(f"variable {name!r} is not quantified in {text!r}")
            literal = Literal(predicate, Term(name, parens is None), not tilde)
            literals.add(literal)
            if star:
                issues.add(literal)
        if chunk[pos:].strip() or not literals:
            raise ValueError(f"cannot read state {chunk!r} in {text!r}")
        states.append(frozenset(literals))
    return states


def _split_states(body: str) -> list[str]:
    """Split on commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(body):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return parts


# --------------------------------------------------------------------------------------------------
# problems
# --------------------------------------------------------------------------------------------------


def total_atoms(views: Iterable[MView]) -> int:
    """The paper's problem size: the atoms of every premise, summed."""
    return sum(v.n_atoms for v in views)


def shared_issues(views: Sequence[MView]) -> list[MView]:
    """Mark at issue exactly the literals whose predicate also occurs in another premise.

    The paper's English carries no issue marks, so a reader (human, model or reference agent)
    cannot recover marks drawn at random. This rule is recoverable from the text and matches the
    textbook cases PyETR ships (Examples 47, 49, 51, 52: the predicate a premise shares with
    another is the one at issue), so rendering and reading a problem back gives the same views.
    """
    result = []
    for i, view in enumerate(views):
        others = set().union(*(v.predicates() for j, v in enumerate(views) if j != i))
        result.append(view.with_issues(lit for lit in view.literals() if lit.predicate in others))
    return result


def restore_issues(view: MView, sources: Iterable[MView]) -> MView:
    """``view`` with a literal marked at issue wherever the same atom (either polarity) is marked
    in one of ``sources`` (premises or ETR's conclusion): how the robust ETR label reads an answer
    that, being English, carries no marks."""
    marked: set[tuple[str, str, bool]] = set()
    for source in sources:
        marked.update((lit.predicate, lit.term.name, lit.term.variable) for lit in source.issues)
    shared_predicates = {p for p, _, variable in marked if variable}
    keep = []
    for lit in view.literals():
        key = (lit.predicate, lit.term.name, lit.term.variable)
        if key in marked or (lit.term.variable and lit.predicate in shared_predicates):
            keep.append(lit)
    return view.with_issues(keep)
