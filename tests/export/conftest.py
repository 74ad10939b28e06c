"""Items, exports and a reference run shared by the export tests.

The lm-eval tests need the ``lm-eval`` extra; where it is not installed they are not collected
here and run in their own CI step (``.ci/run-lm-eval``), which installs it first.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from biaslab.cli import main

collect_ignore = [] if importlib.util.find_spec("lm_eval") else ["test_lm_eval.py"]

N_TOKENBIAS = 2  # pairs per block: 32 items
SEED = 1


def generate(suite: str, n: int, path: Path, seed: int = SEED) -> Path:
    assert main(["generate", suite, "--n", str(n), "--seed", str(seed), "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="session")
def tokenbias_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate("tokenbias", N_TOKENBIAS, tmp_path_factory.mktemp("tb") / "tokenbias.jsonl")


@pytest.fixture(scope="session")
def fallacy_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate("fallacy", 3, tmp_path_factory.mktemp("fallacy") / "fallacy.jsonl")


@pytest.fixture(scope="session")
def inspect_results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """results.json of the same token-bias items answered by biaslab/token-biased through Inspect."""
    folder = tmp_path_factory.mktemp("inspect")
    command = ["run", "tokenbias", "--n", str(N_TOKENBIAS), "--seed", str(SEED)]
    command += ["--model", "biaslab/token-biased", "--log-dir", str(folder / "logs")]
    assert main([*command, "--display", "none"]) == 0
    assert main(["analyze", str(folder / "logs"), "-o", str(folder / "results.json")]) == 0
    return json.loads((folder / "results.json").read_text())


def same_analysis(a: dict, b: dict) -> bool:
    """Every number and the card agree (provenance and source name the files, which differ)."""
    return a["suites"] == b["suites"] and a["card"] == b["card"]
