"""An items file and its sidecar, read once for every export format.

Both formats carry the whole item (as canonical JSON) beside the columns a harness reads, so what
comes back from another harness — a sample log that echoes its document — can be joined to the
item without the original file, and nothing the analysis needs is lost on the way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError
from biaslab.schema import GenerationMeta, Item, dumps_sorted, read_generation_meta, read_items


@dataclass(frozen=True)
class ItemSet:
    """The items of one generated file, with the seed, version and config that made them."""

    path: Path
    items: tuple[Item, ...]
    meta: GenerationMeta

    @property
    def suite(self) -> str:
        return self.meta.suite


def load_item_set(path: Path) -> ItemSet:
    """Items plus sidecar; a file whose items are not all of the sidecar's suite is refused,
    because the card and the task would then describe probes they do not hold."""
    if not path.is_file():
        raise BiaslabError(f"no such file: {path}")
    items = tuple(read_items(path))
    meta = read_generation_meta(path)
    if not items:
        raise BiaslabError(f"{path}: no items to export")
    others = sorted({item.suite for item in items} - {meta.suite})
    if others:
        raise BiaslabError(
            f"{path}: items of suite {others[0]!r} in a file whose sidecar says {meta.suite!r}"
        )
    return ItemSet(path, items, meta)


def item_json(item: Item) -> str:
    """The item as canonical JSON (sorted keys): the same text the items file holds."""
    return dumps_sorted(item.model_dump(mode="json"))


def single_prompt_doc(item: Item, seed: int) -> dict[str, Any]:
    """One row for a harness that asks one prompt and reads one reply: the first (only) turn's
    question, its allowed labels and gold, and the whole item for reading the replies back."""
    turn = item.turns[0]
    return {
        "id": item.id,
        "suite": item.suite,
        "system": item.system or "",
        "prompt": turn.prompt,
        "labels": list(turn.labels) if turn.labels is not None else None,
        "gold": turn.gold,
        "seed": seed,
        "item": item_json(item),
    }
