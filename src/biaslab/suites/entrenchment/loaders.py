"""Readers for the files a user downloads: ForecastBench question/resolution sets and Perspectrum
claims. Nothing third-party ships with biaslab; a missing or malformed file is one line saying what
is wrong and where to get it.

ForecastBench (CC BY-SA 4.0): a question set is ``{"questions": [{"id", "source", "question",
"background", "resolution_criteria", "freeze_datetime_value", ...}]}`` and a resolution set
``{"resolutions": [{"id", "source", "resolved_to", "resolved", "resolution_date"}]}``. Only market
questions (sources :data:`MARKET_SOURCES`) are binary; dataset questions (ACLED, FRED, …) are
templated multi-horizon series and are skipped. With a resolution set, only questions resolved to
0 or 1 are kept (unresolved rows carry the current market value with ``resolved=false``);
``resolved_after`` keeps those resolved after a date. Background text is HTML-stripped.

Perspectrum (CC BY-SA 4.0): ``perspectrum_with_answers_v1.0.json`` is a list of
``{"cId", "text", "source", "perspectives", "topics"}``; only the claim text is used.

Every file may be JSON (a list of records, or an object holding the list under its key) or JSON
Lines (one record per line). A file with no usable record is one line naming the fields a record
needs and showing one valid record.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from biaslab.errors import BiaslabError

MARKET_SOURCES = frozenset({"manifold", "metaculus", "polymarket", "infer"})
FORECASTBENCH_HELP = (
    "download a question set (datasets/question_sets/*.json) and a resolution set "
    "(datasets/resolution_sets/*.json) from github.com/forecastingresearch/forecastbench-datasets"
)
PERSPECTRUM_HELP = (
    "download data/dataset/perspectrum_with_answers_v1.0.json from github.com/CogComp/perspectrum"
)
REVIEWS_HELP = (
    "a file of submissions with their reviews and decision, e.g. PeerRead's reviews/*.json "
    "(github.com/allenai/PeerRead) gathered into one JSON Lines file, or notes exported from "
    "OpenReview with openreview-py"
)
OPINIONS_HELP = (
    "a file of opinion posts with whether the author's view changed, e.g. the ChangeMyView "
    "'Winning Arguments' corpus (Tan et al. 2016; ConvoKit's winning-args-corpus, or the "
    "original pair_task/op_task JSON Lines) with its delta_label"
)
PERSPECTIVES_HELP = (
    "download data/dataset/perspective_pool_v1.0.json from github.com/CogComp/perspectrum "
    "(the texts of the perspectives a claims file refers to by id)"
)


@dataclass(frozen=True)
class ExternalQuestion:
    key: str
    text: str
    background: str = ""
    criteria: str = ""
    outcome: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    option_yes: str = "yes"
    option_no: str = "no"


class _TextOnly(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("p", "br", "li", "div"):
            self.parts.append("\n")


def strip_html(text: str) -> str:
    """Visible text of an HTML fragment, whitespace collapsed (line breaks kept single)."""
    parser = _TextOnly()
    parser.feed(text or "")
    parser.close()
    plain = html.unescape("".join(parser.parts))
    lines = [" ".join(line.split()) for line in plain.splitlines()]
    return "\n".join(line for line in lines if line)


def _read_records(path_text: str, what: str, key: str, help_text: str) -> list[Any]:
    """The records of a downloaded file, as JSON or as JSON Lines (``.jsonl``, or any file whose
    text is one JSON value per line): a JSON list, a JSON object holding the list under ``key``,
    or one record per line. Malformed JSON is one line naming the line."""
    from biaslab.schema import jsonl_objects

    path = Path(path_text).expanduser()
    if not path.is_file():
        raise BiaslabError(f"{what} not found: {path} ({help_text})")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise BiaslabError(f"cannot read {what} {path}: {exc}") from None
    if path.suffix != ".jsonl":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data":  # JSON Lines under another name
                raise BiaslabError(
                    f"{what} {path} is not valid JSON (line {exc.lineno}: {exc.msg})"
                ) from None
        else:
            if isinstance(data, dict) and isinstance(data.get(key), list):
                return list(data[key])
            return data if isinstance(data, list) else [data]
    lines = jsonl_objects(text.splitlines(), lambda number: f"{what} {path} line {number}")
    return [data[key] if set(data) == {key} else data for _, data in lines]


def _shape_error(path: str, what: str, fields: str, example: dict[str, Any], help_text: str) -> str:
    """Nothing usable in a file: the fields a record needs and one valid record."""
    return (
        f"{path}: no {what} records found: each needs {fields}, e.g. "
        f"{json.dumps(example, ensure_ascii=False)} ({help_text})"
    )


FORECASTBENCH_EXAMPLE = {
    "id": "Q123",
    "source": "metaculus",
    "question": "Will X happen by 2026?",
    "background": "…",
}
FORECASTBENCH_RESOLUTION_EXAMPLE = {
    "id": "Q123",
    "source": "metaculus",
    "resolved": True,
    "resolved_to": 1,
    "resolution_date": "2026-01-31",
}
PERSPECTRUM_EXAMPLE = {"cId": 12, "text": "Cities should ban cars", "topics": ["transport"]}


def _resolutions(path: str, after: dt.date | None) -> dict[tuple[str, str], tuple[int, str]]:
    rows = _read_records(path, "ForecastBench resolution set", "resolutions", FORECASTBENCH_HELP)
    if not any(isinstance(r, dict) and {"id", "resolved", "resolved_to"} <= set(r) for r in rows):
        raise BiaslabError(
            _shape_error(
                path,
                "ForecastBench resolution",
                "id, source, resolved, resolved_to (and resolution_date)",
                FORECASTBENCH_RESOLUTION_EXAMPLE,
                FORECASTBENCH_HELP,
            )
        )
    out: dict[tuple[str, str], tuple[int, str]] = {}
    for row in rows:
        if not isinstance(row, dict) or row.get("resolved") is not True:
            continue
        value = row.get("resolved_to")
        if isinstance(value, bool) or value not in (0, 1, 0.0, 1.0):
            continue
        date = str(row.get("resolution_date", ""))
        if after is not None and not _after(date, after):
            continue
        out[(str(row.get("source", "")), str(row.get("id", "")))] = (int(value), date)
    return out


def _after(date: str, cutoff: dt.date) -> bool:
    try:
        return dt.date.fromisoformat(date[:10]) > cutoff
    except ValueError:
        return False


def forecastbench_questions(
    questions: str, resolutions: str | None, resolved_after: dt.date | None, context_chars: int
) -> list[ExternalQuestion]:
    """Binary market questions of a question set, joined with a resolution set when given."""
    if resolved_after is not None and resolutions is None:
        raise BiaslabError(
            "resolved_after needs -p resolutions=PATH (a ForecastBench resolution set)"
        )
    rows = _read_records(questions, "ForecastBench question set", "questions", FORECASTBENCH_HELP)
    if not any(isinstance(r, dict) and {"id", "source", "question"} <= set(r) for r in rows):
        raise BiaslabError(
            _shape_error(
                questions,
                "ForecastBench question",
                "id, source, question (background and resolution_criteria optional)",
                FORECASTBENCH_EXAMPLE,
                FORECASTBENCH_HELP,
            )
        )
    resolved = _resolutions(resolutions, resolved_after) if resolutions else None
    out: dict[str, ExternalQuestion] = {}
    for row in rows:
        if not isinstance(row, dict) or str(row.get("source", "")) not in MARKET_SOURCES:
            continue
        source, qid = str(row["source"]), row.get("id")
        text = strip_html(str(row.get("question") or ""))
        if not isinstance(qid, str) or not text:
            continue
        outcome: int | None = None
        meta: dict[str, Any] = {"platform": source}
        if resolved is not None:
            if (source, qid) not in resolved:
                continue
            outcome, meta["resolution_date"] = resolved[(source, qid)]
        crowd = _float_or_none(row.get("freeze_datetime_value"))
        if crowd is not None:
            meta["crowd"] = crowd
        out[f"{source}:{qid}"] = ExternalQuestion(
            key=f"forecastbench:{source}:{qid}",
            text=text,
            background=_truncate(strip_html(str(row.get("background") or "")), context_chars),
            criteria=_truncate(strip_html(str(row.get("resolution_criteria") or "")), 500),
            outcome=outcome,
            meta=meta,
        )
    if not out:
        detail = " resolved to 0/1" if resolved is not None else ""
        raise BiaslabError(f"{questions}: no binary market questions{detail} to ask")
    return [out[k] for k in sorted(out)]


def _float_or_none(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if 0.0 <= number <= 1.0 else None


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def perspectrum_claims(path: str) -> list[ExternalQuestion]:
    """Every claim of a Perspectrum file, ordered by claim id."""
    data = _read_records(path, "Perspectrum file", "claims", PERSPECTRUM_HELP)
    out: dict[int, ExternalQuestion] = {}
    for row in data:
        if not isinstance(row, dict) or not isinstance(row.get("cId"), int):
            continue
        text = " ".join(str(row.get("text") or "").split())
        if not text:
            continue
        text = text[0].upper() + text[1:]
        topics = [str(t) for t in row.get("topics") or [] if isinstance(t, str)]
        out[row["cId"]] = ExternalQuestion(
            key=f"perspectrum:{row['cId']}", text=text, meta={"topics": ",".join(topics)}
        )
    if not out:
        raise BiaslabError(
            _shape_error(
                path,
                "Perspectrum claim",
                "cId (an integer) and text",
                PERSPECTRUM_EXAMPLE,
                PERSPECTRUM_HELP,
            )
        )
    return [out[k] for k in sorted(out)]


_SENTENCE_END = re.compile(r"[.!?]$")


def as_sentence(text: str) -> str:
    return text if _SENTENCE_END.search(text) else f"{text}."


# ---------------------------------------------------------------------------------------------
# Paper reviews (accept / reject) and opinion posts (view changed or not)
# ---------------------------------------------------------------------------------------------

REVIEW_EXAMPLE = {
    "id": "paper-17",
    "title": "A study of X",
    "abstract": "We study X ...",
    "reviews": [{"comments": "The paper is clear ..."}],
    "decision": "Accept (Poster)",
}
OPINION_EXAMPLE = {
    "id": "t3_abc12",
    "title": "CMV: Cities should ban cars",
    "selftext": "I think ...",
    "delta_label": True,
}
_REVIEW_TEXT_KEYS = ("comments", "review", "text", "main_review", "summary_of_the_review")
_ID_KEYS = ("id", "paper_id", "forum", "name", "op_name")


def _first(row: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((row[k] for k in keys if row.get(k) not in (None, "")), None)


def _decision(row: dict[str, Any]) -> int | None:
    """1 accepted, 0 rejected, None unknown (withdrawn, desk-rejected without a decision, ...):
    ``accepted`` (a boolean) or a ``decision`` text that says accept or reject, never both."""
    accepted = row.get("accepted")
    if isinstance(accepted, bool):
        return int(accepted)
    decision = str(row.get("decision") or "").lower()
    says_accept, says_reject = "accept" in decision, "reject" in decision
    if says_accept == says_reject:
        return None
    return int(says_accept)


def _review_texts(reviews: Any, limit: int) -> str:
    texts = []
    for index, review in enumerate(reviews if isinstance(reviews, list) else [], start=1):
        text = review if isinstance(review, str) else None
        if isinstance(review, dict):
            found = _first(review, _REVIEW_TEXT_KEYS)
            text = found if isinstance(found, str) else None
        if text and text.strip():
            texts.append(f"Review {index}: {strip_html(text)}")
    return _truncate("\n".join(texts), limit)


def paper_reviews(path: str, context_chars: int) -> list[ExternalQuestion]:
    """Submissions with a known accept/reject decision (others skipped), ordered by id. Fields:
    an id (``id``, ``paper_id`` or ``forum``), ``title``, ``abstract``, optional ``reviews`` (texts,
    or objects with ``comments``/``review``/``text``), and ``accepted`` (boolean) or ``decision``
    (text containing accept or reject)."""
    rows = _read_records(path, "reviews file", "papers", REVIEWS_HELP)
    out: dict[str, ExternalQuestion] = {}
    for row in rows:
        if not isinstance(row, dict):
            continue
        pid, title = _first(row, _ID_KEYS), " ".join(str(row.get("title") or "").split())
        outcome = _decision(row)
        if pid is None or not title or outcome is None:
            continue
        abstract = _truncate(strip_html(str(row.get("abstract") or "")), context_chars)
        reviews = _review_texts(row.get("reviews"), context_chars)
        out[str(pid)] = ExternalQuestion(
            key=f"reviews:{pid}",
            text=title,
            background=abstract,
            criteria=reviews,
            outcome=outcome,
            meta={"venue": str(row.get("venue") or row.get("conference") or "")},
            option_yes="accept",
            option_no="reject",
        )
    if not out:
        raise BiaslabError(
            _shape_error(
                path,
                "paper-review",
                "an id, title, and accepted (true/false) or a decision saying accept or reject",
                REVIEW_EXAMPLE,
                REVIEWS_HELP,
            )
        )
    return [out[k] for k in sorted(out)]


def _view_changed(row: dict[str, Any]) -> int | None:
    for key in ("delta_label", "view_changed", "delta", "changed"):
        value = row.get(key)
        if isinstance(value, bool):
            return int(value)
        if value in (0, 1) and not isinstance(value, bool):
            return int(value)
    return None


def opinion_posts(path: str, context_chars: int) -> list[ExternalQuestion]:
    """Opinion posts whose outcome is known, ordered by id. Fields: an id (``id``, ``name`` or
    ``op_name``), ``title``, the post (``selftext``, ``body`` or ``text``) and whether the author's
    view changed (``delta_label``, ``view_changed`` or ``delta``: true/false or 1/0)."""
    rows = _read_records(path, "opinion-posts file", "posts", OPINIONS_HELP)
    out: dict[str, ExternalQuestion] = {}
    for row in rows:
        if not isinstance(row, dict):
            continue
        pid, title = _first(row, _ID_KEYS), " ".join(str(row.get("title") or "").split())
        outcome = _view_changed(row)
        if pid is None or not title or outcome is None:
            continue
        body = _first(row, ("selftext", "body", "text"))
        out[str(pid)] = ExternalQuestion(
            key=f"opinions:{pid}",
            text=re.sub(r"^\s*CMV\s*:\s*", "", title, flags=re.I),
            background=_truncate(strip_html(str(body or "")), context_chars),
            outcome=outcome,
        )
    if not out:
        raise BiaslabError(
            _shape_error(
                path,
                "opinion-post",
                "an id, title, and delta_label (or view_changed) as true/false",
                OPINION_EXAMPLE,
                OPINIONS_HELP,
            )
        )
    return [out[k] for k in sorted(out)]


# ---------------------------------------------------------------------------------------------
# Perspectrum perspectives (order invariance)
# ---------------------------------------------------------------------------------------------

PERSPECTIVE_EXAMPLE = {"pId": 4, "text": "Bridges cut commuting time."}


def perspective_pool(path: str) -> dict[int, str]:
    """Perspectrum's perspective texts by id (``perspective_pool_v1.0.json``)."""
    rows = _read_records(path, "Perspectrum perspective pool", "perspectives", PERSPECTIVES_HELP)
    pool = {
        row["pId"]: " ".join(str(row.get("text") or "").split())
        for row in rows
        if isinstance(row, dict) and isinstance(row.get("pId"), int) and row.get("text")
    }
    if not pool:
        raise BiaslabError(
            _shape_error(
                path,
                "perspective",
                "pId (an integer) and text",
                PERSPECTIVE_EXAMPLE,
                PERSPECTIVES_HELP,
            )
        )
    return pool


