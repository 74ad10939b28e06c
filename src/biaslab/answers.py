"""The constrained answer format shared by every suite, and its robust parser.

Every question ends with one instruction line produced by :func:`format_instruction`; models reply
with a final ``Answer: <label>`` line. Agents read the allowed labels back from that same line, and the
parser maps free text to a label or to ``None`` (unparsed: a recorded outcome, never a crash).

Labels come in three kinds, and replies are read the way models write them:

* **words** ("yes", "no effect"): the word, or a synonym the suite supplies;
* **numbers** ("seven" or "7"): the number as digits or as words ("Answer: 7", "**7** races",
  "The answer is seven."), whole numbers only — "17", "7.5" or "seventy" never read as 7. Numbers
  in a reply are only read when the labels are numbers, so "2 of the 3 options" is never an answer
  to a yes/no question;
* **letters** ("a", "b"): the letter in an option's form — "(b)", "b)", "Option B", "Answer: b", a
  reply that is only "B" — but never an article or a pronoun ("A bank teller", "I think").

What is not guessed at: an answer line that names two different labels ("Answer: 7 or 8",
"Answer: (a) or (b)", "Answer: 6? No, 7.") unless an "=" settles it ("Answer: 5 + 1 + 1 = 7"), and
a letter or number with a negation next to it ("The answer is not (b).", "(a) is less probable",
"I would not pick B"): these are unparsed. A closing "so b" / "therefore b" is the answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_INSTRUCTION_PREFIX = (
    "End your reply with one line of the form 'Answer: <label>', where <label> is one of:"
)
_INSTRUCTION_RE = re.compile(re.escape(_INSTRUCTION_PREFIX) + r" (?P<labels>[^.\n]+)\.")
_ANSWER_RE = re.compile(r"answer(?:\s*[:=]|\s+is\b)(?P<rest>[^\n]*)", re.I)
#: words that turn a mention of an option into its rejection when they stand next to it
_NEGATION_RE = re.compile(
    r"\b(?:not|never|no|nor|wrong|incorrect|false|less|unlikely|cannot|rather)\b|n't\b", re.I
)
_NEGATION_WINDOW = 3  # words on either side of a mention
#: "..., so b" / "therefore (b)." at the end of a line: the conclusion of the line
_CONCLUDING_LETTER_RE = re.compile(
    r"\b(?:so|thus|therefore|hence)\b[,:]?\s+(?:the answer is\s+|it is\s+|it's\s+)?"
    r"(?:option\s+|choice\s+)?\(?(?P<letter>[a-z])\)?[\s*_`\"'.!]*$",
    re.I,
)
_BARE_PUNCTUATION = r"[*_`\"'.!()\[\]]"
_LINE_PUNCTUATION = r"[*_`\"'.!,;:()\[\]]"

_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORD_VALUES = {word: value for value, word in enumerate(_UNITS)} | {
    word: 10 * (i + 2) for i, word in enumerate(_TENS)
}
_NUMBER_RE = re.compile(
    r"(?<![\w.,])(?:(?P<digits>\d+)(?![.,]\d)"
    rf"|(?P<tens>{'|'.join(_TENS)})(?: (?P<unit>{'|'.join(_UNITS[1:10])}))?"
    rf"|(?P<word>{'|'.join(sorted(_UNITS, key=len, reverse=True))}))(?!\w)"
)
_OPTION_PREFIX_RE = re.compile(r"^(?:option|choice) ")


def number_word(value: int) -> str:
    """0–99 in words ("seven", "twenty-one"): how number labels are written."""
    if not 0 <= value < 100:
        raise ValueError(f"number words cover 0-99, got {value}")
    if value < 20:
        return _UNITS[value]
    tens, unit = divmod(value, 10)
    return _TENS[tens - 2] + (f"-{_UNITS[unit]}" if unit else "")


def format_instruction(labels: Sequence[str]) -> str:
    """The instruction line appended to every question."""
    return f"{_INSTRUCTION_PREFIX} {', '.join(labels)}."


def labels_from_prompt(prompt: str) -> tuple[str, ...] | None:
    """The label set a question allows, read back from its instruction line."""
    found = _INSTRUCTION_RE.findall(prompt)
    if not found:
        return None
    return tuple(label.strip() for label in found[-1].split(","))


def _normalise(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.strip().lower())


def _numbers(text: str) -> list[tuple[int, int]]:
    """(start, value) of every whole number in normalised ``text``, as digits or words (0–99)."""
    found = []
    for match in _NUMBER_RE.finditer(text):
        if match["digits"] is not None:
            value = int(match["digits"])
        elif match["tens"] is not None:
            value = _WORD_VALUES[match["tens"]] + (
                _WORD_VALUES[match["unit"]] if match["unit"] else 0
            )
        else:
            value = _WORD_VALUES[match["word"]]
        found.append((match.start(), value))
    return found


def _whole_number(text: str) -> int | None:
    """The value of normalised ``text`` if it is exactly one number."""
    match = _NUMBER_RE.fullmatch(text)
    return _numbers(text)[0][1] if match else None


def _letter(text: str) -> str:
    return _OPTION_PREFIX_RE.sub("", text)


@dataclass(frozen=True)
class _Vocabulary:
    """What a reply may say for each label, by kind of label."""

    words: Mapping[str, str]  # normalised word label or synonym -> label
    numbers: Mapping[int, str]  # value -> numeric label
    letters: Mapping[str, str]  # lower-case letter -> single-letter label

    @classmethod
    def of(cls, labels: Sequence[str], synonyms: Mapping[str, str] | None) -> _Vocabulary:
        words: dict[str, str] = {}
        numbers: dict[int, str] = {}
        letters: dict[str, str] = {}
        for label in labels:
            key = _normalise(label)
            value = _whole_number(key)
            if re.fullmatch(r"[a-z]", key):
                letters.setdefault(key, label)
            elif value is not None:
                numbers.setdefault(value, label)
            else:
                words.setdefault(key, label)
        for word, label in (synonyms or {}).items():
            if label in labels:  # punctuation as a line's ("doesn't" is read as "doesn t")
                words.setdefault(_normalise(re.sub(_LINE_PUNCTUATION, " ", word)), label)
        return cls(words, numbers, letters)

    def exact(self, candidate: str) -> str | None:
        """The label a whole reply is, if it is nothing but one label."""
        value = _whole_number(candidate)
        if value is not None:
            return self.numbers.get(value)
        return self.words.get(candidate) or self.letters.get(_letter(candidate))

    def mentions(self, line: str, *, answer_line: bool) -> dict[str, list[_Mention]]:
        """Every place ``line`` names a label: words, numbers, and letters in an option's form. On
        an answer line (the text after "Answer:") only numbers that are labels count, and a bare
        letter counts at its start ("Answer: b."); on a line of prose a number counts only if it
        is the line's only number ("25 horses and 5 lanes" names no answer)."""
        found: dict[str, list[_Mention]] = {}

        def add(label: str, text: str, start: int, end: int) -> None:
            found.setdefault(label, []).append(_Mention(text[:start], text[end:]))

        words = _normalise(re.sub(_LINE_PUNCTUATION, " ", line))
        for key, label in self.words.items():
            for match in re.finditer(rf"\b{re.escape(key)}\b", words):
                add(label, words, match.start(), match.end())
        numbers = _normalise(line)
        spans = [m for m in _NUMBER_RE.finditer(numbers)]
        values = [value for _, value in _numbers(numbers)]
        if answer_line or len(set(values)) == 1:
            for match, value in zip(spans, values, strict=True):
                if value in self.numbers:
                    add(self.numbers[value], numbers, match.start(), match.end())
        for key, label in self.letters.items():
            for match in _letter_regex(key, answer_line).finditer(line):
                add(label, line, match.start(), match.end())
        return found

    def answer_in(self, line: str, *, answer_line: bool) -> str | _Undecided | None:
        """The one label a line gives; ``AMBIGUOUS`` when it names several or negates the one it
        names; ``None`` when it names none."""
        if answer_line and "=" in line:  # "5 + 1 + 1 = 7": what follows the last "=" decides
            settled = self.answer_in(line.rsplit("=", 1)[1], answer_line=True)
            if isinstance(settled, str):
                return settled
        if not answer_line:
            concluding = _CONCLUDING_LETTER_RE.search(line)
            if concluding and concluding["letter"].lower() in self.letters:
                return self.letters[concluding["letter"].lower()]
        named = self.mentions(line, answer_line=answer_line)
        if not named:
            return None
        if len(named) > 1:
            return AMBIGUOUS
        ((label, places),) = named.items()
        if label not in self.words.values() and any(place.negated for place in places):
            return AMBIGUOUS  # "not (b)", "(a) is less probable": not an answer either way
        return label


