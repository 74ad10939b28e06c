"""Reading a model's reply: the answer line, the strict grammar, "nothing follows", the lenient
reading, in that order.

The paper had GPT-4.1-mini translate replies; its post-processing corrupted names and it turned
refusals into "nothing follows". Here the sentence after the last ``Answer:`` line (markdown and
lead-ins such as "we can conclude that" removed, cut at the first full stop) is read by
:mod:`biaslab.suites.fallacy.grammar`, also without a trailing remark ("…, but we cannot determine
which"). Only when no claim reads does a sentence saying that nothing follows read as verum (a
legitimate answer: logic's and ETR's "nothing follows"). A sentence that says the model cannot tell
("undecided"), refuses, or only says what *might* be ("hedged") is unparsed with that status, never
"nothing follows" and never read leniently. Then the *lenient* reading, flagged as such, takes the
conjunction of every (object, property, polarity) it can pair up in a sentence with no word that
could change its logic ("or", "if", quantifier words, "false", "case" …, or a "not" before an
object). Everything else — empty replies, replies without the line, words outside the problem — is
unparsed.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from biaslab.suites.fallacy.grammar import ParseError, read_sentence
from biaslab.suites.fallacy.lexicon import NEGATIONS, Lexicon, Token, tokenize
from biaslab.suites.fallacy.themes import normalise
from biaslab.suites.fallacy.views import Literal, MView, Term


def _patterns(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


#: "nothing follows": a legitimate answer (ETR's and logic's verum), read only when no claim reads
_NOTHING = _patterns(
    r"^(so |therefore |thus |hence )?(nothing|none)$",
    r"^(so |therefore |thus |hence )?nothing ((new|definite|further|else|more|certain|specific|"
    r"definitive|conclusive) )*(follows|can be (concluded|inferred|deduced|derived)"
    r"|is (entailed|implied)|necessarily follows)",
    r"^no ((definite|definitive|valid|new|certain|further|specific|firm|conclusive) )*conclusion",
    r"(can ?not|can t|unable to|not possible to) (be )?(conclude|infer|deduce|derive|draw) "
    r"(anything|any (definite |valid |further )?conclusion)",
)
#: undecided: the model does not know or cannot tell, which is not a claim that nothing follows
_UNDECIDED = _patterns(
    r"(can ?not|can t|unable to|impossible to|not possible to) (really )?(tell|determine|decide|"
    r"know|say|judge|be sure)",
    r"\b(can ?not|can t) be (determined|decided|known|told|said)",
    r"^(it is )?(undetermined|indeterminate|unknown|unclear|uncertain|undecidable|ambiguous)\b",
    r"\b(not sure|unsure|don t know|do not know|no idea|not certain|hard to say)\b",
    r"\b(insufficient|not enough) information\b",
)
#: a refusal to answer (unparsed, never "nothing follows")
_REFUSAL = _patterns(
    r"\b(i|we) (can ?not|can t|won t|will not|refuse to|am unable to|m unable to|am not able to|"
    r"m not able to|decline to) (help|answer|assist|comply|do (that|this)|provide|respond|solve)",
    r"^(i m |i am )?(sorry|apologies)\b",
    r"\bas an (ai|assistant|language model)\b",
    r"\bi (must |have to )?(decline|refuse)\b",
)
#: words that turn a claim into a possibility: the sentence asserts nothing categorical
HEDGES = frozenset(
    {
        "might", "may", "could", "can", "possibly", "perhaps", "probably", "likely", "unlikely",
        "maybe", "possible", "presumably", "seems", "seem", "appears", "appear", "suggests",
        "plausibly", "conceivably",
    }
)  # fmt: skip
#: words that change what a sentence says in ways the lenient reading cannot see
_LENIENT_BLOCKERS = HEDGES | {
    "or", "if", "either", "neither", "nor", "unless", "otherwise", "false", "untrue", "wrong",
    "incorrect", "case", "impossible", "doubt", "except", "without", "lacks", "lack", "opposite",
    "contrary", "contradiction", "contradicts", "whether", "not-the-case", "not-both",
    "not-either", "none", "nothing", "nobody", "everything", "every", "all", "some", "something",
    "any", "each",
}  # fmt: skip


#: most words outside the problem and the grammar a lenient reading tolerates
LENIENT_UNKNOWN_WORDS = 2
_NEGATING = NEGATIONS | {"no", "cannot"}
_LENIENT_KNOWN = _NEGATING | {"is", "and", "but", "the", "a", "an", "it", "they", "then", "that"}


def _matches(patterns: tuple[re.Pattern[str], ...], text: str) -> bool:
    normal = normalise(text)
    return any(pattern.search(normal) for pattern in patterns)


#: how an answer was read; the first three are parsed (``view`` set), the others unparsed
STATUSES = (
    "strict",  # the grammar read it
    "lenient",  # the conjunction of the (object, property, polarity) triples it pairs up
    "nothing",  # "nothing follows" (verum): a legitimate answer
    "undecided",  # "I can't tell", "cannot be determined", "unknown": no conclusion claimed
    "hedged",  # "might", "could", "possibly": a possibility, not a conclusion
    "refusal",  # "I cannot help with that", "I'm sorry"
    "no_answer",  # no "Answer:" line (or an empty reply)
    "unreadable",  # words outside the problem or the grammar
)


@dataclass(frozen=True)
class Reading:
    """What an answer says: ``view`` (None when unparsed), how it was read, and the sentence."""

    view: MView | None
    status: str  # one of STATUSES
    sentence: str
    error: str | None = None

    @property
    def mode(self) -> str | None:
        """strict | lenient | nothing for a parsed answer, else None."""
        return self.status if self.view is not None else None

    @property
    def parsed(self) -> bool:
        return self.view is not None


def says_nothing_follows(sentence: str) -> bool:
    return _matches(_NOTHING, sentence)


def unparsed_status(sentence: str, lexicon: Lexicon) -> str | None:
    """Why a sentence the grammar cannot read is no conclusion: undecided, a refusal, hedged
    (None: none of these)."""
    if _matches(_UNDECIDED, sentence):
        return "undecided"
    if _matches(_REFUSAL, sentence):
        return "refusal"
    if any(t.kind == "word" and t.value in HEDGES for t in tokenize(sentence, lexicon)):
        return "hedged"
    return None


def lenient(sentence: str, lexicon: Lexicon) -> MView | None:
    """The conjunction of every (object, property, polarity) the sentence pairs up — if a copula
    (or a comma/colon) links each subject to its properties, at most
    :data:`LENIENT_UNKNOWN_WORDS` words are outside the problem and the grammar, and no word
    could change the sentence's logic (see :data:`_LENIENT_BLOCKERS`). Garbage that happens to
    name an object and a property ("blah ace red") is not read."""
    tokens = tokenize(sentence, lexicon)
    words = [t.value for t in tokens if t.kind == "word"]
    if set(words) & _LENIENT_BLOCKERS or any(t.kind == "var" for t in tokens):
        return None
    if sum(w not in _LENIENT_KNOWN for w in words) > LENIENT_UNKNOWN_WORDS:
        return None
    literals: list[Literal] = []
    subjects: list[str] = []
    negated = linked = False
    previous_kind = ""
    for before, token in itertools.pairwise([Token("start", ""), *tokens]):
        if before.kind == "word" and before.value in _NEGATING and token.kind == "obj":
            return None  # "not the ace …": a negation whose scope the pairs cannot show
        if token.kind == "obj":
            if previous_kind not in ("obj", "and-subject"):
                subjects = []
            subjects.append(token.value)
            negated = linked = False
            previous_kind = "obj"
        elif token.kind == "prop":
            if not subjects or not linked:
                return None
            literals.extend(Literal(token.value, Term(s), not negated) for s in subjects)
            previous_kind = "prop"
        elif token.kind == "comma" or (token.kind == "word" and token.value == "is"):
            linked = linked or bool(subjects)
        elif token.kind == "word" and token.value in _NEGATING:
            negated = True
        elif token.kind == "word" and token.value in ("and", "but") and previous_kind == "prop":
            negated = False
            previous_kind = "and"
        elif token.kind == "word" and token.value == "and" and previous_kind == "obj":
            previous_kind = "and-subject"
    if not literals:
        return None
    return MView.build([literals])


_ANSWER_LINE = re.compile(r"^[\W_]*(?:final\s+)?answer[\W_]*?[:：]\s*(.*)$", re.IGNORECASE)
_LEAD_INS = re.compile(
    r"^.*?\b(?:we can (?:now )?conclude|one can conclude|it can be concluded|i conclude|we conclude|"
    r"it follows|the conclusion is|conclusion is|it must be the case)(?: that)?\s*[:,]?\s+",
    re.IGNORECASE,
)
_TRAILS = re.compile(
    r"(?:,\s*but\b(?!\s+not\s+both)|,\s*(?:and\s+|so\s+)?nothing\s+(?:else|more)\b|;\s*|\s+\(|\s+-\s+|,\s*though\b|,\s*although\b|,\s*however\b)",
    re.IGNORECASE,
)


def answer_sentence(completion: str) -> str | None:
    """The sentence after the last 'Answer:' line (markdown and lead-ins removed), or None."""
    lines = completion.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        match = _ANSWER_LINE.match(lines[i].strip())
        if not match:
            continue
        text = match.group(1).strip()
        if not text:
            rest = [line.strip() for line in lines[i + 1 :] if line.strip()]
            text = rest[0] if rest else ""
        text = re.sub(r"[*`\"“”]", "", text).strip()
        if not says_nothing_follows(text):
            text = _LEAD_INS.sub("", text, count=1)
        text = re.split(r"(?<=[^\s.])\.(?:\s|$)", text + " ", maxsplit=1)[0]
        return text.strip().rstrip(".!").strip() or None
    return None


def read_answer(completion: str, lexicon: Lexicon) -> Reading:
    """Read a model's reply: strict grammar, then 'nothing follows', then the reasons it is no
    conclusion (undecided, refusal, hedged), then the lenient reading."""
    sentence = answer_sentence(completion)
    if sentence is None:
        if _matches(_REFUSAL, completion):
            return Reading(None, "refusal", "", "a refusal without an 'Answer:' line")
        return Reading(None, "no_answer", "", "no 'Answer:' line")
    error = ""
    for candidate in _trimmed(sentence):
        try:
            view = read_sentence(candidate, lexicon)
        except (ParseError, ValueError) as exc:
            error = error or str(exc)
            continue
        if _hedging_remark(sentence[len(candidate) :], lexicon):
            return Reading(None, "hedged", sentence, "a claim with a hedging remark")
        return Reading(view, "strict", sentence)
    if says_nothing_follows(sentence):
        return Reading(MView(stage=frozenset({frozenset()})), "nothing", sentence)
    status = unparsed_status(sentence, lexicon)
    if status is not None:
        return Reading(None, status, sentence, f"{status} answer")
    loose = lenient(sentence, lexicon)
    if loose is not None:
        return Reading(loose, "lenient", sentence)
    return Reading(None, "unreadable", sentence, error or "unreadable")


_UNSURE = _patterns(r"\b(not sure|unsure|not certain|uncertain|i think|i guess|i believe)\b")


def _hedging_remark(tail: str, lexicon: Lexicon) -> bool:
    """Whether a trailing remark cut off a claim takes the claim back ("…, but I'm not sure")."""
    if not tail.strip():
        return False
    words = {t.value for t in tokenize(tail, lexicon) if t.kind == "word"}
    return bool(words & HEDGES) or _matches(_UNSURE, tail)


def _trimmed(sentence: str) -> list[str]:
    """The sentence, then the sentence cut before a trailing 'but …' / '; …' / '(…)' remark."""
    candidates = [sentence]
    for match in _TRAILS.finditer(sentence):
        head = sentence[: match.start()].strip()
        if head and head not in candidates:
            candidates.append(head)
    return candidates
