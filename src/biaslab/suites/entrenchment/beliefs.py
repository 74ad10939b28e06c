"""Reading beliefs out of judge replies, and splitting reasoning into steps. Never raises on model
text: a reply that cannot be read is a :class:`Reading` with ``value=None`` and the reason.

A belief is read only from the place the prompt asks for it, never from a number that happens to
be in the text (a step number, an id, a percentage inside a sentence, a figure echoed from the
question). One belief (prefix mode, self-report), tried in order after stripping a BOM,
whitespace and ``` fences, and after removing every sentence the reply copies from the prompt
(:func:`strip_echo`):

1. the whole reply is JSON: ``{"belief": x}`` (or ``probability``/``p``/``prob``), a one-element
   list of that, or a bare number or numeric string (``0.7``, ``"70%"``, ``70``);
2. the last ``{...}`` object in the text holding a belief field, or a belief key inside an object
   whose JSON is cut short (``{"belief": 0.7`` at the token limit);
3. a final line ``Belief: x`` / ``Probability: x`` / ``Answer: x`` (``x`` a number, ``70%`` too).

``"70%"`` and 70 both mean 0.70 (the bare one is marked ``rescaled``), but a bare number in
(1, 10) — ``1.5``, ``7`` — is unparsed: it may be a 0-10 score, odds or a typo as well as a
percentage. NaN, infinities, booleans, negatives and values above 100 are refused. Every refusal
starts with one of :data:`ERROR_KINDS`, so reports can count the reasons (:func:`error_kind`).

N + 1 beliefs (paper mode): ``{"beliefs": [...]}`` or a bare list, of numbers or of objects with a
``belief`` (or ``probability``) field, aligned by ``id`` when ids are given (duplicates or gaps
refused); else every ``"belief": x`` pair in the text, accepted only if the count is exact. A wrong
count is never padded, truncated or interpolated, and a list is read on one scale: all
probabilities, or all percentages — a list mixing the two is refused (see :func:`_collect`).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_FENCE_RE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_NUM = r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?"
_PAIR_RE = re.compile(
    rf"[\"']?(?:belief|probability)[\"']?\s*[:=]\s*[\"']?(?P<num>{_NUM})\s*(?P<pct>%?)", re.I
)
#: a belief key inside a JSON object (after ``{`` or ``,``), also when the object is cut short
_FIELD_RE = re.compile(
    rf"[{{,]\s*[\"']?(?:belief|probability|prob|p)[\"']?\s*:\s*[\"']?(?P<num>{_NUM})\s*(?P<pct>%?)",
    re.I,
)
#: the last line of a reply that ends with its answer: ``Belief: 0.7``, ``**Final answer:** 70%``
_FINAL_LINE_RE = re.compile(
    r"^[\s*_#>-]*(?:(?:my|final|overall)\s+)*(?:belief|probability|answer)[\s*_]*[:=][\s*_]*"
    rf"(?P<num>{_NUM})\s*(?P<pct>%?)[\s*_.]*$",
    re.I,
)
_WHOLE_PERCENT_RE = re.compile(rf"^(?P<num>{_NUM})\s*%$")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|\n+|:\s+(?=\{)")
_KEYS = ("belief", "probability", "p", "prob")
#: a prompt sentence at least this long found verbatim in a reply is an echo, removed before reading
ECHO_MIN_CHARS = 24

EMPTY = "empty reply"
ECHO = "echo of the prompt"
NO_FIELD = "no belief field"
NOT_NUMBER = "belief not a number"
OUT_OF_RANGE = "out of range"
AMBIGUOUS = "ambiguous scale"
MIXED = "mixed scales"
WRONG_COUNT = "wrong count"
BAD_IDS = "bad ids"
NO_LOGPROBS = "no logprobs"
#: what every unparsed reply's ``error`` starts with (a trajectory judge's after
#: :data:`RETRY_FAILED`); reports count unparsed replies by these
ERROR_KINDS = (EMPTY, ECHO, NO_FIELD, NOT_NUMBER, OUT_OF_RANGE, AMBIGUOUS, MIXED, WRONG_COUNT,
               BAD_IDS, NO_LOGPROBS)  # fmt: skip
RETRY_FAILED = "trajectory judge failed after one retry: "


def error_kind(error: str | None) -> str:
    """The kind of an unparsed reply's error (``other`` for errors of older logs)."""
    text = (error or "").removeprefix(RETRY_FAILED)
    return next((kind for kind in ERROR_KINDS if text.startswith(kind)), "other")


