"""``inspect eval ARGS…`` through Inspect's own command-line parser, in this process.

A test that a run started as ``inspect eval`` is the same run as ``biaslab run`` needs Inspect to
parse the arguments as its command does (``-T n=3`` read as YAML, ``--model-role`` specs, a task
named ``biaslab/defeasible`` or ``file.py@task``); it does not need a second interpreter, whose
start-up (importing Inspect, then its first eval's lazy imports) costs several CPU-seconds. Inspect
supports invoking its command in-process (its ``eval`` command disarms its process-wide state on
exit for exactly this). Tests of what a fresh process does (the registered entry points found, the
message a user sees) still start ``inspect`` as a process (tests/test_cli.py).
"""

from __future__ import annotations


def inspect_eval(*args: str) -> int:
    """Run ``inspect eval ARGS…`` here, with the standard streams and environment of this process
    (``INSPECT_*`` variables read as the command reads them); its exit code. An error raised by
    the command propagates, as a traceback in the failing test."""
    from inspect_ai._cli.main import inspect

    code = inspect.main(
        ["eval", *args], prog_name="inspect", standalone_mode=False, auto_envvar_prefix="INSPECT"
    )
    return int(code or 0)
