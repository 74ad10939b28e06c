"""Benchmark the embedded model (SmolLM2-135M Q4_1 on the in-process llama.cpp server).

Run: ``python bench/bench_local.py [--threads 1] [--turns 8] [--restarts 3] [--run-n 2]``.

(a) Server start: wall time from ``get_server`` to a healthy ``/health`` (the first start in a
    process, then the median over restarts).
(b) Decode speed: one 128-token generation (``ignore_eos``), from the server's own timings.
(c) Conversation: an 8-turn judge-style conversation through the full Inspect path (one answer
    token with top-5 logprobs per turn; ~470 prompt tokens at turn 1, ~60 more per turn), once with
    ``cache_prompt: false`` (every turn re-encodes the whole prompt) and once with the default
    prefix reuse. Different premises per run, so the second run cannot reuse the first's cache.
(d) A real suite run: ``biaslab run defeasible --model biaslab/local --n 2`` (every topology, six
    conversations) in a fresh process, once as runs were before (Inspect's adaptive concurrency,
    several conversations interleaved on the one slot; ``--adaptive`` forces it back) and once with
    today's default (one conversation per slot); CPU seconds of the child and the log's prompt
    tokens encoded vs read from the cache. ``--run-n 0`` skips it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Any

from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
    modelapi,
)

from biaslab.local import ServerSpec, get_server, locate_gguf, stop_server
from biaslab.local.provider import LocalModelAPI

NAMES = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu"]
CLASSES = ["birds", "penguins", "robins", "animals", "swimmers", "fliers", "pets", "mammals"]


def premises(rng: random.Random, n: int) -> str:
    lines = []
    for i in range(n):
        a, b = rng.sample(CLASSES, 2)
        lines.append(f"{i + 1}. {rng.choice(NAMES)} says that typically {a} are {b}.")
    return "\n".join(lines)


def turn_question(rng: random.Random, turn: int) -> str:
    a, b = rng.sample(CLASSES, 2)
    return (
        f"Update {turn}: new information arrives. {rng.choice(NAMES)} learns that some {a} "
        f"are not {b}, and {rng.choice(NAMES)} agrees with this observation about {a}. "
        f"Given everything so far, are {a} {b}? Answer with one word: yes, no or unknown."
    )


def register() -> None:
    """Bench-only provider name; the toolkit's own is ``biaslab/local``."""

    @modelapi(name="biaslab-local-bench")
    def _provider() -> type:
        return LocalModelAPI


async def conversation(model: Model, seed: int, turns: int, cache: bool) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    messages: list[ChatMessage] = [
        ChatMessageSystem(
            content="You judge statements from the premises below.\n" + premises(rng, 30)
        )
    ]
    config = GenerateConfig(
        max_tokens=1,
        temperature=0,
        logprobs=True,
        top_logprobs=5,
        extra_body={"cache_prompt": cache},
    )
    rows = []
    for turn in range(1, turns + 1):
        messages.append(ChatMessageUser(content=turn_question(rng, turn)))
        started = time.perf_counter()
        output = await model.generate(messages, config=config)
        elapsed = time.perf_counter() - started
        usage = output.usage
        fresh = usage.input_tokens if usage else 0
        cached = (usage.input_tokens_cache_read or 0) if usage else 0
        rows.append({"turn": turn, "s": elapsed, "prompt": fresh + cached, "cached": cached})
        messages.append(ChatMessageAssistant(content=output.completion or "unknown"))
    return rows


