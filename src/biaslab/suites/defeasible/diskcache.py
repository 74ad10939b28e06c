"""A per-user cache of plain data derived from installed packages (the pseudoword model).

Why a cache and not a shipped file: the pseudoword model is derived from ``wordfreq``'s word lists
(CC BY-SA), so the package ships the code that trains it, not the trained model; each user's
first run trains it from their own ``wordfreq`` and later processes read it back (a few
milliseconds instead of importing ``wordfreq`` and training, about 0.7 CPU-s).

Values are plain data (dicts, tuples, strings, numbers, frozensets) written with :mod:`marshal`,
which keeps dict order and float bits exactly and never runs code when read. The file name
carries a key the caller derives from everything the value depends on, plus the Python version
(marshal's format is version-specific), so a stale entry is never read: it simply is not found.
Any problem reading or writing (no home directory, a read-only disk, a truncated file, two
processes at once) falls back to computing the value; writes are atomic (a temporary file
renamed into place).

``BIASLAB_CACHE_DIR`` chooses the directory (default ``$XDG_CACHE_HOME/biaslab``, else
``~/.cache/biaslab``); set it to an empty string to turn the cache off.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ENV = "BIASLAB_CACHE_DIR"


def cache_dir() -> Path | None:
    """The cache directory, or None when the cache is off."""
    chosen = os.environ.get(ENV)
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no HOME and no passwd entry (a container's arbitrary user id)
            return None
    return Path(base) / "biaslab"


def entry_path(name: str, key: str) -> Path | None:
    """Where the entry ``name`` with ``key`` lives (None when the cache is off)."""
    directory = cache_dir()
    if directory is None:
        return None
    text = f"{key}|python {sys.version_info.major}.{sys.version_info.minor}"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]
    return directory / f"{name}-{digest}.marshal"


def load(name: str, key: str) -> object | None:
    """The cached value, or None if there is none (or it cannot be read)."""
    path = entry_path(name, key)
    if path is None:
        return None
    try:
        return marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None


def store(name: str, key: str, value: Any) -> None:
    """Write the value for later processes; a failure only means it is computed again."""
    path = entry_path(name, key)
    if path is None:
        return
    temporary: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # a name of its own per writer (threads, or processes sharing a home), renamed into place
        handle, name = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".tmp", dir=path.parent)
        temporary = Path(name)
        with os.fdopen(handle, "wb") as file:
            file.write(marshal.dumps(value))
        os.replace(temporary, path)
    except (OSError, ValueError):
        if temporary is not None:
            temporary.unlink(missing_ok=True)
