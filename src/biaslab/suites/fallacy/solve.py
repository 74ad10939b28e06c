"""Everything the suite computes about one problem or one answer with PyETR and the deciders.

These functions run in the suite's worker processes (:mod:`biaslab.suites.fallacy.workers`): the
generator calls :func:`analyse` on every accepted or imported problem, the answer parser calls
:func:`label_answer` on every parsed answer, and the reference agents call :func:`answer_facts`.
Inputs and outputs are plain values (monadic views, strings, numbers), so they cross process
boundaries as they are.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from biaslab.suites.fallacy import etr
from biaslab.suites.fallacy.chance import (
    Atom,
    ChanceLevel,
    SizeCount,
    candidate_count,
    candidate_view,
    endorsable,
    literal,
    problem_atoms,
    shape_size,
    wrong_count,
    wrong_count_of_size,
)
from biaslab.suites.fallacy.deciders import (
    Decision,
    InconsistentPremises,
    decide,
    entailed_literals,
    problem_context,
)
from biaslab.suites.fallacy.views import VARIABLE_NAMES, Literal, MView


@dataclass(frozen=True)
class Facts:
    """ETR's conclusions in both orders, their validity, the entailed literals, the chance level."""

    premise_texts: tuple[str, ...]  # PyETR's text of each premise
    conclusion: etr.Conclusion  # premises in the given order
    reversed_conclusion: etr.Conclusion  # premises in reverse order
    decision: Decision | None  # does the (forward) conclusion follow? None if not categorical
    endorsed: bool | None  # does_it_follow(premises, conclusion): the paper's label of it
    atoms: tuple[Atom, ...]
    entailed: tuple[Literal, ...]  # sorted
    chance: ChanceLevel | None  # premises in the given order
    chance_reversed: ChanceLevel | None  # premises in reverse order (its own shape size)
    #: the premises have no model: every answer follows (no entailed literals are listed and
    #: there is no chance level, since no answer can be wrong)
    inconsistent: bool = False


@dataclass(frozen=True)
class Known:
    """What the generator's search has already computed about its problem."""

    conclusion: etr.Conclusion
    reversed_conclusion: etr.Conclusion
    decision: Decision
    endorsed: bool


def analyse(premises: Sequence[MView], known: Known | None = None) -> Facts:
    """The facts of a problem (``known``: what the search already computed)."""
    premises = tuple(premises)
    views = [etr.to_view(p) for p in premises]
    endorsed: bool | None = None
    decision: Decision | None = None
    if known is not None:
        forward, backward = known.conclusion, known.reversed_conclusion
        decision, endorsed = known.decision, known.endorsed
    else:
        forward = etr.conclusion(premises)
        backward = etr.conclusion(tuple(reversed(premises)))
        if forward.view is not None and forward.categorical:
            decision = decide(views, etr.to_view(forward.view))
            endorsed = etr.does_it_follow(premises, forward.view)
    atoms = tuple(problem_atoms(premises))
    entailed, inconsistent = _entailed(views, atoms)
    chance = chance_reversed = None
    if atoms and not inconsistent:
        size = shape_size(forward.view, backward.view)
        size_reversed = shape_size(backward.view, forward.view)
        counts = counts_by_size(
            premises, [forward, backward], atoms, set(entailed), max(size, size_reversed)
        )
        chance = chance_level(len(atoms), len(entailed), counts, size)
        chance_reversed = chance_level(len(atoms), len(entailed), counts, size_reversed)
    return Facts(
        premise_texts=tuple(v.to_str() for v in views),
        conclusion=forward,
        reversed_conclusion=backward,
        decision=decision,
        endorsed=endorsed,
        atoms=atoms,
        entailed=tuple(entailed),
        chance=chance,
        chance_reversed=chance_reversed,
        inconsistent=inconsistent,
    )


def _entailed(views: Sequence[Any], atoms: Sequence[Atom]) -> tuple[list[Literal], bool]:
    """The entailed literals, sorted, and whether the premises are inconsistent (then none are
    listed: from inconsistent premises every literal and its negation follow, and the strongest
    answer worth giving is "nothing follows", which is also correct)."""
    try:
        found = entailed_literals(views, atoms)
    except InconsistentPremises:
        return [], True
    literals = (literal((p, c), positive) for p, c, positive in found)
    return sorted(literals, key=Literal.sort_key), False


def counts_by_size(
    premises: Sequence[MView],
    conclusions: Sequence[etr.Conclusion],
    atoms: Sequence[Atom],
    entailed: set[Literal],
    size: int,
) -> tuple[SizeCount, ...]:
    """Per exact size 1..``size``: the wrong candidates and the ETR-endorsed ones among them (see
    :mod:`chance`; the same for both premise orders, since PyETR's label tries both)."""
    endorsement = etr.Endorsement(premises)
    concluded = [c.view for c in conclusions if c.view is not None]
    pool = endorsable(endorsement.states(), atoms, size)
    pool.update(endorsable([s for c in concluded for s in c.stage], atoms, size))
    paper = [0] * (size + 1)
    robust = [0] * (size + 1)
    for state in pool:
        if state <= entailed:
            continue  # a correct candidate
        candidate = candidate_view(state)
        if endorsement.follows(candidate):
            paper[len(state)] += 1
            robust[len(state)] += 1
        elif endorsement.robust_extra(candidate, concluded):
            robust[len(state)] += 1
    return tuple(
        SizeCount(j, wrong_count_of_size(len(atoms), len(entailed), j), robust[j], paper[j])
        for j in range(1, size + 1)
    )


