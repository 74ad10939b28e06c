"""A held-out family of answerers for checking the bias nulls (``bench/bench_bias_nulls.py``).

Written apart from ``nulls.py`` and never used to choose its design: each agent rewrites the
oracle's answers of a generated run (the tidy frame of :func:`~biaslab.suites.defeasible.inprocess.
agent_frame`), turn by turn in conversation order.

*Memoryless* agents answer every question from what the conversation states, never from their own
earlier replies: at each turn they give the gold answer with a probability that depends on one
property of the conversation so far, else a label drawn uniformly from all labels (so sometimes the
gold by chance). Replacing their earlier replies changes none of their answers, so none of them is
confirmation-biased; a null that flags one above the nominal rate is wrong.

*Sticky* agents are biased on purpose, one in each direction: they answer like the oracle except
that, when the gold moves away from their own previous answer in the section, they keep a previous
"yes" (``keeps-yes``) or a previous "no" (``keeps-no``) with probability ``p``.

Each draw comes from its own seeded stream (seed, agent, item, turn): the same seed gives the same
answers in every process, and no answer depends on another draw's order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from biaslab.seeding import seed_sequence, stable_hash
from biaslab.suites.defeasible.labels import EFFECT_LABELS, ENTAILMENT_LABELS

#: accuracy of the update-kind agent per kind (others: 0.85)
KIND_ACCURACY: Mapping[str, float] = {
    "initial": 0.95,
    "exception": 0.55,
    "class-exception": 0.6,
    "source-claim": 0.65,
    "source-rule": 0.7,
    "bypass": 0.75,
    "cross-link": 0.7,
    "confirm": 0.95,
    "distractor": 0.9,
}
STICKY_P = 0.6


def _number(value: Any, default: float) -> float:
    if value is None or isinstance(value, str):
        return default
    number = float(value)
    return default if np.isnan(number) else number


def by_distance(turn: Mapping[str, Any]) -> float:
    """Falls with the update's distance from the subject (the openings: distance 0)."""
    return 0.95 * 0.75 ** _number(turn.get("distance"), 0.0)


def by_path_length(turn: Mapping[str, Any]) -> float:
    """Falls with the length of the subject's chain to the property (the item's path length)."""
    return float(np.clip(1.05 - 0.07 * _number(turn.get("item_chain_length"), 1.0), 0.3, 1.0))


def by_rule_count(turn: Mapping[str, Any]) -> float:
    """Falls with the number of rules stated so far in the conversation."""
    return float(np.clip(1.1 - 0.035 * _number(turn.get("rules_so_far"), 0.0), 0.3, 1.0))


def by_message_index(turn: Mapping[str, Any]) -> float:
    """Falls with the message's position in the conversation (its turn index)."""
    return float(np.clip(0.98 - 0.035 * _number(turn.get("turn"), 0.0), 0.3, 1.0))


def by_update_kind(turn: Mapping[str, Any]) -> float:
    """Depends on the kind of update the message reveals."""
    return KIND_ACCURACY.get(str(turn.get("update_type")), 0.85)


def by_item_latent(turn: Mapping[str, Any]) -> float:
    """A per-item skill (drawn once per item from its id), the same at every turn of the item."""
    draw = stable_hash("heldout-latent", turn.get("item_id")) / 2**64
    return 0.35 + 0.65 * draw


def by_everything(turn: Mapping[str, Any]) -> float:
    """Distance, update kind and the item's latent skill at once."""
    return by_distance(turn) * by_update_kind(turn) / 0.95 * (0.5 + 0.5 * by_item_latent(turn))


Accuracy = Callable[[Mapping[str, Any]], float]

#: the memoryless agents: name -> probability of answering the gold at a turn
MEMORYLESS: Mapping[str, Accuracy] = {
    "distance": by_distance,
    "path-length": by_path_length,
    "rule-count": by_rule_count,
    "message-index": by_message_index,
    "update-kind": by_update_kind,
    "item-latent": by_item_latent,
    "mixed": by_everything,
}


@dataclass(frozen=True)
class Sticky:
    """Keeps its own previous ``label`` in the section with probability ``p`` when the gold moves
    away from it; otherwise the oracle."""

    label: str
    p: float = STICKY_P


#: the truly biased agents: one-sided stickiness in each direction
STICKY: Mapping[str, Sticky] = {"keeps-yes": Sticky("yes"), "keeps-no": Sticky("no")}
AGENTS = (*MEMORYLESS, *STICKY)


def _rules_so_far(frame: pd.DataFrame) -> np.ndarray:
    """Rules stated up to and including each turn (the links each turn's message adds)."""
    added = [len(a) if isinstance(a, list) else 0 for a in frame.get("added", [None] * len(frame))]
    count = pd.Series(added, index=frame.index, dtype=float)
    return count.groupby(frame["item_id"]).cumsum().to_numpy(float)


def _draw(seed: int, agent: str, item_id: str, turn: int) -> np.random.Generator:
    return np.random.default_rng(seed_sequence(seed, "heldout", agent, item_id, turn))


def _memoryless_answer(
    accuracy: float, gold: str, labels: tuple[str, ...], rng: np.random.Generator
) -> str:
    right, pick = rng.random(2)
    return gold if right < accuracy else labels[int(pick * len(labels))]


def answers(oracle: pd.DataFrame, agent: str, seed: int) -> list[str]:
    """The agent's answer at every row of the oracle's frame (rows in conversation order)."""
    records = oracle.assign(rules_so_far=_rules_so_far(oracle)).to_dict("records")
    turns: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in records]
    if agent in MEMORYLESS:
        accuracy = MEMORYLESS[agent]
        found = []
        for turn in turns:
            labels = EFFECT_LABELS if turn["kind"] == "effect" else ENTAILMENT_LABELS
            rng = _draw(seed, agent, str(turn["item_id"]), int(turn["turn"]))
            found.append(_memoryless_answer(accuracy(turn), str(turn["gold"]), labels, rng))
        return found
    if agent not in STICKY:
        raise ValueError(f"unknown held-out agent {agent!r}; choose from {', '.join(AGENTS)}")
    sticky = STICKY[agent]
    found, previous, where = [], None, None
    for turn in turns:
        gold = str(turn["gold"])
        if turn["kind"] == "effect":
            found.append(gold)
            continue
        if (turn["item_id"], turn["section"]) != where:
            where, previous = (turn["item_id"], turn["section"]), None
        answer = gold
        if previous == sticky.label and gold != sticky.label:
            rng = _draw(seed, agent, str(turn["item_id"]), int(turn["turn"]))
            answer = sticky.label if rng.random() < sticky.p else gold
        found.append(answer)
        previous = answer
    return found


def heldout_frame(oracle: pd.DataFrame, agents: tuple[str, ...], seed: int) -> pd.DataFrame:
    """The oracle's frame answered by each held-out agent (model ``heldout/<agent>``)."""
    order = oracle.sort_values(["item_id", "turn"], kind="stable").reset_index(drop=True)
    frames = []
    for agent in agents:
        df = order.copy()
        df["predicted"] = answers(order, agent, seed)
        df["parsed"] = True
        df["correct"] = df["predicted"] == df["gold"]
        df["model"] = f"heldout/{agent}"
        df["run_key"] = f"{stable_hash('heldout', agent, seed):016x}"
        df["label_probs"] = None
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


__all__ = ["AGENTS", "MEMORYLESS", "STICKY", "Sticky", "answers", "heldout_frame"]
