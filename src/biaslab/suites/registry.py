"""The suite contract and the list of suites. The CLI, the Inspect tasks and the report only talk to
suites through :class:`Suite`, so adding a suite means adding one entry here."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from biaslab.errors import BiaslabError
from biaslab.schema import Item

if TYPE_CHECKING:
    import pandas as pd
    from inspect_ai import Task

    from biaslab.card import CardCell
    from biaslab.records import AnswerParser
    from biaslab.task_settings import TaskSettings


@dataclass(frozen=True)
class Suite:
    """What every suite exposes (generate -> render -> task -> analyse)."""

    name: str
    description: str
    generator_version: str
    default_preset: str
    default_n: int
    presets: Mapping[str, Mapping[str, Any]]
    parameter_docs: Mapping[str, str]
    resolve_config: Callable[[str | None, Mapping[str, str]], BaseModel]
    generate: Callable[[Any, int, int], list[Item]]
    label_stats: Callable[[Sequence[Item]], dict[str, Any]]
    #: tidy frame (one row per answer, from :func:`biaslab.frames.answer_frame`) -> results; a
    #: suite with ``analysis_params`` also takes the ``-p`` mapping of analyze/report second
    analyze: Callable[..., BaseModel]
    #: results -> plain-text tables for the terminal
    tables: Callable[[Any], str]
    #: results, output dir -> Markdown body (figures written into the dir)
    report: Callable[[Any, Path], str]
    #: answers produced outside Inspect (a CSV/JSONL file) -> the same tidy frame, or None
    read_answers: Callable[..., pd.DataFrame] | None = None
    #: read_answers(path, problems) needs the items the answers were given to (``--problems``)
    answers_need_problems: bool = False
    #: extra lines for ``biaslab suites`` (e.g. how many distinct items each pool can supply)
    describe: Callable[[], list[str]] | None = None
    #: (items, settings) -> Inspect Task, for suites whose answers need their own solver/scorer;
    #: None = the shared label conversation (:func:`biaslab.tasks.build_task`)
    task: Callable[[Sequence[Item], TaskSettings], Task] | None = None
    #: model roles the task needs besides the model under test, e.g. ("judge",)
    roles: tuple[str, ...] = ()
    #: parser name -> reader of an open-ended turn's answer (``Turn.parser``)
    parsers: Mapping[str, AnswerParser] = field(default_factory=dict)
    #: results -> model -> the suite's cell of the bias card (:mod:`biaslab.card`), or None
    card: Callable[[Any], Mapping[str, CardCell]] | None = None
    #: (results, a model,score CSV) -> results with correlations to a capability score, or None
    capability: Callable[[Any, Path], BaseModel] | None = None
    #: the ``-p key=value`` keys ``biaslab analyze``/``report`` accept for this suite
    analysis_params: tuple[str, ...] = ()


def lazy(module: str, name: str) -> Callable[..., Any]:
    """``module.name``, imported on the first call: a suite's analysis, report and task pull in
    pandas, matplotlib or Inspect, which ``biaslab generate`` and ``biaslab suites`` must not load."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{module}.{name} (imported on first use)"
    return call


#: suite name -> module holding ``SUITE``; imported only when the suite is used
SUITE_MODULES: dict[str, str] = {
    "defeasible": "biaslab.suites.defeasible.suite",
    "fallacy": "biaslab.suites.fallacy.suite",
    "tokenbias": "biaslab.suites.tokenbias.suite",
    "entrenchment": "biaslab.suites.entrenchment.suite",
}


def suite_names() -> list[str]:
    return sorted(SUITE_MODULES)


def get_suite(name: str) -> Suite:
    if name not in SUITE_MODULES:
        raise BiaslabError(f"unknown suite {name!r} (known: {', '.join(suite_names())})")
    suite = importlib.import_module(SUITE_MODULES[name]).SUITE
    assert isinstance(suite, Suite)
    return suite
