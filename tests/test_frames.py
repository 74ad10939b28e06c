"""The tidy frame depends only on the answers: not on Inspect's random ids, file names, log order or
the fields the frame skips reading."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalError, list_eval_logs, read_eval_log, write_eval_log

from biaslab import frames
from biaslab.analysis import analyse, document
from biaslab.runner import suite_task


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("logs")
    for seed in (1, 2):
        task = suite_task("defeasible", n=2, seed=seed)
        inspect_eval(
            task, model=["biaslab/sticky?p=0.9", "biaslab/random"], log_dir=str(out), display="none"
        )
    task = suite_task("tokenbias", n=4, seed=1, params={"family": "linda", "hypothesis": "H2"})
    inspect_eval(task, model="biaslab/oracle", log_dir=str(out), display="none")
    return out


def results_json(path: Path) -> str:
    doc = document(analyse(path)).model_dump(mode="json")
    return json.dumps(doc["suites"], sort_keys=True)


def test_same_answers_same_bytes_under_new_ids_names_and_order(logs: Path, tmp_path: Path) -> None:
    rng = random.Random(0)
    files = [info.name for info in list_eval_logs(str(logs))]
    rng.shuffle(files)
    for position, file in enumerate(files):
        log = read_eval_log(file)
        log.eval.run_id = f"run{rng.randrange(10**9)}"
        log.eval.eval_id = f"eval{rng.randrange(10**9)}"
        log.eval.task_id = f"task{rng.randrange(10**9)}"
        write_eval_log(log, str(tmp_path / f"{position:02d}_{rng.randrange(10**6)}.eval"))
    assert results_json(tmp_path) == results_json(logs)


LEGACY = Path(__file__).parent / "fixtures" / "legacy_logs"


def same_reading(path: Path | str) -> pd.DataFrame:
    """The frame, provenance and notes from the lean reader equal Inspect's reader's."""
    lean, full = frames.read_log_set(path), frames.read_log_set(path, lean=False)
    assert lean.provenance == full.provenance
    assert lean.collapsed == full.collapsed and lean.skipped == full.skipped
    frame = frames.answer_frame(lean)
    pd.testing.assert_frame_equal(frame, frames.answer_frame(full))
    assert len(frame) > 0
    return frame


@pytest.mark.parametrize("which", ["fresh", "legacy"])
def test_the_lean_reader_gives_inspects_frame(logs: Path, which: str) -> None:
    path = logs if which == "fresh" else LEGACY
    files = [info.name for info in list_eval_logs(str(path))]
    assert files and all(frames._read_lean(file) is not None for file in files)  # not a fallback
    same_reading(path)


def test_the_lean_reader_keeps_the_latest_attempt_of_a_retried_run(
    logs: Path, tmp_path: Path
) -> None:
    """A failed attempt and its retry collapse to one sample per item, whichever reader; a
    re-logged sample member (same name twice in the zip) counts once, as its last version."""
    import zipfile

    first = next(
        info.name
        for info in list_eval_logs(str(logs))
        if "defeasible" in info.name and "sticky" in str(read_eval_log(info.name, True).eval.model)
    )
    done = read_eval_log(first)
    assert done.samples and len(done.samples) >= 2
    failed = done.model_copy(deep=True)
    failed.status = "error"
    failed.eval.eval_id = "an-earlier-attempt"
    broken = failed.samples[0]  # type: ignore[index]
    failed.samples = [broken]  # the attempt stopped after its first sample
    broken.error = EvalError(message="model went away", traceback="", traceback_ansi="")
    broken.scores = None
    broken.store = {**broken.store, frames.ANSWERS_KEY: broken.store[frames.ANSWERS_KEY][:1]}
    write_eval_log(failed, str(tmp_path / "a_failed.eval"))
    write_eval_log(done, str(tmp_path / "b_retry.eval"))
    # re-log the second sample of the retry with one answer fewer: the later member must win
    relogged = done.samples[1].model_copy(deep=True)
    relogged.store = {**relogged.store, frames.ANSWERS_KEY: relogged.store[frames.ANSWERS_KEY][:-1]}
    name = f"samples/{relogged.id}_epoch_{relogged.epoch}.json"
    with zipfile.ZipFile(tmp_path / "b_retry.eval", "a") as archive:
        assert name in archive.namelist()
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr(name, relogged.model_dump_json())
    frame = same_reading(tmp_path)
    assert not frame.duplicated(["item_id", "turn", "record"]).any()
    assert frame["sample_error"].isna().all()  # the finished retry beats the failed attempt
    kept = frame[frame["item_id"] == str(relogged.id)]
    assert len(kept) == len(relogged.store[frames.ANSWERS_KEY])


def test_a_json_log_is_read_by_inspects_reader_and_reads_alike(logs: Path, tmp_path: Path) -> None:
    for info in list_eval_logs(str(logs)):
        log = read_eval_log(info.name)
        stem = Path(info.name).stem
        write_eval_log(log, str(tmp_path / f"{stem}.json"))
        assert frames._read_lean(str(tmp_path / f"{stem}.json")) is None
    pd.testing.assert_frame_equal(same_reading(tmp_path), frames.frame_at(logs))


def test_the_lean_header_gives_inspects_identity_with_settings_and_roles(
    logs: Path, tmp_path: Path
) -> None:
    """Generation settings and roles read from ``header.json`` as plain data key the run as
    Inspect's typed header does (the frame's ``generation``, ``roles`` and ``run_key``)."""
    from inspect_ai.model import GenerateConfig, ModelConfig

    info = next(i for i in list_eval_logs(str(logs)) if "defeasible" in i.name)
    log = read_eval_log(info.name)
    log.eval.model_generate_config = GenerateConfig(temperature=0.5, max_retries=3, seed=7)
    log.eval.model_roles = {
        "judge": ModelConfig(model="biaslab/oracle", config=GenerateConfig(top_p=0.9))
    }
    write_eval_log(log, str(tmp_path / "settings.eval"))
    assert frames._read_lean(str(tmp_path / "settings.eval")) is not None
    frame = same_reading(tmp_path)
    assert set(frame["generation"]) == {
        '{"judge": {"top_p": 0.9}, "model": {"seed": 7, "temperature": 0.5}}'
    }
    assert set(frame["roles"]) == {"judge=biaslab/oracle"}


def rewrite_header(source: Path, target: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Copy an ``.eval`` log with ``change`` applied to its ``header.json``'s ``eval`` spec."""
    import zipfile

    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for member in old.infolist():
            data = old.read(member)
            if member.filename == "header.json":
                header = json.loads(data)
                change(header["eval"])
                data = json.dumps(header).encode("utf-8")
            new.writestr(member, data)