def decode_speed(spec: ServerSpec, tokens: int) -> tuple[float, float]:
    """(decode tok/s, prompt tok/s) from llama.cpp's own timings for one long generation."""
    server = get_server(spec)
    body = {
        "messages": [{"role": "user", "content": "Tell me a long story about a lighthouse."}],
        "max_tokens": tokens,
        "ignore_eos": True,
        "temperature": 0,
        "cache_prompt": False,
    }
    request = urllib.request.Request(
        server.openai_base_url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {server.api_key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        timings = json.loads(response.read())["timings"]
    return float(timings["predicted_per_second"]), float(timings["prompt_per_second"])


RUN_ARGS = ["run", "defeasible", "--model", "biaslab/local", "--display", "none"]


def real_run(n: int, interleaved: bool) -> dict[str, float]:
    """One ``biaslab run`` in a fresh process: child CPU seconds, wall seconds and token counts.

    ``interleaved`` passes Inspect's default concurrency explicitly (``--max-connections`` unset
    is today's one-conversation-per-slot default; Inspect's adaptive start lets 10 run at once)."""
    with tempfile.TemporaryDirectory() as log_dir:
        command = [sys.executable, "-m", "biaslab.cli", *RUN_ARGS, "--n", str(n)]
        command += ["--log-dir", log_dir]
        if interleaved:
            command += ["--max-connections", "10"]
        before = os.times()
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        wall = time.perf_counter() - started
        after = os.times()
        (info,) = list_eval_logs(log_dir)
        usage = read_eval_log(info, header_only=True).stats.model_usage["biaslab/local"]
    return {
        "cpu": (after.children_user - before.children_user)
        + (after.children_system - before.children_system),
        "wall": wall,
        "encoded": float(usage.input_tokens),
        "cached": float(usage.input_tokens_cache_read or 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=2048)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--decode-tokens", type=int, default=128)
    parser.add_argument("--run-n", type=int, default=2, help="(d)'s --n; 0 skips (d)")
    args = parser.parse_args()

    spec = ServerSpec(gguf=locate_gguf(), threads=args.threads, ctx=args.ctx)
    print(f"model: {spec.gguf.name}  threads={spec.threads}  ctx={spec.ctx}")

    started = time.perf_counter()
    first = get_server(spec)
    print(f"(a) server start, first in process: {time.perf_counter() - started:.2f} s")
    starts = []
    for _ in range(args.restarts):
        stop_server(spec)
        starts.append(get_server(spec).start_seconds)
    if starts:
        print(
            f"    restarts: median {statistics.median(starts):.2f} s "
            f"(min {min(starts):.2f}, max {max(starts):.2f}, n={len(starts)})"
        )
    del first

    decode, prompt = decode_speed(spec, args.decode_tokens)
    print(f"(b) decode {decode:.1f} tok/s ({args.decode_tokens} tokens), prompt {prompt:.0f} tok/s")

    register()
    name = f"biaslab-local-bench/local?threads={args.threads}&ctx={args.ctx}"
    model = get_model(name, memoize=False)

    async def both() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with model:
            naive = await conversation(model, seed=1, turns=args.turns, cache=False)
            reuse = await conversation(model, seed=2, turns=args.turns, cache=True)
            return naive, reuse

    naive, reuse = asyncio.run(both())
    print(f"(c) {args.turns}-turn conversation, seconds per turn (prompt tokens, of which cached):")
    print("    turn  cache_prompt=false        cache_prompt=true")
    for a, b in zip(naive, reuse, strict=True):
        print(
            f"    {a['turn']:>4}  {a['s']:6.2f} s ({a['prompt']:4d}, {a['cached']:4d})"
            f"   {b['s']:6.2f} s ({b['prompt']:4d}, {b['cached']:4d})"
        )
    total_naive = sum(r["s"] for r in naive)
    total_reuse = sum(r["s"] for r in reuse)
    print(
        f"    total {total_naive:.2f} s -> {total_reuse:.2f} s "
        f"({total_naive / total_reuse:.1f}x faster with prefix reuse)"
    )
    stop_server(spec)

    if args.run_n:
        print(f"(d) biaslab run defeasible --model biaslab/local --n {args.run_n}:")
        for label, interleaved in (("interleaved (before)", True), ("one per slot", False)):
            row = real_run(args.run_n, interleaved)
            print(
                f"    {label:<21} CPU {row['cpu']:6.1f} s  wall {row['wall']:6.1f} s  "
                f"prompt tokens encoded {row['encoded']:7.0f}, from cache {row['cached']:7.0f}"
            )


if __name__ == "__main__":
    main()