def _stance_text(row: dict[str, Any], stance: str, pool: dict[int, str]) -> str | None:
    """The first perspective of the claim with this stance whose text the pool has."""
    for cluster in row.get("perspectives") or []:
        if not isinstance(cluster, dict) or cluster.get("stance_label_3") != stance:
            continue
        for pid in cluster.get("pids") or []:
            if isinstance(pid, int) and pid in pool:
                return pool[pid]
    return None


def perspectrum_with_perspectives(path: str, pool_path: str, order: str) -> list[ExternalQuestion]:
    """Claims that have a supporting and an undermining perspective, each shown with both:
    ``order`` ``support-first`` or ``undermine-first``. The same claims, in the same order, come
    out for either order, so two runs differ only in which perspective is read first."""
    pool = perspective_pool(pool_path)
    rows = _read_records(path, "Perspectrum file", "claims", PERSPECTRUM_HELP)
    out: dict[int, ExternalQuestion] = {}
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("cId"), int):
            continue
        text = " ".join(str(row.get("text") or "").split())
        support = _stance_text(row, "SUPPORT", pool)
        undermine = _stance_text(row, "UNDERMINE", pool)
        if not text or support is None or undermine is None:
            continue
        first, second = (support, undermine) if order == "support-first" else (undermine, support)
        out[row["cId"]] = ExternalQuestion(
            key=f"perspectrum:{row['cId']}",
            text=text[0].upper() + text[1:],
            background=f"One view: {as_sentence(first)}\nAnother view: {as_sentence(second)}",
            meta={"perspective_order": order},
        )
    if not out:
        raise BiaslabError(
            f"{path}: no claim has both a supporting and an undermining perspective in "
            f"{pool_path} ({PERSPECTIVES_HELP})"
        )
    return [out[k] for k in sorted(out)]
