"""Running a suite against models so that a user can stop, rerun and resume without counting an
answer twice or asking a finished sample again.

* **One writer per run.** Each (task, arguments, model, roles, limit) takes an exclusive ``flock`` on
  a lock file in the log directory for as long as it runs. The kernel drops the lock when the
  process ends however it ends (even SIGKILL), so a held lock means a live writer — which is never
  hijacked — and a free one means any unfinished log of that run is safe to resume.
* **Resume what Inspect can resume.** The newest unfinished log of the run (``error``,
  ``cancelled``, or ``started`` by a process that is gone) is continued with ``inspect_ai.eval_retry``,
  which reuses the samples the log already holds and, for a ``started`` log, first recovers the
  samples that finished before the crash from Inspect's sample buffer. A run that already
  succeeded is reported as up to date and not asked again.
* **Interruptions are exits, not successes.** Ctrl-C (SIGINT) and SIGTERM stop the eval through
  Inspect's own cancellation (it writes the log as ``cancelled``), print one line saying how many
  samples the log holds and exit 130 / 143, so ``biaslab run … && biaslab report …`` stops. SIGTERM
  does so even where SIGINT is ignored (a background job of a script, ``nohup``, a batch job step):
  see :class:`SignalGuard`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import signal
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from biaslab.errors import BiaslabError
from biaslab.identity import roles_spec

LOCK_DIR = ".biaslab-locks"
EXIT_INTERRUPTED = {signal.SIGINT: 130, signal.SIGTERM: 143}

#: finite defaults for remote providers (Inspect's own default retries for a very long time)
DEFAULT_MAX_RETRIES = 6
DEFAULT_TIMEOUT = 1800  # seconds a request may take, retries included
DEFAULT_ATTEMPT_TIMEOUT = 600  # seconds one attempt may take


class Interrupted(Exception):
    """The user stopped the run; ``exit_code`` is 130 (SIGINT) or 143 (SIGTERM)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class RunSpec:
    """What a log must match to be an attempt of the run being started."""

    task: str  # the task's name (the suite)
    task_args: Mapping[str, Any]
    model: str
    model_roles: Mapping[str, RoleValue]
    limit: int | None

    def matches(self, header: Any) -> bool:
        spec = header.eval
        return (
            spec.task == self.task
            and _canonical(spec.task_args) == _canonical(self.task_args)
            and spec.model == self.model
            and roles_spec(spec.model_roles) == roles_spec(dict(self.model_roles))
            and (spec.config.limit if spec.config else None) == self.limit
        )

    def lock_name(self) -> str:
        text = _canonical(
            [self.task, dict(self.task_args), self.model, dict(self.model_roles), self.limit]
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20] + ".lock"

    def describe(self) -> str:
        seed = self.task_args.get("seed")
        roles = "".join(f", {r}={role_model(m)}" for r, m in sorted(self.model_roles.items()))
        return f"{self.task} with {self.model}{roles} (seed {seed})"


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, default=str)


