"""The defeasible suite as the CLI, the Inspect task and the report see it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from biaslab.schema import Item
from biaslab.suites.defeasible import config as _config
from biaslab.suites.registry import Suite, lazy

GENERATOR_VERSION = "defeasible-3"


#: the generator (network, resolver, renderer: a tenth of a CPU-second to import) loads on first
#: use, so ``biaslab analyze`` does not import it
_GENERATE = "biaslab.suites.defeasible.generate"


def _label_stats(items: Sequence[Item]) -> dict[str, Any]:
    from biaslab.suites.defeasible.generate import label_stats

    return label_stats(items)


def _describe() -> list[str]:
    return [
        f"--n: conversations per topology, at most {_config.MAX_CONVERSATIONS:,} per call "
        "(generate larger sets as several seeds)"
    ]


_ANALYSIS = "biaslab.suites.defeasible.analysis"

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
    generate=lazy(_GENERATE, "generate"),
    label_stats=_label_stats,
    analyze=lazy(_ANALYSIS, "analyze"),
    tables=lazy(_ANALYSIS, "tables"),
    report=lazy(_ANALYSIS, "report"),
    card=lazy("biaslab.suites.defeasible.card", "card_cells"),
    describe=_describe,
)
