"""The fallacy suite as the CLI, the Inspect task and the report see it.

Nothing here imports PyETR: it runs only in the suite's worker processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from biaslab.records import AnswerRecord
from biaslab.schema import Item, Turn
from biaslab.suites.fallacy import config as _config
from biaslab.suites.fallacy import generate as _generate
from biaslab.suites.registry import Suite, lazy


def _read_view(turn: Turn, item: Item, completion: str) -> AnswerRecord:
    from biaslab.suites.fallacy.scoring import read_view

    return read_view(turn, item, completion)


def _describe() -> list[str]:
    return [
        f"--n: problems, at most {_config.MAX_PROBLEMS:,} per call (generate larger sets as several "
        "seeds); order=both gives two items per problem"
    ]


def _label_stats(items: Sequence[Item]) -> dict[str, Any]:
    return _generate.label_stats(items)


SUITE = Suite(
    name="fallacy",
    description="Human-like fallacies (ETR): generated problems whose Erotetic-Theory conclusion "
    "is invalid, two validity deciders, open answers read by a grammar, FallacyRate beside its "
    "chance level, premise-order reversal.",
    generator_version=f"fallacy-{_generate.GENERATOR_VERSION}",
    default_preset="default",
    default_n=100,
    presets=_config.PRESETS,
    parameter_docs=_config.PARAMETER_DOCS,
    describe=_describe,
    resolve_config=_config.resolve_config,
    generate=_generate.generate,
    label_stats=_label_stats,
    analyze=lazy("biaslab.suites.fallacy.analysis", "analyze"),
    tables=lazy("biaslab.suites.fallacy.report", "tables"),
    report=lazy("biaslab.suites.fallacy.report", "report"),
    parsers={_generate.PARSER: _read_view},
    card=lazy("biaslab.suites.fallacy.card", "card_cells"),
    capability=lazy("biaslab.suites.fallacy.analysis", "apply_capability"),
    read_answers=lazy("biaslab.suites.fallacy.external", "read_answers"),
    answers_need_problems=True,
)
