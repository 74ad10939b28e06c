"""A run's identity: what determines its answers, and nothing else.

Two logs with the same identity asked the same model the same questions under the same generation
settings, however they were produced (``biaslab run``, ``inspect eval``, a retry, a rerun, a killed
process, two processes at once), so each answer must count once. Inspect's ``run_id``/``eval_id``
are random per process and the file name carries a timestamp: neither may decide anything an
analysis computes. Identity = suite, generator version, resolved config, seed, model name and
args, model roles, and the generation settings that can change an answer. Connection settings
(retries, timeouts, concurrency) and the number of items asked (``--n``/``--limit``) are left
out: items are index-stable, so answers are matched per item id and epoch.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

#: GenerateConfig fields that change how a request is sent, never what the model answers
TRANSPORT_KEYS = frozenset(
    {
        "max_retries",
        "timeout",
        "attempt_timeout",
        "stream_idle_timeout",
        "max_connections",
        "adaptive_connections",
        "cache",
        "batch",
        "extra_headers",
    }
)


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    return value


def answer_settings(config: Any) -> dict[str, Any]:
    """The generation settings that can change an answer (None and transport settings dropped)."""
    data = _plain(config) or {}
    return {k: v for k, v in sorted(data.items()) if v is not None and k not in TRANSPORT_KEYS}


def roles_spec(model_roles: Mapping[str, Any] | None) -> dict[str, Any]:
    """Model roles as plain data: role -> {model, args, config} (what the role's answers depend on)."""
    out: dict[str, Any] = {}
    for role, value in sorted((model_roles or {}).items()):
        configs = value if isinstance(value, list) else [value]
        specs: list[dict[str, Any]] = []
        for config in configs:
            data = _plain(config) or {}
            if isinstance(data, str):
                specs.append({"model": data, "args": {}, "config": {}})
                continue
            specs.append(
                {
                    "model": data.get("model"),
                    "args": data.get("args") or {},
                    "config": answer_settings(data.get("config")),
                }
            )
        out[role] = specs if len(specs) > 1 else specs[0]
    return out


def roles_label(model_roles: Mapping[str, Any] | None) -> str:
    """``judge=openai/gpt-4o`` style text for tables ('' when the run has no roles)."""
    parts = []
    for role, spec in roles_spec(model_roles).items():
        models = spec if isinstance(spec, list) else [spec]
        parts.append(f"{role}={'+'.join(str(m['model']) for m in models)}")
    return ", ".join(parts)


def generation_settings(spec: Any) -> str:
    """The answer-changing generation settings of a run per role, as canonical JSON:
    ``{"model": {...}, "judge": {...}}`` (the model under test's, then each role's own; a role
    with several models is left out). Analyses keep runs that differ here apart, as the run
    identity does: a judge at temperature 0.3 and one at 1.0 are two instruments."""
    out: dict[str, Any] = {"model": answer_settings(spec.model_generate_config)}
    for role, value in roles_spec(spec.model_roles).items():
        if isinstance(value, dict):
            out[role] = value.get("config") or {}
    return json.dumps(out, sort_keys=True, ensure_ascii=False, default=str)


def run_identity(spec: Any) -> dict[str, Any]:
    """The identity of the run an Inspect ``EvalSpec`` describes, as canonical plain data."""
    meta = spec.metadata or {}
    return {
        "suite": meta.get("biaslab_suite"),
        "generator_version": meta.get("biaslab_generator_version", ""),
        "config": meta.get("biaslab_config"),
        "seed": meta.get("biaslab_seed"),
        "model": spec.model,
        "model_args": spec.model_args or {},
        "model_roles": roles_spec(spec.model_roles),
        "generation": answer_settings(spec.model_generate_config),
    }


def run_key(spec: Any) -> str:
    """A short stable hash of :func:`run_identity` (equal for logs whose answers must count once)."""
    text = json.dumps(run_identity(spec), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