#: a bare number above 1 is read as a percentage only if the reply's largest one is at least this;
#: below it ("1.5", "7") it may be a 0-10 score, odds or a typo, so the reply is unparsed
PERCENT_FROM = 10.0
_Number = tuple[float, bool]  # the number as written, and whether a percent sign followed it


@dataclass(frozen=True)
class Reading:
    """One belief, or why there is none. ``rescaled``: a bare number above 1 read as a percentage
    (``stated`` is that number); ``percent``: written with a percent sign."""

    value: float | None
    error: str | None = None
    rescaled: bool = False
    percent: bool = False
    stated: float | None = None


@dataclass(frozen=True)
class Readings:
    values: tuple[float, ...] | None
    error: str | None = None
    rescaled: bool = False
    count: int = 0


def _clean(text: str) -> str:
    text = text.lstrip("\ufeff").strip()
    return _FENCE_RE.sub("", text).strip()


def _number(value: Any) -> _Number | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value), False
    if isinstance(value, str):
        text = value.strip()
        percent = text.endswith("%")
        try:
            return float(text.rstrip("%").strip()), percent
        except ValueError:
            return None
    return None


def _checked(number: _Number | None) -> Reading:
    """One number as a probability: with a percent sign it is divided by 100; bare, a value in
    [0, 1] is taken as it is and one in (1, 100] is marked ``rescaled`` (a percentage, if the
    scale check of the whole reply agrees)."""
    if number is None:
        return Reading(None, NOT_NUMBER)
    value, percent = number
    if not math.isfinite(value):
        return Reading(None, f"{OUT_OF_RANGE}: not a finite number ({value})")
    if value < 0:
        return Reading(None, f"{OUT_OF_RANGE}: negative probability ({value})")
    if percent:
        if value > 100:
            return Reading(None, f"{OUT_OF_RANGE}: percentage above 100 ({value}%)")
        return Reading(value / 100.0, percent=True)
    if value > 100:
        return Reading(None, f"{OUT_OF_RANGE}: probability above 100 ({value})")
    if value > 1:
        return Reading(value / 100.0, rescaled=True, stated=value)
    return Reading(value)


def _one_scale(reading: Reading) -> Reading:
    """A lone bare number above 1 is a percentage only from :data:`PERCENT_FROM` up."""
    if reading.rescaled and reading.stated is not None and reading.stated < PERCENT_FROM:
        return Reading(None, f"{AMBIGUOUS}: {reading.stated:g} is not in [0, 1]")
    return reading


def _balanced(text: str, opener: str) -> str | None:
    """The first balanced ``{...}`` / ``[...]`` span (strings respected)."""
    closer = "}" if opener == "{" else "]"
    start = text.find(opener)
    while start != -1:
        depth, in_string, escaped = 0, False, False
        for index in range(start, len(text)):
            char = text[index]
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char == opener:
                depth += 1
            elif char == closer:
                depth -= 1
                if depth == 0:
                    return text[start : index + 1]
        start = text.find(opener, start + 1)
    return None


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        pass
    for opener in "{[":
        span = _balanced(text, opener)
        if span is not None:
            try:
                return json.loads(span)
            except (json.JSONDecodeError, ValueError):
                continue
    return None


def _from_object(data: Any) -> _Number | str | None:
    """A belief from parsed JSON; ``"absent"`` when the JSON holds no belief field."""
    if isinstance(data, dict):
        for key in _KEYS:
            if key in data:
                return _number(data[key])
        return "absent"
    if isinstance(data, list) and len(data) == 1:
        return _from_object(data[0])
    number = _number(data)
    return "absent" if number is None and not isinstance(data, bool) else number


def strip_echo(reply: str, prompt: str | None) -> tuple[str, bool]:
    """The reply without the sentences it copies from the prompt (each at least
    :data:`ECHO_MIN_CHARS` long, compared with whitespace collapsed), and whether it copied any.
    A judge that repeats the question or a step repeats its numbers ("a tax rate of 20%", "[Step
    3] … is now 0.62"): none of them is its belief."""
    if not prompt:
        return reply, False
    text = " ".join(reply.split())
    if len(text) < ECHO_MIN_CHARS:  # too short to hold a copied sentence: the prompt is not split
        return reply, False
    echoed = False
    sentences = {" ".join(part.split()) for part in _SENTENCE_RE.split(prompt)}
    for sentence in sorted(sentences, key=lambda s: (-len(s), s)):  # longest first, then by text
        if len(sentence) >= ECHO_MIN_CHARS and sentence in text:
            text = text.replace(sentence, "\n")
            echoed = True
    return (text if echoed else reply), echoed


