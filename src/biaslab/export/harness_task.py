"""Items as an lm-evaluation-harness task: a task YAML, its documents and a loader beside them.

Layout (pass ``--include_path DIR`` to ``lm_eval``)::

    DIR/biaslab_<suite>.yaml       the task: generate_until, the suite's own prompt text
    DIR/biaslab_<suite>.jsonl      one document per item (the whole item rides along as JSON)
    DIR/biaslab_<suite>_docs.py    loads the documents from beside itself

The loader exists because a task YAML's ``data_files`` are resolved against the directory
``lm_eval`` is started from, not the YAML's: with the loader the folder can be moved or shared.

Only suites whose items are one prompt and one reply, read without a judge, become tasks. The
harness's own ``exact_match`` on the ``Answer:`` line is a quick look; the numbers that count come
from ``biaslab analyze`` on the harness's ``--log_samples`` output, which reads every reply with the
suite's own parser and gives the same statistics as a biaslab run.
"""

from __future__ import annotations

import json
from pathlib import Path

from biaslab.errors import BiaslabError
from biaslab.export.items import ItemSet, single_prompt_doc
from biaslab.schema import dumps_sorted

TASK_VERSION = 1
#: the last ``Answer: <label>`` of a reply (labels are letters, words or number words)
LABEL_ANSWER_PATTERN = r"(?i)answer\s*(?:is|[:=])\s*[*_`]*\s*\(?([a-z0-9]+)"
#: the last ``Answer: <text>`` line of a reply (an open-ended conclusion)
OPEN_ANSWER_PATTERN = r"(?i)answer\s*:\s*(.+)"

#: why a suite's items cannot be one harness prompt (suites not named here are checked by shape)
UNFIT = {
    "defeasible": "its items are conversations of several turns, each question asked after "
    "the model's previous answer, and lm-eval's generate_until asks one prompt",
    "entrenchment": "its answers are belief reports read over several rounds and graded by a "
    "judge model (the judge role), which an lm-eval task has no place for",
}


def task_name(suite: str) -> str:
    return f"biaslab_{suite}"


def check_single_prompt(item_set: ItemSet) -> None:
    """A one-line error for a suite or file whose items are not one prompt each."""
    from biaslab.suites.registry import get_suite

    suite = item_set.suite
    reason = UNFIT.get(suite)
    if reason is None and get_suite(suite).roles:
        reason = f"it needs the model role(s) {', '.join(get_suite(suite).roles)} besides the model"
    if reason is None:
        multi = next((item for item in item_set.items if len(item.turns) != 1), None)
        if multi is not None:
            reason = f"item {multi.id} has {len(multi.turns)} turns, not one"
    if reason is not None:
        raise BiaslabError(
            f"--format lm-eval: {suite} items cannot be an lm-eval task: {reason} "
            "(--format hf exports them as a dataset)"
        )


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string escapes are YAML's)."""
    return json.dumps(text, ensure_ascii=False)


def task_yaml(item_set: ItemSet) -> str:
    meta = item_set.meta
    name = task_name(meta.suite)
    open_ended = any(item.turns[0].labels is None for item in item_set.items)
    pattern = OPEN_ANSWER_PATTERN if open_ended else LABEL_ANSWER_PATTERN
    n = len(item_set.items)
    return f"""# lm-evaluation-harness task: {n} biaslab {meta.suite} probes, seed {meta.seed},
# {meta.generator_version}. Written by `biaslab export --format lm-eval`.
#
#   lm_eval --model ... --include_path THIS_FOLDER --tasks {name} \\
#     --apply_chat_template --log_samples --output_path OUT
#   biaslab analyze OUT        # the suite's statistics, read from the logged samples
#
# exact_match below compares the reply's last "Answer:" line with the gold as plain text: a quick
# look only. biaslab analyze reads each reply with the suite's own parser.
task: {name}
custom_dataset: !function {name}_docs.load
test_split: test
output_type: generate_until
description: system
doc_to_text: prompt
doc_to_target: gold
generation_kwargs:
  until: []
  do_sample: false
  temperature: 0.0
  max_gen_toks: 2048
filter_list:
  - name: answer-line
    filter:
      - function: regex
        regex_pattern: {_quoted(pattern)}
        group_select: -1
      - function: take_first
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
    ignore_case: true
    ignore_punctuation: true
metadata:
  version: {TASK_VERSION}
  biaslab_suite: {_quoted(meta.suite)}
  biaslab_seed: {meta.seed}
  biaslab_generator_version: {_quoted(meta.generator_version)}
  biaslab_schema_version: {meta.schema_version}
"""


def loader_source(suite: str) -> str:
    name = task_name(suite)
    return f'''"""Loads the documents of the lm-eval task {name} (written by biaslab export) from the
JSON-lines file beside this module, so the task folder can be moved; needs only `datasets`."""

import json
from pathlib import Path

import datasets

DOCS = Path(__file__).with_name("{name}.jsonl")


def load(**metadata):
    """The test split, one document per item (lm-eval passes the task's metadata; unused)."""
    with DOCS.open(encoding="utf-8") as handle:
        docs = [json.loads(line) for line in handle if line.strip()]
    return datasets.DatasetDict({{"test": datasets.Dataset.from_list(docs)}})
'''


def export_lm_eval(item_set: ItemSet, out: Path) -> list[Path]:
    """Write the task to ``out`` and return the files written."""
    check_single_prompt(item_set)
    if out.exists() and not out.is_dir():
        raise BiaslabError(f"-o {out}: exists and is not a directory")
    name = task_name(item_set.suite)
    docs = "".join(
        dumps_sorted(single_prompt_doc(item, item_set.meta.seed)) + "\n" for item in item_set.items
    )
    files = {
        out / f"{name}.yaml": task_yaml(item_set),
        out / f"{name}.jsonl": docs,
        out / f"{name}_docs.py": loader_source(item_set.suite),
    }
    try:
        out.mkdir(parents=True, exist_ok=True)
        for path, text in files.items():
            path.write_text(text, encoding="utf-8", newline="\n")
    except OSError as exc:
        raise BiaslabError(f"cannot write {out}: {exc.strerror or exc}") from exc
    return list(files)
