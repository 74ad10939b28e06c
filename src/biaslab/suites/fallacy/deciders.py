"""Two validity deciders that must agree: does a list of PyETR views entail another?

Logical validity is the paper's correctness: ``premises ⊨ conclusion`` iff ``premises ∧
¬conclusion`` is unsatisfiable (first-order logic, non-empty domain, no unique names: a constant
may denote the same object as another constant or a variable's witness). Two deciders, written
independently of each other, answer it; accepted problems need both to answer, and to agree.

**Unbounded z3** (``unbounded``): PyETR's own translation (``View.to_smt``) into one shared pysmt
environment, checked by z3 over an uninterpreted sort. ``to_smt`` writes a bound variable and a
constant of the same name as the same symbol (``∃a {P(a)Q(a())}`` becomes ``∃a (P(a) ∧ Q(a))``), so
every bound variable is first renamed apart. z3 may not terminate on quantified problems over an
unbounded sort, so it runs under a deterministic resource limit (``rlimit``, the same on every
machine) and a wall-clock timeout as a safety net; running out of either is "undecided".

**Finite domain** (``finite``): our own translation of the views into z3 over an enumerated sort of
N objects, which always terminates. Monadic first-order logic without equality has the finite
model property: a model can be shrunk to one object per realised combination of the k unary
predicates (Löwenheim 1915; Behmann 1922), so N = 2^k suffices (constants of one combination may
denote one object, since nothing says they differ). Views with predicates of higher arity (e.g.
the paper's ``Has(Mary(), a)``) are decided when the problem is in the Bernays–Schönfinkel class
(every premise ∃*∀*, the conclusion ∀*∃*): then N = constants + existentials suffices. Anything
else is reported as outside the decidable fragment.

Formulas are built with every conjunction and disjunction in a canonical order and the checks of
one problem share one z3 context (:func:`problem_context`; otherwise each check gets a fresh
one), so a verdict never depends on ``PYTHONHASHSEED`` or on the problems a process checked before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from biaslab.suites.fallacy.views import prefix_order

if TYPE_CHECKING:
    from pyetr import View

#: z3 resource units per check: deterministic, unlike a timeout (checks of our 400-problem set use
#: at most about 2,100, i.e. 0.01% of it)
RLIMIT = 20_000_000
#: wall-clock safety net per check, in milliseconds (never reached in practice; see bench/)
TIMEOUT_MS = 20_000
#: the largest enumerated domain the finite decider builds: 2^8, for the eight properties a theme
#: has (generated problems use at most six; imported ones may use eight)
MAX_DOMAIN = 256

UNBOUNDED = "z3 (unbounded)"
FINITE = "z3 (finite domain)"


class _Shared:
    context: ClassVar[Any] = None
    sorts: ClassVar[dict[int, Any]] = {}


@contextmanager
def problem_context() -> Iterator[None]:
    """Share one z3 context among the checks in the block (creating one costs a few ms), and drop
    it afterwards, so the checks of one problem never depend on another problem's."""
    import z3

    outer = (_Shared.context, _Shared.sorts)
    _Shared.context, _Shared.sorts = z3.Context(), {}
    try:
        yield
    finally:
        _Shared.context, _Shared.sorts = outer


def _context() -> Any:
    import z3

    return _Shared.context if _Shared.context is not None else z3.Context()


def _enumerated_sort(context: Any, size: int) -> Any:
    import z3

    if context is not _Shared.context:
        return z3.EnumSort(f"U{size}", [f"o{i}" for i in range(size)], ctx=context)[0]
    if size not in _Shared.sorts:
        _Shared.sorts[size] = z3.EnumSort(f"U{size}", [f"o{i}" for i in range(size)], ctx=context)[
            0
        ]
    return _Shared.sorts[size]


@dataclass(frozen=True)
class Verdict:
    """One decider's answer: ``entailed`` is None when it could not decide (``detail`` says why)."""

    decider: str
    entailed: bool | None
    detail: str = ""


