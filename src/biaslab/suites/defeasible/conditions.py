"""Congruence conditions: which update turns test what (DeReLab, paper section 3.8 and appendix H).

:func:`prepare` keeps the entailment turns in a stable order (model, roles, run, item, epoch, turn:
never the frame's row order or Inspect's random run id), attaches the model's *prior* (its own
previous answer in the hypothesis section, reset to the gold at each section start) and the paired
effect-question answer; :func:`classify` assigns each update turn one congruence condition (C1-C5,
C3inh) or C0 with a reason. :data:`~biaslab.suites.defeasible.decisions.DECISIONS` says how the
paper's conditions map onto our state-delta effect labels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

RESULTS_SCHEMA_VERSION = 5
ENTAILMENT_KINDS = ("initial", "entailment")
INHERITANCE_TOPOLOGIES = ("linear", "tree")
POOLED = "inheritance"
ALL_DIFFICULTIES = "all"
STANDARD, REVERSED = "standard", "reversed"
STRENGTHENING, WEAKENING, NO_EFFECT = "strengthening", "weakening", "no effect"
DIRECTIONAL = (STRENGTHENING, WEAKENING)
CONDITIONS = ("C1", "C2", "C3", "C3inh", "C4", "C5", "C0")
ON, OFF = "on", "off"
DISTRACTOR = "distractor"

N_BOOT = 10_000  # paper: 10,000 conversation-level resamples for the OR CI
ICC_BOOT = 1_000  # paper: 1,000 resamples for the ICC CI
BAND_BOOT = 1_000  # confidence-vs-distance figure bands only
EXACT_MCNEMAR_BELOW = 25  # b + c below this: exact binomial McNemar, else chi2 with correction
SHORT_CHAIN_MAX = 2  # paper: short chains d <= 2, long d > 2
NO_LOGPROBS = "needs a provider with logprobs"
NO_EFFECT_QUESTIONS = (
    "no effect questions in this cell (asked in default reasoning only, unless the items were "
    "generated with effect_questions=always)"
)

REQUIRED_COLUMNS = (
    "model",
    "run_key",
    "item_id",
    "turn",
    "kind",
    "gold",
    "predicted",
    "parsed",
    "correct",
)
#: what identifies one conversation (the bootstrap and mixed-model cluster), in the order rows are
#: sorted by: never Inspect's run id; run_key (a hash) last, so it only separates runs that agree
#: on everything before it (e.g. two configs with the same seed)
CONVERSATION_KEY = ("model", "roles", "seed", "item_id", "epoch", "run_key")
#: optional tidy-frame columns (Turn.meta / Item.meta); missing ones are read as all-None
OPTIONAL_COLUMNS = (
    "roles",
    "seed",
    "epoch",
    "section",
    "update_index",
    "update_type",
    "polarity",
    "wording",
    "gold_before",
    "effect",
    "distance",
    "on_path",
    "label_probs",
    "item_topology",
    "item_difficulty",
    "item_question_order",
    "item_seed",
    "item_instructions",
    "item_entities",
    "item_chain_length",
    "item_depth",
    "item_n_classes",
)

# --------------------------------------------------------------------------------------------------
# Preparation: conversation ids, priors, effect pairing
# --------------------------------------------------------------------------------------------------


def _none_if_missing(value: Any) -> Any:
    """NaN/None/pd.NA -> None, everything else unchanged (frames mix them freely)."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _nones_for_missing(values: np.ndarray) -> list[Any]:
    """:func:`_none_if_missing` of every value, with one vectorised test for missing values."""
    found = values.copy()
    found[pd.isna(values)] = None
    return list(found)


def as_text(values: pd.Series) -> pd.Series:
    """``values.astype(str)`` as Python objects: each value's ``str``, a missing value NaN (as
    pandas 3's text dtype holds it), without converting the column into Arrow strings and back."""
    return _objects_like([_text(v) for v in values], values)


def transitions(rows: pd.DataFrame) -> pd.Series:
    """ "gold before->gold after" per row (NaN where either is missing), as :func:`as_text` of
    both joined by "->"."""
    return _objects_like(
        [
            b + "->" + g if isinstance(b, str) and isinstance(g, str) else math.nan
            for b, g in zip(
                (_text(v) for v in rows["gold_before"]),
                (_text(v) for v in rows["gold"]),
                strict=True,
            )
        ],
        rows["gold"],
    )


def _text(value: Any) -> Any:
    return math.nan if _none_if_missing(value) is None else str(value)


def _objects_like(values: list[Any], like: pd.Series) -> pd.Series:
    return pd.Series(values, index=like.index, dtype=object)


