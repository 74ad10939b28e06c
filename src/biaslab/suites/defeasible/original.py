"""Conversations in the original DeReLab dataset layout, relabelled by our resolver.

The original benchmark (reference notes: ``derelab.md``, sections 1 and 2d-2e) ships one JSON file
per topology and difficulty: ``{"metadata": …, "samples": [{"id", "edge_sentences",
"conversations": [{"id", "topology", "turns": [...]}]}]}``. Turns alternate ``user`` /
``assistant``; an assistant turn has no content but carries ``ground_truth``, ``task_type``
(``initial_answer`` | ``update_answer`` | ``effect_of_update``) and, on update answers, ``effect``.

:func:`import_conversations` reads such a file as it comes and, per conversation:

1. reads every sentence of the user turns back into our statements
   (:mod:`~biaslab.suites.defeasible.conversation`) with the original's templates: default rules
   "Objects that P generally Q.", facts "X Q." / "X is not Q.", exceptions "X is an exception to
   the rule that V objects Q.", source reports "S reports: …" and "S is more/less reliable than T.",
   and for the inheritance topologies "C is a kind of D." and "Cs Q.";
2. replays them through the same :class:`~biaslab.suites.defeasible.conversation.Premises` and
   labelling as our generator (:func:`~biaslab.suites.defeasible.labelling.label_plan`), so every
   gold is our skeptical resolver's, with the same effect, distance and path facts;
3. writes our items with the file's wording kept (each question gets our one-line answer
   format appended, so replies are read like any other run's), the file's own gold beside ours in
   ``turn.meta["original"]`` with the reason when they differ.

A sentence it cannot read is never guessed: the whole conversation is skipped (its later golds
would depend on it) and listed with the sentence and why. Predicates are matched across their
singular and plural wording by the first word's inflection only ("is"/"are", "has"/"have",
"lives"/"live"; the original's ungrammatical "does not lives" reads as the negation of
"lives"); two wordings that differ otherwise are two properties, which the disagreement table
then shows rather than hides.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biaslab.answers import format_instruction
from biaslab.errors import BiaslabError
from biaslab.schema import Item, Turn
from biaslab.suites.defeasible.config import Config, Topology
from biaslab.suites.defeasible.conversation import (
    Claim,
    ClassProperty,
    ExceptionFact,
    Fact,
    Hypothesis,
    Implication,
    KindOf,
    Reliability,
    Section,
    Statement,
    Update,
)
from biaslab.suites.defeasible.generate import structure_meta
from biaslab.suites.defeasible.generate import turn_meta as generated_turn_meta
from biaslab.suites.defeasible.labelling import Labelled, Plan, label_plan, on_path
from biaslab.suites.defeasible.lexicon import Domain
from biaslab.suites.defeasible.network import Network, NetworkError
from biaslab.suites.defeasible.render import EFFECT_LABELS, ENTAILMENT_LABELS, SYSTEM_PROMPTS

SUITE = "defeasible"
#: the original's topology names (its files and its ``topology`` field) -> ours
TOPOLOGY_NAMES: Mapping[str, Topology] = {
    "default": "default",
    "default_reasoning": "default",
    "linear": "linear",
    "linear_inheritance": "linear",
    "tree": "tree",
    "tree_inheritance": "tree",
}
TASK_KINDS = {
    "initial_answer": "initial",
    "hypothesis_change": "initial",
    "update_answer": "entailment",
    "effect_of_update": "effect",
}
#: the original's two effect vocabularies (main datasets vs reseeding files) -> ours
EFFECTS = {
    "strengthen": "strengthening",
    "strengthening": "strengthening",
    "weaken": "weakening",
    "weakening": "weakening",
    "no effect": "no effect",
    "no_effect": "no effect",
    "none": "no effect",
}
ANSWERS = {"yes": "yes", "no": "no", "unknown": "unknown", "true": "yes", "false": "no"}
#: the domain our labelling wants for rendering; imported items keep the file's wording
_DOMAIN = Domain(
    name="original", noun="object", plural_noun="objects", attributes=(), real_nouns=()
)


class Unreadable(Exception):
    """A sentence or turn the importer will not guess about."""


# ------------------------------------------------------------------------------------ predicates

_SIBILANT_ES = ("sses", "shes", "ches", "xes", "zes", "oes")


def _lemma(verb: str) -> str:
    """The plural (base) form of a predicate's first word: "lives" -> "live", "possesses" ->
    "possess", "is"/"are" -> "be", "has"/"have" -> "have". Only the first word inflects between
    the original's singular and plural templates."""
    if verb in ("is", "are"):
        return "be"
    if verb in ("has", "have"):
        return "have"
    if verb.endswith(_SIBILANT_ES):
        return verb[:-2]
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith("s") and not verb.endswith("ss") and len(verb) > 3:
        return verb[:-1]
    return verb


