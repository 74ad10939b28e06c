"""biaslab: fresh, formally labelled reasoning probes for LLMs and bias statistics."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("biaslab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]
