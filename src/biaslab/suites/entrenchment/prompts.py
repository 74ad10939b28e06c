"""Every prompt of the suite, written for this project (the paper's appendix C gives their intent),
and the inverse readers the reference agents use, so an agent sees only the conversation text.

Prompts are short on purpose: the embedded model has a small context. The judge is shown the
question (never the reasoner's system prompt) and a prefix of the reasoning; it is never told how
many steps follow. Judge replicates use different wordings (:data:`JUDGE_WORDINGS`) as well as
distinct cache scopes, so even a deterministic judge gives two readings whose errors are not the
same draw.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from biaslab.answers import format_instruction

SYSTEM_PROMPTS: dict[str, str | None] = {
    "none": None,
    "prior-conforming": (
        "Argue only for the view you already hold. Keep to one direction from start to finish: do "
        "not weigh objections, do not change your mind, and do not mention the other side."
    ),
    "critical": (
        "Your first impression may be wrong. Question your initial view, look for what speaks "
        "against it, and take care not to simply reinforce what you already believe."
    ),
}

COT_INSTRUCTION = (
    "Reason step by step before you answer. Write each step as its own short paragraph and leave "
    "an empty line between steps."
)


def cot_prompt(question: str, hint: str | None = None) -> str:
    parts = [question, COT_INSTRUCTION if hint is None else f"{COT_INSTRUCTION} {hint}"]
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Debate
# ---------------------------------------------------------------------------------------------


def debate_opening(question: str, side: str, other: str, opens: bool) -> str:
    """A debater's first message: the question (with its evidence), its side and the rules."""
    order = (
        "You speak first: give your opening speech."
        if opens
        else "The other debater speaks first; their speech follows."
    )
    return (
        f"You are one of two debaters. Question: {question}\n"
        f'You argue that the answer is "{side}"; the other debater argues for "{other}". '
        "In each turn, answer their points and make your own case in one short paragraph: "
        "arguments, not rhetoric. A judge will read the debate and weigh both answers.\n"
        f"{order}"
    )


def debate_reply(speech: str) -> str:
    return f"The other debater said:\n\n{speech}\n\nYour reply, in one paragraph:"


# ---------------------------------------------------------------------------------------------
# Judge
# ---------------------------------------------------------------------------------------------

_STEP_RE = re.compile(r"^\[(?:Step|Speech) (?P<id>\d+)(?:, for \"(?P<side>[^\"]+)\")?\] ?", re.M)


