"""The defeasible suite as the CLI, the Inspect task and the report see it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from biaslab.schema import Item
from biaslab.suites.defeasible import config as _config
from biaslab.suites.defeasible import generate as _generate
from biaslab.suites.registry import Suite

if TYPE_CHECKING:
    import pandas as pd

GENERATOR_VERSION = "defeasible-2"


def _analyze(frame: pd.DataFrame) -> BaseModel:
    from biaslab.suites.defeasible.analysis import analyze

    return analyze(frame)


def _tables(results: Any) -> str:
    from biaslab.suites.defeasible.analysis import tables

    return tables(results)


def _report(results: Any, out_dir: Path) -> str:
    from biaslab.suites.defeasible.analysis import report

    return report(results, out_dir)


def _label_stats(items: Sequence[Item]) -> dict[str, Any]:
    return _generate.label_stats(items)


def _card(results: Any) -> Any:
    from biaslab.suites.defeasible.card import card_cells

    return card_cells(results)


SUITE = Suite(
    name="defeasible",
    description="Defeasible reasoning and confirmation bias (DeReLab): multi-turn conversations "
    "over default chains and inheritance networks, gold from a skeptical inheritance resolver.",
    generator_version=GENERATOR_VERSION,
    default_preset="easy",
    default_n=150,
    presets=_config.PRESETS,
    parameter_docs=_config.PARAMETER_DOCS,
    resolve_config=_config.resolve_config,
    generate=_generate.generate,
    label_stats=_label_stats,
    analyze=_analyze,
    tables=_tables,
    report=_report,
    card=_card,
)
