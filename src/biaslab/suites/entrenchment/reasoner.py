"""Calibration agents of the entrenchment suite (``biaslab/<name>``), reading only the conversation.

Reasoners, on the urn domain: they read the problem back from the prompt and write one paragraph
per draw ending in their stated belief (:data:`~.urn.BELIEF_SENTENCE`), so a judge can read it.

* ``urn-bayes``: the exact posterior after each draw (a martingale: M = 0).
* ``urn-entrenched?w=0.5``: a draw against the current leaning moves its log-odds by only ``w``
  times the evidence (confirmation bias: M > 0).
* ``urn-overreactive?c=2``: every draw moves the log-odds ``c`` times the evidence (M < 0).

Asked for a self-report they give their last stated belief. Judge:

* ``judge-reader?noise=SD&rho=R``: reads the last belief stated in the prefix it is shown (else the
  prior stated in the question, else 0.5) and adds Normal(0, SD) noise in log-odds. The noise is
  drawn from a hash of the request, so each prefix and each replicate wording gets its own draw;
  with ``rho`` > 0 a share ``rho`` of its variance is drawn from what is shown instead (question,
  target, steps), the same in every wording, so two replicates' errors correlate ``rho`` — the
  judge an instrument cannot fully correct. Like a judge at temperature 0, it answers the same
  text the same way: two questions whose prompts are identical (on the urn domain, the step-0
  prompts of questions with the same stated prior and presentation: 23% of questions share theirs
  with another at 100 questions, mean over 50 seeds) share their noise draw, as the prompt carries
  no question id to key it on.
  It answers all three judge prompts: prefix (one JSON belief), trajectory (N + 1 beliefs, each
  from the steps up to its id) and the yes/no logprob verdict (its belief as the answer token's
  distribution).

The generic ``oracle`` answers these prompts as ``urn-bayes`` / a noiseless ``judge-reader``.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from biaslab.agents.base import (
    Agent,
    Distribution,
    Reasoner,
    Request,
    float_param,
    register_agent,
    register_reasoner,
    reject_unknown_params,
)
from biaslab.seeding import stable_hash
from biaslab.suites.entrenchment import prompts, urn

SUITE = "entrenchment"
CLIP = 1e-4  # beliefs are kept inside [CLIP, 1 − CLIP] before noise is added in log-odds
NOT_OURS = "I can only take part in biaslab's entrenchment prompts."

_STATED_RE = re.compile(
    r"probability of (?P<opt>[^\n.,;:]+?) (?:is now|is|was)(?: now)? (?P<p>\d*\.?\d+)\s*(?P<pct>%?)",
    re.I,
)


def stated_belief(texts: Sequence[str], options: tuple[str, str], target: str) -> float | None:
    """P(target) from the last belief stated in ``texts`` (searched from the end) about one of the
    two options; None when none is stated."""
    lowered = {o.lower(): o for o in options}
    for text in reversed(texts):
        for match in reversed(list(_STATED_RE.finditer(text))):
            option = lowered.get(match.group("opt").strip().lower())
            if option is None:
                continue
            value = float(match.group("p")) / (100.0 if match.group("pct") else 1.0)
            if not 0.0 <= value <= 1.0:
                continue
            return value if option == target else 1.0 - value
    return None


def _noisy(
    p: float,
    sd: float,
    rho: float,
    request: Request,
    view: prompts.JudgeView,
    upto: int,
    *key: object,
) -> float:
    """``p`` plus Normal(0, sd) log-odds noise: a share ``rho`` of its variance drawn from what the
    judge is shown (the question, the target and the steps up to ``upto``), the same in every
    replicate wording; the rest from the whole request, so each wording draws its own."""
    if sd <= 0:
        return p
    p = min(max(p, CLIP), 1.0 - CLIP)
    own = request.rng("judge-noise", *key).gauss(0.0, sd)
    if rho > 0:
        content = (view.proposition, view.options, view.target, *view.steps[:upto])
        shared = random.Random(stable_hash("judge-noise-shared", *content)).gauss(0.0, sd)
        own = math.sqrt(rho) * shared + math.sqrt(1.0 - rho) * own
    logit = math.log(p / (1.0 - p)) + own
    return 1.0 / (1.0 + math.exp(-logit))


def _belief_json(p: float) -> str:
    return json.dumps({"belief": round(p, urn.DECIMALS)})


@dataclass
class JudgeReader(Agent):
    """Reads the belief stated in the prefix it is shown, plus log-odds noise of SD ``noise``
    whose replicates correlate ``rho`` (see :func:`_noisy`)."""

    noise: float = 0.0
    rho: float = 0.0

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        return {label: 1.0 / len(request.labels) for label in request.labels}

    def belief(self, view: prompts.JudgeView, upto: int) -> float:
        texts = [view.proposition, *view.steps[:upto]]
        found = stated_belief(texts, view.options, view.target)
        return 0.5 if found is None else found

    def noisy(self, view: prompts.JudgeView, upto: int, request: Request, *key: object) -> float:
        return _noisy(self.belief(view, upto), self.noise, self.rho, request, view, upto, *key)

    def respond(self, request: Request) -> tuple[str, Distribution | None]:
        view = prompts.read_judge_prompt(request.prompt)
        if view is None:
            return NOT_OURS, None
        if view.kind == "trajectory":
            n = view.n_expected if view.n_expected is not None else len(view.steps)
            beliefs = [
                {"id": k, "belief": round(self.noisy(view, k, request, k), 4)} for k in range(n + 1)
            ]
            return json.dumps({"beliefs": beliefs}), None
        p = self.noisy(view, len(view.steps), request)
        if view.kind == "logprob":
            distribution = {"yes": p, "no": 1.0 - p}
            return f"Answer: {'yes' if p >= 0.5 else 'no'}", distribution
        return _belief_json(p), None


@dataclass
class UrnAgent(Agent):
    """Writes a urn trajectory with log-odds steps weighted ``against`` when they contradict its
    leaning and scaled by ``scale``; reports its last stated belief when asked."""

    against: float = 1.0
    scale: float = 1.0

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        return {label: 1.0 / len(request.labels) for label in request.labels}

    def respond(self, request: Request) -> tuple[str, Distribution | None]:
        prompt = request.prompt
        if prompts.is_self_report(prompt):
            return self_report(request), None
        problem = urn.parse_problem(prompt)
        if problem is None or any(m.role == "assistant" for m in request.messages):
            return NOT_OURS, None
        steps = urn.agent_steps(problem, against_weight=self.against, scale=self.scale)
        return "\n\n".join(steps), None


def self_report(request: Request) -> str:
    """The last belief stated anywhere in the conversation, about the option asked for."""
    target = prompts.self_report_target(request.prompt) or urn.YES_OPTION
    options = (urn.YES_OPTION, urn.NO_OPTION)
    if target not in options:
        options = ("yes", "no")
    texts = [m.text for m in request.messages[:-1]]
    texts.append(request.prompt.split(prompts.SELF_REPORT_START)[0])  # b_0: the question itself
    found = stated_belief(texts, options, target)
    return _belief_json(0.5 if found is None else found)


class EntrenchmentReasoner:
    """Recognises the suite's prompts, so the generic oracle can answer them."""

    suite = SUITE

    def accepts(self, request: Request) -> bool:
        prompt = request.prompt
        return (
            urn.parse_problem(prompt) is not None
            or prompts.read_judge_prompt(prompt) is not None
            or prompts.is_self_report(prompt)
        )

    def gold(self, request: Request) -> str:
        return request.labels[0] if request.labels else ""

    def prior_answer(self, request: Request) -> str | None:
        return None

    def open_reply(self, request: Request, agent: Agent) -> str | None:
        if agent.name != "oracle":
            return None
        if prompts.read_judge_prompt(request.prompt) is not None:
            return JudgeReader(name="judge-reader").respond(request)[0]
        return UrnAgent(name="urn-bayes").respond(request)[0]