@dataclass(frozen=True)
class _Mention:
    """The text before and after one mention of a label on a line."""

    before: str
    after: str

    @property
    def negated(self) -> bool:
        before = " ".join(re.findall(r"[\w']+", self.before)[-_NEGATION_WINDOW:])
        after = " ".join(re.findall(r"[\w']+", self.after)[:_NEGATION_WINDOW])
        return bool(_NEGATION_RE.search(before) or _NEGATION_RE.search(after))


class _Undecided:
    """A line that names several labels, or negates the one it names."""


AMBIGUOUS = _Undecided()


def _letter_regex(key: str, answer_line: bool) -> re.Pattern[str]:
    """Where letter ``key`` is an option: "(b)", "b)", "option b", a capital "B" before
    punctuation or the end, and on an answer line a bare "b" at its start."""
    forms = [
        rf"\(\s*{key}\s*\)",
        rf"(?<![\w(]){key}\)",
        rf"\b(?:option|choice)\s+{key}\b",
    ]
    if answer_line:
        forms.append(rf"^[\s*_`\"'\[]*{key}(?=[\s*_`\"'\]]*(?:$|[.,;:!?)]))")
    pattern = re.compile("|".join(forms), re.I)
    capital = rf"(?<![\w'(]){key.upper()}(?=\s*(?:$|[.,;:!?)]))"
    return re.compile(f"{pattern.pattern}|(?-i:{capital})", re.I)


