"""Items for the token-bias suite: n matched pairs per (family, hypothesis), byte-reproducible.

Pair i of a block draws only from ``item_random(seed, family, hypothesis, i)`` (plus named sub-streams
of the same keys), so it is identical whether 10 or 1000 pairs are generated. The correct option's
position is assigned by block randomisation (a seeded shuffle of every block of positions), so it is
balanced across pairs, independent of content, and equal within a pair.
"""

from __future__ import annotations

import difflib
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import JsonValue

from biaslab.schema import Item, Turn
from biaslab.seeding import item_random
from biaslab.suites.tokenbias import perturb
from biaslab.suites.tokenbias.config import Config, FamilyName, HypothesisName, combinations
from biaslab.suites.tokenbias.families import (
    FORMS,
    HORSE_GRID,
    Conjunction,
    HorseProblem,
    Statement,
    Syllogism,
    build_conjunction,
    build_horses,
    build_syllogism,
)
from biaslab.suites.tokenbias.render import (
    ALL_SYNONYMS,
    CONJUNCTION_LABELS,
    HORSE_WINDOW,
    NO,
    NUMBER_WORDS,
    SOME_SYNONYMS,
    YES,
    Hint,
    Question,
    Shot,
    assemble,
    exemplar_part,
    question_part,
    render_conjunction,
    render_horses,
    render_syllogism,
    system_prompt,
)

GENERATOR_VERSION = "1"
SUITE = "tokenbias"
KIND: dict[FamilyName, str] = {"linda": "conjunction", "syllogism": "syllogism", "horses": "horses"}

LINDA_SETUP = (
    "{name} is 31 years old, single, outspoken, and very bright. {name} majored in philosophy. "
    "As a student, {name} was deeply concerned with issues of discrimination and social justice, "
    "and also participated in anti-nuclear demonstrations."
)


def generate(config: Config, seed: int, n: int) -> list[Item]:
    """``n`` pairs (original, twin) for every (family, hypothesis) the config selects."""
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    items: list[Item] = []
    for family, hypothesis in combinations(config):
        for index in range(n):
            items.extend(make_pair(config, seed, family, hypothesis, index))
    return items


def pair_id(family: str, hypothesis: str, seed: int, index: int) -> str:
    return f"{SUITE}-{family}-{hypothesis}-{seed}-{index:04d}"


def make_pair(
    config: Config, seed: int, family: FamilyName, hypothesis: HypothesisName, index: int
) -> tuple[Item, Item]:
    """Pair ``index`` of one block: build the record, perturb it, render both members."""
    rng = item_random(seed, family, hypothesis, index)

    def slot(stream: str, size: int) -> int:
        block = list(range(size))
        item_random(seed, family, hypothesis, stream, index // size).shuffle(block)
        return block[index % size]

    pair = _build_pair(config, family, hypothesis, rng, slot)
    mode = effective_mode(config, hypothesis)
    shots = _shot_builder(
        family, mode, pair, lambda: item_random(seed, family, hypothesis, index, "shots")
    )
    position = slot("position", HORSE_WINDOW if family == "horses" else 2)
    common = _pair_meta(config, seed, family, hypothesis, index, pair)
    members = []
    for variant, condition in (("original", pair.original), ("twin", pair.twin)):
        question = _question(condition.problem, position)
        prompt = assemble(question.body, question.labels, shots(condition), mode.endswith("cot"))
        meta = {**common, "variant": variant, **_details(condition, question)}
        members.append(_item(family, condition, question, prompt, meta))
    return members[0], members[1]


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
    }


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
    if hypothesis == "H6":
        label += f"+{config.h6_hint}-hint"
    elif config.hint != "none" and family != "horses":
        label += f"+{config.hint}-hint"
    return label


# --------------------------------------------------------------------------------------------------
# building pairs
# --------------------------------------------------------------------------------------------------

Slot = Callable[[str, int], int]


def _build_pair(
    config: Config, family: FamilyName, hypothesis: HypothesisName, rng: random.Random, slot: Slot
) -> perturb.Pair:
    exemplar = "Bob" if config.exemplar == "bob" else "Linda"
    hint = "none" if hypothesis == "H6" or family == "horses" else config.hint
    if family == "linda":
        return _linda_pair(config, hypothesis, rng, exemplar, hint)
    if family == "syllogism":
        return _syllogism_pair(config, hypothesis, rng, slot, hint)
    how = config.horses_twin
    problem = build_horses(rng, "classic" if how != "animal" else config.horses_numbers)
    return perturb.horse_variant(perturb.Condition(problem, exemplar, hint), rng, how)


