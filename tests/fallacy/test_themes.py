"""The twelve themes: enough words, and names the answer parser cannot confuse."""

from __future__ import annotations

import random

import pytest

from biaslab.errors import BiaslabError
from biaslab.suites.fallacy.mutate import CONSTANTS, PREDICATES
from biaslab.suites.fallacy.themes import (
    THEME_KEYS,
    draw_names,
    get_theme,
    hygiene_problems,
    themes,
)


def test_twelve_themes_as_in_the_paper() -> None:
    assert sorted(themes()) == sorted(THEME_KEYS) and len(THEME_KEYS) == 12


@pytest.mark.parametrize("key", THEME_KEYS)
def test_theme_has_enough_words_and_clean_names(key: str) -> None:
    theme = get_theme(key)
    assert len(theme.predicates) >= len(PREDICATES) and len(theme.objects) >= len(CONSTANTS)
    assert hygiene_problems(theme) == []


def test_hygiene_catches_clashes() -> None:
    from dataclasses import replace

    theme = get_theme("cards")
    clashing = replace(
        theme, objects=("the ace", "the ace card", "planet x"), predicates=("red", "not red")
    )
    problems = hygiene_problems(clashing)
    assert any("contained" in p for p in problems)
    assert any("grammar word" in p and "x" in p for p in problems)
    assert any("'not red'" in p for p in problems)


def test_names_are_distinct_and_seeded() -> None:
    theme = get_theme("alchemy")
    first = draw_names(theme, ["c1", "c2"], ["P1", "P2", "P3"], random.Random(3))
    again = draw_names(theme, ["c2", "c1"], ["P3", "P2", "P1"], random.Random(3))
    assert first == again
    assert len(set(first.objects.values())) == 2 and len(set(first.properties.values())) == 3
    with pytest.raises(BiaslabError):
        draw_names(theme, [f"c{i}" for i in range(9)], ["P1"], random.Random(0))
    with pytest.raises(BiaslabError, match="unknown fallacy theme"):
        get_theme("planets")
