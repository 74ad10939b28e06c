"""Matplotlib figures shared by suites: SVG (crisp at whatever width the report is read), headless
Agg backend, deterministic bytes (no date stamp, fixed element ids). A caller names a figure
``x.png`` or ``x.svg``; the figure is written as ``x.svg`` and that path is returned."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_hex
from matplotlib.ticker import MaxNLocator

# element ids from a fixed salt (same data, same bytes); text stays text (small, selectable)
matplotlib.rcParams["svg.hashsalt"] = "biaslab"
matplotlib.rcParams["svg.fonttype"] = "none"

_SVG_METADATA = {"Date": None, "Creator": None}  # no version/time stamps: same data -> same bytes
_PANEL_TITLE_WIDTH = 44  # characters per line of a small-multiple panel title


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
    cmap = plt.get_cmap("viridis").with_extremes(bad="#dddddd")
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
    return _save(fig, path)


Interval = tuple[float, float] | None


def _save(fig: plt.Figure, path: Path, *, layout: bool = True) -> Path:
    target = path.with_suffix(".svg")
    if layout:
        fig.tight_layout()
    try:
        fig.savefig(target, format="svg", metadata=_SVG_METADATA, bbox_inches="tight")
    finally:
        plt.close(fig)
    return target


def _nan(value: float | None) -> float:
    return np.nan if value is None else float(value)


#: widest figure in inches: the report's text column (72rem) at 96 dpi is about 12 in
PAGE_WIDTH_IN = 11.0
_PANEL_HEIGHT_IN = 3.0


def bar_chart(
    path: Path,
    categories: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    title: str,
    ylabel: str,
    intervals: Mapping[str, Sequence[Interval]] | None = None,
    log: bool = False,
    reference: float | None = None,
    ylim: tuple[float, float] | None = None,
    null_bands: Mapping[str, Sequence[Interval]] | None = None,
) -> Path:
    """Grouped estimates (one group per category, one colour per series) with CI whiskers.

    Linear scales draw bars; a log scale (e.g. odds ratios) draws points, since a bar's length
    from an arbitrary axis floor means nothing there. A missing value is marked "n/a" rather than
    silently dropped; ``reference`` draws a horizontal line (0 for a gap, 1 for an odds ratio).
    ``null_bands`` (optional, per series and category) draws the band a null model would give
    (e.g. a permutation null's central 95%) as a grey band behind each estimate.

    A chart wider than the page is drawn as small multiples on one shared y axis that wrap at
    :data:`PAGE_WIDTH_IN`: one panel per group when every category reads ``group/label`` (a
    model's cells side by side), otherwise consecutive runs of categories.
    """
    names = list(series)
    per_category = 0.5 * max(len(names), 2)
    panels = _panels(categories, per_category)
    if len(panels) == 1:  # room for the y label and the legend beside a single chart
        panel_width = 3.5 + per_category * len(categories)
    else:  # narrower bars: panels share one y axis and one legend
        panel_width = 1.0 + 0.7 * per_category * max(len(indices) for _, indices in panels)
    columns = max(1, min(len(panels), int(PAGE_WIDTH_IN // panel_width)))
    rows = -(-len(panels) // columns)
    fig, grid = plt.subplots(
        rows,
        columns,
        figsize=(min(PAGE_WIDTH_IN, columns * panel_width), 0.8 + _PANEL_HEIGHT_IN * rows),
        sharey=True,
        squeeze=False,
    )
    axes = list(grid.flat)
    for number, (ax, (heading, indices)) in enumerate(zip(axes, panels, strict=False)):
        _draw_groups(ax, indices, names, series, intervals, null_bands, log=log, first=number == 0)
        if reference is not None:
            ax.axhline(reference, color="black", linewidth=0.8)
        labels = [categories[i].rsplit("/", 1)[1] if heading else categories[i] for i in indices]
        _category_axis(ax, labels)
        if heading:
            ax.set_title(heading, fontsize=9)
        if number % columns == 0:
            ax.set_ylabel(ylabel)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    if log:
        axes[0].set_yscale("log")
    if ylim is not None:
        axes[0].set_ylim(*ylim)
    if len(panels) == 1:
        axes[0].set_title(title)
        if len(names) > 1:
            axes[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        return _save(fig, path)
    height = fig.get_figheight()
    fig.suptitle(title, y=1.0 - 0.1 / height, va="top")
    handles, legend_labels = axes[0].get_legend_handles_labels()
    legend = len(handles) > 1
    if legend:
        fig.legend(handles, legend_labels, fontsize=8, loc="upper center", ncols=len(handles),
                   bbox_to_anchor=(0.5, 1.0 - 0.4 / height), frameon=False)  # fmt: skip
    fig.tight_layout(rect=(0, 0, 1, 1.0 - (0.75 if legend else 0.45) / height))
    return _save(fig, path, layout=False)


def _panels(categories: Sequence[str], per_category: float) -> list[tuple[str, list[int]]]:
    """(heading, category indices) per panel; one untitled panel when the chart fits the page."""
    indices = list(range(len(categories)))
    if 3.5 + per_category * len(categories) <= PAGE_WIDTH_IN:
        return [("", indices)]
    fit = max(1, int((PAGE_WIDTH_IN - 1.0) // (0.7 * per_category)))
    groups: dict[str, list[int]] = {}
    if all("/" in c for c in categories):  # "group/label", the group may hold "/" itself
        for i in indices:
            groups.setdefault(categories[i].rsplit("/", 1)[0], []).append(i)
    if len(groups) < 2 or any(len(members) > fit for members in groups.values()):
        chunks = -(-len(indices) // fit)
        size = -(-len(indices) // chunks)  # equal panels rather than a stub at the end
        return [("", indices[i : i + size]) for i in range(0, len(indices), size)]
    return list(groups.items())


def _draw_groups(
    ax: plt.Axes,
    indices: Sequence[int],
    names: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    intervals: Mapping[str, Sequence[Interval]] | None,
    null_bands: Mapping[str, Sequence[Interval]] | None,
    *,
    log: bool,
    first: bool,
) -> None:
    """One panel: the categories ``indices`` of every series, with whiskers and null bands."""
    width = 0.8 / max(len(names), 1)
    x = np.arange(len(indices), dtype=float)
    for i, name in enumerate(names):
        values = np.array([_nan(series[name][j]) for j in indices], dtype=float)
        pos = x - 0.4 + width * (i + 0.5)
        bands = (null_bands or {}).get(name)
        if bands is not None:
            _null_bands(ax, pos, width, [bands[j] for j in indices], first=first and i == 0)
        if log:
            (mark,) = ax.plot(pos, values, "o", label=name if first else None)
            color = to_hex(mark.get_color())
        else:
            bars = ax.bar(pos, np.nan_to_num(values, nan=0.0), width, label=name if first else None,
                          color=f"C{i}")  # fmt: skip
            color = "black"
            for bar, value in zip(bars, values, strict=True):
                bar.set_visible(not np.isnan(value))
        for p, value in zip(pos, values, strict=True):
            if np.isnan(value):
                ax.annotate("n/a", (p, 0.02), xycoords=("data", "axes fraction"), ha="center",
                            fontsize=7, rotation=90)  # fmt: skip
        cis = (intervals or {}).get(name)
        if cis is not None:
            _whiskers(ax, pos, values, [cis[j] for j in indices], color)


def _null_bands(
    ax: plt.Axes, pos: np.ndarray, width: float, bands: Sequence[Interval], *, first: bool
) -> None:
    """A grey band per bar from the null's low to high end (labelled once, for the legend)."""
    labelled = not first
    for p, band in zip(pos, bands, strict=True):
        if band is None:
            continue
        lo, hi = band
        label = None if labelled else "null (95% band)"
        ax.fill_between(
            [p - width / 2, p + width / 2], lo, max(hi, lo + 1e-3), color="0.55", alpha=0.45,
            zorder=3, linewidth=0, label=label,
        )  # fmt: skip
        labelled = True


def _category_axis(ax: plt.Axes, categories: Sequence[str]) -> None:
    """One tick per category, every group inside the axes; long lists are slanted."""
    slanted = len(categories) > 3
    ax.set_xticks(
        range(len(categories)),
        labels=list(categories),
        rotation=30 if slanted else 0,
        ha="right" if slanted else "center",
    )
    ax.set_xlim(-0.5, len(categories) - 0.5)


def _whiskers(
    ax: plt.Axes, pos: np.ndarray, values: np.ndarray, cis: Sequence[Interval], color: str
) -> None:
    """Asymmetric error bars where both the value and its interval are known."""
    for p, value, ci in zip(pos, values, cis, strict=True):
        if ci is None or np.isnan(value):
            continue
        err = [[max(value - ci[0], 0.0)], [max(ci[1] - value, 0.0)]]
        ax.errorbar([p], [value], yerr=err, color=color, capsize=3, linewidth=1)


Series = tuple[Sequence[float], Sequence[float], Sequence[Interval]]


def line_bands(
    path: Path,
    panels: Mapping[str, Mapping[str, Series]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    ylim: tuple[float, float] | None = None,
    integer_x: bool = False,
) -> Path:
    """Small multiples: one panel per key, one line (x, y) per series with a shaded CI band.

    A series keeps its colour in every panel, so a model can be followed across topologies.
    """
    names = sorted({name for series in panels.values() for name in series})
    colors = {
        name: plt.get_cmap("tab10" if len(names) <= 10 else "tab20")(i)
        for i, name in enumerate(names)
    }
    n = max(len(panels), 1)
    fig, axes = plt.subplots(1, n, figsize=(3.2 * n + 2.2, 3.8), sharey=True, squeeze=False)
    for ax, (panel, series) in zip(axes[0], panels.items(), strict=False):
        for name, (xs, ys, cis) in series.items():
            x = np.asarray(xs, dtype=float)
            ax.plot(x, np.asarray(ys, dtype=float), marker="o", color=colors[name], label=name)
            lo = np.array([np.nan if ci is None else ci[0] for ci in cis], dtype=float)
            hi = np.array([np.nan if ci is None else ci[1] for ci in cis], dtype=float)
            ax.fill_between(x, lo, hi, color=colors[name], alpha=0.15, linewidth=0)
        ax.set_title(panel, fontsize=10)
        ax.set_xlabel(xlabel)
        if integer_x:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if ylim is not None:
        axes[0][0].set_ylim(*ylim)
    axes[0][0].set_ylabel(ylabel)
    handles = [plt.Line2D([], [], color=colors[name], marker="o", label=name) for name in names]
    fig.legend(handles=handles, fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(title)
    return _save(fig, path)


def boxplot(
    path: Path,
    groups: Mapping[str, Sequence[float]],
    *,
    title: str,
    ylabel: str,
    points: bool = True,
) -> Path:
    """Box per group (e.g. per-seed accuracies of one model cell), raw points jittered on top."""
    labels = list(groups)
    data = [np.asarray(groups[k], dtype=float) for k in labels]
    fig, ax = plt.subplots(figsize=(2.5 + 0.8 * len(labels), 4))
    ax.boxplot(data, showfliers=not points)
    slanted = len(labels) > 3
    ax.set_xticks(
        range(1, len(labels) + 1),
        labels=labels,
        rotation=30 if slanted else 0,
        ha="right" if slanted else "center",
    )
    if points:
        rng = np.random.default_rng(0)  # fixed jitter: same data -> same bytes
        for i, values in enumerate(data, start=1):
            jitter = rng.uniform(-0.12, 0.12, size=len(values))
            ax.scatter(i + jitter, values, s=10, alpha=0.6, color="black", zorder=3)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return _save(fig, path)


def matched_tables(
    path: Path, labels: Sequence[str], cells: Sequence[tuple[int, int, int, int]]
) -> Path | None:
    """One horizontal stacked bar per matched-pair test: both right, only original right,
    only twin right, both wrong (shares of the pairs). ``None`` when there is nothing to draw."""
    if not cells:
        return None
    data = np.array(cells, dtype=float)
    totals = data.sum(axis=1, keepdims=True)
    shares = np.divide(data, totals, out=np.zeros_like(data), where=totals > 0)
    names = ("both right", "original only", "twin only", "both wrong")
    colours = ("#4c9a5b", "#d98c2b", "#4a7ab8", "#b0b0b0")
    fig, ax = plt.subplots(figsize=(9, 1.0 + 0.35 * len(labels)))
    left = np.zeros(len(labels))
    for column, (name, colour) in enumerate(zip(names, colours, strict=True)):
        ax.barh(range(len(labels)), shares[:, column], left=left, color=colour, label=name)
        left += shares[:, column]
    ax.set_yticks(range(len(labels)), labels=list(labels), fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of pairs")
    ax.legend(ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8, frameon=False)
    return _save(fig, path)


def forest_plot(
    path: Path,
    labels: Sequence[str],
    estimates: Sequence[float | None],
    intervals: Sequence[Interval],
    *,
    title: str,
    xlabel: str,
    bands: Sequence[tuple[float | None, Interval]] | None = None,
    band_label: str = "baseline",
    reference: float | None = 0.0,
) -> Path:
    """One row per estimate (point and CI whisker, top to bottom in the given order); a row's
    ``bands`` entry (estimate, interval) is drawn behind it as a shaded band with a tick, e.g. the
    value a null process gets in the same setup. Missing estimates are marked "n/a"."""
    n = max(len(labels), 1)
    longest = max((len(label) for label in labels), default=10)
    fig, ax = plt.subplots(figsize=(5.0 + 0.07 * longest, 1.2 + 0.42 * n))
    y = np.arange(len(labels))[::-1].astype(float)
    shown_band = False
    for row, (value, ci) in enumerate(zip(estimates, intervals, strict=True)):
        band = bands[row] if bands is not None else None
        if band is not None and band[1] is not None:
            lo, hi = band[1]
            ax.fill_betweenx([y[row] - 0.35, y[row] + 0.35], lo, hi, color="#f2b880", alpha=0.6,
                             linewidth=0, label=None if shown_band else band_label)  # fmt: skip
            shown_band = True
        if band is not None and band[0] is not None:
            ax.plot([band[0]] * 2, [y[row] - 0.35, y[row] + 0.35], color="#c0662b", linewidth=1.5)
        if value is None:
            ax.annotate("n/a", (0.02, y[row]), xycoords=("axes fraction", "data"), va="center",
                        fontsize=8)  # fmt: skip
            continue
        if ci is not None:
            ax.plot([ci[0], ci[1]], [y[row]] * 2, color="black", linewidth=1.2)
        ax.plot([value], [y[row]], "o", color="#1f4e9c", markersize=5)
    if reference is not None:
        ax.axvline(reference, color="grey", linewidth=0.8, linestyle="--")
    ax.set_yticks(y, labels=list(labels), fontsize=8)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    if shown_band:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _save(fig, path)


ScatterPanel = Mapping[str, Sequence[float]]
"""Keys: ``x``, ``y`` (points); optional ``bin_x``, ``bin_y`` (binned means) and ``line_x``,
``line_y``, ``line_lo``, ``line_hi`` (a fitted line and its band)."""


def scatter_fit(
    path: Path,
    panels: Mapping[str, ScatterPanel],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    reference: float | None = 0.0,
) -> Path:
    """Small multiples: points, binned means and a fitted line with its shaded band per panel."""
    n = max(len(panels), 1)
    cols = min(n, 3)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.2 * rows), squeeze=False)
    for ax, (name, data) in zip(axes.ravel(), panels.items(), strict=False):
        ax.scatter(data.get("x", ()), data.get("y", ()), s=6, alpha=0.35, color="grey")
        if data.get("line_x"):
            ax.fill_between(data["line_x"], data["line_lo"], data["line_hi"], color="#1f4e9c",
                            alpha=0.2, linewidth=0)  # fmt: skip
            ax.plot(data["line_x"], data["line_y"], color="#1f4e9c", linewidth=1.5)
        if data.get("bin_x"):
            ax.plot(data["bin_x"], data["bin_y"], "s", color="#c0662b", markersize=5)
        if reference is not None:
            ax.axhline(reference, color="black", linewidth=0.6)
        ax.set_title(textwrap.fill(name, _PANEL_TITLE_WIDTH), fontsize=8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    for ax in axes.ravel()[len(panels) :]:
        ax.set_visible(False)
    fig.suptitle(title)
    return _save(fig, path)


def trajectory_lines(
    path: Path,
    panels: Mapping[str, Sequence[tuple[Sequence[float | None], str]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    ylim: tuple[float, float] | None = (0.0, 1.0),
) -> Path:
    """Small multiples of lines (one per trajectory) coloured by group (e.g. the outcome); a
    ``None`` value breaks the line. Groups keep their colour across panels."""
    groups = sorted({group for lines in panels.values() for _, group in lines})
    colours = {g: plt.get_cmap("tab10")(i % 10) for i, g in enumerate(groups)}
    n = max(len(panels), 1)
    cols = min(n, 3)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.0 * rows), squeeze=False)
    for ax, (name, lines) in zip(axes.ravel(), panels.items(), strict=False):
        for values, group in lines:
            ys = np.array([_nan(v) for v in values], dtype=float)
            ax.plot(np.arange(len(ys)), ys, color=colours[group], alpha=0.5, linewidth=0.9)
        ax.set_title(textwrap.fill(name, _PANEL_TITLE_WIDTH), fontsize=8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if ylim is not None:
            ax.set_ylim(*ylim)
    for ax in axes.ravel()[len(panels) :]:
        ax.set_visible(False)
    handles = [plt.Line2D([], [], color=colours[g], label=g) for g in groups]
    if handles:
        fig.legend(handles=handles, fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(title)
    return _save(fig, path)


_CARD_COLOURS = {"flagged": "#f4a582", "clear": "#f7f7f7", "undefined": "#e0e0e0"}


def card_grid(
    path: Path,
    rows: Sequence[str],
    columns: Sequence[str],
    headlines: Sequence[str],
    labels: Sequence[Sequence[str]],
    states: Sequence[Sequence[str]],
) -> list[Path]:
    """The bias card as a grid (rows = models, columns = methods): a cell is coloured only when
    its bias is flagged, hatched grey when not defined. Written as SVG (for the report) and PNG
    (for slides and papers); returns both paths."""
    width = 2.4 + 3.3 * max(len(columns), 1)
    height = 1.3 + 0.62 * max(len(rows), 1)
    fig, ax = plt.subplots(figsize=(width, height))
    for i in range(len(rows)):
        for j in range(len(columns)):
            state = states[i][j]
            rect = plt.Rectangle(
                (j, len(rows) - 1 - i),
                1,
                1,
                facecolor=_CARD_COLOURS.get(state, "#ffffff"),
                edgecolor="#999999",
                hatch="///" if state == "undefined" else None,
                linewidth=0.8,
            )
            ax.add_patch(rect)
            text = "\n".join(textwrap.wrap(labels[i][j], 36, max_lines=2, placeholder=" …"))
            ax.text(j + 0.5, len(rows) - 0.5 - i, text, ha="center", va="center", fontsize=7.5)
    ax.set_xlim(0, len(columns))
    ax.set_ylim(0, len(rows))
    ax.set_xticks([j + 0.5 for j in range(len(columns))])
    heads = [textwrap.fill(h, 44) for h in headlines]  # a column is ~3.3 in: keep headers apart
    ax.set_xticklabels([f"{c}\n{h}" for c, h in zip(columns, heads, strict=True)], fontsize=7.5)
    ax.xaxis.tick_top()
    ax.set_yticks([len(rows) - 0.5 - i for i in range(len(rows))])
    ax.set_yticklabels(list(rows), fontsize=8)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(
        "Bias card: coloured = excess over the null significant; hatched = not defined",
        fontsize=9,
        pad=16 + 10 * max((h.count("\n") + 2 for h in heads), default=2),
    )
    fig.tight_layout()
    png = path.with_suffix(".png")
    try:
        fig.savefig(png, format="png", dpi=150, metadata={"Software": None}, bbox_inches="tight")
    except OSError:
        plt.close(fig)
        raise
    svg = _save(fig, path)
    return [svg, png]
