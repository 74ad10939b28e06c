"""The bridge to PyETR: monadic views to and from PyETR views, ETR's conclusion and its label.

PyETR is imported here, inside functions, and only in processes that ask for it (the suite runs
these functions in its own worker processes, :mod:`biaslab.suites.fallacy.workers`), because
importing it raises the recursion limit to 10,000 and switches pyparsing's packrat cache on for
the whole process. Views are built with PyETR's constructors, never parsed from text in a loop
(``View.from_str`` costs 6-33 ms a call).

Two PyETR facts shape this module (both checked in the tests):

* ``default_procedure_does_it_follow`` compares views *exactly*, issue marks and variable names
  included. Fresh variable names come from set iteration, which follows ``PYTHONHASHSEED``; the
  worker processes therefore run with a fixed hash seed, and every conclusion is renamed
  canonically (:meth:`MView.canonical`) before it is stored or compared.
* Its first step does not depend on the target when the target has no supposition, so
  :class:`Endorsement` computes it once per premise order and answers many targets with one
  ``query`` each; a property test checks it against ``default_procedure_does_it_follow``.
* Its inference is exponential on some small views (a three-premise problem ran for six
  minutes), and it has no budget of its own. :func:`budget` counts PyETR's work by wrapping two
  constructors: the atoms of every view it builds plus every dependency relation (time per
  inference correlates with the atom count at r ≈ 0.96), and stops an inference that exceeds the
  budget with :class:`OverBudget`. The count is a property of the computation, not of the machine,
  so the same problems are given up on every run. One step escapes that count: ``query`` (and
  ``which``) list every subset of a set of matching pairs at once (``pyetr.tools.powerset``),
  which for 24 pairs is 16 million sets, more than a worker's memory (seed 3's problem 351 and
  seed 0's problem 150 ended generation that way). So within a budget a set of more than
  :data:`MAX_SUBSET_PAIRS` pairs is over budget before it is listed. The cap only turns such ends
  into rejections: the largest set any completed inference listed in 1,500 generated problems had
  20 pairs (one million subsets, 86 CPU-s for its problem), the next largest 8.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from biaslab.suites.fallacy.views import VERUM_STATE, Literal, MView, Term

if TYPE_CHECKING:
    from pyetr import View


#: work units one inference may use (median ~250, p99 ~4,000; 10,000 take about a second)
INFERENCE_BUDGET = 10_000
#: most pairs whose subsets ``query`` may list within a budget (2^20 subsets, about 0.8 GB)
MAX_SUBSET_PAIRS = 20


class OutsideFragment(ValueError):
    """A PyETR view that is not a monadic view (polyadic atoms, functions, weights, ...)."""


class OverBudget(RuntimeError):
    """PyETR did more work than one inference may."""


class _Work:
    count = 0
    limit: int | None = None
    installed = False


def _install_counter() -> None:
    """Count PyETR's work: atoms of every view built, plus every dependency relation (once per
    process)."""
    if _Work.installed:
        return
    from pyetr import DependencyRelation, View

    def charge(units: int) -> None:
        _Work.count += units
        if _Work.limit is not None and _Work.count > _Work.limit:
            raise OverBudget(f"more than {_Work.limit} work units")

    view_init = View.__init__
    relation_init = DependencyRelation.__init__

    def counted_view(self: Any, stage: Any, *args: Any, **kwargs: Any) -> None:
        charge(sum(len(state) for state in stage))
        view_init(self, stage, *args, **kwargs)

    def counted_relation(self: Any, *args: Any, **kwargs: Any) -> None:
        charge(1)
        relation_init(self, *args, **kwargs)

    View.__init__ = counted_view
    DependencyRelation.__init__ = counted_relation
    _bound_powerset()
    _Work.installed = True


def _bound_powerset() -> None:
    """Refuse, within a budget, the subsets of more than :data:`MAX_SUBSET_PAIRS` pairs in
    ``pyetr.view`` (where ``query`` lists them). A PyETR without that name is left as it is."""
    import pyetr.view

    listed = getattr(pyetr.view, "powerset", None)
    if listed is None:
        return

    def bounded(iterable: Iterable[Any]) -> Any:
        items = list(iterable)
        if _Work.limit is not None and len(items) > MAX_SUBSET_PAIRS:
            raise OverBudget(f"the subsets of {len(items)} pairs (at most {MAX_SUBSET_PAIRS})")
        return listed(items)

    pyetr.view.powerset = bounded


@contextmanager
def budget(limit: int = INFERENCE_BUDGET) -> Iterator[None]:
    """Stop PyETR with :class:`OverBudget` once the block has used ``limit`` work units. Budgets
    nest: an inner block may use at most what the outer one has left, and its work counts in it."""
    _install_counter()
    outer_count, outer_limit = _Work.count, _Work.limit
    if outer_limit is not None:
        limit = min(limit, outer_limit - outer_count)
    _Work.count, _Work.limit = 0, limit
    try:
        yield
    finally:
        _Work.count, _Work.limit = outer_count + _Work.count, outer_limit


@cache
def _predicate(name: str, positive: bool) -> Any:
    from pyetr import Predicate

    return Predicate(name=name, arity=1, _verifier=positive)


@cache
def _term(term: Term) -> Any:
    from pyetr import ArbitraryObject, Function, FunctionalTerm

    if term.variable:
        return ArbitraryObject(name=term.name)
    return FunctionalTerm(f=Function(name=term.name, arity=0), t=())


@cache
def _atom(literal: Literal) -> Any:
    from pyetr import PredicateAtom

    return PredicateAtom(
        predicate=_predicate(literal.predicate, literal.positive), terms=(_term(literal.term),)
    )


@cache
def _issue(literal: Literal) -> Any:
    from pyetr.atoms import OpenPredicateAtom
    from pyetr.atoms.terms.open_term import QuestionMark

    open_atom = OpenPredicateAtom(
        predicate=_predicate(literal.predicate, literal.positive), terms=(QuestionMark(),)
    )
    return (_term(literal.term), open_atom)


@lru_cache(maxsize=16_384)
def to_view(view: MView) -> View:
    """The PyETR view of a monadic view (cached, bounded: views are immutable values, and the
    long-lived scoring worker sees many)."""
    from pyetr import Dependency, DependencyRelation, SetOfStates, State, View
    from pyetr.issues import IssueStructure

    # lists, not generators: some PyETR constructors iterate their argument twice
    stage = SetOfStates([State([_atom(lit) for lit in state]) for state in view.stage])
    supposition = SetOfStates([State([_atom(lit) for lit in view.supposition])])
    relation = DependencyRelation(
        universals={_term(Term(u, True)) for u in view.universals},
        existentials={_term(Term(e, True)) for e in view.existentials},
        dependencies=frozenset(
            Dependency(existential=_term(Term(e, True)), universal=_term(Term(u, True)))
            for e, u in view.dependencies
        ),
    )
    issues = IssueStructure([_issue(lit) for lit in view.issues])
    return View.with_defaults(
        stage=stage, supposition=supposition, dependency_relation=relation, issue_structure=issues
    )


def from_view(view: View) -> MView:
    """A PyETR view as a monadic view (not renamed); :class:`OutsideFragment` if it is not one."""
    from pyetr import ArbitraryObject, FunctionalTerm, PredicateAtom

    if any(not w.is_null for w in view.weights.values()):
        raise OutsideFragment("the view has weights")

    def literal(atom: Any) -> Literal:
        if not isinstance(atom, PredicateAtom) or atom.predicate.arity != 1:
            raise OutsideFragment(f"{atom} is not a unary predicate atom")
        (term,) = atom.terms
        if isinstance(term, ArbitraryObject):
            t = Term(term.name, True)
        elif isinstance(term, FunctionalTerm) and term.f.arity == 0:
            t = Term(term.f.name, False)
        else:
            raise OutsideFragment(f"{atom} has a term that is not a constant or variable")
        return Literal(atom.predicate.name, t, atom.predicate.verifier)

    stage = [frozenset(literal(a) for a in state) for state in view.stage]
    supp_states = list(view.supposition)
    if len(supp_states) != 1:
        raise OutsideFragment("the supposition has more than one state")
    supposition = frozenset(literal(a) for a in supp_states[0])
    issues: set[Literal] = set()
    for term, open_atom in view.issue_structure:
        issues.add(literal(open_atom(term)))
    relation = view.dependency_relation
    return MView(
        stage=frozenset(stage),
        supposition=supposition,
        universals=frozenset(u.name for u in relation.universals),
        existentials=frozenset(e.name for e in relation.existentials),
        dependencies=frozenset(
            (d.existential.name, d.universal.name) for d in relation.dependencies
        ),
        issues=frozenset(issues),
    )


# --------------------------------------------------------------------------------------------------
# inference
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Conclusion:
    """What ETR's default inference procedure concludes from premises in one order."""

    view: MView | None  # canonical; None when outside the fragment
    text: str  # PyETR's own text of the (canonically renamed) conclusion

    @property
    def categorical(self) -> bool:
        return self.view is not None and self.view.categorical


