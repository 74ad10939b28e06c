"""Plumbing shared by every reference agent, free of Inspect imports so suites can test reasoners fast.

An agent sees a :class:`Request` (the messages, nothing else), asks the suite's :class:`Reasoner` what
the correct answer is (and whatever surface facts it needs), and returns a distribution over the labels
the question allows. The provider turns that into an Inspect ``ModelOutput`` with logprobs.

Suites plug in by calling :func:`register_reasoner` (and :func:`register_agent` for agents that need
suite-specific cues); the registry is filled lazily by importing ``biaslab.suites.<name>.reasoner``.
"""

from __future__ import annotations

import importlib
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Literal, Protocol

from biaslab.answers import labels_from_prompt, parse_answer
from biaslab.errors import BiaslabError
from biaslab.seeding import stable_hash

Role = Literal["system", "user", "assistant"]
Distribution = dict[str, float]

#: modules that register agents and reasoners, imported on first use (names, so nothing heavy loads early)
PLUGIN_MODULES: list[str] = [
    "biaslab.agents.builtin",
    "biaslab.suites.defeasible.reasoner",
    "biaslab.suites.defeasible.calibrated",
    "biaslab.suites.tokenbias.reasoner",
    "biaslab.suites.entrenchment.reasoner",
    "biaslab.suites.fallacy.reasoner",
]


@dataclass(frozen=True)
class Message:
    role: Role
    text: str


@dataclass(frozen=True)
class Request:
    """The conversation so far; the last message is the question to answer."""

    messages: tuple[Message, ...]

    @cached_property
    def prompt(self) -> str:
        for message in reversed(self.messages):
            if message.role == "user":
                return message.text
        return ""

    @cached_property
    def labels(self) -> tuple[str, ...]:
        return labels_from_prompt(self.prompt) or ()

    @cached_property
    def seed(self) -> int:
        """Deterministic per request: a hash of every message (role and text)."""
        return stable_hash(*(f"{m.role}:{m.text}" for m in self.messages))

    def rng(self, *keys: object) -> random.Random:
        return random.Random(stable_hash(self.seed, *keys))

    @cached_property
    def turns(self) -> tuple[tuple[str, str | None], ...]:
        """(user prompt, this conversation's parsed answer to it) for every answered question."""
        pairs: list[tuple[str, str | None]] = []
        pending: str | None = None
        for message in self.messages:
            if message.role == "user":
                pending = message.text
            elif message.role == "assistant" and pending is not None:
                pairs.append((pending, _answer_to(pending, message.text)))
                pending = None
        return tuple(pairs)


@lru_cache(maxsize=4096)
def _answer_to(prompt: str, reply: str) -> str | None:
    """The label ``reply`` gives to ``prompt``'s question. Memoised because every request of a
    conversation re-reads all earlier replies (quadratic in its length without the cache)."""
    return parse_answer(reply, labels_from_prompt(prompt) or ())


class Reasoner(Protocol):
    """What a suite supplies so agents can answer its questions."""

    suite: str

    def accepts(self, request: Request) -> bool:
        """Whether this request is one of the suite's questions."""
        ...

    def gold(self, request: Request) -> str:
        """The correct label for the last question, recomputed from the text alone."""
        ...

    def prior_answer(self, request: Request) -> str | None:
        """This conversation's previous answer to the same kind of question in the same section
        (None at a section start or for single-turn suites): what biased agents anchor on."""
        ...

    # Optional: ``open_reply(request, agent) -> str | None`` answers an open-ended question (no
    # label set) the way ``agent`` (by its name and parameters) would; None = no answer.


_REASONERS: list[Reasoner] = []
AgentFactory = Callable[[Mapping[str, str]], "Agent"]
_AGENTS: dict[str, tuple[AgentFactory, str]] = {}


def register_reasoner(reasoner: Reasoner) -> None:
    if all(existing.suite != reasoner.suite for existing in _REASONERS):
        _REASONERS.append(reasoner)


def register_agent(name: str, factory: AgentFactory, doc: str) -> None:
    _AGENTS[name] = (factory, doc)


_LOADED: set[str] = set()