_NEGATIONS = (
    (("is", "not"), "be"),
    (("are", "not"), "be"),
    (("does", "not", "have"), "have"),
    (("do", "not", "have"), "have"),
    (("cannot",), "can"),
    (("can", "not"), "can"),
)


#: words that would change what a predicate means if read as part of a property's name: a
#: negation, quantifier, hedge or condition the templates never contain
GUARDED = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nothing",
        "neither",
        "nor",
        "only",
        "unless",
        "except",
        "if",
        "although",
        "sometimes",
        "maybe",
        "perhaps",
        "usually",
        "often",
        "rarely",
        "seldom",
        "might",
        "may",
        "could",
        "should",
        "would",
        "probably",
        "possibly",
        "generally",
    ]
)


def predicate(phrase: str) -> tuple[str, bool]:
    """(property node, positive) of a predicate phrase in either number, negated or not."""
    words = phrase.strip().rstrip(".").lower().split()
    if not words:
        raise Unreadable("an empty predicate")
    key, positive = " ".join([_lemma(words[0]), *words[1:]]), True
    for prefix, head in _NEGATIONS:
        if tuple(words[: len(prefix)]) == prefix and len(words) > len(prefix):
            key, positive = " ".join([head, *words[len(prefix) :]]), False
            break
    else:
        if words[:2] in (["does", "not"], ["do", "not"]) and len(words) > 2:
            key, positive = " ".join([_lemma(words[2]), *words[3:]]), False
    stray = [word for word in key.split() if word.strip(",;:") in GUARDED]
    if stray or key.split()[0] in ("does", "do"):
        word = stray[0] if stray else key.split()[0]
        raise Unreadable(f"the word {word!r} in {phrase!r} is not part of any template")
    return key, positive


# ------------------------------------------------------------------------------------ sentences