def parse_answer(
    text: str, labels: Sequence[str], synonyms: Mapping[str, str] | None = None
) -> str | None:
    """Map a reply to one of ``labels`` (or a synonym's label); ``None`` when it cannot be told.

    Priority: the last ``Answer: X`` (or "the answer is X") that names a label; else a reply that
    is only a label; else the last line if it names exactly one label. An answer line or a last
    line that names several labels, or negates the one it names, is not guessed at.
    """
    vocabulary = _Vocabulary.of(labels, synonyms)
    for match in reversed(list(_ANSWER_RE.finditer(text))):
        found = vocabulary.answer_in(match.group("rest"), answer_line=True)
        if found is AMBIGUOUS:
            return None
        if isinstance(found, str):
            return found
    bare = vocabulary.exact(_normalise(re.sub(_BARE_PUNCTUATION, " ", text)))
    if bare is not None:
        return bare
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if lines:
        found = vocabulary.answer_in(lines[-1], answer_line=False)
        return found if isinstance(found, str) else None
    return None


def label_probabilities(
    token_alternatives: Sequence[Mapping[str, float]], labels: Sequence[str]
) -> dict[str, float] | None:
    """Label distribution from the top-logprobs of the answer token (renormalised over the labels).

    ``token_alternatives`` is one mapping (token text -> logprob) per generated token. The answer
    token is the first token after the last "Answer:" that names a label (markup, brackets and
    "Option" may stand between them); each position is read as its most probable token to find
    "Answer:", whose tokens are near-certain whatever the sampling. Without an "Answer:" the
    answer token is the last position that names a label — except for letter labels, whose
    article "a" can sit at any position of prose, where only a reply that is nothing but the
    option ("(b)") is read. Sub-word tokens count ("str" for "strengthening"), and so do digits
    for number labels ("7" for "seven"); labels the provider did not return get zero. ``None``
    when no answer token is found.
    """
    heads = {label: _normalise(label).split(" ")[0] for label in labels}
    vocabulary = _Vocabulary.of(labels, None)
    masses = [
        _label_mass(alternatives, heads, vocabulary.numbers) for alternatives in token_alternatives
    ]
    tops = [
        max(alternatives, key=alternatives.__getitem__, default="")
        for alternatives in token_alternatives
    ]
    anchor = _after_last_answer_marker(tops)
    if anchor is not None:
        for index in range(anchor, min(anchor + _ANSWER_TOKEN_SCAN, len(masses))):
            found = masses[index]
            if found is not None:
                return _normalised(found)
            if _token_word(tops[index]) not in _FILLER_WORDS:
                return None
        return None
    if (
        vocabulary.letters
        and vocabulary.exact(_normalise(re.sub(_BARE_PUNCTUATION, " ", "".join(tops)))) is None
    ):
        return None
    candidates = [found for found in masses if found is not None]
    if not candidates:
        return None
    return _normalised(candidates[0] if vocabulary.letters else candidates[-1])


