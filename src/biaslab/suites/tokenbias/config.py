"""Configuration of the token-bias suite: one pydantic model, named presets and ``-p key=value`` parsing.

Only meaningful family × hypothesis combinations are accepted (see :data:`HYPOTHESES`); anything else
is a one-line :class:`~biaslab.errors.BiaslabError` naming the valid choices.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from biaslab.errors import BiaslabError

FamilyName = Literal["linda", "syllogism", "horses"]
HypothesisName = Literal["H1", "H2", "H3", "H4", "H5", "H6"]
Mode = Literal[
    "direct",
    "zs-cot",
    "one-shot",
    "one-shot-cot",
    "one-shot-incorrect",
    "one-shot-incorrect-cot",
    "few-shot",
    "few-shot-cot",
]
LindaStyle = Literal["bio", "story", "news", "medical"]
#: every conjunction style: the test styles and the celebrity scenarios of H3
Style = LindaStyle | Literal["celebrity"]
Connector = Literal["because", "so-that", "to"]
Hint = Literal["none", "weak", "strong"]
#: what a member's system message adds: a hint, or the irrelevant instruction of a hint's length
#: that the H6 original carries (``control-weak``, ``control-strong``)
ShownHint = Hint | Literal["control-weak", "control-strong"]
H6Control = Literal["length", "none"]
Order = Literal["balanced", "counterbalanced"]
AddedEvent = Literal["relevant", "irrelevant", "mixed"]
Wording = Literal["classic", "synonyms"]
HorsesTwin = Literal["animal", "numbers", "both"]
HorsesNumbers = Literal["classic", "varied"]

LINDA_STYLES: tuple[LindaStyle, ...] = typing.get_args(LindaStyle)
CONNECTORS: tuple[Connector, ...] = typing.get_args(Connector)

FAMILIES: tuple[FamilyName, ...] = ("linda", "syllogism", "horses")

#: family -> the hypotheses it can test (what each one perturbs is in HYPOTHESIS_DOCS)
HYPOTHESES: dict[FamilyName, tuple[HypothesisName, ...]] = {
    "linda": ("H1", "H2", "H3", "H6"),
    "syllogism": ("H4", "H5", "H6"),
    "horses": ("H3",),
}

HYPOTHESIS_DOCS: dict[HypothesisName, str] = {
    "H1": "linda: relevant added event -> irrelevant added event",
    "H2": "linda: one-shot exemplar 'Linda' -> 'Bob' (same test question)",
    "H3": "linda: celebrity -> generic name; horses: horses -> other animal and/or numbers",
    "H4": "syllogism: 'All'/'Some' -> equivalent quantifier wordings",
    "H5": "syllogism: reputable -> less reputable sources",
    "H6": "linda, syllogism: no hint -> weak or strong hint",
}

#: the analysis' families: syllogisms are analysed by validity (the paper's claims are about
#: invalid ones, and for valid ones the expected shift can reverse)
ANALYSIS_FAMILIES: dict[FamilyName, tuple[str, ...]] = {
    "linda": ("linda",),
    "syllogism": ("syllogism-invalid", "syllogism-valid"),
    "horses": ("horses",),
}


class Config(BaseModel):
    """What to generate. ``n`` and ``seed`` are arguments of ``generate``, not configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    family: FamilyName | Literal["all"] = "all"
    hypothesis: HypothesisName | Literal["all"] = "all"
    mode: Mode = "direct"
    exemplar: Literal["linda", "bob"] = "linda"
    hint: Hint = "none"
    h6_hint: Literal["weak", "strong"] = "strong"
    h6_control: H6Control = "length"
    order: Order = "balanced"
    styles: tuple[LindaStyle, ...] = LINDA_STYLES
    connectors: tuple[Connector, ...] = CONNECTORS
    added_event: AddedEvent = "relevant"
    quantifiers: Wording = "synonyms"
    validity: Literal["balanced", "valid", "invalid"] = "balanced"
    horses_twin: HorsesTwin = "animal"
    horses_numbers: HorsesNumbers | None = None
    horses_exemplar: Literal["numbers", "animal", "both"] = "numbers"

    @field_validator("styles", "connectors")
    @classmethod
    def _at_least_one(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("at least one value is needed")
        return tuple(dict.fromkeys(value))

    @model_validator(mode="after")
    def _valid_combination(self) -> Config:
        if not combinations(self):
            valid = "; ".join(f"{f}: {', '.join(h)}" for f, h in HYPOTHESES.items())
            raise BiaslabError(
                f"tokenbias: family {self.family!r} has no hypothesis {self.hypothesis!r} "
                f"(valid: {valid})"
            )
        if self.horses_twin != "animal" and self.horses_numbers == "varied":
            raise BiaslabError(
                f"tokenbias: horses_twin={self.horses_twin} changes the famous numbers, so the "
                "original is the classic problem (25 horses, 5 lanes, top 3): "
                "horses_numbers=varied does not combine with it"
            )
        if self.hypothesis == "H6" and self.hint != "none":
            raise BiaslabError(
                "tokenbias: hint must be 'none' with H6 (h6_hint sets the twin's hint)"
            )
        return self


def combinations(config: Config) -> list[tuple[FamilyName, HypothesisName]]:
    """The (family, hypothesis) blocks a config generates, in a fixed order."""
    families = FAMILIES if config.family == "all" else (config.family,)
    return [
        (family, hypothesis)
        for family in families
        for hypothesis in HYPOTHESES[family]
        if config.hypothesis in ("all", hypothesis)
    ]


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "linda": {"family": "linda"},
    "classic-exemplar": {"family": "linda", "hypothesis": "H2", "mode": "one-shot"},
    "quantifiers": {"family": "syllogism", "hypothesis": "H4"},
    "sources": {"family": "syllogism", "hypothesis": "H5"},
    "hints": {"hypothesis": "H6", "mode": "zs-cot", "h6_hint": "strong"},
    "horses": {"family": "horses", "hypothesis": "H3", "horses_twin": "animal"},
}

