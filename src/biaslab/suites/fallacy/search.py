"""Search for one problem whose ETR conclusion is a fallacy (the paper's generative pipeline, §3.2).

A problem is built by adding mutated seed views one at a time; a view is kept when ETR still draws
a non-trivial conclusion. The search stops when every condition holds at once:

1. the premises have exactly the target number of atoms (the caller assigns a size to every
   problem index, so the size quotas are exact whatever the number of workers); a list that grows
   past it is cut back (backtracking);
2. ETR's conclusion (``default_inference_procedure``) is one categorical state, neither verum nor
   falsum, and ``default_procedure_does_it_follow`` endorses it;
3. the conclusion does not follow logically, by both deciders (which also makes the premises
   jointly consistent: inconsistent premises entail everything), and they agree;
4. the vocabulary fits a theme (at most six predicates) and there are at least two premises;
5. no premise is tautological (true in every model, by the finite-domain decider).

Every draw comes from the ``random.Random`` of the problem index; every rejection is counted.
Runs in a worker process (it imports PyETR through :mod:`biaslab.suites.fallacy.etr`).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from biaslab.errors import BiaslabError
from biaslab.suites.fallacy import etr
from biaslab.suites.fallacy.deciders import Decision, decide, finite, unbounded_z3
from biaslab.suites.fallacy.mutate import PREDICATES, random_view, seed_pool
from biaslab.suites.fallacy.solve import Known
from biaslab.suites.fallacy.views import MView, shared_issues, total_atoms

MAX_RESTARTS = 400
MAX_EXTENSIONS = 12
MAX_PREMISES = 6


@dataclass(frozen=True)
class Limits:
    """What a problem may contain besides its size."""

    quantified: bool = False  # at least one premise has a quantifier (else none has)
    max_premises: int = MAX_PREMISES


@dataclass
class Found:
    """An accepted problem, what the search computed about it, and what it rejected on the way."""

    premises: tuple[MView, ...]
    known: Known
    rejections: Counter[str] = field(default_factory=Counter)


def _atoms(view: MView) -> set[tuple[str, str]]:
    return {
        (lit.predicate, lit.term.name if not lit.term.variable else "") for lit in view.literals()
    }


def _shares_atom(candidate: MView, views: list[MView]) -> bool:
    """Whether the candidate mentions an atom (either polarity; any variable counts as one term)
    that a premise already mentions: premises that share nothing leave ETR nothing to conclude."""
    mine = _atoms(candidate)
    return any(mine & _atoms(view) for view in views)


def _facts_clash(views: list[MView]) -> bool:
    """Whether two one-state premises without supposition contradict each other outright (ETR
    then concludes falsum, which the search would reject only after an inference)."""
    facts = {
        lit for v in views if len(v.stage) == 1 and not v.supposition for s in v.stage for lit in s
    }
    return any(lit.negated() in facts for lit in facts if not lit.term.variable)


def _premises(views: list[MView]) -> tuple[MView, ...]:
    return tuple(v.canonical() for v in shared_issues(views))


def _fits(premises: tuple[MView, ...], limits: Limits) -> str | None:
    """Why the premises cannot be a problem (None if they can)."""
    predicates = set().union(*(p.predicates() for p in premises))
    if len(predicates) > len(PREDICATES):
        return "too many predicates"
    if limits.quantified and not any(p.quantified for p in premises):
        return "not quantified"
    if not any(p.constants() for p in premises):
        return "names no object"  # the answer's candidates are statements about objects
    return None


def _accept(
    premises: tuple[MView, ...], found: etr.Conclusion, rejections: Counter[str]
) -> Found | None:
    """Conditions 2-3 for premises of the right size; None (and a counted reason) if one fails."""
    view = found.view
    if view is None or not view.categorical:
        rejections["conclusion not categorical"] += 1
        return None
    views = [etr.to_view(p) for p in premises]
    target = etr.to_view(view)
    quick = decide(views, target, unbounded=False)
    if quick.finite.entailed is not False:
        rejections["conclusion valid" if quick.finite.entailed else "undecided"] += 1
        return None
    if any(tautological(p) for p in premises):  # cached: premises recur across lists
        rejections["tautological premise"] += 1
        return None
    # the finite verdict is already known: only the unbounded decider is left to run
    decision = Decision(quick.finite, unbounded_z3(views, target))
    if not decision.agree:
        rejections["deciders disagree or undecided"] += 1
        return None
    try:
        endorsed = etr.does_it_follow(premises, view)
        reversed_found = etr.conclusion(list(reversed(premises)))
    except (etr.OverBudget, ValueError):
        rejections["ETR inference over budget"] += 1
        return None
    if not endorsed:
        rejections["conclusion not endorsed by does_it_follow"] += 1
        return None
    return Found(premises, Known(found, reversed_found, decision, endorsed), rejections)


@lru_cache(maxsize=4096)
def tautological(view: MView) -> bool:
    """Whether a premise is true in every model ("either the ace is red or it is not"): it tells
    the reader nothing, so no problem may have one (an undecided check counts as one)."""
    return finite([], etr.to_view(view)).entailed is not False


def find_problem(rng: random.Random, size: int, limits: Limits = Limits()) -> Found:
    """The first problem of exactly ``size`` atoms the seeded search accepts.

    Views are added while they fit (a view that would overshoot the size is redrawn); ETR's
    conclusion is computed once the size is reached, and a rejected list is cut back by one or
    two views and filled again."""
    pool = seed_pool()
    rejections: Counter[str] = Counter()
    for _ in range(MAX_RESTARTS):
        views: list[MView] = []
        for _ in range(MAX_EXTENSIONS):
            atoms = total_atoms(views)
            candidate = random_view(rng, pool, quantifiers=limits.quantified)
            if atoms + candidate.n_atoms > size or len(views) >= limits.max_premises:
                rejections["too large"] += 1
                if views and rng.random() < 0.25:
                    views.pop()  # backtrack
                continue
            if views and not _shares_atom(candidate, views):
                rejections["shares no atom"] += 1
                continue
            if candidate in views or _facts_clash([*views, candidate]):
                rejections["repeated or contradicting premise"] += 1
                continue
            views.append(candidate)
            if atoms + candidate.n_atoms < size or len(views) < 2:
                continue
            accepted = _try(_premises(views), limits, rejections)
            if accepted is not None:
                return accepted
            del views[-rng.randint(1, min(2, len(views))) :]
        rejections["restarts"] += 1
    raise BiaslabError(f"fallacy: no problem of {size} atoms found in {MAX_RESTARTS} restarts")


def _try(premises: tuple[MView, ...], limits: Limits, rejections: Counter[str]) -> Found | None:
    if all(p.categorical and not p.quantified for p in premises):
        # ETR then concludes part of the conjunction of the premises: never a fallacy
        rejections["every premise a ground conjunction"] += 1
        return None
    reason = _fits(premises, limits)
    if reason is not None:
        rejections[reason] += 1
        return None
    try:
        found = etr.conclusion(premises)
    except etr.OverBudget:
        rejections["ETR inference over budget"] += 1
        return None
    except ValueError:  # PyETR refuses some combinations (e.g. its Matryoshka check)
        rejections["ETR inference failed"] += 1
        return None
    if found.view is not None and (found.view.is_verum or found.view.is_falsum):
        rejections["conclusion verum or falsum"] += 1
        return None
    return _accept(premises, found, rejections)
