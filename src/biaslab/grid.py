"""``biaslab run all``: every suite's default preset, for several models and seeds, as one Inspect
eval set.

A grid of models x suites x seeds is what Inspect's ``eval_set`` is for: the log directory is the
unit of work, a rerun of the same command skips the tasks that finished and retries (reusing
finished samples) the ones that did not, and ``max_tasks`` runs several tasks at once against any
provider. We only build the task list: one task per (suite, seed, model), with the judge role set
on the suites that need one, so no other suite's runs carry a role they do not use (roles are part
of a run's identity).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError
from biaslab.runs import missing_role_message


@dataclass(frozen=True)
class GridSpec:
    models: tuple[str, ...]
    seeds: tuple[int, ...]
    suites: tuple[str, ...]
    params: Mapping[str, Mapping[str, str]]  # suite -> key -> value
    n: int | None = None
    judge: str | None = None
    self_judge: bool = False


def split_params(pairs: Mapping[str, str], suites: Sequence[str]) -> dict[str, dict[str, str]]:
    """``{"defeasible.topology": "linear"}`` -> ``{"defeasible": {"topology": "linear"}}``; a key
    without a known suite prefix is a one-line error. ``SUITE.n`` sets that suite's size."""
    out: dict[str, dict[str, str]] = {suite: {} for suite in suites}
    for key, value in pairs.items():
        suite, dot, name = key.partition(".")
        if not dot or suite not in out or not name:
            raise BiaslabError(
                f"bad parameter {key!r} for run all: use -p SUITE.KEY=VALUE with SUITE one of "
                f"{', '.join(suites)}"
            )
        if name == "n" and not (value.isdigit() and int(value) >= 1):
            raise BiaslabError(
                f"bad parameter {key}={value!r}: the size must be a positive integer"
            )
        out[suite][name] = value
    return out


def judge_for(spec: GridSpec, suite_roles: Sequence[str], model: str, suite: str) -> dict[str, str]:
    if "judge" not in suite_roles:
        return {}
    if spec.self_judge:
        return {"judge": model}
    if spec.judge is None:
        raise BiaslabError(missing_role_message(suite, "judge"))
    return {"judge": spec.judge}


@dataclass(frozen=True)
class Cell:
    """One task of the grid: a suite for one seed and one model, with its roles."""

    suite: str
    seed: int
    model: str
    roles: Mapping[str, str]
    arguments: Mapping[str, Any]  # what the suite's task function is called with


def grid_cells(spec: GridSpec) -> list[Cell]:
    """Every (suite, seed, model) of the grid; a missing role is an error before any task is
    built."""
    from biaslab.suites.registry import get_suite

    cells = []
    for suite in spec.suites:
        roles_needed = get_suite(suite).roles
        for seed in spec.seeds:
            for model in spec.models:
                params = dict(spec.params.get(suite, {}))
                n = int(params.pop("n")) if "n" in params else spec.n
                arguments = {"preset": None, "n": n, "seed": seed, **params}
                roles = judge_for(spec, roles_needed, model, suite)
                cells.append(Cell(suite, seed, model, roles, arguments))
    return cells


def finished_cells(cells: Sequence[Cell], log_dir: Path | str, limit: Any) -> list[int | None]:
    """Per cell, the sample count of a successful log of the same run already in ``log_dir``
    (the run's identity as :class:`biaslab.runs.RunSpec` matches it), else None."""
    from biaslab.orchestrate import recorded_task_args, task_factory
    from biaslab.runs import RunSpec, finished_sample_counts

    specs = [
        RunSpec(
            cell.suite,
            recorded_task_args(task_factory(cell.suite), cell.arguments),
            cell.model,
            dict(cell.roles),
            limit,
        )
        for cell in cells
    ]
    return finished_sample_counts(str(log_dir), specs)


