"""The urn domain's exact posterior against an independent enumeration, its martingale property,
the invertible rendering and the calibration agents' update rules."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biaslab.suites.entrenchment import urn


def reference_posterior(prior: float, a: float, b: float, draws: tuple[str, ...]) -> float:
    """Bayes' rule with exact rationals: P(A) P(draws | A) / P(draws)."""
    pa, ra, rb = Fraction(prior), Fraction(a), Fraction(b)
    like_a = like_b = Fraction(1)
    for draw in draws:
        like_a *= ra if draw == urn.RED else 1 - ra
        like_b *= rb if draw == urn.RED else 1 - rb
    return float(pa * like_a / (pa * like_a + (1 - pa) * like_b))


shares = st.floats(0.05, 0.95).map(lambda v: round(v, 2))
draw_lists = st.lists(st.sampled_from([urn.RED, urn.WHITE]), max_size=12).map(tuple)


@settings(max_examples=300, deadline=None)
@given(prior=shares, a=shares, b=shares, draws=draw_lists)
def test_posterior_path_matches_exact_bayes(
    prior: float, a: float, b: float, draws: tuple[str, ...]
) -> None:
    if a == b:
        return
    problem = urn.UrnProblem(prior=prior, red_a=a, red_b=b, draws=draws)
    path = urn.posterior_path(problem)
    for t in range(len(draws) + 1):
        assert path[t] == pytest.approx(reference_posterior(prior, a, b, draws[:t]), abs=1e-12)


@pytest.mark.parametrize("prior", [0.1, 0.5, 0.83])
def test_the_posterior_is_a_martingale_under_the_predictive(prior: float) -> None:
    """E[b_{t+1} | first t draws] = b_t, by enumerating every history and the next draw."""
    a, b = 0.7, 0.3
    for t in range(4):
        for history in itertools.product((urn.RED, urn.WHITE), repeat=t):
            now = reference_posterior(prior, a, b, history)
            p_red = now * a + (1 - now) * b
            nxt = p_red * reference_posterior(prior, a, b, (*history, urn.RED)) + (
                1 - p_red
            ) * reference_posterior(prior, a, b, (*history, urn.WHITE))
            assert nxt == pytest.approx(now, abs=1e-12)


def test_the_urn_is_drawn_from_the_stated_prior() -> None:
    problems = [
        urn.sample_problem(random.Random(i), red_a=0.7, red_b=0.3, draws=3, low=0.05, high=0.95)
        for i in range(4000)
    ]
    mean_prior = sum(p.prior for p in problems) / len(problems)
    share_a = sum(bool(p.is_a) for p in problems) / len(problems)
    assert abs(share_a - mean_prior) < 0.03
    assert all(0.05 <= p.prior <= 0.95 and p.prior == round(p.prior, 2) for p in problems)


def test_rendering_is_invertible() -> None:
    rng = random.Random(3)
    for _ in range(50):
        problem = urn.sample_problem(rng, red_a=0.65, red_b=0.25, draws=5, low=0.1, high=0.9)
        back = urn.parse_problem(urn.reasoner_question(problem))
        assert back is not None
        assert (back.prior, back.red_a, back.red_b, back.draws) == (
            problem.prior,
            problem.red_a,
            problem.red_b,
            problem.draws,
        )
    assert urn.parse_problem(urn.proposition(problem)) is None  # the judge never sees the draws


def test_calibration_agents_follow_their_update_rules() -> None:
    problem = urn.UrnProblem(0.8, 0.7, 0.3, (urn.WHITE, urn.RED, urn.WHITE))
    exact = urn.posterior_path(problem)
    entrenched = urn.agent_beliefs(problem, against_weight=0.5)
    over = urn.agent_beliefs(problem, scale=2.0)
    lr = math.log(7 / 3)
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    # leaning A (prior 0.8): the white draw counts half for the entrenched agent
    assert logit(entrenched[1]) - logit(entrenched[0]) == pytest.approx(-0.5 * lr)
    assert logit(exact[1]) - logit(exact[0]) == pytest.approx(-lr)
    assert logit(over[1]) - logit(over[0]) == pytest.approx(-2 * lr)
    steps = urn.agent_steps(problem)
    assert len(steps) == 3 and all(s.endswith(".") for s in steps)
    assert f"{exact[3]:.4f}" in steps[-1]
