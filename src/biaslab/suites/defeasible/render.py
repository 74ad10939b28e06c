"""Statements <-> English, invertibly: fixed sentence templates plus the lexicon's predicate forms.

Every sentence comes from one template below, with predicates taken verbatim from the lexicon's
four forms (so no "does not rolls"), and :func:`parse_premises` reads messages back with the same
templates and :meth:`Lexicon.lookup`. The parsed statements go through the same
:class:`~biaslab.suites.defeasible.conversation.Premises` as the generator's, so the oracle sees
exactly the network that was labelled.

Templates (``X`` a name phrase: "Kitylu", "the hammer", "a Zibber"; ``P``/``Q`` predicate forms)::

    X Q.                                           Fact
    X is an exception to the rule that <rule>.     ExceptionFact (rule without its full stop)
    Objects that P generally Q.                    Implication ("Objects": the domain's plural noun)
    A C generally Q.                               ClassProperty
    A C is (also) a kind of D.                     KindOf
    According to S, <fact or rule>.               Claim
    S is more reliable than T. / T is less reliable than S. / S and T are equally reliable.

Node ids are the names without articles; predicate nodes are lexicon keys ("color=red").
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from biaslab.answers import format_instruction
from biaslab.errors import BiaslabError
from biaslab.suites.defeasible.conversation import (
    Claim,
    ClassProperty,
    EqualReliability,
    ExceptionFact,
    Fact,
    Hypothesis,
    Implication,
    KindOf,
    Premises,
    Reliability,
    Statement,
)
from biaslab.suites.defeasible.labels import EFFECT_LABELS, ENTAILMENT_LABELS
from biaslab.suites.defeasible.lexicon import Lexicon, load_lexicon
from biaslab.suites.defeasible.network import Network, Query

SYSTEM_PROMPT = """\
You will reason step by step about made-up objects, kinds and properties. Use only the information \
given in this conversation; the names mean nothing outside it.

The information consists of general rules that hold by default ("generally"), facts about \
particular objects or kinds, and sometimes reports from named sources whose relative reliability \
is stated. How to combine it:
- A rule applies to whatever is known to meet its condition, unless more specific information \
says otherwise: a fact about the object itself, or a rule about a more specific kind, overrides a \
more general rule.
- A rule says nothing about things not known to meet its condition: if an object is not red, a \
rule about red objects tells you nothing about it.
- A kind has the properties of the kinds it belongs to, unless something more specific says \
otherwise.
- When two sources contradict each other, believe the more reliable one. When two pieces of \
information conflict and neither is more specific or more reliable, do not take either side.

After each message you are asked one question about the current hypothesis.
- "Does it support the hypothesis ...?": answer yes if the information so far supports the \
hypothesis, no if it supports the negation of the hypothesis, and unknown if it supports neither.
- "Does this update strengthen, weaken, or have no effect ...?": compare the correct answer to \
the hypothesis question just before and just after the latest information update, ordering yes \
above unknown above no. Answer strengthening if the update moved it up, weakening if it moved it \
down, and no effect if it stayed the same.

End every reply with the answer line the question asks for."""

#: the paper's mode: the task and the answer format only (no inference rules); the effect labels
#: are defined by support before vs after, since the answer format needs them, never by the
#: entailment answers (the rules mode's definition)
MINIMAL_PROMPT = """\
You will be given information about made-up objects, kinds and properties, one message at a time. \
Use only the information given in this conversation; the names mean nothing outside it.