def _linda_pair(
    config: Config, hypothesis: HypothesisName, rng: random.Random, exemplar: str, hint: Hint
) -> perturb.Pair:
    if hypothesis == "H3":
        problem = build_conjunction("celebrity", rng)
        return perturb.celebrity_name(perturb.Condition(problem, exemplar, hint), rng)
    style = rng.choice(config.styles)
    relevant = {"relevant": True, "irrelevant": False}.get(config.added_event)
    if relevant is None:
        relevant = rng.random() < 0.5
    base = perturb.Condition(build_conjunction(style, rng, relevant), exemplar, hint)
    if hypothesis == "H1":
        return perturb.added_event(base)
    if hypothesis == "H2":
        return perturb.exemplar_name(base)
    return perturb.add_hint(base, "linda", config.h6_hint)


def _syllogism_pair(
    config: Config, hypothesis: HypothesisName, rng: random.Random, slot: Slot, hint: Hint
) -> perturb.Pair:
    valid = {"valid": True, "invalid": False}.get(config.validity)
    if valid is None:
        valid = slot("validity", 2) == 0
    problem = build_syllogism(rng, valid, need_all_or_some=hypothesis == "H4")
    if hypothesis == "H4":
        return perturb.quantifier_synonyms(perturb.Condition(problem, hint=hint), rng)
    if config.quantifiers == "synonyms":
        problem = Syllogism(
            problem.form,
            problem.premises,
            problem.conclusion,
            all_word=rng.choice(ALL_SYNONYMS),
            some_word=rng.choice(SOME_SYNONYMS),
        )
    base = perturb.Condition(problem, hint=hint)
    if hypothesis == "H5":
        return perturb.source_reputation(base, rng)
    return perturb.add_hint(base, "syllogism", config.h6_hint)


def _question(problem: perturb.Problem, position: int) -> Question:
    """Render with the correct option at ``position`` (for yes/no: the label order follows)."""
    if isinstance(problem, Conjunction):
        return render_conjunction(problem, position)
    if isinstance(problem, Syllogism):
        gold, other = (YES, NO) if problem.valid else (NO, YES)
        return render_syllogism(problem, (gold, other) if position == 0 else (other, gold))
    return render_horses(problem, position)


# --------------------------------------------------------------------------------------------------
# exemplars
# --------------------------------------------------------------------------------------------------


def _shot_builder(
    family: FamilyName, mode: str, pair: perturb.Pair, fresh_rng: Callable[[], random.Random]
) -> Callable[[perturb.Condition], tuple[Shot, ...]]:
    """Exemplars for one pair; both members get the same ones (only an H2 exemplar name differs)."""
    count = 1 if mode.startswith("one-shot") else 3 if mode.startswith("few-shot") else 0

    def build(condition: perturb.Condition) -> tuple[Shot, ...]:
        if count == 0:
            return ()
        rng = fresh_rng()
        if family == "linda":
            return (
                linda_shot(condition.exemplar, rng.randrange(2)),
                *_conjunction_shots(rng, count - 1),
            )
        if family == "syllogism":
            return _syllogism_shots(rng, count)
        return _horse_shots(rng, count, pair)

    return build


def linda_shot(name: str, position: int) -> Shot:
    """The classic Linda problem (or its Bob twin), answered with the single event."""
    problem = Conjunction(
        style="bio",
        name=name,
        setup=LINDA_SETUP,
        single="{name} is a bank teller",
        connector="and",
        relevant_extra="is active in the feminist movement",
        irrelevant_extra="is active in the feminist movement",
    )
    question = render_conjunction(problem, position)
    return Shot(question.body, question.gold)


def _conjunction_shots(rng: random.Random, count: int) -> tuple[Shot, ...]:
    shots = []
    for _ in range(count):
        problem = build_conjunction(rng.choice(("bio", "story", "news", "medical")), rng)
        question = render_conjunction(problem, rng.randrange(2))
        shots.append(Shot(question.body, question.gold))
    return tuple(shots)


