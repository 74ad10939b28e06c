"""A suite's ``Config`` from a preset and ``-p key=value`` strings, with one-line errors.

Every suite's ``resolve_config`` does the same three things: start from a preset, convert each
``-p`` string to the type its pydantic field declares, and turn the first validation error into
one :class:`~biaslab.errors.BiaslabError` line naming the suite and the field. This module does
them once. The conversion reads the field's annotation (``typing.get_origin`` / ``get_args``);
pydantic's own lax mode would coerce ``"1"`` to ``True`` but cannot split ``"a,b"`` into a tuple or
say which values a ``Literal`` allows, which a command-line user needs to see.

Supported annotations: ``Literal[...]``, ``X | None`` (``none``, ``null`` or an empty value give
None), ``tuple[X, ...]`` (a comma list), a fixed ``tuple[X, X]`` (``lo,hi``; one value fills every
slot), ``bool``, ``int``, ``float``, ``datetime.date`` (ISO) and ``str``.
"""

from __future__ import annotations

import datetime as dt
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from biaslab.errors import BiaslabError

ConfigT = TypeVar("ConfigT", bound=BaseModel)

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


def resolve_params(
    config_type: type[ConfigT],
    suite: str,
    presets: Mapping[str, Mapping[str, Any]],
    preset: str,
    overrides: Mapping[str, str],
) -> ConfigT:
    """``presets[preset]`` with ``overrides`` converted and applied, validated as ``config_type``."""
    if preset not in presets:
        raise BiaslabError(f"unknown {suite} preset {preset!r} (presets: {', '.join(presets)})")
    values: dict[str, Any] = dict(presets[preset])
    for key, raw in overrides.items():
        values[key] = parse_param(config_type, suite, key, raw)
    try:
        return config_type(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        prefix = f"{where}: " if where else ""
        raise BiaslabError(f"bad {suite} parameter {prefix}{message}") from None


def parse_param(config_type: type[BaseModel], suite: str, key: str, raw: str) -> Any:
    """One ``-p key=value`` string as the type of ``config_type``'s field ``key``."""
    field = config_type.model_fields.get(key)
    if field is None:
        valid = ", ".join(config_type.model_fields)
        raise BiaslabError(f"unknown {suite} parameter {key!r} (valid: {valid})")
    try:
        return convert(field.annotation, raw.strip())
    except ValueError as exc:
        raise BiaslabError(f"bad value for {suite} parameter {key}: {raw!r} ({exc})") from None


def convert(annotation: Any, raw: str) -> Any:
    """``raw`` as a value of ``annotation`` (``ValueError`` saying what was expected)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        if raw not in args:
            raise ValueError(f"expected one of {', '.join(map(str, args))}")
        return raw
    if origin in (types.UnionType, typing.Union):
        if raw.lower() in ("none", "null", ""):
            return None
        return convert(next(a for a in args if a is not type(None)), raw)
    if origin is tuple:
        return _tuple(args, raw)
    return _scalar(annotation, raw)


def _tuple(args: tuple[Any, ...], raw: str) -> tuple[Any, ...]:
    parts = [p.strip() for p in raw.split(",")]
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(convert(args[0], p) for p in parts if p)
    if len(parts) == 1 and len(set(args)) == 1:
        parts = parts * len(args)
    if len(parts) != len(args):
        raise ValueError(f"expected {len(args)} comma-separated values")
    return tuple(convert(a, p) for a, p in zip(args, parts, strict=True))


def _scalar(annotation: Any, raw: str) -> Any:
    if annotation is bool:
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ValueError("expected true or false")
    if annotation is int:
        try:
            return int(raw)
        except ValueError:
            raise ValueError("expected an integer") from None
    if annotation is float:
        try:
            return float(raw)
        except ValueError:
            raise ValueError("expected a number") from None
    if annotation is dt.date:
        try:
            return dt.date.fromisoformat(raw)
        except ValueError:
            raise ValueError("expected a date YYYY-MM-DD") from None
    return raw


__all__ = ["convert", "parse_param", "resolve_params"]
