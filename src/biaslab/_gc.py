"""Garbage-collection settings for the long, allocation-heavy commands (run, analyze, report).

A run with the built-in agents or an analysis allocates millions of small objects (messages, log
records, frame rows) that all live until the end; CPython's default gen-0 threshold (700) makes the
collector rescan them over and over (measured: ~1.9 s of 3.4 s reading a 6k-answer log directory).
Freezing what the imports created and collecting less often changes no result, only time.
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 50_000
_tuned = False


def tune_gc() -> None:
    """Freeze the objects alive now (imports) and raise the gen-0 threshold; once per process."""
    global _tuned
    if _tuned:
        return
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, gen1, gen2)
    _tuned = True
