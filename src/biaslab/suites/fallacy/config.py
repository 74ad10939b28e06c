"""Configuration of the fallacy suite: one pydantic model and named presets (``-p key=value``
strings are parsed by the shared :mod:`biaslab.suites.params`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from biaslab.errors import BiaslabError
from biaslab.suites.fallacy.themes import THEME_KEYS
from biaslab.suites.params import resolve_params

Order = Literal["standard", "reversed", "both"]

#: most problems one ``generate`` call makes (``--n``): every problem's search, facts and items are
#: held in memory until the set is written, and at about 0.1-0.2 CPU-s per problem this is already
#: tens of minutes of work; make larger sets as several seeds
MAX_PROBLEMS = 10_000


class Config(BaseModel):
    """What to generate. ``n`` and ``seed`` are arguments of ``generate``; ``workers`` changes
    how fast, never what, so it is left out of the recorded configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_atoms: int = Field(4, ge=2, le=30)
    max_atoms: int = Field(11, ge=2, le=30)
    quantified: float = Field(0.1, ge=0.0, le=1.0)
    max_premises: int = Field(6, ge=2, le=10)
    order: Order = "standard"
    themes: tuple[str, ...] = THEME_KEYS
    problems: str | None = None
    names: Literal["theme", "source"] = "theme"
    strict: bool = False
    workers: int | None = Field(None, ge=1, le=64, exclude=True)

    @field_validator("themes")
    @classmethod
    def _known_themes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [t for t in value if t not in THEME_KEYS]
        if unknown or not value:
            raise ValueError(
                f"unknown theme {unknown[0]!r}" if unknown else "at least one theme is needed"
            )
        return tuple(dict.fromkeys(value))

    @field_validator("problems")
    @classmethod
    def _problem_file(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).is_file():
            raise ValueError(f"no such file {value!r}")
        return value

    @model_validator(mode="after")
    def _sizes(self) -> Config:
        if self.min_atoms > self.max_atoms:
            raise BiaslabError(
                f"fallacy: min_atoms ({self.min_atoms}) is larger than max_atoms ({self.max_atoms})"
            )
        return self

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(range(self.min_atoms, self.max_atoms + 1))

    @property
    def orders(self) -> tuple[str, ...]:
        return ("standard", "reversed") if self.order == "both" else (self.order,)


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "reversed": {"order": "reversed"},
    "both-orders": {"order": "both"},
    "ground": {"quantified": 0.0},
    "quantified": {"quantified": 1.0},
    "small": {"max_atoms": 6},
}

PARAMETER_DOCS: dict[str, str] = {
    "min_atoms, max_atoms": "problem sizes (atoms summed over the premises); problem i gets size "
    "min_atoms + i mod (number of sizes), so the quotas are exact (default 4..11, the paper's)",
    "quantified": "share of problems with a quantified premise, drawn per problem (default 0.1; "
    "0 = none, 1 = all)",
    "max_premises": "most premises a problem may have (default 6)",
    "order": "standard | reversed | both — premise order as presented (reversed = the whole list "
    "reversed; both = two items per problem)",
    "themes": "comma list of " + ", ".join(THEME_KEYS) + " (default all)",
    "problems": "FILE.jsonl of problems to import instead of generating: one "
    '{"id": …, "premises": ["<PyETR view>", …], "theme": …, "names": {…}} per line (theme and '
    "names optional, other keys ignored); --n is ignored, every usable row becomes an item",
    "names": "theme | source — with problems=FILE: tell the problems in our themes' words "
    "(default) or in the file's own identifiers (gravityDefying -> gravity-defying, quantix() -> "
    'quantix), so answers given to the original wording can be read; a row\'s own "names" '
    "mapping (identifier -> English) always wins",
    "strict": "true: with problems=FILE, stop at the first row that cannot be used (default false: "
    "skip it, count it and list it in the sidecar's rejected_rows)",
    "workers": "worker processes for generation (default: cores, at most 2); never changes the output",
}


def resolve_config(
    preset: str | None = "default", overrides: Mapping[str, str] | None = None
) -> Config:
    """Preset (None = "default") plus ``-p key=value`` overrides -> Config, one-line errors (the
    shared :func:`biaslab.suites.params.resolve_params`)."""
    return resolve_params(Config, "fallacy", PRESETS, preset or "default", overrides or {})
