"""Run orchestration: what ``biaslab run``, ``generate``, ``analyze``, ``report``, ``card`` and
``demo`` do once the CLI has parsed their arguments. The CLI only parses and delegates here; the
grid (``run all``) and the demo reuse the same pieces, so a run started any way is checked, locked,
resumed and summarised the same way.

Messages for the user go to stderr, one line each; a user error raises
:class:`~biaslab.errors.BiaslabError`, which the CLI prints as one line with exit code 2.
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from biaslab.errors import BiaslabError
from biaslab.runs import missing_role_message
from biaslab.task_settings import roles_given_at_eval


def fail(message: str) -> NoReturn:
    raise BiaslabError(message)


def parse_params(pairs: Sequence[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(f"bad parameter {pair!r}: expected key=value")
        params[key.strip()] = value.strip()
    return params


#: most seeds one command runs (each seed is a full run of the suite)
MAX_SEEDS = 1_000


def parse_seeds(text: str) -> list[int]:
    """``1-5`` or ``1,2,7`` or ``3`` -> list of seeds."""
    ranges: list[tuple[int, int]] = []
    try:
        for part in text.split(","):
            low, sep, high = part.partition("-")
            ranges.append((int(low), int(high)) if sep else (int(part), int(part)))
    except ValueError:
        fail(f"bad --seeds {text!r}: use a range like 1-20 or a list like 1,2,3")
    for first, last in ranges:
        if first < 0:
            fail(f"bad --seeds {text!r}: seeds must be non-negative")
        if last < first:
            fail(f"bad --seeds {text!r}: backwards range {first}-{last} (write {last}-{first})")
    count = sum(last - first + 1 for first, last in ranges)
    if count > MAX_SEEDS:
        fail(f"bad --seeds {text!r}: {count:,} seeds; at most {MAX_SEEDS:,} per command")
    return [seed for first, last in ranges for seed in range(first, last + 1)]


def one_line(text: str) -> str:
    """Collapse a multi-line library message (with rich markup) into one plain line."""
    text = re.sub(r"\[/?[a-z ]+\]", "", text)
    text = re.sub(r"^\s*ERROR:\s*", "", text.strip())
    return re.sub(r"\s+", " ", text).strip()


def log_path(location: str) -> str:
    """A log's location printed one way: a local file as a plain path (Inspect names local logs
    ``file:///…`` in some places and not in others), a remote one as its URL."""
    return location.removeprefix("file://")


def ensure_dir(path: Path) -> Path:
    """Create an output directory, or fail in one line."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot create {path}: {exc.strerror or exc}")
    return path


def check_model(model: str) -> None:
    """Build the model once so a missing API key or unknown provider is one line, not a traceback."""
    from inspect_ai.model import get_model

    try:
        get_model(model)
    except BiaslabError:
        raise
    except Exception as exc:  # providers raise many types for keys/names
        fail(f"cannot use model {model!r}: {one_line(str(exc)) or type(exc).__name__}")


def task_factory(suite: str) -> Any:
    """The suite's registered Inspect task function (so logs record it and its arguments, which
    is what ``inspect eval-retry`` and our resume need)."""
    import importlib

    from biaslab import _registry
    from biaslab.suites.registry import SUITE_MODULES, get_suite

    get_suite(suite)  # one-line error for an unknown suite
    # a suite outside the package (e.g. in tests) carries its @task as TASK in its own module
    return getattr(_registry, suite, None) or importlib.import_module(SUITE_MODULES[suite]).TASK


def recorded_task_args(factory: Any, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The task arguments Inspect records for a call: every parameter with its default filled in,
    and ``**params`` spread out."""
    import inspect

    signature = inspect.signature(factory)
    bound = signature.bind(**arguments)
    bound.apply_defaults()
    recorded: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        if signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
            recorded.update(value)
        else:
            recorded[name] = value
    return recorded


