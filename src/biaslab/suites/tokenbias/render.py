"""Problem records -> prompt text, and the inverse parsers the reasoner uses on the text alone.

Layout of a user prompt (exemplars only in one-/few-shot modes; the CoT line only in CoT modes)::

    Here is an example question with its answer.      <- EXAMPLE_INTRO_*
    <exemplar body>
    Answer: <label>
    Now answer this question.                         <- QUESTION_MARKER
    <body>
    Let's think step by step.                         <- COT_LINE
    End your reply with one line ...                  <- answers.format_instruction(labels)

Hints go into the system message, after the family's one-sentence instruction. Labels are the
option letters "a"/"b" (options shown as "(a) ..."), "yes"/"no", and number words for the horses;
the shared parser also reads "(b)", "B", "Answer: 7" and "seven" (:mod:`biaslab.answers`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from biaslab.answers import format_instruction, number_word
from biaslab.suites.tokenbias.config import FamilyName, ShownHint
from biaslab.suites.tokenbias.conjunction import Conjunction
from biaslab.suites.tokenbias.families import HorseProblem
from biaslab.suites.tokenbias.syllogism import (
    ALL_WORDINGS,
    NO_WORDING,
    SOME_WORDINGS,
    Statement,
    Syllogism,
)

CONJUNCTION_LABELS = ("a", "b")
YES, NO = "yes", "no"
#: how a reply says "no" to "does the conclusion follow?" without the word (none contains another)
SYLLOGISM_SYNONYMS = {"not necessarily": NO, "does not follow": NO, "doesn't follow": NO}
COT_LINE = "Let's think step by step."
EXAMPLE_INTRO_ONE = "Here is an example question with its answer."
EXAMPLE_INTRO_MANY = "Here are some example questions with their answers."
QUESTION_MARKER = "Now answer this question."
SYLLOGISM_QUESTION = (
    "Assuming the premises are true, does the conclusion necessarily follow from them?"
)
HORSES_QUESTION = "What is the minimum number of races needed to be sure of finding"

SYSTEM: dict[FamilyName, str] = {
    "linda": "Answer the question by choosing one of the options.",
    "syllogism": "Answer the question with yes or no.",
    "horses": "Answer the question with the number of races.",
}

WEAK_HINTS: dict[FamilyName, str] = {
    "linda": "Be aware that this is a Linda Problem, designed to explore the conjunction fallacy.",
    "syllogism": "Be aware that this problem is designed to explore the syllogistic fallacy.",
}

STRONG_HINTS: dict[FamilyName, str] = {
    "linda": (
        "Be aware that this problem is designed to explore the conjunction fallacy: people judge a "
        "detailed, representative description as more probable than a simpler one. The probability "
        "that two events both happen can never exceed the probability of either event alone, so an "
        "option with a single event is always at least as probable as the same event combined with "
        "another one. Ignore how well the story fits and compare the events themselves."
    ),
    "syllogism": (
        "Be aware that this problem is designed to explore syllogistic fallacies. Pay close attention "
        "to the quantifiers and to the logical structure, and check whether the conclusion necessarily "
        "follows from the premises: a property of some members of a group does not carry over to a "
        "subset of that group. Ignore any background information or sources."
    ),
}

NUMBER_WORDS = [number_word(value) for value in range(100)]
HORSE_WINDOW = 5


@dataclass(frozen=True)
class Shot:
    """A worked exemplar: its rendered body and the label it is answered with."""

    body: str
    answer: str


@dataclass(frozen=True)
class Question:
    """A rendered test question before assembly: body, allowed labels and the gold label."""

    body: str
    labels: tuple[str, ...]
    gold: str
    synonyms: Mapping[str, str] = field(default_factory=dict)


#: irrelevant instructions with the word count of each hint (the H6 length control): what the H6
#: original carries when ``h6_control=length``, so the twin differs in the hint's content only
LENGTH_CONTROLS: dict[str, dict[FamilyName, str]] = {
    "weak": {
        "linda": "Please note that this question comes from a collection of short everyday "
        "reading puzzles.",
        "syllogism": "Please note that this question comes from a collection of reading puzzles.",
    },
    "strong": {
        "linda": (
            "Please note that this question comes from a collection of short everyday reading "
            "puzzles gathered for a weekly discussion group at a public library. The group meets "
            "on Thursday evenings, reads each puzzle aloud, and then talks about the setting, the "
            "people and the small places it describes. Members take turns choosing which puzzle to "
            "read next, and tea is served during the break. Read the question once and then give "
            "your answer."
        ),
        "syllogism": (
            "Please note that this question comes from a collection of short reading puzzles "
            "gathered for a weekly discussion group at a public library. The group meets on "
            "Thursday evenings and reads each puzzle aloud. Members take turns choosing the next "
            "puzzle, and tea is served during the break. Read the question once and give your "
            "answer."
        ),
    },
}


def hint_text(family: FamilyName, hint: ShownHint) -> str:
    if hint == "none":
        return ""
    if hint.startswith("control-"):
        return LENGTH_CONTROLS[hint.removeprefix("control-")][family]
    return (WEAK_HINTS if hint == "weak" else STRONG_HINTS)[family]


def system_prompt(family: FamilyName, hint: ShownHint) -> str:
    """The family's instruction, with the hint (if any) appended: the H6 twin inserts only the hint."""
    return " ".join(filter(None, (SYSTEM[family], hint_text(family, hint))))


