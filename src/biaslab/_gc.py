"""Garbage-collection and allocator settings for the long, allocation-heavy commands (run,
analyze, report).

A run with the built-in agents or an analysis allocates millions of small objects (messages, log
records, frame rows) that all live until the end; CPython's default gen-0 threshold (700) makes the
collector rescan them over and over (measured: ~1.9 s of 3.4 s reading a 6k-answer log directory).
Freezing what the imports created and collecting less often changes no result, only time.

An analysis also allocates and frees thousands of arrays of megabytes (permutation and resample
blocks); :func:`reused_heap` keeps their memory in the process between uses. Neither setting
changes a result, only time.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator
from typing import Any

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


#: glibc ``mallopt`` parameters (``malloc.h``) and their documented defaults
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_GLIBC_DEFAULT = 128 * 1024
#: requests below this come from the heap, where freed memory is reused: glibc's largest
#: allowed threshold (32 MiB on 64-bit), which the permutation and resample blocks stay under
_HEAP_BELOW = 32 * 1024 * 1024
#: free memory at the top of the heap kept rather than returned to the system
_KEEP_FREE = 512 * 1024 * 1024


@contextlib.contextmanager
def reused_heap() -> Iterator[None]:
    """Large temporary arrays served from memory the process already holds, for the duration.
    Used only by the ``analyze`` and ``report`` commands, whose process biaslab owns: glibc has no
    way to read its settings back, so the ones restored afterwards are its documented defaults,
    and its dynamic threshold stays off (``mallopt(3)``).

    By default glibc maps each array of more than a few hundred KiB freshly from the system and
    unmaps it when freed, and numpy asks for transparent huge pages on arrays of 4 MiB or more, so
    every permutation or resample block starts with page faults whose zeroing (and huge-page
    compaction) the kernel bills as system time. On 20k answers (``bench_analyze_logs.py``, three
    alternating runs on a busy machine) that was 1.6-2.9 s of system time in 9.5-11.2 CPU-s;
    with the heap kept and no huge-page advice, 0.5-0.7 s in 7.8-8.4 CPU-s, with no change in
    user time. Elsewhere than glibc on Linux the allocator part is left alone.
    """
    mallopt = _glibc_mallopt()
    hugepages = _set_numpy_hugepages(False)
    if mallopt is not None:
        mallopt(_M_MMAP_THRESHOLD, _HEAP_BELOW)
        mallopt(_M_TRIM_THRESHOLD, _KEEP_FREE)
    try:
        yield
    finally:
        if mallopt is not None:  # glibc's documented defaults (no longer adjusted dynamically)
            mallopt(_M_MMAP_THRESHOLD, _GLIBC_DEFAULT)
            mallopt(_M_TRIM_THRESHOLD, _GLIBC_DEFAULT)
        if hugepages is not None:
            _set_numpy_hugepages(hugepages)


def _glibc_mallopt() -> Any:
    """glibc's ``mallopt``, or None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    import platform

    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return None


def _set_numpy_hugepages(enabled: bool) -> bool | None:
    """Turn numpy's huge-page advice on or off (what its ``NUMPY_MADVISE_HUGEPAGE`` variable sets
    at import); the previous setting, or None when this numpy has no such switch."""
    try:
        from numpy._core import multiarray
    except ImportError:
        return None
    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    return None if switch is None else bool(switch(enabled))
