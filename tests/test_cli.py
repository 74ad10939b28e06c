"""CLI behaviour: every user error is one line on stderr and exit code 2; the main paths work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from biaslab.cli import main
from biaslab.errors import BiaslabError

BIASLAB = [sys.executable, "-m", "biaslab.cli"]


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    merged = {**os.environ, **(env or {})}
    return subprocess.run(
        [*BIASLAB, *args], capture_output=True, text=True, env=merged, timeout=300
    )


def in_process(capfd: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """``biaslab ARGS…`` through :func:`biaslab.cli.main` in this process, as a finished process:
    its exit code and everything written to stdout and stderr (file descriptors included)."""
    capfd.readouterr()
    code = main(list(args))
    out, err = capfd.readouterr()
    return subprocess.CompletedProcess(["biaslab", *args], code, out, err)


def assert_one_line_error(result: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("biaslab: error: ")
    assert fragment in lines[0]
    assert "Traceback" not in result.stderr


@pytest.fixture
def cyclic_net(tmp_path: Path) -> Path:
    path = tmp_path / "cyclic.json"
    edges = [{"from": "a", "to": "b", "sign": "+"}, {"from": "b", "to": "a", "sign": "+"}]
    path.write_text(json.dumps({"edges": edges, "query": {"subject": "a", "property": "b"}}))
    return path


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("generate", "nosuch", "-o", "x.jsonl"), "unknown suite 'nosuch'"),
        (("generate", "defeasible", "-p", "oops", "-o", "x.jsonl"), "expected key=value"),
        (("generate", "defeasible", "-p", "nosuchkey=1", "-o", "x.jsonl"), "nosuchkey"),
        (("generate", "defeasible", "--preset", "nosuch", "-o", "x.jsonl"), "nosuch"),
        (("generate", "defeasible", "--n", "0", "-o", "x.jsonl"), "--n"),
        (("generate", "defeasible", "--seed", "-3", "-o", "x.jsonl"), "seed"),
        (("generate", "defeasible", "--n", "1", "-o", "/proc/none/x.jsonl"), "cannot write"),
        (("generate", "defeasible"), "Missing option"),
        (("run", "nosuch", "--model", "biaslab/oracle"), "unknown suite"),
        (("run", "defeasible", "--model", "biaslab/nope"), "unknown agent 'nope'"),
        (("run", "defeasible", "--model", "nosuchprovider/x"), "nosuchprovider"),
        (("run", "defeasible", "--model", "biaslab/oracle", "--seeds", "x-y"), "--seeds"),
        (
            ("run", "defeasible", "--model", "biaslab/oracle", "--log-dir", "/proc/x"),
            "cannot create",
        ),
        (("demo", "--out", "/proc/x", "--no-local"), "cannot create"),
        (("analyze", "does/not/exist"), "no such log file or directory"),
        (("report", "does/not/exist", "-o", "out"), "no such log file or directory"),
        (("resolve", "does/not/exist.json"), "cannot read"),
        (("nosuchcommand",), "No such command"),
    ],
)
def test_user_errors_are_one_line_exit_2(
    args: tuple[str, ...],
    fragment: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert_one_line_error(in_process(capfd, *args), fragment)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("nosuchcommand",), "No such command"),  # click's usage error
        (("generate", "nosuch", "-o", "x.jsonl"), "unknown suite 'nosuch'"),  # a light command
        (
            ("run", "defeasible", "--model", "biaslab/nope"),
            "unknown agent 'nope'",
        ),  # Inspect loaded
    ],
)
def test_the_installed_command_exits_2_with_one_line(
    args: tuple[str, ...], fragment: str, tmp_path: Path
) -> None:
    """The process a user starts: exit status 2 and one line, with nothing a fresh interpreter
    prints on its way in (import warnings and the like) added to it."""
    result = subprocess.run(
        [*BIASLAB, *args], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert_one_line_error(result, fragment)


def test_missing_api_key_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    for key in [k for k in os.environ if "OPENAI" in k]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    result = in_process(capfd, "run", "defeasible", "--model", "openai/gpt-4o-mini", "--n", "1")
    assert_one_line_error(result, "openai/gpt-4o-mini")
    assert "OPENAI_API_KEY" in result.stderr


def test_resolve_errors(
    tmp_path: Path, cyclic_net: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert_one_line_error(in_process(capfd, "resolve", str(cyclic_net)), "cycle")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert_one_line_error(in_process(capfd, "resolve", str(bad)), "not valid JSON")
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"edges": [], "colour": 1}))
    assert_one_line_error(in_process(capfd, "resolve", str(extra)), "colour")
    noquery = tmp_path / "noquery.json"
    noquery.write_text(json.dumps({"edges": [{"from": "a", "to": "b", "sign": "+"}]}))
    assert_one_line_error(in_process(capfd, "resolve", str(noquery)), "no query")


def test_analyze_rejects_files_that_are_not_logs(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.eval"
    junk.write_text("not a log")
    assert_one_line_error(in_process(capfd, "analyze", str(junk)), "cannot read Inspect log")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_one_line_error(in_process(capfd, "analyze", str(empty)), "no biaslab eval logs")


def test_resolve_tweety(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    net = {
        "edges": [
            {"from": "tweety", "to": "penguin", "sign": "+"},
            {"from": "penguin", "to": "bird", "sign": "+"},
            {"from": "bird", "to": "flies", "sign": "+"},
            {"from": "penguin", "to": "flies", "sign": "-"},
        ],
        "query": {"subject": "tweety", "property": "flies"},
    }
    path = tmp_path / "tweety.json"
    path.write_text(json.dumps(net))
    assert main(["resolve", str(path)]) == 0
    assert capsys.readouterr().out == "no\n"
    assert main(["resolve", str(path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["answer"] == "no"
    assert [p["text"] for p in payload["paths"]["supporting"]] == ["tweety -> penguin -/-> flies"]
    assert "preempted" in payload["paths"]["defeated"][0]["reason"]


def test_suites_and_models_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["suites"]) == 0
    out = capsys.readouterr().out
    assert "defeasible" in out and "easy" in out and "topology" in out
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    for name in ("oracle", "random", "always-yes", "sticky", "last-polarity", "negation", "local"):
        assert f"biaslab/{name}" in out


def _generate(tmp_path: Path, name: str, hashseed: str) -> bytes:
    out = tmp_path / name
    result = run_cli(
        "generate",
        "defeasible",
        "--preset",
        "easy",
        "--n",
        "6",
        "--seed",
        "42",
        "-o",
        str(out),
        env={"PYTHONHASHSEED": hashseed},
    )
    assert result.returncode == 0, result.stderr
    return out.read_bytes() + out.with_name(out.stem + ".meta.json").read_bytes()


def test_generate_is_byte_identical_across_processes(tmp_path: Path) -> None:
    first = _generate(tmp_path, "a.jsonl", "1")
    second = _generate(tmp_path, "b.jsonl", "987")
    assert first == second
    assert len(first.splitlines()) >= 18


def test_generate_stats_reports_label_balance(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.jsonl"
    result = in_process(capfd, "generate", "defeasible", "--n", "5", "-o", str(out), "--stats")
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)


def test_run_analyze_report_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "logs"
    args = ["run", "defeasible", "--model", "biaslab/oracle", "--model", "biaslab/always-yes"]
    assert main([*args, "--n", "2", "--log-dir", str(logs), "--display", "none"]) == 0
    capsys.readouterr()
    assert main(["analyze", str(logs), "--json", "-o", str(tmp_path / "results.json")]) == 0
    document = json.loads(capsys.readouterr().out)
    results = document["suites"]["defeasible"]
    assert results["suite"] == "defeasible"
    assert [row["model"] for row in document["provenance"]] == [
        "biaslab/always-yes",
        "biaslab/oracle",
    ]
    oracle = results["models"]["biaslab/oracle"]
    assert {"default", "linear", "tree"} <= set(oracle)
    assert all(oracle[t]["entailment_accuracy"] == 1.0 for t in ("default", "linear", "tree"))
    assert json.loads((tmp_path / "results.json").read_text()) == document
    assert main(["analyze", str(logs)]) == 0
    assert "biaslab/always-yes" in capsys.readouterr().out
    assert main(["report", str(logs), "-o", str(tmp_path / "report")]) == 0
    for name in ("report.md", "report.html", "results.json", "defeasible_accuracy.svg"):
        assert (tmp_path / "report" / name).stat().st_size > 0


def test_inspect_eval_uses_the_registered_task_and_provider(tmp_path: Path) -> None:
    inspect = Path(sys.executable).with_name("inspect")
    result = subprocess.run(
        [
            str(inspect),
            "eval",
            "biaslab/defeasible",
            "--model",
            "biaslab/oracle",
            "--limit",
            "2",
            "-T",
            "n=1",
            "-T",
            "topology=linear",
            "--log-dir",
            str(tmp_path),
            "--display",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    from biaslab.frames import frame_at

    frame = frame_at(tmp_path)
    assert set(frame["item_topology"]) == {"linear"}
    assert frame["correct"].all()


def test_run_resumes_a_failed_run_of_the_same_task(tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    from biaslab.orchestrate import run_suite
    from biaslab.runs import RunSpec, previous_attempts

    args = {"preset": None, "n": 1, "seed": 3, "params": {"topology": "linear"}}
    [log] = run_suite(
        "defeasible",
        models=["biaslab/oracle"],
        log_dir=tmp_path,
        limit=None,
        max_connections=None,
        display="none",
        **args,  # type: ignore[arg-type]
    )
    task_args = {"preset": None, "n": 1, "seed": 3, "logprobs": True, "topology": "linear"}
    spec = RunSpec("defeasible", task_args, "biaslab/oracle", {}, None)
    assert previous_attempts(tmp_path, spec).unfinished is None
    # turn the finished log into a failed one: the next run must resume it, not start afresh
    failed = read_eval_log(log.location)
    failed.status = "error"
    write_eval_log(failed, log.location)
    assert previous_attempts(tmp_path, spec).unfinished is not None
    assert previous_attempts(tmp_path, spec).succeeded is None
    [resumed] = run_suite(
        "defeasible",
        models=["biaslab/oracle"],
        log_dir=tmp_path,
        limit=None,
        max_connections=None,
        display="none",
        **args,  # type: ignore[arg-type]
    )
    assert resumed.status == "success"
    assert resumed.eval.eval_id != log.eval.eval_id
    assert previous_attempts(tmp_path, spec).succeeded is not None
    # the failed attempt and its retry are one run: analysis counts every turn once
    from biaslab.frames import answer_frame, read_log_set

    log_set = read_log_set(tmp_path)
    assert len(log_set.logs) == 2 and len(log_set.collapsed) == 1
    frame = answer_frame(log_set)
    assert not frame.duplicated(["item_id", "turn"]).any()


def test_tokenbias_generate_run_analyze(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["-p", "family=linda", "-p", "hypothesis=H2", "--n", "100", "--seed", "1"]
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["generate", "tokenbias", *args, "-o", str(first)]) == 0
    assert main(["generate", "tokenbias", *args, "-o", str(second), "--stats"]) == 0
    assert first.read_bytes() == second.read_bytes()
    stats = json.loads(capsys.readouterr().out)
    assert stats["twin_problems"] == []
    logs = tmp_path / "logs"
    run = ["run", "tokenbias", "--model", "biaslab/oracle", "--n", "4", "--log-dir", str(logs)]
    assert main([*run, "--display", "none"]) == 0
    capsys.readouterr()
    assert main(["analyze", str(logs), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["suites"]["tokenbias"]
    assert results["tests"] and not any(test["rejected"] for test in results["tests"])
    assert all(test["accuracy_original"] == 1.0 for test in results["tests"])


@pytest.mark.parametrize("command", ["suites", "resolve", "generate", "generate-fallacy"])
def test_light_commands_do_not_import_heavy_libraries(command: str, tmp_path: Path) -> None:
    net = tmp_path / "net.json"
    net.write_text(json.dumps({"edges": [{"from": "a", "to": "b", "sign": "+"}]}))
    args = {
        "suites": ["suites"],
        "resolve": ["resolve", str(net), "--subject", "a", "--property", "b"],
        "generate": ["generate", "defeasible", "--n", "1", "-o", str(tmp_path / "g.jsonl")],
        # PyETR and the solvers run in the fallacy suite's worker processes only
        "generate-fallacy": ["generate", "fallacy", "--n", "1", "-o", str(tmp_path / "f.jsonl")],
    }[command]
    code = (
        "import sys\n"
        "from biaslab.cli import main\n"
        f"assert main({args!r}) == 0\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'inspect_ai', 'pandas', 'matplotlib', 'statsmodels', 'scipy', 'pyetr', 'pysmt', 'z3', "
        "'pyparsing'})\n"
        "print('HEAVY:' + ','.join(heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "HEAVY:"


def test_demo_never_removes_logs_it_did_not_write(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    user_log = tmp_path / "logs" / "2026-01-01T00-00-00-00-00_mine_abc.eval"
    user_log.parent.mkdir()
    user_log.write_bytes(b"my own results")
    result = in_process(capfd, "demo", "--out", str(tmp_path), "--no-local")
    assert_one_line_error(result, "did not write")
    assert user_log.read_bytes() == b"my own results"
    assert not (tmp_path / "report").exists()


def test_demo_clears_only_what_an_earlier_demo_wrote(tmp_path: Path) -> None:
    from biaslab.demo import clear_previous, record
    from biaslab.orchestrate import ensure_dir

    log_dir = clear_previous(tmp_path, ensure_dir)
    (log_dir / "a.eval").write_bytes(b"demo")
    record(tmp_path, log_dir)
    (log_dir / "notes.txt").write_text("keep me")
    assert clear_previous(tmp_path, ensure_dir) == log_dir
    assert not (log_dir / "a.eval").exists()
    assert (log_dir / "notes.txt").read_text() == "keep me"
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "report.md").write_text("mine")
    (tmp_path / ".biaslab-demo.json").unlink()
    with pytest.raises(BiaslabError, match="not written by biaslab demo"):
        clear_previous(tmp_path, ensure_dir)


def test_resolve_scales_and_names_missing_nodes(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    import random

    n = 5_000
    chain = tmp_path / "chain.json"
    edges = [{"from": f"n{i}", "to": f"n{i + 1}", "sign": "+"} for i in range(n - 1)]
    chain.write_text(
        json.dumps({"edges": edges, "query": {"subject": "n0", "property": f"n{n - 1}"}})
    )
    rng = random.Random(1)
    pairs = {(rng.randrange(0, i), i) for i in range(1, n) for _ in range(3)}
    dag_edges = [{"from": f"v{a}", "to": f"v{b}", "sign": "+"} for a, b in sorted(pairs)]
    dag = tmp_path / "dag.json"
    dag.write_text(
        json.dumps({"edges": dag_edges, "query": {"subject": "v0", "property": f"v{n - 1}"}})
    )
    assert in_process(capfd, "resolve", str(chain)).stdout.strip() == "yes"
    listed = in_process(capfd, "resolve", str(dag), "--json", "--max-paths", "5")
    assert listed.returncode == 0, listed.stderr
    payload = json.loads(listed.stdout)
    assert len(payload["paths"]["supporting"]) == 5 and payload["omitted"]["supporting"] > 0
    assert_one_line_error(
        in_process(capfd, "resolve", str(dag), "--subject", "nobody"), "not a node"
    )
    outside = in_process(capfd, "resolve", str(dag), "--property", "x")  # the library's answer
    assert outside.returncode == 0 and outside.stdout.strip() == "unknown", outside.stderr
    assert "not a node" in outside.stderr
    outside_json = in_process(capfd, "resolve", str(dag), "--property", "x", "--json")
    assert outside_json.returncode == 0, outside_json.stderr
    assert json.loads(outside_json.stdout)["answer"] == "unknown"
    binary = tmp_path / "latin1.json"
    binary.write_bytes('{"edges": [{"from": "caf\xe9"}]}'.encode("latin-1"))
    assert_one_line_error(in_process(capfd, "resolve", str(binary)), "not UTF-8")


def test_unknown_task_argument_under_inspect_eval_is_one_message(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable, "-m", "inspect_ai", "eval", "biaslab/defeasible",
            "--model", "biaslab/oracle", "-T", "nosuch=1", "--log-dir", str(tmp_path),
        ],
        capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "400"},
    )  # fmt: skip
    assert result.returncode != 0
    assert "Traceback" not in result.stdout + result.stderr
    assert "biaslab: error: unknown defeasible parameter 'nosuch'" in result.stdout


def test_failure_reasons_are_short() -> None:
    from biaslab.orchestrate import short_reason

    dump = '{\n "messages": [' + '{"role": "user", "content": "x"},' * 500 + "]\n}"
    message = (
        f"ModelGenerateError('\\nRequest:\\n{dump}\\n\\nBadRequestError('Error code: 400 - request "
        "(2129 tokens) exceeds the available context size (2048 tokens)'))"
    )
    reason = short_reason(message)
    assert reason.startswith("BadRequestError(") and "2129 tokens" in reason
    assert len(reason) <= 300
    retried = short_reason("RetryError[<Future state=finished raised APIConnectionError>]")
    assert retried == "APIConnectionError (retries exhausted)"
