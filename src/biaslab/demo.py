"""``biaslab demo``: every suite against the reference agents built to show (or not show) each
bias, and the embedded model as plumbing, offline; then the report and the bias card.

The demo owns only what it writes: its log directory is listed in a marker file, and a later demo
removes those logs and nothing else; logs or a report it did not write stop it before it changes
anything.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError

MARKER = ".biaslab-demo.json"
SEEDS = 3  # several seeds fill the defeasible reproducibility tables (ICC, Kruskal-Wallis, CV)


@dataclass(frozen=True)
class DemoRun:
    """One suite run of the demo: which agents, how many items, which parameters."""

    suite: str
    models: tuple[str, ...]
    n: int
    params: dict[str, str] = field(default_factory=dict)
    judge: str | None = None
    seeds: int = 1
    note: str = ""


def plan(n: int) -> list[DemoRun]:
    """What the demo runs; each suite's reference agents include one built with the bias the
    suite measures, one without it, and a chance-level answerer."""
    from biaslab.suites.registry import suite_names

    runs = [
        DemoRun(
            "defeasible",
            (
                "biaslab/oracle",
                "biaslab/random",
                "biaslab/always-yes",
                "biaslab/sticky?p=0.9",
                "biaslab/calibrated",
                "biaslab/last-polarity",
                "biaslab/negation",
            ),
            n,
            seeds=SEEDS,
        ),
        DemoRun(
            "defeasible",
            ("biaslab/oracle", "biaslab/sticky?p=0.9"),
            n,
            {"question_order": "reversed"},
            note="reversed question order",
        ),
        DemoRun(
            "tokenbias",
            ("biaslab/oracle", "biaslab/random", "biaslab/no-bias", "biaslab/token-biased"),
            5 * n,
        ),
        DemoRun(
            "entrenchment",
            (
                "biaslab/oracle",
                "biaslab/urn-bayes",
                "biaslab/urn-entrenched?w=0.5",
                "biaslab/urn-overreactive?c=2",
            ),
            10 * n,
            judge="biaslab/judge-reader",
        ),
    ]
    if "fallacy" in suite_names():
        runs.append(DemoRun("fallacy", ("biaslab/oracle", "biaslab/etr", "biaslab/random"), 10 * n))
    return runs


def clear_previous(out: Path, ensure_dir: Callable[[Path], Path]) -> Path:
    """The demo's log directory, emptied of what an earlier demo wrote (listed in the marker) and
    of nothing else."""
    marker = out / MARKER
    try:
        written = json.loads(marker.read_text(encoding="utf-8")) if marker.is_file() else {}
    except (OSError, ValueError):
        written = {}
    ours = set(written.get("logs", []))
    log_dir, report = out / "logs", out / "report" / "report.md"
    foreign = sorted(p.name for p in log_dir.glob("*.eval") if p.name not in ours)
    if foreign:
        raise BiaslabError(
            f"{log_dir} holds Inspect logs that biaslab demo did not write ({foreign[0]}, ...); "
            "use another --out (nothing was changed)"
        )
    if report.exists() and not written.get("report"):
        raise BiaslabError(
            f"{report} was not written by biaslab demo; use another --out (nothing was changed)"
        )
    ensure_dir(log_dir)
    for name in sorted(ours):
        (log_dir / name).unlink(missing_ok=True)
    return log_dir


def record(out: Path, log_dir: Path) -> None:
    """List what the demo wrote, so the next demo may remove it (and only it)."""
    logs = sorted(p.name for p in log_dir.glob("*.eval"))
    data = {"logs": logs, "report": True}
    try:
        (out / MARKER).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise BiaslabError(f"cannot write {out / MARKER}: {exc.strerror or exc}") from exc


def run_plan(
    runs: Sequence[DemoRun],
    run_suite: Callable[..., list[Any]],
    log_dir: Path,
    seed: int,
    say: Callable[[str], None],
) -> None:
    for item in runs:
        for offset in range(item.seeds):
            agents = ", ".join(m.removeprefix("biaslab/") for m in item.models)
            extra = f" ({item.note})" if item.note else ""
            judge = f", judged by {item.judge.removeprefix('biaslab/')}" if item.judge else ""
            say(f"[demo] {item.suite}{extra}, seed {seed + offset}: {agents}{judge}")
            run_suite(
                item.suite,
                models=item.models,
                preset=None,
                n=item.n,
                seed=seed + offset,
                params=dict(item.params),
                log_dir=log_dir,
                limit=None,
                max_connections=None,
                display="none",
                resume=False,
                roles={"judge": item.judge} if item.judge else None,
            )
