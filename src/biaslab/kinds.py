"""What kind of answerer a model name denotes, for labelling rows in tables, cards and reports."""

from __future__ import annotations

#: models that exist to exercise the pipeline, not to be measured
PLUMBING_MODELS = ("biaslab/local",)


def model_kind(model: str) -> str:
    """'plumbing model' (the embedded tiny LLM), 'reference agent' (biaslab/...) or 'model'."""
    base = model.split("?", 1)[0]
    if base in PLUMBING_MODELS:
        return "plumbing model"
    if base.startswith("biaslab/"):
        return "reference agent"
    return "model"