def run_suite(
    suite: str,
    *,
    models: Sequence[str],
    preset: str | None,
    n: int | None,
    seed: int,
    params: dict[str, str],
    log_dir: Path,
    limit: int | None,
    max_connections: int | None,
    display: str | None = None,
    resume: bool = True,
    max_tokens: int | None = None,
    max_retries: int | None = None,
    timeout: int | None = None,
    roles: Mapping[str, Any] | None = None,
    realtime: bool | None = None,
) -> list[Any]:
    """Run one suite against models and return the logs. A model whose run already succeeded in
    ``log_dir`` is up to date; one whose earlier attempt stopped (error, Ctrl-C, a killed process)
    is resumed with Inspect's retry, reusing the samples it finished (:mod:`biaslab.runs`)."""
    import asyncio

    from inspect_ai import eval as inspect_eval
    from inspect_ai import eval_retry

    from biaslab import runs
    from biaslab._gc import tune_gc

    tune_gc()

    roles = dict(roles or {})
    role_models = [runs.role_model(value) for value in roles.values()]
    ensure_dir(log_dir)
    for model in [*models, *role_models]:
        check_model(model)
    factory = task_factory(suite)
    arguments = {"preset": preset, "n": n, "seed": seed, **params}
    with roles_given_at_eval():
        task = factory(**arguments)
    task_args = recorded_task_args(factory, arguments)
    specs = {m: runs.RunSpec(task.name, task_args, m, roles, limit) for m in models}
    every_model = [*models, *role_models]
    quiet = realtime is None and all(runs.is_reference_agent(m) for m in every_model)
    defaults = runs.remote_defaults(every_model)
    common: dict[str, Any] = {
        "log_dir": str(log_dir),
        "max_connections": (
            max_connections
            if max_connections is not None
            else runs.embedded_connections(every_model)
        ),
        "display": display,
        "score_display": False,
        "max_retries": max_retries if max_retries is not None else defaults.get("max_retries"),
        "timeout": timeout if timeout is not None else defaults.get("timeout"),
        "attempt_timeout": defaults.get("attempt_timeout"),
        # built-in agents finish in seconds: the live view and crash buffer only cost time
        "log_realtime": False if quiet else realtime,
        "ctl_server": False if quiet else None,
        # one failing sample must not cancel the others: the log ends as "error" and a rerun
        # retries only the failed samples
        "continue_on_fail": True,
    }
    logs: list[Any] = []
    with contextlib.ExitStack() as stack, runs.SignalGuard() as guard:
        for model in models:
            stack.enter_context(runs.run_lock(log_dir, specs[model]))
        before = runs.log_names(log_dir)
        fresh: list[str] = []
        try:
            for model in models:
                previous = runs.previous_attempts(log_dir, specs[model]) if resume else None
                for name in previous.unreadable if previous else ():
                    click.echo(f"biaslab: skipped unreadable log {name}", err=True)
                if previous and previous.succeeded is not None:
                    click.echo(
                        f"up to date: {model} seed={seed} -> {log_path(previous.succeeded.name)}",
                        err=True,
                    )
                    from inspect_ai.log import read_eval_log

                    logs.append(read_eval_log(previous.succeeded, header_only=True))
                elif previous and previous.unfinished is not None:
                    click.echo(
                        f"resuming {model} from {log_path(previous.unfinished.name)}", err=True
                    )
                    # eval_retry reuses the failed run's own max_tokens
                    logs.extend(eval_retry(previous.unfinished, **common))
                else:
                    fresh.append(model)
                if guard.received is not None:
                    break
            if fresh and guard.received is None:
                logs.extend(
                    inspect_eval(
                        task,
                        model=fresh,
                        model_roles=runs.model_roles_arg(roles),
                        limit=limit,
                        max_tokens=max_tokens,
                        **common,
                    )
                )
        # a second signal, one outside Inspect's event loop, or a cancel that landed before the
        # eval had a result to return (the event loop then ends with CancelledError)
        except (KeyboardInterrupt, asyncio.CancelledError):
            guard.received = guard.received or signal.SIGINT
        stopped = guard.received is not None or any(log.status == "cancelled" for log in logs)
        if stopped or len(logs) < len(models):
            left = runs.logs_left_behind(log_dir, list(specs.values()), before)
            expected = runs.sample_count(left) or len(task.dataset) * len(models)
            raise runs.Interrupted(runs.interruption_line(left, expected), guard.exit_code())
    return logs