PARAMETER_DOCS: dict[str, str] = {
    "family": "linda | syllogism | horses | all — which problem family",
    "hypothesis": "H1..H6 | all — which perturbation (only combinations the family supports)",
    "mode": "direct | zs-cot | one-shot | one-shot-cot | one-shot-incorrect | "
    "one-shot-incorrect-cot (the exemplar answered wrongly) | few-shot | few-shot-cot "
    "(H2 upgrades direct/zs-cot to one-shot/one-shot-cot: it needs an exemplar)",
    "exemplar": "linda | bob — the one-/few-shot conjunction exemplar's name outside H2",
    "hint": "none | weak | strong — hint for both items of a pair (not with H6; horses have none)",
    "h6_hint": "weak | strong — the hint H6 adds to the twin",
    "h6_control": "length | none — the H6 original: an irrelevant instruction of the hint's length "
    "(default; the twin swaps it for the hint, so the pair differs in the hint's content, not its "
    "length) or no instruction (the paper's design: the twin is also longer)",
    "order": "balanced | counterbalanced — the correct option's position across pairs: balanced "
    "by block randomisation (default) or alternating pair by pair (0, 1, 0, ...; horses cycle "
    "through the five positions); both members of a pair share it",
    "styles": "comma list of bio, story, news, medical — conjunction styles for H1/H2/H6 "
    "(H3 is always celebrity)",
    "connectors": "comma list of because, so-that, to — how story and news added events attach",
    "added_event": "relevant | irrelevant | mixed — the conjunct of H2/H6 conjunction questions",
    "quantifiers": "classic | synonyms — quantifier wording of H5/H6 syllogisms (H4 contrasts both)",
    "validity": "balanced | valid | invalid — which syllogisms to emit",
    "horses_twin": "animal | numbers | both — what the horses twin changes",
    "horses_numbers": "classic | varied — the horses original's numbers when only the animal "
    "changes (default varied: distinct problems; classic: the one problem of 25 horses, 5 lanes, "
    "top 3, which every pair then shows and the analysis counts once). A numbers twin always "
    "has the classic original",
    "horses_exemplar": "numbers | animal | both — the one-shot horse exemplar: horses with other "
    "numbers, another animal with the classic numbers, or both changed",
}


def resolve_config(
    preset: str | None = "default", overrides: Mapping[str, str] | None = None
) -> Config:
    """Preset (None = "default") plus ``-p key=value`` overrides -> Config, with one-line errors
    naming the valid keys and values."""
    preset = preset or "default"
    if preset not in PRESETS:
        raise BiaslabError(f"unknown tokenbias preset {preset!r} (presets: {', '.join(PRESETS)})")
    values: dict[str, Any] = dict(PRESETS[preset])
    for key, raw in (overrides or {}).items():
        values[key] = _parse_value(key, raw)
    try:
        return Config(**values)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(p) for p in error["loc"]) or "config"
        raise BiaslabError(f"tokenbias parameter {key}: {error['msg']}") from None


def _parse_value(key: str, raw: str) -> Any:
    if key not in Config.model_fields:
        valid = ", ".join(Config.model_fields)
        raise BiaslabError(f"unknown tokenbias parameter {key!r} (valid: {valid})")
    choices = _choices(key)
    listed = key in ("styles", "connectors")
    values = [v.strip() for v in raw.split(",")] if listed else [raw.strip()]
    bad = [v for v in values if choices and v not in choices]
    if bad:
        raise BiaslabError(
            f"bad value {bad[0]!r} for tokenbias parameter {key} (choose from {', '.join(choices)})"
        )
    return tuple(values) if listed else values[0]


def _choices(key: str) -> tuple[str, ...]:
    """The literal values a field accepts (flattening unions and tuples of literals)."""
    annotation = Config.model_fields[key].annotation
    found: list[str] = []

    def walk(tp: Any) -> None:
        if typing.get_origin(tp) is Literal:
            found.extend(str(a) for a in typing.get_args(tp))
        else:
            for arg in typing.get_args(tp):
                walk(arg)

    walk(annotation)
    return tuple(dict.fromkeys(found))