def assemble(body: str, labels: tuple[str, ...], shots: tuple[Shot, ...], cot: bool) -> str:
    """The full user prompt: exemplars, the question, the CoT line and the answer instruction."""
    parts: list[str] = []
    if shots:
        parts.append(EXAMPLE_INTRO_ONE if len(shots) == 1 else EXAMPLE_INTRO_MANY)
        parts.extend(f"{shot.body}\nAnswer: {shot.answer}" for shot in shots)
        parts.append(QUESTION_MARKER)
    parts.append(body + (f"\n{COT_LINE}" if cot else ""))
    return "\n\n".join(parts) + "\n" + format_instruction(labels)


def question_part(prompt: str) -> str:
    """The test question of a prompt (what follows the exemplars)."""
    return prompt.rsplit(QUESTION_MARKER, 1)[-1]


def exemplar_part(prompt: str) -> str:
    """The exemplars of a prompt ("" when there are none)."""
    head, marker, _ = prompt.rpartition(QUESTION_MARKER)
    return head if marker else ""


def _capitalise(text: str) -> str:
    """Upper-case the first letter only (``str.capitalize`` would lower-case the rest)."""
    return text[:1].upper() + text[1:]


# --------------------------------------------------------------------------------------------------
# conjunction
# --------------------------------------------------------------------------------------------------


def render_conjunction(problem: Conjunction, correct_position: int) -> Question:
    """The single event goes to ``correct_position`` (0 = first option)."""
    single = _capitalise(problem.single_text) + "."
    conjunction = _capitalise(problem.conjunction_text) + "."
    options = (single, conjunction) if correct_position == 0 else (conjunction, single)
    question = "Which is more probable?" if problem.style == "bio" else "Which is more likely?"
    lines = [
        problem.fill(problem.setup),
        question,
        *(f"({label}) {text}" for label, text in zip(CONJUNCTION_LABELS, options, strict=True)),
    ]
    return Question("\n".join(lines), CONJUNCTION_LABELS, CONJUNCTION_LABELS[correct_position])


#: option lines: "(a) text", and "first: text" as items of generator version 1 wrote them
_OPTION_RES = (
    re.compile(r"^\((a|b)\) (.+?)\.?$", re.M),
    re.compile(r"^(first|second): (.+?)\.?$", re.M),
)


def parse_conjunction_options(text: str) -> dict[str, str] | None:
    """label -> option text (in option order) of the last conjunction question in ``text``."""
    question = question_part(text)
    for regex in _OPTION_RES:
        found = dict(regex.findall(question))
        if len(found) == 2:
            return found
    return None


def single_event_label(options: dict[str, str]) -> str | None:
    """The option the other one extends (the single event); None if neither extends the other."""
    (label_1, first), (label_2, second) = options.items()
    if second.startswith(first + " "):
        return label_1
    if first.startswith(second + " "):
        return label_2
    return None


# --------------------------------------------------------------------------------------------------
# syllogisms
# --------------------------------------------------------------------------------------------------


def render_statement(statement: Statement, syllogism: Syllogism, start: bool) -> str:
    """One statement in the syllogism's wording (capitalised at the start of a sentence)."""
    if statement.quantifier == "all":
        template = ALL_WORDINGS[syllogism.all_wording]
    elif statement.quantifier == "no":
        template = NO_WORDING
    else:
        template = SOME_WORDINGS[syllogism.some_wording]
    negation = "not " if statement.quantifier == "some-not" else ""
    text = template.format(s=statement.subject, p=negation + statement.predicate)
    return _capitalise(text) if start else text


