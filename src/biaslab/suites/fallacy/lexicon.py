"""The words an answer may use: a problem's names, the grammar's words, and the tokenizer.

Names match case-insensitively with hyphens, underscores and spaces treated alike (theme
:func:`~biaslab.suites.fallacy.themes.normalise`), an article optional before an object, and by
longest match, so "the ace" is one token and a theme word never splits into grammar words (the
themes are checked for that).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from biaslab.suites.fallacy.themes import Names, normalise
from biaslab.suites.fallacy.views import VARIABLE_NAMES

GENERIC_KINDS = ("thing", "things", "object", "objects", "one", "ones", "item", "items")
COPULAS = {"is": "is", "are": "is", "be": "is", "s": "is", "being": "is"}
#: words that carry no logical content where they occur ("the ace must be red"). "both" is not
#: one: "cannot both be" and "both are not" say different things, so the grammar reads it.
FILLERS = frozenset(
    {
        "also", "definitely", "certainly", "necessarily", "surely", "clearly", "indeed",
        "still", "must", "therefore", "thus", "hence", "so", "always", "actually", "in", "fact",
    }
)  # fmt: skip
NEGATIONS = frozenset({"not", "never"})
#: words that change what a sentence says: a reading may never skip one (the meaning guard in
#: :mod:`biaslab.suites.fallacy.reading`); none of them is a filler
LOGIC_WORDS = frozenset(
    {
        "both", "only", "unless", "implies", "imply", "implied", "means", "whenever", "when",
        "given", "if", "iff", "either", "neither", "nor", "or", "not", "never", "cannot", "no",
        "all", "some", "every", "each", "any", "none", "nothing", "everything", "something",
        "except", "without", "false", "untrue", "not-both", "not-either", "not-the-case",
        "assuming", "assume", "suppose", "supposing", "provided", "otherwise", "not-necessarily",
    }
)  # fmt: skip
#: words after which "can be" is the copula of a negative claim ("neither … nor … can be P",
#: "no card can be P"); elsewhere "can be P" only claims a possibility
_NEGATIVE_OPENERS = frozenset({"neither", "nor", "no", "none", "nothing", "nobody"})
#: phrases that are one grammar word: "not both" / "not either" scope over a whole list, and the
#: sentence negations scope over the whole sentence
PHRASES = {
    "at least one of": "at least one of",
    "such that": "such that",
    "not both": "not-both",
    "never both": "not-both",
    # "not necessarily P" says P does not follow, not that P is false: no claim (a hedge)
    "not necessarily": "not-necessarily",
    "not definitely": "not-necessarily",
    "not certainly": "not-necessarily",
    "not surely": "not-necessarily",
    "not either": "not-either",
    "it is not the case that": "not-the-case",
    "it is not true that": "not-the-case",
    "it is false that": "not-the-case",
}


@dataclass(frozen=True)
class Token:
    kind: str  # obj | prop | kind | var | word | comma
    value: str


@dataclass(frozen=True)
class Lexicon:
    """The names a problem's answers may use, normalised: phrase -> logical name."""

    objects: dict[str, str]
    properties: dict[str, str]
    kinds: frozenset[str]

    @classmethod
    def from_names(cls, names: Names, kind: Sequence[str] = ()) -> Lexicon:
        objects: dict[str, str] = {}
        for constant, word in names.objects.items():
            norm = normalise(word)
            objects[norm] = constant
            if norm.startswith(("the ", "a ", "an ")):
                objects.setdefault(norm.split(" ", 1)[1], constant)
        properties = {normalise(word): predicate for predicate, word in names.properties.items()}
        kinds = frozenset(normalise(k) for k in (*kind, *GENERIC_KINDS))
        return cls(objects, properties, kinds)

    def phrases(self) -> dict[tuple[str, ...], Token]:
        table: dict[tuple[str, ...], Token] = {}
        for phrase, word in PHRASES.items():
            table[tuple(phrase.split())] = Token("word", word)
        for phrase in sorted(self.kinds):
            table[tuple(phrase.split())] = Token("kind", phrase)
        for phrase, predicate in sorted(self.properties.items()):
            table[tuple(phrase.split())] = Token("prop", predicate)
        for phrase, constant in sorted(self.objects.items()):
            table[tuple(phrase.split())] = Token("obj", constant)
        return table


def tokenize(text: str, lexicon: Lexicon) -> list[Token]:
    """Longest match of the lexicon's phrases, then single words; commas kept as tokens."""
    words: list[str] = []
    for part in re.split(r"(,|;|:)", text):
        if part in (",", ";", ":"):
            words.append(",")
        else:
            words.extend(normalise(part).split())
    words = _contractions(words)
    table = lexicon.phrases()
    longest = max((len(k) for k in table), default=1)
    tokens: list[Token] = []
    i = 0
    while i < len(words):
        if words[i] == ",":
            tokens.append(Token("comma", ","))
            i += 1
            continue
        for length in range(min(longest, len(words) - i), 0, -1):
            key = tuple(words[i : i + length])
            if key in table:
                tokens.append(table[key])
                i += length
                break
        else:
            word = words[i]
            if len(word) == 1 and word in VARIABLE_NAMES:
                tokens.append(Token("var", word))
            elif word in FILLERS:
                pass
            else:
                tokens.append(Token("word", COPULAS.get(word, word)))
            i += 1
    return tokens


def _contractions(words: list[str]) -> list[str]:
    """Contractions expanded ("isn't" -> "is not"), and a negated copula in copula order
    ("must not be" / "cannot be" / "can not be" -> "is not")."""
    out: list[str] = []
    for word in words:
        if word == "t" and out and out[-1] in ("isn", "aren", "can", "doesn", "don", "wasn"):
            stem = out.pop()
            out.extend(
                {"isn": ["is", "not"], "aren": ["are", "not"], "can": ["cannot"]}.get(
                    stem, [stem, "not"]
                )
            )
        elif word == "cannot":
            out.append("cannot")
        else:
            out.append(word)
    return _negated_copulas(out)


def _negated_copulas(words: list[str]) -> list[str]:
    """ "must not be" / "cannot be" -> "is not"; "cannot both be" -> "is not both"; "can be" ->
    "is" right after a negative opener ("neither the ace nor the king can be red")."""
    out: list[str] = []
    negative_opener = False
    for word in words:
        if word in _NEGATIVE_OPENERS:
            negative_opener = True
        elif (word in COPULAS and word != "be") or word == ",":
            negative_opener = False
        if word == "be" and len(out) > 1 and out[-1] == "both" and out[-2] in ("not", "cannot"):
            start = len(out) - 3 if out[-2] == "not" and len(out) > 2 and out[-3] == "can" else -2
            out[start:] = ["is", "not", "both"]  # "cannot both be P": not both
        elif word == "be" and out and out[-1] == "can" and negative_opener:
            out[-1] = "is"
            negative_opener = False
        elif word == "be" and out and out[-1] in ("not", "cannot"):
            if out[-1] == "not" and len(out) > 1 and out[-2] == "can":
                out.pop()
            out[-1] = "is"
            out.append("not")
        else:
            out.append(word)
    return out
