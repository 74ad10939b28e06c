"""The defeasible suite's :class:`~biaslab.agents.base.Reasoner` and its shortcut agents.

The reasoner reads only the conversation text: every user message so far is parsed back into
statements (premises accumulate across sections), compiled into a network exactly as the generator
did, and resolved. So the oracle answering every turn correctly proves the rendering is faithful.

Shortcut agents measure how far surface cues go:

* ``last-polarity``: the sign of the latest update's revealed link (affirmative -> yes /
  strengthening, negated -> no / weakening); "yes" at a section opening.
* ``negation``: "not", "exception" or "cannot" in the latest update sentence -> no / weakening,
  else yes / strengthening; "yes" at a section opening.
* ``also-unknown``: "unknown" to every hypothesis question at or after a message saying that a
  kind "is also a kind of" another (multiple inheritance, the tree topology's route to conflicts),
  else as ``last-polarity``: audits whether that sentence gives "unknown" away.

Import cost: no Inspect, no pandas (the agent registry imports this module on first use).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from biaslab.agents.base import (
    Agent,
    Distribution,
    Reasoner,
    Request,
    peaked,
    register_agent,
    register_reasoner,
    reject_unknown_params,
)
from biaslab.suites.defeasible.conversation import effect_of, polarity
from biaslab.suites.defeasible.lexicon import load_lexicon
from biaslab.suites.defeasible.render import (
    HYPOTHESIS_PREFIX,
    NEW_HYPOTHESIS_PREFIX,
    SYSTEM_PROMPTS,
    UPDATE_PREFIX,
    ConversationReader,
    ParsedConversation,
    RenderError,
    SentenceParser,
    has_negation_cue,
    question_kind,
)
from biaslab.suites.defeasible.resolver import resolve

SHORTCUT_CONFIDENCE = 0.98
_READ: OrderedDict[tuple[str, ...], tuple[ConversationReader, ParsedConversation]] = OrderedDict()
_READ_SIZE = 256


def user_texts(request: Request) -> tuple[str, ...]:
    return tuple(message.text for message in request.messages if message.role == "user")


def parsed(request: Request) -> ParsedConversation:
    """The conversation so far, parsed. Memoised: agents ask several things of one request, and
    the next turn's request extends this one's reader by its new message only."""
    texts = user_texts(request)
    found = _READ.get(texts)
    if found is None:
        earlier = _READ.get(texts[:-1])
        reader = earlier[0].copy() if earlier is not None else ConversationReader()
        try:
            reader.read_all(texts[reader.messages :])
        except RenderError as exc:
            raise RenderError(
                f"the defeasible reference agents read only biaslab's own wording (conversations "
                f"imported with -p conversations= keep their file's): {exc}"
            ) from exc
        found = reader, reader.conversation()
        _READ[texts] = found
        if len(_READ) > _READ_SIZE:
            _READ.popitem(last=False)
    else:
        _READ.move_to_end(texts)
    return found[1]


def message_kind(text: str) -> str | None:
    """The question a user message asks: "entailment", "effect", or None if none of ours."""
    for line in text.splitlines():
        kind = question_kind(line.strip())
        if kind is not None:
            return kind
    return None


def opens_section(text: str) -> bool:
    return any(
        line.startswith((HYPOTHESIS_PREFIX, NEW_HYPOTHESIS_PREFIX)) for line in text.splitlines()
    )


def latest_update_sentence(request: Request) -> str | None:
    """The current section's latest "Information update:" sentence, None at a section opening."""
    for text in reversed(user_texts(request)):
        for line in reversed(text.splitlines()):
            if line.startswith(UPDATE_PREFIX):
                return line.removeprefix(UPDATE_PREFIX).strip()
        if opens_section(text):
            return None
    return None