def run_all(
    *,
    models: Sequence[str],
    seeds: Sequence[int],
    n: int | None,
    params: Mapping[str, str],
    judge: str | None,
    self_judge: bool,
    log_dir: Path | str,
    options: Mapping[str, Any],
) -> None:
    """Every suite for every model and seed as one Inspect eval set in ``log_dir``."""
    import asyncio

    from biaslab import runs
    from biaslab._gc import tune_gc
    from biaslab.grid import GridSpec, run_grid, split_params
    from biaslab.suites.registry import suite_names

    if judge is not None and self_judge:
        fail("--self-judge and a judge model are mutually exclusive")
    names = tuple(suite_names())
    spec = GridSpec(
        models=tuple(models),
        seeds=tuple(seeds),
        suites=names,
        params=split_params(params, names),
        n=n,
        judge=judge,
        self_judge=self_judge,
    )
    if isinstance(log_dir, Path):
        ensure_dir(log_dir)
    every_model = [*models, *([judge] if judge else [])]
    finished = finished_grid_of(spec, log_dir, options, every_model)
    if finished is not None:
        # what the eval set prints when it finds every task finished (its console, its markup)
        import rich

        rich.get_console().print(
            f"[blue bold]Completed all tasks in '{log_dir}' successfully[/blue bold]"
        )
        print_grid_logs(finished)
        return
    for model in every_model:
        check_model(model)
    quiet = options.get("realtime") is None and all(runs.is_reference_agent(m) for m in every_model)
    defaults = runs.remote_defaults(every_model)
    eval_options: dict[str, Any] = {
        "max_tasks": options.get("max_tasks"),
        "max_connections": (
            options.get("max_connections") or runs.embedded_connections(every_model)
        ),
        "display": options.get("display"),
        "max_tokens": options.get("max_tokens"),
        "limit": options.get("limit"),
        "max_retries": options.get("max_retries") or defaults.get("max_retries"),
        "timeout": options.get("timeout") or defaults.get("timeout"),
        "attempt_timeout": defaults.get("attempt_timeout"),
        "log_realtime": False if quiet else options.get("realtime"),
        "score_display": False,
        "continue_on_fail": True,
    }
    tune_gc()
    with runs.SignalGuard() as guard:
        try:
            success, logs = run_grid(spec, log_dir, eval_options)
        except (KeyboardInterrupt, asyncio.CancelledError):
            success, logs = False, []
            guard.received = guard.received or runs.signal.SIGINT
        if guard.received is not None:
            raise runs.Interrupted(
                "interrupted: the eval set stopped; run the same command to resume",
                guard.exit_code(),
            )
    print_grid_logs(logs)
    if not success:
        raise SystemExit(1)


def finished_grid_of(
    spec: Any, log_dir: Path | str, options: Mapping[str, Any], models: Sequence[str]
) -> list[Any] | None:
    """The logs of a grid whose every task already finished in ``log_dir``, found without
    importing Inspect (:func:`biaslab.grid.finished_grid`); None when the eval set must decide.
    Built-in agents only: another model is checked first (keys, provider), which needs Inspect."""
    from biaslab import runs
    from biaslab.grid import finished_grid, grid_cells

    if not all(runs.is_reference_agent(model) for model in models):
        return None
    try:
        cells = grid_cells(spec)
    except BiaslabError:  # reported by the usual path, in its order
        return None
    return finished_grid(cells, log_dir, options)


def print_grid_logs(logs: Sequence[Any]) -> None:
    """One line per task of the grid, sorted by task, model and arguments."""
    for log in sorted(logs, key=lambda lg: (lg.eval.task, lg.eval.model, str(lg.eval.task_args))):
        click.echo(f"{log.eval.task} {log.eval.model} seed={log.eval.task_args.get('seed')}: "
                   f"{log.status} -> {log_path(log.location)}", err=True)  # fmt: skip