@contextlib.contextmanager
def run_lock(log_dir: Path, spec: RunSpec) -> Iterator[None]:
    """Hold the run's lock, or fail in one line if a live process holds it."""
    directory = log_dir / LOCK_DIR
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle = (directory / spec.lock_name()).open("a+", encoding="utf-8")
    except OSError as exc:
        raise BiaslabError(f"cannot create a lock in {log_dir}: {exc.strerror or exc}") from exc
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            owner = handle.read().strip() or "another process"
            raise BiaslabError(
                f"{spec.describe()} is already running into {log_dir} ({owner}); wait for it "
                "to finish or use another --log-dir"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@dataclass(frozen=True)
class Previous:
    """Earlier attempts of a run in the log directory."""

    succeeded: Any | None  # EvalLogInfo of the newest successful attempt
    unfinished: Any | None  # EvalLogInfo of the newest resumable attempt
    unreadable: tuple[str, ...] = ()


def previous_attempts(log_dir: Path, spec: RunSpec) -> Previous:
    """The newest successful and the newest unfinished attempt of ``spec`` (headers only). The
    caller holds the run's lock, so a ``started`` log here belongs to a process that is gone."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    if not log_dir.is_dir():
        return Previous(None, None)
    succeeded: tuple[str, Any] | None = None
    unfinished: tuple[str, Any] | None = None
    unreadable: list[str] = []
    for info in list_eval_logs(str(log_dir), recursive=False):
        try:
            header = read_eval_log(info, header_only=True)
        except Exception:  # a corrupt log must not block the directory
            unreadable.append(info.name.rsplit("/", 1)[-1])
            continue
        if not spec.matches(header):
            continue
        stamp = f"{header.eval.created}|{info.name}"
        if header.status == "success":
            if succeeded is None or stamp > succeeded[0]:
                succeeded = (stamp, info)
        elif header.status in ("error", "cancelled", "started") and (
            unfinished is None or stamp > unfinished[0]
        ):
            unfinished = (stamp, info)
    return Previous(
        succeeded=succeeded[1] if succeeded else None,
        unfinished=unfinished[1] if unfinished else None,
        unreadable=tuple(unreadable),
    )


def finished_sample_counts(log_dir: str, specs: Sequence[RunSpec]) -> list[int | None]:
    """Per spec, the number of samples of its newest successful log in ``log_dir`` (None: no
    such log). One pass over the headers, for ``run all``: a task with a finished run needs no
    items unless the eval set decides to run it after all (:func:`biaslab.runner.items_on_demand`).
    A directory that cannot be listed or a corrupt log counts as nothing finished."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    found: list[tuple[str, int] | None] = [None] * len(specs)
    try:
        infos = list_eval_logs(log_dir, recursive=False)
    except Exception:  # a missing or unreachable directory: nothing has finished there
        return [None] * len(specs)
    for info in infos:
        try:
            header = read_eval_log(info, header_only=True)
        except Exception:  # a corrupt log is the eval set's to report
            continue
        samples = header.eval.dataset.samples if header.eval.dataset else None
        if header.status != "success" or not samples:
            continue
        stamp = f"{header.eval.created}|{info.name}"
        for index, spec in enumerate(specs):
            best = found[index]
            if spec.matches(header) and (best is None or stamp > best[0]):
                found[index] = (stamp, samples)
    return [entry[1] if entry else None for entry in found]


class SignalGuard:
    """Stop a running eval on SIGTERM the way Ctrl-C stops it, whatever SIGINT's disposition.

    Inspect cancels an eval when the event loop's main task is cancelled: on asyncio,
    ``asyncio.Runner`` installs a SIGINT handler that does exactly that, and Inspect writes each
    unfinished log as ``cancelled`` (resumable). The runner installs that handler only while SIGINT
    has Python's default handler, so a process started with SIGINT ignored (``cmd &`` in a script,
    ``nohup``, a batch scheduler's job step) has none, and re-raising SIGINT does nothing there.
    SIGTERM therefore calls the installed SIGINT handler directly when there is one (the same path
    as Ctrl-C) and otherwise cancels the loop's main task itself, as that handler would. SIGINT
    itself is left alone: ignored stays ignored. A second SIGTERM stops without waiting for the
    cancelled eval to finish writing."""

    def __init__(self) -> None:
        self.received: signal.Signals | None = None
        self._previous: Any = None

    def _on_term(self, signum: int, frame: FrameType | None) -> None:
        again = self.received is signal.SIGTERM
        self.received = signal.SIGTERM
        cancel_running_eval(frame, force=again)

    def __enter__(self) -> SignalGuard:
        self._previous = signal.signal(signal.SIGTERM, self._on_term)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGTERM, self._previous)

    def exit_code(self) -> int:
        return EXIT_INTERRUPTED[self.received or signal.SIGINT]