def _syllogism_shots(rng: random.Random, count: int) -> tuple[Shot, ...]:
    if count == 1:
        classic = Syllogism(
            "undistributed-middle",
            (Statement("all", "roses", "flowers"), Statement("some", "flowers", "fragrant")),
            Statement("some", "roses", "fragrant"),
        )
        return (Shot(render_syllogism(classic, (YES, NO)).body, NO),)
    validity = [True, False, rng.random() < 0.5]
    rng.shuffle(validity)
    shots = []
    for valid in validity:
        question = render_syllogism(build_syllogism(rng, valid), (YES, NO))
        shots.append(Shot(question.body, question.gold))
    return tuple(shots)


def _horse_shots(rng: random.Random, count: int, pair: perturb.Pair) -> tuple[Shot, ...]:
    used = {_numbers(pair.original.problem), _numbers(pair.twin.problem)}
    preferred = [(36, 6, 3), (49, 7, 3)]
    pool = (
        [t for t in preferred if t not in used]
        if count == 1
        else [t for t in HORSE_GRID if t not in used]
    )
    chosen = pool[:1] if count == 1 else rng.sample(pool, count)
    shots = []
    for n, k, m in chosen:
        question = render_horses(HorseProblem(n, k, m), rng.randrange(HORSE_WINDOW))
        shots.append(Shot(question.body, question.gold))
    return tuple(shots)


def _numbers(problem: perturb.Problem) -> tuple[int, int, int]:
    assert isinstance(problem, HorseProblem)
    return problem.n, problem.k, problem.m


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
        details |= {"style": problem.style, "relevant": problem.relevant, "name": problem.name}
    elif isinstance(problem, Syllogism):
        details |= {"form": problem.form, "valid": problem.valid, "outlet": problem.outlet}
    else:
        details |= {"n": problem.n, "k": problem.k, "m": problem.m, "animal": problem.animal.plural}
    return details


def _item(
    family: FamilyName,
    condition: perturb.Condition,
    question: Question,
    prompt: str,
    meta: dict[str, JsonValue],
) -> Item:
    suffix = "orig" if meta["variant"] == "original" else "twin"
    turn = Turn(
        index=0,
        prompt=prompt,
        kind=KIND[family],
        labels=question.labels,
        gold=question.gold,
        meta={"correct_position": meta["correct_position"]},
    )
    return Item(
        suite=SUITE,
        id=f"{meta['pair_id']}-{suffix}",
        system=system_prompt(family, condition.hint),
        turns=(turn,),
        meta=meta,
    )


# --------------------------------------------------------------------------------------------------
# integrity checks and label statistics
# --------------------------------------------------------------------------------------------------

_SAME_WITHIN_PAIR = (
    "family",
    "hypothesis",
    "mode",
    "correct_position",
    "perturbation",
    "swaps",
    "scope",
)
_NUMBER_TOKENS = frozenset(NUMBER_WORDS)
_PARTS = ("system", "exemplars", "question")


def rendering(item: Item) -> str:
    """Everything a model sees: the system message and the prompt."""
    return f"{item.system or ''}\n\n{item.turns[0].prompt}"


def rendering_parts(item: Item) -> dict[str, str]:
    """The system message, the exemplars and the test question (with its instruction)."""
    prompt = item.turns[0].prompt
    return {
        "system": item.system or "",
        "exemplars": exemplar_part(prompt),
        "question": question_part(prompt),
    }


def check_twins(items: Iterable[Item]) -> list[str]:
    """Problems found (empty = fine): every pair has one original and one twin that agree on their
    pair-level metadata, whose renderings are identical outside the perturbation's scope, and whose
    token diff inside it consists of the declared swaps only, with no original word leaking."""
    by_pair: dict[str, dict[str, Item]] = defaultdict(dict)
    problems: list[str] = []
    for item in items:
        pid, variant = str(item.meta.get("pair_id")), str(item.meta.get("variant"))
        if variant in by_pair[pid]:
            problems.append(f"{pid}: two {variant} items")
        by_pair[pid][variant] = item
    for pid, members in sorted(by_pair.items()):
        if set(members) != {"original", "twin"}:
            problems.append(f"{pid}: expected an original and a twin, got {sorted(members)}")
            continue
        problems.extend(f"{pid}: {p}" for p in _check_pair(members["original"], members["twin"]))
    return problems