def conclusion(premises: Sequence[MView]) -> Conclusion:
    """``default_inference_procedure`` on the premises in the given order."""
    from pyetr.inference import default_inference_procedure

    views = [to_view(p) for p in premises]
    with budget():
        result = default_inference_procedure(views)
    return _as_conclusion(result)


def _as_conclusion(result: View) -> Conclusion:
    try:
        view = from_view(result).canonical()
    except OutsideFragment:
        return Conclusion(view=None, text=result.to_str())
    return Conclusion(view=view, text=to_view(view).to_str())


def does_it_follow(premises: Sequence[MView], target: MView) -> bool:
    """PyETR's ``default_procedure_does_it_follow`` (the paper's ETR label), unchanged."""
    from pyetr.inference import default_procedure_does_it_follow

    views, view = [to_view(p) for p in premises], to_view(target)
    with budget():
        return bool(default_procedure_does_it_follow(views, view))


class Endorsement:
    """``default_procedure_does_it_follow`` for many targets without a supposition over one list
    of premises: the target-independent first step is computed once per premise order."""

    def __init__(self, premises: Sequence[MView]) -> None:
        from pyetr import View
        from pyetr.inference import basic_step

        views = [to_view(p) for p in premises]
        verum = View.get_verum()
        # with a target whose supposition is {0}, the supposed view is verum, whatever the target
        with budget():
            self._steps = [
                basic_step(views).suppose(verum),
                basic_step(list(reversed(views))).suppose(verum),
            ]
        self.premises = tuple(premises)

    def states(self) -> list[frozenset[Literal]]:
        """The ground literals of every state of the first step, both orders."""
        from pyetr import FunctionalTerm

        found = []
        for step in self._steps:
            for state in step.stage:
                found.append(
                    frozenset(
                        Literal(a.predicate.name, Term(a.terms[0].f.name), a.predicate.verifier)
                        for a in state
                        if a.predicate.arity == 1 and isinstance(a.terms[0], FunctionalTerm)
                    )
                )
        return found

    def follows(self, target: MView) -> bool:
        if target.supposition:
            return does_it_follow(self.premises, target)
        view = to_view(target)
        with budget():
            return any(step.query(view) == view for step in self._steps)

    def robust(self, target: MView, conclusions: Iterable[MView]) -> bool:
        """The robust ETR label: the paper's label, or the same with issue marks restored from the
        premises and ETR's conclusions, or equal to one of those conclusions up to renaming and
        issue marks (an English answer carries no marks and its own variable names)."""
        return self.follows(target) or self.robust_extra(target, conclusions)

    def robust_extra(self, target: MView, conclusions: Iterable[MView]) -> bool:
        """What the robust label adds to the paper's (for a target the paper's label rejects)."""
        from biaslab.suites.fallacy.views import restore_issues

        concluded = list(conclusions)
        restored = restore_issues(target, [*self.premises, *concluded])
        if restored != target and self.follows(restored):
            return True
        bare = target.without_issues()
        return any(bare.equivalent_up_to_renaming(c.without_issues()) for c in concluded)


def verum() -> MView:
    return MView(stage=frozenset({VERUM_STATE}))
