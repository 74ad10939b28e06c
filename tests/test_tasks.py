"""The shared multi-turn Inspect task, exercised with toy items and Inspect's mock model."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from biaslab.answers import format_instruction
from biaslab.frames import frame_at
from biaslab.schema import Item, Turn
from biaslab.tasks import TaskSettings, build_task

YN = ("yes", "no")


def out(text: str) -> ModelOutput:
    """A mock reply with usage filled in (else Inspect's mock model counts tokens with tiktoken,
    which downloads its vocabulary)."""
    output = ModelOutput.from_content("mockllm/model", text)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def toy_item(index: int, golds: tuple[str, ...]) -> Item:
    turns = tuple(
        Turn(
            index=i,
            prompt=f"Question {i} of item {index}\n{format_instruction(YN)}",
            kind="entailment",
            labels=YN,
            gold=gold,
            meta={"section": 0},
        )
        for i, gold in enumerate(golds)
    )
    return Item(
        suite="toy", id=f"toy-{index}", system="Answer carefully.", turns=turns, meta={"k": index}
    )


def run_toy(tmp_path: Path, outputs: object, items: list[Item]) -> Path:
    task = build_task(items, TaskSettings(suite="toy", config={"n": len(items)}, seed=0))
    model = get_model("mockllm/model", custom_outputs=outputs, memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.location
    return Path(log.location)


def test_every_turn_is_asked_with_the_history_and_scored(tmp_path: Path) -> None:
    seen: list[int] = []

    def reply(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        seen.append(len(messages))
        return out("Answer: yes")

    run_toy(tmp_path, reply, [toy_item(0, ("yes", "no", "yes"))])
    # system + user, then + assistant + user per further turn: the model's answers stay in history
    assert seen == [2, 4, 6]
    frame = frame_at(tmp_path)
    assert frame["turn"].tolist() == [0, 1, 2]
    assert frame["correct"].tolist() == [True, False, True]
    assert frame["item_k"].tolist() == [0, 0, 0]


def test_unparseable_answers_are_recorded_not_fatal(tmp_path: Path) -> None:
    replies = iter(["I refuse to say.", "Answer: no", "maybe"])

    def reply(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        return out(next(replies))

    run_toy(tmp_path, reply, [toy_item(0, ("yes", "no", "no"))])
    frame = frame_at(tmp_path)
    assert frame["parsed"].tolist() == [False, True, False]
    predicted = [p if isinstance(p, str) else None for p in frame["predicted"]]
    assert predicted == [None, "no", None]
    assert frame["correct"].tolist() == [False, True, False]


def test_a_failing_model_keeps_the_answers_already_given(tmp_path: Path) -> None:
    calls = {"n": 0}

    def reply(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("server went away")
        return out("Answer: yes")

    task = build_task(
        [toy_item(0, ("yes", "no", "yes"))], TaskSettings(suite="toy", config={}, seed=0)
    )
    model = get_model("mockllm/model", custom_outputs=reply, memoize=False)
    [log] = inspect_eval(
        task, model=model, log_dir=str(tmp_path), display="none", fail_on_error=False
    )
    assert log.samples and log.samples[0].error is not None
    frame = frame_at(tmp_path)
    assert frame["turn"].tolist() == [0]
    assert frame["correct"].tolist() == [True]
    assert "server went away" in str(frame["sample_error"].iloc[0])


def test_a_turn_s_synonyms_reach_the_parser_and_are_written_only_when_set() -> None:
    from biaslab.tasks import turn_record

    plain = Turn(
        index=0, prompt="Does it follow?", kind="validity", labels=("yes", "no"), gold="no"
    )
    assert "synonyms" not in plain.model_dump(mode="json")  # files without synonyms are unchanged
    assert turn_record(plain, "Answer: Not necessarily", None).parsed is False
    worded = plain.model_copy(update={"synonyms": {"not necessarily": "no"}})
    record = turn_record(worded, "Answer: Not necessarily", None)
    assert (record.predicted, record.correct) == ("no", True)
    assert Turn.model_validate(worded.model_dump(mode="json")) == worded
    with pytest.raises(ValueError, match="not a label"):
        Turn(
            index=0, prompt="p", kind="k", labels=("yes", "no"), gold="no", synonyms={"x": "maybe"}
        )


def test_deferred_items_are_generated_only_when_a_sample_is_read(tmp_path: Path) -> None:
    from biaslab.tasks import DeferredItems, item_dataset

    items = [toy_item(0, ("yes", "no")), toy_item(1, ("no",))]
    calls: list[int] = []

    def make() -> list[Item]:
        calls.append(1)
        return items

    deferred = DeferredItems(2, make)
    task = build_task(deferred, TaskSettings(suite="toy", config={"n": 2}, seed=0))
    assert len(task.dataset) == 2 and task.dataset.name == "toy" and calls == []
    direct = item_dataset("toy", items)

    def plain(sample: object) -> tuple[object, ...]:
        # messages carry a fresh random id each time they are made: compare what they say
        assert isinstance(sample, Sample) and not isinstance(sample.input, str)
        said = [(m.role, m.text) for m in sample.input]
        return sample.id, sample.target, sample.metadata, said

    assert [plain(s) for s in task.dataset] == [plain(s) for s in direct]
    assert calls == [1]
    model = get_model("mockllm/model", custom_outputs=[out("Answer: yes")] * 3, memoize=False)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success" and len(log.samples or []) == 2 and calls == [1]
