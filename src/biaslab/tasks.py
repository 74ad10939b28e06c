"""The default task shape, the label conversation: ask each turn of an item in order, keep the
model's own answers in the history, read every reply, score every turn.

A turn with labels is read by the shared parser (:mod:`biaslab.answers`); an open-ended turn names a
parser its suite registers (``Suite.parsers``). Each answer's typed record
(:mod:`biaslab.records`) goes to the sample store as it arrives, so a conversation cut short by an
error keeps what it had already answered. Suites whose answers need another shape (several calls
per turn, a judge) build their own task (``Suite.task``) from the same pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from inspect_ai import Task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import Dataset, MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Logprobs
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from biaslab.answers import label_probabilities, parse_answer
from biaslab.errors import BiaslabError
from biaslab.records import (
    AnswerRecord,
    OpenAnswerRecord,
    TurnRecord,
    append_record,
    stored_records,
)
from biaslab.schema import Item, Turn
from biaslab.task_settings import TaskSettings, task_metadata

TOP_LOGPROBS = 5


class TaskArgumentError(BiaslabError, PrerequisiteError):
    """A bad task argument: one line under ``biaslab run`` (a BiaslabError) and under
    ``inspect eval`` (Inspect prints a PrerequisiteError's message without a traceback)."""

    def __init__(self, message: str) -> None:
        BiaslabError.__init__(self, message)
        self.message = f"biaslab: error: {message}"


def item_sample(item: Item) -> Sample:
    """An item as an Inspect sample: the opening messages; the item itself in metadata."""
    messages: list[ChatMessage] = []
    if item.system:
        messages.append(ChatMessageSystem(content=item.system))
    messages.append(ChatMessageUser(content=item.turns[0].prompt))
    return Sample(
        id=item.id,
        input=messages,
        target=item.turns[-1].gold,
        metadata={"item": item.model_dump(mode="json")},
    )


def item_dataset(suite: str, items: Sequence[Item]) -> Dataset:
    """The items as an Inspect dataset; :class:`DeferredItems` give a :class:`DeferredDataset`."""
    if isinstance(items, DeferredItems):
        return DeferredDataset(suite, items)
    return MemoryDataset([item_sample(item) for item in items], name=suite)


class DeferredItems(Sequence[Item]):
    """Items generated on first use, whose number is known beforehand.

    ``biaslab run all`` builds every task of its eval set, and Inspect then skips the tasks whose
    logs already hold a finished run. A task whose run is known to have finished gets these
    instead of generated items, so a re-run generates nothing (and starts no worker pool) for it;
    should Inspect run the task after all, the items are generated then, identical to the ones a
    direct build would have made (generation is deterministic)."""

    def __init__(self, count: int, make: Callable[[], Sequence[Item]]) -> None:
        self.expected = count
        self._make = make
        self._items: Sequence[Item] | None = None

    @property
    def generated(self) -> bool:
        return self._items is not None

    def materialise(self) -> Sequence[Item]:
        if self._items is None:
            self._items = self._make()
        return self._items

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Item]: ...

    def __getitem__(self, index: int | slice) -> Item | Sequence[Item]:
        return self.materialise()[index]

    def __len__(self) -> int:
        return len(self._items) if self._items is not None else self.expected


class DeferredDataset(Dataset):
    """An Inspect dataset over :class:`DeferredItems`: its length is the items' known count (all
    that Inspect's task construction and eval set's "is this log complete" check read); anything
    that touches a sample generates the items first."""

    def __init__(self, suite: str, items: DeferredItems) -> None:
        self._suite = suite
        self._items = items
        self._data: MemoryDataset | None = None

    def _dataset(self) -> MemoryDataset:
        if self._data is None:
            samples = [item_sample(item) for item in self._items.materialise()]
            self._data = MemoryDataset(samples, name=self._suite)
        return self._data

    @property
    def name(self) -> str | None:
        return self._suite

    @property
    def location(self) -> str | None:
        return None

    @property
    def shuffled(self) -> bool:
        return self._data.shuffled if self._data is not None else False

    @overload
    def __getitem__(self, index: int) -> Sample: ...

    @overload
    def __getitem__(self, index: slice) -> Dataset: ...

    def __getitem__(self, index: int | slice) -> Sample | Dataset:
        return self._dataset()[index]

    def __len__(self) -> int:
        return len(self._data) if self._data is not None else len(self._items)

    def __iter__(self) -> Iterator[Sample]:
        return iter(self._dataset().samples)

    def sort(self, reverse: bool = False, key: Any = None) -> None:
        if key is None:
            self._dataset().sort(reverse=reverse)
        else:
            self._dataset().sort(reverse=reverse, key=key)

    def filter(self, predicate: Callable[[Sample], bool], name: str | None = None) -> Dataset:
        return self._dataset().filter(predicate, name)

    def shuffle(self, seed: int | None = None) -> None:
        self._dataset().shuffle(seed)

    def shuffle_choices(self, seed: int | None = None) -> None:
        self._dataset().shuffle_choices(seed)


