"""Generated and imported items: conditions, quotas, meta, determinism across processes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from biaslab.cli import main
from biaslab.errors import BiaslabError
from biaslab.runner import generate_items
from biaslab.suites.fallacy.config import MAX_PROBLEMS, resolve_config
from biaslab.suites.fallacy.generate import label_stats
from biaslab.suites.fallacy.views import parse_pyetr, total_atoms
from tests.helpers.schema import assert_turn_meta_is_json


@pytest.fixture(scope="module")
def generated() -> list:  # type: ignore[type-arg]
    return generate_items("fallacy", preset=None, n=8, seed=2, params={"order": "both"}).items


def test_turn_meta_is_json(generated: list) -> None:  # type: ignore[type-arg]
    assert_turn_meta_is_json(generated)


def test_quotas_are_exact_and_every_problem_is_a_fallacy(generated: list) -> None:  # type: ignore[type-arg]
    standard = [i for i in generated if i.meta["order"] == "standard"]
    assert sorted(i.meta["n_atoms"] for i in standard) == list(range(4, 12))
    for item in standard:
        premises = [parse_pyetr(p) for p in item.meta["premises"]]
        assert total_atoms(premises) == item.meta["n_atoms"] == item.meta["size"]
        assert item.meta["valid"] is False and item.meta["deciders_agree"] is True
        assert item.meta["etr_categorical"] and item.meta["etr_endorses_conclusion"]
        assert 0 < item.meta["chance_share"] <= 1
        turn = item.turns[0]
        assert turn.parser == "view" and turn.labels is None
        assert "What, if anything, follows? It is possible that nothing follows." in turn.prompt


def test_reversed_items_reverse_the_whole_premise_list(generated: list) -> None:  # type: ignore[type-arg]
    by_problem: dict[str, dict[str, object]] = {}
    for item in generated:
        by_problem.setdefault(item.meta["problem_id"], {})[item.meta["order"]] = item
    assert len(by_problem) == 8
    for pair in by_problem.values():
        standard, backward = pair["standard"], pair["reversed"]
        assert backward.meta["premises"] == list(reversed(standard.meta["premises"]))  # type: ignore[attr-defined]
        assert backward.id == standard.id + "-r"  # type: ignore[attr-defined]
        lines = [line for line in standard.turns[0].prompt.splitlines() if line.startswith("- ")]  # type: ignore[attr-defined]
        back = [line for line in backward.turns[0].prompt.splitlines() if line.startswith("- ")]  # type: ignore[attr-defined]
        assert back == list(reversed(lines))


def test_label_stats(generated: list) -> None:  # type: ignore[type-arg]
    stats = label_stats(generated)
    assert stats["problems"] == 8 and stats["invalid"] == 8 and stats["deciders_agree"] == 8
    assert sum(stats["atoms"].values()) == 8 and stats["search_rejections"]


def _generate(tmp: Path, name: str, hash_seed: str, workers: int) -> bytes:
    out = tmp / f"{name}.jsonl"
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    args = [
        "generate",
        "fallacy",
        "--n",
        "5",
        "--seed",
        "1",
        "-p",
        "quantified=1",
        "-p",
        "max_atoms=6",
    ]
    args += ["-p", f"workers={workers}", "-o", str(out)]
    code = f"import sys; from biaslab.cli import main; sys.exit(main({args!r}))"
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return out.read_bytes()


def test_bytes_do_not_depend_on_hash_seed_or_workers(tmp_path: Path) -> None:
    first = _generate(tmp_path, "a", "1", 1)
    second = _generate(tmp_path, "b", "2", 2)
    assert first == second
    items = [json.loads(line) for line in first.decode().splitlines()]
    assert all(item["meta"]["quantified"] for item in items)  # canonical names were needed
    assert any("∀" in p or "∃" in p for item in items for p in item["meta"]["premises"])
    assert (tmp_path / "a.meta.json").read_text() == (tmp_path / "b.meta.json").read_text()


def test_workers_are_not_part_of_the_configuration() -> None:
    assert "workers" not in resolve_config(None, {"workers": "2"}).model_dump()


def test_bad_parameters_are_one_line_errors(tmp_path: Path) -> None:
    for overrides, message in [
        ({"order": "sideways"}, "order"),
        ({"min_atoms": "9", "max_atoms": "5"}, "min_atoms"),
        ({"themes": "cards,planets"}, "theme"),
        ({"quantified": "lots"}, "quantified: 'lots' \\(expected a number\\)"),
        ({"min_atoms": "four"}, "expected an integer"),
        ({"workers": "0"}, "workers"),
        ({"problems": str(tmp_path / "missing.jsonl")}, "no such file"),
        ({"colour": "red"}, "unknown fallacy parameter"),
    ]:
        with pytest.raises(BiaslabError, match=message):
            resolve_config(None, overrides)


# --------------------------------------------------------------------------------------------------
# import
# --------------------------------------------------------------------------------------------------

ROWS = [
    {
        "id": "e49",
        "premises": ["∃x ∃y {Ace(Mary())King(x*),Jack(y)Queen(John())}", "{King(Sally()*)}"],
        "theme": "cards",
    },
    {"id": "mp", "premises": ["{P(a())Q(a())}^{P(a())}", "{P(a())}"]},
]


def write_rows(path: Path, rows: list[object]) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows)
        + "\n",
        encoding="utf-8",
    )
    return path


def test_imported_problems_are_checked_not_searched(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "p.jsonl", ROWS)
    items = generate_items(
        "fallacy", preset=None, n=1, seed=0, params={"problems": str(path), "order": "both"}
    ).items
    assert len(items) == 4  # every row, in both orders, whatever --n says
    e49 = next(i for i in items if i.meta["problem_id"] == "e49" and i.meta["order"] == "standard")
    assert e49.meta["source"] == "imported" and e49.meta["theme"] == "cards"
    assert e49.meta["etr_conclusion"] == "{Ace(Mary())}" and e49.meta["valid"] is False
    assert e49.meta["deciders_agree"] is True and e49.meta["quantified"] is True
    assert e49.meta["etr_conclusion_reversed"] == "{Ace(Mary())}"
    mp = next(i for i in items if i.meta["problem_id"] == "mp" and i.meta["order"] == "standard")
    assert mp.meta["valid"] is True and mp.meta["etr_conclusion"] == "{Q(a())}"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("{not json", "not valid JSON"),
        ({"id": "x", "premises": []}, "non-empty list"),
        ({"id": "x", "premises": ["{P(a()"]}, "premise 1 .*cannot read it"),
        ({"id": "x", "premises": ["{Has(a(),b())}"]}, "premise 1 .*not a unary predicate"),
        ({"id": "x", "premises": ["{P(a())}"], "theme": "planets"}, "unknown fallacy theme"),
        ({"id": "x", "premises": ["{P(a())}", "{a()==b()}"]}, r"premise 2 .*unexpected '='"),
        ({"id": "x", "premises": [" "]}, "premise 1 .*unexpected end of text at character 1"),
        ({"id": "x", "premises": ["{P(a())}|{Q(b())}"]}, "premise 1 .*unexpected '|'"),
        ({"id": "x", "premises": ["{P(x)}"]}, "premise 1 .*Arb object x not found"),
        ({"id": "x", "premises": ["{P(a())}^{P(a())}", "{Q(a())}"]}, "adds nothing to the"),
        ({"id": "x", "premises": ["{P(a())}"], "names": {"P": 3}}, "'names' must map"),
        ({"id": "mp", "premises": ["{P(a())}"]}, "duplicate id 'mp' \\(first on line 1\\)"),
        ({"id": [1], "premises": ["{P(a())}"]}, "'id' must be"),
        ({"id": True, "premises": ["{P(a())}"]}, "'id' must be"),
    ],
)
def test_a_bad_row_is_skipped_with_its_reason_or_under_strict_an_error_naming_its_line(
    tmp_path: Path, row: object, message: str
) -> None:
    path = write_rows(tmp_path / "bad.jsonl", [ROWS[1], row])
    params = {"problems": str(path), "workers": "1"}
    lenient = generate_items("fallacy", preset=None, n=1, seed=0, params=params)
    assert [i.meta["problem_id"] for i in lenient.items] == ["mp"]
    (rejected,) = lenient.rejected_rows or []
    assert rejected.line == 2 and re.search(message, rejected.reason), rejected.reason
    assert lenient.summary is not None and "imported 1 of 2 problems; skipped 1" in lenient.summary
    with pytest.raises(BiaslabError, match=rf"bad.jsonl:2: .*{message}") as caught:
        generate_items("fallacy", preset=None, n=1, seed=0, params={**params, "strict": "true"})
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300


def test_a_bad_row_through_the_cli_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_rows(tmp_path / "bad.jsonl", [ROWS[1], {"id": "x", "premises": ["{P(a())}|"]}])
    out = tmp_path / "items.jsonl"
    strict = ["-p", "strict=true"]
    assert main(["generate", "fallacy", "-p", f"problems={path}", *strict, "-o", str(out)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("biaslab: error: ") and "bad.jsonl:2: premise 1" in error
    assert "\n" not in error and "Traceback" not in error and not out.exists()


def test_n_beyond_the_limit_is_a_one_line_error_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "items.jsonl"
    code = main(["generate", "fallacy", "--n", str(MAX_PROBLEMS + 1), "-o", str(out)])
    error = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in error and f"limit of {MAX_PROBLEMS:,}" in error
    assert not out.exists()


def test_generation_reports_progress_one_problem_at_a_time() -> None:
    from biaslab import progress

    class Bar:
        def __init__(self) -> None:
            self.total: int | None = None
            self.done = 0

        def update(self, task: object, total: int, visible: bool) -> None:
            self.total = total

        def advance(self, task: object, units: int) -> None:
            self.done += units

    bar = Bar()
    token = progress._current.set((bar, 0))
    try:
        items = generate_items("fallacy", preset=None, n=3, seed=5, params={"workers": "1"}).items
    finally:
        progress._current.reset(token)
    assert len(items) == 3 and bar.total == 3 and bar.done == 3
