"""Probes that travel: generated items written for other harnesses, and their replies read back.

``biaslab export ITEMS.jsonl --format hf`` writes a Hugging Face ``datasets`` dataset (Parquet and
a dataset card); ``--format lm-eval`` writes an lm-evaluation-harness task for the suites whose
items are one prompt each. ``biaslab analyze`` reads the harness's ``--log_samples`` output
(:mod:`biaslab.export.harness_samples`) through the suites' answer importers.
"""

from __future__ import annotations

from pathlib import Path

from biaslab.errors import BiaslabError

FORMATS = ("hf", "lm-eval")


def export_items(items_path: Path, fmt: str, out: Path) -> list[Path]:
    """Export the items at ``items_path`` (with their ``*.meta.json`` sidecar) to ``out`` in
    ``fmt``; returns the files written."""
    from biaslab.export.items import load_item_set

    if fmt not in FORMATS:
        raise BiaslabError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    item_set = load_item_set(items_path)
    if fmt == "hf":
        _require("pyarrow", "export")
        from biaslab.export.hf import export_hf

        return export_hf(item_set, out)
    from biaslab.export.harness_task import export_lm_eval

    return export_lm_eval(item_set, out)


def _require(module: str, extra: str) -> None:
    """A missing optional dependency is one line naming the extra that installs it."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise BiaslabError(f"this needs the {module} package: pip install 'biaslab[{extra}]'")
