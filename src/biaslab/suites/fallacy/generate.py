"""Items of the fallacy suite: problems whose ETR conclusion is a fallacy, byte-reproducible.

Problem i draws only from ``item_random(seed, "fallacy", i)`` (its search) and two named
sub-streams (whether it is quantified; its theme and words), and is assigned its size
(``min_atoms + i mod sizes``) before the search starts, so problem i is the same whether 10 or
1000 are generated and whatever the number of workers. The search runs in pinned worker processes
(:mod:`biaslab.suites.fallacy.workers`); rendering runs here. With ``-p problems=FILE.jsonl``
the problems come from a file instead and are checked, not searched for.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from biaslab import progress
from biaslab.errors import BiaslabError
from biaslab.schema import Item, ItemList, RejectedRow, Turn, jsonl_objects
from biaslab.seeding import item_random
from biaslab.suites.fallacy import workers
from biaslab.suites.fallacy.config import MAX_PROBLEMS, Config
from biaslab.suites.fallacy.render import NOTHING, prompt, view_text
from biaslab.suites.fallacy.themes import Names, draw_names, get_theme, source_names
from biaslab.suites.fallacy.views import Literal, MView

GENERATOR_VERSION = "2"
SUITE = "fallacy"
PARSER = "view"
KIND = "conclusion"


@dataclass(frozen=True)
class SearchTask:
    seed: int
    index: int
    size: int
    quantified: bool
    max_premises: int


@dataclass(frozen=True)
class Solved:
    """A problem and its facts, as a worker returns them."""

    premises: tuple[MView, ...]
    facts: Any  # biaslab.suites.fallacy.solve.Facts (imported in workers only)
    rejections: dict[str, int]
    source: str


#: problems found in a row whose analysis went over budget before one search gives up
MAX_UNANALYSABLE = 10


def _search(task: SearchTask) -> Solved:
    """Worker: find and analyse problem ``task.index``. A problem whose analysis (chance counts,
    endorsements) goes over the work budget is rejected like any candidate and the search goes
    on with the same random stream, so the outcome is still a function of the index."""
    from biaslab.suites.fallacy import etr
    from biaslab.suites.fallacy.deciders import problem_context
    from biaslab.suites.fallacy.search import Limits, find_problem
    from biaslab.suites.fallacy.solve import analyse

    rng = item_random(task.seed, SUITE, task.index)
    rejections: Counter[str] = Counter()
    for _ in range(MAX_UNANALYSABLE):
        with problem_context():
            found = find_problem(rng, task.size, Limits(task.quantified, task.max_premises))
            rejections.update(found.rejections)
            try:
                facts = analyse(found.premises, found.known)
            except etr.OverBudget:
                rejections["analysis over budget"] += 1
                continue
        return Solved(found.premises, facts, dict(sorted(rejections.items())), "generated")
    raise BiaslabError(
        f"fallacy: problem {task.index}: {MAX_UNANALYSABLE} problems found in a row could not "
        "be analysed within the work budget"
    )


def _import(texts: tuple[str, ...]) -> Solved | str:
    """Worker: read and analyse an imported problem (a one-line reason if it cannot be used)."""
    from biaslab.suites.fallacy import etr

    premises = []
    for number, text in enumerate(texts, start=1):
        try:
            from pyetr import View

            premises.append(etr.from_view(View.from_str(text)).canonical())
        except Exception as exc:  # PyETR's parser raises several types, with multi-line messages
            return (
                f"premise {number} {text!r}: cannot read it as a monadic PyETR view "
                f"({type(exc).__name__}: {_one_line(str(exc))})"
            )
    from biaslab.suites.fallacy.deciders import problem_context
    from biaslab.suites.fallacy.solve import analyse

    try:
        with problem_context():
            facts = analyse(tuple(premises))
    except (etr.OverBudget, ValueError) as exc:
        return f"cannot analyse the problem: {_one_line(str(exc))}"
    except Exception as exc:  # PyETR or the solvers failing on an unusual view: name it, go on
        return f"cannot analyse the problem ({type(exc).__name__}: {_one_line(str(exc))})"
    return Solved(tuple(premises), facts, {}, "imported")


_FOUND = re.compile(r"found (.+?)\s+\(at char (\d+)\)")


def _one_line(message: str) -> str:
    """A library message on one line: pyparsing's 'Expected <grammar>, found X (at char N)'
    becomes 'unexpected X at character N'; anything else has its whitespace collapsed."""
    found = _FOUND.search(message)
    if found:
        what = "end of text" if found.group(1) == "end of text" else found.group(1)
        return f"unexpected {what} at character {found.group(2)}"
    text = " ".join(message.split())
    return text if len(text) <= 200 else text[:197] + "..."


def search_task(config: Config, seed: int, index: int) -> SearchTask:
    """What the search for problem ``index`` of ``seed`` is given (its size and whether it is
    quantified are drawn per index, so problem i is the same in a set of any size)."""
    sizes = config.sizes
    return SearchTask(
        seed=seed,
        index=index,
        size=sizes[index % len(sizes)],
        quantified=item_random(seed, "fallacy-quantified", index).random() < config.quantified,
        max_premises=config.max_premises,
    )


def generate(config: Config, seed: int, n: int) -> list[Item]:
    if config.problems is not None:
        return _imported_items(config, seed, Path(config.problems))
    if n > MAX_PROBLEMS:
        raise BiaslabError(
            f"fallacy: --n {n} is above the limit of {MAX_PROBLEMS:,} problems per call "
            "(generate larger sets as several seeds)"
        )
    tasks = [search_task(config, seed, i) for i in range(n)]
    count = config.workers or workers.default_workers()
    progress.expect(n)  # about 0.1-0.2 CPU-s per problem: a bar for large sets
    solved = []
    for problem in workers.map_ordered(_search, tasks, count):
        solved.append(problem)
        progress.advance()
    items: list[Item] = []
    for task, problem in zip(tasks, solved, strict=True):
        theme_rng = item_random(seed, "fallacy-theme", task.index)
        theme = get_theme(theme_rng.choice(config.themes))
        names = _names(problem.premises, theme.key, theme_rng)
        problem_id = f"s{seed}-p{task.index:04d}"
        items.extend(_items(problem_id, problem, names, config, {"size": task.size}))
    return items


def _names(premises: Sequence[MView], theme: str, rng: Any) -> Names:
    constants = set().union(*(p.constants() for p in premises))
    predicates = set().union(*(p.predicates() for p in premises))
    return draw_names(get_theme(theme), constants, predicates, rng)


def oracle_text(entailed: Sequence[Literal], names: Names) -> str:
    """The strongest valid categorical conclusion over the problem's atoms, in English."""
    if not entailed:
        return NOTHING
    return view_text(MView.build([list(entailed)]), names)