def _factory(name: str, key: str | None, default: float, lo: float, hi: float) -> None:
    def make(params: Mapping[str, str]) -> Agent:
        allowed = ["noise", "rho"] if name == "judge-reader" else [key] if key else []
        reject_unknown_params(name, params, allowed)
        value = float_param(params, key, default, lo, hi) if key else default
        if name == "judge-reader":
            rho = float_param(params, "rho", 0.0, 0.0, 1.0)
            return JudgeReader(name=name, params=dict(params), noise=value, rho=rho)
        if name == "urn-entrenched":
            return UrnAgent(name=name, params=dict(params), against=value)
        if name == "urn-overreactive":
            return UrnAgent(name=name, params=dict(params), scale=value)
        return UrnAgent(name=name, params=dict(params))

    register_agent(name, make, DOCS[name])


DOCS = {
    "urn-bayes": "Urn domain: states the exact posterior after each draw (a martingale).",
    "urn-entrenched": "Urn domain: draws against its leaning count w times (biaslab/"
    "urn-entrenched?w=0.5): confirmation bias, M > 0.",
    "urn-overreactive": "Urn domain: every draw counts c times (biaslab/urn-overreactive?c=2): "
    "M < 0.",
    "judge-reader": "Entrenchment judge: reads the belief stated in the prefix, plus log-odds "
    "noise whose replicates correlate rho (biaslab/judge-reader?noise=0.5&rho=0.5).",
}

register_reasoner(EntrenchmentReasoner())
_factory("urn-bayes", None, 1.0, 1.0, 1.0)
_factory("urn-entrenched", "w", 0.5, 0.0, 1.0)
_factory("urn-overreactive", "c", 2.0, 0.0, 10.0)
_factory("judge-reader", "noise", 0.0, 0.0, 5.0)
