"""Progress of long, model-free work (generating a large item set), shown on stderr.

The CLI opens a :func:`reporting` block around the work; a suite says how much work there is with
:func:`expect` and calls :func:`advance` as items are made, both costing nothing when no block is
open (library use, tests) or the set is small. The bar is rich's (a
dependency Inspect already brings), drawn only when stderr is a terminal, so logs and pipes stay
clean.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

#: below this many items there is nothing worth watching
MIN_ITEMS = 200

_current: ContextVar[Any] = ContextVar("biaslab_progress", default=None)


@contextlib.contextmanager
def reporting(description: str) -> Iterator[None]:
    """Show a progress bar while the block runs (terminal stderr only; shown once a suite
    :func:`expect`s at least :data:`MIN_ITEMS` units)."""
    if not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (
        "{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True, auto_refresh=True) as bar:
        task = bar.add_task(description, total=None, visible=False)
        token = _current.set((bar, task))
        try:
            yield
        finally:
            _current.reset(token)


def expect(total: int) -> None:
    """Announce ``total`` units of work (the bar appears if there are enough of them)."""
    current = _current.get()
    if current is not None:
        bar, task = current
        bar.update(task, total=total, visible=total >= MIN_ITEMS)


def advance(units: int = 1) -> None:
    """Count ``units`` of work done (a no-op outside a :func:`reporting` block)."""
    current = _current.get()
    if current is not None:
        bar, task = current
        bar.advance(task, units)
