"""One item's trajectory and its judgements, written against two injected ``ask`` functions (the
model under test and the judge) so the Inspect solver and the in-process benchmark run the same code.

1. :func:`reason` — the reasoning: chain of thought split into paragraph steps; or a debate between
   two instances of the model (sides tagged, the opener fixed per question by the item's seeded
   RNG, ``rounds`` speeches per side); or, for judge-baseline items, the stored Bayesian text.
2. :func:`judge_requests` — every call to make: per construct, replicate and prefix (prefix mode),
   or one call per replicate over the whole trajectory (paper mode). The judge sees the question,
   never the reasoner's system prompt; replicates differ in wording and cache scope.
3. :func:`run_request` — make one call (with the paper mode's single retry) and read it into
   :class:`~biaslab.suites.entrenchment.judgements.BeliefRecord` s; an unreadable reply is
   recorded as unparsed, never raised.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
)

from biaslab.answers import label_probabilities
from biaslab.errors import BiaslabError
from biaslab.schema import Item
from biaslab.suites.entrenchment import prompts
from biaslab.suites.entrenchment.beliefs import (
    NO_LOGPROBS,
    RETRY_FAILED,
    merge_evenly,
    read_belief,
    read_beliefs,
    split_steps,
)
from biaslab.suites.entrenchment.config import (
    Config,
    Construct,
    Domain,
    JudgeMode,
    Mode,
    SystemPrompt,
)
from biaslab.suites.entrenchment.judgements import (
    RAW_CHARS,
    BeliefRecord,
    Source,
    TrajectoryRecord,
)

#: (messages, config, cache policy or None = the caller's default) -> model output
Ask = Callable[[list[ChatMessage], GenerateConfig, CachePolicy | None], Awaitable[ModelOutput]]
TOP_LOGPROBS = 5
TOKENS_PER_BELIEF = 16


def _choice(meta: dict[str, Any], key: str, kind: Any) -> Any:
    """``meta[key]`` checked against the values of the Literal type ``kind``."""
    value = str(meta.get(key))
    allowed = typing.get_args(kind)
    if value not in allowed:
        raise BiaslabError(f"entrenchment item: {key} {value!r} is not one of {', '.join(allowed)}")
    return value


@dataclass(frozen=True)
class ItemView:
    """What the pipeline reads from an item."""

    item_id: str
    question: str
    source: Source
    domain: Domain
    mode: Mode
    system_prompt: SystemPrompt
    system: str | None
    prompt: str
    proposition: str
    reasoner_text: str
    option_yes: str
    option_no: str
    asked_yes: bool
    yes_first: bool
    opener: str
    outcome: int | None
    exact: tuple[float, ...] | None
    fixed_steps: tuple[str, ...] | None
    urn_setting: str | None = None
    variant: str = ""

    @classmethod
    def of(cls, item: Item) -> ItemView:
        meta: dict[str, Any] = dict(item.meta)
        detail: dict[str, Any] = dict(meta.get("detail") or {})
        exact, steps = detail.get("exact"), detail.get("steps")
        return cls(
            item_id=item.id,
            question=str(meta["question"]),
            source=_choice(meta, "source", Source),
            domain=_choice(meta, "domain", Domain),
            mode=_choice(meta, "mode", Mode),
            system_prompt=_choice(meta, "system_prompt", SystemPrompt),
            system=item.system,
            prompt=item.turns[0].prompt,
            proposition=str(detail["proposition"]),
            reasoner_text=str(detail.get("reasoner_text") or detail["proposition"]),
            option_yes=str(meta["option_yes"]),
            option_no=str(meta["option_no"]),
            asked_yes=bool(meta["asked_yes"]),
            yes_first=bool(meta["yes_first"]),
            opener=str(meta["opener"]),
            outcome=None if meta.get("outcome") is None else int(meta["outcome"]),
            exact=tuple(float(v) for v in exact) if exact is not None else None,
            fixed_steps=tuple(str(s) for s in steps) if steps is not None else None,
            urn_setting=None if meta.get("urn_setting") is None else str(meta["urn_setting"]),
            variant=str(meta.get("variant") or ""),
        )

    @property
    def options(self) -> tuple[str, str]:
        """The options in the order the judge is shown them."""
        pair = (self.option_yes, self.option_no)
        return pair if self.yes_first else (pair[1], pair[0])

    @property
    def target(self) -> str:
        """The option whose probability the judge is asked for."""
        return self.option_yes if self.asked_yes else self.option_no

    def option(self, side: str) -> str:
        return self.option_yes if side == "yes" else self.option_no


@dataclass(frozen=True)
class Reasoning:
    steps: tuple[str, ...]
    sides: tuple[str, ...] | None  # "yes"/"no" per debate speech
    n_raw: int
    failure: str | None = None
    transcript: tuple[ChatMessage, ...] = ()
    #: stored reasoning merged to ``max_steps``: the raw step each merged step ends at
    raw_step: tuple[int, ...] | None = None
    reasoner_temperature: float | None = None
    judge_temperature: float | None = None


def _reasoner(config: Config) -> GenerateConfig:
    """A call to the model under test: the suite's reasoner temperature, if it sets one."""
    return GenerateConfig(temperature=config.reasoner_temperature)


