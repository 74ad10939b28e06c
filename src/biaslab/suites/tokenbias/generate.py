"""Items for the token-bias suite: n matched pairs per (family, hypothesis), byte-reproducible.

Every problem of a block is distinct: each pair is one index of its stratum's pool of distinct
problems (:mod:`biaslab.suites.tokenbias.families`), drawn without repeats, and the pools are built
so that distinct indices give distinct originals *and* distinct twins, as a reasoner counts
problems (names, towns, option order and framing aside: each member's ``problem_key``,
:mod:`biaslab.suites.tokenbias.problems`). The one exception is the classic horse problem, which is
one problem shown by every pair of its block. Asking for more pairs than a pool holds is a one-line
error that names the pool size. Pair i draws from ``item_random(seed, family, hypothesis, i, ...)``
streams and from the indices earlier pairs took, so it is identical whether 10 or 1000 pairs are
generated. The stratum (conjunction style, syllogism validity, kind of horse problem) and the
correct option's position are assigned by block randomisation (a seeded shuffle of every block of
slots), so they are balanced across pairs, independent of content, and equal within a pair.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pydantic import JsonValue

from biaslab.schema import Item, Turn
from biaslab.seeding import item_random, stable_hash
from biaslab.suites.tokenbias import perturb
from biaslab.suites.tokenbias.config import (
    ANALYSIS_FAMILIES,
    Config,
    FamilyName,
    HypothesisName,
    combinations,
)
from biaslab.suites.tokenbias.conjunction import Conjunction
from biaslab.suites.tokenbias.exemplars import shot_builder
from biaslab.suites.tokenbias.families import (
    HorseProblem,
    Problem,
    Stratum,
    horse_twin,
    horses_numbers,
    strata,
)
from biaslab.suites.tokenbias.pools import Choices, check_capacity, draw_distinct
from biaslab.suites.tokenbias.problems import problem_key
from biaslab.suites.tokenbias.render import (
    HORSE_WINDOW,
    NO,
    YES,
    Question,
    assemble,
    render_conjunction,
    render_horses,
    render_syllogism,
    system_prompt,
)
from biaslab.suites.tokenbias.syllogism import Syllogism

GENERATOR_VERSION = "6"
SUITE = "tokenbias"
KIND: dict[FamilyName, str] = {"linda": "conjunction", "syllogism": "syllogism", "horses": "horses"}


def generate(config: Config, seed: int, n: int) -> list[Item]:
    """``n`` pairs (original, twin) for every (family, hypothesis) the config selects."""
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    items: list[Item] = []
    for family, hypothesis in combinations(config):
        for index, draw in enumerate(draws(config, seed, family, hypothesis, n)):
            items.extend(make_pair(config, seed, family, hypothesis, index, draw))
    return items


def pair_id(family: str, hypothesis: str, seed: int, index: int) -> str:
    return f"{SUITE}-{family}-{hypothesis}-{seed}-{index:04d}"


# --------------------------------------------------------------------------------------------------
# distinct originals
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Draw:
    """Which original pair i shows: a stratum and an index into its pool."""

    stratum: Stratum
    index: int

    @property
    def choices(self) -> Choices:
        return self.stratum.pool.decode(self.index)

    def original(self, rng: random.Random) -> Problem:
        return self.stratum.build(self.choices, rng)


def draws(
    config: Config, seed: int, family: FamilyName, hypothesis: HypothesisName, n: int
) -> list[Draw]:
    """The originals of the first ``n`` pairs of a block, all distinct."""
    layers = strata(config, family, hypothesis)
    check_capacity(
        n, [s.pool for s in layers], lambda: pool_description(family, hypothesis, layers)
    )
    taken: list[set[int]] = [set() for _ in layers]
    chosen = []
    for index in range(n):
        k = _slot(seed, family, hypothesis, "stratum", index, len(layers))
        rng = item_random(seed, family, hypothesis, index, "content")
        chosen.append(Draw(layers[k], draw_distinct(layers[k].pool.size, taken[k], rng)))
    return chosen


def pool_description(family: str, hypothesis: str, layers: tuple[Stratum, ...]) -> str:
    """ "linda/H1 (4 equal strata: bio 702,000, story 96, ...)" — what bounds a block's --n."""
    if len(layers) == 1 and layers[0].label == "classic":
        return f"{family}/{hypothesis} (one classic original: the pool is its twins)"
    if len(layers) == 1:
        return f"{family}/{hypothesis}"
    sizes = ", ".join(f"{s.label} {s.pool.size:,}" for s in layers)
    return f"{family}/{hypothesis} ({len(layers)} equal strata: {sizes})"


