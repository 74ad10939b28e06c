"""Start test subprocesses with a known SIGINT disposition.

A shell that starts a command in the background (``pytest … &`` in a script, ``nohup``, a CI job
step) starts it with SIGINT ignored, and every child inherits that. Tests that send SIGINT to a
child, or that expect Ctrl-C's behaviour from it, pass ``preexec_fn=default_sigint``, so they test
the program rather than how pytest happened to be started; ``ignored_sigint`` reproduces the
background start on purpose.
"""

from __future__ import annotations

import signal
import sys

#: ``python -m tests.helpers.run_driver ARGS…`` behaves like ``biaslab ARGS…`` (see that module)
DRIVER = [sys.executable, "-m", "tests.helpers.run_driver"]


def default_sigint() -> None:
    """preexec_fn: the child starts with SIGINT's default disposition (Python turns it into
    KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ignored_sigint() -> None:
    """preexec_fn: the child starts with SIGINT ignored, as ``cmd &`` in a script starts it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
