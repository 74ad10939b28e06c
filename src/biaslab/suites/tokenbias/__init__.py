"""Token bias (Jiang et al., 2024): template-generated conjunction-fallacy, syllogism and
twenty-five-horses problems, each paired with an exact twin that differs only in the perturbed
tokens, and one-sided matched-pair McNemar tests per hypothesis (H1–H6) with Benjamini–Hochberg.

Public API (imported lazily so ``import biaslab.suites.tokenbias.reasoner`` stays cheap):

* :class:`~biaslab.suites.tokenbias.config.Config`, ``PRESETS``, ``PARAMETER_DOCS``,
  :func:`~biaslab.suites.tokenbias.config.resolve_config`
* :func:`~biaslab.suites.tokenbias.generate.generate`; ``check_twins``, ``label_stats``,
  ``duplicate_prompts`` (:mod:`~biaslab.suites.tokenbias.checks`)
* :func:`~biaslab.suites.tokenbias.analysis.analyze` -> ``TokenBiasResults`` (``rejected_table()``)
* :func:`~biaslab.suites.tokenbias.horses.min_races`, ``solve_min_races``
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Config": "config",
    "PRESETS": "config",
    "PARAMETER_DOCS": "config",
    "resolve_config": "config",
    "generate": "generate",
    "check_twins": "checks",
    "label_stats": "checks",
    "duplicate_prompts": "checks",
    "GENERATOR_VERSION": "generate",
    "analyze": "analysis",
    "TokenBiasResults": "analysis",
    "min_races": "horses",
    "solve_min_races": "horses",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