def _slot(seed: int, family: str, hypothesis: str, stream: str, index: int, size: int) -> int:
    """Block randomisation: pair ``index`` takes one place in a seeded shuffle of ``size`` slots."""
    if size == 1:
        return 0
    block = list(range(size))
    item_random(seed, family, hypothesis, stream, index // size).shuffle(block)
    return block[index % size]


# --------------------------------------------------------------------------------------------------
# pairs
# --------------------------------------------------------------------------------------------------


def make_pair(
    config: Config,
    seed: int,
    family: FamilyName,
    hypothesis: HypothesisName,
    index: int,
    draw: Draw | None = None,
) -> tuple[Item, Item]:
    """Pair ``index`` of one block: build the original, perturb it, render both members."""
    if draw is None:
        draw = draws(config, seed, family, hypothesis, index + 1)[-1]
    rng = item_random(seed, family, hypothesis, index)
    pair = _perturb(config, family, hypothesis, draw, rng)
    mode = effective_mode(config, hypothesis)
    shots = shot_builder(
        config, family, mode, pair, lambda: item_random(seed, family, hypothesis, index, "shots")
    )
    positions = HORSE_WINDOW if family == "horses" else 2
    if config.order == "counterbalanced":
        position = index % positions
    else:
        position = _slot(seed, family, hypothesis, "position", index, positions)
    rendered = []
    for condition in (pair.original, pair.twin):
        question = _question(condition.problem, position)
        prompt = assemble(question.body, question.labels, shots(condition), mode.endswith("cot"))
        rendered.append((condition, question, system_prompt(family, condition.hint), prompt))
    key = f"{stable_hash(*(f'{system}|{prompt}' for _, _, system, prompt in rendered)):016x}"
    common = _pair_meta(config, seed, family, hypothesis, index, pair) | {"pair_key": key}
    members = []
    for variant, (condition, question, system, prompt) in zip(
        ("original", "twin"), rendered, strict=True
    ):
        meta = {
            **common,
            "variant": variant,
            "problem_key": problem_key(system, prompt),
            **_details(condition, question),
        }
        members.append(_item(family, question, system, prompt, meta))
    return members[0], members[1]


def _perturb(
    config: Config,
    family: FamilyName,
    hypothesis: HypothesisName,
    draw: Draw,
    rng: random.Random,
) -> perturb.Pair:
    exemplar = "Bob" if config.exemplar == "bob" else "Linda"
    hint = "none" if hypothesis == "H6" or family == "horses" else config.hint
    base = perturb.Condition(draw.original(rng), exemplar, hint)
    if family == "horses":
        plan = horse_twin(config, draw.choices, rng)
        return perturb.horse_variant(base, plan, config.horses_twin)
    if hypothesis == "H1":
        return perturb.added_event(base)
    if hypothesis == "H2":
        return perturb.exemplar_name(base)
    if hypothesis == "H3":
        return perturb.celebrity_name(base, rng)
    if hypothesis == "H4":
        return perturb.quantifier_synonyms(base, rng)
    if hypothesis == "H5":
        return perturb.source_reputation(base, rng)
    return perturb.add_hint(
        base,
        "linda" if family == "linda" else "syllogism",
        config.h6_hint,
        control=config.h6_control == "length",
    )


def _pair_meta(
    config: Config,
    seed: int,
    family: FamilyName,
    hypothesis: HypothesisName,
    index: int,
    pair: perturb.Pair,
) -> dict[str, JsonValue]:
    """What both members share: ids, the analysis keys and the declared perturbation."""
    return {
        "pair_id": pair_id(family, hypothesis, seed, index),
        "family": family,
        "analysis_family": analysis_family(family, pair.original.problem),
        "hypothesis": hypothesis,
        "mode": mode_label(config, family, hypothesis),
        "base_mode": effective_mode(config, hypothesis),
        "seed": seed,
        "index": index,
        "perturbation": pair.kind,
        "swaps": [list(s) for s in pair.swaps],
        "scope": pair.scope,
        "allow_numbers": pair.allow_numbers,
        "leak": list(pair.leak),
        "shared_original": family == "horses" and horses_numbers(config) == "classic",
    }


def analysis_family(family: FamilyName, problem: Problem) -> str:
    """The family the analysis tests: syllogisms by validity."""
    if isinstance(problem, Syllogism):
        return ANALYSIS_FAMILIES[family][1 if problem.valid else 0]
    return family


def effective_mode(config: Config, hypothesis: str) -> str:
    """H2 needs an exemplar, so it turns direct/zs-cot into one-shot/one-shot-cot."""
    if hypothesis == "H2":
        return {"direct": "one-shot", "zs-cot": "one-shot-cot"}.get(config.mode, config.mode)
    return config.mode


def mode_label(config: Config, family: str, hypothesis: str) -> str:
    """The analysis' mode key: the base mode plus the exemplar and hint conditions of the pair."""
    label = effective_mode(config, hypothesis)
    if family == "linda" and "shot" in label and hypothesis != "H2" and config.exemplar == "bob":
        label += "-bob"
    if family == "horses" and label.startswith("one-shot") and config.horses_exemplar != "numbers":
        label += {"animal": "-ani", "both": "-ran"}[config.horses_exemplar]
    if hypothesis == "H6":
        label += f"+{config.h6_hint}-hint"
        label += "-vs-control" if config.h6_control == "length" else ""
    elif config.hint != "none" and family != "horses":
        label += f"+{config.hint}-hint"
    return label


def _question(problem: Problem, position: int) -> Question:
    """Render with the correct option at ``position`` (for yes/no: the label order follows)."""
    if isinstance(problem, Conjunction):
        return render_conjunction(problem, position)
    if isinstance(problem, Syllogism):
        gold, other = (YES, NO) if problem.valid else (NO, YES)
        return render_syllogism(problem, (gold, other) if position == 0 else (other, gold))
    return render_horses(problem, position)


# --------------------------------------------------------------------------------------------------
# items
# --------------------------------------------------------------------------------------------------


def _details(condition: perturb.Condition, question: Question) -> dict[str, JsonValue]:
    problem = condition.problem
    details: dict[str, JsonValue] = {
        "gold": question.gold,
        "correct_position": question.labels.index(question.gold),
        "exemplar": condition.exemplar,
        "hint": condition.hint,
    }
    if isinstance(problem, Conjunction):
        details |= {
            "style": problem.style,
            "source": problem.source,
            "relevant": problem.relevant,
            "name": problem.name,
        }
    elif isinstance(problem, Syllogism):
        details |= {"form": problem.form, "valid": problem.valid, "outlet": problem.outlet}
    elif isinstance(problem, HorseProblem):
        details |= {"n": problem.n, "k": problem.k, "m": problem.m, "animal": problem.animal.plural}
    return details


def _item(
    family: FamilyName,
    question: Question,
    system: str,
    prompt: str,
    meta: dict[str, JsonValue],
) -> Item:
    suffix = "orig" if meta["variant"] == "original" else "twin"
    turn = Turn(
        index=0,
        prompt=prompt,
        kind=KIND[family],
        labels=question.labels,
        synonyms=dict(question.synonyms),
        gold=question.gold,
        meta={"correct_position": meta["correct_position"]},
    )
    return Item(
        suite=SUITE, id=f"{meta['pair_id']}-{suffix}", system=system, turns=(turn,), meta=meta
    )


__all__ = [
    "GENERATOR_VERSION",
    "analysis_family",
    "draws",
    "generate",
    "make_pair",
    "pair_id",
]
