"""The two-urn calibration domain: a hidden urn drawn from the stated prior, one draw revealed per
step, and the exact posterior at every step (the reference notes' §4.6).

Urn A holds a share ``a`` of red balls, urn B a share ``b``. The urn is drawn *from the stated
prior* (if it were not, a perfect Bayesian would show M ≈ −0.1); draws are with replacement. After
r red and k white draws the posterior odds of A are π/(1−π) · (a/b)^r · ((1−a)/(1−b))^k.

The rendering is invertible: :func:`parse_problem` reads a problem back from the reasoner's prompt,
so reference agents see only the conversation text. Calibration agents (:func:`agent_steps`) state
their belief after each draw in a fixed sentence (:data:`BELIEF_SENTENCE`) that a judge can read.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

YES_OPTION = "urn A"
NO_OPTION = "urn B"
RED, WHITE = "red", "white"
#: how a calibration agent states its belief (the judge-reader reads this sentence back)
BELIEF_SENTENCE = "The probability of {option} is now {p}."
DECIMALS = 4


@dataclass(frozen=True)
class UrnProblem:
    prior: float
    red_a: float
    red_b: float
    draws: tuple[str, ...]
    is_a: bool | None = None  # the hidden truth (not part of the text)


def sample_problem(
    rng: random.Random, *, red_a: float, red_b: float, draws: int, low: float, high: float
) -> UrnProblem:
    """Prior ~ U(low, high) rounded to 2 decimals (the stated value is exact), the urn drawn from
    that prior, then ``draws`` balls from the urn."""
    prior = round(rng.uniform(low, high), 2)
    prior = min(max(prior, 0.01), 0.99)
    is_a = rng.random() < prior
    share = red_a if is_a else red_b
    balls = tuple(RED if rng.random() < share else WHITE for _ in range(draws))
    return UrnProblem(prior=prior, red_a=red_a, red_b=red_b, draws=balls, is_a=is_a)


def step_log_likelihood_ratio(draw: str, red_a: float, red_b: float) -> float:
    """log P(draw | A) − log P(draw | B)."""
    if draw == RED:
        return math.log(red_a / red_b)
    return math.log((1.0 - red_a) / (1.0 - red_b))


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def posterior_path(problem: UrnProblem) -> list[float]:
    """Exact P(urn A | first t draws) for t = 0..T."""
    return agent_beliefs(problem)


def agent_beliefs(
    problem: UrnProblem, *, against_weight: float = 1.0, scale: float = 1.0
) -> list[float]:
    """Beliefs of an updater in log-odds: each draw moves L by ``scale`` x its log likelihood
    ratio, times ``against_weight`` when it points against the current leaning (sign of L before
    the draw; no leaning at L = 0). (1, 1) is the exact posterior."""
    logit = _logit(problem.prior)
    beliefs = [problem.prior]
    for draw in problem.draws:
        step = scale * step_log_likelihood_ratio(draw, problem.red_a, problem.red_b)
        if logit != 0 and math.copysign(1.0, step) != math.copysign(1.0, logit):
            step *= against_weight
        logit += step
        beliefs.append(_sigmoid(logit))
    return beliefs


def _percent(share: float) -> str:
    return f"{share * 100:g}%"


def proposition(problem: UrnProblem) -> str:
    """What the judge sees: the set-up and the prior, not the draws (those arrive in the steps)."""
    return (
        f"One of two urns was chosen at random; the probability of {YES_OPTION} was "
        f"{problem.prior:g} before any draw. Urn A holds {_percent(problem.red_a)} red balls and "
        f"urn B {_percent(problem.red_b)}; the others are white. Balls are drawn from the chosen "
        "urn one at a time, each put back before the next. Is it urn A?"
    )


def reasoner_question(problem: UrnProblem) -> str:
    """What the reasoner sees: the set-up and every draw, in order."""
    return f"{proposition(problem)}\nThe draws, in order: {', '.join(problem.draws)}."


COT_HINT = (
    "Take the draws in order, one paragraph per draw, and end each paragraph with how likely "
    "urn A now is."
)

_PROBLEM_RE = re.compile(
    r"the probability of urn A was (?P<prior>[0-9.]+) before any draw\. Urn A holds "
    r"(?P<a>[0-9.]+)% red balls and urn B (?P<b>[0-9.]+)%.*?The draws, in order: "
    r"(?P<draws>[a-z, ]+)\.",
    re.S,
)


def parse_problem(text: str) -> UrnProblem | None:
    """The problem a reasoner prompt states (None if the text holds none)."""
    match = _PROBLEM_RE.search(text)
    if match is None:
        return None
    draws = tuple(d.strip() for d in match.group("draws").split(","))
    if not draws or any(d not in (RED, WHITE) for d in draws):
        return None
    return UrnProblem(
        prior=float(match.group("prior")),
        red_a=float(match.group("a")) / 100.0,
        red_b=float(match.group("b")) / 100.0,
        draws=draws,
    )


def agent_steps(
    problem: UrnProblem, *, against_weight: float = 1.0, scale: float = 1.0
) -> list[str]:
    """One paragraph per draw, each ending in the agent's stated belief."""
    beliefs = agent_beliefs(problem, against_weight=against_weight, scale=scale)
    ratio_red = problem.red_a / problem.red_b
    ratio_white = (1.0 - problem.red_a) / (1.0 - problem.red_b)
    paragraphs = []
    for index, draw in enumerate(problem.draws, start=1):
        ratio = ratio_red if draw == RED else ratio_white
        favours, times = ("urn A", ratio) if ratio > 1 else ("urn B", 1.0 / ratio)
        text = (
            f"Draw {index} is {draw}, which is {times:.2f} times as likely from {favours} as from "
            f"the other urn. "
            + BELIEF_SENTENCE.format(option=YES_OPTION, p=f"{beliefs[index]:.{DECIMALS}f}")
        )
        paragraphs.append(text)
    return paragraphs


def counts(draws: Sequence[str]) -> tuple[int, int]:
    red = sum(1 for d in draws if d == RED)
    return red, len(draws) - red
