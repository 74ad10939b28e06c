"""Items, configuration and the loaders of downloaded files (on fixtures written in their formats)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from biaslab.errors import BiaslabError
from biaslab.runner import generate_items
from biaslab.schema import dumps_sorted
from biaslab.suites.entrenchment import loaders
from biaslab.suites.entrenchment.config import resolve_config
from biaslab.suites.entrenchment.generate import claim_pool, generate

FIXTURES = Path(__file__).parent / "fixtures"
QUESTIONS = str(FIXTURES / "forecastbench_questions.json")
RESOLUTIONS = str(FIXTURES / "forecastbench_resolutions.json")


def dumped(items: list) -> list[str]:  # type: ignore[type-arg]
    return [dumps_sorted(item.model_dump(mode="json")) for item in items]


def test_generation_is_deterministic_and_prefix_stable() -> None:
    for params in ({}, {"domain": "claims"}, {"domain": "claims", "mode": "debate"}):
        config = resolve_config(None, params)
        big = generate(config, 7, 20)
        assert dumped(big) == dumped(generate(config, 7, 20))
        small = generate(config, 7, 5)
        model_big = [i for i in big if i.meta["source"] == "model"]
        model_small = [i for i in small if i.meta["source"] == "model"]
        assert dumped(model_small) == dumped(model_big[:5])
        assert dumped(generate(config, 8, 5)) != dumped(small)


def test_items_carry_what_the_task_needs() -> None:
    items = generate(resolve_config(None, {"domain": "claims", "system_prompt": "critical"}), 0, 40)
    model = [i for i in items if i.meta["source"] == "model"]
    baseline = [i for i in items if i.meta["source"] == "judge_baseline"]
    assert len(model) == 40 and len(baseline) == 40  # baseline_n defaults to --n
    assert all(i.system and "first impression" in i.system for i in model)
    assert all(i.system is None and i.meta["detail"]["steps"] for i in baseline)
    assert len({i.meta["question"] for i in model}) == 40
    # presentation is randomised per question, not fixed
    assert 10 < sum(bool(i.meta["asked_yes"]) for i in model) < 30
    assert 10 < sum(i.meta["opener"] == "yes" for i in model) < 30
    # the judge's proposition never contains the reasoner's system prompt
    assert all(i.system not in i.meta["detail"]["proposition"] for i in model)
    none = generate(resolve_config(None, {"judge_baseline": "false"}), 0, 3)
    assert all(i.meta["source"] == "model" for i in none)


def test_urn_question_ids_depend_on_the_urn_settings() -> None:
    base = {i.id for i in generate(resolve_config(None, {}), 0, 3)}
    for change in ({"draws": "10"}, {"urn_a": "0.8"}, {"urn_b": "0.4"}, {"prior_low": "0.2"}):
        other = generate(resolve_config(None, change), 0, 3)
        assert not base & {i.id for i in other}, change  # neither urn nor baseline ids collide
        assert {i.meta["urn_setting"] for i in other} != {
            "6 draws, red A 0.7 / B 0.3, prior U(0.05, 0.95)"
        }
    claims = generate(resolve_config(None, {"domain": "claims", "draws": "10"}), 0, 2)
    assert {i.meta["urn_setting"] for i in claims} == {
        "10 draws, red A 0.7 / B 0.3, prior U(0.05, 0.95)"
    }


def test_the_claims_pool() -> None:
    pool = claim_pool()
    assert len(pool) >= 150
    assert len({c["claim"] for c in pool}) == len(pool)
    assert len({c["topic"] for c in pool}) >= 12
    with pytest.raises(BiaslabError, match="170 questions"):
        generate(resolve_config(None, {"domain": "claims"}), 0, 171)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"domain": "poetry"}, "expected one of"),
        ({"rounds": "0"}, "rounds"),
        ({"constructs": "judge,vibes"}, "expected one of"),
        ({"urn_a": "0.3"}, "must differ"),
        ({"domain": "forecastbench"}, "forecastbench-datasets"),
        ({"domain": "perspectrum"}, "CogComp/perspectrum"),
        ({"mode": "debate", "constructs": "self_report"}, "self_report needs mode=cot"),
        ({"colour": "blue"}, "unknown entrenchment parameter"),
        ({"resolved_after": "last week"}, "resolved_after"),
    ],
)
def test_bad_parameters_are_one_line_errors(params: dict[str, str], message: str) -> None:
    with pytest.raises(BiaslabError, match=message) as info:
        resolve_config(None, params)
    assert "\n" not in str(info.value)


def test_forecastbench_loader_keeps_binary_resolved_market_questions() -> None:
    found = loaders.forecastbench_questions(QUESTIONS, RESOLUTIONS, None, 1500)
    keys = [q.key for q in found]
    assert keys == [
        "forecastbench:infer:mkt-late",
        "forecastbench:manifold:mkt-rain",
        "forecastbench:polymarket:mkt-bridge",
    ]  # dataset questions (fred) and unresolved ones are dropped
    rain = next(q for q in found if q.key.endswith("mkt-rain"))
    assert rain.outcome == 1 and rain.meta["crowd"] == pytest.approx(0.41)
    assert (
        rain.background
        == "Testville is a made-up town & has rain on 40% of days.\nSecond paragraph."
    )
    after = loaders.forecastbench_questions(QUESTIONS, RESOLUTIONS, dt.date(2030, 1, 1), 1500)
    assert [q.key for q in after] == keys[1:]
    unresolved = loaders.forecastbench_questions(QUESTIONS, None, None, 20)
    assert len(unresolved) == 4 and all(q.outcome is None for q in unresolved)
    assert all(len(q.background) <= 20 for q in unresolved)


def test_forecastbench_items_have_outcomes_for_brier() -> None:
    params = {"domain": "forecastbench", "questions": QUESTIONS, "resolutions": RESOLUTIONS}
    generated = generate_items("entrenchment", preset=None, n=3, seed=1, params=params)
    model = [i for i in generated.items if i.meta["source"] == "model"]
    assert sorted(i.meta["outcome"] for i in model) == [0, 1, 1]
    assert all("Forecasting question:" in i.turns[0].prompt for i in model)
    assert all("<p>" not in i.turns[0].prompt for i in model)


def test_perspectrum_loader() -> None:
    found = loaders.perspectrum_claims(str(FIXTURES / "perspectrum.json"))
    assert [q.key for q in found] == ["perspectrum:3", "perspectrum:7", "perspectrum:12"]
    assert found[2].text == "Testville should build a second bridge"
    params = {"domain": "perspectrum", "questions": str(FIXTURES / "perspectrum.json")}
    items = generate_items("entrenchment", preset=None, n=2, seed=0, params=params).items
    assert all(i.meta["outcome"] is None for i in items if i.meta["source"] == "model")


def test_missing_and_malformed_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(BiaslabError, match=r"not found.*forecastbench-datasets"):
        loaders.forecastbench_questions(str(tmp_path / "nope.json"), None, None, 100)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(BiaslabError, match="not valid JSON"):
        loaders.perspectrum_claims(str(bad))
    bad.write_text(json.dumps({"claims": []}), encoding="utf-8")
    with pytest.raises(BiaslabError, match=r"needs cId \(an integer\) and text, e\.g\. \{"):
        loaders.perspectrum_claims(str(bad))
    with pytest.raises(BiaslabError, match=r"each needs id, source, question .*\"source\""):
        loaders.forecastbench_questions(str(bad), None, None, 100)
    with pytest.raises(BiaslabError, match="resolved_after needs"):
        loaders.forecastbench_questions(QUESTIONS, None, dt.date(2030, 1, 1), 100)


def test_the_suite_registers_its_task_roles_and_belief_parser() -> None:
    from biaslab.suites.registry import get_suite

    suite = get_suite("entrenchment")
    assert suite.roles == ("judge",) and suite.task is not None
    item = generate(resolve_config(None, {}), 0, 1)[0]
    record = suite.parsers["belief"](item.turns[0], item, '```json\n{"belief": "70%"}\n```')
    assert record.model_dump()["predicted"] == "0.7000"
    assert suite.parsers["belief"](item.turns[0], item, "no idea").model_dump()["parsed"] is False


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_loaders_read_json_lines_as_well(tmp_path: Path, suffix: str) -> None:
    """The same records as JSON Lines (one per line, under either suffix) load as from JSON."""
    for name, key in (
        ("forecastbench_questions.json", "questions"),
        ("forecastbench_resolutions.json", "resolutions"),
        ("perspectrum.json", None),
    ):
        data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
        rows = data[key] if key else data
        lines = "\n".join(json.dumps(row) for row in rows)
        (tmp_path / f"{name.removesuffix('.json')}{suffix}").write_text(lines, encoding="utf-8")
    questions = str(tmp_path / f"forecastbench_questions{suffix}")
    resolutions = str(tmp_path / f"forecastbench_resolutions{suffix}")
    assert loaders.forecastbench_questions(
        questions, resolutions, None, 1500
    ) == loaders.forecastbench_questions(QUESTIONS, RESOLUTIONS, None, 1500)
    assert loaders.perspectrum_claims(
        str(tmp_path / f"perspectrum{suffix}")
    ) == loaders.perspectrum_claims(str(FIXTURES / "perspectrum.json"))


def test_a_wrong_shape_names_the_fields_and_shows_a_record(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"title": "a claim", "label": 1}\n{"title": "another"}\n', encoding="utf-8")
    with pytest.raises(BiaslabError) as caught:
        loaders.perspectrum_claims(str(wrong))
    message = str(caught.value)
    assert "\n" not in message and "needs cId (an integer) and text" in message
    assert '{"cId": 12, "text":' in message
    with pytest.raises(BiaslabError, match="needs id, source, question"):
        loaders.forecastbench_questions(str(wrong), None, None, 100)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"cId": 1, "text": "x"}\n{"cId": 2,\n', encoding="utf-8")
    with pytest.raises(BiaslabError, match="line 2: not valid JSON"):
        loaders.perspectrum_claims(str(broken))
