"""Every size a user types is checked before any work: one line naming the limit, exit 2."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from biaslab.cli import main
from biaslab.orchestrate import MAX_SEEDS
from biaslab.suites.defeasible.network import network_from_dict
from biaslab.suites.defeasible.query import MAX_LISTED_PATHS
from biaslab.suites.defeasible.resolver import explain, explain_stream

HUGE = "99999999999"


def one_line_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("biaslab: error: "), err
    return lines[0]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["run", "defeasible", "--n", HUGE], "limit of 2,000 conversations per topology"),
        (["run", "entrenchment", "--self-judge", "--n", HUGE], "limit of 10,000 questions"),
        (
            ["run", "entrenchment", "--self-judge", "--n", "2", "-p", f"baseline_n={HUGE}"],
            f"baseline_n {HUGE} is above the limit",
        ),
        (["run", "tokenbias", "--n", HUGE], "distinct problems"),
        (["run", "fallacy", "--n", HUGE], "limit of 10,000 problems"),
        (["run", "all", "--self-judge", "--n", HUGE], f"--n {HUGE}"),
        (["run", "defeasible", "--seeds", "5-1"], "backwards range 5-1"),
        (["run", "defeasible", "--seeds", f"0-{HUGE}"], f"at most {MAX_SEEDS:,}"),
        (["run", "defeasible", "--seeds", "-3"], "--seeds"),
    ],
)
def test_run_sizes_are_capped(
    args: list[str], fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = [*args[:2], "--model", "biaslab/oracle", "--log-dir", str(tmp_path), *args[2:]]
    assert fragment in one_line_error(command, capsys)
    assert not list(tmp_path.glob("*.eval"))  # refused before anything ran


def test_generate_is_capped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "items.jsonl"
    line = one_line_error(["generate", "defeasible", "--n", HUGE, "-o", str(out)], capsys)
    assert "several seeds" in line and not out.exists()


@pytest.mark.parametrize("option", ["--n", "--local-n"])
def test_demo_sizes_are_capped(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "demo"
    assert option in one_line_error(["demo", "--out", str(out), option, HUGE], capsys)
    assert not out.exists()


def write_network(path: Path, edges: list[tuple[str, str, str]], subject: str, prop: str) -> Path:
    links = [{"from": a, "to": b, "sign": sign} for a, b, sign in edges]
    path.write_text(json.dumps({"edges": links, "query": {"subject": subject, "property": prop}}))
    return path


def layered(width: int, depth: int) -> list[tuple[str, str, str]]:
    """subject s, ``depth`` layers of ``width`` nodes each linked to the next, property g:
    width**depth paths."""
    layers = [["s"], *[[f"l{k}_{j}" for j in range(width)] for k in range(depth)], ["g"]]
    pairs = itertools.pairwise(layers)
    return [(a, b, "+") for upper, lower in pairs for a in upper for b in lower]


def test_max_paths_is_capped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    net = write_network(tmp_path / "wide.json", layered(4, 30), "s", "g")
    too_many = str(MAX_LISTED_PATHS + 1)
    assert "--max-paths" in one_line_error(
        ["resolve", str(net), "--json", "--max-paths", too_many], capsys
    )


def test_resolve_json_lists_what_explain_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The streamed output is the JSON document the explanation describes, laid out as
    ``json.dumps(indent=2)`` lays it out, with defeated paths and omitted counts."""
    edges = [*layered(3, 4), ("l1_0", "g", "-"), ("l2_1", "g", "-"), ("s", "l3_2", "-")]
    net = write_network(tmp_path / "net.json", edges, "s", "g")
    assert main(["resolve", str(net), "--json", "--max-paths", "7"]) == 0
    printed = capsys.readouterr().out
    network, _ = network_from_dict(json.loads(net.read_text()))
    data = explain(network, "s", "g", max_paths=7).to_dict()
    expected = {
        "answer": data["answer"],
        "query": {"subject": "s", "property": "g"},
        "paths": {"supporting": data["supporting"], "defeated": data["defeated"]},
        "omitted": {"supporting": data["omitted_supporting"], "defeated": data["omitted_defeated"]},
    }
    assert data["defeated"] and data["omitted_supporting"] > 0
    assert printed == json.dumps(expected, indent=2) + "\n"


def test_paths_stream_in_order_without_listing_them_all() -> None:
    """4**30 paths: the first ones come one at a time, shortest first then by name."""
    network, _ = network_from_dict({"edges": [
        {"from": a, "to": b, "sign": s} for a, b, s in layered(4, 30)
    ]})  # fmt: skip
    stream = explain_stream(network, "s", "g")
    first = [next(stream.supporting) for _ in range(1_000)]
    assert stream.total_supporting == 4**30
    assert [p.nodes for p in first] == sorted(p.nodes for p in first)
    assert len({p.nodes for p in first}) == 1_000


def test_a_long_chain_is_one_path() -> None:
    n = 20_000
    edges = [{"from": f"n{i}", "to": f"n{i + 1}", "sign": "+"} for i in range(n - 1)]
    network, _ = network_from_dict({"edges": edges})
    explanation = explain(network, "n0", f"n{n - 1}")
    (path,) = explanation.supporting
    assert path.nodes == tuple(f"n{i}" for i in range(n))


@pytest.mark.parametrize("where", ["file", "proc"])
def test_report_checks_its_directory_before_the_analysis(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import biaslab.orchestrate

    def no_analysis(*args: object, **kwargs: object) -> None:
        raise AssertionError("the analysis ran before the output directory was checked")

    monkeypatch.setattr(biaslab.orchestrate, "analyse_path", no_analysis)
    logs = tmp_path / "logs"
    logs.mkdir()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = blocker / "report" if where == "file" else Path("/proc/biaslab-report")
    line = one_line_error(["report", str(logs), "-o", str(out)], capsys)
    assert str(out) in line


def test_a_missing_judge_reads_the_same_for_one_suite_and_for_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--model", "biaslab/oracle", "--n", "1", "--log-dir", str(tmp_path)]
    one = one_line_error(["run", "entrenchment", *common], capsys)
    every = one_line_error(["run", "all", *common], capsys)
    assert one == every
    assert one.endswith("needs a judge model: add --judge MODEL (or --self-judge)")