class DefeasibleReasoner:
    """Gold answers for DeReLab conversations, recomputed from the text alone."""

    suite = "defeasible"

    def accepts(self, request: Request) -> bool:
        prompts = {p for p in SYSTEM_PROMPTS.values() if p}
        if any(m.role == "system" and m.text in prompts for m in request.messages):
            return True
        return message_kind(request.prompt) is not None

    def gold(self, request: Request) -> str:
        conversation = parsed(request)
        query = conversation.query
        if query is None:
            return request.labels[0] if request.labels else "unknown"
        after = resolve(conversation.network, query.subject, query.property)
        if message_kind(request.prompt) != "effect":
            return after
        if conversation.previous_network is None or conversation.last_update is None:
            return "no effect"
        before = resolve(conversation.previous_network, query.subject, query.property)
        return effect_of(before, after)

    def prior_answer(self, request: Request) -> str | None:
        """This conversation's previous answer to the same kind of question in this section."""
        if opens_section(request.prompt):
            return None
        kind = message_kind(request.prompt)
        answered = request.turns
        start = 0
        for index, (prompt, _) in enumerate(answered):
            if opens_section(prompt):
                start = index
        for prompt, answer in reversed(answered[start:]):
            if message_kind(prompt) == kind:
                return answer
        return None


def _is_ours(reasoner: Reasoner | None) -> bool:
    return isinstance(reasoner, DefeasibleReasoner)


def _directional(request: Request, negative: bool) -> str:
    """The answer a shortcut gives when it reads the latest update as negative or not."""
    if message_kind(request.prompt) == "effect":
        return "weakening" if negative else "strengthening"
    return "no" if negative else "yes"


@dataclass
class LastPolarity(Agent):
    """Answers from the polarity of the latest update only (negated -> no/weakening)."""

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        labels = request.labels
        sentence = latest_update_sentence(request) if _is_ours(reasoner) else None
        if sentence is None:
            chosen = "yes" if "yes" in labels else labels[0]
        else:
            sign = polarity(SentenceParser(load_lexicon()).statement(sentence))
            chosen = _directional(request, negative=sign == "-")
        return peaked(labels, chosen if chosen in labels else labels[0], SHORTCUT_CONFIDENCE)


@dataclass
class NegationSpotter(Agent):
    """Says no/weakening whenever the latest update contains "not", "exception" or "cannot"."""

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        labels = request.labels
        sentence = latest_update_sentence(request) if _is_ours(reasoner) else None
        if sentence is None:
            chosen = "yes" if "yes" in labels else labels[0]
        else:
            chosen = _directional(request, negative=has_negation_cue(sentence))
        return peaked(labels, chosen if chosen in labels else labels[0], SHORTCUT_CONFIDENCE)


ALSO_KIND_CUE = " is also a kind of "


def saw_also_kind(request: Request) -> bool:
    """Whether any user message so far says that something "is also a kind of" something."""
    return any(ALSO_KIND_CUE in text for text in user_texts(request))


@dataclass
class AlsoUnknown(LastPolarity):
    """Says unknown at and after an "is also a kind of" sentence, else answers as last-polarity."""

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        labels = request.labels
        if _is_ours(reasoner) and "unknown" in labels and saw_also_kind(request):
            return peaked(labels, "unknown", SHORTCUT_CONFIDENCE)
        return super().distribution(request, reasoner)


def _factory(cls: type[Agent], name: str) -> None:
    def make(params: Mapping[str, str]) -> Agent:
        reject_unknown_params(name, params, [])
        return cls(name=name, params=dict(params))

    register_agent(name, make, (cls.__doc__ or "").strip().splitlines()[0])


REASONER = DefeasibleReasoner()
register_reasoner(REASONER)
_factory(LastPolarity, "last-polarity")
_factory(NegationSpotter, "negation")
_factory(AlsoUnknown, "also-unknown")

__all__ = [
    "ALSO_KIND_CUE",
    "REASONER",
    "AlsoUnknown",
    "DefeasibleReasoner",
    "LastPolarity",
    "NegationSpotter",
    "latest_update_sentence",
    "message_kind",
    "parsed",
]