def _items(
    problem_id: str, problem: Solved, names: Names, config: Config, extra: dict[str, JsonValue]
) -> list[Item]:
    facts = problem.facts
    theme = get_theme(names.theme)
    meta: dict[str, JsonValue] = {
        "problem_id": problem_id,
        "source": problem.source,
        "theme": names.theme,
        "names": names.to_json(),
        "n_premises": len(problem.premises),
        "n_atoms": sum(p.n_atoms for p in problem.premises),
        "quantified": any(p.quantified for p in problem.premises),
        "etr_conclusion": facts.conclusion.text,
        "etr_conclusion_reversed": facts.reversed_conclusion.text,
        "etr_categorical": facts.conclusion.categorical,
        "reversed_categorical": facts.reversed_conclusion.categorical,
        "reversal_changes_conclusion": facts.conclusion.text != facts.reversed_conclusion.text,
        "etr_endorses_conclusion": facts.endorsed,
        # from inconsistent premises everything follows, ETR's conclusion too
        "valid": True
        if facts.inconsistent
        else None
        if facts.decision is None
        else facts.decision.entailed,
        "deciders_agree": None if facts.decision is None else facts.decision.agree,
        "decider_finite": None if facts.decision is None else facts.decision.finite.detail,
        "decider_unbounded": None if facts.decision is None else facts.decision.unbounded.detail,
        "oracle_conclusion": oracle_text(facts.entailed, names),
        "search_rejections": dict(problem.rejections),
        **extra,
    }
    if facts.conclusion.categorical and facts.conclusion.view is not None:
        meta["etr_conclusion_english"] = view_text(facts.conclusion.view, names)
    items = []
    for order in config.orders:
        shown = list(problem.premises) if order == "standard" else list(reversed(problem.premises))
        shown_texts = list(facts.premise_texts)
        if order == "reversed":
            shown_texts.reverse()
        suffix = "" if order == "standard" else "-r"
        chance = facts.chance if order == "standard" else facts.chance_reversed
        turn = Turn(
            index=0,
            prompt=prompt(shown, names, theme),
            kind=KIND,
            parser=PARSER,
            gold=str(meta["oracle_conclusion"]),
        )
        items.append(
            Item(
                suite=SUITE,
                id=f"fallacy-{problem_id}{suffix}",
                turns=(turn,),
                meta={**meta, "order": order, "premises": shown_texts, **_chance_meta(chance)},
            )
        )
    return items