@dataclass(frozen=True)
class Decision:
    """Both deciders' verdicts on one entailment question."""

    finite: Verdict
    unbounded: Verdict

    @property
    def agree(self) -> bool:
        return self.finite.entailed is not None and self.finite.entailed == self.unbounded.entailed

    @property
    def entailed(self) -> bool | None:
        """The common verdict (None when they disagree or either is undecided)."""
        return self.finite.entailed if self.agree else None

    @property
    def best(self) -> bool | None:
        """The finite decider's verdict when it has one (it decides the whole fragment), else
        the unbounded one's: what an answer is scored by, with agreement recorded beside it."""
        return self.finite.entailed if self.finite.entailed is not None else self.unbounded.entailed


def decide(premises: Sequence[View], conclusion: View, *, unbounded: bool = True) -> Decision:
    """Both deciders on ``premises ⊨ conclusion`` (``unbounded=False`` skips the slow one)."""
    finite_verdict = finite(premises, conclusion)
    if not unbounded:
        return Decision(finite_verdict, Verdict(UNBOUNDED, None, "not run"))
    return Decision(finite_verdict, unbounded_z3(premises, conclusion))


# --------------------------------------------------------------------------------------------------
# unbounded: PyETR's to_smt, renamed apart, z3 on an uninterpreted sort
# --------------------------------------------------------------------------------------------------


def _names(view: View) -> set[str]:
    """Every constant and predicate name of a view."""
    names: set[str] = set()
    for state in [*view.stage, *view.supposition]:
        for atom in state:
            names.add(atom.predicate.name)
            for term in atom.terms:
                names.update(_term_names(term))
    return names


def _term_names(term: Any) -> set[str]:
    f = getattr(term, "f", None)
    if f is None:
        return set()
    names = {f.name}
    for sub in term.t:
        names.update(_term_names(sub))
    return names


def renamed_apart(views: Sequence[View]) -> list[View]:
    """The views with every bound variable renamed to a name no constant, predicate or other
    view's variable has (``_b<view>_<k>``)."""
    from pyetr import ArbitraryObject

    taken = set().union(*(_names(v) for v in views))
    result = []
    for i, view in enumerate(views):
        relation = view.dependency_relation
        variables = sorted(a.name for a in relation.universals | relation.existentials)
        for k, name in enumerate(variables):
            new = f"_b{i}_{k}"
            if new in taken:
                raise ValueError(f"name {new!r} is taken; cannot rename variables apart")
            view = view.replace(ArbitraryObject(name), ArbitraryObject(new))
        result.append(view)
    return result


def _canonical_smt(formula: Any, env: Any) -> Any:
    """The pysmt formula with the operands of every And/Or sorted by their text (PyETR builds
    some of them by iterating a set)."""
    from pysmt.walkers import IdentityDagWalker

    class _Sorted(IdentityDagWalker):
        def walk_and(self, formula: Any, args: Any, **kwargs: Any) -> Any:
            return self.mgr.And(sorted(args, key=lambda a: a.serialize()))

        def walk_or(self, formula: Any, args: Any, **kwargs: Any) -> Any:
            return self.mgr.Or(sorted(args, key=lambda a: a.serialize()))

    return _Sorted(env=env).walk(formula)


def unbounded_z3(premises: Sequence[View], conclusion: View) -> Verdict:
    import z3
    from pysmt.environment import Environment
    from pysmt.solvers.z3 import Z3Converter

    env = Environment()  # one environment for every view of this check
    views = renamed_apart([*premises, conclusion])
    nodes = [view.to_smt(env) for view in views]
    manager = env.formula_manager
    formula = _canonical_smt(manager.And(*nodes[:-1], manager.Not(nodes[-1])), env)
    context = _context()
    solver = z3.Solver(ctx=context)
    solver.set("rlimit", RLIMIT)
    solver.set("timeout", TIMEOUT_MS)
    solver.add(Z3Converter(env, z3_ctx=context).convert(formula))
    return _verdict(UNBOUNDED, solver, "uninterpreted sort")


def _verdict(name: str, solver: Any, detail: str) -> Verdict:
    import z3

    result = solver.check()
    if result == z3.unsat:
        return Verdict(name, True, detail)
    if result == z3.sat:
        return Verdict(name, False, detail)
    return Verdict(name, None, f"unknown ({solver.reason_unknown()})")


# --------------------------------------------------------------------------------------------------
# finite domain: our own translation, z3 over an enumerated sort
# --------------------------------------------------------------------------------------------------


