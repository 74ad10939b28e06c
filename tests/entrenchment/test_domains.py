"""The paper's other domains from files a user downloads (written here in their layouts, with
content made up for the tests), and Perspectrum's perspectives as an order-invariance setup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biaslab.errors import BiaslabError
from biaslab.suites.entrenchment import loaders
from biaslab.suites.entrenchment.analysis import analyze
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import generate
from biaslab.suites.entrenchment.inprocess import run_agents

PAPERS = [
    {
        "id": "p2",
        "title": "Sparse widgets",
        "abstract": "<p>We sparsify widgets.</p>",
        "reviews": [{"comments": "Clear and useful."}, "Weak baselines."],
        "accepted": True,
    },
    {
        "id": "p1",
        "title": "Dense gadgets",
        "abstract": "Gadgets, densely.",
        "reviews": [{"review": "Not novel."}],
        "decision": "Reject",
    },
    {"forum": "p3", "title": "Withdrawn work", "decision": "Withdrawn"},  # no outcome: skipped
    {"paper_id": "p4", "title": "Tiny tables", "decision": "Accept (Poster)"},
]
POSTS = [
    {
        "id": "t3_b",
        "title": "CMV: Testville should ban leaf blowers",
        "selftext": "They are loud.",
        "delta_label": False,
    },
    {
        "name": "t3_a",
        "title": "Sundays should be library days",
        "body": "Quiet time.",
        "delta_label": True,
    },
    {"id": "t3_c", "title": "No label here", "selftext": "?"},  # skipped
]
CLAIMS = [
    {
        "cId": 1,
        "text": "testville should build a second bridge",
        "topics": [],
        "perspectives": [
            {"pids": [10], "stance_label_3": "SUPPORT"},
            {"pids": [11], "stance_label_3": "UNDERMINE"},
        ],
    },
    {
        "cId": 2,
        "text": "Leaf blowers should be banned",
        "topics": [],
        "perspectives": [{"pids": [12], "stance_label_3": "SUPPORT"}],
    },  # no undermining: skipped
    {
        "cId": 3,
        "text": "Libraries should open on Sundays",
        "topics": [],
        "perspectives": [
            {"pids": [14, 13], "stance_label_3": "UNDERMINE"},
            {"pids": [15], "stance_label_3": "SUPPORT"},
        ],
    },
]
POOL = [
    {"pId": 10, "text": "A second bridge halves commuting time"},
    {"pId": 11, "text": "The money is better spent on buses"},
    {"pId": 12, "text": "Blowers are loud"},
    {"pId": 13, "text": "Staff need a day off"},
    {"pId": 15, "text": "Working families can only visit on Sundays"},
]  # fmt: skip


def _jsonl(path: Path, rows: list[dict[str, object]]) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


def test_paper_reviews_keep_decided_submissions(tmp_path: Path) -> None:
    found = loaders.paper_reviews(_jsonl(tmp_path / "papers.jsonl", PAPERS), 1500)
    assert [q.key for q in found] == ["reviews:p1", "reviews:p2", "reviews:p4"]
    assert [q.outcome for q in found] == [0, 1, 1]
    p2 = found[1]
    assert p2.background == "We sparsify widgets."
    assert p2.criteria == "Review 1: Clear and useful.\nReview 2: Weak baselines."
    assert (p2.option_yes, p2.option_no) == ("accept", "reject")
    as_json = tmp_path / "papers.json"
    as_json.write_text(json.dumps({"papers": PAPERS}), encoding="utf-8")
    assert loaders.paper_reviews(str(as_json), 1500) == found


def test_opinion_posts_keep_those_with_an_outcome(tmp_path: Path) -> None:
    found = loaders.opinion_posts(_jsonl(tmp_path / "posts.jsonl", POSTS), 1500)
    assert [(q.key, q.outcome) for q in found] == [("opinions:t3_a", 1), ("opinions:t3_b", 0)]
    assert found[1].text == "Testville should ban leaf blowers"  # the CMV: tag dropped


def test_wrong_files_name_the_fields(tmp_path: Path) -> None:
    wrong = _jsonl(tmp_path / "wrong.jsonl", [{"title": "x", "score": 3}])
    with pytest.raises(BiaslabError, match=r"needs an id, title, and accepted .*\"decision\""):
        loaders.paper_reviews(wrong, 100)
    with pytest.raises(BiaslabError, match=r"needs an id, title, and delta_label .*\"selftext\""):
        loaders.opinion_posts(wrong, 100)
    with pytest.raises(BiaslabError, match="not found"):
        loaders.paper_reviews(str(tmp_path / "nope.jsonl"), 100)


@pytest.mark.parametrize(("domain", "rows", "yes"), [("reviews", PAPERS, "accept"),
                                                      ("opinions", POSTS, "yes")])  # fmt: skip
def test_the_domains_generate_items_with_ground_truth(
    tmp_path: Path, domain: str, rows: list[dict[str, object]], yes: str
) -> None:
    path = _jsonl(tmp_path / f"{domain}.jsonl", rows)
    config = resolve_config(None, {"domain": domain, "questions": path, "judge_baseline": "false"})
    items = generate(config, 0, 2)
    assert len(items) == 2 and all(it.meta["outcome"] in (0, 1) for it in items)
    assert all(it.meta["option_yes"] == yes for it in items)
    assert generate(config, 0, 2) == items  # deterministic


def test_perspectives_in_both_orders_are_two_setups_of_the_same_claims(tmp_path: Path) -> None:
    claims = _jsonl(tmp_path / "claims.jsonl", CLAIMS)
    pool = tmp_path / "pool.json"
    pool.write_text(json.dumps(POOL), encoding="utf-8")
    first = loaders.perspectrum_with_perspectives(claims, str(pool), "support-first")
    second = loaders.perspectrum_with_perspectives(claims, str(pool), "undermine-first")
    assert [q.key for q in first] == [q.key for q in second] == ["perspectrum:1", "perspectrum:3"]
    assert first[0].background == (
        "One view: A second bridge halves commuting time.\n"
        "Another view: The money is better spent on buses."
    )
    assert second[1].background.startswith("One view: Staff need a day off.")
    frames = []
    for order in ("support-first", "undermine-first"):
        config = resolve_config(
            None,
            {"domain": "perspectrum", "questions": claims, "perspectives": str(pool),
             "perspective_order": order, "judge_baseline": "false"},
        )  # fmt: skip
        items = generate(config, 0, 2)
        assert all(it.meta["variant"] == order for it in items)
        assert "One view:" in items[0].turns[0].prompt
        frames.append(run_agents(items, config, "urn-bayes", "judge-reader"))
    import pandas as pd

    res = analyze(pd.concat(frames, ignore_index=True))
    assert sorted(s.variant for s in res.setups) == ["support-first", "undermine-first"]
    assert all(s.variant in s.label for s in res.setups)
