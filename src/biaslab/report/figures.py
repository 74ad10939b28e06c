"""Matplotlib figures shared by suites (headless Agg backend, deterministic PNG metadata)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

_PNG_METADATA = {"Software": None}  # no version/time stamps: same data -> same bytes


def heatmap(
    path: Path,
    values: Sequence[Sequence[float | None]],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str,
    cbar_label: str = "accuracy",
    vmin: float = 0.0,
    vmax: float = 1.0,
) -> Path:
    """Annotated heatmap; missing cells are grey and marked "n/a"."""
    data = np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
    height = 1.2 + 0.45 * max(len(row_labels), 1)
    width = 2.5 + 1.1 * max(len(col_labels), 1)
    fig, ax = plt.subplots(figsize=(width, height))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("#dddddd")
    image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(col_labels)), labels=list(col_labels), rotation=30, ha="right")
    ax.set_yticks(range(len(row_labels)), labels=list(row_labels))
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            value = data[i, j]
            text = "n/a" if np.isnan(value) else f"{value:.2f}"
            light = not np.isnan(value) and value < (vmin + vmax) / 2
            ax.text(j, i, text, ha="center", va="center", color="white" if light else "black")
    fig.colorbar(image, ax=ax, label=cbar_label)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata=_PNG_METADATA)
    plt.close(fig)
    return path