def _opening(view: ItemView) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    if view.system:
        messages.append(ChatMessageSystem(content=view.system))
    messages.append(ChatMessageUser(content=view.prompt))
    return messages


async def reason(view: ItemView, config: Config, ask_model: Ask) -> Reasoning:
    """The trajectory to judge, carrying the suite's temperatures for its records."""
    reasoning = await _reasoning(view, config, ask_model)
    return dataclasses.replace(
        reasoning,
        reasoner_temperature=config.reasoner_temperature,
        judge_temperature=config.judge_temperature,
    )


async def _reasoning(view: ItemView, config: Config, ask_model: Ask) -> Reasoning:
    if view.fixed_steps is not None:  # the judge baseline: capped as a chain of thought is
        steps, bounds = merge_evenly(view.fixed_steps, config.max_steps)
        return Reasoning(steps, None, len(view.fixed_steps), raw_step=bounds)
    if view.mode == "debate":
        return await _debate(view, config, ask_model)
    messages = _opening(view)
    output = await ask_model(messages, _reasoner(config), None)
    text = output.completion
    split = split_steps(text, min_chars=config.min_step_chars, max_steps=config.max_steps)
    failure = None if split.steps else "the reasoner wrote nothing"
    reply = ChatMessageAssistant(content=text, source="generate")
    return Reasoning(split.steps, None, split.n_raw, failure, (*messages, reply))


async def _debate(view: ItemView, config: Config, ask_model: Ask) -> Reasoning:
    """Two instances of the model, each with its own conversation; speeches alternate. Both are
    given the question as the reasoner sees it (on the urn domain, with the draws): the debate is
    over the evidence, and the judge learns of it only from the speeches, as from a chain of
    thought."""
    first = view.opener
    second = "no" if first == "yes" else "yes"
    system = [ChatMessageSystem(content=view.system)] if view.system else []
    convo: dict[str, list[ChatMessage]] = {
        first: [*system, ChatMessageUser(content=view.prompt)],
        second: [
            *system,
            ChatMessageUser(
                content=prompts.debate_opening(
                    view.reasoner_text, view.option(second), view.option(first), opens=False
                )
            ),
        ],
    }
    speeches: list[str] = []
    sides: list[str] = []
    for turn in range(2 * config.rounds):
        side = first if turn % 2 == 0 else second
        messages = convo[side]
        if speeches:
            previous = prompts.debate_reply(speeches[-1])
            if turn == 1:  # the second debater's opening message already asks for a speech
                messages[-1] = ChatMessageUser(content=f"{messages[-1].text}\n\n{previous}")
            else:
                messages.append(ChatMessageUser(content=previous))
        output = await ask_model(list(messages), _reasoner(config), None)
        speech = " ".join(output.completion.split())
        messages.append(ChatMessageAssistant(content=output.completion, source="generate"))
        speeches.append(speech)
        sides.append(side)
    failure = None if any(speeches) else "the debaters wrote nothing"
    transcript = tuple(
        ChatMessageAssistant(content=f"[{s}] {t}", source="generate")
        for s, t in zip(sides, speeches, strict=True)
    )
    return Reasoning(tuple(speeches), tuple(sides), len(speeches), failure, transcript)


@dataclass(frozen=True)
class JudgeRequest:
    construct: Construct
    judge_mode: JudgeMode  # "prefix" (also for logprob and self-report) or "trajectory"
    replicate: int
    step: int | None  # the prefix length; None = every step (trajectory mode)
    messages: tuple[ChatMessage, ...]
    config: GenerateConfig
    cache: CachePolicy | None
    to_model: bool = False  # self-report asks the model under test
    labels: tuple[str, str] = ("yes", "no")


def _cache(view: ItemView, replicate: int) -> CachePolicy:
    """Judge replies are cached for good; replicates and questions never share an entry."""
    return CachePolicy(expiry=None, scopes={"replicate": str(replicate), "sample": view.item_id})


def _side_options(view: ItemView, sides: Sequence[str] | None) -> list[str | None] | None:
    return None if sides is None else [view.option(s) for s in sides]