def _check_pair(original: Item, twin: Item) -> list[str]:
    problems = [
        f"{key} differs within the pair"
        for key in _SAME_WITHIN_PAIR
        if original.meta.get(key) != twin.meta.get(key)
    ]
    scope = str(original.meta.get("scope"))
    if scope not in _PARTS:
        return [*problems, f"unknown perturbation scope {scope!r}"]
    before, after = rendering_parts(original), rendering_parts(twin)
    problems += [
        f"{part} differs outside the perturbation"
        for part in _PARTS
        if part != scope and before[part] != after[part]
    ]
    swaps = [(str(a), str(b)) for a, b in _pairs_of(original.meta.get("swaps"))]
    allow_numbers = bool(original.meta.get("allow_numbers"))
    problems += token_diff_problems(before[scope], after[scope], swaps, allow_numbers)
    leak = [str(t) for t in _list(original.meta.get("leak"))]
    problems += [
        f"original word {t!r} survives in the twin" for t in leak if _has_word(after[scope], t)
    ]
    return problems


def _list(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []


def _pairs_of(value: JsonValue) -> list[tuple[JsonValue, JsonValue]]:
    return [(v[0], v[1]) for v in _list(value) if isinstance(v, list) and len(v) == 2]


def token_diff_problems(
    original: str, twin: str, swaps: Sequence[tuple[str, str]], allow_numbers: bool = False
) -> list[str]:
    """Diff the word tokens of two texts (every declared phrase one token, on both sides) and report
    every changed span that is not made of declared swaps (or, where allowed, number changes)."""
    phrases = [p for swap in swaps for p in swap if p]
    a, b = _tokens(original, phrases), _tokens(twin, phrases)
    allowed = set(swaps)
    problems: list[str] = []
    applied = 0
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        steps = _steps(tag, a[i1:i2], b[j1:j2])
        if steps is not None and all(
            s in allowed or (allow_numbers and _numeric(*s)) for s in steps
        ):
            applied += len(steps)
        else:
            problems.append(f"undeclared change {' '.join(a[i1:i2])!r} -> {' '.join(b[j1:j2])!r}")
    if not applied:
        problems.append("the twin does not differ from the original in the perturbed part")
    return problems


def _steps(tag: str, old: list[str], new: list[str]) -> list[tuple[str, str]] | None:
    """Token-by-token changes of one diff opcode (None if a replace changes the token count)."""
    if tag == "insert":
        return [("", t) for t in new]
    if tag == "delete":
        return [(t, "") for t in old]
    return list(zip(old, new, strict=True)) if len(old) == len(new) else None


def _tokens(text: str, phrases: Sequence[str]) -> list[str]:
    longest_first = sorted(set(phrases), key=len, reverse=True)
    alternatives = [rf"(?<!\w){re.escape(p)}(?!\w)" for p in longest_first]
    pattern = re.compile("|".join([*alternatives, r"\w+(?:[-']\w+)*", r"[^\w\s]"]))
    return pattern.findall(text)


def _numeric(*tokens: str) -> bool:
    return all(t.isdigit() or t in _NUMBER_TOKENS or t in {"", ",", "."} for t in tokens)


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


def label_stats(items: Iterable[Item]) -> dict[str, Any]:
    """Where the correct option sits and which answers are gold, per (family, hypothesis, variant)
    and overall: the position-confound check the original dataset failed."""
    groups: dict[str, dict[str, Counter[str]]] = defaultdict(
        lambda: {"position": Counter(), "gold": Counter()}
    )
    for item in items:
        keys = (
            "all",
            f"{item.meta.get('family')}/{item.meta.get('hypothesis')}/{item.meta.get('variant')}",
        )
        for key in keys:
            groups[key]["position"][str(item.meta.get("correct_position"))] += 1
            groups[key]["gold"][item.turns[0].gold] += 1
    return {
        key: {
            "n": sum(counts["position"].values()),
            "position": dict(sorted(counts["position"].items())),
            "gold": dict(sorted(counts["gold"].items())),
            "first_position_share": counts["position"]["0"]
            / max(1, sum(counts["position"].values())),
        }
        for key, counts in sorted(groups.items())
    }


__all__ = [
    "CONJUNCTION_LABELS",
    "FORMS",
    "GENERATOR_VERSION",
    "check_twins",
    "generate",
    "label_stats",
    "make_pair",
    "pair_id",
    "rendering",
    "token_diff_problems",
]
