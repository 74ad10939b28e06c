"""Items of the entrenchment suite: one per question, plus the judge-baseline questions.

Pure and deterministic. A urn item ``i`` draws only from ``item_random(seed, "urn", i)``; a claim,
forecast or Perspectrum item is the ``i``-th entry of one seeded permutation of its pool, so item
``i`` is the same whether 10 or 100 items are generated. Each item's presentation (which option the
judge is asked about, which is listed first, which debater opens) comes from its own stream.

Judge baseline (``judge_baseline=true``, the default): ``baseline_n`` (default ``n``) extra urn
items whose reasoning is fixed text written by the built-in Bayesian policy (the same text the
``biaslab/urn-bayes`` agent writes), stored in the item. The task sends them through the same judge
as the model's trajectories, without calling the model, so a run measures the judge pipeline's own
M on reasoning known to be a martingale. Every item records the run's urn settings
(``urn_setting``: draws, urn shares, prior range), so the analysis pairs a model's M only with a
baseline made under the same settings.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any

from biaslab.errors import BiaslabError
from biaslab.schema import Item, Turn
from biaslab.seeding import item_random
from biaslab.suites.entrenchment import loaders, urn
from biaslab.suites.entrenchment.config import Config
from biaslab.suites.entrenchment.prompts import SYSTEM_PROMPTS, cot_prompt, debate_opening

GENERATOR_VERSION = "entrenchment-2"
SUITE = "entrenchment"
#: most generated urn questions one call makes (``--n``, and ``baseline_n`` for the judge
#: baseline): each is a multi-step conversation asked of the model (or the judge) draw by draw, so
#: this is far beyond any run one would pay for; make larger sets as several seeds
MAX_URN_QUESTIONS = 10_000
YES, NO = "yes", "no"


@dataclass(frozen=True)
class Question:
    """A yes/no question as the judge (``proposition``) and the reasoner (``reasoner_text``: in a
    debate, both debaters) see it. They differ only on the urn domain, where the evidence (the
    draws) is given to the reasoner and reaches the judge only through the reasoning."""

    key: str
    proposition: str
    reasoner_text: str
    option_yes: str = YES
    option_no: str = NO
    outcome: int | None = None
    cot_hint: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    exact: tuple[float, ...] | None = None
    fixed_steps: tuple[str, ...] | None = None


@cache
def claim_pool() -> tuple[dict[str, str], ...]:
    """The built-in claims (``data/claims.json``), in file order."""
    text = (
        resources.files("biaslab.suites.entrenchment")
        .joinpath("data/claims.json")
        .read_text(encoding="utf-8")
    )
    return tuple(json.loads(text)["claims"])


def claim_proposition(claim: str) -> str:
    return f'Claim: "{loaders.as_sentence(claim)}" All things considered, is this claim right?'


def _urn_question(problem: urn.UrnProblem, key: str) -> Question:
    return Question(
        key=key,
        proposition=urn.proposition(problem),
        reasoner_text=urn.reasoner_question(problem),
        option_yes=urn.YES_OPTION,
        option_no=urn.NO_OPTION,
        outcome=int(bool(problem.is_a)),
        cot_hint=urn.COT_HINT,
        meta={"prior": problem.prior, "red_draws": sum(d == urn.RED for d in problem.draws)},
        exact=tuple(urn.posterior_path(problem)),
    )


def _urn_problem(config: Config, rng: random.Random) -> urn.UrnProblem:
    return urn.sample_problem(
        rng,
        red_a=config.urn_a,
        red_b=config.urn_b,
        draws=config.draws,
        low=config.prior_low,
        high=config.prior_high,
    )


def urn_setting(config: Config) -> str:
    """The urn settings that shape a urn question (and the judge baseline's trajectories)."""
    return (
        f"{config.draws} draws, red A {config.urn_a:g} / B {config.urn_b:g}, "
        f"prior U({config.prior_low:g}, {config.prior_high:g})"
    )


def urn_setting_key(config: Config) -> str:
    """A short stable hash of :func:`urn_setting`, part of every urn question's id: question
    ``i`` of seed ``s`` under 6 draws is not the same question under 10."""
    return hashlib.sha256(urn_setting(config).encode("utf-8")).hexdigest()[:8]


def urn_questions(config: Config, seed: int, n: int) -> list[Question]:
    key = urn_setting_key(config)
    out = []
    for i in range(n):
        problem = _urn_problem(config, item_random(seed, "urn", i))
        out.append(_urn_question(problem, f"{SUITE}-urn-{key}-{seed}-{i:04d}"))
    return out


def baseline_questions(config: Config, seed: int, n: int) -> list[Question]:
    """Urn questions whose reasoning is the built-in Bayesian policy's text."""
    key = urn_setting_key(config)
    out = []
    for i in range(n):
        problem = _urn_problem(config, item_random(seed, "baseline", i))
        question = _urn_question(problem, f"{SUITE}-baseline-{key}-{seed}-{i:04d}")
        out.append(replace(question, fixed_steps=tuple(urn.agent_steps(problem))))
    return out


def _permuted_prefix(pool: Sequence[Any], seed: int, name: str, n: int) -> list[Any]:
    if n > len(pool):
        raise BiaslabError(f"the {name} pool has {len(pool)} questions; --n {n} asks for more")
    order = list(range(len(pool)))
    item_random(seed, name, "order").shuffle(order)
    return [pool[i] for i in order[:n]]


def claims_questions(seed: int, n: int) -> list[Question]:
    chosen = _permuted_prefix(claim_pool(), seed, "claims", n)
    return [
        Question(
            key=f"claims:{row['id']}",
            proposition=claim_proposition(row["claim"]),
            reasoner_text=claim_proposition(row["claim"]),
            meta={"topic": row["topic"]},
        )
        for row in chosen
    ]


def forecast_proposition(q: loaders.ExternalQuestion) -> str:
    parts = [f"Forecasting question: {q.text}"]
    if q.background:
        parts.append(f"Background: {q.background}")
    if q.criteria:
        parts.append(f"Resolution criteria: {q.criteria}")
    parts.append('Will it resolve "yes"?')
    return "\n".join(parts)


def review_proposition(q: loaders.ExternalQuestion) -> str:
    parts = [f"Paper submission: {q.text}"]
    if q.background:
        parts.append(f"Abstract: {q.background}")
    if q.criteria:
        parts.append(f"Reviews:\n{q.criteria}")
    parts.append("As the area chair, will you accept or reject this submission?")
    return "\n".join(parts)


def opinion_proposition(q: loaders.ExternalQuestion) -> str:
    parts = [f'Someone posted this view and invited others to change it: "{q.text}"']
    if q.background:
        parts.append(f"Their post: {q.background}")
    parts.append("Will the discussion change the author's view?")
    return "\n".join(parts)


def perspective_proposition(q: loaders.ExternalQuestion) -> str:
    return (
        f"{q.background}\n{claim_proposition(q.text)}"
        if q.background
        else claim_proposition(q.text)
    )


def _external_pool(
    config: Config,
) -> tuple[list[loaders.ExternalQuestion], Callable[[loaders.ExternalQuestion], str]]:
    assert config.questions is not None  # enforced by Config
    if config.domain == "forecastbench":
        pool = loaders.forecastbench_questions(
            config.questions, config.resolutions, config.resolved_after, config.context_chars
        )
        return pool, forecast_proposition
    if config.domain == "reviews":
        return loaders.paper_reviews(config.questions, config.context_chars), review_proposition
    if config.domain == "opinions":
        return loaders.opinion_posts(config.questions, config.context_chars), opinion_proposition
    if config.perspectives:
        pool = loaders.perspectrum_with_perspectives(
            config.questions, config.perspectives, config.perspective_order
        )
        return pool, perspective_proposition
    return loaders.perspectrum_claims(config.questions), perspective_proposition


def variant(config: Config) -> str:
    """The domain's variant, a setup factor of its own: the perspective order on Perspectrum."""
    if config.domain == "perspectrum" and config.perspectives:
        return config.perspective_order
    return ""


def external_questions(config: Config, seed: int, n: int) -> list[Question]:
    pool, render = _external_pool(config)

    chosen = _permuted_prefix(pool, seed, config.domain, n)
    return [
        Question(
            key=q.key,
            proposition=render(q),
            reasoner_text=render(q),
            option_yes=q.option_yes,
            option_no=q.option_no,
            outcome=q.outcome,
            meta=dict(q.meta),
        )
        for q in chosen
    ]


def domain_questions(config: Config, seed: int, n: int) -> list[Question]:
    if config.domain == "urn":
        return urn_questions(config, seed, n)
    if config.domain == "claims":
        return claims_questions(seed, n)
    return external_questions(config, seed, n)


def _item(question: Question, config: Config, index: int, seed: int, source: str) -> Item:
    baseline = source == "judge_baseline"
    rng = item_random(seed, source, "urn" if baseline else config.domain, index, "presentation")
    asked_yes = rng.random() < 0.5
    yes_first = rng.random() < 0.5
    opener = YES if rng.random() < 0.5 else NO
    mode = "cot" if baseline else config.mode
    if mode == "debate":
        side, other = (
            (question.option_yes, question.option_no)
            if opener == YES
            else (question.option_no, question.option_yes)
        )
        prompt = debate_opening(question.reasoner_text, side, other, opens=True)
    else:
        prompt = cot_prompt(question.reasoner_text, question.cot_hint)
    gold = "" if question.outcome is None else (YES if question.outcome else NO)
    detail: dict[str, Any] = {
        "proposition": question.proposition,
        "reasoner_text": question.reasoner_text,
        "exact": list(question.exact) if question.exact is not None else None,
        "steps": list(question.fixed_steps) if question.fixed_steps is not None else None,
    }
    item_id = question.key if question.key.startswith(f"{SUITE}-") else None
    return Item(
        suite=SUITE,
        id=item_id or f"{SUITE}-{config.domain}-{seed}-{index:04d}",
        system=None if baseline else SYSTEM_PROMPTS[config.system_prompt],
        turns=(Turn(index=0, prompt=prompt, kind="trajectory", parser="belief", gold=gold),),
        meta={
            **question.meta,  # domain facts first: the keys below always win
            "question": question.key,
            "source": source,
            "domain": "urn" if baseline else config.domain,
            "mode": mode,
            "system_prompt": "none" if baseline else config.system_prompt,
            "option_yes": question.option_yes,
            "option_no": question.option_no,
            "asked_yes": asked_yes,
            "yes_first": yes_first,
            "opener": opener,
            "outcome": question.outcome,
            "urn_setting": urn_setting(config),
            **({"variant": variant(config)} if variant(config) and not baseline else {}),
            "detail": detail,
        },
    )


def generate(config: Config, seed: int, n: int) -> list[Item]:
    """The domain's ``n`` questions, then the judge-baseline questions when enabled."""
    for name, count in (("--n", n), ("baseline_n", config.baseline_n or 0)):
        if count > MAX_URN_QUESTIONS:
            raise BiaslabError(
                f"entrenchment: {name} {count} is above the limit of {MAX_URN_QUESTIONS:,} "
                "questions per call (generate larger sets as several seeds)"
            )
    items = [
        _item(q, config, i, seed, "model") for i, q in enumerate(domain_questions(config, seed, n))
    ]
    if config.judge_baseline:
        count = config.baseline_n or n
        items += [
            _item(q, config, i, seed, "judge_baseline")
            for i, q in enumerate(baseline_questions(config, seed, count))
        ]
    return items


def label_stats(items: Sequence[Item]) -> dict[str, Any]:
    """Outcome balance, option presentation and debate openers of the model's questions."""
    model = [it for it in items if it.meta.get("source") == "model"]
    outcomes = [it.meta.get("outcome") for it in model]
    return {
        "questions": len(model),
        "judge_baseline_questions": len(items) - len(model),
        "outcome_yes": sum(1 for o in outcomes if o == 1),
        "outcome_no": sum(1 for o in outcomes if o == 0),
        "outcome_unknown": sum(1 for o in outcomes if o is None),
        "judge_asked_about_yes": sum(1 for it in model if it.meta.get("asked_yes")),
        "debate_yes_opens": sum(1 for it in model if it.meta.get("opener") == YES),
    }