def resolve_roles(
    suite: str, model: str, judge: str | None, pairs: Sequence[str], self_judge: bool
) -> dict[str, Any]:
    """role -> model from --judge / --model-role / --self-judge, checked against what the suite
    needs (one line when a required role is missing)."""
    from biaslab.runs import parse_role, role_model
    from biaslab.suites.registry import get_suite

    roles: dict[str, Any] = dict(parse_role(pair) for pair in pairs)
    if judge is not None:
        if role_model(roles.get("judge", judge)) != judge:
            fail("--judge and --model-role judge=... name different models")
        roles.setdefault("judge", judge)
    if self_judge:
        if "judge" in roles:
            fail("--self-judge and a judge model are mutually exclusive")
        roles["judge"] = model
    needed = get_suite(suite).roles
    for role in needed:
        if role not in roles:
            fail(missing_role_message(suite, role))
    unused = sorted(set(roles) - set(needed))
    if unused:
        fail(f"suite {suite!r} has no {unused[0]!r} role (roles: {', '.join(needed) or 'none'})")
    return roles


def short_reason(message: str) -> str:
    """A failure as one short line: Inspect's wrapped request dump and retry chain trimmed."""
    reason = one_line(message)
    retried = re.search(r"RetryError\W.* raised (\w+)", reason)  # Inspect gave up retrying
    if retried:
        return f"{retried.group(1)} (retries exhausted)"
    if "Request:" in reason:  # ModelGenerateError('Request: {…huge JSON…} SomeError(...)')
        starts = list(re.finditer(r"[A-Z]\w*(?:Error|Exception)\(", reason))
        if starts:
            reason = reason[starts[-1].start() :]
            while reason.endswith(")") and reason.count(")") > reason.count("("):
                reason = reason[:-1]
    return reason[:300]


def log_summary(log: Any, seed: int) -> str:
    """One line per run; a failed one also says how many samples finished and why it stopped."""
    line = f"{log.eval.model} seed={seed}: {log.status} -> {log_path(log.location)}"
    if log.status == "success":
        return line
    finished = sum(1 for sample in log.samples or [] if sample.error is None)
    failed = [sample.error.message for sample in log.samples or [] if sample.error is not None]
    if log.error is not None:
        reason = short_reason(log.error.message)
    elif failed:  # the run went on past failing samples: say why the first one failed
        reason = short_reason(failed[0])
        if len(failed) > 1:
            reason += f" (and {len(failed) - 1} more failed samples)"
    else:
        reason = log.status
    return (
        f"{line} ({finished}/{log.eval.dataset.samples} samples finished; {reason}; "
        "run the same command again to resume)"
    )


def analyse_path(
    path: Path | str,
    suite: str | None = None,
    capability: Path | None = None,
    problems: Path | None = None,
    params: Sequence[str] = (),
) -> Any:
    """The analysis of ``path``; says on stderr which logs were skipped and which duplicate runs
    were collapsed. The allocator is tuned for the analysis here, in the command's own process
    (:func:`biaslab._gc.reused_heap`), never in a caller's that imports :func:`analyse`."""
    from biaslab._gc import reused_heap
    from biaslab.analysis import analyse, with_capability

    with reused_heap():
        analysis = analyse(path, suite, problems, parse_params(params))
    if capability is not None:
        analysis = with_capability(analysis, capability)
    for line in analysis.notes:
        click.echo(f"biaslab: {line}", err=True)
    return analysis


def provenance_table(analysis: Any) -> str:
    from biaslab.analysis import PROVENANCE_HEADER, provenance_cells
    from biaslab.report.tables import text_table

    rows = [provenance_cells(r) for r in analysis.provenance]
    return "Logs read (samples used/in the run):\n" + text_table(list(PROVENANCE_HEADER), rows)


def local_model_available() -> bool:
    """Whether the embedded model can run here (runtime installed and weights found)."""
    import importlib.util

    from biaslab.local.weights import bundled_gguf

    return importlib.util.find_spec("xllamacpp") is not None and bundled_gguf() is not None


