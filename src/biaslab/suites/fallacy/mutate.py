"""The seed bank and the mutation rules that grow new premises from it (the paper's Tables 1 and 2).

Seeds are the paper's Table 1 problems (modus ponens, modus tollens, quantified modus ponens and
the disjunction fallacy), written the way PyETR writes a conditional: "if P then Q" is the view
``{P Q}^{P}`` (the antecedent stays in the stage), which is what lets ETR affirm the consequent.
Every premise and conclusion of the bank is a starting point for a new premise.

The seven mutation kinds of the paper's Table 2 act on one view: a new predicate, a new constant or
a new variable enters (each by way of a new literal), a constant becomes a ∀ or ∃ variable at every
occurrence, a literal is conjoined to a state, a one-literal state is added as a new alternative,
and a literal is negated. Mutations change the stage only; a conditional keeps its antecedent in
every state, so it still reads "if …, then …". A mutation that would put a literal and its negation
in one state is not applied. All draws come from the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from biaslab.suites.fallacy.views import VARIABLE_NAMES, Literal, MView, Quantifier, State, Term

#: logical names; themes map them to words (predicates are capped at the smallest theme's six)
PREDICATES = ("P1", "P2", "P3", "P4", "P5", "P6")
CONSTANTS = ("c1", "c2", "c3", "c4")
VARIABLES = VARIABLE_NAMES[:3]


def _lit(predicate: str, constant: str, positive: bool = True) -> Literal:
    return Literal(predicate, Term(constant), positive)


def _var(predicate: str, variable: str, positive: bool = True) -> Literal:
    return Literal(predicate, Term(variable, True), positive)


def _conditional(antecedent: Literal, consequent: Literal, *, forall: str | None = None) -> MView:
    prefix: list[tuple[Quantifier, str]] = [("forall", forall)] if forall else []
    return MView.build([[antecedent, consequent]], [antecedent], prefix)


def _fact(*literals: Literal) -> MView:
    return MView.build([literals])


@dataclass(frozen=True)
class SeedProblem:
    name: str
    premises: tuple[MView, ...]
    conclusion: MView


# Table 1 (R, Q, P, S, T written P1..P5; the paper's "x" in the unquantified rows is a constant)
SEED_BANK: tuple[SeedProblem, ...] = (
    SeedProblem(
        "modus ponens",
        (_conditional(_lit("P2", "c1"), _lit("P1", "c1")), _fact(_lit("P2", "c1"))),
        _fact(_lit("P1", "c1")),
    ),
    SeedProblem(
        "modus tollens",
        (_conditional(_lit("P2", "c1"), _lit("P1", "c1")), _fact(_lit("P1", "c1", False))),
        _fact(_lit("P2", "c1", False)),
    ),
    SeedProblem(
        "quantified modus ponens",
        (
            _conditional(_var("P2", "x"), _var("P1", "x"), forall="x"),
            _conditional(_var("P3", "x"), _var("P2", "x"), forall="x"),
        ),
        _conditional(_var("P3", "x"), _var("P1", "x"), forall="x"),
    ),
    SeedProblem(
        "disjunction fallacy",
        (
            MView.build(
                [[_lit("P2", "c1"), _lit("P1", "c1")], [_lit("P4", "c1"), _lit("P5", "c1")]]
            ),
            _fact(_lit("P2", "c1")),
        ),
        _fact(_lit("P1", "c1")),
    ),
)


def seed_pool() -> tuple[MView, ...]:
    """Every distinct premise and conclusion of the seed bank, in a fixed order."""
    pool: dict[str, MView] = {}
    for problem in SEED_BANK:
        for view in (*problem.premises, problem.conclusion):
            pool.setdefault(view.to_pyetr(), view)
    return tuple(pool[key] for key in sorted(pool))


# --------------------------------------------------------------------------------------------------
# mutations
# --------------------------------------------------------------------------------------------------

Mutation = Callable[[MView, random.Random], MView | None]


def _terms(view: MView) -> list[Term]:
    return sorted({lit.term for lit in view.literals()})


def _fresh(names: tuple[str, ...], used: frozenset[str]) -> str | None:
    return next((name for name in names if name not in used), None)


def _consistent(state: State) -> bool:
    return not any(lit.negated() in state for lit in state)


def _with_state(view: MView, old: State | None, new: State) -> MView | None:
    """Replace (or, with ``old=None``, add) a stage state; None if the state is contradictory."""
    if not _consistent(new):
        return None
    states = set(view.stage)
    if old is not None:
        states.discard(old)
    states.add(new)
    return MView(
        stage=frozenset(states),
        supposition=view.supposition,
        universals=view.universals,
        existentials=view.existentials,
        dependencies=view.dependencies,
        issues=view.issues,
    )


def _pick_state(view: MView, rng: random.Random) -> State:
    states = sorted(view.stage, key=lambda s: sorted(lit.sort_key() for lit in s))
    return rng.choice(states)


def _conjoin(view: MView, literal: Literal, rng: random.Random) -> MView | None:
    state = _pick_state(view, rng)
    if literal in state:
        return None
    return _with_state(view, state, state | {literal})


def _quantify(
    view: MView, name: str, kind: Quantifier
) -> tuple[frozenset[str], frozenset[str], frozenset[tuple[str, str]]]:
    """Universals, existentials, dependencies after appending ``name`` to the end of the prefix."""
    universals, existentials = set(view.universals), set(view.existentials)
    dependencies = set(view.dependencies)
    if kind == "forall":
        universals.add(name)
    else:
        existentials.add(name)
        dependencies.update((name, u) for u in view.universals)
    return frozenset(universals), frozenset(existentials), frozenset(dependencies)


def new_predicate(view: MView, rng: random.Random) -> MView | None:
    predicate = _fresh(PREDICATES, view.predicates())
    if predicate is None:
        return None
    return _conjoin(view, Literal(predicate, rng.choice(_terms(view)), rng.random() < 0.5), rng)


def new_constant(view: MView, rng: random.Random) -> MView | None:
    constant = _fresh(CONSTANTS, view.constants())
    if constant is None:
        return None
    predicate = rng.choice(sorted(view.predicates()))
    return _conjoin(view, Literal(predicate, Term(constant), rng.random() < 0.5), rng)


def new_variable(view: MView, rng: random.Random) -> MView | None:
    name = _fresh(VARIABLES, view.variables())
    if name is None:
        return None
    kind: Quantifier = rng.choice(("forall", "exists"))
    literal = Literal(rng.choice(sorted(view.predicates())), Term(name, True), rng.random() < 0.5)
    state = _pick_state(view, rng)
    universals, existentials, dependencies = _quantify(view, name, kind)
    return MView(
        stage=(view.stage - {state}) | {state | {literal}},
        supposition=view.supposition,
        universals=universals,
        existentials=existentials,
        dependencies=dependencies,
        issues=view.issues,
    )


def constant_to_variable(view: MView, rng: random.Random) -> MView | None:
    constants = sorted(view.constants())
    name = _fresh(VARIABLES, view.variables())
    if not constants or name is None:
        return None
    constant = rng.choice(constants)
    kind: Quantifier = rng.choice(("forall", "exists"))
    variable = Term(name, True)

    def swap(lit: Literal) -> Literal:
        return lit.with_term(variable) if lit.term == Term(constant) else lit

    universals, existentials, dependencies = _quantify(view, name, kind)
    return MView(
        stage=frozenset(frozenset(swap(lit) for lit in s) for s in view.stage),
        supposition=frozenset(swap(lit) for lit in view.supposition),
        universals=universals,
        existentials=existentials,
        dependencies=dependencies,
        issues=frozenset(swap(lit) for lit in view.issues),
    )


def conjunctive_atom(view: MView, rng: random.Random) -> MView | None:
    literal = Literal(
        rng.choice(sorted(view.predicates())), rng.choice(_terms(view)), rng.random() < 0.5
    )
    return _conjoin(view, literal, rng)


def disjunctive_state(view: MView, rng: random.Random) -> MView | None:
    literal = Literal(
        rng.choice(sorted(view.predicates())), rng.choice(_terms(view)), rng.random() < 0.5
    )
    state = view.supposition | {literal}
    if state in view.stage or literal in view.supposition:
        return None
    return _with_state(view, None, state)


def negation(view: MView, rng: random.Random) -> MView | None:
    state = _pick_state(view, rng)
    choices = sorted(state - view.supposition, key=Literal.sort_key)
    if not choices:
        return None
    literal = rng.choice(choices)
    return _with_state(view, state, (state - {literal}) | {literal.negated()})


MUTATIONS: dict[str, Mutation] = {
    "predicate addition": new_predicate,
    "constant addition": new_constant,
    "variable addition": new_variable,
    "constant-to-variable substitution": constant_to_variable,
    "conjunctive atom insertion": conjunctive_atom,
    "disjunctive state addition": disjunctive_state,
    "atom negation": negation,
}
QUANTIFYING = ("variable addition", "constant-to-variable substitution")
MAX_MUTATIONS = 6


def random_view(rng: random.Random, pool: tuple[MView, ...], *, quantifiers: bool = True) -> MView:
    """A seed view after a random number of random mutations (each further one with
    probability 1/2, so most views stay small). With ``quantifiers=False`` neither the seeds nor
    the mutations bring in a variable."""
    names = tuple(n for n in MUTATIONS if quantifiers or n not in QUANTIFYING)
    view = rng.choice(pool if quantifiers else tuple(v for v in pool if not v.quantified))
    for _ in range(MAX_MUTATIONS):
        mutated = MUTATIONS[rng.choice(names)](view, rng)
        if mutated is not None:
            view = mutated
        if rng.random() < 0.5:
            break
    return view