def chance_level(atoms: int, entailed: int, counts: Sequence[SizeCount], size: int) -> ChanceLevel:
    """The chance level of candidates of up to ``size`` literals, from the per-size counts."""
    chosen = [c for c in counts if c.size <= size]
    return ChanceLevel(
        atoms=atoms,
        size=size,
        entailed=entailed,
        candidates=candidate_count(atoms, size),
        wrong=wrong_count(atoms, entailed, size),
        fallacies_paper=sum(c.fallacies_paper for c in chosen),
        fallacies_robust=sum(c.fallacies_robust for c in chosen),
        by_size=tuple(counts),
    )


@dataclass(frozen=True)
class AnswerLabels:
    """How one parsed answer scores."""

    correct: bool | None  # entailed (the finite decider's verdict; None if undecided)
    deciders_agree: bool
    etr_paper: bool | None  # default_procedure_does_it_follow(premises, answer)
    etr_robust: bool | None  # the paper's label, or with marks restored, or ETR's conclusion
    matches_etr: bool  # equal to ETR's conclusion (either order) up to renaming and marks
    note: str = ""


def label_answer(
    premises: Sequence[MView], conclusions: Sequence[MView | None], answer: MView
) -> AnswerLabels:
    with problem_context():
        return _label_answer(premises, conclusions, answer)


def _label_answer(
    premises: Sequence[MView], conclusions: Sequence[MView | None], answer: MView
) -> AnswerLabels:
    views = [etr.to_view(p) for p in premises]
    decision = decide(views, etr.to_view(answer))
    concluded = [c for c in conclusions if c is not None]
    bare = answer.without_issues()
    matches = any(bare.equivalent_up_to_renaming(c.without_issues()) for c in concluded)
    note = "" if decision.agree else f"{decision.finite.detail}; {decision.unbounded.detail}"
    try:
        endorsement = etr.Endorsement(premises)
        paper = endorsement.follows(answer)
        robust = matches or any(
            endorsement.follows(named) or endorsement.robust_extra(named, concluded)
            for named in namings(answer)
        )
    except (etr.OverBudget, ValueError) as exc:
        return AnswerLabels(decision.best, decision.agree, None, None, matches, f"ETR: {exc}")
    return AnswerLabels(decision.best, decision.agree, paper, robust, matches, note)


#: the names the robust label tries for an answer's arbitrary objects: the suite's own, then the
#: ones PyETR gives fresh objects
NAMING_POOL = (*VARIABLE_NAMES, "a", "b", "c", "d", "e", "f")
MAX_NAMINGS = 200


def namings(answer: MView) -> list[MView]:
    """The answer under every injective naming of its variables from the first m names of
    :data:`NAMING_POOL` (m as large as keeps the count within :data:`MAX_NAMINGS`).

    An English answer has no variable names, but PyETR's ``does_it_follow`` compares exactly, so
    its verdict can change with them (it does on generated quantified problems: a premise restated
    with ∃x endorsed, with ∃y not). The robust
    label asks whether ETR endorses the answer under *some* naming: the set of namings is the
    same for every renaming of the answer, so the label cannot depend on the names. Answers with
    more than five variables are taken under their canonical naming only (still invariant)."""
    names = sorted(answer.variables())
    if not names:
        return [answer]
    if len(names) > 5:
        return [answer.canonical()]
    size = len(names)
    while size < len(NAMING_POOL) and math.perm(size + 1, len(names)) <= MAX_NAMINGS:
        size += 1
    temporary = answer.rename({n: f"_{i}" for i, n in enumerate(names)})
    return [
        temporary.rename({f"_{i}": n for i, n in enumerate(chosen)})
        for chosen in itertools.permutations(NAMING_POOL[:size], len(names))
    ]


@dataclass(frozen=True)
class AgentFacts:
    """What the reference agents need about a problem they read from a prompt."""

    conclusion: MView | None  # ETR's (premises in the order shown), when categorical
    size: int  # the shape of the chance level's candidates (chance.shape_size)
    atoms: tuple[Atom, ...]
    entailed: tuple[Literal, ...]


def agent_facts(premises: Sequence[MView]) -> AgentFacts:
    with problem_context():
        return _agent_facts(tuple(premises))


def _agent_facts(premises: tuple[MView, ...]) -> AgentFacts:
    found = etr.conclusion(premises)
    other = etr.conclusion(tuple(reversed(premises)))
    atoms = tuple(problem_atoms(premises))
    views = [etr.to_view(p) for p in premises]
    entailed, _ = _entailed(views, atoms)
    return AgentFacts(
        found.view if found.categorical else None,
        shape_size(found.view, other.view),
        atoms,
        tuple(entailed),
    )
