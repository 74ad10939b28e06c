"""``biaslab``: parses arguments and delegates to :mod:`biaslab.orchestrate` (the run layer).
Heavy libraries are imported inside the commands that need them, so ``generate``, ``resolve`` and
``suites`` start fast. Every error a user can cause ends in one line on stderr and exit code 2."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from biaslab.errors import BiaslabError
from biaslab.runs import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, Interrupted
from biaslab.suites.defeasible.query import MAX_LISTED_PATHS

EXIT_USAGE = 2
DEFAULT_LOG_DIR = "logs"
#: a repeatable ``-p KEY=VALUE`` option
KEY_VALUES: dict[str, Any] = {"multiple": True, "metavar": "KEY=VALUE"}
#: the demo's size scale: token bias asks 5 x n problems of a pool of about 1,000 per hypothesis
DEMO_MAX_N = 200
#: the embedded model answers a conversation in minutes on one core
DEMO_MAX_LOCAL_N = 50


class LogLocation(click.ParamType):
    """A local path (as a Path) or a log location Inspect reads through fsspec (kept as text:
    ``s3://bucket/logs`` must not be normalised into a local path)."""

    name = "PATH|URL"

    def convert(self, value: Any, param: Any, ctx: Any) -> Path | str:
        if isinstance(value, Path):
            return value
        text = str(value)
        return text if "://" in text else Path(text)


def generation_options(func: Any) -> Any:
    options = [
        click.option("--preset", default=None, help="Named parameter set (see `biaslab suites`)."),
        click.option("--n", "n", type=int, default=None, help="Number of items (per topology)."),
        click.option("--seed", type=int, default=0, show_default=True, help="Master seed."),
        click.option("-p", "params", help="Suite parameter (repeatable).", **KEY_VALUES),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def count_option(flag: str, help: str, low: int = 1) -> Any:
    """An optional whole number of at least ``low`` (None: Inspect's or the provider's default)."""
    return click.option(flag, type=click.IntRange(min=low), default=None, help=help)


def answer_file_options(func: Any) -> Any:
    """``--suite``, ``--capability`` and ``--problems``, shared by ``analyze`` and ``report``."""
    options = [
        click.option(
            "--suite",
            default=None,
            help="Only this suite's logs; with a .csv/.jsonl file, read answers in the suite's "
            "format.",
        ),
        click.option(
            "--capability",
            type=click.Path(path_type=Path),
            default=None,
            help="CSV model,score: correlate fallacy rates with a capability score per model.",
        ),
        click.option(
            "--problems",
            type=click.Path(path_type=Path),
            default=None,
            help="With a fallacy answers file: the items file (.jsonl) the answers were given to.",
        ),
        click.option(
            "-p", "params", help="Analysis parameter (tokenbias: test=exact|paper).", **KEY_VALUES
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
    from biaslab.orchestrate import describe_suites

    describe_suites()


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
    from biaslab.orchestrate import parse_params, write_generated

    write_generated(
        suite,
        preset=preset,
        n=n,
        seed=seed,
        params=parse_params(params),
        output=output,
        stats=stats,
    )


@cli.command()
@click.argument("items", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["hf", "lm-eval"]),
    required=True,
    help="hf: a Hugging Face datasets dataset (Parquet + dataset card); lm-eval: an "
    "lm-evaluation-harness task (YAML + documents), for tokenbias and fallacy items.",
)
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Directory.")
def export(items: Path, fmt: str, output: Path) -> None:
    """Write generated ITEMS (a .jsonl file with its .meta.json sidecar) for another harness.
    Run an lm-eval task with --log_samples, then `biaslab analyze` its output folder."""
    from biaslab.export import export_items

    for path in export_items(items, fmt, output):
        click.echo(f"wrote {path}", err=True)


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
@count_option("--limit", "Run only the first N items.")
@count_option("--max-connections", "Concurrent model requests (default: the provider's).")
@click.option("--display", default=None, help="Inspect display: full, rich, plain, log, none.")
@count_option("--max-tokens", "Cap on tokens per answer.")
@count_option(
    "--max-retries",
    f"Retries of a failed model request (default for remote models: {DEFAULT_MAX_RETRIES}).",
    low=0,
)
@count_option(
    "--timeout", f"Seconds a request may take, retries included (default: {DEFAULT_TIMEOUT})."
)
@click.option("--judge", default=None, help="Model for the judge role (suites that need one).")
@click.option(
    "--model-role",
    "model_roles",
    multiple=True,
    metavar="ROLE=MODEL",
    help="Model for a named role, Inspect's spelling (repeatable): --model-role judge=M, or "
    "with generation settings: --model-role 'judge={model: M, temperature: 0.3}'.",
)
@click.option("--self-judge", is_flag=True, help="Let the model under test be its own judge.")
@click.option(
    "--resume/--no-resume",
    default=True,
    show_default=True,
    help="Skip a run of the same task that already succeeded in --log-dir and resume one that "
    "stopped, reusing its finished samples.",
)
@count_option(
    "--max-tasks",
    "With SUITE 'all': tasks of the eval set run at once (Inspect's default otherwise).",
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
    judge: str | None,
    model_roles: tuple[str, ...],
    self_judge: bool,
    resume: bool,
    **options: Any,
) -> None:
    """Run a suite as an Inspect eval and write Inspect logs. SUITE 'all' runs every suite's
    default preset for every model (and seed) as one Inspect eval set; -p SUITE.KEY=VALUE then sets
    one suite's parameter."""
    from biaslab.orchestrate import parse_params, parse_seeds, run_command

    run_command(
        suite,
        models=models,
        preset=preset,
        n=n,
        seed=seed,
        params=parse_params(params),
        seeds=parse_seeds(seeds) if seeds else [seed],
        log_dir=log_dir,
        judge=judge,
        model_roles=model_roles,
        self_judge=self_judge,
        resume=resume,
        options=options,
    )


@cli.command()
@click.argument("logs", type=LogLocation())
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, help="results.json")
@answer_file_options
def analyze(logs: Path | str, as_json: bool, output: Path | None, **files: Any) -> None:
    """Analyse Inspect logs (a file or a directory), a file of answers with --suite, or the
    --log_samples output of lm-evaluation-harness for tasks from `biaslab export`; never calls a
    model."""
    from biaslab.orchestrate import print_analysis

    print_analysis(logs, as_json=as_json, output=output, **files)


@cli.command()
@click.argument("logs", type=LogLocation())
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Directory.")
@answer_file_options
def report(logs: Path | str, output: Path, **files: Any) -> None:
    """Write report.md, report.html and figures from the analysis of Inspect logs."""
    from biaslab.orchestrate import write_report_of

    write_report_of(logs, output, **files)


@cli.command()
@click.argument("logs", type=LogLocation())
def card(logs: Path | str) -> None:
    """Print the bias card: one row per model, each method's headline bias beside its null."""
    from biaslab.orchestrate import print_card

    print_card(logs)


@cli.command()
def models() -> None:
    """List the built-in model providers and how to use remote ones."""
    from biaslab.orchestrate import describe_models

    describe_models()


@cli.command()
@click.argument("network", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Answer plus supporting/defeated paths.")
@click.option("--subject", default=None, help="Override the file's query subject.")
@click.option("--property", "prop", default=None, help="Override the file's query property.")
@click.option(
    "--max-paths",
    type=click.IntRange(min=0, max=MAX_LISTED_PATHS),
    default=50,
    show_default=True,
    help="With --json: paths of each kind listed (the rest are counted).",
)
def resolve(
    network: Path, as_json: bool, subject: str | None, prop: str | None, max_paths: int
) -> None:
    """Resolve NETWORK.json with skeptical inheritance: prints yes, no or unknown."""
    from biaslab.suites.defeasible.query import resolve_file

    resolve_file(network, subject, prop, as_json, max_paths)


@cli.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("biaslab-demo"))
@click.option("--n", type=click.IntRange(1, DEMO_MAX_N), default=4, help="Size scale (default 4).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--local/--no-local",
    "with_local",
    default=None,
    help="Include the embedded model biaslab/local (default: when it is installed).",
)
@click.option(
    "--local-n",
    type=click.IntRange(1, DEMO_MAX_LOCAL_N),
    default=1,
    help="Defeasible items per topology for the embedded model (default 1).",
)
def demo(out: Path, n: int, seed: int, with_local: bool | None, local_n: int) -> None:
    """Run every suite against its reference agents (and the embedded model), analyse, write a
    report and print the bias card. Needs no network and no API key."""
    from biaslab.orchestrate import run_demo

    run_demo(out, n, seed, with_local, local_n)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: one line and exit 2 for user errors, never a traceback."""
    try:
        cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except BiaslabError as exc:
        click.echo(f"biaslab: error: {exc}", err=True)
        return EXIT_USAGE
    except click.ClickException as exc:  # usage errors (exit 2) and click's own
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
