"""Config, presets and ``-p key=value`` parsing: one-line errors that name the valid choices."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from biaslab.errors import BiaslabError
from biaslab.suites.tokenbias.config import (
    HYPOTHESES,
    PARAMETER_DOCS,
    PRESETS,
    Config,
    combinations,
    resolve_config,
)


def test_default_covers_every_valid_combination() -> None:
    config = resolve_config("default", {})
    assert config == Config() == resolve_config(None, {})
    assert combinations(config) == [(f, h) for f, hs in HYPOTHESES.items() for h in hs]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_resolves(preset: str) -> None:
    assert combinations(resolve_config(preset, {}))


def test_overrides_are_parsed() -> None:
    config = resolve_config(
        "default", {"family": "linda", "styles": "bio, medical", "mode": "few-shot"}
    )
    assert config.styles == ("bio", "medical") and config.mode == "few-shot"
    assert combinations(resolve_config("default", {"hypothesis": "H3"})) == [
        ("linda", "H3"),
        ("horses", "H3"),
    ]


def _message(excinfo: pytest.ExceptionInfo[BiaslabError]) -> str:
    text = str(excinfo.value)
    assert "\n" not in text
    return text


def test_unknown_key_lists_valid_keys() -> None:
    with pytest.raises(BiaslabError) as excinfo:
        resolve_config("default", {"colour": "red"})
    assert "unknown tokenbias parameter 'colour'" in _message(excinfo)
    assert "family" in _message(excinfo) and "horses_twin" in _message(excinfo)


@pytest.mark.parametrize(
    ("key", "value"), [("mode", "zero-shot"), ("styles", "bio,poem"), ("hypothesis", "H7")]
)
def test_bad_values_list_the_choices(key: str, value: str) -> None:
    with pytest.raises(BiaslabError) as excinfo:
        resolve_config("default", {key: value})
    assert "choose from" in _message(excinfo)


@pytest.mark.parametrize(
    ("family", "hypothesis"), [("horses", "H1"), ("syllogism", "H2"), ("linda", "H4")]
)
def test_invalid_family_hypothesis_combination(family: str, hypothesis: str) -> None:
    with pytest.raises(BiaslabError) as excinfo:
        resolve_config("default", {"family": family, "hypothesis": hypothesis})
    assert "valid: linda: H1, H2, H3, H6; syllogism: H4, H5, H6; horses: H3" in _message(excinfo)


def test_hint_is_refused_with_h6_and_unknown_preset_is_named() -> None:
    with pytest.raises(BiaslabError, match="h6_hint"):
        resolve_config("default", {"hypothesis": "H6", "hint": "weak"})
    with pytest.raises(BiaslabError, match="presets: default"):
        resolve_config("nope", {})


def test_config_forbids_extra_fields_and_docs_cover_every_field() -> None:
    with pytest.raises(ValidationError):
        Config(colour="red")  # type: ignore[call-arg]
    assert set(PARAMETER_DOCS) == set(Config.model_fields)


def test_connectors_exemplars_and_the_incorrect_exemplar_mode() -> None:
    config = resolve_config(
        "default",
        {"connectors": "to, so-that", "horses_exemplar": "animal", "mode": "one-shot-incorrect"},
    )
    assert config.connectors == ("to", "so-that") and config.horses_exemplar == "animal"
    with pytest.raises(BiaslabError, match="choose from because, so-that, to"):
        resolve_config("default", {"connectors": "because,since"})
    with pytest.raises(BiaslabError, match="bad value '' for tokenbias parameter connectors"):
        resolve_config("default", {"connectors": ""})
