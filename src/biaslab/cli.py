"""``biaslab``: generate probes, run them as Inspect evals, analyse the logs, write reports.

Heavy libraries (Inspect AI, pandas, matplotlib) are imported inside the commands that need them, so
``generate``, ``resolve`` and ``suites`` start fast. Every error a user can cause ends in one line on
stderr and exit code 2.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from biaslab.errors import BiaslabError
from biaslab.runs import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, Interrupted

EXIT_USAGE = 2
DEFAULT_LOG_DIR = "logs"


def fail(message: str) -> NoReturn:
    raise BiaslabError(message)


class LogLocation(click.ParamType):
    """A local path (as a Path) or a log location Inspect reads through fsspec (kept as text:
    ``s3://bucket/logs`` must not be normalised into a local path)."""

    name = "PATH|URL"

    def convert(self, value: Any, param: Any, ctx: Any) -> Path | str:
        if isinstance(value, Path):
            return value
        text = str(value)
        return text if "://" in text else Path(text)


def one_line(text: str) -> str:
    """Collapse a multi-line library message (with rich markup) into one plain line."""
    text = re.sub(r"\[/?[a-z ]+\]", "", text)
    text = re.sub(r"^\s*ERROR:\s*", "", text.strip())
    return re.sub(r"\s+", " ", text).strip()


def ensure_dir(path: Path) -> Path:
    """Create an output directory, or fail in one line."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot create {path}: {exc.strerror or exc}")
    return path


def parse_params(pairs: Sequence[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(f"bad parameter {pair!r}: expected key=value")
        params[key.strip()] = value.strip()
    return params


def parse_seeds(text: str) -> list[int]:
    """``1-5`` or ``1,2,7`` or ``3`` -> list of seeds."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            lo, sep, hi = part.partition("-")
            if sep:
                seeds.extend(range(int(lo), int(hi) + 1))
            else:
                seeds.append(int(part))
    except ValueError:
        fail(f"bad --seeds {text!r}: use a range like 1-20 or a list like 1,2,3")
    if not seeds or any(s < 0 for s in seeds):
        fail(f"bad --seeds {text!r}: seeds must be non-negative and at least one")
    return seeds


def generation_options(func: Any) -> Any:
    options = [
        click.option("--preset", default=None, help="Named parameter set (see `biaslab suites`)."),
        click.option("--n", "n", type=int, default=None, help="Number of items (per topology)."),
        click.option("--seed", type=int, default=0, show_default=True, help="Master seed."),
        click.option(
            "-p",
            "params",
            multiple=True,
            metavar="KEY=VALUE",
            help="Suite parameter (repeatable).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="biaslab")
def cli() -> None:
    """Fresh, formally labelled reasoning probes for LLMs, and bias statistics."""


@cli.command()
def suites() -> None:
    """List suites, their presets and parameters."""
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


@cli.command()
@click.argument("suite")
@generation_options
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="JSONL file.")
@click.option("--stats", is_flag=True, help="Print the label balance of the generated set.")
def generate(
    suite: str,
    preset: str | None,
    n: int | None,
    seed: int,
    params: tuple[str, ...],
    output: Path,
    stats: bool,
) -> None:
    """Generate items only (no model): OUTPUT.jsonl plus OUTPUT.meta.json."""
    from biaslab import __version__
    from biaslab.runner import generate_items
    from biaslab.schema import GenerationMeta, write_items

    generated = generate_items(suite, preset=preset, n=n, seed=seed, params=parse_params(params))
    meta = GenerationMeta(
        suite=suite,
        generator_version=f"biaslab {__version__} / {generated.suite.generator_version}",
        seed=seed,
        config=generated.config,
        n_items=len(generated.items),
    )
    write_items(output, generated.items, meta)
    click.echo(f"wrote {len(generated.items)} items to {output}", err=True)
    if stats:
        click.echo(json.dumps(generated.suite.label_stats(generated.items), indent=2))


def _check_model(model: str) -> None:
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
    roles: Mapping[str, str] | None = None,
    realtime: bool | None = None,
) -> list[Any]:
    """Run one suite against models and return the logs. A model whose run already succeeded in
    ``log_dir`` is up to date; one whose earlier attempt stopped (error, Ctrl-C, a killed process)
    is resumed with Inspect's retry, reusing the samples it finished (:mod:`biaslab.runs`)."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai import eval_retry

    from biaslab import runs
    from biaslab._gc import tune_gc

    tune_gc()

    roles = dict(roles or {})
    ensure_dir(log_dir)
    for model in [*models, *roles.values()]:
        _check_model(model)
    factory = task_factory(suite)
    arguments = {"preset": preset, "n": n, "seed": seed, **params}
    task = factory(**arguments)
    task_args = recorded_task_args(factory, arguments)
    specs = {m: runs.RunSpec(task.name, task_args, m, roles, limit) for m in models}
    every_model = [*models, *roles.values()]
    quiet = realtime is None and all(runs.is_reference_agent(m) for m in every_model)
    defaults = runs.remote_defaults(every_model)
    common: dict[str, Any] = {
        "log_dir": str(log_dir),
        "max_connections": max_connections,
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
        for model in models:
            previous = runs.previous_attempts(log_dir, specs[model]) if resume else None
            for name in previous.unreadable if previous else ():
                click.echo(f"biaslab: skipped unreadable log {name}", err=True)
            if previous and previous.succeeded is not None:
                click.echo(
                    f"up to date: {model} seed={seed} -> {previous.succeeded.name}", err=True
                )
                from inspect_ai.log import read_eval_log

                logs.append(read_eval_log(previous.succeeded, header_only=True))
            elif previous and previous.unfinished is not None:
                click.echo(f"resuming {model} from {previous.unfinished.name}", err=True)
                # eval_retry reuses the failed run's own max_tokens
                logs.extend(eval_retry(previous.unfinished, **common))
            else:
                fresh.append(model)
        if fresh:
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
        stopped = guard.received is not None or any(log.status == "cancelled" for log in logs)
        if stopped or len(logs) < len(models):
            left = runs.logs_left_behind(log_dir, list(specs.values()), before)
            expected = runs.sample_count(left) or len(task.dataset) * len(models)
            raise runs.Interrupted(runs.interruption_line(left, expected), guard.exit_code())
    return logs


@cli.command()
@click.argument("suite")
@click.option("--model", "models", multiple=True, required=True, help="provider/name (repeatable).")
@generation_options
@click.option("--seeds", default=None, help="Run once per seed, e.g. 1-20 (reproducibility).")
@click.option(
    "--log-dir",
    type=LogLocation(),
    default=Path(DEFAULT_LOG_DIR),
    help="Where logs go (run all also takes an Inspect log URL such as s3://bucket/grid).",
)
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, help="Run only the first N items."
)
@click.option(
    "--max-connections",
    type=click.IntRange(min=1),
    default=None,
    help="Concurrent model requests (default: the provider's).",
)
@click.option("--display", default=None, help="Inspect display: full, rich, plain, log, none.")
@click.option(
    "--max-tokens", type=click.IntRange(min=1), default=None, help="Cap on tokens per answer."
)
@click.option(
    "--max-retries",
    type=click.IntRange(min=0),
    default=None,
    help=f"Retries of a failed model request (default for remote models: {DEFAULT_MAX_RETRIES}).",
)
@click.option(
    "--timeout",
    type=click.IntRange(min=1),
    default=None,
    help=f"Seconds a request may take, retries included (default: {DEFAULT_TIMEOUT}).",
)
@click.option("--judge", default=None, help="Model for the judge role (suites that need one).")
@click.option(
    "--model-role",
    "model_roles",
    multiple=True,
    metavar="ROLE=MODEL",
    help="Model for a named role, Inspect's spelling (repeatable): --model-role judge=M.",
)
@click.option("--self-judge", is_flag=True, help="Let the model under test be its own judge.")
@click.option(
    "--resume/--no-resume",
    default=True,
    show_default=True,
    help="Skip a run of the same task that already succeeded in --log-dir and resume one that "
    "stopped, reusing its finished samples.",
)
@click.option(
    "--max-tasks",
    type=click.IntRange(min=1),
    default=None,
    help="With SUITE 'all': tasks of the eval set run at once (Inspect's default otherwise).",
)
@click.option(
    "--realtime/--no-realtime",
    default=None,
    help="Inspect's live sample buffer (live view in `inspect view`, recovery of samples after a "
    "hard kill). Default: off for built-in agents, on otherwise.",
)
def run(
    suite: str,
    models: tuple[str, ...],
    preset: str | None,
    n: int | None,
    seed: int,
    params: tuple[str, ...],
    seeds: str | None,
    log_dir: Path | str,
    limit: int | None,
    max_connections: int | None,
    display: str | None,
    max_tokens: int | None,
    max_retries: int | None,
    timeout: int | None,
    judge: str | None,
    model_roles: tuple[str, ...],
    self_judge: bool,
    resume: bool,
    max_tasks: int | None,
    realtime: bool | None,
) -> None:
    """Run a suite as an Inspect eval and write Inspect logs. SUITE 'all' runs every suite's
    default preset for every model (and seed) as one Inspect eval set; -p SUITE.KEY=VALUE then sets
    one suite's parameter."""
    parsed = parse_params(params)
    if suite != "all" and not isinstance(log_dir, Path):
        fail(
            f"biaslab run {suite} writes to a local --log-dir; for {log_dir} use `biaslab run all` "
            "or `inspect eval-set`"
        )
    if suite == "all":
        run_all(
            models=models,
            seeds=parse_seeds(seeds) if seeds else [seed],
            n=n,
            params=parsed,
            judge=judge,
            self_judge=self_judge,
            log_dir=log_dir,
            options={
                "max_tasks": max_tasks,
                "max_connections": max_connections,
                "display": display,
                "max_tokens": max_tokens,
                "limit": limit,
                "max_retries": max_retries,
                "timeout": timeout,
                "realtime": realtime,
            },
        )
        return
    assert isinstance(log_dir, Path)
    # models that share their roles run in one eval (concurrently); --self-judge splits them
    groups: dict[str, tuple[dict[str, str], list[str]]] = {}
    for model in models:
        roles = resolve_roles(suite, model, judge, model_roles, self_judge)
        groups.setdefault(json.dumps(roles, sort_keys=True), (roles, []))[1].append(model)
    for one_seed in parse_seeds(seeds) if seeds else [seed]:
        for roles, group in groups.values():
            logs = run_suite(
                suite,
                models=group,
                preset=preset,
                n=n,
                seed=one_seed,
                params=parsed,
                log_dir=log_dir,
                limit=limit,
                max_connections=max_connections,
                display=display,
                resume=resume,
                max_tokens=max_tokens,
                max_retries=max_retries,
                timeout=timeout,
                roles=roles,
                realtime=realtime,
            )
            for log in logs:
                click.echo(log_summary(log, one_seed), err=True)
            if any(log.status != "success" for log in logs):
                raise SystemExit(1)


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
    for model in every_model:
        _check_model(model)
    quiet = options.get("realtime") is None and all(runs.is_reference_agent(m) for m in every_model)
    defaults = runs.remote_defaults(every_model)
    eval_options: dict[str, Any] = {
        "max_tasks": options.get("max_tasks"),
        "max_connections": options.get("max_connections"),
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
        except KeyboardInterrupt:
            success, logs = False, []
            guard.received = guard.received or runs.signal.SIGINT
        if guard.received is not None:
            raise runs.Interrupted(
                "interrupted: the eval set stopped; run the same command to resume",
                guard.exit_code(),
            )
    for log in sorted(logs, key=lambda lg: (lg.eval.task, lg.eval.model, str(lg.eval.task_args))):
        click.echo(f"{log.eval.task} {log.eval.model} seed={log.eval.task_args.get('seed')}: "
                   f"{log.status} -> {log.location}", err=True)  # fmt: skip
    if not success:
        raise SystemExit(1)


def resolve_roles(
    suite: str, model: str, judge: str | None, pairs: Sequence[str], self_judge: bool
) -> dict[str, str]:
    """role -> model from --judge / --model-role / --self-judge, checked against what the suite
    needs (one line when a required role is missing)."""
    from biaslab.suites.registry import get_suite

    roles: dict[str, str] = {}
    for pair in pairs:
        role, sep, name = pair.partition("=")
        if not sep or not role.strip() or not name.strip():
            fail(f"bad --model-role {pair!r}: expected ROLE=MODEL")
        roles[role.strip()] = name.strip()
    if judge is not None:
        if roles.get("judge", judge) != judge:
            fail("--judge and --model-role judge=... name different models")
        roles["judge"] = judge
    if self_judge:
        if "judge" in roles:
            fail("--self-judge and a judge model are mutually exclusive")
        roles["judge"] = model
    needed = get_suite(suite).roles
    for role in needed:
        if role not in roles:
            hint = " (or --self-judge)" if role == "judge" else ""
            fail(f"suite {suite!r} needs a {role} model: add --model-role {role}=MODEL{hint}")
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
    line = f"{log.eval.model} seed={seed}: {log.status} -> {log.location}"
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


def analyse_path(path: Path | str, suite: str | None = None, capability: Path | None = None) -> Any:
    """The analysis of ``path``; says on stderr which logs were skipped and which duplicate runs
    were collapsed."""
    from biaslab.analysis import analyse, with_capability

    analysis = analyse(path, suite)
    if capability is not None:
        analysis = with_capability(analysis, capability)
    for line in analysis.notes:
        click.echo(f"biaslab: {line}", err=True)
    return analysis


def provenance_table(analysis: Any) -> str:
    from biaslab.analysis import model_kind
    from biaslab.report.tables import text_table

    header = ["log", "status", "suite", "model", "kind", "roles", "seed", "preset", "samples"]
    rows = [
        [
            r.file,
            r.status,
            r.suite,
            r.model,
            model_kind(r.model),
            r.roles or "none",
            r.seed,
            r.preset or "default",
            f"{r.samples_used}/{r.samples_total}",
        ]
        for r in analysis.provenance
    ]
    return "Logs read (samples used/in the run):\n" + text_table(header, rows)


@cli.command()
@click.argument("logs", type=LogLocation())
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, help="results.json")
@click.option(
    "--suite",
    default=None,
    help="Only this suite's logs; with a .csv/.jsonl file, read answers in the suite's format.",
)
@click.option(
    "--capability",
    type=click.Path(path_type=Path),
    default=None,
    help="CSV model,score: correlate fallacy rates with a capability score per model.",
)
def analyze(
    logs: Path | str, as_json: bool, output: Path | None, suite: str | None, capability: Path | None
) -> None:
    """Analyse Inspect logs (a file or a directory), or a file of answers with --suite; never
    calls a model."""
    from biaslab.analysis import document, write_document
    from biaslab.suites.registry import get_suite

    analysis = analyse_path(logs, suite, capability)
    if output is not None:
        write_document(analysis, output)
    if as_json:
        click.echo(json.dumps(document(analysis).model_dump(mode="json"), indent=2, sort_keys=True))
        return
    if analysis.provenance:
        click.echo(provenance_table(analysis) + "\n")
    for name, result in analysis.results.items():
        click.echo(get_suite(name).tables(result))


@cli.command()
@click.argument("logs", type=LogLocation())
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Directory.")
@click.option(
    "--capability",
    type=click.Path(path_type=Path),
    default=None,
    help="CSV model,score: correlate fallacy rates with a capability score per model.",
)
@click.option(
    "--suite",
    default=None,
    help="Only this suite's logs; with a .csv/.jsonl file, read answers in the suite's format.",
)
def report(logs: Path | str, output: Path, capability: Path | None, suite: str | None) -> None:
    """Write report.md, report.html and figures from the analysis of Inspect logs."""
    from biaslab.report import write_report

    written = write_report(analyse_path(logs, suite, capability), output)
    click.echo(f"report written to {written}")


@cli.command()
@click.argument("logs", type=LogLocation())
def card(logs: Path | str) -> None:
    """Print the bias card: one row per model, each method's headline bias beside its null."""
    from biaslab.card import card_text

    analysis = analyse_path(logs)
    built = analysis.card()
    if built is None:
        fail(f"no suite at {logs} contributes to the bias card")
    click.echo(card_text(built))


@cli.command()
def models() -> None:
    """List the built-in model providers and how to use remote ones."""
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


@cli.command()
@click.argument("network", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Answer plus supporting/defeated paths.")
@click.option("--subject", default=None, help="Override the file's query subject.")
@click.option("--property", "prop", default=None, help="Override the file's query property.")
@click.option(
    "--max-paths",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="With --json: paths of each kind listed (the rest are counted).",
)
def resolve(
    network: Path, as_json: bool, subject: str | None, prop: str | None, max_paths: int
) -> None:
    """Resolve NETWORK.json with skeptical inheritance: prints yes, no or unknown."""
    from biaslab.suites.defeasible.network import load_network
    from biaslab.suites.defeasible.resolver import explain
    from biaslab.suites.defeasible.resolver import resolve as resolve_query

    net, query = load_network(network)
    subject = subject or (query.subject if query else None)
    prop = prop or (query.property if query else None)
    if not subject or not prop:
        fail(f'{network}: no query (add "query": {{"subject": …, "property": …}})')
    if subject not in set(net.nodes):
        fail(f"{network}: the subject {subject!r} is not a node of the network")
    if prop not in set(net.nodes):  # nothing states it: unknown, as the library answers
        click.echo(f"note: the property {prop!r} is not a node of the network", err=True)
    if not as_json:
        click.echo(resolve_query(net, subject, prop))
        return
    data = explain(net, subject, prop, max_paths=max_paths).to_dict()
    payload = {
        "answer": data["answer"],
        "query": {"subject": subject, "property": prop},
        "paths": {"supporting": data["supporting"], "defeated": data["defeated"]},
        "omitted": {"supporting": data["omitted_supporting"], "defeated": data["omitted_defeated"]},
    }
    click.echo(json.dumps(payload, indent=2))


def local_model_available() -> bool:
    """Whether the embedded model can run here (runtime installed and weights found)."""
    import importlib.util

    from biaslab.local.weights import bundled_gguf

    return importlib.util.find_spec("xllamacpp") is not None and bundled_gguf() is not None


LOCAL_DEMO_MODEL = "biaslab/local"


@cli.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("biaslab-demo"))
@click.option(
    "--n", "n", type=click.IntRange(min=1), default=4, show_default=True, help="Size scale."
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--local/--no-local",
    "with_local",
    default=None,
    help="Include the embedded model biaslab/local (default: when it is installed).",
)
@click.option(
    "--local-n",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Defeasible items per topology for the embedded model.",
)
def demo(out: Path, n: int, seed: int, with_local: bool | None, local_n: int) -> None:
    """Run every suite against its reference agents (and the embedded model), analyse, write a
    report and print the bias card. Needs no network and no API key."""
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: one line and exit 2 for user errors, never a traceback."""
    try:
        cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except BiaslabError as exc:
        click.echo(f"biaslab: error: {exc}", err=True)
        return EXIT_USAGE
    except click.UsageError as exc:
        click.echo(f"biaslab: error: {exc.format_message()}", err=True)
        return EXIT_USAGE
    except click.ClickException as exc:
        click.echo(f"biaslab: error: {exc.format_message()}", err=True)
        return exc.exit_code
    except Interrupted as exc:
        click.echo(f"biaslab: {exc}", err=True)
        return exc.exit_code
    except click.Abort:
        click.echo("biaslab: interrupted", err=True)
        return 130
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
