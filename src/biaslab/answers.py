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
_ANSWER_RE = re.compile(
    r"answer(?:\s*[:=]|\s+is\b)\s*\**\s*[\"'`(\[]?\s*"
    r"(?P<label>[a-z0-9](?:[a-z0-9 _-]*[a-z0-9])?)(?![.,]\d)",
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
            if label in labels:
                words.setdefault(_normalise(word), label)
        return cls(words, numbers, letters)

    def leading(self, candidate: str) -> str | None:
        """The label a candidate answer starts with ("no effect on it" -> "no effect"); numbers and
        letters must be whole ("7 races" -> 7, but "A bank teller" is not the letter a)."""
        candidate = _normalise(candidate)
        for key in sorted(self.words, key=len, reverse=True):
            if candidate == key or candidate.startswith(key + " "):
                return self.words[key]
        first = _numbers(candidate)[:1]
        if first and first[0][0] == 0 and first[0][1] in self.numbers:
            return self.numbers[first[0][1]]
        return self.letters.get(_letter(candidate))

    def exact(self, candidate: str) -> str | None:
        """The label a whole reply is, if it is nothing but one label."""
        value = _whole_number(candidate)
        if value is not None:
            return self.numbers.get(value)
        return self.words.get(candidate) or self.letters.get(_letter(candidate))

    def named(self, line: str) -> set[str]:
        """Every label a line of prose mentions: words, a number if it is the line's only number,
        and letters only in an option's form."""
        text = _normalise(re.sub(_LINE_PUNCTUATION, " ", line))
        found = {
            label for key, label in self.words.items() if re.search(rf"\b{re.escape(key)}\b", text)
        }
        values = {value for _, value in _numbers(text)}
        if len(values) == 1 and (value := values.pop()) in self.numbers:
            found.add(self.numbers[value])  # a line with other numbers in it is not an answer
        for key, label in self.letters.items():
            marked = (
                rf"\(\s*{key}\s*\)|(?<![\w(]){key}\)|\b(?:option|choice)\s+{key}\b",
                rf"(?<![\w'(]){key.upper()}(?=\s*(?:$|[.,;:!?)]))",
            )
            if re.search(marked[0], line, re.I) or re.search(marked[1], line):
                found.add(label)
        return found


def parse_answer(
    text: str, labels: Sequence[str], synonyms: Mapping[str, str] | None = None
) -> str | None:
    """Map a reply to one of ``labels`` (or a synonym's label); ``None`` when it cannot be told.

    Priority: the last ``Answer: X`` (or "the answer is X"); else a reply that is only a label; else
    the last line if it names exactly one label. A reply that names several labels elsewhere is not
    guessed at.
    """
    vocabulary = _Vocabulary.of(labels, synonyms)
    for match in reversed(list(_ANSWER_RE.finditer(text))):
        found = vocabulary.leading(match.group("label"))
        if found is not None:
            return found
    bare = vocabulary.exact(_normalise(re.sub(_BARE_PUNCTUATION, " ", text)))
    if bare is not None:
        return bare
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if lines:
        named = vocabulary.named(lines[-1])
        if len(named) == 1:
            return named.pop()
    return None


def label_probabilities(
    token_alternatives: Sequence[Mapping[str, float]], labels: Sequence[str]
) -> dict[str, float] | None:
    """Label distribution from the top-logprobs of the answer token (renormalised over the labels).

    ``token_alternatives`` is one mapping (token text -> logprob) per generated token. The answer token
    is the last position whose alternatives start a label's first word unambiguously (sub-word tokens
    such as "str" for "strengthening" count, and so do digits for number labels: "7" for "seven");
    labels the provider did not return get zero. ``None`` when no position mentions a label.
    """
    heads = {label: _normalise(label).split(" ")[0] for label in labels}
    numbers = _Vocabulary.of(labels, None).numbers
    for alternatives in reversed(token_alternatives):
        mass: dict[str, float] = dict.fromkeys(labels, 0.0)
        seen = False
        for token, logprob in alternatives.items():
            label = _label_for_token(_token_word(token), heads, numbers)
            if label is not None:
                mass[label] += math.exp(logprob)
                seen = True
        if seen:
            total = sum(mass.values())
            return {label: value / total for label, value in mass.items()}
    return None


def _token_word(token: str) -> str:
    """A token without surrounding spaces, brackets and markup ("(b" -> "b", " 7" -> "7")."""
    return re.sub(r"^[\s(\[*\"'`]+|[\s)\]*\"'`.:,]+$", "", _normalise(token))


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