def _whole_reply(cleaned: str) -> Reading | None:
    """Shape 1: the reply is nothing but JSON, or a bare number or percentage."""
    percent = _WHOLE_PERCENT_RE.match(cleaned)
    if percent is not None:
        return _checked((float(percent.group("num")), True))
    try:
        data = json.loads(cleaned)
    except (json.JSONDecodeError, ValueError):
        return None
    found = _from_object(data)
    if found == "absent":
        return None
    if isinstance(data, bool) or not isinstance(found, tuple):
        return Reading(None, f"{NOT_NUMBER}: the JSON belief is not a number")
    return _one_scale(_checked(found))


def _embedded_object(cleaned: str) -> Reading | None:
    """Shape 2: the last JSON object in the text with a belief field; else a belief key inside
    an object whose JSON does not parse (cut short at the token limit)."""
    found: _Number | str | None = None
    for span in _objects(cleaned):
        try:
            data = json.loads(span)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(data, dict) and any(key in data for key in _KEYS):
            found = _from_object(data)
    if found is not None:
        if not isinstance(found, tuple):
            return Reading(None, f"{NOT_NUMBER}: the JSON belief is not a number")
        return _one_scale(_checked(found))
    fields = list(_FIELD_RE.finditer(cleaned))
    return _one_scale(_checked(_pair_number(fields[-1]))) if fields else None


def _objects(text: str) -> list[str]:
    """Every top-level balanced ``{...}`` span, in order."""
    spans, start = [], 0
    while (span := _balanced(text[start:], "{")) is not None:
        spans.append(span)
        start = text.index(span, start) + len(span)
    return spans


def _final_line(cleaned: str) -> Reading | None:
    """Shape 3: a last line ``Belief: x`` / ``Probability: x`` / ``Answer: x``."""
    lines = [line for line in cleaned.splitlines() if line.strip()]
    match = _FINAL_LINE_RE.match(lines[-1]) if lines else None
    return None if match is None else _one_scale(_checked(_pair_number(match)))


def read_belief(text: str, prompt: str | None = None) -> Reading:
    """One probability from a reply, read only where the prompt asks for it (see the module
    doc); ``prompt`` is the text the reply answers, so that an echo of it is never read."""
    if not isinstance(text, str) or not text.strip():
        return Reading(None, EMPTY)
    cleaned = _clean(text)
    unechoed, echoed = strip_echo(cleaned, prompt)
    if echoed:
        cleaned = _clean(unechoed)
        if not cleaned:
            return Reading(None, f"{ECHO}: the reply only repeats the prompt")
    for shape in (_whole_reply, _embedded_object, _final_line):
        reading = shape(cleaned)
        if reading is not None:
            return reading
    if echoed:
        return Reading(None, f"{ECHO}: no belief field besides the repeated prompt")
    return Reading(None, f"{NO_FIELD}: no JSON belief and no final Belief:/Answer: line")


def _pair_number(match: re.Match[str]) -> _Number:
    return float(match.group("num")), bool(match.group("pct"))


def _items(data: Any) -> list[Any] | None:
    if isinstance(data, dict):
        for key in ("beliefs", "steps", "probabilities"):
            if isinstance(data.get(key), list):
                return list(data[key])
        return None
    return list(data) if isinstance(data, list) else None


def read_beliefs(text: str, expected: int, prompt: str | None = None) -> Readings:
    """Exactly ``expected`` probabilities (ids 0..expected−1) from a reply; sentences copied from
    ``prompt`` are removed first (:func:`strip_echo`)."""
    if not isinstance(text, str) or not text.strip():
        return Readings(None, EMPTY)
    cleaned, echoed = strip_echo(_clean(text), prompt)
    cleaned = _clean(cleaned)
    if echoed and not cleaned:
        return Readings(None, f"{ECHO}: the reply only repeats the prompt")
    items = _items(_load(cleaned))
    if items is None:
        pairs = list(_PAIR_RE.finditer(cleaned))
        if echoed and not pairs:
            return Readings(None, f"{ECHO}: no beliefs besides the repeated prompt")
        if len(pairs) != expected:
            return Readings(
                None,
                f"{WRONG_COUNT}: {len(pairs)} beliefs found, {expected} needed",
                count=len(pairs),
            )
        readings = [_checked(_pair_number(m)) for m in pairs]
        return _collect(readings, expected)
    values: dict[int, Reading] = {}
    with_ids = all(isinstance(x, dict) and "id" in x for x in items) and bool(items)
    for position, entry in enumerate(items):
        if isinstance(entry, dict):
            number = next((_number(entry[k]) for k in _KEYS if k in entry), None)
            key = entry.get("id", position) if with_ids else position
        else:
            number, key = _number(entry), position
        if not isinstance(key, int) or isinstance(key, bool):
            return Readings(None, f"{BAD_IDS}: id {key!r} is not an integer", count=len(items))
        if key in values:
            return Readings(None, f"{BAD_IDS}: id {key} given twice", count=len(items))
        values[key] = _checked(number)
    if sorted(values) != list(range(expected)):
        error = f"{WRONG_COUNT}: {len(values)} beliefs found, {expected} needed"
        return Readings(None, error, count=len(values))
    return _collect([values[i] for i in range(expected)], expected)