_ANSWER_MARKER_RE = re.compile(r"answer(?:\s*[:=]|\s+is\b)", re.I)
_ANSWER_TOKEN_SCAN = 6  # tokens after "Answer:" in which the label must start
#: what may stand between "Answer:" and the label ("**", " (", "Option", ...), after _token_word
_FILLER_WORDS = frozenset({"", "option", "choice", "the"})


def _after_last_answer_marker(tokens: Sequence[str]) -> int | None:
    """The position holding the first character after the last "Answer:" of the joined tokens."""
    joined = "".join(tokens)
    markers = list(_ANSWER_MARKER_RE.finditer(joined))
    if not markers:
        return None
    end, start = markers[-1].end(), 0
    for index, token in enumerate(tokens):
        if start <= end < start + len(token):
            return index
        start += len(token)
    return None


def _label_mass(
    alternatives: Mapping[str, float], heads: Mapping[str, str], numbers: Mapping[int, str]
) -> dict[str, float] | None:
    """Probability per label among one position's alternatives (None if none names a label)."""
    mass: dict[str, float] = dict.fromkeys(heads, 0.0)
    seen = False
    for token, logprob in alternatives.items():
        label = _label_for_token(_token_word(token), heads, numbers)
        if label is not None:
            mass[label] += math.exp(logprob)
            seen = True
    return mass if seen else None


def _normalised(mass: Mapping[str, float]) -> dict[str, float]:
    total = sum(mass.values())
    return {label: value / total for label, value in mass.items()}


def _token_word(token: str) -> str:
    """A token without surrounding spaces, brackets and markup ("(b" -> "b", " 7" -> "7")."""
    return re.sub(r"^[\s(\[*\"'`:]+|[\s)\]*\"'`.:,]+$", "", _normalise(token))


def _label_for_token(word: str, heads: Mapping[str, str], numbers: Mapping[int, str]) -> str | None:
    if not word or " " in word:
        return None
    if word.isdigit():
        return numbers.get(int(word))
    matches = [label for label, head in heads.items() if head.startswith(word)]
    exact = [label for label in matches if heads[label] == word]
    if exact:
        return exact[0]
    return matches[0] if len(matches) == 1 else None


__all__ = [
    "format_instruction",
    "label_probabilities",
    "labels_from_prompt",
    "number_word",
    "parse_answer",
]