def judge_requests(view: ItemView, reasoning: Reasoning, config: Config) -> list[JudgeRequest]:
    """Every judgement to make for one trajectory."""
    if reasoning.failure is not None:
        return []
    steps, n = reasoning.steps, len(reasoning.steps)
    tags = _side_options(view, reasoning.sides)
    requests: list[JudgeRequest] = []
    labels = ("yes", "no") if view.yes_first else ("no", "yes")
    for replicate in range(config.judge_replicates):
        for construct in config.constructs:
            if construct == "self_report" and (replicate > 0 or view.source != "model"):
                continue  # asked once, and only of the model under test
            if construct == "judge" and config.judge_mode == "trajectory":
                text = prompts.trajectory_prompt(
                    view.proposition, view.options, view.target, steps, tags, replicate
                )
                requests.append(
                    JudgeRequest(
                        construct,
                        "trajectory",
                        replicate,
                        None,
                        (ChatMessageUser(content=text),),
                        GenerateConfig(
                            max_tokens=config.judge_max_tokens + TOKENS_PER_BELIEF * (n + 1),
                            temperature=config.judge_temperature,
                        ),
                        _cache(view, replicate),
                    )
                )
                continue
            for step in range(n + 1):
                requests.append(
                    _prefix_request(view, reasoning, config, construct, replicate, step, labels)
                )
    return requests


def _prefix_request(
    view: ItemView,
    reasoning: Reasoning,
    config: Config,
    construct: Construct,
    replicate: int,
    step: int,
    labels: tuple[str, str],
) -> JudgeRequest:
    shown = reasoning.steps[:step]
    tags = _side_options(view, reasoning.sides)
    tags = tags[:step] if tags is not None else None
    limit = GenerateConfig(max_tokens=config.judge_max_tokens, temperature=config.judge_temperature)
    if construct == "self_report":
        own = GenerateConfig(
            max_tokens=config.judge_max_tokens, temperature=config.reasoner_temperature
        )
        return JudgeRequest(
            construct, "prefix", replicate, step, _self_report(view, shown), own, None,
            to_model=True,
        )  # fmt: skip
    if construct == "judge_logprob":
        text = prompts.logprob_prompt(
            view.proposition, view.options, view.target, shown, tags, labels, replicate
        )
        config_lp = GenerateConfig(
            max_tokens=config.judge_max_tokens,
            temperature=config.judge_temperature,
            logprobs=True,
            top_logprobs=TOP_LOGPROBS,
        )
        return JudgeRequest(
            construct,
            "prefix",
            replicate,
            step,
            (ChatMessageUser(content=text),),
            config_lp,
            _cache(view, replicate),
            labels=labels,
        )
    text = prompts.judge_prompt(view.proposition, view.options, view.target, shown, tags, replicate)
    return JudgeRequest(
        construct,
        "prefix",
        replicate,
        step,
        (ChatMessageUser(content=text),),
        limit,
        _cache(view, replicate),
    )


def _self_report(view: ItemView, shown: Sequence[str]) -> tuple[ChatMessage, ...]:
    """The model's own conversation cut after ``shown`` steps, then the self-report question.

    Every step, b_0 included, is asked in this one template, so a change of belief is never a
    change of prompt. With no step written there is no reasoning turn: the question follows the
    reasoning prompt in the same user message (two user messages in a row break chat templates
    that require alternating roles, and an empty assistant turn is refused by some providers).
    """
    messages: list[ChatMessage] = [ChatMessageSystem(content=view.system)] if view.system else []
    ask = prompts.self_report_prompt(view.target)
    if not shown:
        return (*messages, ChatMessageUser(content=f"{view.prompt}\n\n{ask}"))
    return (
        *messages,
        ChatMessageUser(content=view.prompt),
        ChatMessageAssistant(content="\n\n".join(shown)),
        ChatMessageUser(content=ask),
    )


def _yes_belief(view: ItemView, value: float | None) -> float | None:
    if value is None:
        return None
    return value if view.asked_yes else 1.0 - value


