"""Lifecycle of the embedded llama.cpp server: one per process per (gguf, threads, ctx, parallel).

The server runs *in-process* through ``xllamacpp.Server`` (llama.cpp's own C++ HTTP server, run on
native threads). In-process rather than a subprocess because it makes orphans impossible: whatever
ends the Python process (normal exit, Ctrl-C, SIGTERM, even SIGKILL) ends the server and closes its
port with it. On a normal exit or Ctrl-C (KeyboardInterrupt unwinds to ``atexit``) we also stop it
politely, which joins its threads. It listens on 127.0.0.1 on a port the OS picks (no race), and
requires a random per-process API key so other local users or browser pages cannot drive it.
"""

from __future__ import annotations

import atexit
import logging
import os
import secrets
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError

logger = logging.getLogger(__name__)

DEFAULT_THREADS = 1
"""One thread: with a second busy core, ggml's spinning thread barriers make 2 threads ~40x slower."""
DEFAULT_CTX = 8192
"""Context per slot (per concurrent conversation), in tokens: SmolLM2's training context, so a
long conversation fits (its KV cache is ~190 MB at this size)."""
DEFAULT_PARALLEL = 1
"""Slots (conversations decoded at once). One keeps memory low and results schedule-independent."""
DEFAULT_START_TIMEOUT = 120.0
RAM_CACHE_MIB = 0
"""Host-RAM prompt cache, off: with it on, a conversation whose slot state was swapped out and back
in was seen to answer differently from the same conversation run alone. Each turn still reuses its
slot's KV cache (``cache_prompt``), which is where the speed-up is. The setting is checked in
tests/local (the server's parameters); the concurrency test checks answers, not this cache."""
_LOG_ERRORS_ONLY = 1  # llama.cpp verbosity threshold: 1 prints errors, -1 prints nothing


class LocalServerError(RuntimeError):
    """The server did not come up (not a user mistake: report it with the details)."""


@dataclass(frozen=True)
class ServerSpec:
    """What makes two servers different; equal specs share one server within a process."""

    gguf: Path
    threads: int = DEFAULT_THREADS
    ctx: int = DEFAULT_CTX
    parallel: int = DEFAULT_PARALLEL

    def __post_init__(self) -> None:
        for name in LIMITS:
            check_option(name, getattr(self, name))


LIMITS = {"threads": (1, 512), "ctx": (64, 1 << 20), "parallel": (1, 256)}


