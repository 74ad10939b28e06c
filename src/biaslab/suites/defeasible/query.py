"""``biaslab resolve``: a hand-written network file answered by the skeptical resolver, with its
paths streamed as JSON (one path at a time, so memory stays flat however many the network holds)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError

#: most paths of each kind ``resolve --json`` lists: every one is printed, and a DAG can hold
#: exponentially many
MAX_LISTED_PATHS = 100_000


def resolve_file(
    network: Path, subject: str | None, prop: str | None, as_json: bool, max_paths: int
) -> None:
    """Print the answer (``yes``/``no``/``unknown``), or with ``as_json`` the answer, the query
    and at most ``max_paths`` supporting and defeated paths of each kind (the rest counted)."""
    from biaslab.suites.defeasible.network import load_network
    from biaslab.suites.defeasible.resolver import explain_stream
    from biaslab.suites.defeasible.resolver import resolve as resolve_query

    net, query = load_network(network)
    subject = subject or (query.subject if query else None)
    prop = prop or (query.property if query else None)
    if not subject or not prop:
        raise BiaslabError(f'{network}: no query (add "query": {{"subject": …, "property": …}})')
    if subject not in set(net.nodes):
        raise BiaslabError(f"{network}: the subject {subject!r} is not a node of the network")
    if prop not in set(net.nodes):  # nothing states it: unknown, as the library answers
        print(f"note: the property {prop!r} is not a node of the network", file=sys.stderr)
    if not as_json:
        print(resolve_query(net, subject, prop))
        return
    stream = explain_stream(net, subject, prop)
    write = sys.stdout.write
    write("{\n")
    write(f'  "answer": {json.dumps(stream.answer)},\n')
    query_text = json.dumps({"subject": subject, "property": prop}, indent=2)
    write(f'  "query": {_indented(query_text, 2)},\n  "paths": {{\n')
    listed = {}
    for kind in ("supporting", "defeated"):
        write(f'    "{kind}": ')
        paths = islice(getattr(stream, kind), max_paths)
        listed[kind] = _write_json_list((p.to_dict() for p in paths), 4, write)
        write(",\n" if kind == "supporting" else "\n")
    omitted = {
        "supporting": stream.total_supporting - listed["supporting"],
        "defeated": stream.total_defeated - listed["defeated"],
    }
    write(f'  }},\n  "omitted": {_indented(json.dumps(omitted, indent=2), 2)}\n}}\n')
    sys.stdout.flush()


def _indented(text: str, level: int) -> str:
    """``text`` (indented JSON) nested ``level`` spaces deep: its lines after the first shifted."""
    return text.replace("\n", "\n" + " " * level)


def _write_json_list(elements: Iterator[Any], level: int, write: Callable[[str], Any]) -> int:
    """Write a JSON list one element at a time, laid out as ``json.dumps(indent=2)`` lays it out
    ``level`` spaces deep; returns the number of elements."""
    count = 0
    for element in elements:
        write("[\n" if count == 0 else ",\n")
        write(" " * (level + 2) + _indented(json.dumps(element, indent=2), level + 2))
        count += 1
    write("[]" if count == 0 else "\n" + " " * level + "]")
    return count