def _chance_meta(chance: Any) -> dict[str, JsonValue]:
    """The chance level's counts for the premises in the order shown (None: no candidates)."""
    return {
        "chance_size": None if chance is None else chance.size,
        "chance_candidates": None if chance is None else chance.candidates,
        "chance_wrong": None if chance is None else chance.wrong,
        "chance_fallacies": None if chance is None else chance.fallacies_robust,
        "chance_fallacies_paper": None if chance is None else chance.fallacies_paper,
        "chance_share": None if chance is None else chance.share_robust,
        "chance_share_paper": None if chance is None else chance.share_paper,
        # per exact answer size j: [j, wrong candidates, robust fallacies, paper fallacies]
        "chance_by_size": None
        if chance is None
        else [[c.size, c.wrong, c.fallacies_robust, c.fallacies_paper] for c in chance.by_size],
    }


# --------------------------------------------------------------------------------------------------
# import
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Row:
    line: int
    id: str
    premises: tuple[str, ...]
    theme: str | None
    names: dict[str, str] | None = None


class _Rejected(Exception):
    """A row that makes no item (its reason; its id when it has one)."""

    def __init__(self, reason: str, row_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason, self.row_id = reason, row_id


def read_problem_rows(path: Path, strict: bool = False) -> tuple[list[_Row], list[RejectedRow]]:
    """Rows ``{"id": …, "premises": ["<PyETR view>", …], "theme": …, "names": {…}}``, one per
    line (other keys are ignored: published sets carry their own labels), and the lines that
    cannot be a problem, with the reason. ``strict``: the first such line is a one-line error."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BiaslabError(f"cannot read {path}: {exc}") from exc
    rows: list[_Row] = []
    rejected: list[RejectedRow] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        try:
            row = _problem_row(path, number, line, seen)
        except _Rejected as exc:
            if strict:
                raise BiaslabError(f"{path}:{number}: {exc.reason}") from None
            rejected.append(RejectedRow(line=number, id=exc.row_id, reason=exc.reason))
            continue
        if row is not None:
            seen[row.id] = number
            rows.append(row)
    return rows, rejected


def _problem_row(path: Path, number: int, line: str, seen: Mapping[str, int]) -> _Row | None:
    """One line as a row (None if blank), or :class:`_Rejected` with the reason."""
    try:
        found = list(jsonl_objects([line], lambda _: f"{path}:{number}"))
    except BiaslabError as exc:
        raise _Rejected(str(exc).removeprefix(f"{path}:{number}: ")) from None
    if not found:
        return None
    ((_, data),) = found
    raw_id = data.get("id", number)
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or str(raw_id) == "":
        raise _Rejected("'id' must be a non-empty string or an integer")
    row_id = str(raw_id)
    premises = data.get("premises")
    if (
        not isinstance(premises, list)
        or not premises
        or not all(isinstance(p, str) for p in premises)
    ):
        raise _Rejected("'premises' must be a non-empty list of strings", row_id)
    if row_id in seen:
        raise _Rejected(f"duplicate id {row_id!r} (first on line {seen[row_id]})", row_id)
    theme = data.get("theme")
    if theme is not None:
        try:
            get_theme(str(theme))
        except BiaslabError as exc:
            raise _Rejected(str(exc), row_id) from None
    names = data.get("names")
    if names is not None and (
        not isinstance(names, dict)
        or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in names.items()
        )
    ):
        raise _Rejected("'names' must map identifiers to non-empty English words", row_id)
    return _Row(
        number, row_id, tuple(premises), None if theme is None else str(theme), names or None
    )


def _imported_items(config: Config, seed: int, path: Path) -> ItemList:
    rows, rejected = read_problem_rows(path, config.strict)
    results: list[Solved | str] = []
    if rows:
        count = config.workers or workers.default_workers()
        progress.expect(len(rows))
        for result in workers.map_ordered(_import, [r.premises for r in rows], count):
            results.append(result)
            progress.advance()
    items: list[Item] = []
    inconsistent = 0
    for row, result in zip(rows, results, strict=True):
        try:
            if isinstance(result, str):
                raise BiaslabError(result)
            items.extend(_imported_problem(config, seed, row, result))
            inconsistent += result.facts.inconsistent
        except BiaslabError as exc:
            if config.strict:
                raise BiaslabError(f"{path}:{row.line}: {exc}") from exc
            rejected.append(RejectedRow(line=row.line, id=row.id, reason=str(exc)))
    rejected.sort(key=lambda r: r.line)
    problems = len({item.meta["problem_id"] for item in items})
    if not items:
        why = _reasons(rejected) or "the file has no rows"
        raise BiaslabError(f"{path}: no usable problems ({why})")
    summary = f"{path.name}: imported {problems} of {problems + len(rejected)} problems"
    if inconsistent:
        summary += f" ({inconsistent} with inconsistent premises: valid, kept out of FallacyRate)"
    if rejected:
        summary += (
            f"; skipped {len(rejected)} (biaslab generate lists each in the sidecar's rejected_rows): "
            + _reasons(rejected)
        )
    return ItemList(items, rejected, summary)


def _reasons(rejected: Sequence[RejectedRow]) -> str:
    """'line 3: reason; line 9: reason' for the first few rejected rows."""
    shown = "; ".join(f"line {r.line}: {r.reason}" for r in rejected[:3])
    return shown + (f"; and {len(rejected) - 3} more" if len(rejected) > 3 else "")


def _imported_problem(config: Config, seed: int, row: _Row, problem: Solved) -> list[Item]:
    """The items of one analysed row, told in a theme's words or in the file's own."""
    if config.names == "source" or row.names:
        constants = set().union(*(p.constants() for p in problem.premises))
        predicates = set().union(*(p.predicates() for p in problem.premises))
        names = source_names(constants, predicates, row.names or {})
    else:
        theme_rng = item_random(seed, "fallacy-theme", row.id)
        names = _names(problem.premises, row.theme or theme_rng.choice(config.themes), theme_rng)
    extra: dict[str, JsonValue] = {"line": row.line, "inconsistent": problem.facts.inconsistent}
    return _items(row.id, problem, names, config, extra)


# --------------------------------------------------------------------------------------------------
# label balance
# --------------------------------------------------------------------------------------------------


def label_stats(items: Iterable[Item]) -> dict[str, Any]:
    """What ``biaslab generate fallacy --stats`` prints: sizes, shapes, themes, validity, chance."""
    problems: dict[str, dict[str, JsonValue]] = {}
    for item in items:
        problems.setdefault(str(item.meta["problem_id"]), dict(item.meta))
    metas = list(problems.values())
    rejections: Counter[str] = Counter()
    for meta in metas:
        raw = meta.get("search_rejections") or {}
        assert isinstance(raw, dict)
        rejections.update({str(k): int(v) for k, v in raw.items() if isinstance(v, int)})
    shares = [float(v) for m in metas if isinstance(v := m.get("chance_share"), float | int)]
    return {
        "problems": len(metas),
        "atoms": dict(
            sorted(
                Counter(int(m["n_atoms"]) for m in metas if isinstance(m["n_atoms"], int)).items()
            )
        ),
        "premises": dict(
            sorted(
                Counter(
                    int(m["n_premises"]) for m in metas if isinstance(m["n_premises"], int)
                ).items()
            )
        ),
        "themes": dict(sorted(Counter(str(m["theme"]) for m in metas).items())),
        "quantified": sum(bool(m["quantified"]) for m in metas),
        "valid": sum(m.get("valid") is True for m in metas),
        "invalid": sum(m.get("valid") is False for m in metas),
        "inconsistent": sum(m.get("inconsistent") is True for m in metas),
        "deciders_agree": sum(m.get("deciders_agree") is True for m in metas),
        "etr_categorical": sum(m.get("etr_categorical") is True for m in metas),
        "reversal_changes_conclusion": sum(
            m.get("reversal_changes_conclusion") is True for m in metas
        ),
        "reversed_categorical": sum(m.get("reversed_categorical") is True for m in metas),
        "chance_share_mean": sum(shares) / len(shares) if shares else None,
        "search_rejections": dict(sorted(rejections.items())),
    }