def cancel_running_eval(frame: FrameType | None, *, force: bool = False) -> None:
    """Cancel the eval running on this thread's event loop as Ctrl-C would; outside an eval (or
    with ``force``) raise KeyboardInterrupt where the program is."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and not force:
        # asyncio.Runner's or Inspect's own SIGINT handler (or Python's default outside a loop)
        handler(signal.SIGINT, frame)
        return
    loop = asyncio_running_loop()
    main_task = loop_main_task(loop) if loop is not None and not force else None
    if loop is None or main_task is None:
        raise KeyboardInterrupt
    # what asyncio.Runner's SIGINT handler does: cancel the main task and wake the loop
    main_task.cancel()
    loop.call_soon_threadsafe(lambda: None)


def asyncio_running_loop() -> Any | None:
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def loop_main_task(loop: Any) -> Any | None:
    """The task ``loop.run_until_complete`` waits on (the one ``asyncio.run`` / ``anyio.run``
    started). No public API names it; anyio's ``find_root_task`` recognises it by the same
    done-callback, but needs to run inside a task, which a signal handler is not."""
    import asyncio
    from asyncio import base_events

    marker = getattr(base_events, "_run_until_complete_cb", None)
    candidates = [
        task
        for task in asyncio.all_tasks(loop)
        if not task.done()
        and any(callback is marker for callback, _ in getattr(task, "_callbacks", None) or ())
    ]
    # nested run_until_complete calls (nest_asyncio) each add one: the oldest is the outermost
    return min(candidates, key=_task_number, default=None)


def _task_number(task: Any) -> int:
    name = task.get_name()
    digits = name.rsplit("-", 1)[-1]
    return int(digits) if digits.isdigit() else 0


def interruption_line(logs: Sequence[Any], expected: int) -> str:
    """``interrupted: 69 of 600 samples logged; run the same command to resume``: the samples the
    logs hold, counted as Inspect counts them when it reports an interrupted task."""
    done = sum(logged_samples(log) for log in logs)
    return f"interrupted: {done} of {expected} samples logged; run the same command to resume"


def logged_samples(log: Any) -> int:
    """Samples the log holds that finished without error (a resumed run keeps these)."""
    return sum(1 for sample in log.samples or [] if sample.error is None)


def log_names(log_dir: Path) -> set[str]:
    from inspect_ai.log import list_eval_logs

    return {info.name for info in list_eval_logs(str(log_dir), recursive=False)}


def logs_left_behind(log_dir: Path, specs: Sequence[RunSpec], before: set[str]) -> list[Any]:
    """Logs of these runs that appeared since ``before`` (what an interrupted eval wrote)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    found = []
    for info in list_eval_logs(str(log_dir), recursive=False):
        if info.name in before:
            continue
        try:
            log = read_eval_log(info)
        except Exception:
            continue
        if any(spec.matches(log) for spec in specs):
            found.append(log)
    return found


def sample_count(logs: Sequence[Any]) -> int:
    return sum(
        int(log.eval.dataset.samples or 0) * int(log.eval.config.epochs or 1) for log in logs
    )


def missing_role_message(suite: str, role: str) -> str:
    """The one wording of a missing role for ``biaslab run SUITE`` and ``biaslab run all``
    (``--judge`` works for both; ``--model-role`` only for a single suite)."""
    if role == "judge":
        return f"suite {suite!r} needs a judge model: add --judge MODEL (or --self-judge)"
    return f"suite {suite!r} needs a {role} model: add --model-role {role}=MODEL"


#: a role's model: its name, or ``{"model": NAME, "config": {...}, "args": {...}}`` with the
#: generation settings (temperature, …) and model arguments the role was given
RoleValue = str | Mapping[str, Any]


