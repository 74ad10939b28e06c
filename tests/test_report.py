"""The report as a reader meets it: provenance first, n/a never a zero, figures that load, and the
HTML rendered by a real browser (headless Chromium)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from biaslab.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
IMAGE_CHECK = (
    "<script>window.addEventListener('load', () => { const imgs = [...document.images];"
    " document.title = imgs.length && imgs.every(i => i.complete && i.naturalWidth > 0)"
    " ? 'IMAGES-OK ' + imgs.length : 'IMAGES-BROKEN'; });</script>"
)


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("report")
    logs = tmp / "logs"
    run = ["run", "defeasible", "--model", "biaslab/oracle", "--model", "biaslab/random"]
    assert main([*run, "--n", "2", "--seed", "4", "--log-dir", str(logs), "--display", "none"]) == 0
    assert main([*run, "--n", "2", "--seed", "4", "--log-dir", str(logs), "--no-resume"]) == 0
    tb = ["run", "tokenbias", "--model", "biaslab/token-biased", "--n", "6", "--display", "none"]
    assert main([*tb, "-p", "family=linda", "--log-dir", str(logs)]) == 0
    assert main(["report", str(logs), "-o", str(tmp / "out")]) == 0
    return tmp / "out"


def test_report_opens_with_provenance_and_writes_results_json(report_dir: Path) -> None:
    markdown = (report_dir / "report.md").read_text(encoding="utf-8")
    head = markdown.split("## Defeasible")[0]
    assert "## Provenance" in head and "samples used" in head
    assert "reference agent" in head
    assert "2 logs of the same run collapsed" in head
    document = json.loads((report_dir / "results.json").read_text(encoding="utf-8"))
    assert set(document["suites"]) == {"defeasible", "tokenbias"}
    assert len(document["provenance"]) == 5
    assert not re.search(r"\bnan\b", markdown.lower()) and "| — |" not in markdown


def test_undefined_cells_are_marked_not_zero(report_dir: Path) -> None:
    html = (report_dir / "report.html").read_text(encoding="utf-8")
    assert '<td class="na">n/a</td>' in html
    assert ".na" in html  # styled (hatched grey)


def test_figures_are_svg_with_a_title(report_dir: Path) -> None:
    figures = sorted(report_dir.glob("*.svg"))
    assert figures
    for figure in figures:
        text = figure.read_text(encoding="utf-8")
        assert text.lstrip().startswith("<?xml") and "<svg" in text
        assert "Date" not in text.split("<svg")[0]  # no time stamp: same data, same bytes


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt install chromium)")
def test_report_renders_in_a_browser(report_dir: Path, tmp_path: Path) -> None:
    html = (report_dir / "report.html").read_text(encoding="utf-8")
    checked = report_dir / "checked.html"
    checked.write_text(html.replace("</body>", IMAGE_CHECK + "</body>"), encoding="utf-8")
    profile = tmp_path / "profile"
    common = [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000"]
    dom = subprocess.run(
        [*common, "--dump-dom", checked.as_uri()], capture_output=True, text=True, timeout=120
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<title>IMAGES-OK" in dom.stdout, dom.stdout[:500]
    shot = tmp_path / "report.png"
    subprocess.run(
        [*common, "--window-size=1280,2400", f"--screenshot={shot}", checked.as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    assert shot.stat().st_size > 20_000
    checked.unlink()