def _collect(readings: list[Reading], expected: int) -> Readings:
    """The list's values on one scale. Bare numbers above 1 make the list percentages (``70``
    means 0.70) only when no other bare number lies in (0, 1] — a list mixing the two scales
    (``[0.5, 60, 0.7]``) is refused, never guessed at, so paper mode asks again — and the largest
    is at least :data:`PERCENT_FROM`. Zero, and numbers written with a percent sign, fit either."""
    bad = [r for r in readings if r.value is None]
    if bad:
        return Readings(None, bad[0].error, count=expected - len(bad))
    values = tuple(r.value for r in readings if r.value is not None)
    stated = [r.stated for r in readings if r.rescaled and r.stated is not None]
    if not stated:
        return Readings(values, count=expected)
    unit = [r.value for r in readings if not (r.rescaled or r.percent) and r.value]
    if unit:
        error = f"{MIXED}: {unit[0]:g} and {stated[0]:g} (probabilities and percentages?)"
        return Readings(None, error, count=expected)
    if max(stated) < PERCENT_FROM:
        error = f"{AMBIGUOUS}: {max(stated):g} is not in [0, 1]"
        return Readings(None, error, count=expected)
    return Readings(values, rescaled=True, count=expected)


# ---------------------------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------------------------

_BLANK_RE = re.compile(r"\n\s*\n")
_MARKER_ONLY_RE = re.compile(r"^(?:#+.*|[-*•]\s*|\d+[.)]\s*|\*\*[^*]+\*\*:?|[^.!?]*:)$")


@dataclass(frozen=True)
class Steps:
    steps: tuple[str, ...]
    n_raw: int  # after splitting and merging fragments, before the cap

    @property
    def capped(self) -> bool:
        return self.n_raw > len(self.steps)


def split_steps(text: str, *, min_chars: int = 40, max_steps: int | None = None) -> Steps:
    """Paragraphs (split on blank lines) as steps; a fragment shorter than ``min_chars`` or only a
    heading/bullet marker joins the next paragraph (the last joins the previous one); more than
    ``max_steps`` steps are merged into ``max_steps`` evenly sized groups of neighbours."""
    parts = [p.strip() for p in _BLANK_RE.split(text or "") if p.strip()]
    merged: list[str] = []
    pending = ""
    for part in parts:
        candidate = f"{pending}\n{part}" if pending else part
        if len(candidate) < min_chars or _MARKER_ONLY_RE.match(candidate):
            pending = candidate
            continue
        merged.append(candidate)
        pending = ""
    if pending:
        if merged:
            merged[-1] = f"{merged[-1]}\n{pending}"
        else:
            merged.append(pending)
    n_raw = len(merged)
    if max_steps is not None and n_raw > max_steps:
        merged = list(merge_evenly(merged, max_steps)[0])
    return Steps(tuple(merged), n_raw)


def merge_evenly(steps: Sequence[str], max_steps: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """``steps`` merged into ``max_steps`` evenly sized groups of neighbours (unchanged when there
    are no more), and the raw step count at the end of each group (0 first): the belief after
    merged step ``k`` is the one after raw step ``bounds[k]``. The model's chain of thought and
    the judge baseline's stored reasoning are capped by this one rule, so the baseline a model's
    M is shown beside has the same number of steps."""
    n_raw = len(steps)
    if n_raw <= max_steps:
        return tuple(steps), tuple(range(n_raw + 1))
    bounds = tuple(round(i * n_raw / max_steps) for i in range(max_steps + 1))
    return tuple("\n".join(steps[a:b]) for a, b in itertools.pairwise(bounds)), bounds