After each message you are asked one question about the current hypothesis. Answer yes if the \
information so far supports the hypothesis, no if it supports its negation, and unknown if it \
supports neither. Asked about the effect of the latest update, answer strengthening if the \
hypothesis is better supported after it than before it, weakening if it is less supported, and \
no effect if its support is unchanged. End every reply with the answer line the question asks \
for."""

#: ``instructions`` -> system prompt ("rules" teaches how to combine defaults, sources and kinds)
SYSTEM_PROMPTS = {"rules": SYSTEM_PROMPT, "minimal": MINIMAL_PROMPT, "none": ""}

PRETEXT_HEADER = "Pretext:"
SOURCES_HEADER = "Sources and their reliability:"
HYPOTHESIS_PREFIX = "Hypothesis: "
NEW_HYPOTHESIS_PREFIX = "New hypothesis: "
NEW_SECTION_LINE = "We now turn to a new hypothesis about a different subject."
UPDATE_PREFIX = "Information update: "
ENTAILMENT_QUESTION = (
    "Question: Given all the information so far, does it support the hypothesis that"
)
EFFECT_QUESTION = (
    "Question: Does this update strengthen, weaken, or have no effect on the support for the "
    "hypothesis that"
)
#: words whose presence the "negation" shortcut agent takes as a sign of a negative update
NEGATION_CUES = ("not", "exception", "cannot")


class RenderError(BiaslabError):
    """A sentence that no template produces (the text was not written by this generator)."""


@dataclass(frozen=True)
class Style:
    """How node ids appear in text: individuals bare ("Kitylu") or with "the" (real nouns), classes
    with "a"/"an"; ``plural_noun`` opens property rules ("Objects that ...")."""

    plural_noun: str
    classes: frozenset[str] = frozenset()
    definite: frozenset[str] = frozenset()

    def name(self, node: str) -> str:
        if node in self.classes:
            return f"{_article(node)} {node}"
        if node in self.definite:
            return f"the {node}"
        return node


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------------------- rendering


class Renderer:
    """Statement -> sentence for one conversation's style."""

    def __init__(self, lexicon: Lexicon, style: Style) -> None:
        self.lexicon = lexicon
        self.style = style

    def form(self, key: str, positive: bool, plural: bool) -> str:
        return self.lexicon.predicate(key).form(positive=positive, plural=plural)

    def rule_clause(self, rule: Implication) -> str:
        antecedent = self.form(rule.src, True, plural=True)
        consequent = self.form(rule.dst, rule.positive, plural=True)
        return f"{self.style.plural_noun} that {antecedent} generally {consequent}"

    def clause(self, statement: Statement | Hypothesis) -> str:
        """The statement as a clause (no capital, no full stop), for embedding and questions."""
        name = self.style.name
        match statement:
            case Fact(entity, prop, positive):
                return f"{name(entity)} {self.form(prop, positive, plural=False)}"
            case Hypothesis(subject, prop):
                return f"{name(subject)} {self.form(prop, True, plural=False)}"
            case ExceptionFact(entity, rule):
                return f"{name(entity)} is an exception to the rule that {self.rule_clause(rule)}"
            case Implication():
                return self.rule_clause(statement)
            case ClassProperty(cls, prop, positive):
                return f"{name(cls)} generally {self.form(prop, positive, plural=False)}"
            case KindOf(child, parent, also):
                return f"{name(child)} is {'also ' if also else ''}a kind of {parent}"
            case Claim(source, content):
                return f"according to {source}, {self.clause(content)}"
            case Reliability(more, less, worded_less):
                if worded_less:
                    return f"{less} is less reliable than {more}"
                return f"{more} is more reliable than {less}"
            case EqualReliability(first, second):
                return f"{first} and {second} are equally reliable"
        raise RenderError(f"cannot render {statement!r}")

    def sentence(self, statement: Statement | Hypothesis) -> str:
        return _capitalise(self.clause(statement)) + "."


def entailment_question(renderer: Renderer, hypothesis: Hypothesis) -> str:
    clause = renderer.clause(hypothesis)
    return f"{ENTAILMENT_QUESTION} {clause}?\n{format_instruction(ENTAILMENT_LABELS)}"


def effect_question(renderer: Renderer, hypothesis: Hypothesis) -> str:
    clause = renderer.clause(hypothesis)
    return f"{EFFECT_QUESTION} {clause}?\n{format_instruction(EFFECT_LABELS)}"


