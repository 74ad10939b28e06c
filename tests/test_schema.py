import json
from pathlib import Path

import pytest

from biaslab.errors import BiaslabError
from biaslab.runner import generate_items
from biaslab.schema import GenerationMeta, Item, Turn, meta_path, read_items, write_items
from biaslab.suites.registry import suite_names
from tests.helpers.schema import assert_turn_meta_is_json


def _item(i: int) -> Item:
    turn = Turn(
        index=0,
        prompt="Q?",
        kind="entailment",
        labels=("yes", "no"),
        gold="yes",
        meta={"z": 1, "a": 2},
    )
    return Item(suite="demo", id=f"demo-{i}", turns=(turn,), meta={"b": [1, 2], "a": None})


def test_round_trip_and_sorted_keys(tmp_path: Path) -> None:
    items = [_item(0), _item(1)]
    meta = GenerationMeta(suite="demo", generator_version="t", seed=3, config={"x": 1}, n_items=2)
    path = tmp_path / "a.jsonl"
    write_items(path, items, meta)
    assert read_items(path) == items
    first = path.read_text().splitlines()[0]
    assert list(json.loads(first)) == sorted(json.loads(first))
    assert json.loads(meta_path(path).read_text())["seed"] == 3


def test_unknown_schema_version_is_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    data = _item(0).model_dump(mode="json") | {"schema_version": 99}
    path.write_text(json.dumps(data) + "\n")
    with pytest.raises(BiaslabError, match="schema_version 99"):
        read_items(path)


def test_malformed_line_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(_item(0).model_dump(mode="json")) + "\n{oops\n")
    with pytest.raises(BiaslabError, match=r"c.jsonl:2: not valid JSON"):
        read_items(path)


def test_unknown_keys_rejected(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(_item(0).model_dump(mode="json") | {"surprise": 1}) + "\n")
    with pytest.raises(BiaslabError, match="surprise"):
        read_items(path)


@pytest.mark.parametrize("suite", sorted(set(suite_names()) - {"fallacy"}))
def test_every_suites_turn_meta_is_json(suite: str) -> None:
    """(The fallacy suite's turns are checked on the set its own tests generate.)"""
    assert_turn_meta_is_json(generate_items(suite, preset=None, n=3, seed=4, params={}).items)


def test_a_line_separator_inside_a_text_is_read_back(tmp_path: Path) -> None:
    """JSON allows U+2028 and U+2029 unescaped in a string, and write_items leaves them so."""
    turn = Turn(index=0, prompt="A\u2028B\u2029C\x85D", kind="entailment", labels=("yes", "no"),
                gold="yes")  # fmt: skip
    items = [Item(suite="demo", id="demo-0", turns=(turn,))]
    meta = GenerationMeta(suite="demo", generator_version="t", seed=3, config={}, n_items=1)
    write_items(tmp_path / "a.jsonl", items, meta)
    assert "\u2028" in (tmp_path / "a.jsonl").read_text(encoding="utf-8")
    assert read_items(tmp_path / "a.jsonl") == items
