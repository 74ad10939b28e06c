"""Worked exemplars for the one-shot and few-shot modes.

An exemplar is never the question it precedes, nor its twin, nor anything built from the same
template: conjunction exemplars come from other stories, profiles, diseases and scenarios than the
pair's; syllogism exemplars share no term with it; horse exemplars differ from both members in
animal or numbers. ``incorrect`` modes answer the single exemplar wrongly (the paper's
``os_incorrect``).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.config import Config, FamilyName
from biaslab.suites.tokenbias.conjunction import Conjunction, random_conjunction
from biaslab.suites.tokenbias.families import HORSE, HORSE_GRID, HorseProblem
from biaslab.suites.tokenbias.horses import CLASSIC
from biaslab.suites.tokenbias.perturb import Condition, Pair
from biaslab.suites.tokenbias.render import (
    HORSE_WINDOW,
    NO,
    YES,
    Shot,
    render_conjunction,
    render_horses,
    render_syllogism,
)
from biaslab.suites.tokenbias.syllogism import Syllogism, classic_exemplar, random_syllogism

#: quoted from Tversky & Kahneman (1983), Psychological Review 90(4), 293–315: the famous wording is
#: what H2 tests, so it is not paraphrased (data/README.md says why)
LINDA_SETUP = (
    "{name} is 31 years old, single, outspoken, and very bright. {He} majored in philosophy. "
    "As a student, {he} was deeply concerned with issues of discrimination and social justice, "
    "and also participated in anti-nuclear demonstrations."
)
#: one-shot horse exemplars with other numbers, in order of preference
HORSE_SHOT_NUMBERS = ((36, 6, 3), (49, 7, 3), (64, 8, 3), (81, 9, 3))

ShotBuilder = Callable[[Condition], tuple[Shot, ...]]


def shot_builder(
    config: Config,
    family: FamilyName,
    mode: str,
    pair: Pair,
    fresh_rng: Callable[[], random.Random],
) -> ShotBuilder:
    """Exemplars for one pair; both members get the same ones (only an H2 exemplar name differs).
    ``fresh_rng`` gives the same stream on every call, so the shots are built once per exemplar
    name and handed to both members."""
    count = 1 if mode.startswith("one-shot") else 3 if mode.startswith("few-shot") else 0
    incorrect = "incorrect" in mode
    built: dict[str, tuple[Shot, ...]] = {}

    def build(condition: Condition) -> tuple[Shot, ...]:
        if count == 0:
            return ()
        if condition.exemplar not in built:
            built[condition.exemplar] = build_fresh(condition)
        return built[condition.exemplar]

    def build_fresh(condition: Condition) -> tuple[Shot, ...]:
        rng = fresh_rng()
        if family == "linda":
            first = linda_shot(condition.exemplar, rng.randrange(2), incorrect)
            avoid = frozenset(_sources(pair))
            return (
                first,
                *(_conjunction_shot(random_conjunction(rng, avoid), rng) for _ in range(count - 1)),
            )
        if family == "syllogism":
            return _syllogism_shots(rng, count, incorrect, _terms(pair))
        return _horse_shots(config, rng, count, incorrect, pair)

    return build


def linda_shot(name: str, position: int, incorrect: bool = False) -> Shot:
    """The classic Linda problem (or its Bob twin), answered with the single event (or, when
    ``incorrect``, with the conjunction)."""
    gender = "female" if name == "Linda" else "male"
    problem = Conjunction(
        style="bio",
        source="linda",
        name=name,
        gender=gender,
        setup=LINDA_SETUP,
        single="{name} is a bank teller",
        connector="and",
        relevant_extra="is active in the feminist movement",
        irrelevant_extra="is active in the feminist movement",
    )
    question = render_conjunction(problem, position)
    wrong = next(label for label in question.labels if label != question.gold)
    return Shot(question.body, wrong if incorrect else question.gold)


def _conjunction_shot(problem: Conjunction, rng: random.Random) -> Shot:
    question = render_conjunction(problem, rng.randrange(2))
    return Shot(question.body, question.gold)


def _sources(pair: Pair) -> set[str]:
    return {
        c.problem.source for c in (pair.original, pair.twin) if isinstance(c.problem, Conjunction)
    }


def _terms(pair: Pair) -> frozenset[str]:
    found: set[str] = set()
    for condition in (pair.original, pair.twin):
        if isinstance(condition.problem, Syllogism):
            found |= condition.problem.terms
    return frozenset(found)


def _syllogism_shots(
    rng: random.Random, count: int, incorrect: bool, avoid: frozenset[str]
) -> tuple[Shot, ...]:
    if count == 1:
        question = render_syllogism(classic_exemplar(avoid), (YES, NO))
        return (Shot(question.body, YES if incorrect else NO),)
    validity = [True, False, rng.random() < 0.5]
    rng.shuffle(validity)
    shots = []
    for valid in validity:
        question = render_syllogism(random_syllogism(rng, valid, avoid), (YES, NO))
        shots.append(Shot(question.body, question.gold))
    return tuple(shots)


def _horse_shots(
    config: Config, rng: random.Random, count: int, incorrect: bool, pair: Pair
) -> tuple[Shot, ...]:
    members = [c.problem for c in (pair.original, pair.twin) if isinstance(c.problem, HorseProblem)]
    if count == 1:
        problems = [_one_shot_horses(config.horses_exemplar, members, rng)]
    else:
        taken = {(p.n, p.k) for p in members}
        numbers = [t for t in HORSE_GRID if t[:2] not in taken]  # as _other_numbers, over the grid
        problems = [HorseProblem(*t) for t in rng.sample(numbers, count)]
    shots = []
    for problem in problems:
        position = rng.randrange(HORSE_WINDOW)
        question = render_horses(problem, position)
        wrong = question.labels[(position + 1) % HORSE_WINDOW]
        shots.append(Shot(question.body, wrong if incorrect and count == 1 else question.gold))
    return tuple(shots)


def _other_numbers(numbers: tuple[int, int, int], members: list[HorseProblem]) -> bool:
    """Whether ``numbers`` has other animals and lanes than every member (top m aside)."""
    return all(numbers[:2] != (p.n, p.k) for p in members)


def _one_shot_horses(kind: str, members: list[HorseProblem], rng: random.Random) -> HorseProblem:
    """The paper's os_num (horses, other numbers), os_ani (another animal, the classic numbers) and
    os_ran (another animal, other numbers), never equal to either member of the pair."""
    animals = {p.animal.plural for p in members}
    animal = HORSE
    if kind != "numbers":
        animal = rng.choice([a for a in wl.animals() if a.plural not in animals])
    if kind == "animal":
        return HorseProblem(*CLASSIC, animal=animal)
    numbers = next(t for t in HORSE_SHOT_NUMBERS if _other_numbers(t, members))
    return HorseProblem(*numbers, animal=animal)