def grid_tasks(cells: Sequence[Cell], finished: Sequence[int | None] | None = None) -> list[Any]:
    """One Inspect task per cell, built by each suite's registered task function (so ``inspect
    eval-set`` records the same tasks and arguments). A cell whose run already finished
    (``finished``: its sample count) gets items generated only if the eval set runs it after all,
    so a re-run of a finished grid generates no items and starts no worker pool."""
    from inspect_ai import task_with

    from biaslab.orchestrate import task_factory
    from biaslab.runner import generation_shared, items_on_demand
    from biaslab.task_settings import roles_given_at_eval

    tasks = []
    with generation_shared():  # every model of a (suite, seed) asks for the same items
        for number, cell in enumerate(cells):
            factory = task_factory(cell.suite)
            samples = finished[number] if finished is not None else None
            with roles_given_at_eval(), items_on_demand(samples):
                task = factory(**cell.arguments)
            if cell.roles:
                task_with(task, model=cell.model, model_roles=dict(cell.roles))
            else:
                task_with(task, model=cell.model)
            tasks.append(task)
    return tasks


def run_grid(
    spec: GridSpec, log_dir: Path | str, options: Mapping[str, Any]
) -> tuple[bool, list[Any]]:
    """Run the grid as one eval set in ``log_dir``; returns (every task succeeded, log headers).
    Inspect decides what to skip; runs already finished in ``log_dir`` are found first so their
    tasks are built without generating items (:func:`grid_tasks`)."""
    from inspect_ai import eval_set

    cells = grid_cells(spec)
    tasks = grid_tasks(cells, finished_cells(cells, log_dir, options.get("limit")))
    success, logs = eval_set(tasks, log_dir=str(log_dir), model=None, **options)
    return bool(success), list(logs)


# --- a re-run of a finished grid, decided without Inspect ---------------------------------------
#
# Importing Inspect costs about 2.3 CPU-s, most of a re-run that finds every task finished. When
# the log directory shows beyond doubt that ``eval_set`` would reuse every log and run nothing,
# :func:`finished_grid` says so from the logs' ``header.json`` alone, and ``run all`` prints what
# the eval set would have printed. Any doubt (a log unreadable, running, cancelled, of another
# identity or another version, a second log of a cell, a stale manifest, …) returns None and the
# eval set decides, as before.

#: the arguments every registered suite task records besides those it is called with: the defaults
#: of the task functions in :mod:`biaslab._registry` (``tests/test_grid.py`` checks they agree)
TASK_ARG_DEFAULTS: Mapping[str, Any] = {"preset": None, "n": None, "seed": 0, "logprobs": True}
#: the suites whose task is one of those functions (a suite registered elsewhere is left to Inspect)
REGISTERED_TASKS = frozenset({"defeasible", "entrenchment", "fallacy", "tokenbias"})
#: suites whose task sets its own ``max_tokens``, and the field of the resolved config (recorded in
#: the log's metadata) it is taken from; every other suite's task sets no generation setting
#: (``tests/test_grid.py`` checks this against the built tasks)
TASK_MAX_TOKENS_FIELD: Mapping[str, str] = {"entrenchment": "reasoner_max_tokens"}
#: generation settings Inspect leaves out of a task's identity in an eval set (its
#: ``GENERATE_CONFIG_FIELDS_TO_EXCLUDE``): a re-run with other values still reuses the log. A
#: copy, because importing Inspect is what the fast path avoids (a test keeps it equal); not
#: :data:`biaslab.identity.TRANSPORT_KEYS`, which says what cannot change an answer
_TRANSPORT_SETTINGS = frozenset(
    {
        "max_retries",
        "timeout",
        "attempt_timeout",
        "stream_idle_timeout",
        "max_connections",
        "adaptive_connections",
        "batch",
        "cache",
        "cache_prompt",
    }
)
#: Inspect's ``.eval`` format version whose ``header.json`` is read here (as in :mod:`biaslab.frames`)
_LOG_VERSION = 2
#: what Inspect writes into an eval set's directory besides the logs
_SET_ID_FILE, _SET_FILE, _MANIFEST = ".eval-set-id", "eval-set.json", "logs.json"


@dataclass(frozen=True)
class FinishedSpec:
    """The fields of a log's ``EvalSpec`` that ``run all`` prints."""

    task: str
    model: str
    task_args: Mapping[str, Any]