def write_generated(
    suite: str,
    *,
    preset: str | None,
    n: int | None,
    seed: int,
    params: Mapping[str, str],
    output: Path,
    stats: bool,
) -> None:
    """``biaslab generate``: the items, their sidecar (with what an import left out), and the
    label balance on request."""
    from biaslab import __version__
    from biaslab.runner import generate_items
    from biaslab.schema import GenerationMeta, write_items

    generated = generate_items(suite, preset=preset, n=n, seed=seed, params=params)
    meta = GenerationMeta(
        suite=suite,
        generator_version=f"biaslab {__version__} / {generated.suite.generator_version}",
        seed=seed,
        config=generated.config,
        n_items=len(generated.items),
        rejected_rows=generated.rejected_rows,
        notes=generated.notes or {},
    )
    write_items(output, generated.items, meta)
    if generated.summary:
        click.echo(f"biaslab: {generated.summary}", err=True)
    click.echo(f"wrote {len(generated.items)} items to {output}", err=True)
    if stats:
        click.echo(json.dumps(generated.suite.label_stats(generated.items), indent=2))


def run_command(
    suite: str,
    *,
    models: Sequence[str],
    preset: str | None,
    n: int | None,
    seed: int,
    params: Mapping[str, str],
    seeds: Sequence[int],
    log_dir: Path | str,
    judge: str | None,
    model_roles: Sequence[str],
    self_judge: bool,
    resume: bool,
    options: Mapping[str, Any],
) -> None:
    """``biaslab run``: one suite for every model and seed (models that share their roles in one
    eval), or, for SUITE ``all``, every suite as one eval set; exit 1 when a run did not succeed."""
    if suite != "all" and not isinstance(log_dir, Path):
        fail(
            f"biaslab run {suite} writes to a local --log-dir; for {log_dir} use `biaslab run all` "
            "or `inspect eval-set`"
        )
    if suite == "all":
        run_all(
            models=models,
            seeds=seeds,
            n=n,
            params=params,
            judge=judge,
            self_judge=self_judge,
            log_dir=log_dir,
            options=options,
        )
        return
    assert isinstance(log_dir, Path)
    # models that share their roles run in one eval (concurrently); --self-judge splits them
    groups: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for model in models:
        roles = resolve_roles(suite, model, judge, model_roles, self_judge)
        groups.setdefault(json.dumps(roles, sort_keys=True), (roles, []))[1].append(model)
    run_options = {k: v for k, v in options.items() if k != "max_tasks"}
    for one_seed in seeds:
        for roles, group in groups.values():
            logs = run_suite(
                suite,
                models=group,
                preset=preset,
                n=n,
                seed=one_seed,
                params=dict(params),
                log_dir=log_dir,
                resume=resume,
                roles=roles,
                **run_options,
            )
            for log in logs:
                click.echo(log_summary(log, one_seed), err=True)
            if any(log.status != "success" for log in logs):
                raise SystemExit(1)


def print_analysis(
    logs: Path | str,
    *,
    as_json: bool,
    output: Path | None,
    suite: str | None,
    capability: Path | None,
    problems: Path | None,
    params: Sequence[str] = (),
) -> None:
    """``biaslab analyze``: provenance and every suite's tables (or the results as JSON)."""
    from biaslab.analysis import document, write_document
    from biaslab.suites.registry import get_suite

    analysis = analyse_path(logs, suite, capability, problems, params)
    if output is not None:
        write_document(analysis, output)
    if as_json:
        click.echo(json.dumps(document(analysis).model_dump(mode="json"), indent=2, sort_keys=True))
        return
    if analysis.provenance:
        click.echo(provenance_table(analysis) + "\n")
    for name, result in analysis.results.items():
        click.echo(get_suite(name).tables(result))