def clean_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Copy with every optional column present, None for missing values and a conversation id."""
    keep = [c for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if c in frame.columns]
    df = frame[keep].copy()  # only what the analysis reads: boolean selections stay cheap
    # text columns as Python objects: the analysis iterates and selects them row-wise many times,
    # and Arrow-backed strings cost a conversion per element and an Arrow ``take`` per selection
    # (about 2 CPU-s of a 20k-answer analysis); the values are the same strings (missing: NaN)
    for column in df.columns:
        if isinstance(df[column].dtype, pd.StringDtype):
            df[column] = df[column].astype(object)
    for column in OPTIONAL_COLUMNS:
        if column not in df.columns:
            df[column] = None
    df["parsed"] = df["parsed"].astype(bool)
    df["predicted"] = df["predicted"].where(df["parsed"], None)
    for column in (
        "predicted",
        "gold",
        "gold_before",
        "effect",
        "polarity",
        "update_type",
        "wording",
    ):
        df[column] = _objects_like(_nones_for_missing(df[column].to_numpy(object)), df[column])
    df["correct"] = df["correct"].astype(bool)
    df["section"] = pd.to_numeric(df["section"], errors="coerce").fillna(0).astype(int)
    df["distance"] = pd.to_numeric(df["distance"], errors="coerce")
    paths = [_path(v, t) for v, t in zip(df["on_path"], df["update_type"], strict=True)]
    df["path"] = pd.Series(paths, index=df.index, dtype=object)
    df["item_question_order"] = df["item_question_order"].fillna(STANDARD)
    df["roles"] = _objects(["" if _none_if_missing(r) is None else str(r) for r in df["roles"]], df)
    df["epoch"] = pd.to_numeric(df["epoch"], errors="coerce").fillna(1).astype(int)
    df["seed"] = pd.to_numeric(df["seed"], errors="coerce").fillna(-1).astype(int)
    df["conversation"] = _objects(
        [
            "|".join(str(part) for part in key)
            for key in zip(*(df[c] for c in CONVERSATION_KEY), strict=True)
        ],
        df,
    )
    # column labels as Python objects too: pandas looks a label up per column access, and in an
    # Arrow-backed index each lookup converts (a few thousand accesses per analysis)
    df.columns = pd.Index(list(df.columns), dtype=object)
    # a total order from the answers' identity alone: the frame's row order never matters
    order = [*CONVERSATION_KEY, "turn", "kind"]
    return df.sort_values(order, kind="stable").reset_index(drop=True)


def _objects(values: list[Any], frame: pd.DataFrame) -> pd.Series:
    """A column of Python objects (text stays out of Arrow: see :func:`clean_frame`)."""
    return pd.Series(values, index=frame.index, dtype=object)


def _path(on_path: Any, update_type: Any) -> str | None:
    """ "on" / "off" / None: the generator's on_path flag, with distractors always off-path.

    A distractor's updated node is the class holding an irrelevant attribute, which the generator
    flags on-path when that class is an ancestor of the subject; the update still cannot bear on
    the hypothesis, so it counts as off-path here (see DECISIONS["paths"]).
    """
    if update_type == DISTRACTOR:
        return OFF
    if isinstance(on_path, bool | np.bool_):
        return ON if on_path else OFF
    return None


def _priors(ent: pd.DataFrame) -> tuple[list[str | None], list[str | None]]:
    """(prior, previous answer) per entailment row; see DECISIONS["prior"]."""
    priors: list[str | None] = []
    previous: list[str | None] = []
    last_key: tuple[str, int] | None = None
    prev_kind = prev_gold = prev_pred = None
    for conv, section, kind, gold, pred, before in zip(
        ent["conversation"],
        ent["section"],
        ent["kind"],
        ent["gold"],
        ent["predicted"],
        ent["gold_before"],
        strict=True,
    ):
        if (conv, section) != last_key:
            last_key, prev_kind = (conv, section), None
        if prev_kind is None:
            priors.append(None if kind == "initial" else before)
            previous.append(None)
        else:
            priors.append(prev_gold if prev_kind == "initial" else prev_pred)
            previous.append(prev_pred)
        prev_kind, prev_gold, prev_pred = kind, gold, pred
    return priors, previous


def _effect_answers(df: pd.DataFrame) -> pd.DataFrame:
    """Effect-question answers keyed by (conversation, section, update_index)."""
    eff = df[df["kind"] == "effect"]
    keys = ["conversation", "section", "update_index"]
    out = eff[[*keys, "predicted", "gold", "correct"]].rename(
        columns={
            "predicted": "effect_predicted",
            "gold": "effect_gold",
            "correct": "effect_correct",
        }
    )
    return out.drop_duplicates(subset=keys, keep="first")


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    """Entailment rows in turn order with ``prior``, ``previous``, ``condition``, ``c0_reason`` and
    the paired effect answer (``effect_predicted``/``effect_correct``; NaN when none was asked)."""
    return prepare_clean(clean_frame(frame))


def prepare_clean(df: pd.DataFrame) -> pd.DataFrame:
    ent = df[df["kind"].isin(ENTAILMENT_KINDS)].copy()
    priors, previous = _priors(ent)
    ent["prior"], ent["previous"] = _objects(priors, ent), _objects(previous, ent)
    if (df["kind"] == "effect").any():
        ent["update_index"] = ent["update_index"].astype(object)
        effects = _effect_answers(df)
        effects["update_index"] = effects["update_index"].astype(object)
        ent = ent.merge(effects, how="left", on=["conversation", "section", "update_index"])
    else:
        ent["effect_predicted"] = None
        ent["effect_gold"] = None
        ent["effect_correct"] = np.nan
    labelled = _classified(ent, "prior")
    ent["condition"] = _objects([c for c, _ in labelled], ent)
    ent["c0_reason"] = _objects([r for _, r in labelled], ent)
    ent["condition_gold_prior"] = _objects([c for c, _ in _classified(ent, "gold_before")], ent)
    ent.columns = pd.Index(list(ent.columns), dtype=object)  # as in clean_frame (the merge)
    return ent.reset_index(drop=True)


# --------------------------------------------------------------------------------------------------
# Congruence conditions
# --------------------------------------------------------------------------------------------------


def _word_polarity(polarity: str | None) -> str:
    return {"+": "positive", "-": "negative"}.get(str(polarity), "unsigned")


def _word_path(path: str | None) -> str:
    return {ON: "on-path", OFF: "off-path"}.get(str(path), "path-unknown")


def _classify_yes(
    gold: str | None,
    effect: str,
    polarity: str | None,
    path: str | None,
    inheritance: bool,
    negative: bool,
) -> tuple[str, str | None]:
    """Prior yes: C2, C1, C3inh or C0 (see DECISIONS)."""
    if effect == WEAKENING:
        return "C2", None
    if gold != "yes":
        if effect == STRENGTHENING:
            return "C0", f"prior yes, strengthening to {gold}: the congruent answer is wrong"
        return "C0", f"prior yes but the gold stays {gold}: the prior is already wrong"
    if effect == STRENGTHENING or (polarity == "+" and path == ON):
        return "C1", None
    if negative and path == OFF:
        if inheritance:
            return "C3inh", None
        return "C0", "prior yes, no-effect negative off-path update (C3inh is inheritance-only)"
    detail = f"{_word_polarity(polarity)} {_word_path(path)}"
    return "C0", f"prior yes, no-effect {detail} update while the gold stays yes"


def _classify_no(
    gold: str | None, effect: str, polarity: str | None, path: str | None, negative: bool
) -> tuple[str, str | None]:
    """Prior no: C3, C4 or C0 (see DECISIONS)."""
    if effect != NO_EFFECT:
        return "C0", f"prior no, {effect} update: the taxonomy has no condition for it"
    if gold != "no":
        return "C0", f"prior no but the gold stays {gold}: the hypothesis is not defeated"
    if negative:
        return "C3", None
    if path == OFF:
        return "C4", None
    return "C0", f"prior no, no-effect {_word_polarity(polarity)} {_word_path(path)} update"


def _classified(ent: pd.DataFrame, prior: str) -> list[tuple[str | None, str | None]]:
    """(condition, C0 reason) of every entailment row, taking the belief before the update from
    column ``prior`` (the model's own prior, or the gold before the update); (None, None) for the
    other kinds."""
    columns = (prior, "gold", "effect", "polarity", "path", "item_topology", "wording")
    return [
        classify(*row) if kind == "entailment" else (None, None)
        for kind, *row in zip(ent["kind"], *(ent[c] for c in columns), strict=True)
    ]


def classify(
    prior: str | None,
    gold: str | None,
    effect: str | None,
    polarity: str | None,
    path: str | None,
    topology: str | None,
    wording: str | None = None,
) -> tuple[str, str | None]:
    """The congruence condition of one update turn and, for C0, why (see DECISIONS).

    ``prior`` is the model's own previous answer (or the gold at a section start), ``gold`` the
    answer after the update, ``effect`` the update's state-delta effect, ``polarity`` the sign of
    the revealed link, ``path`` "on"/"off" (distractors are off-path) and ``wording`` the
    generator's sentence form ("exception" sounds negative whatever the link's sign). Rules are
    tried in the order C2, C1, C3inh, C5, C3, C4; the first match wins.
    """
    negative = polarity == "-" or wording == "exception"
    if _none_if_missing(prior) is None:
        return "C0", "no prior: the previous answer was not parsed"
    if effect not in (*DIRECTIONAL, NO_EFFECT):
        return "C0", "the update has no effect label"
    if prior == "yes":
        inheritance = topology in INHERITANCE_TOPOLOGIES
        return _classify_yes(gold, effect, polarity, path, inheritance, negative)
    if prior == "unknown":
        if effect in DIRECTIONAL:
            return "C5", None
        return "C0", "prior unknown, no-effect update: C5 needs a directional update"
    if prior == "no":
        return _classify_no(gold, effect, polarity, path, negative)
    return "C0", f"prior {prior!r} is not an entailment label"
