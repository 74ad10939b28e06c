"""Checks on generated items that several suites' tests share."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import JsonValue, TypeAdapter

from biaslab.schema import Item


def assert_turn_meta_is_json(items: Iterable[Item]) -> None:
    """A turn's meta is not checked value by value when it is built (a JSON-value check was most
    of building a turn): a generator must give JSON values, strictly (no tuples)."""
    json_meta = TypeAdapter(dict[str, JsonValue])
    for item in items:
        for turn in item.turns:
            assert json_meta.validate_python(turn.meta, strict=True) == turn.meta