def opening_message(
    pretext: Sequence[str], reliability: Sequence[str], hypothesis: str, question: str
) -> str:
    """The first message: the pretext (and source reliability), the hypothesis, the question."""
    blocks = [PRETEXT_HEADER + "\n" + "\n".join(pretext)]
    if reliability:
        blocks.append(SOURCES_HEADER + "\n" + "\n".join(reliability))
    blocks += [HYPOTHESIS_PREFIX + hypothesis, question]
    return "\n\n".join(blocks)


def new_section_message(hypothesis: str, question: str) -> str:
    return "\n\n".join([NEW_SECTION_LINE, NEW_HYPOTHESIS_PREFIX + hypothesis, question])


def update_message(sentence: str, question: str) -> str:
    return f"{UPDATE_PREFIX}{sentence}\n\n{question}"


def has_negation_cue(sentence: str) -> bool:
    """Whether a sentence contains "not", "exception" or "cannot" (the negation shortcut's cue)."""
    words = set(re.findall(r"[a-z]+", sentence.lower()))
    return any(cue in words for cue in NEGATION_CUES)


# ---------------------------------------------------------------------------------------- parsing

_ARTICLE = re.compile(r"^(?:the|a|an) ", re.IGNORECASE)
_CLAIM = re.compile(r"^According to (?P<source>[A-Z][a-z]+), (?P<rest>.+)$")
_MORE = re.compile(r"^(?P<a>[A-Z][a-z]+) is more reliable than (?P<b>[A-Z][a-z]+)\.$")
_LESS = re.compile(r"^(?P<a>[A-Z][a-z]+) is less reliable than (?P<b>[A-Z][a-z]+)\.$")
_EQUAL = re.compile(r"^(?P<a>[A-Z][a-z]+) and (?P<b>[A-Z][a-z]+) are equally reliable\.$")
_KIND = re.compile(r"^(?P<child>.+?) is (?P<also>also )?a kind of (?P<parent>.+)\.$")
_EXCEPTION = re.compile(r"^(?P<entity>.+?) is an exception to the rule that (?P<rule>.+)\.$")
_RULE = re.compile(r"^(?P<noun>[A-Za-z]+) that (?P<body>.+)\.$")
_GENERIC = re.compile(r"^(?P<subject>(?:A|An|a|an) \S+) generally (?P<pred>.+)\.$")


def _node(phrase: str) -> str:
    return _ARTICLE.sub("", phrase.strip(), count=1)