@dataclass
class _Signature:
    predicates: dict[str, int]  # name -> arity
    constants: set[str]


def _signature(views: Sequence[View]) -> _Signature:
    predicates: dict[str, int] = {}
    constants: set[str] = set()
    for view in views:
        for state in [*view.stage, *view.supposition]:
            for atom in state:
                name, arity = atom.predicate.name, atom.predicate.arity
                if name == "==" or predicates.get(name, arity) != arity:
                    raise ValueError(f"predicate {name!r} is not a plain predicate")
                predicates[name] = arity
                for term in atom.terms:
                    f = getattr(term, "f", None)
                    if f is not None:
                        if f.arity != 0:
                            raise ValueError(f"function {f.name!r} has arguments")
                        constants.add(f.name)
    return _Signature(predicates, constants)


def _bernays_schonfinkel(premises: Sequence[View], conclusion: View) -> int | None:
    """The number of existentials of ``premises ∧ ¬conclusion`` in prenex form when it is ∃*∀*
    (every premise ∃*∀*, the conclusion ∀*∃*), else None."""
    existentials = 0
    for view in premises:
        relation = view.dependency_relation
        if relation.dependencies:
            return None
        existentials += len(relation.existentials)
    relation = conclusion.dependency_relation
    if len(relation.dependencies) != len(relation.existentials) * len(relation.universals):
        return None
    return existentials + len(relation.universals)


def domain_bound(premises: Sequence[View], conclusion: View) -> tuple[int | None, str]:
    """Objects a counter-model needs at most (None outside the decidable fragment), and why."""
    signature = _signature([*premises, conclusion])
    return _bound(signature, _bernays_schonfinkel(premises, conclusion))


def _bound(signature: _Signature, existentials: int | None) -> tuple[int | None, str]:
    bounds: list[tuple[int, str]] = []
    if all(arity <= 1 for arity in signature.predicates.values()):
        k = sum(1 for arity in signature.predicates.values() if arity == 1)
        bounds.append((2**k, f"monadic, {k} unary predicates"))
    if existentials is not None:
        bounds.append((max(1, existentials + len(signature.constants)), "Bernays-Schönfinkel"))
    if not bounds:
        return None, "polyadic and not Bernays-Schönfinkel"
    return min(bounds)


def _atom_key(atom: Any) -> tuple[str, bool, tuple[str, ...]]:
    return (atom.predicate.name, atom.predicate.verifier, tuple(str(t) for t in atom.terms))


def _state_key(state: Any) -> list[tuple[str, bool, tuple[str, ...]]]:
    return sorted(_atom_key(atom) for atom in state)


class _Translation:
    """PyETR views -> z3 terms over a finite enumerated sort (one z3 context per check)."""

    def __init__(self, size: int, signature: _Signature) -> None:
        import z3

        self.z3 = z3
        self.context = _context()
        self.sort = _enumerated_sort(self.context, size)
        self.constants = {
            c: z3.Const(f"k{size}_{c}", self.sort) for c in sorted(signature.constants)
        }
        self.predicates: dict[str, Any] = {}
        for name, arity in sorted(signature.predicates.items()):
            if arity == 0:
                self.predicates[name] = z3.Bool(f"p_{name}", ctx=self.context)
            else:
                domain = [self.sort] * arity
                self.predicates[name] = z3.Function(
                    f"p{size}_{name}", *domain, z3.BoolSort(ctx=self.context)
                )

    def view(self, view: View, tag: int) -> Any:
        z3 = self.z3
        relation = view.dependency_relation
        names = {a.name for a in relation.universals | relation.existentials}
        bound = {name: z3.Const(f"v{tag}_{name}", self.sort) for name in sorted(names)}
        stage = self._states(view.stage, bound)
        supposition = self._states(view.supposition, bound)
        body = z3.Implies(supposition, stage)
        deps = {(d.existential.name, d.universal.name) for d in relation.dependencies}
        order = prefix_order(
            [u.name for u in relation.universals], [e.name for e in relation.existentials], deps
        )
        for kind, name in reversed(order):
            quantify = z3.ForAll if kind == "forall" else z3.Exists
            body = quantify([bound[name]], body)
        return body

    def _states(self, states: Any, bound: dict[str, Any]) -> Any:
        z3 = self.z3
        disjuncts = []
        for state in sorted(states, key=_state_key):
            conjuncts = [self._atom(atom, bound) for atom in sorted(state, key=_atom_key)]
            disjuncts.append(z3.And(conjuncts) if conjuncts else z3.BoolVal(True, self.context))
        return z3.Or(disjuncts) if disjuncts else z3.BoolVal(False, self.context)

    def _atom(self, atom: Any, bound: dict[str, Any]) -> Any:
        predicate = self.predicates[atom.predicate.name]
        args = [self._term(t, bound) for t in atom.terms]
        applied = predicate(*args) if args else predicate
        return applied if atom.predicate.verifier else self.z3.Not(applied)

    def _term(self, term: Any, bound: dict[str, Any]) -> Any:
        f = getattr(term, "f", None)
        return bound[term.name] if f is None else self.constants[f.name]