def check_option(name: str, value: object) -> None:
    """One-line error for a size outside what llama.cpp can sensibly take."""
    low, high = LIMITS[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BiaslabError(f"local model: {name} must be an integer in [{low}, {high}]")


class LocalServer:
    """A running server: where to reach it, with which key, and how to stop it."""

    def __init__(
        self, spec: ServerSpec, native: Any, base_url: str, api_key: str, start_seconds: float
    ) -> None:
        self.spec = spec
        self.base_url = base_url
        """Root URL, e.g. ``http://127.0.0.1:40123`` (``/health``, ``/slots``, ``/v1/...``)."""
        self.api_key = api_key
        self.start_seconds = start_seconds
        """Wall time from the constructor call to a healthy ``/health``."""
        self._native: Any = native
        self._lock = threading.Lock()

    @property
    def openai_base_url(self) -> str:
        """Base URL for OpenAI-compatible clients."""
        return self.base_url + "/v1"

    @property
    def port(self) -> int:
        return int(self.base_url.rsplit(":", 1)[1])

    @property
    def running(self) -> bool:
        return self._native is not None

    def stop(self) -> None:
        """Stop serving and join the server threads (in-flight requests are cut off)."""
        with self._lock:
            native, self._native = self._native, None
        if native is not None:
            del native  # ~Server stops the HTTP listener and the decode loop, then joins them
            logger.info("stopped local llama.cpp server at %s", self.base_url)

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"LocalServer({self.base_url}, {self.spec}, {state})"


_lock = threading.Lock()
_servers: dict[ServerSpec, LocalServer] = {}
_abandoned: list[LocalServer] = []  # inherited across fork: never destroyed in the child
_hooks_installed = False


def get_server(spec: ServerSpec, timeout: float = DEFAULT_START_TIMEOUT) -> LocalServer:
    """Return the process's server for ``spec``, starting it on first use (thread-safe, blocking)."""
    server = _servers.get(spec)
    if server is not None and server.running:
        return server
    with _lock:
        server = _servers.get(spec)
        if server is not None and server.running:
            return server
        _install_hooks()
        server = _start(spec, timeout)
        _servers[spec] = server
        return server


async def aget_server(spec: ServerSpec, timeout: float = DEFAULT_START_TIMEOUT) -> LocalServer:
    """Async :func:`get_server`: the fast path is a dict lookup; a start runs in a worker thread."""
    server = _servers.get(spec)
    if server is not None and server.running:
        return server
    import anyio.to_thread

    return await anyio.to_thread.run_sync(get_server, spec, timeout)


def running_servers() -> list[LocalServer]:
    """Servers this process has started and not stopped."""
    return [s for s in list(_servers.values()) if s.running]


def stop_server(spec: ServerSpec) -> bool:
    """Stop the server for ``spec`` if one runs; True if one was stopped."""
    with _lock:
        server = _servers.pop(spec, None)
    if server is None or not server.running:
        return False
    server.stop()
    return True


def stop_all() -> None:
    """Stop every server of this process (registered with ``atexit``)."""
    with _lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        try:
            server.stop()
        except Exception:  # at exit, keep stopping the others
            logger.exception("failed to stop %r", server)


def _install_hooks() -> None:
    global _hooks_installed
    if _hooks_installed:
        return
    atexit.register(stop_all)
    # A forked child inherits the Server objects but not their threads; destroying them there would
    # wait forever for a loop that does not exist, so the child just forgets them.
    os.register_at_fork(after_in_child=_forget_after_fork)
    _hooks_installed = True


def _forget_after_fork() -> None:
    global _lock
    _abandoned.extend(_servers.values())
    _servers.clear()
    _lock = threading.Lock()


def _start(spec: ServerSpec, timeout: float) -> LocalServer:
    try:
        import xllamacpp
    except ImportError as exc:
        raise BiaslabError(
            "the embedded model needs xllamacpp: run `pip install xllamacpp`"
        ) from exc

    api_key = secrets.token_urlsafe(24)
    params = xllamacpp.CommonParams()
    params.model.path = str(spec.gguf)
    params.model_alias = {spec.gguf.stem}
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # the OS picks a free port when the listener binds: no check-then-bind race
    params.api_keys = [api_key]
    params.n_parallel = spec.parallel
    params.n_ctx = spec.ctx * spec.parallel  # llama.cpp splits n_ctx evenly across slots
    params.kv_unified = False
    params.cpuparams.n_threads = spec.threads
    params.cpuparams_batch.n_threads = spec.threads
    params.cache_prompt = True
    params.cache_ram_mib = RAM_CACHE_MIB
    params.warmup = False  # saves a dummy decode at start; the first request warms up anyway
    params.ui = False
    params.verbosity = _LOG_ERRORS_ONLY

    started = time.perf_counter()
    try:
        native = xllamacpp.Server(params)
    except RuntimeError as exc:
        raise BiaslabError(
            f"llama.cpp could not load {spec.gguf} (is it a GGUF of a supported architecture?)"
        ) from exc
    server = LocalServer(spec, native, native.listening_address, api_key, 0.0)
    try:
        _wait_healthy(server.base_url, timeout)
    except BaseException:
        server.stop()  # never leave a half-started server behind
        raise
    server.start_seconds = time.perf_counter() - started
    logger.info(
        "started local llama.cpp server at %s in %.2f s (%s)",
        server.base_url,
        server.start_seconds,
        spec,
    )
    return server


def _wait_healthy(base_url: str, timeout: float) -> None:
    """Poll ``/health`` until 200; llama.cpp answers 503 while the model is still loading."""
    deadline = time.monotonic() + timeout
    last: str = "no answer"
    delay = 0.02
    while True:
        try:
            with urllib.request.urlopen(base_url + "/health", timeout=5) as response:
                if response.status == 200:
                    return
                last = f"HTTP {response.status}"
        except urllib.error.HTTPError as exc:
            last = f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            last = str(exc)
        if time.monotonic() >= deadline:
            raise LocalServerError(
                f"local llama.cpp server at {base_url} not healthy after {timeout:.0f} s ({last})"
            )
        time.sleep(delay)
        delay = min(delay * 2, 0.5)
