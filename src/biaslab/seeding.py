"""The only place randomness is created.

Every item gets its own generator derived from ``numpy.random.SeedSequence(seed)`` with a spawn key
of (stream, index), so item *i* is identical whether 10 or 1000 items are generated, and nothing
depends on ``PYTHONHASHSEED``, the wall clock or set iteration order.
"""

from __future__ import annotations

import hashlib
import random
from functools import lru_cache

import numpy as np

_STATE_WORDS = 4  # 128 bits of state handed to random.Random


def stable_hash(*parts: object) -> int:
    """A 64-bit hash of the parts' text that is the same in every process (unlike ``hash``)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def seed_sequence(seed: int, *keys: object) -> np.random.SeedSequence:
    """SeedSequence for ``seed`` spawned along ``keys`` (ints are used as is, other keys hashed)."""
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    spawn_key = tuple(_key_number(k) for k in keys)
    return np.random.SeedSequence(seed, spawn_key=spawn_key)


def _key_number(key: object) -> int:
    if isinstance(key, int) and key >= 0:
        return key
    return _text_key_number(key) if isinstance(key, str) else stable_hash(key)


@lru_cache(maxsize=4096)
def _text_key_number(key: str) -> int:
    """The hash of a text key: the few stream names ("content", a family, a hypothesis, …) are
    hashed for every item, so they are remembered."""
    return stable_hash(key)


def item_generator(seed: int, *keys: object) -> np.random.Generator:
    """A numpy Generator private to one item (or one sub-stream of it)."""
    return np.random.default_rng(seed_sequence(seed, *keys))


def item_random(seed: int, *keys: object) -> random.Random:
    """A ``random.Random`` private to one item, for choice/shuffle/sample on Python lists."""
    state = seed_sequence(seed, *keys).generate_state(_STATE_WORDS, dtype=np.uint32)
    return random.Random(int.from_bytes(state.tobytes(), "little"))
