"""Run the biaslab CLI with a reference-agent provider that stops the process on cue.

``python -m tests.helpers.run_driver ARGS…`` behaves like ``biaslab ARGS…``, except that the
reference agents' provider counts its calls: with ``BIASLAB_TEST_STOP=SIGNAL:N`` the process sends
itself SIGNAL (KILL, INT or TERM) on the N-th call, ``BIASLAB_TEST_DELAY`` seconds are spent on
each call, and while the file named by ``BIASLAB_TEST_HOLD`` exists every call waits for it to go
(a run kept alive exactly as long as a test needs it, whatever the machine's load). This makes
"stopped in the middle of a run" deterministic, without timing races. Start it with
``preexec_fn=tests.helpers.children.default_sigint`` (or ``ignored_sigint``) so the child's SIGINT
disposition does not depend on how the tests were started.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Any

import tests.helpers.judged_suite  # noqa: F401  (registers the platform test suite)
from biaslab.agents.provider import ReferenceAgentAPI
from biaslab.cli import main

_original = ReferenceAgentAPI.generate
_calls = {"n": 0}


async def _generate(self: ReferenceAgentAPI, *args: Any, **kwargs: Any) -> Any:
    _calls["n"] += 1
    stop = os.environ.get("BIASLAB_TEST_STOP", "")
    if stop:
        name, _, count = stop.partition(":")
        if _calls["n"] == int(count):
            os.kill(os.getpid(), getattr(signal, f"SIG{name}"))
            await asyncio.sleep(5)  # let the signal land before answering
    hold = os.environ.get("BIASLAB_TEST_HOLD", "")
    while hold and os.path.exists(hold):
        await asyncio.sleep(0.05)
    delay = float(os.environ.get("BIASLAB_TEST_DELAY", "0"))
    if delay:
        await asyncio.sleep(delay)
    return await _original(self, *args, **kwargs)


ReferenceAgentAPI.generate = _generate  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
