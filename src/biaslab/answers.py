"""The constrained answer format shared by every suite, and its robust parser.

Every question ends with one instruction line produced by :func:`format_instruction`; models reply
with a final ``Answer: <label>`` line. Agents read the allowed labels back from that same line, and the
parser maps free text to a label or to ``None`` (unparsed: a recorded outcome, never a crash).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

_INSTRUCTION_PREFIX = (
    "End your reply with one line of the form 'Answer: <label>', where <label> is one of:"
)
_INSTRUCTION_RE = re.compile(re.escape(_INSTRUCTION_PREFIX) + r" (?P<labels>[^.\n]+)\.")
_ANSWER_RE = re.compile(r"answer\s*[:=]\s*\**\s*[\"'`(\[]?\s*(?P<label>[a-z][a-z _-]*[a-z])", re.I)
_WORD_RE = re.compile(r"[a-z]+(?:[ _-][a-z]+)*", re.I)


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


def parse_answer(
    text: str, labels: Sequence[str], synonyms: Mapping[str, str] | None = None
) -> str | None:
    """Map a reply to one of ``labels`` (or a synonym's label); ``None`` when it cannot be told.

    Priority: the last ``Answer: X`` line; else a reply that is only a label; else the last line if it
    names exactly one label. A reply that names several labels elsewhere is not guessed at.
    """
    vocabulary = {_normalise(label): label for label in labels}
    for word, label in (synonyms or {}).items():
        if label in labels:
            vocabulary.setdefault(_normalise(word), label)

    def lookup(candidate: str) -> str | None:
        candidate = _normalise(candidate)
        # longest vocabulary entry that starts the candidate ("no effect on it" -> "no effect")
        for key in sorted(vocabulary, key=len, reverse=True):
            if candidate == key or candidate.startswith(key + " "):
                return vocabulary[key]
        return None

    for match in reversed(list(_ANSWER_RE.finditer(text))):
        found = lookup(match.group("label"))
        if found is not None:
            return found
    bare = _normalise(re.sub(r"[*_`\"'.!()\[\]]", " ", text))
    if bare in vocabulary:
        return vocabulary[bare]
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if lines:
        last = _normalise(re.sub(r"[*_`\"'.!,;:()\[\]]", " ", lines[-1]))
        named = {vocabulary[k] for k in vocabulary if re.search(rf"\b{re.escape(k)}\b", last)}
        if len(named) == 1:
            return named.pop()
    return None


def label_probabilities(
    token_alternatives: Sequence[Mapping[str, float]], labels: Sequence[str]
) -> dict[str, float] | None:
    """Label distribution from the top-logprobs of the answer token (renormalised over the labels).

    ``token_alternatives`` is one mapping (token text -> logprob) per generated token. The answer token
    is the last position whose alternatives start a label's first word unambiguously (sub-word tokens
    such as "str" for "strengthening" count); labels the provider did not return get zero.
    ``None`` when no position mentions a label.
    """
    heads = {label: _normalise(label).split(" ")[0] for label in labels}
    for alternatives in reversed(token_alternatives):
        mass: dict[str, float] = dict.fromkeys(labels, 0.0)
        seen = False
        for token, logprob in alternatives.items():
            label = _label_for_token(_normalise(token), heads)
            if label is not None:
                mass[label] += math.exp(logprob)
                seen = True
        if seen:
            total = sum(mass.values())
            return {label: value / total for label, value in mass.items()}
    return None


def _label_for_token(word: str, heads: Mapping[str, str]) -> str | None:
    if not word or " " in word:
        return None
    matches = [label for label, head in heads.items() if head.startswith(word)]
    exact = [label for label in matches if heads[label] == word]
    if exact:
        return exact[0]
    return matches[0] if len(matches) == 1 else None


__all__ = ["format_instruction", "label_probabilities", "labels_from_prompt", "parse_answer"]