def parse_role(pair: str) -> tuple[str, RoleValue]:
    """``ROLE=MODEL`` or ``ROLE={model: MODEL, temperature: 0.3, ...}`` (YAML or JSON), as
    ``inspect eval --model-role`` takes it: every key but ``model`` and ``model_args`` is a
    generation setting, checked by Inspect's ``GenerateConfig``. One-line errors."""
    import yaml  # Inspect depends on PyYAML
    from inspect_ai.model import GenerateConfig
    from pydantic import ValidationError

    role, sep, value = (part.strip() for part in pair.partition("="))
    if not sep or not role or not value:
        raise BiaslabError(
            f"bad --model-role {pair!r}: expected ROLE=MODEL or 'ROLE={{model: MODEL, "
            "temperature: T}'"
        )
    if not value.startswith("{"):
        return role, value
    try:
        data = yaml.safe_load(value)
    except yaml.YAMLError:
        raise BiaslabError(f"bad --model-role {pair!r}: not a YAML or JSON mapping") from None
    if not isinstance(data, dict) or not isinstance(data.get("model"), str):
        raise BiaslabError(f"bad --model-role {pair!r}: the mapping needs model: NAME")
    model, args = data.pop("model"), data.pop("model_args", None) or {}
    if not isinstance(args, dict):
        raise BiaslabError(f"bad --model-role {pair!r}: model_args must be a mapping")
    try:
        config = GenerateConfig(**data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "settings"
        raise BiaslabError(f"bad --model-role {role}: {where}: {first['msg']}") from None
    settings = config.model_dump(mode="json", exclude_none=True)
    return role, {"model": model, "config": settings, "args": args}


def role_model(value: RoleValue) -> str:
    """The model name of a role."""
    return value if isinstance(value, str) else str(value["model"])


def model_roles_arg(roles: Mapping[str, RoleValue]) -> dict[str, Any] | None:
    """Roles as ``inspect_ai.eval`` takes them: a name, or a model built with the role's own
    generation settings (a distinct instance per role, as ``inspect eval`` builds it)."""
    from inspect_ai.model import GenerateConfig, get_model

    out: dict[str, Any] = {}
    for role, value in roles.items():
        if isinstance(value, str):
            out[role] = value
            continue
        config = GenerateConfig(**value["config"])
        out[role] = get_model(value["model"], config=config, memoize=False, **value["args"])
    return out or None


def is_reference_agent(model: str) -> bool:
    """Built-in offline agents (not the embedded LLM): their runs need no live view or recovery."""
    name = model.removeprefix("biaslab/")
    return model.startswith("biaslab/") and name != "local" and not name.startswith("local?")


def embedded_connections(models: Sequence[str]) -> int | None:
    """The connection limit an eval needs when one of its models is the embedded model, else None.

    Inspect's adaptive concurrency (on by default) starts several samples at once and ignores a
    provider's own ``max_connections()``; the embedded server then decodes their turns interleaved
    on its slots, and each turn evicts the KV cache the previous turn of its own conversation left
    there, so every prompt is encoded again from the start. An explicit limit equal to the slot
    count (one conversation per slot) switches adaptive concurrency off and keeps each slot's cache
    for the conversation that filled it. Inspect applies the limit to every model of the eval, so
    it is set only when the others are built-in agents: a remote model (or judge) beside the
    embedded one keeps its own concurrency, and the user sets ``--max-connections`` if they want.
    """
    slots = []
    for model in models:
        if is_reference_agent(model):
            continue
        # imported only here: the provider imports Inspect, which a built-in agent's grid re-run
        # does without
        from biaslab.local.provider import MODEL_NAME, parse_model_name

        name = model.removeprefix("biaslab/")
        if model.startswith("biaslab/") and name.partition("?")[0] == MODEL_NAME:
            slots.append(parse_model_name(name)["parallel"])
        else:
            return None
    return min(slots) if slots else None


def remote_defaults(models: Sequence[str]) -> dict[str, int]:
    """Finite retry and timeout defaults unless every model is a built-in agent."""
    if all(is_reference_agent(model) for model in models):
        return {}
    return {
        "max_retries": DEFAULT_MAX_RETRIES,
        "timeout": DEFAULT_TIMEOUT,
        "attempt_timeout": DEFAULT_ATTEMPT_TIMEOUT,
    }


def signal_name(code: int) -> str:
    return {130: "SIGINT", 143: "SIGTERM"}.get(code, str(code))
