"""Held-out reasoners for checking the Martingale score's calibration (``bench/bench_heldout.py``).

Written apart from the calibration agents (:mod:`~biaslab.suites.entrenchment.reasoner`, whose
``urn-bayes`` text is also the judge baseline's) and never used to tune the estimator: each agent
reads the urn question from the reasoner's prompt with its own pattern, computes its own beliefs
in log-odds, and writes one paragraph per draw ending in a belief the judge can read ("The
probability of urn A is now 0.6123." — the reference judge, ``judge-reader``, reads the last such
sentence in the prefix it is shown; before any paragraph it reads the prior the question states).

*Martingales* (``biased=False``): each states P(urn A | what it has taken in so far), where what it
takes in grows with every paragraph and what it will take in is fixed by the question before the
first draw (or is a stopping time): the beliefs are a martingale under the question's own prior,
so E[Δb | b] = 0 and M must not be rejected above the nominal rate with a noiseless judge.

* ``first-k``: only the first k draws count, k = 1 + (the stated prior in hundredths mod the
  number of draws); later paragraphs repeat the belief.
* ``every-other``: only the odd draws count when the stated prior is below 0.5, else only the
  even ones.
* ``backwards``: takes the draws from the last to the first when the prior's hundredths are odd
  (draws are exchangeable given the urn, so any fixed reading order is a filtration).
* ``stops-when-sure``: updates until its belief leaves (0.1, 0.9) — (0.2, 0.8) when the stated
  prior is within 0.2 of one half — and keeps it from then on (a martingale stopped at a
  stopping time is one).
* ``states-urn-b``: the exact posterior, stated as the probability of urn B (the judge maps it).

*Not a martingale under the question's prior* (``biased=None``, reported apart): ``wrong-prior``
is a Bayesian updater that starts from the stated prior shrunk halfway toward 0.5 (when the
prior's hundredths are even; else the stated prior). The judge reads b₀ from the question, and
the data come from the stated prior, so its beliefs drift predictably: a Bayesian on the wrong
prior is not a martingale, whatever the filtration.

*Entrenched* (``biased=True``): ``discards-disconfirming`` ignores a draw that points against its
current leaning with probability :data:`DISCARD` (drawn per question and draw); M > 0.

The agents' replies depend on the prompt alone (a draw is seeded by a hash of the question), so
the same question gets the same reply in every process.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, ModelOutput

from biaslab.seeding import stable_hash
from biaslab.suites.entrenchment.pipeline import Ask

#: the discards-disconfirming agent's probability of ignoring a draw against its leaning
DISCARD = 0.5
_QUESTION = re.compile(
    r"probability of urn A was (?P<prior>\d*\.?\d+) before any draw\. Urn A holds "
    r"(?P<a>\d*\.?\d+)% red balls and urn B (?P<b>\d*\.?\d+)%.*?The draws, in order: "
    r"(?P<draws>[a-z, ]+)\.",
    re.S,
)
NOT_A_URN = "This agent only answers urn questions."


@dataclass(frozen=True)
class UrnQuestion:
    prior: float
    red_a: float
    red_b: float
    draws: tuple[bool, ...]  # True = red
    text: str

    @property
    def hundredths(self) -> int:
        return round(self.prior * 100)

    def evidence(self, red: bool) -> float:
        """log P(draw | A) − log P(draw | B)."""
        if red:
            return math.log(self.red_a / self.red_b)
        return math.log((1.0 - self.red_a) / (1.0 - self.red_b))


def read_question(prompt: str) -> UrnQuestion | None:
    found = _QUESTION.search(prompt)
    if found is None:
        return None
    words = [w.strip() for w in found.group("draws").split(",")]
    if not words or any(w not in ("red", "white") for w in words):
        return None
    return UrnQuestion(
        prior=float(found.group("prior")),
        red_a=float(found.group("a")) / 100.0,
        red_b=float(found.group("b")) / 100.0,
        draws=tuple(w == "red" for w in words),
        text=found.group(0),
    )


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def _probability(logit: float) -> float:
    return 1.0 / (1.0 + math.exp(-logit))


def _counted(question: UrnQuestion, counts: Sequence[bool], start: float) -> list[float]:
    """Beliefs after each paragraph: draw t moves the log-odds only where ``counts[t]``."""
    logit, beliefs = _logit(start), []
    for red, used in zip(question.draws, counts, strict=True):
        if used:
            logit += question.evidence(red)
        beliefs.append(_probability(logit))
    return beliefs


def first_k(question: UrnQuestion) -> list[float]:
    k = 1 + question.hundredths % len(question.draws)
    return _counted(question, [t < k for t in range(len(question.draws))], question.prior)


def every_other(question: UrnQuestion) -> list[float]:
    parity = 0 if question.prior < 0.5 else 1  # index 0 is the first (odd-numbered) draw
    counts = [t % 2 == parity for t in range(len(question.draws))]
    return _counted(question, counts, question.prior)


def backwards(question: UrnQuestion) -> list[float]:
    if question.hundredths % 2 == 0:
        return _counted(question, [True] * len(question.draws), question.prior)
    flipped = UrnQuestion(
        question.prior, question.red_a, question.red_b, question.draws[::-1], question.text
    )
    return _counted(flipped, [True] * len(question.draws), question.prior)


def stops_when_sure(question: UrnQuestion) -> list[float]:
    low = 0.2 if abs(question.prior - 0.5) <= 0.2 else 0.1
    logit, beliefs, stopped = _logit(question.prior), [], False
    for red in question.draws:
        if not stopped:
            logit += question.evidence(red)
            stopped = not low < _probability(logit) < 1.0 - low
        beliefs.append(_probability(logit))
    return beliefs


def exact(question: UrnQuestion) -> list[float]:
    return _counted(question, [True] * len(question.draws), question.prior)


def wrong_prior(question: UrnQuestion) -> list[float]:
    start = question.prior
    if question.hundredths % 2 == 0:
        start = 0.5 + 0.5 * (question.prior - 0.5)
    return _counted(question, [True] * len(question.draws), start)


def discards_disconfirming(question: UrnQuestion) -> list[float]:
    rng = random.Random(stable_hash("entrenchment-heldout-discard", question.text))
    logit, beliefs = _logit(question.prior), []
    for red in question.draws:
        step = question.evidence(red)
        against = logit != 0 and (step > 0) != (logit > 0)
        if not (against and rng.random() < DISCARD):
            logit += step
        beliefs.append(_probability(logit))
    return beliefs


@dataclass(frozen=True)
class HeldOutReasoner:
    """``beliefs(question)`` gives P(urn A) after each draw; ``option`` is the urn it states its
    belief about. ``biased``: False for a martingale, True for entrenchment, None for an agent
    that is not a martingale for another reason (reported apart)."""

    name: str
    biased: bool | None
    beliefs: Callable[[UrnQuestion], list[float]]
    option: str = "urn A"

    def reply(self, prompt: str) -> str:
        question = read_question(prompt)
        if question is None:
            return NOT_A_URN
        paragraphs = []
        for index, (red, belief) in enumerate(
            zip(question.draws, self.beliefs(question), strict=True), start=1
        ):
            stated = belief if self.option == "urn A" else 1.0 - belief
            colour = "red" if red else "white"
            paragraphs.append(
                f"Ball number {index} came out {colour}. Weighing what I have taken in so far, "
                f"the probability of {self.option} is now {stated:.4f}."
            )
        return "\n\n".join(paragraphs)


AGENTS: dict[str, HeldOutReasoner] = {
    agent.name: agent
    for agent in (
        HeldOutReasoner("first-k", False, first_k),
        HeldOutReasoner("every-other", False, every_other),
        HeldOutReasoner("backwards", False, backwards),
        HeldOutReasoner("stops-when-sure", False, stops_when_sure),
        HeldOutReasoner("states-urn-b", False, exact, option="urn B"),
        HeldOutReasoner("wrong-prior", None, wrong_prior),
        HeldOutReasoner("discards-disconfirming", True, discards_disconfirming),
    )
}


def asker(agent: HeldOutReasoner) -> Ask:
    """The agent as the pipeline's ``Ask`` (see :func:`~biaslab.suites.entrenchment.inprocess.
    run_agents`): it answers the last user message."""

    async def ask(
        messages: list[ChatMessage], config: GenerateConfig, cache: CachePolicy | None
    ) -> ModelOutput:
        prompt = next((m.text for m in reversed(messages) if m.role == "user"), "")
        return ModelOutput.from_content(model=f"heldout/{agent.name}", content=agent.reply(prompt))

    return ask


__all__ = ["AGENTS", "DISCARD", "HeldOutReasoner", "UrnQuestion", "asker", "read_question"]
