"""The shared ``-p key=value`` conversion: every annotation a suite config uses, and one-line
errors naming the suite, the field and what was expected."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, model_validator

from biaslab.errors import BiaslabError
from biaslab.suites.params import convert, resolve_params


class Toy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["a", "b"] = "a"
    names: tuple[Literal["x", "y", "z"], ...] = ("x",)
    span: tuple[int, int] = (1, 2)
    flag: bool = False
    count: int = Field(default=3, ge=1)
    share: float = 0.5
    limit: int | None = None
    after: dt.date | None = None
    path: str | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Toy:
        if self.span[0] > self.span[1]:
            raise ValueError("span must be lo,hi with lo <= hi")
        return self


PRESETS: dict[str, dict[str, Any]] = {"default": {}, "big": {"count": 10, "mode": "b"}}


def resolve(preset: str = "default", **overrides: str) -> Toy:
    return resolve_params(Toy, "toy", PRESETS, preset, overrides)


def test_each_annotation_is_converted() -> None:
    toy = resolve(
        mode="b", names="y, z", span="4,7", flag="yes", count="5", share="0.25",
        limit="none", after="2025-06-01", path="data/q.json",
    )  # fmt: skip
    assert toy == Toy(
        mode="b", names=("y", "z"), span=(4, 7), flag=True, count=5, share=0.25, limit=None,
        after=dt.date(2025, 6, 1), path="data/q.json",
    )  # fmt: skip
    assert resolve(limit="12").limit == 12 and resolve(flag="OFF").flag is False
    assert resolve(span="3").span == (3, 3)  # one value fills a fixed tuple of one type
    assert convert(tuple[int, ...], "1,,2,") == (1, 2)


def test_presets_are_the_starting_point() -> None:
    big = resolve("big", mode="a")
    assert big.count == 10 and big.mode == "a"


@pytest.mark.parametrize(
    ("preset", "overrides", "message"),
    [
        ("huge", {}, r"unknown toy preset 'huge' \(presets: default, big\)"),
        ("default", {"colour": "red"}, r"unknown toy parameter 'colour' \(valid: mode, names"),
        ("default", {"mode": "c"}, r"toy parameter mode: 'c' \(expected one of a, b\)"),
        ("default", {"names": "x,w"}, "expected one of x, y, z"),
        ("default", {"span": "1,2,3"}, "expected 2 comma-separated values"),
        ("default", {"flag": "maybe"}, "expected true or false"),
        ("default", {"count": "many"}, "expected an integer"),
        ("default", {"share": "half"}, "expected a number"),
        ("default", {"after": "last week"}, "expected a date YYYY-MM-DD"),
        ("default", {"count": "0"}, "bad toy parameter count: Input should be greater than"),
        ("default", {"span": "5,1"}, "bad toy parameter span must be lo,hi"),
    ],
)
def test_bad_input_is_one_line(preset: str, overrides: dict[str, str], message: str) -> None:
    with pytest.raises(BiaslabError, match=message) as info:
        resolve(preset, **overrides)
    assert "\n" not in str(info.value)
