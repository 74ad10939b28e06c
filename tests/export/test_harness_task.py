"""``biaslab export --format lm-eval``: a task folder whose documents are the items, whose answer
pattern finds every gold in a well-formed reply, and a one-line refusal for suites that are not one
prompt each. (The harness itself runs the task in ``test_lm_eval.py``.)"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

from biaslab.cli import main
from biaslab.schema import read_generation_meta, read_items
from tests.export.conftest import generate
from tests.export.harness_output import read_docs


class _TaskLoader(yaml.SafeLoader):
    """Reads a task YAML as the harness does, keeping ``!function`` references as text."""


_TaskLoader.add_constructor("!function", lambda loader, node: f"!function {node.value}")


def _export(items: Path, out: Path) -> Path:
    assert main(["export", str(items), "--format", "lm-eval", "-o", str(out)]) == 0
    return out


@pytest.mark.parametrize("fixture", ["tokenbias_items", "fallacy_items"])
def test_the_task_folder_holds_the_items_and_a_pattern_that_reads_their_gold(
    fixture: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    items_path: Path = request.getfixturevalue(fixture)
    items = read_items(items_path)
    suite = items[0].suite
    task = f"biaslab_{suite}"
    out = _export(items_path, tmp_path / "task")
    config = yaml.load((out / f"{task}.yaml").read_text(), Loader=_TaskLoader)
    assert config["task"] == task and config["output_type"] == "generate_until"
    assert config["doc_to_text"] == "prompt" and config["doc_to_target"] == "gold"
    assert config["description"] == "system"
    assert config["custom_dataset"] == f"!function {task}_docs.load"
    assert config["metadata"]["biaslab_seed"] == read_generation_meta(items_path).seed
    docs = read_docs(out, task)
    assert [json.loads(doc["item"]) for doc in docs] == [i.model_dump(mode="json") for i in items]
    assert [doc["prompt"] for doc in docs] == [item.turns[0].prompt for item in items]
    assert [doc["system"] for doc in docs] == [item.system or "" for item in items]
    pattern = re.compile(config["filter_list"][0]["filter"][0]["regex_pattern"])
    for doc in docs:
        reply = f"Let me think.\nThe answer is not obvious.\nAnswer: {doc['gold']}"
        assert pattern.findall(reply)[-1].strip().rstrip(".") == doc["gold"]


def test_the_loader_beside_the_yaml_reads_the_documents_from_anywhere(
    tokenbias_items: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _export(tokenbias_items, tmp_path / "task")
    moved = tmp_path / "elsewhere" / "task"
    moved.parent.mkdir()
    out.rename(moved)
    monkeypatch.chdir(tmp_path)
    spec = importlib.util.spec_from_file_location("docs", moved / "biaslab_tokenbias_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    split = module.load(version=1)["test"]
    assert split.num_rows == len(read_items(tokenbias_items))
    assert split[0] == read_docs(moved, "biaslab_tokenbias")[0]


@pytest.mark.parametrize(
    ("suite", "n", "reason"),
    [("defeasible", 1, "several turns"), ("entrenchment", 1, "judge")],
)
def test_suites_that_are_not_one_prompt_are_refused_in_one_line(
    suite: str, n: int, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = generate(suite, n, tmp_path / f"{suite}.jsonl")
    capsys.readouterr()
    assert main(["export", str(items), "--format", "lm-eval", "-o", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{suite} items cannot be an lm-eval task" in err and reason in err
    assert "\n" not in err and not (tmp_path / "x").exists()