_RULE = re.compile(r"^objects that (?P<a>.+?) generally (?P<b>.+?)\.?$", re.IGNORECASE)
_VALUE_RULE = re.compile(
    r"^objects with property (?P<value>.+?) generally (?P<b>.+?)\.?$", re.IGNORECASE
)
_EXCEPTION = re.compile(
    r"^(?P<e>.+?) is an exception to the rule that (?P<value>.+?) objects (?P<b>.+?)\.?$",
    re.IGNORECASE,
)
_REPORT = re.compile(r"^(?P<source>[^:]+?) reports: (?P<content>.+)$")
_MORE = re.compile(r"^(?P<a>.+?) is more reliable than (?P<b>.+?)\.?$")
_LESS = re.compile(r"^(?P<a>.+?) is less reliable than (?P<b>.+?)\.?$")
_KIND = re.compile(r"^(?P<child>.+?) is (?:also )?a kind of (?P<parent>.+?)\.?$", re.IGNORECASE)
_ABOUT = re.compile(r"about (?P<subject>[^,?]+?)\s*[,?]")
_ARTICLE = re.compile(r"^(?:an?|the) ", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def sentences(text: str) -> list[str]:
    """A block of the original's prose as sentences (each ends with a full stop)."""
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


@dataclass
class Names:
    """Who and what a conversation talks about: objects, classes and sources, matched
    case-insensitively and written as first seen; predicates by their node (see
    :func:`predicate`)."""

    known: dict[str, str] = field(default_factory=dict)  # lower -> as written
    classes: set[str] = field(default_factory=set)
    predicates: list[str] = field(default_factory=list)

    def add(self, name: str, *, is_class: bool = False) -> str:
        name = _ARTICLE.sub("", name.strip())
        canonical = self.known.setdefault(name.lower(), name)
        if is_class:
            self.classes.add(canonical)
        return canonical

    def node(self, phrase: str) -> tuple[str, bool]:
        key, positive = predicate(phrase)
        if key not in self.predicates:
            self.predicates.append(key)
        return key, positive

    def subject_and_rest(self, sentence: str) -> tuple[str, str]:
        """Split "X predicate." at the end of the longest known name (or a class's plural),
        else after a single capitalised word (the original's objects are one-word names)."""
        body = _ARTICLE.sub("", sentence.strip().rstrip("."))
        low = body.lower()
        for lower in sorted(self.known, key=len, reverse=True):
            for ending in ("", "s", "es"):
                if low.startswith(lower + ending + " "):
                    rest = body[len(lower) + len(ending) + 1 :]
                    if rest.lower().startswith(("and ", "or ")):
                        raise Unreadable(f"a sentence about two subjects: {sentence!r}")
                    return self.known[lower], rest
        first, _, rest = body.partition(" ")
        if rest.lower().startswith(("and ", "or ")):
            raise Unreadable(f"a sentence about two subjects: {sentence!r}")
        if rest and first[:1].isupper() and first.isalpha():
            return self.add(first), rest
        raise Unreadable(f"cannot tell the subject of {sentence!r}")

    def by_value(self, value: str) -> str:
        """The one property named by a value alone ("objects with property red")."""
        words = value.lower().split()
        found = [
            key
            for key in self.predicates
            if any(key.split()[i : i + len(words)] == words for i in range(len(key.split())))
        ]
        if len(found) != 1:
            why = "no" if not found else f"{len(found)}"
            raise Unreadable(f"{why} stated property matches the value {value!r}")
        return found[0]


def read_sentence(sentence: str, names: Names, inheritance: bool) -> Statement:
    """One of the original's sentences as a statement, or :class:`Unreadable`."""
    text = " ".join(sentence.split())
    if match := _REPORT.match(text):
        source = names.add(match["source"])
        content = read_sentence(match["content"], names, inheritance)
        if not isinstance(content, Fact | Implication):
            raise Unreadable(f"a report of something other than a fact or rule: {sentence!r}")
        return Claim(source, content)
    if match := _MORE.match(text):
        return Reliability(names.add(match["a"]), names.add(match["b"]))
    if match := _LESS.match(text):
        return Reliability(names.add(match["b"]), names.add(match["a"]), worded_less=True)
    if match := _VALUE_RULE.match(text):
        dst, positive = names.node(match["b"])
        return Implication(names.by_value(match["value"]), dst, positive)
    if match := _RULE.match(text):
        src, src_positive = names.node(match["a"])
        if not src_positive:
            raise Unreadable(f"a rule about objects that lack a property: {sentence!r}")
        dst, positive = names.node(match["b"])
        return Implication(src, dst, positive)
    if match := _EXCEPTION.match(text):
        dst, positive = names.node(match["b"])
        try:
            src = names.by_value(match["value"])
        except Unreadable:
            src = match["value"].lower()  # the rule's antecedent never enters the network
        return ExceptionFact(names.add(match["e"]), Implication(src, dst, positive))
    if match := _KIND.match(text):
        child = names.add(match["child"], is_class=True)
        return KindOf(child, names.add(match["parent"], is_class=True))
    subject, rest = names.subject_and_rest(text)
    prop, positive = names.node(rest)
    if inheritance:
        return ClassProperty(subject, prop, positive)
    return Fact(subject, prop, positive)


# ------------------------------------------------------------------------------------ turns


@dataclass(frozen=True)
class Question:
    """One assistant turn and the user text that asked it."""

    text: str
    kind: str  # initial | entailment | effect
    gold: str
    user: Mapping[str, Any]


@dataclass(frozen=True)
class Message:
    """What one question's user text reveals."""

    opening: bool = False
    pretext: tuple[str, ...] = ()
    hypothesis: str | None = None
    update: str | None = None


def _field(turn: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in turn:
            return turn[name]
    return None


def questions(turns: Sequence[Any]) -> list[Question]:
    """The conversation's questions: each assistant turn with the user text before it."""
    found: list[Question] = []
    pending: list[str] = []
    last_user: Mapping[str, Any] = {}
    for number, turn in enumerate(turns):
        if not isinstance(turn, Mapping):
            raise Unreadable(f"turn {number} is not an object")
        role = str(_field(turn, "role", "speaker") or "").lower()
        if role == "user":
            content = _field(turn, "content", "text")
            if not isinstance(content, str):
                raise Unreadable(f"user turn {number} has no text")
            pending.append(content)
            last_user = turn
        elif role == "assistant":
            task = str(_field(turn, "task_type") or "")
            if task not in TASK_KINDS:
                raise Unreadable(f"assistant turn {number} has task_type {task or 'none'!r}")
            kind = TASK_KINDS[task]
            raw = _field(turn, "effect") if kind == "effect" else None
            raw = raw if raw is not None else _field(turn, "ground_truth", "answer")
            gold = (EFFECTS if kind == "effect" else ANSWERS).get(str(raw).strip().lower())
            if gold is None or not pending:
                why = "no question before it" if not pending else f"gold {raw!r}"
                raise Unreadable(f"assistant turn {number}: {why}")
            found.append(Question("\n\n".join(pending), kind, gold, last_user))
            pending = []
        else:
            raise Unreadable(f"turn {number} has role {role or 'none'!r}")
    return found


def read_message(text: str) -> Message:
    """Split a user message into pretext, hypothesis and update (questions carry nothing)."""
    body = re.split(r"\bQuestion:", text, maxsplit=1)[0]
    if "Pretext:" in body:
        _, _, after = body.partition("Pretext:")
        pretext, _, hypothesis = after.partition("Hypothesis:")
        if not hypothesis.strip():
            raise Unreadable("an opening without a hypothesis")
        return Message(True, tuple(sentences(pretext)), hypothesis.strip())
    if "New hypothesis:" in body:
        return Message(True, (), body.partition("New hypothesis:")[2].strip())
    if "Information update:" in body:
        update = body.partition("Information update:")[2].strip()
        return Message(update=" ".join(update.split()))
    if body.strip():
        raise Unreadable(f"a message that is neither an opening nor an update: {body.strip()!r}")
    return Message()


# ------------------------------------------------------------------------------------ replay


@dataclass
class _Draft:
    """A conversation read back: its sections and, per question, which labelled event it asks
    about (``events`` index)."""

    sections: list[Section] = field(default_factory=list)
    asks: list[int] = field(default_factory=list)
    sentences: dict[int, str] = field(default_factory=dict)  # event -> the file's sentence
    structure: set[tuple[str, str]] = field(default_factory=set)


def _update_type(
    statement: Statement, subject: str, chain: set[str], rules: Mapping[str, bool]
) -> str:
    """Our update kinds, from what the statement says (the file's own kind is kept in meta): a
    fact about the subject "confirms" when it has the sign the chain's rule into that property
    gives, else it is an "exception"."""
    match statement:
        case Claim(_, Fact()):
            return "source-claim"
        case Claim(_, Implication(positive=positive)):
            return "bypass" if positive else "source-rule"
        case ExceptionFact(entity):
            return "exception" if entity == subject else "other-object"
        case KindOf():
            return "cross-link"
        case ClassProperty(prop=prop):
            return "class-exception" if prop in chain else "distractor"
        case Fact(entity, prop, positive):
            if prop not in chain:
                return "distractor"
            if entity != subject:
                return "other-object"
            return "confirm" if positive == rules.get(prop, True) else "exception"
    return "other"


def draft(asked: Sequence[Question], inheritance: bool) -> _Draft:
    """Read every message, then group the statements into sections of updates."""
    names = Names()
    for question in asked:  # names first: a later sentence may name a class before its "kind of"
        for subject in _ABOUT.findall(question.text):
            names.add(subject)
        for line in sentences(question.text):
            if match := _KIND.match(line):
                names.add(match["child"], is_class=True)
                names.add(match["parent"], is_class=True)
    messages = [read_message(q.text) for q in asked]
    events = -1
    result = _Draft()
    section_updates: list[Update] = []
    section_head: tuple[Hypothesis, tuple[Statement, ...]] | None = None
    chain: set[str] = set()
    rules: dict[str, bool] = {}  # property -> the sign of the stated rule into it

    def close() -> None:
        if section_head is not None:
            hypothesis, pretext = section_head
            result.sections.append(
                Section(len(result.sections), hypothesis, pretext, tuple(section_updates))
            )

    for question, message in zip(asked, messages, strict=True):
        if message.opening:
            close()
            section_updates = []
            ordered = sorted(message.pretext, key=lambda s: _KIND.match(s) is None)
            pretext = tuple(read_sentence(s, names, inheritance) for s in ordered)
            assert message.hypothesis is not None
            subject, rest = names.subject_and_rest(message.hypothesis)
            prop, positive = names.node(rest)
            if not positive:
                raise Unreadable(f"a negative hypothesis: {message.hypothesis!r}")
            section_head = (Hypothesis(subject, prop), pretext)
            chain |= _chain_nodes(pretext, prop)
            rules.update({s.dst: s.positive for s in pretext if isinstance(s, Implication)})
            result.structure |= _structure(pretext, chain)
            events += 1
        elif message.update is not None:
            if section_head is None:
                raise Unreadable("an update before any hypothesis")
            statement = read_sentence(message.update, names, inheritance)
            kind = _update_type(statement, section_head[0].subject, chain, rules)
            serial = question.user.get("serial")
            section_updates.append(
                Update(statement, kind, serial if isinstance(serial, int) else None)
            )
            events += 1
            result.sentences[events] = message.update
        elif events < 0:
            raise Unreadable("a question before any information")
        result.asks.append(events)
    close()
    return result


def _chain_nodes(pretext: Iterable[Statement], prop: str) -> set[str]:
    """Properties the conversation reasons along: every rule's ends and the hypothesis."""
    nodes = {prop}
    for statement in pretext:
        if isinstance(statement, Implication):
            nodes |= {statement.src, statement.dst}
        if isinstance(statement, ClassProperty):
            nodes.add(statement.prop)
    return nodes


def _structure(pretext: Iterable[Statement], chain: set[str]) -> set[tuple[str, str]]:
    """The links ``distance`` is measured on: rules, kinds and instantiations (as generated)."""
    edges: set[tuple[str, str]] = set()
    for statement in pretext:
        if isinstance(statement, Implication | KindOf):
            link = (
                (statement.src, statement.dst)
                if isinstance(statement, Implication)
                else (statement.child, statement.parent)
            )
            edges.add(link)
        elif isinstance(statement, Fact) and statement.prop in chain:
            edges.add((statement.entity, statement.prop))
    return edges


# ------------------------------------------------------------------------------------ disagreement


def disagreement(
    kind: str, theirs: str, ours: str, event: Labelled, network: Network, hypothesis: Hypothesis
) -> str:
    """Why the file's gold differs from ours, in one line."""
    if kind == "effect":
        if event.gold_before is not None and event.effect == ours:
            return (
                "effect defined differently: ours is the change of the answer (yes > unknown > "
                "no); the original's depends on the topology and reveal mode"
            )
        return "effect follows from an entailment that differs"
    if (
        theirs == "no"
        and ours == "unknown"
        and _broken_chain(network, hypothesis.subject, hypothesis.prop)
    ):
        return (
            "a chain broken by a negative link: the original answers no beyond the break "
            "(denying the antecedent), skeptical inheritance unknown"
        )
    if ours == "unknown":
        return "a conflict neither side of which is preempted: skeptical inheritance withholds"
    if theirs == "unknown":
        return "one side of the conflict is preempted (more specific or more reliable)"
    return "opposite conclusions: specificity or source priority weighed differently"


def _broken_chain(network: Network, subject: str, prop: str) -> bool:
    """Whether a negative link on a route from the subject ends short of the property ("x is not
    B; B's are generally C": C is unknown, not denied)."""
    return any(
        not link.positive and link.dst != prop and on_path(network, subject, prop, link)
        for link in network.links
    )


# ------------------------------------------------------------------------------------ items


@dataclass(frozen=True)
class Skipped:
    """A conversation the importer did not turn into an item, and why (``position``: its place
    among the file's conversations, from 1)."""

    position: int
    conversation: str
    reason: str


@dataclass
class Imported:
    items: list[Item]
    skipped: list[Skipped]
    read: int
    total: int


Conversation = tuple[str, Topology, list[Any], Mapping[str, Any]]


def load_file(path: Path) -> list[Conversation]:
    """(conversation id, topology, turns, meta) of every conversation in the file, in order."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BiaslabError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise BiaslabError(f"{path}: not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise BiaslabError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("samples"), list):
        raise BiaslabError(
            f'{path}: not a DeReLab dataset file (expected {{"metadata": …, "samples": '
            '[{"conversations": [{"turns": […]}]}]}})'
        )
    given = data.get("metadata")
    metadata: dict[str, Any] = given if isinstance(given, dict) else {}
    found: list[Conversation] = []
    for s_number, sample in enumerate(data["samples"]):
        sample = sample if isinstance(sample, dict) else {}
        conversations = sample.get("conversations")
        for c_number, conversation in enumerate(conversations or [None]):
            cid = f"{sample.get('id', s_number)}/"
            if not isinstance(conversation, dict):
                found.append((cid + str(c_number), _topology(None, path), [], {"broken": True}))
                continue
            cid += str(conversation.get("id", c_number))
            topology = _topology(conversation.get("topology"), path)
            own = conversation.get("metadata")
            meta = {
                **metadata,
                **(own if isinstance(own, dict) else {}),
                "sample": sample.get("id"),
            }
            turns = conversation.get("turns")
            found.append((cid, topology, turns if isinstance(turns, list) else [], meta))
    return found


def _topology(name: Any, path: Path) -> Topology:
    if isinstance(name, str) and name in TOPOLOGY_NAMES:
        return TOPOLOGY_NAMES[name]
    stem = path.name.lower()
    for key in sorted(TOPOLOGY_NAMES, key=len, reverse=True):
        if key in stem:
            return TOPOLOGY_NAMES[key]
    return "default"


def import_conversations(path: Path, config: Config, n: int) -> Imported:
    """Items for the first ``n`` conversations of ``config``'s topologies in the file."""
    conversations = load_file(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    wanted = [c for c in conversations if c[1] in config.topologies()]
    items: list[Item] = []
    skipped: list[Skipped] = []
    for number, (cid, topology, turns, meta) in enumerate(wanted[:n]):
        try:
            if meta.get("broken"):
                raise Unreadable("the conversation is not an object")
            item = conversation_item(cid, topology, turns, meta, config, len(items))
        except Unreadable as exc:
            skipped.append(Skipped(number + 1, cid, str(exc)))
            continue
        except NetworkError as exc:
            skipped.append(Skipped(number + 1, cid, f"the statements do not form a network: {exc}"))
            continue
        item.meta["source"] = {"file": path.name, "sha256": digest, "position": number}
        items.append(item)
    return Imported(items, skipped, min(n, len(wanted)), len(wanted))


def conversation_item(
    cid: str,
    topology: Topology,
    turns: Sequence[Any],
    meta: Mapping[str, Any],
    config: Config,
    index: int,
) -> Item:
    asked = questions(turns)
    if not asked:
        raise Unreadable("no questions")
    drafted = draft(asked, inheritance=topology != "default")
    plan = Plan(topology, _DOMAIN, drafted.sections, structure=set(drafted.structure))
    labelled, network = label_plan(plan)
    out: list[Turn] = []
    opened: dict[int, int] = {}  # section -> its opening event
    for number, event in enumerate(labelled):
        opened.setdefault(event.section, number)
    asked_about: set[int] = set()
    for question, event_number in zip(asked, drafted.asks, strict=True):
        event = labelled[event_number]
        section = plan.sections[event.section]
        ours = event.effect if question.kind == "effect" else event.gold
        if ours is None:
            raise Unreadable("an effect question before any update")
        labels = EFFECT_LABELS if question.kind == "effect" else ENTAILMENT_LABELS
        first = event_number not in asked_about
        asked_about.add(event_number)
        turn_meta = generated_turn_meta(event, drafted.sentences.get(event_number))
        if not first:  # the update's links belong to the first question asked about it
            turn_meta.update(added=[], removed=[])
        if event.update is not None:
            turn_meta["update_index"] = event_number - opened[event.section] - 1
        turn_meta["reveal"] = str(question.user.get("reveal_mode") or "serial")
        agrees = question.gold == ours
        turn_meta["original"] = {
            "gold": question.gold,
            "agrees": agrees,
            "reason": None
            if agrees
            else disagreement(
                question.kind, question.gold, ours, event, network, section.hypothesis
            ),
            "update_type": question.user.get("update_type"),
        }
        prompt = f"{question.text.rstrip()}\n{format_instruction(labels)}"
        out.append(
            Turn(
                index=len(out),
                prompt=prompt,
                kind=question.kind,
                labels=labels,
                gold=ours,
                meta=turn_meta,
            )
        )
    return Item(
        suite=SUITE,
        id=f"{SUITE}-{topology}-original-{index:04d}",
        system=SYSTEM_PROMPTS[config.instructions] or None,
        turns=tuple(out),
        meta=_item_meta(cid, topology, plan, network, config, meta, index),
    )


def _item_meta(
    cid: str,
    topology: Topology,
    plan: Plan,
    network: Network,
    config: Config,
    meta: Mapping[str, Any],
    index: int,
) -> dict[str, Any]:
    difficulty = meta.get("difficulty")
    return {
        "topology": topology,
        "difficulty": difficulty if isinstance(difficulty, str) else "original",
        "shape": None,
        "reveal": "original",
        "instructions": config.instructions,
        "weakening": "original",
        "question_order": "reversed" if meta.get("reversed_questions") else "standard",
        "entities": "original",
        "effect_questions": None,
        "domain": "original",
        "seed": None,
        "index": index,
        "original_id": cid,
        **structure_meta(plan, network),
    }


def disagreements(items: Iterable[Item]) -> list[dict[str, Any]]:
    """Every turn whose file gold differs from ours: item, turn, kind, both golds, reason."""
    rows = []
    for item in items:
        for turn in item.turns:
            original = turn.meta.get("original")
            if isinstance(original, dict) and not original.get("agrees", True):
                rows.append(
                    {
                        "item": item.id,
                        "conversation": item.meta.get("original_id"),
                        "turn": turn.index,
                        "kind": turn.kind,
                        "statement": turn.meta.get("statement"),
                        "original": original.get("gold"),
                        "ours": turn.gold,
                        "reason": original.get("reason"),
                    }
                )
    return rows
