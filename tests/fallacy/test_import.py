"""Importing other people's problem files: every row the suite can decide becomes an item, the rest
are counted and listed with their reason; problems can be told in the file's own names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biaslab.cli import main
from biaslab.errors import BiaslabError
from biaslab.runner import generate_items
from biaslab.schema import Item, read_items
from biaslab.suites.fallacy.generate import label_stats
from biaslab.suites.fallacy.scoring import read_view
from biaslab.suites.fallacy.themes import source_names, source_word

MIXED = [
    {"id": "mp", "premises": ["{P(a())Q(a())}^{P(a())}", "{P(a())}"], "label": "valid"},
    {"id": "inc", "premises": ["{P(a())}", "{~P(a())}", "{Q(b())}"]},
    {"id": 7, "premises": ["∀x {Q(x*)}^{P(x*)}", "{P(c()*)}"]},
    {"id": "bare", "premises": ["{Q(b())}^{P(b())}", "{R(b())}"]},
    {"id": "taut", "premises": ["{P(a())}^{P(a())}", "{Q(a())}"]},
    "{not json",
    {"id": "bad", "premises": ["{P(a())}|"]},
    {"id": "mp", "premises": ["{P(a())}"]},
    {"premises": "{P(a())}"},
]


def write_rows(path: Path, rows: list[object]) -> Path:
    text = "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def _by_problem(items: list[Item]) -> dict[str, Item]:
    return {str(i.meta["problem_id"]): i for i in items if i.meta["order"] == "standard"}


def test_a_mixed_file_imports_to_the_end_with_the_right_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_rows(tmp_path / "mixed.jsonl", MIXED)
    out = tmp_path / "items.jsonl"
    command = ["generate", "fallacy", "-p", f"problems={path}", "-p", "order=both"]
    assert main([*command, "-o", str(out)]) == 0
    summary = capsys.readouterr().err.splitlines()[0]
    assert summary.startswith("biaslab: mixed.jsonl: imported 4 of 9 problems (1 with inconsistent")
    assert (
        "skipped 5 (biaslab generate lists each in the sidecar's rejected_rows): line 5:" in summary
    )
    items = read_items(out)
    assert len(items) == 8
    stats = label_stats(items)
    assert (stats["problems"], stats["valid"], stats["inconsistent"]) == (4, 3, 1)
    problems = _by_problem(items)
    assert sorted(problems) == ["7", "bare", "inc", "mp"]
    sidecar = json.loads(out.with_name("items.meta.json").read_text(encoding="utf-8"))
    rejected = {row["line"]: row for row in sidecar["rejected_rows"]}
    assert sorted(rejected) == [5, 6, 7, 8, 9]
    assert "adds nothing to the antecedent" in rejected[5]["reason"] and rejected[5]["id"] == "taut"
    assert "not valid JSON" in rejected[6]["reason"] and rejected[6]["id"] is None
    assert "premise 1 '{P(a())}|'" in rejected[7]["reason"]
    assert rejected[8]["reason"] == "duplicate id 'mp' (first on line 1)"
    assert "'premises' must be a non-empty list" in rejected[9]["reason"]

    inconsistent = problems["inc"].meta
    assert inconsistent["valid"] is True and inconsistent["inconsistent"] is True
    assert inconsistent["chance_share"] is None and inconsistent["oracle_conclusion"] == (
        "nothing follows"
    )
    assert problems["mp"].meta["inconsistent"] is False and problems["mp"].meta["valid"] is True
    # PyETR's ordinary supposition form, quantified and not, told as "if …, then …"
    quantified = problems["7"].turns[0].prompt
    assert "- For all x, if x is " in quantified and ", then x is " in quantified
    assert "- If " in problems["bare"].turns[0].prompt
    assert problems["7"].meta["quantified"] is True and problems["7"].meta["valid"] is True
    assert problems["7"].meta["etr_conclusion"] == "{Q(c()*)}"


def test_strict_stops_at_the_first_unusable_row(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "mixed.jsonl", MIXED[:5])
    with pytest.raises(BiaslabError, match=r"^\S*mixed.jsonl:5: cannot render") as caught:
        generate_items(
            "fallacy", preset=None, n=1, seed=0, params={"problems": str(path), "strict": "true"}
        )
    assert "\n" not in str(caught.value)


def test_a_file_without_a_usable_row_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_rows(tmp_path / "none.jsonl", [*MIXED[4:7], MIXED[8]])
    out = tmp_path / "items.jsonl"
    assert main(["generate", "fallacy", "-p", f"problems={path}", "-o", str(out)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("biaslab: error: ") and "no usable problems (line 1: cannot render" in (
        error
    )
    assert "\n" not in error and not out.exists()


# ------------------------------------------------------------------ the file's own names

SOURCE = [
    {
        "id": "g1",
        "premises": [
            "∀x {gravityDefying(x*)}^{floating(x*)}",
            "{floating(quantix()*)}",
            "{~shiny_red(zorblat()*)}",
        ],
    },
    {
        "id": "g2",
        "premises": ["{P(k())Q(k())}^{P(k())}", "{P(k())}"],
        "names": {"P": "humming", "Q": "glowing", "k()": "the old lamp"},
    },
    {"id": "g3", "premises": ["{P(a())}", "{Q(a())}"]},  # 'a' is a word of the grammar
]


def test_identifiers_in_english() -> None:
    assert source_word("gravityDefying", "property") == "gravity-defying"
    assert source_word("shiny_red", "property") == "shiny-red"
    assert source_word("quantix()", "object") == "quantix"
    assert source_word("SallyJones()", "object") == "Sally Jones"
    names = source_names(["k"], ["P"], {"k()": "the old lamp"})
    assert names.objects == {"k": "the old lamp"} and names.properties == {"P": "p"}
    with pytest.raises(BiaslabError, match="'red' is contained in 'red-dwarf'"):
        source_names(["k"], ["red", "redDwarf"], {})


def test_names_source_round_trips_the_oracles_answer(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "source.jsonl", SOURCE)
    generated = generate_items(
        "fallacy", preset=None, n=1, seed=0, params={"problems": str(path), "names": "source"}
    )
    problems = _by_problem(generated.items)
    assert sorted(problems) == ["g1", "g2"]
    (rejected,) = generated.rejected_rows or []
    assert rejected.id == "g3" and "'a' contains grammar word(s) ['a']" in rejected.reason
    g1 = problems["g1"]
    prompt = g1.turns[0].prompt
    assert "For all x, if x is floating, then x is gravity-defying." in prompt
    assert "Zorblat is not shiny-red." in prompt and "Objects: quantix; zorblat." in prompt
    assert g1.meta["theme"] == "source"
    oracle = str(g1.meta["oracle_conclusion"])
    assert "quantix is gravity-defying" in oracle
    for item in problems.values():
        record = read_view(item.turns[0], item, f"Answer: {item.meta['oracle_conclusion']}")
        assert record.parsed and record.correct, (item.id, record)
    g2 = problems["g2"]
    assert "If the old lamp is humming, then the old lamp is glowing." in g2.turns[0].prompt
    assert g2.meta["oracle_conclusion"] == "the old lamp is glowing and the old lamp is humming"
    wrong = read_view(g2.turns[0], g2, "Answer: the old lamp is not glowing")
    assert wrong.parsed and not wrong.correct


def test_a_rows_names_mapping_is_used_even_under_themes(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "source.jsonl", SOURCE[1:2])
    params = {"problems": str(path)}
    (item,) = generate_items("fallacy", preset=None, n=1, seed=0, params=params).items
    assert "the old lamp is humming" in item.turns[0].prompt
