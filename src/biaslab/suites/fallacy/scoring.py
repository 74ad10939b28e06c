"""The record of one answer and the parser that makes it (``Suite.parsers["view"]``).

The parser reads the reply with the suite's grammar (no second LLM), then scores the reading in
the suite's pinned worker (:mod:`biaslab.suites.fallacy.solve`): ``correct`` = entailed by the
premises (both deciders; their agreement is recorded), ``etr_predicted_paper`` = PyETR's
``default_procedure_does_it_follow`` (the paper's label), ``etr_predicted`` = the robust label
(the paper's, or with issue marks restored, or ETR's own conclusion up to renaming), and
``fallacy`` / ``fallacy_paper`` = ETR-predicted and not correct. An unreadable reply (no answer
line, a refusal, "I can't tell", a hedged "might be", words outside the problem) is unparsed —
never "nothing follows" — with its kind in ``parse_status``, and scored wrong; a failure in
scoring is recorded, never raised.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from typing import Literal as TypingLiteral

from biaslab.errors import BiaslabError
from biaslab.records import OpenAnswerRecord
from biaslab.schema import Item, Turn
from biaslab.suites.fallacy import workers
from biaslab.suites.fallacy.lexicon import Lexicon
from biaslab.suites.fallacy.reading import read_answer
from biaslab.suites.fallacy.render import view_text
from biaslab.suites.fallacy.themes import Names, get_theme
from biaslab.suites.fallacy.views import MView, parse_pyetr


class FallacyRecord(OpenAnswerRecord):
    """One answered fallacy problem. ``predicted`` is the reading in PyETR syntax."""

    record: TypingLiteral["fallacy"] = "fallacy"
    parse_mode: str | None = None  # strict | lenient | nothing | None (unparsed)
    #: how the reply was read: parse_mode when parsed, else undecided | hedged | refusal |
    #: no_answer | unreadable (reading.STATUSES)
    parse_status: str | None = None
    lenient: bool = False
    sentence: str = ""
    #: the reading in the suite's own English (how it was read, for an audit of the reader)
    read_as: str | None = None
    parse_error: str | None = None
    #: the answer's shape, for its chance level: conjunction (of ground literals) | disjunction |
    #: conditional | quantified | nothing; answer_literals = its number of literals
    answer_shape: str | None = None
    answer_literals: int | None = None
    etr_predicted: bool | None = None
    etr_predicted_paper: bool | None = None
    fallacy: bool | None = None
    fallacy_paper: bool | None = None
    matches_etr: bool | None = None
    deciders_agree: bool | None = None
    label_error: str | None = None


def lexicon(item: Item) -> Lexicon:
    names = Names.from_json(item.meta["names"])  # type: ignore[arg-type]
    return Lexicon.from_names(names, get_theme(names.theme).kind)


def problem_views(item: Item) -> tuple[list[MView], list[MView | None]]:
    """The item's premises and ETR's conclusions (both orders; None outside the fragment)."""
    premises = [parse_pyetr(str(text)) for text in item.meta["premises"]]  # type: ignore[union-attr]
    conclusions: list[MView | None] = []
    for key in ("etr_conclusion", "etr_conclusion_reversed"):
        try:
            conclusions.append(parse_pyetr(str(item.meta[key])))
        except ValueError:
            conclusions.append(None)
    return premises, conclusions


def answer_shape(view: MView) -> str:
    """conjunction (one state of ground literals) | disjunction | conditional | quantified |
    nothing (verum)."""
    if view.is_verum:
        return "nothing"
    if view.quantified:
        return "quantified"
    if view.supposition:
        return "conditional"
    return "conjunction" if len(view.stage) == 1 else "disjunction"


def reading_english(view: MView, names: Names) -> str | None:
    """The view in the problem's own words (None if the renderer cannot write it)."""
    try:
        return view_text(view, names)
    except (BiaslabError, KeyError):
        return None


@lru_cache(maxsize=4096)
def _labels(premises: tuple[MView, ...], conclusions: tuple[MView | None, ...], view: MView) -> Any:
    """The labels of one reading (a ``solve.AnswerLabels``), computed in the worker once per
    process: they are a function of these immutable values only (the worker's fixed hash seed, a
    fresh z3 context per call), so the same reading of the same problem — several models giving
    one answer, a file of answers read again — needs no second trip to the solvers. A failure is
    not cached."""
    from biaslab.suites.fallacy import solve

    return workers.call(solve.label_answer, list(premises), list(conclusions), view)


def read_view(turn: Turn, item: Item, completion: str) -> FallacyRecord:
    """Parse and score one reply (the suite's ``view`` parser)."""
    reading = read_answer(completion, lexicon(item))
    common: dict[str, Any] = {
        "turn": turn.index,
        "kind": turn.kind,
        "gold": turn.gold,
        "completion": completion,
        "sentence": reading.sentence,
        "parse_mode": reading.mode,
        "parse_status": reading.status,
        "lenient": reading.mode == "lenient",
    }
    if reading.view is None:
        return FallacyRecord(
            **common, predicted=None, parsed=False, correct=False, parse_error=reading.error
        )
    common["read_as"] = reading_english(
        reading.view,
        Names.from_json(item.meta["names"]),  # type: ignore[arg-type]
    )
    common["answer_shape"] = answer_shape(reading.view)
    common["answer_literals"] = reading.view.n_atoms
    premises, conclusions = problem_views(item)
    try:
        labels = _labels(tuple(premises), tuple(conclusions), reading.view)
    except Exception as exc:  # a worker failure must not lose the answer
        return FallacyRecord(
            **common,
            predicted=reading.view.to_pyetr(),
            parsed=True,
            correct=False,
            label_error=f"{type(exc).__name__}: {exc}",
        )
    correct = bool(labels.correct)
    return FallacyRecord(
        **common,
        predicted=reading.view.to_pyetr(),
        parsed=True,
        correct=correct,
        etr_predicted=labels.etr_robust,
        etr_predicted_paper=labels.etr_paper,
        fallacy=None if labels.etr_robust is None else labels.etr_robust and not correct,
        fallacy_paper=None if labels.etr_paper is None else labels.etr_paper and not correct,
        matches_etr=labels.matches_etr,
        deciders_agree=labels.deciders_agree,
        label_error=labels.note or (None if labels.correct is not None else "undecided"),
    )