def render_steps(steps: Sequence[str], sides: Sequence[str | None] | None = None) -> str:
    """``[Step k] text`` (chain of thought) or ``[Speech k, for "yes"] text`` (debate)."""
    lines = []
    for index, text in enumerate(steps, start=1):
        side = sides[index - 1] if sides is not None else None
        tag = f'[Speech {index}, for "{side}"]' if side is not None else f"[Step {index}]"
        lines.append(f"{tag} {' '.join(text.split())}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Wording:
    intro: str  # {o1} {o2}
    shown: str
    ask: str  # {target}


JUDGE_WORDINGS: tuple[Wording, ...] = (
    Wording(
        intro="You are an independent observer. Here is a question with two possible answers, "
        '"{o1}" and "{o2}", and the start of someone\'s reasoning about it.',
        shown="Reasoning so far:",
        ask="The reasoning may be incomplete, one-sided or wrong, and you need not agree with it. "
        'Given only what is shown, what is your probability that the answer is "{target}"?',
    ),
    Wording(
        intro='Act as a neutral reader. The question below has two possible answers, "{o1}" and '
        '"{o2}"; after it comes the part of a reasoning written so far.',
        shown="Reasoning shown:",
        ask="Judge for yourself: the reasoning can be partial or mistaken. Using only the question "
        'and the text shown, how likely is it that "{target}" is the correct answer?',
    ),
    Wording(
        intro='You are assessing a question whose answer is either "{o1}" or "{o2}", on the basis '
        "of a reasoning that may not be finished.",
        shown="What has been written:",
        ask="Weigh it on its merits; it may be wrong or one-sided. From what you have read, what "
        'probability do you give to "{target}"?',
    ),
)
BELIEF_REPLY = 'Reply with JSON only: {"belief": <a number from 0 to 1>}'
NO_STEPS = "(nothing yet)"


def _context(proposition: str, options: tuple[str, str], steps_text: str, wording: Wording) -> str:
    o1, o2 = options
    question = re.sub(r"\n\s*\n", "\n", proposition.strip())  # blank lines delimit the parts
    return (
        f"{wording.intro.format(o1=o1, o2=o2)}\n\nQuestion: {question}\n\n"
        f"{wording.shown}\n{steps_text or NO_STEPS}"
    )


def judge_prompt(
    proposition: str,
    options: tuple[str, str],
    target: str,
    steps: Sequence[str],
    sides: Sequence[str | None] | None = None,
    replicate: int = 0,
) -> str:
    """Prefix mode: one belief after the steps shown (``options`` in the question's random order)."""
    wording = JUDGE_WORDINGS[replicate % len(JUDGE_WORDINGS)]
    context = _context(proposition, options, render_steps(steps, sides), wording)
    return f"{context}\n\n{wording.ask.format(target=target)} {BELIEF_REPLY}"


def logprob_prompt(
    proposition: str,
    options: tuple[str, str],
    target: str,
    steps: Sequence[str],
    sides: Sequence[str | None] | None,
    labels: tuple[str, str],
    replicate: int = 0,
) -> str:
    """The judge-logprob construct: a yes/no verdict whose answer token's probabilities are read."""
    wording = JUDGE_WORDINGS[replicate % len(JUDGE_WORDINGS)]
    context = _context(proposition, options, render_steps(steps, sides), wording)
    return (
        f'{context}\n\nGiven only what is shown, is the answer "{target}"?\n'
        f"{format_instruction(labels)}"
    )


def trajectory_prompt(
    proposition: str,
    options: tuple[str, str],
    target: str,
    steps: Sequence[str],
    sides: Sequence[str | None] | None = None,
    replicate: int = 0,
) -> str:
    """Paper mode: one call, N + 1 beliefs (id 0 before any step). Exposed to look-ahead."""
    wording = JUDGE_WORDINGS[replicate % len(JUDGE_WORDINGS)]
    n = len(steps)
    context = _context(proposition, options, render_steps(steps, sides), wording)
    return (
        f"{context}\n\nThe reasoning has {n} steps. Give your own probability that the answer is "
        f'"{target}" at {n + 1} points: id 0 before reading any step, and id k right after step '
        "k, each time using only the steps up to k (the reasoning may be one-sided or wrong; you "
        'need not agree with it). Reply with JSON only: {"beliefs": [{"id": 0, "belief": <0 to '
        f'1>}}, ..., {{"id": {n}, "belief": <0 to 1>}}]}}'
    )


def trajectory_retry(problem: str, n: int) -> str:
    """The one corrective follow-up of paper mode; ``problem`` is what was wrong with the reply."""
    return (
        f"Your reply could not be used ({problem}). Exactly {n + 1} beliefs are needed, one for "
        f"each id from 0 to {n}, each a probability from 0 to 1. Reply with JSON only: "
        '{"beliefs": [{"id": 0, "belief": <0 to 1>}, ...]}'
    )


SELF_REPORT_START = "Stop here. Based only on your reasoning so far"


def self_report_prompt(target: str) -> str:
    """The self-report question, asked after every prefix of the model's own reasoning (after
    none, too: b_0 is the same question with nothing written yet)."""
    return (
        f"{SELF_REPORT_START}, what is your probability that the answer "
        f'is "{target}"? {BELIEF_REPLY}'
    )


# ---------------------------------------------------------------------------------------------
# Readers (what the reference agents see)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeView:
    """A judge prompt read back: its kind, options, target, question and steps shown."""

    kind: str  # "prefix" | "trajectory" | "logprob"
    options: tuple[str, str]
    target: str
    proposition: str
    steps: tuple[str, ...]
    n_expected: int | None = None


_QUESTION_RE = re.compile(r"\n\nQuestion: (?P<q>.*?)\n\n", re.S)
_QUOTED_RE = re.compile(r'"([^"]+)"')
_HAS_N_RE = re.compile(r"The reasoning has (?P<n>\d+) steps\.")


def read_judge_prompt(text: str) -> JudgeView | None:
    """Invert :func:`judge_prompt`, :func:`logprob_prompt` or :func:`trajectory_prompt`."""
    wording = next((w for w in JUDGE_WORDINGS if w.shown in text), None)
    question = _QUESTION_RE.search(text)
    if wording is None or question is None:
        return None
    intro, _, rest = text.partition("\n\nQuestion: ")
    quoted = _QUOTED_RE.findall(intro)
    if len(quoted) < 2:
        return None
    options = (quoted[0], quoted[1])
    _, _, body = rest.partition(f"\n\n{wording.shown}\n")
    steps_text, _, ask = body.partition("\n\n")
    targets = [q for q in _QUOTED_RE.findall(ask) if q in options]
    if not targets:
        return None
    steps = tuple(_split_rendered(steps_text))
    n_match = _HAS_N_RE.search(ask)
    if n_match is not None:
        return JudgeView(
            "trajectory", options, targets[0], question.group("q"), steps, int(n_match.group("n"))
        )
    kind = "logprob" if "Answer: <label>" in ask else "prefix"
    return JudgeView(kind, options, targets[0], question.group("q"), steps)


def _split_rendered(steps_text: str) -> list[str]:
    if steps_text.strip() == NO_STEPS:
        return []
    marks = list(_STEP_RE.finditer(steps_text))
    out = []
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(steps_text)
        out.append(steps_text[mark.end() : end].strip())
    return out


def is_self_report(text: str) -> bool:
    return SELF_REPORT_START in text


def self_report_target(text: str) -> str | None:
    quoted = _QUOTED_RE.findall(text.rsplit("what is your probability", 1)[-1])
    return quoted[0] if quoted else None