def _load_suite_modules() -> None:
    """Import the modules that register reasoners and agents, once each (this runs for every
    answer, and ``import_module`` of a loaded module still costs a few microseconds)."""
    for module in PLUGIN_MODULES:
        if module not in _LOADED:
            importlib.import_module(module)
            _LOADED.add(module)


def reasoner_for(request: Request) -> Reasoner | None:
    _load_suite_modules()
    for reasoner in _REASONERS:
        if reasoner.accepts(request):
            return reasoner
    return None


def agent_catalogue() -> dict[str, str]:
    """Agent name -> one-line description, for ``biaslab models``."""
    _load_suite_modules()
    return {name: doc for name, (_, doc) in sorted(_AGENTS.items())}


def agent_home(spec: str) -> str | None:
    """The suite an agent was written for (the one whose module registered it), or None for a
    general agent (oracle, random, sticky, …) or an unknown name."""
    _load_suite_modules()
    entry = _AGENTS.get(parse_agent_spec(spec)[0])
    if entry is None:
        return None
    parts = getattr(entry[0], "__module__", "").split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["biaslab", "suites"] else None


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``sticky?p=0.9&x=1`` -> ("sticky", {"p": "0.9", "x": "1"})."""
    name, _, query = spec.partition("?")
    params: dict[str, str] = {}
    for part in filter(None, query.split("&")):
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise BiaslabError(f"bad agent parameter {part!r} in {spec!r} (expected key=value)")
        params[key] = value
    return name, params


def make_agent(spec: str, extra: Mapping[str, object] | None = None) -> Agent:
    name, params = parse_agent_spec(spec)
    params.update({k: str(v) for k, v in (extra or {}).items()})
    _load_suite_modules()
    if name not in _AGENTS:
        known = ", ".join(sorted(_AGENTS))
        raise BiaslabError(f"unknown agent {name!r} (known: {known})")
    return _AGENTS[name][0](params)


def float_param(params: Mapping[str, str], key: str, default: float, lo: float, hi: float) -> float:
    raw = params.get(key)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise BiaslabError(f"agent parameter {key}={raw!r} is not a number") from None
    if not lo <= value <= hi or math.isnan(value):
        raise BiaslabError(f"agent parameter {key}={raw} must be between {lo} and {hi}")
    return value


def reject_unknown_params(name: str, params: Mapping[str, str], allowed: Sequence[str]) -> None:
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        hint = ", ".join(allowed) if allowed else "none"
        raise BiaslabError(f"agent {name!r} has no parameter {unknown[0]!r} (parameters: {hint})")


def peaked(labels: Sequence[str], chosen: str, confidence: float) -> Distribution:
    """``confidence`` on ``chosen``, the rest spread evenly (so logprobs stay finite)."""
    if len(labels) == 1:
        return {chosen: 1.0}
    rest = (1.0 - confidence) / (len(labels) - 1)
    return {label: confidence if label == chosen else rest for label in labels}


@dataclass
class Agent(ABC):
    """A policy from a request to a label distribution; the answer is its mode (first label on ties)
    unless :meth:`choose` is overridden (e.g. to sample)."""

    name: str
    params: Mapping[str, str] = field(default_factory=dict)

    @abstractmethod
    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution: ...

    def choose(self, request: Request, distribution: Distribution) -> str:
        best = max(distribution.values())
        return next(label for label in request.labels if distribution.get(label, 0.0) == best)

    def respond(self, request: Request) -> tuple[str, Distribution | None]:
        """The reply text and label distribution. An open-ended question (no label set) is answered
        by the suite's reasoner when it knows how this agent answers it (``open_reply``), else
        refused (which the task records as unparsed)."""
        if not request.labels:
            reasoner = reasoner_for(request)
            open_reply = getattr(reasoner, "open_reply", None)
            text = open_reply(request, self) if open_reply is not None else None
            if text is not None:
                return text, None
            return "I cannot tell which answers this question allows.", None
        reasoner = reasoner_for(request)
        distribution = self.distribution(request, reasoner)
        label = self.choose(request, distribution)
        return f"Answer: {label}", distribution
