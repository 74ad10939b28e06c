"""What every topology's planner shares: domain and name draws, reveal order, coins."""

from __future__ import annotations

import random

from biaslab.errors import BiaslabError
from biaslab.suites.defeasible.config import Config
from biaslab.suites.defeasible.conversation import (
    Update,
)
from biaslab.suites.defeasible.lexicon import Domain, Lexicon
from biaslab.suites.defeasible.words import pseudowords


def pick_domain(config: Config, rng: random.Random, lexicon: Lexicon) -> Domain:
    if config.domain != "any":
        return lexicon.domain(config.domain)
    return lexicon.domain(rng.choice(sorted(lexicon.domains)))


def entity_names(
    rng: random.Random, config: Config, lexicon: Lexicon, domain: Domain, count: int
) -> list[str]:
    """Entity names: fresh pseudowords, or the domain's real nouns (topped up from other domains)."""
    if config.entities == "pseudo":
        return pseudowords(rng, count, exclude=lexicon.source_names)
    own = list(domain.real_nouns)
    picked = rng.sample(own, min(count, len(own)))
    if count > len(own):
        others = [
            noun
            for name in sorted(lexicon.domains)
            if name != domain.name
            for noun in lexicon.domains[name].real_nouns
        ]
        if count - len(own) > len(others):
            raise BiaslabError(f"not enough real nouns for {count} entities")
        picked += rng.sample(others, count - len(own))
    return picked


def order_updates(
    rng: random.Random, updates: list[Update], config: Config
) -> tuple[str, tuple[Update, ...]]:
    """(reveal mode, updates in reveal order). Random reveal shuffles everything; serial reveal
    shows the evidence general -> specific and slots the other updates in at random places, keeping
    their planned order; mixed flips a fair coin per subject between the two (the paper's
    per-subject coin flip; every hypothesis section has its own subject)."""
    mode = config.reveal
    if mode == "mixed":
        mode = "random" if coin(rng, 0.5) else "serial"
    if mode == "random":
        ordered = list(updates)
        rng.shuffle(ordered)
    else:
        serial = sorted((u for u in updates if u.serial is not None), key=lambda u: u.serial or 0)
        ordered = list(serial)
        position = 0
        for update in (u for u in updates if u.serial is None):
            position = rng.randint(position, len(ordered))
            ordered.insert(position, update)
            position += 1
    if config.max_updates_per_section is not None:
        ordered = ordered[: config.max_updates_per_section]
    return mode, tuple(ordered)


def coin(rng: random.Random, probability: float) -> bool:
    return rng.random() < probability
