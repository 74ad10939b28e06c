"""Logs (or a file of answers) -> every suite's results, with the provenance that produced them.

This is the one document ``biaslab analyze -o results.json`` and ``biaslab report`` write: the
logs that were read (or skipped), the duplicate runs that were collapsed, and each suite's typed
results, so a reader can always tell which answers a number rests on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from biaslab.card import METHODS, BiasCard, CardCell, CardRow, screened_cell
from biaslab.errors import BiaslabError
from biaslab.frames import ProvenanceRow
from biaslab.kinds import model_kind

DOCUMENT_SCHEMA_VERSION = 1
ANSWER_FILE_SUFFIXES = (".csv", ".jsonl")


@dataclass
class Analysis:
    """Suite name -> results, plus where the answers came from."""

    results: dict[str, BaseModel]
    provenance: list[ProvenanceRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source: str = ""

    def card(self) -> BiasCard | None:
        """The bias card across every suite analysed (None when no suite contributes)."""
        return build_card(self.results)


class ResultsDocument(BaseModel):
    """``results.json``: what the report shows, as data."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = DOCUMENT_SCHEMA_VERSION
    biaslab_version: str
    source: str
    provenance: list[ProvenanceRow]
    notes: list[str]
    card: BiasCard | None = None
    suites: dict[str, dict[str, Any]]


def one_blas_thread() -> Any:
    """BLAS on one thread for an analysis: its matrix products are small (bootstrap resamples x
    clusters times a few columns), and OpenBLAS's worker threads spin-waiting between them cost a
    third of a 20k-answer analysis's CPU for no gain in wall time (measured); the numbers then also
    cannot depend on how many cores the machine has."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def analyse(
    path: Path | str,
    suite: str | None = None,
    problems: Path | None = None,
    params: Mapping[str, str] | None = None,
) -> Analysis:
    """Analyse every biaslab log at ``path`` — a log file, a directory, or a log location Inspect
    reads through fsspec such as ``s3://bucket/logs`` — or, with ``suite``, a file of answers in
    that suite's documented format (``problems``: the items they answer, for suites that need
    them), or lm-evaluation-harness ``--log_samples`` output of tasks written by
    ``biaslab export``. ``params`` (``-p key=value``) go to the suites that declare them
    (``Suite.analysis_params``); a key no analysed suite takes is a one-line error."""
    from biaslab.export.harness_samples import analyse_harness, is_harness_output
    from biaslab.frames import is_url
    from biaslab.suites.registry import get_suite

    params = dict(params or {})

    def run(name: str, frame: Any) -> BaseModel:
        chosen = get_suite(name)
        mine = {k: v for k, v in params.items() if k in chosen.analysis_params}
        with one_blas_thread():
            return chosen.analyze(frame, mine) if mine else chosen.analyze(frame)

    if is_harness_output(path):
        with one_blas_thread():
            return Analysis(*analyse_harness(Path(path), suite), source=str(path))
    if suite is not None and not is_url(path) and Path(path).suffix == ".json":
        raise BiaslabError(
            f"{Path(path).name}: a file of answers is .csv or .jsonl (one JSON object per line), "
            "not .json"
        )
    if not is_url(path) and Path(path).suffix in ANSWER_FILE_SUFFIXES:
        path = Path(path)
        if suite is None:
            raise BiaslabError(
                f"{path} is not an Inspect log: to analyse a file of answers add --suite SUITE"
            )
        chosen = get_suite(suite)
        if chosen.read_answers is None:
            raise BiaslabError(
                f"suite {suite!r} cannot read answers from a file; give Inspect logs"
            )
        if not path.is_file():
            raise BiaslabError(f"no such file: {path}")
        if problems is not None and not chosen.answers_need_problems:
            raise BiaslabError(f"--problems: suite {suite!r} reads its answers without problems")
        _params_taken(params, [suite])
        if chosen.answers_need_problems:
            frame = chosen.read_answers(path, problems)
        else:
            frame = chosen.read_answers(path)
        notes = [str(note) for note in frame.attrs.get("notes", [])]
        return Analysis({suite: run(suite, frame)}, notes=notes, source=str(path))
    if problems is not None:
        raise BiaslabError("--problems goes with a .csv/.jsonl file of answers, not with logs")

    from biaslab._gc import tune_gc
    from biaslab.frames import answer_frame, read_log_set

    tune_gc()
    log_set = read_log_set(path)
    names = [name for name in log_set.suites() if suite is None or name == suite]
    _params_taken(params, names)
    results: dict[str, BaseModel] = {name: run(name, answer_frame(log_set, name)) for name in names}
    if not results:
        raise BiaslabError(f"no {suite} logs at {path}")
    provenance = [row for row in log_set.provenance if suite is None or row.suite == suite]
    return Analysis(results, provenance, [*log_set.skipped, *log_set.collapsed], source=str(path))


def _params_taken(params: Mapping[str, str], suites: list[str]) -> None:
    """Every ``-p`` key is one some analysed suite takes."""
    from biaslab.suites.registry import get_suite

    taken = {key for name in suites for key in get_suite(name).analysis_params}
    unknown = sorted(set(params) - taken)
    if unknown:
        raise BiaslabError(
            f"-p {unknown[0]}: not an analysis parameter of {', '.join(suites) or 'these logs'} "
            f"(valid: {', '.join(sorted(taken)) or 'none'})"
        )


def with_capability(analysis: Analysis, path: Path) -> Analysis:
    """Every suite that relates its bias to a capability score (``--capability FILE.csv``) gets
    the scores; a file no analysed suite can use is a one-line error."""
    from biaslab.suites.registry import get_suite

    results = dict(analysis.results)
    used = False
    for name, result in analysis.results.items():
        hook = get_suite(name).capability
        if hook is not None:
            results[name] = hook(result, path)
            used = True
    if not used:
        raise BiaslabError(
            f"--capability: none of the analysed suites ({', '.join(results)}) uses capability scores"
        )
    return Analysis(results, analysis.provenance, analysis.notes, analysis.source)


def document(analysis: Analysis) -> ResultsDocument:
    from biaslab import __version__

    return ResultsDocument(
        biaslab_version=__version__,
        source=analysis.source,
        provenance=analysis.provenance,
        notes=analysis.notes,
        card=analysis.card(),
        suites={name: r.model_dump(mode="json") for name, r in analysis.results.items()},
    )


def write_document(analysis: Analysis, path: Path) -> None:
    """Write ``results.json`` (sorted keys, so equal analyses give equal bytes)."""
    import json

    text = json.dumps(document(analysis).model_dump(mode="json"), indent=2, sort_keys=True)
    try:
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise BiaslabError(f"cannot write {path}: {exc.strerror or exc}") from exc


def not_run_reason(model: str, method: str) -> str:
    """Why a card cell is empty: a reference agent written for another suite cannot answer this
    one's questions; any other model simply has no answers to read."""
    from biaslab.agents.base import agent_home

    home = agent_home(model.removeprefix("biaslab/")) if model.startswith("biaslab/") else None
    if home is not None and home != method:
        article = "an" if home[0] in "aeiou" else "a"
        return f"{article} {home} agent: it answers only {home} questions"
    return f"not run on {method}: no answers to read"