def _record(
    view: ItemView,
    reasoning: Reasoning,
    request: JudgeRequest,
    step: int,
    value: float | None,
    **extra: Any,
) -> BeliefRecord:
    sides = reasoning.sides
    raw = reasoning.raw_step[step] if reasoning.raw_step is not None else step
    exact = view.exact[raw] if view.source == "judge_baseline" and view.exact else None
    return BeliefRecord(
        question=view.question,
        source=view.source,
        domain=view.domain,
        mode=view.mode,
        system_prompt=view.system_prompt,
        belief_construct=request.construct,
        judge_mode=request.judge_mode,
        replicate=request.replicate,
        step=step,
        n_steps=len(reasoning.steps),
        side=sides[step - 1] if sides is not None and step > 0 else None,
        round=math.ceil(step / 2) if sides is not None else None,
        belief=_yes_belief(view, value),
        parsed=value is not None,
        asked_yes=view.asked_yes,
        exact=exact,
        outcome=view.outcome,
        urn_setting=view.urn_setting,
        variant=view.variant,
        reasoner_temperature=reasoning.reasoner_temperature,
        judge_temperature=reasoning.judge_temperature,
        **extra,
    )


def token_alternatives(output: ModelOutput) -> tuple[list[str], list[dict[str, float]]]:
    """Each generated token and its alternatives (token text -> logprob)."""
    choice = output.choices[0] if output.choices else None
    if choice is None or choice.logprobs is None:
        return [], []
    tokens, out = [], []
    for position in choice.logprobs.content:
        options = {alt.token: alt.logprob for alt in position.top_logprobs or []}
        options.setdefault(position.token, position.logprob)
        tokens.append(position.token)
        out.append(options)
    return tokens, out


def answer_probabilities(output: ModelOutput, labels: Sequence[str]) -> dict[str, float] | None:
    """The label distribution at the answer token of a reply, by the shared
    :func:`~biaslab.answers.label_probabilities`: the first label token after the reply's last
    ``Answer:``, so a judge that goes on ("Answer: yes — no doubt about it") is read at "yes"."""
    return label_probabilities(token_alternatives(output)[1], labels)


def _asked(request: JudgeRequest) -> str:
    """The text the reply answers: every message of the request (an echo of any is not read)."""
    return "\n".join(message.text for message in request.messages)


async def run_request(
    view: ItemView, reasoning: Reasoning, request: JudgeRequest, ask: Ask
) -> list[BeliefRecord]:
    """Make one judge (or self-report) call and read it; paper mode retries once."""
    output = await ask(list(request.messages), request.config, request.cache)
    text = output.completion
    raw = text[:RAW_CHARS]
    if request.judge_mode == "trajectory":
        return await _read_trajectory(view, reasoning, request, ask, output)
    assert request.step is not None
    if request.construct == "judge_logprob":
        probs = answer_probabilities(output, request.labels)
        value = probs["yes"] if probs is not None else None
        error = None if probs is not None else f"{NO_LOGPROBS}: none for a yes/no answer token"
        return [_record(view, reasoning, request, request.step, value, error=error, raw=raw)]
    reading = read_belief(text, _asked(request))
    return [
        _record(
            view,
            reasoning,
            request,
            request.step,
            reading.value,
            error=reading.error,
            rescaled=reading.rescaled,
            raw=raw,
        )
    ]


async def _read_trajectory(
    view: ItemView, reasoning: Reasoning, request: JudgeRequest, ask: Ask, output: ModelOutput
) -> list[BeliefRecord]:
    n = len(reasoning.steps)
    prompt = _asked(request)
    readings = read_beliefs(output.completion, n + 1, prompt)
    retried = False
    if readings.values is None:
        retried = True
        follow_up = [
            *request.messages,
            ChatMessageAssistant(content=output.completion),
            ChatMessageUser(content=prompts.trajectory_retry(readings.error or "unreadable", n)),
        ]
        output = await ask(follow_up, request.config, request.cache)
        readings = read_beliefs(output.completion, n + 1, prompt)
    raw = output.completion[:RAW_CHARS]
    if readings.values is None:
        error = f"{RETRY_FAILED}{readings.error}"
        return [
            _record(
                view, reasoning, request, t, None, failed=True, retried=True, error=error, raw=raw
            )
            for t in range(n + 1)
        ]
    return [
        _record(
            view, reasoning, request, t, value, rescaled=readings.rescaled, retried=retried, raw=raw
        )
        for t, value in enumerate(readings.values)
    ]


def trajectory_record(view: ItemView, reasoning: Reasoning, config: Config) -> TrajectoryRecord:
    return TrajectoryRecord(
        question=view.question,
        source=view.source,
        domain=view.domain,
        mode=view.mode,
        system_prompt=view.system_prompt,
        judge_mode=config.judge_mode,
        n_steps=len(reasoning.steps),
        n_steps_raw=reasoning.n_raw,
        capped=reasoning.n_raw > len(reasoning.steps),
        failure=reasoning.failure,
        outcome=view.outcome,
        urn_setting=view.urn_setting,
        variant=view.variant,
        reasoner_temperature=config.reasoner_temperature,
        judge_temperature=config.judge_temperature,
    )
