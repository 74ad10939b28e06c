"""Files in the original DeReLab dataset layout, relabelled by our resolver.

The files here are written for the project in that layout (``metadata``, ``samples`` with
``conversations`` of user/assistant turns carrying ``ground_truth``, ``task_type``, ``effect``),
with our own names and properties; none of the original's data is shipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biaslab.cli import main
from biaslab.errors import BiaslabError
from biaslab.schema import meta_path, read_items
from biaslab.suites.defeasible.config import resolve_config
from biaslab.suites.defeasible.original import (
    Unreadable,
    disagreements,
    import_conversations,
    predicate,
)
from tests.helpers.schema import assert_turn_meta_is_json

ASK = (
    "Question: Given all the information so far about {s}, does the information support the "
    "latest hypothesis?"
)
ASK_UPDATE = (
    "Question: Given all the information so far about {s}, does it support the latest hypothesis?"
)
EFFECT = "Question: Does this update strengthen, weaken, or have no effect on the support for the hypothesis?"


def user(text: str, **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": text, **extra}


def answer(task: str, gold: str, effect: str | None = None) -> dict[str, Any]:
    turn: dict[str, Any] = {
        "role": "assistant",
        "content": "",
        "task_type": task,
        "ground_truth": gold,
    }
    if effect is not None:
        turn["effect"] = effect
    return turn


def update(
    sentence: str, subject: str, gold: str, effect: str, **extra: Any
) -> list[dict[str, Any]]:
    return [
        user(f"Information update: {sentence} {ASK_UPDATE.format(s=subject)}", **extra),
        answer("update_answer", gold, effect),
        user(EFFECT),
        answer("effect_of_update", effect),
    ]


def default_conversation() -> dict[str, Any]:
    pretext = (
        "Objects that are teal in color generally have soft fur. "
        "Objects that have soft fur generally live in caves. "
        "Objects that live in caves generally glow at night. "
        "Tavix is teal in color. Brumel is teal in color. "
        "Krell is more reliable than Vosk."
    )
    turns = [
        user(f"Pretext: {pretext} Hypothesis: Tavix glows at night. {ASK.format(s='Tavix')}"),
        answer("initial_answer", "yes"),
        # the original denies the antecedent here ("no"); skeptical inheritance withholds
        *update("Tavix does not have soft fur.", "Tavix", "no", "weaken", update_type="neg"),
        *update("Tavix lives in caves.", "Tavix", "yes", "strengthen", update_type="pos"),
        *update("Brumel eats mostly moss.", "Tavix", "yes", "no effect", update_type="safe_irr"),
        user(
            "We now turn to a different object. New hypothesis: Brumel glows at night. "
            + ASK.format(s="Brumel"),
            task_type="hypothesis_change",
        ),
        answer("initial_answer", "yes"),
        *update("Vosk reports: Brumel does not glow at night.", "Brumel", "no", "weaken"),
        *update("Krell reports: Brumel glows at night.", "Brumel", "yes", "strengthen"),
        *update(
            "Brumel is an exception to the rule that teal objects have soft fur.",
            "Brumel",
            "yes",
            "no effect",
        ),
    ]
    return {"id": "c0", "topology": "default", "turns": turns}


def linear_conversation(second_update: str = "Glim has striped tails.") -> dict[str, Any]:
    ask = "Question: Given all the information so far, does the information support the hypothesis?"
    turns = [
        user(
            "Pretext:\nAnimals have striped tails.\nZorp is a kind of animal.\n"
            f"Glim is a kind of Zorp.\n\nHypothesis: Glim has striped tails.\n\n{ask}"
        ),
        answer("initial_answer", "yes"),
        user(f"Information update: Zorp does not have striped tails. {ask}"),
        answer("update_answer", "no", "weaken"),
        user(f"Information update: {second_update} {ask}"),
        answer("update_answer", "yes", "strengthen"),
    ]
    return {"id": "c1", "topology": "linear", "turns": turns}


def dataset(*conversations: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"seed": 42, "difficulty": "easy"},
        "samples": [
            {"id": f"s{i}", "edge_sentences": {}, "conversations": [c]}
            for i, c in enumerate(conversations)
        ],
    }


def write(tmp_path: Path, data: Any, name: str = "set.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def config(**params: str) -> Any:
    return resolve_config(None, params)


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("is teal in color", ("be teal in color", True)),
        ("are teal in color", ("be teal in color", True)),
        ("is not teal in color", ("be teal in color", False)),
        ("has soft fur", ("have soft fur", True)),
        ("do not have soft fur", ("have soft fur", False)),
        ("lives in caves", ("live in caves", True)),
        ("does not lives in caves", ("live in caves", False)),  # the original's own grammar
        ("does not live in caves", ("live in caves", False)),
        ("possesses gills", ("possess gills", True)),
        ("cannot swim", ("can swim", False)),
        ("glows at night", ("glow at night", True)),
    ],
)
def test_predicates_match_across_number_and_negation(
    phrase: str, expected: tuple[str, bool]
) -> None:
    assert predicate(phrase) == expected


@pytest.mark.parametrize("phrase", ["rarely lives in caves", "is no longer teal", "might glow"])
def test_a_predicate_with_a_word_no_template_has_is_unreadable(phrase: str) -> None:
    with pytest.raises(Unreadable, match="not part of any template"):
        predicate(phrase)


def test_a_default_conversation_is_relabelled_with_the_file_wording_kept(tmp_path: Path) -> None:
    path = write(tmp_path, dataset(default_conversation()))
    result = import_conversations(path, config(), 150)
    assert result.skipped == []
    assert_turn_meta_is_json(result.items)  # imported turns keep the JSON-only meta contract
    (item,) = result.items
    kinds = [t.kind for t in item.turns]
    assert kinds[:3] == ["initial", "entailment", "effect"]
    golds = [(t.kind, t.gold) for t in item.turns]
    assert golds == [
        ("initial", "yes"),
        ("entailment", "unknown"),  # a chain broken by a negative link: withheld
        ("effect", "weakening"),
        ("entailment", "yes"),  # Tavix lives in caves: the chain resumes below the break
        ("effect", "strengthening"),
        ("entailment", "yes"),
        ("effect", "no effect"),
        ("initial", "yes"),
        ("entailment", "no"),  # Vosk's report
        ("effect", "weakening"),
        ("entailment", "yes"),  # Krell is more reliable: Vosk's report is outranked
        ("effect", "strengthening"),
        ("entailment", "yes"),  # an exception to a rule the subject already passed
        ("effect", "no effect"),
    ]
    assert item.turns[1].prompt.startswith("Information update: Tavix does not have soft fur.")
    assert item.turns[1].prompt.endswith("where <label> is one of: yes, no, unknown.")
    assert item.turns[1].meta["update_type"] == "exception"
    assert item.turns[5].meta["update_type"] == "distractor"
    assert item.turns[8].meta["update_type"] == "source-claim"
    assert item.turns[12].meta["wording"] == "exception"
    # hops from the subject to the updated node over rules and instantiations: teal, fur, caves
    assert item.turns[3].meta["distance"] == 3


def test_each_disagreement_is_listed_with_its_reason(tmp_path: Path) -> None:
    path = write(tmp_path, dataset(default_conversation()))
    rows = disagreements(import_conversations(path, config(), 150).items)
    assert [(r["turn"], r["original"], r["ours"]) for r in rows] == [(1, "no", "unknown")]
    assert "chain broken by a negative link" in rows[0]["reason"]
    assert rows[0]["statement"] == "Tavix does not have soft fur."


def test_inheritance_conversations_read_kinds_and_class_plurals(tmp_path: Path) -> None:
    path = write(tmp_path, dataset(linear_conversation()))
    (item,) = import_conversations(path, config(), 150).items
    assert [t.gold for t in item.turns] == ["yes", "no", "yes"]
    assert item.meta["topology"] == "linear"
    assert all(t.meta["original"]["agrees"] for t in item.turns)
    links = {(e["from"], e["to"], e["sign"]) for e in item.meta["network"]["edges"]}
    assert ("Glim", "Zorp", "+") in links and ("animal", "have striped tails", "+") in links


def test_an_unreadable_sentence_skips_its_conversation_and_says_why(tmp_path: Path) -> None:
    bad = linear_conversation("Glim rarely has striped tails.")
    path = write(tmp_path, dataset(default_conversation(), bad))
    result = import_conversations(path, config(), 150)
    assert len(result.items) == 1
    (skipped,) = result.skipped
    assert skipped.conversation == "s1/c1"
    assert "'rarely'" in skipped.reason


@pytest.mark.parametrize(
    ("turns", "reason"),
    [
        ([{"role": "user", "content": 3}], "no text"),
        (
            [user("Pretext: Tavix is teal."), answer("initial_answer", "yes")],
            "without a hypothesis",
        ),
        ([user("Hello there."), answer("update_answer", "yes")], "neither an opening"),
        ([answer("initial_answer", "yes")], "no question before it"),
        (
            [user("Pretext: A. Hypothesis: Tavix is teal."), answer("initial_answer", "maybe")],
            "gold",
        ),
        ([user("Pretext: A. Hypothesis: Tavix is teal."), {"role": "system"}], "role 'system'"),
    ],
)
def test_broken_conversations_are_skipped_one_by_one(
    tmp_path: Path, turns: list[Any], reason: str
) -> None:
    path = write(
        tmp_path,
        dataset({"id": "x", "topology": "default", "turns": turns}, default_conversation()),
    )
    result = import_conversations(path, config(), 150)
    assert len(result.items) == 1 and len(result.skipped) == 1
    assert reason in result.skipped[0].reason


def test_topology_and_n_select_conversations(tmp_path: Path) -> None:
    path = write(
        tmp_path, dataset(default_conversation(), linear_conversation(), default_conversation())
    )
    assert [i.meta["topology"] for i in import_conversations(path, config(), 150).items] == [
        "default",
        "linear",
        "default",
    ]
    only = import_conversations(path, config(topology="linear"), 150)
    assert [i.meta["topology"] for i in only.items] == ["linear"]
    capped = import_conversations(path, config(), 2)
    assert (len(capped.items), capped.read, capped.total) == (2, 2, 3)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not valid JSON"),
        ('{"samples": 3}', "not a DeReLab dataset file"),
        ("[]", "not a DeReLab"),
    ],
)
def test_a_file_that_is_not_the_layout_is_one_line(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BiaslabError, match=message):
        import_conversations(path, config(), 150)


def test_generate_writes_items_and_lists_skips_and_disagreements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = linear_conversation("Glim rarely has striped tails.")
    source = write(tmp_path, dataset(default_conversation(), linear_conversation(), bad))
    out = tmp_path / "items.jsonl"
    args = ["generate", "defeasible", "-p", f"conversations={source}", "-o", str(out)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "read 2 of 3 conversations; 1 skipped as unreadable" in err
    assert "differs from the file's on 1 of 17 questions" in err
    items = read_items(out)
    assert [i.id for i in items] == [
        "defeasible-default-original-0000",
        "defeasible-linear-original-0001",
    ]
    sidecar = json.loads(meta_path(out).read_text())
    assert sidecar["rejected_rows"] == [
        {"line": 3, "id": "s2/c1", "reason": sidecar["rejected_rows"][0]["reason"]}
    ]
    assert "'rarely'" in sidecar["rejected_rows"][0]["reason"]
    assert sidecar["notes"]["disagreements"][0]["ours"] == "unknown"
    first = out.read_bytes()
    assert main(args) == 0  # same file, same bytes
    assert out.read_bytes() == first


def test_generate_from_a_file_with_nothing_readable_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path, dataset(linear_conversation("Glim rarely has striped tails.")))
    args = [
        "generate",
        "defeasible",
        "-p",
        f"conversations={source}",
        "-o",
        str(tmp_path / "o.jsonl"),
    ]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no conversation of topology all could be read" in err


# ------------------------------------------------------------------------------------ round trip


def _our_edges(item: Any) -> set[tuple[str, str, str]]:
    from tests.defeasible.original_writer import node

    predicates = {s["property"] for s in item.meta["sections"]}
    edges = set()
    for edge in item.meta["network"]["edges"]:
        ends = [
            node(end) if ("=" in end or end in predicates) else end
            for end in (edge["from"], edge["to"])
        ]
        edges.add((ends[0], ends[1], edge["sign"]))
    return edges


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    topology=st.sampled_from(["default", "linear", "tree"]),
    order=st.sampled_from(["standard", "reversed"]),
)
def test_our_conversations_written_the_original_way_import_to_our_golds(
    tmp_path_factory: pytest.TempPathFactory, seed: int, topology: str, order: str
) -> None:
    """Generated -> the original's layout and templates -> imported: the same golds turn by turn
    and the same network, or (only for what the original cannot say: equally reliable sources)
    skipped with the reason."""
    from biaslab.suites.defeasible.generate import generate
    from tests.defeasible.original_writer import dataset as written

    ours = generate(config(topology=topology, question_order=order), seed, 1)
    path = write(tmp_path_factory.mktemp("rt"), written(ours))
    result = import_conversations(path, config(), 10)
    if result.skipped:
        (skipped,) = result.skipped
        assert "equally reliable" in str(ours[0].model_dump()), skipped
        assert "two subjects" in skipped.reason
        return
    (imported,) = result.items
    assert [(t.kind, t.gold) for t in imported.turns] == [(t.kind, t.gold) for t in ours[0].turns]
    assert all(t.meta["original"]["agrees"] for t in imported.turns)
    theirs = {(e["from"], e["to"], e["sign"]) for e in imported.meta["network"]["edges"]}
    assert theirs == _our_edges(ours[0])
    for mine, read in zip(ours[0].turns, imported.turns, strict=True):
        for key in ("update_type", "effect", "on_path", "gold_before", "polarity", "wording"):
            assert read.meta[key] == mine.meta[key], (key, mine.index)
