"""The general figure helpers: files are written, missing values are tolerated, bytes repeat."""

from __future__ import annotations

from pathlib import Path

from biaslab.report.figures import forest_plot, scatter_fit, trajectory_lines


def test_forest_plot_with_bands_and_missing_rows(tmp_path: Path) -> None:
    args = (
        ["a", "b — a much longer label for a setup", "c"],
        [0.02, None, -0.01],
        [(0.0, 0.04), None, (-0.03, 0.01)],
    )
    kwargs = {"title": "t", "xlabel": "M", "bands": [(0.0, (-0.01, 0.01)), None, (None, None)]}
    first = forest_plot(tmp_path / "f1.png", *args, **kwargs)  # type: ignore[arg-type]
    second = forest_plot(tmp_path / "f2.png", *args, **kwargs)  # type: ignore[arg-type]
    assert first.read_bytes() == second.read_bytes() and first.stat().st_size > 1000


def test_scatter_fit_and_trajectory_lines(tmp_path: Path) -> None:
    panel = {
        "x": [0.1, 0.5, 0.9],
        "y": [0.05, 0.0, -0.05],
        "bin_x": [0.1, 0.9],
        "bin_y": [0.05, -0.05],
        "line_x": [0.1, 0.9],
        "line_y": [0.04, -0.04],
        "line_lo": [0.0, -0.08],
        "line_hi": [0.08, 0.0],
    }
    path = scatter_fit(tmp_path / "s.png", {"one": panel, "two": {"x": [], "y": []}},
                       title="t", xlabel="x", ylabel="y")  # fmt: skip
    assert path.stat().st_size > 1000
    lines = {"p": [([0.2, 0.4, None, 0.9], "yes"), ([0.8, 0.5, 0.3], "no")], "q": []}
    one = trajectory_lines(tmp_path / "l1.png", lines, title="t", xlabel="step", ylabel="b")
    two = trajectory_lines(tmp_path / "l2.png", lines, title="t", xlabel="step", ylabel="b")
    assert one.read_bytes() == two.read_bytes()