def finite(premises: Sequence[View], conclusion: View) -> Verdict:
    try:
        size, why = domain_bound(premises, conclusion)
    except ValueError as exc:
        return Verdict(FINITE, None, f"outside the fragment: {exc}")
    if size is None:
        return Verdict(FINITE, None, f"outside the decidable fragment: {why}")
    if size > MAX_DOMAIN:
        return Verdict(FINITE, None, f"domain of {size} exceeds {MAX_DOMAIN}")
    translation = _Translation(size, _signature([*premises, conclusion]))
    z3 = translation.z3
    solver = _premise_solver(translation, premises)
    solver.add(z3.Not(translation.view(conclusion, len(premises))))
    return _verdict(FINITE, solver, f"domain of {size} ({why})")


def _premise_solver(translation: _Translation, premises: Sequence[View]) -> Any:
    """A z3 solver over the finite domain, with the resource limits and every premise asserted."""
    solver = translation.z3.Solver(ctx=translation.context)
    solver.set("rlimit", RLIMIT)
    solver.set("timeout", TIMEOUT_MS)
    for i, view in enumerate(premises):
        solver.add(translation.view(view, i))
    return solver


class InconsistentPremises(ValueError):
    """The premises have no model: everything follows from them (a decidable case, not a failure)."""


def entailed_literals(
    premises: Sequence[View], atoms: Sequence[tuple[str, str]]
) -> set[tuple[str, str, bool]]:
    """Which of ``P(c)`` and ``~P(c)`` the premises entail, for each (predicate, constant) pair,
    by the finite-domain decider: one solver, one push/pop per literal (what the oracle answers
    and what the chance level counts as correct)."""
    signature = _signature(premises)
    for predicate, constant in atoms:
        if signature.predicates.get(predicate, 1) != 1:
            raise ValueError(f"predicate {predicate!r} is not unary")
        signature.predicates[predicate] = 1
        signature.constants.add(constant)
    size, why = _bound(signature, _bernays_schonfinkel(premises, _GROUND))
    if size is None or size > MAX_DOMAIN:
        raise ValueError(f"cannot decide literals: {why}")
    translation = _Translation(size, signature)
    z3 = translation.z3
    solver = _premise_solver(translation, premises)
    status = solver.check()
    if status == z3.unsat:
        raise InconsistentPremises("the premises are jointly inconsistent")
    if status != z3.sat:
        raise ValueError("the premises' consistency is undecided")
    entailed: set[tuple[str, str, bool]] = set()
    for predicate, constant in sorted(set(atoms)):
        applied = translation.predicates[predicate](translation.constants[constant])
        for positive in (True, False):
            solver.push()
            solver.add(z3.Not(applied) if positive else applied)
            result = solver.check()
            solver.pop()
            if result == z3.unsat:
                entailed.add((predicate, constant, positive))
            elif result != z3.sat:
                raise ValueError(f"undecided literal {predicate}({constant})")
    return entailed


class _Ground:
    """Stands in for a ground conclusion (no quantifiers) in the Bernays-Schönfinkel count."""

    class dependency_relation:
        universals: frozenset[Any] = frozenset()
        existentials: frozenset[Any] = frozenset()
        dependencies: frozenset[Any] = frozenset()


_GROUND: Any = _Ground()
