"""Junk lines of the kinds other people's files carry, none of which the shared reader
(:mod:`biaslab.rows`) can read as a row: for the tests that insert them into a good file and
check that nothing stops and nothing read from the good rows changes."""

from __future__ import annotations

import json

from hypothesis import strategies as st

#: any text on one line (surrogates cannot be written as UTF-8)
_ONE_LINE = st.characters(blacklist_categories=("Cs",), blacklist_characters="\n")
#: a CSV value that needs no quoting (a stray quote could open a field that swallows good rows:
#: that case is tested on its own, with the lines it costs named), without a NUL byte
CSV_VALUE = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters='",\r\n\x00'), max_size=8
)


def _not_an_object(line: str) -> bool:
    try:
        return not isinstance(json.loads(line), dict)
    except json.JSONDecodeError:
        return True


def jsonl_junk() -> st.SearchStrategy[str]:
    """A line of a ``.jsonl`` file that holds no JSON object: JSON of another kind, or text."""
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
    as_json = values.map(lambda value: json.dumps(value, ensure_ascii=False))
    return as_json | st.text(_ONE_LINE, max_size=40).filter(_not_an_object)


def csv_junk(width: int) -> st.SearchStrategy[str]:
    """A line of a CSV file of ``width`` columns that cannot be read as a row: the wrong number
    of values, a NUL byte, or a quoted value with text after its closing quote."""
    wrong_width = st.lists(CSV_VALUE, min_size=1, max_size=2 * width + 1).filter(
        lambda values: len(values) != width
    )
    with_nul = st.lists(CSV_VALUE, min_size=width, max_size=width).map(
        lambda values: ",".join(values) + "\x00"
    )
    broken = st.tuples(CSV_VALUE, CSV_VALUE).map(lambda pair: f'"{pair[0]}"x{pair[1]}')
    return wrong_width.map(",".join) | with_nul | broken


def is_blank(line: str, suffix: str) -> bool:
    """A junk line the reader skips as blank rather than counts."""
    if suffix == ".csv":
        return "\x00" not in line and not any(value.strip() for value in line.split(","))
    return not line.strip()


@st.composite
def with_junk(
    draw: st.DrawFn, records: list[str], junk: st.SearchStrategy[str], max_junk: int = 6
) -> tuple[list[str], list[str]]:
    """``records`` (lines of a file, after any header) with junk lines put in anywhere, and the
    junk lines put in."""
    lines = list(records)
    inserted = draw(st.lists(junk, max_size=max_junk))
    for line in inserted:
        lines.insert(draw(st.integers(0, len(lines))), line)
    return lines, inserted
