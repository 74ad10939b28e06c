"""An independent reference for validity: monadic views evaluated in every finite structure.

No solver: a view is evaluated in a structure (a domain, an extension per predicate, an object
per constant) by its definition (the quantifier prefix over the domain, then "supposition implies
stage", a stage being a disjunction of conjunctions of literals). Entailment holds iff every
structure with up to ``max_domain`` objects that makes the premises true makes the conclusion
true.

``reference_entails`` enumerates the structures whose objects are distinct *types* (sets of the k
predicates), every non-empty set of types with every placing of the m constants: each monadic
structure is equivalent to one of them (the finite model property behind the suite's 2^k bound).
``brute_force_entails`` enumerates all structures up to a given size instead, so a test can check
on small vocabularies that the type structures miss nothing, even up to 2^k + m objects.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence

from biaslab.suites.fallacy.views import Literal, MView, prefix

Structure = tuple[int, Mapping[str, frozenset[int]], Mapping[str, int]]


def structures(
    predicates: Sequence[str], constants: Sequence[str], size: int
) -> Iterator[Structure]:
    domain = range(size)
    subsets = [frozenset(c) for r in range(size + 1) for c in itertools.combinations(domain, r)]
    for extensions in itertools.product(subsets, repeat=len(predicates)):
        for objects in itertools.product(domain, repeat=len(constants)):
            yield (
                size,
                dict(zip(predicates, extensions, strict=True)),
                dict(zip(constants, objects, strict=True)),
            )


def _literal(lit: Literal, structure: Structure, assignment: Mapping[str, int]) -> bool:
    _, extensions, objects = structure
    element = assignment[lit.term.name] if lit.term.variable else objects[lit.term.name]
    return (element in extensions[lit.predicate]) == lit.positive


def holds(view: MView, structure: Structure) -> bool:
    order = prefix(view)
    size = structure[0]

    def body(assignment: Mapping[str, int]) -> bool:
        supposed = all(_literal(lit, structure, assignment) for lit in view.supposition)
        stage = any(
            all(_literal(lit, structure, assignment) for lit in state) for state in view.stage
        )
        return (not supposed) or stage

    def quantify(i: int, assignment: dict[str, int]) -> bool:
        if i == len(order):
            return body(assignment)
        kind, name = order[i]
        results = (quantify(i + 1, {**assignment, name: e}) for e in range(size))
        return all(results) if kind == "forall" else any(results)

    return quantify(0, {})


def type_structures(predicates: Sequence[str], constants: Sequence[str]) -> Iterator[Structure]:
    types = [
        frozenset(c)
        for r in range(len(predicates) + 1)
        for c in itertools.combinations(predicates, r)
    ]
    for r in range(1, len(types) + 1):
        for realised in itertools.combinations(types, r):
            extensions = {
                p: frozenset(i for i, t in enumerate(realised) if p in t) for p in predicates
            }
            for objects in itertools.product(range(r), repeat=len(constants)):
                yield r, extensions, dict(zip(constants, objects, strict=True))


def _vocabulary(views: Sequence[MView]) -> tuple[list[str], list[str]]:
    predicates = sorted(set().union(*(v.predicates() for v in views)))
    constants = sorted(set().union(*(v.constants() for v in views)))
    return predicates, constants


def _counter_model(
    premises: Sequence[MView], conclusion: MView, candidates: Iterator[Structure]
) -> bool:
    return any(all(holds(p, s) for p in premises) and not holds(conclusion, s) for s in candidates)


def reference_entails(premises: Sequence[MView], conclusion: MView) -> bool:
    predicates, constants = _vocabulary([*premises, conclusion])
    return not _counter_model(premises, conclusion, type_structures(predicates, constants))


def brute_force_entails(premises: Sequence[MView], conclusion: MView, max_domain: int) -> bool:
    predicates, constants = _vocabulary([*premises, conclusion])
    every = (
        s for size in range(1, max_domain + 1) for s in structures(predicates, constants, size)
    )
    return not _counter_model(premises, conclusion, every)
