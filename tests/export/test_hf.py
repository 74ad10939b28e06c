"""``biaslab export --format hf``: a dataset the real ``datasets`` package loads offline, whose rows
are the items, whose card states how they were made, and whose bytes depend only on the items."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from biaslab.cli import main
from biaslab.export.hf import DATA_FILE, item_from_row
from biaslab.schema import read_generation_meta, read_items
from tests.export.conftest import generate

OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in OFFLINE.items():
        monkeypatch.setenv(key, value)


def _export(items: Path, out: Path) -> Path:
    assert main(["export", str(items), "--format", "hf", "-o", str(out)]) == 0
    return out


def _front_matter(card: Path) -> dict:
    text = card.read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    assert match, "the card starts with YAML front matter"
    return yaml.safe_load(match.group(1))


@pytest.mark.parametrize("fixture", ["tokenbias_items", "fallacy_items"])
def test_the_dataset_loads_offline_and_its_rows_are_the_items(
    fixture: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    import datasets

    items_path: Path = request.getfixturevalue(fixture)
    out = _export(items_path, tmp_path / "hf")
    items = read_items(items_path)
    by_folder = datasets.load_dataset(str(out), split="test", cache_dir=str(tmp_path / "cache"))
    by_file = datasets.Dataset.from_parquet(str(out / DATA_FILE))
    assert by_folder.num_rows == by_file.num_rows == len(items)
    assert [item_from_row(row) for row in by_folder] == items
    assert [item_from_row(row) for row in by_file] == items


def test_two_exports_in_folders_of_the_same_name_load_their_own_rows(
    tokenbias_items: Path, fallacy_items: Path, tmp_path: Path
) -> None:
    import datasets

    cache = str(tmp_path / "cache")
    for items_path, parent in ((tokenbias_items, "a"), (fallacy_items, "b")):
        out = _export(items_path, tmp_path / parent / "probes")
        rows = datasets.load_dataset(str(out), split="test", cache_dir=cache)
        assert [item_from_row(row) for row in rows] == read_items(items_path)


def test_multi_turn_items_travel_whole(tmp_path: Path) -> None:
    import datasets

    items_path = generate("defeasible", 2, tmp_path / "defeasible.jsonl")
    out = _export(items_path, tmp_path / "hf")
    rows = datasets.Dataset.from_parquet(str(out / DATA_FILE))
    items = read_items(items_path)
    assert max(len(item.turns) for item in items) > 1
    assert [item_from_row(row) for row in rows] == items


def test_the_card_states_licence_version_seed_config_and_a_command_that_regenerates(
    fallacy_items: Path, tmp_path: Path
) -> None:
    out = _export(fallacy_items, tmp_path / "hf")
    front = _front_matter(out / "README.md")
    meta = read_generation_meta(fallacy_items)
    assert front["license"] == "apache-2.0"
    assert front["configs"][0]["data_files"][0] == {"split": "test", "path": DATA_FILE}
    assert front["configs"][0]["config_name"].startswith("fallacy-seed1-")
    assert front["biaslab"] == {
        "suite": "fallacy",
        "generator_version": meta.generator_version,
        "seed": meta.seed,
        "schema_version": meta.schema_version,
        "n_items": meta.n_items,
        "config": meta.config,
    }
    command = next(
        line
        for line in (out / "README.md").read_text().splitlines()
        if line.startswith("biaslab generate ")
    )
    argv = shlex.split(command.replace("--n N", "--n 3"))
    argv[argv.index("-o") + 1] = str(tmp_path / "again.jsonl")
    assert main(argv[1:]) == 0
    assert (tmp_path / "again.jsonl").read_bytes() == fallacy_items.read_bytes()


def test_equal_items_give_equal_bytes_in_separate_processes(
    tokenbias_items: Path, tmp_path: Path
) -> None:
    outputs = []
    for name in ("a", "b"):
        out = tmp_path / name
        command = [sys.executable, "-m", "biaslab.cli", "export", str(tokenbias_items)]
        subprocess.run(
            [*command, "--format", "hf", "-o", str(out)],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": "1" if name == "a" else "2"},
        )
        outputs.append(out)
    for relative in ("README.md", DATA_FILE):
        assert (outputs[0] / relative).read_bytes() == (outputs[1] / relative).read_bytes()


def test_bad_inputs_are_one_line_errors(
    tokenbias_items: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lonely = tmp_path / "lonely.jsonl"
    lonely.write_bytes(tokenbias_items.read_bytes())
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(tokenbias_items.read_bytes())
    (tmp_path / "broken.meta.json").write_text("{not json")
    cases = [
        (["export", str(tmp_path / "none.jsonl"), "--format", "hf", "-o", "x"], "no such file"),
        (["export", str(broken), "--format", "hf", "-o", "x"], "broken.meta.json: not valid JSON"),
        (
            ["export", str(lonely), "--format", "hf", "-o", str(tmp_path / "o")],
            "meta.json is missing",
        ),
        (["export", str(tokenbias_items), "--format", "hf", "-o", str(a_file)], "not a directory"),
        (["export", str(tokenbias_items), "--format", "csv", "-o", "x"], "--format"),
    ]
    for argv, expected in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert expected in err and "\n" not in err and "Traceback" not in err