def test_created_in_another_time_zone_reads_as_inspect_reads_it(logs: Path, tmp_path: Path) -> None:
    """Attempts are ordered by ``created``: the lean reader converts it to UTC as Inspect does."""
    info = next(i for i in list_eval_logs(str(logs)) if "defeasible" in i.name)
    source = Path(info.name.removeprefix("file://"))
    rewrite_header(
        source,
        tmp_path / "zone.eval",
        lambda spec: spec.update(created="2026-01-01T12:00:00+02:00"),
    )
    lean = frames._read_lean(str(tmp_path / "zone.eval"))
    assert lean is not None
    assert lean.eval.created == read_eval_log(str(tmp_path / "zone.eval"), True).eval.created
    assert lean.eval.created == "2026-01-01T10:00:00+00:00"
    same_reading(tmp_path)


def test_generation_settings_inspect_would_rewrite_go_to_inspects_reader(
    logs: Path, tmp_path: Path
) -> None:
    """A field the installed Inspect drops, or ``reasoning_history`` as a bool (which it turns into
    "all"), would key the run differently if read as written: Inspect's reader takes such a log."""
    info = next(i for i in list_eval_logs(str(logs)) if "defeasible" in i.name)
    source = Path(info.name.removeprefix("file://"))
    settings = {"temperature": 0.5, "reasoning_history": True, "a_future_field": 3}
    rewrite_header(
        source, tmp_path / "s.eval", lambda spec: spec.update(model_generate_config=settings)
    )
    assert frames._read_lean(str(tmp_path / "s.eval")) is None
    assert "reasoning_history" in same_reading(tmp_path)["generation"].iloc[0]