def build_card(results: Mapping[str, Any]) -> BiasCard | None:
    """The card from every suite's results (None when no suite contributes a cell)."""
    from biaslab.suites.registry import get_suite

    columns: dict[str, dict[str, CardCell]] = {}
    notes: dict[str, str] = {}
    for name in METHODS:
        if name not in results:
            continue
        suite = get_suite(name)
        if suite.card is None:
            continue
        cells = {model: screened_cell(cell) for model, cell in suite.card(results[name]).items()}
        if cells:
            columns[name] = cells
            notes[name] = next(iter(cells.values())).headline
    if not columns:
        return None
    models = sorted({model for cells in columns.values() for model in cells})
    # a suite's card has a cell (defined or not) for every model it has answers from, so a
    # missing cell means the model was never run on that suite (only then is the reason looked
    # up: it loads every suite's agents)
    rows = tuple(
        CardRow(
            model=model,
            kind=model_kind(model),
            cells={
                method: cells[model]
                if model in cells
                else CardCell.undefined(notes[method], not_run_reason(model, method))
                for method, cells in columns.items()
            },
        )
        for model in models
    )
    return BiasCard(methods=tuple(columns), rows=rows, notes=notes)


#: the columns of the provenance table, in the terminal and in the report
PROVENANCE_HEADER = (
    "log",
    "status",
    "suite",
    "model",
    "kind",
    "roles",
    "seed",
    "preset",
    "samples",
)


def provenance_cells(row: ProvenanceRow, *, markdown: bool = False) -> list[Any]:
    """One log's provenance row: a plain one for the terminal, or with the file name as code and
    ``used of total`` for Markdown."""
    used = (
        f"{row.samples_used} of {row.samples_total}"
        if markdown
        else f"{row.samples_used}/{row.samples_total}"
    )
    return [
        f"`{row.file}`" if markdown else row.file,
        row.status,
        row.suite,
        row.model,
        model_kind(row.model),
        row.roles or "none",
        row.seed,
        row.preset or "default",
        used,
    ]
