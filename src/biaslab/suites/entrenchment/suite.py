"""The entrenchment suite as the CLI, the Inspect task and the report see it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from biaslab.schema import Item, Turn
from biaslab.suites.entrenchment import config as _config
from biaslab.suites.entrenchment import generate as _generate
from biaslab.suites.registry import Suite, lazy

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd

    from biaslab.records import AnswerRecord


def _label_stats(items: Sequence[Item]) -> dict[str, Any]:
    return _generate.label_stats(items)


def _belief_parser(turn: Turn, item: Item, completion: str) -> AnswerRecord:
    """A single stated belief read from a completion (what a self-report or a judge reply is)."""
    from biaslab.records import OpenAnswerRecord
    from biaslab.suites.entrenchment.beliefs import read_belief

    reading = read_belief(completion)
    return OpenAnswerRecord(
        turn=turn.index,
        kind=turn.kind,
        gold=turn.gold,
        predicted=None if reading.value is None else f"{reading.value:.4f}",
        parsed=reading.value is not None,
        correct=False,
        completion=completion,
        details={"error": reading.error, "rescaled": reading.rescaled},
    )


def _read_answers(path: Path) -> pd.DataFrame:
    from biaslab.suites.entrenchment.external import read_beliefs_file

    return read_beliefs_file(path)


def _describe() -> list[str]:
    return [
        f"claims pool: {len(_generate.claim_pool())} built-in claims",
        f"urn questions: at most {_generate.MAX_URN_QUESTIONS:,} per call (--n and baseline_n)",
        "judge: the `judge` model role (biaslab run --judge MODEL or --self-judge; "
        "inspect eval --model-role judge=MODEL)",
    ]


SUITE = Suite(
    name="entrenchment",
    description="Belief entrenchment (Martingale score): chain-of-thought or debate trajectories "
    "judged prefix by prefix by a judge model; M with CR1 by question, the IV correction for "
    "independent judge noise and the judge's own baseline on Bayesian urn reasoning.",
    generator_version=_generate.GENERATOR_VERSION,
    default_preset="default",
    default_n=100,
    presets=_config.PRESETS,
    parameter_docs=_config.PARAMETER_DOCS,
    resolve_config=_config.resolve_config,
    generate=_generate.generate,
    label_stats=_label_stats,
    analyze=lazy("biaslab.suites.entrenchment.analysis", "analyze"),
    tables=lazy("biaslab.suites.entrenchment.report", "tables"),
    report=lazy("biaslab.suites.entrenchment.report", "report"),
    describe=_describe,
    task=lazy("biaslab.suites.entrenchment.task", "build_task"),
    roles=("judge",),
    parsers={"belief": _belief_parser},
    card=lazy("biaslab.suites.entrenchment.card", "card_cells"),
    read_answers=_read_answers,
)