class SentenceParser:
    """Sentence -> statement by the templates above (the inverse of :class:`Renderer`)."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon

    def predicate(self, text: str, *, plural: bool | None = None) -> tuple[str, bool] | None:
        found = self.lexicon.lookup(text)
        if found is None:
            return None
        predicate, positive, number = found
        if plural is not None and number != "any" and (number == "plural") != plural:
            return None
        return predicate.key, positive

    def statement(self, sentence: str) -> Statement:
        sentence = sentence.strip()
        if match := _CLAIM.match(sentence):
            content = self.statement(_capitalise(match["rest"]))
            if not isinstance(content, Fact | Implication):
                raise RenderError(f"a source can only report a fact or a rule: {sentence!r}")
            return Claim(match["source"], content)
        if match := _MORE.match(sentence):
            return Reliability(match["a"], match["b"])
        if match := _LESS.match(sentence):
            return Reliability(match["b"], match["a"], worded_less=True)
        if match := _EQUAL.match(sentence):
            return EqualReliability(match["a"], match["b"])
        if match := _EXCEPTION.match(sentence):
            rule = self.implication(_capitalise(match["rule"]) + ".")
            if rule is None:
                raise RenderError(f"unknown rule in exception: {sentence!r}")
            return ExceptionFact(_node(match["entity"]), rule)
        if match := _KIND.match(sentence):
            return KindOf(_node(match["child"]), match["parent"], also=bool(match["also"]))
        found = self.implication(sentence) or self.class_property(sentence) or self.fact(sentence)
        if found is None:
            raise RenderError(f"cannot parse sentence {sentence!r}")
        return found

    def implication(self, sentence: str) -> Implication | None:
        match = _RULE.match(sentence)
        if match is None:
            return None
        body = match["body"]
        for split in re.finditer(r" generally ", body):
            antecedent = self.predicate(body[: split.start()], plural=True)
            consequent = self.predicate(body[split.end() :], plural=True)
            if antecedent and consequent and antecedent[1]:
                return Implication(antecedent[0], consequent[0], consequent[1])
        return None

    def class_property(self, sentence: str) -> ClassProperty | None:
        match = _GENERIC.match(sentence)
        if match is None:
            return None
        found = self.predicate(match["pred"], plural=False)
        if found is None:
            return None
        return ClassProperty(_node(match["subject"]), found[0], found[1])

    def fact(self, sentence: str) -> Fact | None:
        body = sentence.removesuffix(".")
        for space in re.finditer(" ", body):
            found = self.predicate(body[space.end() :], plural=False)
            if found is not None:
                return Fact(_node(body[: space.start()]), found[0], found[1])
        return None


# One parsed message: ("section", Hypothesis) | ("premise", Statement) | ("update", Statement,
# sentence) | ("question", kind)
_Event = tuple[str, object, str]
_CACHE: OrderedDict[tuple[int, str], tuple[_Event, ...]] = OrderedDict()
_CACHE_SIZE = 8192


def question_kind(line: str) -> str | None:
    if line.startswith(ENTAILMENT_QUESTION):
        return "entailment"
    if line.startswith(EFFECT_QUESTION):
        return "effect"
    return None


def parse_message(text: str, lexicon: Lexicon) -> tuple[_Event, ...]:
    """The events of one user message, in order (cached: histories are re-read every turn)."""
    key = (id(lexicon), text)
    cached = _CACHE.get(key)
    if cached is not None:
        _CACHE.move_to_end(key)
        return cached
    events = tuple(_message_events(text, SentenceParser(lexicon)))
    _CACHE[key] = events
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return events


def _message_events(text: str, parser: SentenceParser) -> list[_Event]:
    events: list[_Event] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line == NEW_SECTION_LINE or line.startswith("End your reply"):
            continue
        if line.startswith((HYPOTHESIS_PREFIX, NEW_HYPOTHESIS_PREFIX)):
            fact = parser.fact(line.split(": ", 1)[1])
            if fact is None or not fact.positive:
                raise RenderError(f"cannot parse hypothesis {line!r}")
            events.append(("section", Hypothesis(fact.entity, fact.prop), line))
        elif line.startswith(UPDATE_PREFIX):
            sentence = line.removeprefix(UPDATE_PREFIX)
            events.append(("update", parser.statement(sentence), sentence))
        elif line.startswith("Question:"):
            events.append(("question", question_kind(line), line))
        elif line.endswith(":"):
            continue  # block headers
        else:
            events.append(("premise", parser.statement(line), line))
    return events


@dataclass(frozen=True)
class ParsedSection:
    """A hypothesis section: its number, the message that opened it, and the hypothesis."""

    index: int
    message: int
    hypothesis: Hypothesis


@dataclass(frozen=True)
class ParsedUpdate:
    """One information update: where it was said, the statement, and its sentence."""

    message: int
    section: int
    statement: Statement
    sentence: str


@dataclass(frozen=True)
class ParsedConversation:
    """What the user messages so far say, as the resolver needs it."""

    network: Network
    query: Query | None
    priorities: tuple[Reliability | EqualReliability, ...]
    sections: tuple[ParsedSection, ...]
    updates: tuple[ParsedUpdate, ...]
    #: the network just before the current section's latest update (None if it has none yet)
    previous_network: Network | None
    #: "entailment" | "effect" | None: the kind of the last question asked
    last_question: str | None

    @property
    def last_update(self) -> ParsedUpdate | None:
        """The current section's latest update, if any."""
        if self.updates and self.sections and self.updates[-1].section == self.sections[-1].index:
            return self.updates[-1]
        return None