@dataclass(frozen=True)
class FinishedLog:
    """A finished cell's log, shaped as the header ``eval_set`` returns for it."""

    eval: FinishedSpec
    status: str
    location: str
    task_id: str


def finished_grid(
    cells: Sequence[Cell], log_dir: Path | str, options: Mapping[str, Any]
) -> list[FinishedLog] | None:
    """Every cell's log, when ``log_dir`` holds exactly one successful, complete log of each cell
    (and nothing else) that ``eval_set`` would reuse as it stands, with the directory's manifests
    as the eval set would rewrite them; else None. For built-in agents only (the caller checks):
    their models need no check that only Inspect can make. ``options``: the eval options."""
    if not isinstance(log_dir, Path) or options.get("limit") is not None:
        return None
    try:
        return _finished_grid(cells, log_dir, options.get("max_tokens"))
    except Exception:  # anything unexpected is a doubt: the eval set decides
        return None


def _finished_grid(
    cells: Sequence[Cell], log_dir: Path, max_tokens: int | None
) -> list[FinishedLog] | None:
    import json
    import os
    from importlib.metadata import version

    directory = os.path.abspath(log_dir)
    if os.path.realpath(directory) != directory:
        return None  # Inspect names logs by the path it lists; keep to the plain case
    names = _log_names(directory)
    if not names or len(names) != len(cells):
        return None
    set_id = Path(directory, _SET_ID_FILE).read_text(encoding="utf-8").strip()
    if not _manifest_is_current(directory, names):
        return None
    inspect_version = version("inspect_ai")
    matched: list[FinishedLog | None] = [None] * len(cells)
    for name in names:
        header = _header(os.path.join(directory, name))
        if header is None or not _reusable(header, set_id, inspect_version, max_tokens):
            return None
        spec = header["eval"]
        found = [i for i, cell in enumerate(cells) if _is_log_of(spec, cell)]
        if len(found) != 1 or matched[found[0]] is not None:
            return None
        matched[found[0]] = FinishedLog(
            eval=FinishedSpec(spec["task"], spec["model"], spec["task_args"]),
            status=header["status"],
            location="file://" + Path(directory, name).as_posix(),
            task_id=spec["task_id"],
        )
    logs = [log for log in matched if log is not None]
    if len(logs) != len(cells):
        return None
    eval_set = json.loads(Path(directory, _SET_FILE).read_bytes())
    if not _eval_set_file_agrees(eval_set, set_id, cells, logs):
        return None
    return logs


def _log_names(directory: str) -> list[str] | None:
    """The ``.eval`` files directly in ``directory``; None when the tree holds a symbolic link, a
    ``.json`` log or a log in a subdirectory (Inspect lists the whole tree)."""
    import os

    names = []
    for root, dirs, files in os.walk(directory):
        for name in (*dirs, *files):
            if os.path.islink(os.path.join(root, name)):
                return None
        for name in files:
            top = root == directory
            if name.endswith(".eval") and top:
                names.append(name)
            elif name.endswith(".eval") or (
                name.endswith(".json") and not (top and name in (_SET_FILE, _MANIFEST))
            ):
                return None
    return sorted(names)


def _manifest_is_current(directory: str, names: Sequence[str]) -> bool:
    """``logs.json`` lists exactly these logs and was written after each of them, so the eval set
    would write it again byte for byte (its content is the logs' headers)."""
    import json
    import os

    manifest = os.path.join(directory, _MANIFEST)
    written = os.stat(manifest).st_mtime_ns
    if any(os.stat(os.path.join(directory, name)).st_mtime_ns > written for name in names):
        return False
    with open(manifest, "rb") as handle:
        listed = json.load(handle)
    return isinstance(listed, dict) and sorted(listed) == sorted(names)


def _header(path: str) -> dict[str, Any] | None:
    """A ``.eval`` log's ``header.json`` (None for a log still being written)."""
    import json
    import sys
    import zipfile

    if sys.version_info < (3, 14):  # Inspect's members are zstd-compressed (as in frames.py)
        import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401
    with zipfile.ZipFile(path) as archive:
        if "header.json" not in archive.NameToInfo:
            return None
        data = json.loads(archive.read("header.json"))
    return data if isinstance(data, dict) and isinstance(data.get("eval"), dict) else None


