"""Token perturbations: each turns one stored record into its exact twin and declares the swap.

A :class:`Pair` holds the original and the twin *conditions* (problem record, exemplar name, hint) and
the list of ``(original phrase, twin phrase)`` swaps that are the only permitted differences between
the two renderings. :func:`biaslab.suites.tokenbias.generate.check_twins` verifies that claim on the
rendered text with a token diff.
"""

from __future__ import annotations

import dataclasses
import random
import re
from dataclasses import dataclass
from typing import Literal

from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.config import FamilyName, Hint, HorsesTwin, ShownHint
from biaslab.suites.tokenbias.conjunction import Conjunction, generic_name_for
from biaslab.suites.tokenbias.families import HorseProblem, HorseTwin, Problem
from biaslab.suites.tokenbias.render import hint_text, render_statement
from biaslab.suites.tokenbias.syllogism import ALL_WORDINGS, SOME_WORDINGS, Syllogism

Scope = Literal["system", "exemplars", "question"]


@dataclass(frozen=True)
class Condition:
    """Everything that differs between the two members of a pair: the record and the prompt cues."""

    problem: Problem
    exemplar: str = "Linda"
    hint: ShownHint = "none"


@dataclass(frozen=True)
class Pair:
    """Original and twin with the declared swaps (``""`` on one side = pure insertion/deletion).

    ``scope`` is the part of the rendering the swaps apply to; everything else must be identical.
    ``leak`` lists original words that must not survive anywhere in the twin's scope.
    """

    original: Condition
    twin: Condition
    kind: str
    swaps: tuple[tuple[str, str], ...]
    scope: Scope = "question"
    allow_numbers: bool = False
    leak: tuple[str, ...] = ()


def added_event(base: Condition) -> Pair:
    """H1: the representative added event -> an unrelated one (same stem, same options otherwise)."""
    problem = base.problem
    assert isinstance(problem, Conjunction)
    original = dataclasses.replace(problem, relevant=True)
    twin = dataclasses.replace(problem, relevant=False)
    swap = (problem.fill(problem.relevant_extra), problem.fill(problem.irrelevant_extra))
    return Pair(_with(base, original), _with(base, twin), "added-event", (swap,))


def exemplar_name(base: Condition) -> Pair:
    """H2: the one-shot exemplar's "Linda" -> "Bob" (and her pronouns -> his); the test question is
    untouched."""
    original = dataclasses.replace(base, exemplar="Linda")
    twin = dataclasses.replace(base, exemplar="Bob")
    swaps = (("Linda", "Bob"), ("She", "He"), ("she", "he"), ("her", "his"))
    return Pair(original, twin, "exemplar-name", swaps, scope="exemplars", leak=("Linda",))


def celebrity_name(base: Condition, rng: random.Random) -> Pair:
    """H3: a celebrity -> a same-gender generic full name that shares no word with any celebrity."""
    problem = base.problem
    assert isinstance(problem, Conjunction)
    generic = generic_name_for(problem.name, rng)
    twin = dataclasses.replace(problem, name=generic)
    leak = tuple(re.findall(r"\w+", problem.name))
    return Pair(base, _with(base, twin), "celebrity-name", ((problem.name, generic),), leak=leak)


def horse_variant(base: Condition, plan: HorseTwin, how: HorsesTwin) -> Pair:
    """H3 (horses): horses -> another animal, and/or the classic numbers -> other derived ones."""
    problem = base.problem
    assert isinstance(problem, HorseProblem)
    twin = problem
    swaps: list[tuple[str, str]] = []
    if plan.animal is not None:
        twin = dataclasses.replace(twin, animal=plan.animal)
        swaps += [
            (problem.animal.plural, plan.animal.plural),
            (problem.animal.singular, plan.animal.singular),
        ]
    if plan.numbers is not None:
        n, k, m = plan.numbers
        twin = dataclasses.replace(twin, n=n, k=k, m=m)
    kind = {"animal": "animal", "numbers": "numbers", "both": "animal+numbers"}[how]
    leak = (problem.animal.singular, problem.animal.plural) if plan.animal is not None else ()
    return Pair(
        base,
        _with(base, twin),
        kind,
        tuple(swaps),
        allow_numbers=plan.numbers is not None,
        leak=leak,
    )


def quantifier_synonyms(base: Condition, rng: random.Random) -> Pair:
    """H4: textbook "All"/"Some" -> exact equivalent wordings. Each reworded statement is one
    declared swap, so the twin check proves nothing else changed (case included)."""
    problem = base.problem
    assert isinstance(problem, Syllogism)
    original = dataclasses.replace(problem, all_wording=0, some_wording=0)
    twin = dataclasses.replace(
        problem,
        all_wording=rng.randrange(1, len(ALL_WORDINGS)),
        some_wording=rng.randrange(1, len(SOME_WORDINGS)),
    )
    statements = zip((*problem.premises, problem.conclusion), (True, True, False), strict=True)
    swaps = tuple(
        (render_statement(s, original, start), render_statement(s, twin, start))
        for s, start in statements
        if s.quantifier != "no"
    )
    return Pair(_with(base, original), _with(base, twin), "quantifiers", swaps)


def source_reputation(base: Condition, rng: random.Random) -> Pair:
    """H5: the original's reputable outlet and university -> generic less reputable sources."""
    problem = base.problem
    assert isinstance(problem, Syllogism) and problem.outlet and problem.institution
    outlet = rng.choice(wl.sources("outlets", False))
    institution = rng.choice(wl.sources("institutions", False))
    twin = dataclasses.replace(problem, outlet=outlet, institution=institution)
    swaps = ((problem.outlet, outlet), (problem.institution, institution))
    return Pair(base, _with(base, twin), "sources", swaps)


def add_hint(base: Condition, family: FamilyName, hint: Hint, control: bool = True) -> Pair:
    """H6: a weak or strong hint appended to the system message. With ``control`` the original
    carries an irrelevant instruction of the hint's length (the length control), which the twin
    swaps for the hint; without it the original has no instruction and the twin is longer."""
    shown: ShownHint = (
        ("control-weak" if hint == "weak" else "control-strong") if control else "none"
    )
    original = dataclasses.replace(base, hint=shown)
    twin = dataclasses.replace(base, hint=hint)
    swap = (hint_text(family, shown), hint_text(family, hint))
    return Pair(original, twin, f"{hint}-hint", (swap,), scope="system")


def _with(base: Condition, problem: Problem) -> Condition:
    return dataclasses.replace(base, problem=problem)
