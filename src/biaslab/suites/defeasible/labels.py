"""The answer labels of the defeasible questions, in a module of their own so the analysis can
code answers without importing the renderer (and, through it, the generator's modules)."""

from __future__ import annotations

ENTAILMENT_LABELS = ("yes", "no", "unknown")
EFFECT_LABELS = ("strengthening", "weakening", "no effect")

__all__ = ["EFFECT_LABELS", "ENTAILMENT_LABELS"]