def write_report_of(
    logs: Path | str,
    output: Path,
    *,
    suite: str | None,
    capability: Path | None,
    problems: Path | None,
    params: Sequence[str] = (),
) -> None:
    """``biaslab report``: the output directory is checked before the analysis, which can take
    minutes."""
    from biaslab.report import prepare_output_dir, write_report

    if not isinstance(logs, Path) or logs.exists():  # a missing input fails at once anyway
        prepare_output_dir(output)  # before the analysis, which can take minutes
    written = write_report(analyse_path(logs, suite, capability, problems, params), output)
    click.echo(f"report written to {written}")


def print_card(logs: Path | str) -> None:
    """``biaslab card``: the bias card in the terminal."""
    from biaslab.card import card_text

    analysis = analyse_path(logs)
    built = analysis.card()
    if built is None:
        fail(f"no suite at {logs} contributes to the bias card")
    click.echo(card_text(built))


def describe_suites() -> None:
    """``biaslab suites``: each suite, its presets, parameters and pool sizes."""
    from biaslab.suites.registry import get_suite, suite_names

    for name in suite_names():
        suite = get_suite(name)
        click.echo(f"{name}: {suite.description}")
        click.echo(
            f"  presets: {', '.join(sorted(suite.presets))} (default: {suite.default_preset})"
        )
        click.echo(f"  default --n: {suite.default_n}")
        click.echo("  parameters (-p key=value):")
        for key, doc in suite.parameter_docs.items():
            click.echo(f"    {key}: {doc}")
        for line in suite.describe() if suite.describe else []:
            click.echo(f"  {line}")


def describe_models() -> None:
    """``biaslab models``: the built-in providers and how to use remote ones."""
    from biaslab.agents.base import agent_catalogue

    click.echo("Reference agents (offline, deterministic; --model biaslab/<name>):")
    for name, doc in agent_catalogue().items():
        click.echo(f"  biaslab/{name}: {doc}")
    click.echo("Embedded model (offline): biaslab/local — SmolLM2-135M-Instruct via llama.cpp")
    click.echo("  options: biaslab/local?threads=1&ctx=8192&parallel=1&gguf=PATH (or BIASLAB_GGUF)")
    click.echo("Remote models: any Inspect provider, e.g. openai/gpt-4o-mini (OPENAI_API_KEY),")
    click.echo("  anthropic/claude-sonnet-4-0 (ANTHROPIC_API_KEY), vllm/<hf-id>, ollama/<name>,")
    click.echo("  openai-api/<service>/<model> for any OpenAI-compatible server")
    click.echo("  (<SERVICE>_BASE_URL and <SERVICE>_API_KEY).")


LOCAL_DEMO_MODEL = "biaslab/local"


def run_demo(out: Path, n: int, seed: int, with_local: bool | None, local_n: int) -> None:
    """``biaslab demo``: every suite against its reference agents (and the embedded model),
    analysed, reported, and the bias card printed."""
    from biaslab import demo as plan
    from biaslab.card import card_text
    from biaslab.report import write_report

    if with_local is None:
        with_local = local_model_available()
        if not with_local:
            click.echo("[demo] embedded model not installed: skipping biaslab/local", err=True)
    log_dir = plan.clear_previous(out, ensure_dir)

    def say(text: str) -> None:
        click.echo(text, err=True)

    plan.run_plan(plan.plan(n), run_suite, log_dir, seed, say)
    if with_local:
        say(f"[demo] defeasible: biaslab/local (plumbing model) on {local_n} item(s) per topology")
        local_logs = run_suite(
            "defeasible",
            models=[LOCAL_DEMO_MODEL],
            preset=None,
            n=local_n,
            seed=seed,
            params={},
            log_dir=log_dir,
            limit=None,
            max_connections=None,
            display="plain",
            resume=False,
        )
        for log in local_logs:
            if log.status != "success":
                say(f"[demo] warning: {log_summary(log, seed)}")
    plan.record(out, log_dir)
    say("[demo] analysing and writing the report")
    analysis = analyse_path(log_dir)
    written = write_report(analysis, out / "report")
    card = analysis.card()
    if card is not None:
        click.echo(card_text(card))
        click.echo("")
    click.echo(f"report written to {written}")