def parse_premises(texts: Sequence[str], lexicon: Lexicon | None = None) -> ParsedConversation:
    """Read user messages back into the network, query, source priorities and sections.

    Premises accumulate across sections. Raises :class:`RenderError` on a sentence no template
    produces.
    """
    reader = ConversationReader(lexicon)
    reader.read_all(texts)
    return reader.conversation()


class ConversationReader:
    """What :func:`parse_premises` has read so far, extendable by the next message. A reference
    agent is asked every turn of a conversation, each time with all earlier messages: extending a
    copy of the previous turn's reader reads each message once instead of once per later turn."""

    def __init__(self, lexicon: Lexicon | None = None) -> None:
        self.lexicon = lexicon or load_lexicon()
        self.messages = 0
        self.premises = Premises()
        self.sections: list[ParsedSection] = []
        self.updates: list[ParsedUpdate] = []
        self.priorities: list[Reliability | EqualReliability] = []
        #: the network before the current section's latest update (None if it has none yet)
        self.previous: Network | None = None
        self.last_question: str | None = None

    def copy(self) -> ConversationReader:
        """An independent reader in the same state (networks and statements are immutable)."""
        copied = ConversationReader(self.lexicon)
        copied.messages = self.messages
        copied.premises = self.premises.copy()
        copied.sections = list(self.sections)
        copied.updates = list(self.updates)
        copied.priorities = list(self.priorities)
        copied.previous = self.previous
        copied.last_question = self.last_question
        return copied

    def read_all(self, texts: Sequence[str]) -> None:
        """Read ``texts`` as the next messages: every sentence is parsed before any is added, so
        an unparseable sentence is reported before a cycle, whichever message holds it."""
        parsed = [parse_message(text, self.lexicon) for text in texts]
        for events in parsed:
            self._add(events)

    def _add(self, events: Sequence[_Event]) -> None:
        index = self.messages
        for kind, payload, sentence in events:
            if kind == "section":
                assert isinstance(payload, Hypothesis)
                self.sections.append(ParsedSection(len(self.sections), index, payload))
                self.previous = None
            elif kind == "question":
                self.last_question = payload if isinstance(payload, str) else None
            else:
                statement = payload
                assert isinstance(statement, _STATEMENT_TYPES)
                if isinstance(statement, Reliability | EqualReliability):
                    self.priorities.append(statement)
                if kind == "update":
                    self.previous = self.premises.network
                    self.updates.append(
                        ParsedUpdate(index, len(self.sections) - 1, statement, sentence)
                    )
                self.premises.add(statement)
        self.messages += 1

    def conversation(self) -> ParsedConversation:
        sections = self.sections
        return ParsedConversation(
            network=self.premises.network,
            query=sections[-1].hypothesis.query if sections else None,
            priorities=tuple(self.priorities),
            sections=tuple(sections),
            updates=tuple(self.updates),
            previous_network=self.previous,
            last_question=self.last_question,
        )


_STATEMENT_TYPES = (
    Fact,
    Implication,
    ClassProperty,
    KindOf,
    ExceptionFact,
    Claim,
    Reliability,
    EqualReliability,
)


__all__ = [
    "EFFECT_LABELS",
    "ENTAILMENT_LABELS",
    "MINIMAL_PROMPT",
    "SYSTEM_PROMPT",
    "SYSTEM_PROMPTS",
    "ConversationReader",
    "Hypothesis",
    "ParsedConversation",
    "ParsedSection",
    "ParsedUpdate",
    "RenderError",
    "Renderer",
    "SentenceParser",
    "Style",
    "effect_question",
    "entailment_question",
    "has_negation_cue",
    "parse_message",
    "parse_premises",
    "question_kind",
]