def test_a_log_without_a_header_goes_to_inspects_reader(logs: Path, tmp_path: Path) -> None:
    import zipfile

    info = next(i for i in list_eval_logs(str(logs)) if "defeasible" in i.name)
    source = Path(info.name.removeprefix("file://"))
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(tmp_path / "x.eval", "w") as new:
        for member in old.infolist():
            if member.filename != "header.json":
                new.writestr(member, old.read(member))
    assert frames._read_lean(str(tmp_path / "x.eval")) is None


def test_the_sample_field_order_read_from_inspects_source_is_its_models() -> None:
    from inspect_ai.log import EvalSample

    assert frames._inspect_sample_fields() == list(EvalSample.model_fields)


def test_the_local_listing_is_inspects(logs: Path, tmp_path: Path) -> None:
    import shutil

    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    for info in list_eval_logs(str(logs)):
        shutil.copy(info.name.removeprefix("file://"), nested)
    (tmp_path / "2026-01-01T10-00-00-00-00_x.json").write_text("{}")  # listed, then unreadable
    (tmp_path / "notes.json").write_text("{}")  # not a log name
    (tmp_path / "z.eval.txt").write_text("")
    expected = sorted(info.name for info in list_eval_logs(str(tmp_path)))
    assert len(expected) == len(list_eval_logs(str(logs))) + 1
    assert frames._local_listing(tmp_path) == expected
    (tmp_path / "link").symlink_to(nested)
    assert frames._local_listing(tmp_path) is None  # a link: Inspect's listing decides


def test_rows_are_in_identity_order(logs: Path) -> None:
    frame = frames.frame_at(logs)
    keys = list(zip(frame["run_key"], frame["item_id"], strict=True))
    firsts = list(dict.fromkeys(keys))
    assert firsts == sorted(firsts)
    assert set(frame["seed"]) == {1, 2}


def test_a_log_url_reads_like_the_directory(logs: Path) -> None:
    """Log locations Inspect reads through fsspec (s3://…, file://…) are read as directories."""
    assert frames.frame_at(logs.as_uri()).equals(frames.frame_at(logs))


@pytest.mark.parametrize(
    ("member", "skipped"),
    [
        # the usual shape: the transcript between store and model_usage, an error after it
        ({"id": 1, "epoch": 1, "scores": {"s": {"value": 1}}, "metadata": {"m": 1}, "store": {},
          "events": [{"error": {"message": "inner"}}], "model_usage": {},
          "error": {"message": "outer"}}, True),
        # a marker key first inside a nested value: the whole member is parsed
        ({"id": "a", "epoch": 2, "metadata": {"x": {"a": 0, "events": [1], "model_usage": {}}},
          "store": {"k": [{"events": 2}]}, "events": [{"model_usage": {"y": 1}}],
          "model_usage": {}, "attachments": {"z": ',"events":[,"model_usage":'}}, False),
        # no transcript at all
        ({"id": 3, "epoch": 1, "store": {}, "model_usage": {}}, False),
        # a nested marker only: no top-level one
        ({"id": 4, "epoch": 1, "metadata": {"events": [], "model_usage": {}}, "store": {}}, False),
    ],
)  # fmt: skip
def test_parsing_around_the_transcript_keeps_every_top_level_field(
    member: dict, skipped: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert frames._skippable_in_this_inspect()  # Inspect's field order still allows skipping
    monkeypatch.setattr(frames, "_SKIP_TRANSCRIPT", True)
    raw = json.dumps(member, separators=(",", ":")).encode()
    fields = frames._sample_fields(raw)
    expected = {k: v for k, v in member.items() if k not in ("events", "timelines")}
    assert {k: fields[k] for k in expected} == expected
    if "events" in member:  # which path read it
        assert ("events" not in fields) == skipped


def test_suites_analyse_with_blas_on_one_thread(
    logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenBLAS's workers only spin on the analyses' small products (and the numbers must not
    depend on the machine's core count): each suite's analysis runs with one BLAS thread."""
    from threadpoolctl import threadpool_info

    import biaslab.suites.defeasible.analysis as defeasible_analysis

    seen: list[list[int]] = []
    real = defeasible_analysis.analyze

    def spy(frame: pd.DataFrame, *args: object, **kwargs: object) -> object:
        seen.append([i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"])
        return real(frame, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(defeasible_analysis, "analyze", spy)
    analyse(logs, suite="defeasible")
    assert seen and all(threads and set(threads) == {1} for threads in seen)
