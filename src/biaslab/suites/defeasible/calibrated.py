"""The ``calibrated`` reference agent: the oracle's answer, with confidence that fades with distance.

It exists to test the confidence analyses (paper appendix G): a model whose confidence in the correct
answer drops with the number of hops between the updated node and the hypothesis subject must show a
negative Spearman rho (distance vs gold_conf) and a negative per-hop slope of Δgold_conf.

Confidence model: with ``k`` allowed labels, chance ``c = 1/k`` and distance ``d`` of the latest
update (0 for a section's opening question and for updates without a distance, e.g. distractors),

    p(answer) = c + (peak - c) * decay ** d,   the rest spread evenly over the other labels.

``decay`` (default 0.8, in (0, 1]) is the share of above-chance confidence kept per hop: ``decay=1``
is an oracle with constant confidence ``peak`` (default 0.95). Because ``decay > 0`` the answer stays
the mode, so the agent is always right and only its confidence moves.

Distance is recomputed from the conversation text as the generator defines it: undirected hops from
the section's subject to the updated node over the structural links (the opening's rules,
instantiations and "kind of" statements, plus cross-links revealed before the latest update: like
the generator, a cross-link is measured before it shortens anything). Only the text is used.
"""

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

DEFAULT_DECAY = 0.8
DEFAULT_PEAK = 0.95


def update_distance(request: Request) -> int | None:
    """Hops from the current subject to the node the latest update is about (None if no update,
    a distractor-like update off the structure, or text this suite cannot parse)."""
    try:
        return _distance([m.text for m in request.messages if m.role == "user"])
    except Exception:  # any parse failure just means "no distance": confidence stays at peak
        return None


def _distance(texts: list[str]) -> int | None:
    from biaslab.suites.defeasible.conversation import ClassProperty, Fact, Implication, KindOf
    from biaslab.suites.defeasible.generate import StructureGraph, updated_node
    from biaslab.suites.defeasible.lexicon import load_lexicon
    from biaslab.suites.defeasible.render import Hypothesis, parse_message

    lexicon = load_lexicon()
    structure = StructureGraph(())
    subject = prop = last = None
    for text in texts:
        for kind, payload, _ in parse_message(text, lexicon):
            if kind in ("section", "update") and isinstance(last, KindOf):
                structure.add(last.child, last.parent)  # a cross-link counts after its own turn
            if kind == "section" and isinstance(payload, Hypothesis):
                subject, prop, last = payload.subject, payload.prop, None
            elif kind == "update":
                last = payload
            elif kind == "premise" and isinstance(payload, KindOf):
                structure.add(payload.child, payload.parent)
            elif kind == "premise" and isinstance(payload, Fact):
                structure.add(payload.entity, payload.prop)  # an instantiation
            elif kind == "premise" and isinstance(payload, Implication):
                structure.add(payload.src, payload.dst)  # a chain rule
    if subject is None or last is None:
        return None
    if isinstance(last, ClassProperty) and last.prop != prop:
        return None  # an irrelevant attribute (a distractor): no distance, as in the generator
    node = updated_node(last, subject)  # type: ignore[arg-type]
    return None if node is None else structure.hops(subject, node)


def confidence(n_labels: int, distance: int | None, *, decay: float, peak: float) -> float:
    """Probability on the answer: chance + (peak - chance) * decay ** distance."""
    chance = 1.0 / n_labels
    return chance + (peak - chance) * decay ** (distance or 0)


@dataclass
class Calibrated(Agent):
    """Oracle whose confidence decays with the distance of the last update from the hypothesis
    (biaslab/calibrated?decay=0.8&peak=0.95)."""

    decay: float = DEFAULT_DECAY
    peak: float = DEFAULT_PEAK

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        labels = request.labels
        answer = reasoner.gold(request) if reasoner is not None else labels[0]
        distance = update_distance(request) if reasoner is not None else None
        p = confidence(len(labels), distance, decay=self.decay, peak=self.peak)
        return peaked(labels, answer, p)


def _calibrated(params: Mapping[str, str]) -> Agent:
    reject_unknown_params("calibrated", params, ["decay", "peak"])
    return Calibrated(
        name="calibrated",
        params=dict(params),
        decay=float_param(params, "decay", DEFAULT_DECAY, 1e-6, 1.0),
        peak=float_param(params, "peak", DEFAULT_PEAK, 0.5, 0.999),
    )


register_agent(
    "calibrated",
    _calibrated,
    "Oracle answers whose confidence decays with the last update's distance from the hypothesis "
    "(biaslab/calibrated?decay=0.8).",
)