def _alternatives(logprobs: Logprobs | None) -> list[dict[str, float]]:
    if logprobs is None:
        return []
    alternatives: list[dict[str, float]] = []
    for position in logprobs.content:
        options = {alt.token: alt.logprob for alt in position.top_logprobs or []}
        options.setdefault(position.token, position.logprob)
        alternatives.append(options)
    return alternatives


def turn_record(turn: Turn, completion: str, logprobs: Logprobs | None) -> TurnRecord:
    """What the analysis needs of one answered label turn."""
    labels = turn.labels or ()
    predicted = parse_answer(completion, labels, turn.synonyms)
    return TurnRecord(
        turn=turn.index,
        kind=turn.kind,
        gold=turn.gold,
        predicted=predicted,
        parsed=predicted is not None,
        correct=predicted == turn.gold,
        label_probs=label_probabilities(_alternatives(logprobs), labels),
        completion=completion,
    )


def open_record(turn: Turn, item: Item, completion: str) -> AnswerRecord:
    """An open-ended turn read by its suite's parser; a parser that fails is recorded, not fatal."""
    from biaslab.suites.registry import get_suite

    parser = get_suite(item.suite).parsers.get(turn.parser or "")
    if parser is None:
        why = f"suite {item.suite!r} has no parser {turn.parser!r}"
    else:
        try:
            return parser(turn, item, completion)
        except Exception as exc:  # a parser bug must not lose the answer or the sample
            why = f"parser {turn.parser!r} failed: {type(exc).__name__}: {exc}"
    return OpenAnswerRecord(
        turn=turn.index,
        kind=turn.kind,
        gold=turn.gold,
        predicted=None,
        parsed=False,
        correct=False,
        completion=completion,
        details={"parser_error": why},
    )


@solver
def conversation_solver(logprobs: bool = True) -> Solver:
    """Ask the item's turns one by one (one ``generate`` per question)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        item = Item.model_validate(state.metadata["item"])
        for turn in item.turns:
            if turn.index > 0:
                state.messages.append(ChatMessageUser(content=turn.prompt))
            if logprobs and turn.labels is not None:
                state = await generate(state, logprobs=True, top_logprobs=TOP_LOGPROBS)
            else:
                state = await generate(state)
            completion = state.output.completion
            if turn.labels is None:
                append_record(state.store, open_record(turn, item, completion))
            else:
                choice = state.output.choices[0] if state.output.choices else None
                logs = choice.logprobs if choice else None
                append_record(state.store, turn_record(turn, completion, logs))
        return state

    return solve


@scorer(metrics={"accuracy": [mean(), stderr()], "unparsed": [mean()]})
def answers_scorer() -> Scorer:
    """Accuracy over the item's recorded answers (unparsed counts as wrong and is also reported)."""

    async def score(state: TaskState, target: Target) -> Score:
        records = [r for r in stored_records(state.store) if "correct" in r]
        n = max(len(records), 1)
        return Score(
            value={
                "accuracy": sum(bool(r["correct"]) for r in records) / n,
                "unparsed": sum(not r.get("parsed", False) for r in records) / n,
            },
            answer=" | ".join(str(r.get("predicted")) for r in records),
        )

    return score


def build_task(items: Sequence[Item], settings: TaskSettings) -> Task:
    """The label-conversation task for a list of generated items."""
    return Task(
        name=settings.suite,
        dataset=item_dataset(settings.suite, items),
        solver=conversation_solver(logprobs=settings.logprobs),
        scorer=answers_scorer(),
        metadata=task_metadata(settings),
    )
