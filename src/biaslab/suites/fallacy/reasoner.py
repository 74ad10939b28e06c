"""Reference agents for the fallacy suite, reading only the prompt text.

The reasoner reads a prompt back into premises (the grammar that reads answers reads the
premises, and the issue marks follow from which predicates the premises share, as when they were
generated), then answers the way each agent would:

* ``biaslab/oracle``: the strongest valid categorical conclusion over the problem's atoms (the
  conjunction of every entailed literal), else "nothing follows" — accuracy 1.0, no errors;
* ``biaslab/etr``: ETR's conclusion (``default_inference_procedure``) — every error a fallacy;
* ``biaslab/random``: a conclusion drawn uniformly from the candidates the chance level counts
  (conjunctions of up to as many literals as ETR's conclusion), seeded by the request — its
  fallacy rate is the chance level in expectation.

Importing this module registers the reasoner and the ``etr`` agent; it imports no heavy library
(the computations run in the suite's pinned worker).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from biaslab.agents.base import (
    Agent,
    Distribution,
    Reasoner,
    Request,
    register_agent,
    register_reasoner,
    reject_unknown_params,
)
from biaslab.suites.fallacy import workers
from biaslab.suites.fallacy.chance import random_candidate
from biaslab.suites.fallacy.grammar import ParseError, read_premise
from biaslab.suites.fallacy.lexicon import Lexicon
from biaslab.suites.fallacy.render import NOTHING, QUESTION, view_text
from biaslab.suites.fallacy.themes import Names, themes
from biaslab.suites.fallacy.views import MView, shared_issues

SUITE = "fallacy"
_LIST = re.compile(r"^(Objects|Properties): (.*)\.$")


@dataclass(frozen=True)
class PromptProblem:
    names: Names
    premises: tuple[MView, ...]


def read_prompt(prompt: str) -> PromptProblem | None:
    """The problem a prompt states (None if it is not one of ours or does not read back)."""
    if QUESTION not in prompt:
        return None
    lines = prompt.splitlines()
    lists: dict[str, list[str]] = {}
    for line in lines:
        match = _LIST.match(line.strip())
        if match:
            lists[match.group(1)] = [w.strip() for w in match.group(2).split(";")]
    if set(lists) != {"Objects", "Properties"}:
        return None
    theme = next((t for t in themes().values() if lines and lines[0].strip() == t.intro), None)
    objects = {f"c{i + 1}": word for i, word in enumerate(lists["Objects"])}
    properties = {f"P{i + 1}": word for i, word in enumerate(lists["Properties"])}
    names = Names(theme.key if theme else "", objects, properties)
    lexicon = Lexicon.from_names(names, theme.kind if theme else ())
    end = next(i for i, line in enumerate(lines) if line.strip() == QUESTION)
    bullets = [line.strip()[2:] for line in lines[:end] if line.strip().startswith("- ")]
    try:
        premises = [read_premise(text, lexicon) for text in bullets]
    except (ParseError, ValueError):
        return None
    if not premises:
        return None
    return PromptProblem(names, tuple(v.canonical() for v in shared_issues(premises)))


@lru_cache(maxsize=1024)
def _facts(premises: tuple[MView, ...]) -> Any:
    """What the agents need about a problem (a ``solve.AgentFacts``), computed in the worker once
    per process: a function of the premises only, so the agents of one run, which read the same
    problems, share it. A failure is not cached."""
    from biaslab.suites.fallacy import solve

    return workers.call(solve.agent_facts, premises)


class FallacyReasoner:
    """Answers the suite's open question for the oracle, etr and random agents."""

    suite = SUITE

    def accepts(self, request: Request) -> bool:
        return not request.labels and QUESTION in request.prompt

    def gold(self, request: Request) -> str:
        return ""  # open-ended: there is no label to recompute

    def prior_answer(self, request: Request) -> str | None:
        return None

    def open_reply(self, request: Request, agent: Agent) -> str | None:
        problem = read_prompt(request.prompt)
        if problem is None:
            return None
        facts = _facts(problem.premises)
        if agent.name == "oracle":
            answer = MView.build([list(facts.entailed)]) if facts.entailed else None
        elif agent.name == "etr":
            answer = facts.conclusion
        elif agent.name == "random":
            if not facts.atoms:
                return f"Answer: {NOTHING}"
            chosen = random_candidate(request.rng(SUITE, "random"), facts.atoms, facts.size)
            answer = MView.build([chosen])
        else:
            return None
        text = NOTHING if answer is None else view_text(answer, problem.names)
        return f"Answer: {text}"


@dataclass
class EtrAgent(Agent):
    """Answers open-ended fallacy problems with ETR's conclusion (PyETR's default inference);
    elsewhere picks the first allowed label."""

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        labels = request.labels
        return {label: 1.0 if i == 0 else 0.0 for i, label in enumerate(labels)}


def _etr(params: Mapping[str, str]) -> Agent:
    reject_unknown_params("etr", params, [])
    return EtrAgent(name="etr", params=dict(params))


register_reasoner(FallacyReasoner())
register_agent(
    "etr", _etr, "Answers fallacy problems with ETR's conclusion (every error a fallacy)."
)
