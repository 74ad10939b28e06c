"""Layers only point down (docs/development.md, "Layers"): the CLI delegates to the run layer, the run
layer to the suites, the suites to the shared layer, and the foundation (errors, schema, seeding,
answers, stats, …) imports nothing of ours above it. A suite never imports another suite.

Every import counts, including those inside functions and under ``TYPE_CHECKING``: a lazy import is
still a dependency, only a later one. The checker is tested on a small tree with a deliberate
back-import, so a broken rule cannot pass silently.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: (rank, module prefixes); a module belongs to the longest prefix that names it or a parent
LAYERS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        0,
        (
            "biaslab",  # the package itself holds only __version__
            "biaslab.errors",
            "biaslab.seeding",
            "biaslab.schema",
            "biaslab.answers",
            "biaslab.stats",
            "biaslab.identity",
            "biaslab.kinds",
            "biaslab.rows",
            "biaslab.progress",
            "biaslab._gc",
            "biaslab.records",
            "biaslab.task_settings",
            "biaslab.report.tables",
            "biaslab.report.figures",
        ),
    ),
    (1, ("biaslab.card",)),
    (
        2,
        (
            "biaslab.tasks",
            "biaslab.frames",
            "biaslab.agents",
            "biaslab.local",
            "biaslab.suites",
            "biaslab.suites.params",
            "biaslab.suites.registry",
        ),
    ),
    # every biaslab.suites.<name> package (see suite_of)
    (3, ()),
    (
        4,
        (
            "biaslab.analysis",
            "biaslab.report",
            "biaslab.runner",
            "biaslab.runs",
            "biaslab.grid",
            "biaslab.demo",
            "biaslab.orchestrate",
            "biaslab.export",
            "biaslab._registry",
        ),
    ),
    (5, ("biaslab.cli",)),
)
#: the foundation the issue names: these import nothing of ours but each other and errors
FOUNDATION = ("biaslab.stats", "biaslab.schema", "biaslab.seeding", "biaslab.answers")
FOUNDATION_MAY_IMPORT = ("biaslab.errors", *FOUNDATION)
SHARED_SUITE_MODULES = {"biaslab.suites", "biaslab.suites.params", "biaslab.suites.registry"}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted((root / "biaslab").rglob("*.py"))}


def imported(path: Path, name: str, known: set[str]) -> Iterator[tuple[int, str]]:
    """(line, module) for every import of one of ours in the file, wherever it stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "biaslab":
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "biaslab":
                continue
            # ``from biaslab import stats`` imports the module biaslab.stats, not the package
            submodules = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            yield from ((node.lineno, m) for m in submodules)
            if len(submodules) < len(node.names):
                yield node.lineno, target


def suite_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "suites" and module not in SHARED_SUITE_MODULES:
        return parts[2]
    return None


def rank(module: str) -> int | None:
    if suite_of(module) is not None:
        return 3
    best: tuple[int, int] | None = None  # (prefix length, rank)
    for layer, prefixes in LAYERS:
        for prefix in prefixes:
            names_it = module == prefix or (module.startswith(prefix + ".") and prefix != "biaslab")
            if names_it and (best is None or len(prefix) > best[0]):
                best = (len(prefix), layer)
    return None if best is None else best[1]


def violations(root: Path) -> list[str]:
    found = modules(root)
    known = set(found)
    problems = [f"{m}: no layer (add it to LAYERS)" for m in found if rank(m) is None]
    for name, path in found.items():
        own_rank, own_suite = rank(name), suite_of(name)
        for line, target in imported(path, name, known):
            where = f"{path.relative_to(root)}:{line}: {name} imports {target}"
            target_rank, target_suite = rank(target), suite_of(target)
            if own_rank is None or target_rank is None:
                continue
            if target_rank > own_rank:
                problems.append(f"{where} (layer {own_rank} -> {target_rank})")
            elif own_suite is not None and target_suite not in (None, own_suite):
                problems.append(f"{where} (one suite into another)")
            elif name.startswith(FOUNDATION) and not target.startswith(FOUNDATION_MAY_IMPORT):
                problems.append(f"{where} (the foundation imports only itself and errors)")
    return problems


def test_layers_only_point_down() -> None:
    assert violations(SRC) == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / "biaslab" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


CLEAN = {
    "__init__.py": "",
    "errors.py": "",
    "cli.py": "from biaslab import runner\n",
    "runner.py": "from biaslab.suites.registry import get_suite\n",
    "suites/__init__.py": "",
    "suites/registry.py": "from biaslab.schema import Item\n",
    "suites/alpha/__init__.py": "",
    "suites/alpha/suite.py": "from biaslab import stats\nfrom . import helper\n",
    "suites/alpha/helper.py": "",
    "suites/beta/__init__.py": "",
    "schema.py": "from biaslab.errors import BiaslabError\n",
    "stats/__init__.py": "",
}


def test_the_checker_passes_a_clean_tree(tmp_path: Path) -> None:
    assert violations(_tree(tmp_path, CLEAN)) == []


@pytest.mark.parametrize(
    ("relative", "text", "expected"),
    [
        ("stats/__init__.py", "def f():\n    from biaslab.cli import main\n", "layer 0 -> 5"),
        ("schema.py", "from biaslab import runner\n", "layer 0 -> 4"),
        (
            "suites/registry.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from biaslab.analysis import Analysis\n",
            "layer 2 -> 4",
        ),
        ("suites/alpha/helper.py", "from biaslab.suites.beta import x\n", "one suite into another"),
        ("suites/alpha/helper.py", "from ...cli import main\n", "layer 3 -> 5"),
        ("schema.py", "from biaslab.tasks import build_task\n", "layer 0 -> 2"),
        ("seeding.py", "from biaslab.identity import run_identity\n", "foundation imports only"),
        ("newthing.py", "", "no layer"),
    ],
)
def test_the_checker_catches_a_back_import(
    tmp_path: Path, relative: str, text: str, expected: str
) -> None:
    files = {**CLEAN, "cli.py": "", relative: text, "tasks.py": "", "identity.py": ""}
    found = violations(_tree(tmp_path, files))
    assert any(expected in problem for problem in found), found