def _reusable(
    header: Mapping[str, Any], set_id: str, inspect_version: str, max_tokens: int | None
) -> bool:
    """A successful, complete log of this eval set, written by this Inspect and generator, whose
    generation settings are the ones this run would record (``eval_set`` compares them)."""
    from biaslab.suites.registry import get_suite

    spec = header["eval"]
    metadata = spec.get("metadata") or {}
    suite = spec.get("task")
    if suite not in REGISTERED_TASKS:
        return False
    if header.get("version") != _LOG_VERSION or header.get("status") != "success":
        return False
    if header.get("invalidated") or spec.get("eval_set_id") != set_id or spec.get("task_file"):
        return False
    if (spec.get("packages") or {}).get("inspect_ai") != inspect_version:
        return False
    if metadata.get("biaslab_generator_version") != get_suite(suite).generator_version:
        return False
    plan_config = (header.get("plan") or {}).get("config") or {}
    if set(plan_config) - _TRANSPORT_SETTINGS - {"max_tokens"}:
        return False
    if plan_config.get("max_tokens") != _expected_max_tokens(suite, metadata, max_tokens):
        return False
    if spec.get("model_args") or spec.get("model_generate_config"):
        return False
    return _complete(header)


def _expected_max_tokens(
    suite: str, metadata: Mapping[str, Any], max_tokens: int | None
) -> int | None:
    """The ``max_tokens`` this run's task would record: the run's own, else the task's."""
    if max_tokens is not None:
        return max_tokens
    field = TASK_MAX_TOKENS_FIELD.get(suite)
    config = metadata.get("biaslab_config") or {}
    return None if field is None else config.get(field)


def _complete(header: Mapping[str, Any]) -> bool:
    """Every planned sample logged, as ``eval_set`` checks it (its ``log_samples_complete``)."""
    spec, results = header["eval"], header.get("results") or {}
    samples = (spec.get("dataset") or {}).get("samples")
    epochs = (spec.get("config") or {}).get("epochs") or 1
    if not isinstance(samples, int) or samples < 1 or not results:
        return False
    planned = samples * epochs
    logged = results.get("logged_samples")
    return (logged if logged is not None else results.get("total_samples", 0)) >= planned


def _is_log_of(spec: Mapping[str, Any], cell: Cell) -> bool:
    """The log's task, arguments, model and roles are the cell's, with no sample limit."""
    arguments = dict(cell.arguments)
    roles = {role: {"model": model, "config": {}, "args": {}} for role, model in cell.roles.items()}
    return (
        spec.get("task") == cell.suite
        and spec.get("model") == cell.model
        and spec.get("task_args_passed") == arguments
        and spec.get("task_args") == {**TASK_ARG_DEFAULTS, **arguments}
        and (spec.get("model_roles") or {}) == roles
        and (spec.get("config") or {}).get("limit") is None
        and (spec.get("config") or {}).get("sample_id") is None
    )


def _eval_set_file_agrees(
    eval_set: Any, set_id: str, cells: Sequence[Cell], logs: Sequence[FinishedLog]
) -> bool:
    """``eval-set.json`` lists the cells in order with their logs' task ids, as the eval set would
    write it again (a role by its model's name without the provider, as Inspect names it)."""
    if not isinstance(eval_set, dict) or eval_set.get("eval_set_id") != set_id:
        return False
    tasks = eval_set.get("tasks")
    if not isinstance(tasks, list) or len(tasks) != len(cells):
        return False
    for sequence, (entry, cell, log) in enumerate(zip(tasks, cells, logs, strict=True)):
        roles = {role: model.split("/", 1)[-1] for role, model in cell.roles.items()}
        expected = {
            "name": cell.suite,
            "task_id": log.task_id,
            "task_args": dict(cell.arguments),
            "model": cell.model,
            "model_args": {},
            **({"model_roles": roles} if roles else {}),
            "sequence": sequence,
        }
        if entry != expected:
            return False
    return True
