"""Reading a model's reply: the answer line, the strict grammar, "nothing follows", the lenient
reading, in that order.

The paper had GPT-4.1-mini translate replies; its post-processing corrupted names and it turned
refusals into "nothing follows". Here the sentence after the last ``Answer:`` line (markdown and
lead-ins such as "we can conclude that" removed, cut at the first full stop) is read by
:mod:`biaslab.suites.fallacy.grammar`, also without a trailing remark ("…, but we cannot determine
which"). Only when no claim reads does a sentence saying that nothing follows read as verum; then
the *lenient* reading, flagged as such, takes the conjunction of every (object, property, polarity)
it can pair up in a sentence without "or"/"if". Everything else — refusals, empty replies, replies
without the line, words outside the problem — is unparsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from biaslab.suites.fallacy.grammar import ParseError, read_sentence
from biaslab.suites.fallacy.lexicon import NEGATIONS, Lexicon, tokenize
from biaslab.suites.fallacy.themes import normalise
from biaslab.suites.fallacy.views import Literal, MView, Term

_NOTHING = [
    re.compile(p)
    for p in (
        r"^(so |therefore |thus |hence )?(nothing|none)$",
        r"^(so |therefore |thus |hence )?nothing ((new|definite|further|else|more|certain|specific|"
        r"definitive|conclusive) )*(follows|can be (concluded|inferred|deduced|determined|derived|said)"
        r"|is (entailed|implied)|necessarily follows)",
        r"^no ((definite|definitive|valid|new|certain|further|specific|firm|conclusive) )*conclusion",
        r"(can ?not|can t|unable to) (be )?(conclude|determine|infer|deduce|say|derive|draw)",
        r"not possible to (conclude|determine|infer|deduce|say|derive)",
        r"^(it is )?(undetermined|indeterminate|unknown)$",
    )
]


@dataclass(frozen=True)
class Reading:
    """What an answer says: ``view`` (None when unparsed), how it was read, and the sentence."""

    view: MView | None
    mode: str | None  # strict | lenient | nothing | None
    sentence: str
    error: str | None = None

    @property
    def parsed(self) -> bool:
        return self.view is not None


def says_nothing_follows(sentence: str) -> bool:
    text = normalise(sentence)
    return any(pattern.search(text) for pattern in _NOTHING)


def lenient(sentence: str, lexicon: Lexicon) -> MView | None:
    """The conjunction of every (object, property, polarity) the sentence pairs up, if it has
    no 'or'/'if' and every property has a subject."""
    tokens = tokenize(sentence, lexicon)
    words = {t.value for t in tokens if t.kind == "word"}
    if words & {"or", "if", "either", "neither", "nor", "unless", "otherwise"} or any(
        t.kind == "var" for t in tokens
    ):
        return None
    literals: list[Literal] = []
    subjects: list[str] = []
    negated = False
    previous_kind = ""
    for token in tokens:
        if token.kind == "obj":
            if previous_kind != "obj" and previous_kind != "and-subject":
                subjects = []
            subjects.append(token.value)
            negated = False
            previous_kind = "obj"
        elif token.kind == "prop":
            if not subjects:
                return None
            literals.extend(Literal(token.value, Term(s), not negated) for s in subjects)
            previous_kind = "prop"
        elif token.kind == "word" and token.value in NEGATIONS | {"no", "cannot"}:
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
    r"(?:,\s*but\b|;\s*|\s+\(|\s+-\s+|,\s*though\b|,\s*although\b|,\s*however\b)", re.IGNORECASE
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
    """Read a model's reply: strict grammar, then 'nothing follows', then the lenient reading."""
    sentence = answer_sentence(completion)
    if sentence is None:
        return Reading(None, None, "", "no 'Answer:' line")
    error = ""
    for candidate in _trimmed(sentence):
        try:
            return Reading(read_sentence(candidate, lexicon), "strict", sentence)
        except (ParseError, ValueError) as exc:
            error = error or str(exc)
    if says_nothing_follows(sentence):
        return Reading(MView(stage=frozenset({frozenset()})), "nothing", sentence)
    view = lenient(sentence, lexicon)
    if view is not None:
        return Reading(view, "lenient", sentence)
    return Reading(None, None, sentence, error or "unreadable")


def _trimmed(sentence: str) -> list[str]:
    """The sentence, then the sentence cut before a trailing 'but …' / '; …' / '(…)' remark."""
    candidates = [sentence]
    for match in _TRAILS.finditer(sentence):
        head = sentence[: match.start()].strip()
        if head and head not in candidates:
            candidates.append(head)
    return candidates