def render_syllogism(syllogism: Syllogism, labels: tuple[str, str]) -> Question:
    """Premises (optionally attributed to sources), the conclusion and the yes/no question."""
    framed = syllogism.outlet is not None and syllogism.institution is not None
    p1 = render_statement(syllogism.premises[0], syllogism, start=not framed)
    p2 = render_statement(syllogism.premises[1], syllogism, start=not framed)
    if framed:
        p1 = f"According to {syllogism.outlet}, {p1}"
        p2 = f"According to researchers at {syllogism.institution}, {p2}"
    conclusion = render_statement(syllogism.conclusion, syllogism, start=False)
    body = "\n".join(
        (
            f"Premise 1: {p1}.",
            f"Premise 2: {p2}.",
            f"Conclusion: Therefore, {conclusion}.",
            SYLLOGISM_QUESTION,
        )
    )
    return Question(body, labels, YES if syllogism.valid else NO, SYLLOGISM_SYNONYMS)


_PREMISE_RE = re.compile(r"^(Premise 1|Premise 2|Conclusion): (.+?)\.$", re.M)
_SOURCE_RE = re.compile(r"^According to (?:researchers at )?.+?, (.+)$")


def _wording_regex(template: str) -> re.Pattern[str]:
    pattern = re.escape(template).replace(re.escape("{s}"), r"(?P<s>.+?)")
    return re.compile(pattern.replace(re.escape("{p}"), r"(?P<neg>not )?(?P<p>.+)"))


#: (regex, quantifier) for every wording, those with a leading word first
_WORDINGS = sorted(
    [(_wording_regex(t), "all") for t in ALL_WORDINGS]
    + [(_wording_regex(t), "some") for t in SOME_WORDINGS]
    + [(_wording_regex(NO_WORDING), "no")],
    key=lambda pair: pair[0].pattern.startswith("(?P<s>"),
)


def parse_syllogism(text: str) -> tuple[tuple[Statement, Statement], Statement] | None:
    """Premises and conclusion of the last syllogism in ``text``, whatever quantifier wording."""
    lines = dict(_PREMISE_RE.findall(question_part(text)))
    if set(lines) != {"Premise 1", "Premise 2", "Conclusion"}:
        return None
    statements = [_parse_statement(lines[key]) for key in ("Premise 1", "Premise 2", "Conclusion")]
    if any(s is None for s in statements):
        return None
    p1, p2, conclusion = statements
    assert p1 is not None and p2 is not None and conclusion is not None
    return (p1, p2), conclusion


def _parse_statement(text: str) -> Statement | None:
    text = text.removeprefix("Therefore, ")
    source = _SOURCE_RE.match(text)
    if source:
        text = source.group(1)
    text = text[:1].lower() + text[1:]
    for regex, quantifier in _WORDINGS:
        match = regex.fullmatch(text)
        if match is None:
            continue
        if match["neg"]:
            if quantifier != "some":
                return None
            quantifier = "some-not"
        return Statement(quantifier, match["s"], match["p"])  # type: ignore[arg-type]
    return None


# --------------------------------------------------------------------------------------------------
# horses
# --------------------------------------------------------------------------------------------------


def horse_labels(answer: int, correct_position: int) -> tuple[str, ...]:
    """Five consecutive numbers with the answer at ``correct_position``."""
    start = answer - correct_position
    return tuple(number_word(start + i) for i in range(HORSE_WINDOW))


def render_horses(problem: HorseProblem, correct_position: int) -> Question:
    a = problem.animal
    target = (
        f"the fastest {a.singular}" if problem.m == 1 else f"the {problem.m} fastest {a.plural}"
    )
    order = "" if problem.m == 1 else ", ranked in order"
    opening = (
        f"{problem.owner} keeps {problem.n} {a.plural} on a farm near {problem.place}."
        if problem.owner
        else f"There are {problem.n} {a.plural}."
    )
    body = (
        f"{opening} At most {problem.k} {a.plural} can run in a race, and there is no stopwatch: "
        f"a race only shows the order in which its {a.plural} finish. Each {a.singular} runs at "
        f"its own constant speed, the same in every race, and no two {a.plural} are equally fast. "
        f"{HORSES_QUESTION} {target}{order}?"
    )
    labels = horse_labels(problem.answer, correct_position)
    return Question(body, labels, labels[correct_position])


_HORSES_RE = re.compile(
    r"(?P<n>\d+) [^.\d]*\. At most (?P<k>\d+) .+? "
    + re.escape(HORSES_QUESTION)
    + r" the (?:(?P<m>\d+) )?fastest"
)


def parse_horses(text: str) -> tuple[int, int, int] | None:
    """(n, k, m) of the last horse problem in ``text``."""
    match = _HORSES_RE.search(question_part(text))
    if not match:
        return None
    return int(match["n"]), int(match["k"]), int(match["m"] or 1)
