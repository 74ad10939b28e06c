"""The suite-independent reference agents: oracle, random, always-yes and the confirmation-biased
``sticky`` agent. Suite-specific shortcut agents register themselves from their suite."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from biaslab.agents.base import (
    Agent,
    Distribution,
    Reasoner,
    Request,
    float_param,
    peaked,
    register_agent,
    reject_unknown_params,
)

ORACLE_CONFIDENCE = 0.98


def _gold_or_first(request: Request, reasoner: Reasoner | None) -> str:
    if reasoner is None:
        return request.labels[0]
    return reasoner.gold(request)


@dataclass
class Oracle(Agent):
    """Answers correctly by recomputing the gold label from the text (proves rendering is faithful)."""

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        return peaked(request.labels, _gold_or_first(request, reasoner), ORACLE_CONFIDENCE)


@dataclass
class RandomAgent(Agent):
    """Uniform over the allowed labels; the draw is seeded by a hash of the messages."""

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        return {label: 1.0 / len(request.labels) for label in request.labels}

    def choose(self, request: Request, distribution: Distribution) -> str:
        return request.rng("random").choice(request.labels)


@dataclass
class AlwaysYes(Agent):
    """Says "yes" whenever "yes" is allowed (else the first label): the acquiescence baseline."""

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        chosen = "yes" if "yes" in request.labels else request.labels[0]
        return peaked(request.labels, chosen, ORACLE_CONFIDENCE)


@dataclass
class Sticky(Agent):
    """Confirmation-biased oracle: when its own previous answer (same question kind, same section) was
    "yes" and the evidence now says otherwise, it keeps "yes" with probability ``p``.

    The draw is seeded by the request hash, so a run is reproducible; ``p=0`` is the oracle and
    ``p=1`` never revises a "yes".
    """

    p: float = 0.9

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        gold = _gold_or_first(request, reasoner)
        prior = reasoner.prior_answer(request) if reasoner is not None else None
        chosen = gold
        contradicted = prior == "yes" and gold != "yes" and "yes" in request.labels
        if contradicted and request.rng("sticky").random() < self.p:
            chosen = "yes"
        return peaked(request.labels, chosen, ORACLE_CONFIDENCE)


def _simple(cls: type[Agent], name: str) -> None:
    def factory(params: Mapping[str, str]) -> Agent:
        reject_unknown_params(name, params, [])
        return cls(name=name, params=dict(params))

    register_agent(name, factory, (cls.__doc__ or "").strip().splitlines()[0])


def _sticky(params: Mapping[str, str]) -> Agent:
    reject_unknown_params("sticky", params, ["p"])
    return Sticky(name="sticky", params=dict(params), p=float_param(params, "p", 0.9, 0.0, 1.0))


_simple(Oracle, "oracle")
_simple(RandomAgent, "random")
_simple(AlwaysYes, "always-yes")
register_agent(
    "sticky",
    _sticky,
    "Confirmation-biased oracle: keeps a prior 'yes' against the evidence with probability p "
    "(biaslab/sticky?p=0.9).",
)
