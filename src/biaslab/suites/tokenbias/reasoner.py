"""The suite's Reasoner (gold recomputed from the text) and the ``token-biased`` reference agent.

Importing this module registers both. It stays cheap to import: only the standard library, the
word lists and the shared agent plumbing (no Inspect, no pandas).

The **token-biased** agent answers from surface cues, not from the logic. It reads the request text
and looks for:

* *engaging* cues, which make it answer correctly with probability ``cue`` (default 0.95): a hint in
  the system message (H6), the name "Linda" in an exemplar (H2), the textbook quantifier words
  "all"/"some" in a syllogism (H4), and the word "horse" in a horse problem (H3);
* *luring* cues, which make it pick the lure with probability ``lure`` (default 0.8): a
  representative added event in a conjunction question (H1; the lure is the conjunction), a
  celebrity's name (H3; the conjunction), a reputable news outlet or university (H5; it believes
  the argument: "yes") and a less reputable source (H5; it doubts it: "no").

Engaging cues win over luring ones. With neither cue — and whenever it does not follow a cue — it
falls back to its base behaviour: it knows the answer with probability ``base`` (default 0), else
guesses uniformly (chance: 1/2 for two options, 1/5 for the horses). So on every hypothesis the
twin's accuracy moves in the direction the paper predicts: up for H1, H3 (celebrity), H5 (invalid
syllogisms) and H6, down for H2, H3 (horses) and H4; on valid syllogisms the source cues reverse H5.
The draw is seeded by the request, so runs are reproducible.

The **no-bias** agent is the null reference: per prompt it is right with probability ``accuracy``
(default 0.7) and otherwise picks a wrong label, the draw seeded by the request like an LLM at
temperature 0, so its answers are fixed per prompt but do not depend on any perturbed token. With
``by=problem`` the draw is seeded by the problem instead (:mod:`biaslab.suites.tokenbias.problems`:
names, towns, pronouns, option order, framing and synonyms aside), so it answers two prompts of one
problem alike, as a reasoner would — the answerer that makes repeated problems count twice if a
test treats them as independent.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache

from biaslab.agents.base import (
    Agent,
    Distribution,
    Reasoner,
    Request,
    float_param,
    reasoner_for,
    register_agent,
    register_reasoner,
    reject_unknown_params,
)
from biaslab.answers import number_word
from biaslab.errors import BiaslabError
from biaslab.seeding import stable_hash
from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.horses import min_races, solve_min_races
from biaslab.suites.tokenbias.problems import problem_text
from biaslab.suites.tokenbias.render import (
    NO,
    STRONG_HINTS,
    WEAK_HINTS,
    YES,
    exemplar_part,
    parse_conjunction_options,
    parse_horses,
    parse_syllogism,
    question_part,
    single_event_label,
)
from biaslab.suites.tokenbias.syllogism import is_valid

SUITE = "tokenbias"
_SEARCH_LIMIT = 10  # exhaustive search for underived horse problems only up to this many animals


#: prompts whose family and gold are remembered: each answer asks for both, each agent of a level
#: run answers the same prompts, and parsing a prompt is most of an answer's cost
_PARSED_PROMPTS = 4096


@lru_cache(maxsize=_PARSED_PROMPTS)
def problem_family(prompt: str) -> str | None:
    """Which of the suite's problem families the last question in ``prompt`` belongs to."""
    if parse_conjunction_options(prompt) is not None:
        return "linda"
    if parse_syllogism(prompt) is not None:
        return "syllogism"
    if parse_horses(prompt) is not None:
        return "horses"
    return None


@lru_cache(maxsize=_PARSED_PROMPTS)
def gold_label(prompt: str, labels: tuple[str, ...]) -> str | None:
    """The correct label, from the problem structure in the text (None if it is not one of ours)."""
    options = parse_conjunction_options(prompt)
    if options is not None:
        return single_event_label(options)
    syllogism = parse_syllogism(prompt)
    if syllogism is not None:
        premises, conclusion = syllogism
        return YES if is_valid(premises, conclusion) else NO
    horses = parse_horses(prompt)
    if horses is None:
        return None
    answer = _horse_answer(*horses)
    return number_word(answer) if answer is not None and number_word(answer) in labels else None


def _horse_answer(n: int, k: int, m: int) -> int | None:
    try:
        return min_races(n, k, m)
    except BiaslabError:
        return solve_min_races(n, k, m) if n <= _SEARCH_LIMIT else None


class TokenBiasReasoner:
    """Recomputes gold from the text: the single event, the syllogism's validity, the derived races."""

    suite = SUITE

    def accepts(self, request: Request) -> bool:
        return bool(request.labels) and problem_family(request.prompt) is not None

    def gold(self, request: Request) -> str:
        label = gold_label(request.prompt, request.labels)
        return label if label is not None else request.labels[0]

    def prior_answer(self, request: Request) -> str | None:
        return None  # single-turn suite


# --------------------------------------------------------------------------------------------------
# surface cues
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cues:
    """What the token-biased agent noticed: engaging cue names, luring cue names and the lure."""

    engage: tuple[str, ...] = ()
    lure: tuple[str, ...] = ()
    lure_label: str | None = None


def find_cues(request: Request) -> Cues:
    """The surface cues of a request (see the module docstring)."""
    system = " ".join(m.text for m in request.messages if m.role == "system")
    engage: list[str] = []
    if any(
        h in system or h in request.prompt for h in (*WEAK_HINTS.values(), *STRONG_HINTS.values())
    ):
        engage.append("hint")
    if _has_word(exemplar_part(request.prompt), "Linda"):
        engage.append("linda-exemplar")
    question = question_part(request.prompt)
    options = parse_conjunction_options(request.prompt)
    if options is not None:
        lures, label = _conjunction_lures(question, options)
        return Cues(tuple(engage), lures, label)
    if parse_syllogism(request.prompt) is not None:
        return _syllogism_cues(question, engage)
    if parse_horses(request.prompt) is not None and (
        _has_word(question, "horse") or _has_word(question, "horses")
    ):
        engage.append("famous-animal")
    return Cues(tuple(engage))


_CONNECTOR_RE = re.compile(r"^(?:and|but|because|to|so that (?:he|she|it|they) can) ")


def _conjunction_lures(
    question: str, options: dict[str, str]
) -> tuple[tuple[str, ...], str | None]:
    single = single_event_label(options)
    if single is None:
        return (), None
    conjunction = next(label for label in options if label != single)
    added = _CONNECTOR_RE.sub("", options[conjunction][len(options[single]) :].strip())
    lures = []
    if _representative(question, added):
        lures.append("representative-event")
    if any(c.name in question for c in wl.celebrities()):
        lures.append("celebrity")
    return tuple(lures), conjunction if lures else None


def _representative(question: str, extra: str) -> bool:
    """Whether the added event is one the stem makes representative (by the suite's lexicon)."""
    for profile in wl.profiles():
        if extra in profile.activities and any(
            _template_in(b, question) for b in profile.backgrounds
        ):
            return True
    for kind in ("story", "news"):
        for story in wl.stories(kind):
            if _template_in(story.setup, question) and any(
                _template_matches(r, extra) for r in (*story.reasons, *story.purposes)
            ):
                return True
    return any(
        f"diagnosed with {d.name}." in question and extra in d.symptoms for d in wl.diseases()
    )


def _syllogism_cues(question: str, engage: list[str]) -> Cues:
    statements = "\n".join(
        line for line in question.splitlines() if line.startswith(("Premise", "Conclusion"))
    )
    if re.search(r"(?<!\w)(?:[Aa]ll|[Ss]ome)(?!\w)", _strip_sources(statements)):
        engage.append("textbook-quantifiers")

    def cited(reputable: bool) -> bool:
        return any(
            s in statements for k in ("outlets", "institutions") for s in wl.sources(k, reputable)
        )

    if cited(True):
        return Cues(tuple(engage), ("reputable-source",), YES)
    if cited(False):
        return Cues(tuple(engage), ("less-reputable-source",), NO)
    return Cues(tuple(engage))


def _strip_sources(text: str) -> str:
    return re.sub(r"According to (?:researchers at )?.+?, ", "", text)


_SLOTS = {
    "{name}": r"[A-Z][\w' -]*?",
    "{place}": r"[A-Z][\w' -]*?",
    "{he}": "(?:he|she)",
    "{He}": "(?:He|She)",
    "{him}": "(?:him|her)",
    "{his}": "(?:his|her)",
    "{His}": "(?:His|Her)",
}


@cache
def _template_regex(template: str) -> re.Pattern[str]:
    pattern = re.escape(template)
    for slot, regex in _SLOTS.items():
        pattern = pattern.replace(re.escape(slot), regex)
    return re.compile(pattern)


def _template_in(template: str, text: str) -> bool:
    return _template_regex(template).search(text) is not None


def _template_matches(template: str, text: str) -> bool:
    return _template_regex(template).fullmatch(text) is not None


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


# --------------------------------------------------------------------------------------------------
# the agent
# --------------------------------------------------------------------------------------------------

PARAMS = ("cue", "lure", "base")


@dataclass
class TokenBiased(Agent):
    """Answers from surface tokens: right on engaging cues, lured by misleading ones, else guesses."""

    cue: float = 0.95
    lure: float = 0.8
    base: float = 0.0

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        labels = request.labels
        gold = reasoner.gold(request) if reasoner is not None else labels[0]
        cues = find_cues(request) if isinstance(reasoner, TokenBiasReasoner) else Cues()
        fallback = _mixture(labels, {gold: self.base})
        if cues.engage:
            return _mixture(labels, {gold: self.cue}, fallback)
        if cues.lure and cues.lure_label in labels:
            assert cues.lure_label is not None
            return _mixture(labels, {cues.lure_label: self.lure}, fallback)
        return fallback

    def choose(self, request: Request, distribution: Distribution) -> str:
        return sample(request, distribution, "token-biased")


def sample(request: Request, distribution: Distribution, stream: str) -> str:
    """A label drawn from ``distribution`` with the request's own seeded stream (fixed per prompt)."""
    draw = request.rng(stream).random()
    total = 0.0
    for label in request.labels:
        total += distribution.get(label, 0.0)
        if draw < total:
            return label
    return request.labels[-1]


def _mixture(
    labels: tuple[str, ...], chosen: Mapping[str, float], otherwise: Distribution | None = None
) -> Distribution:
    """The one chosen label with its probability, else ``otherwise`` (default: a uniform guess)."""
    ((label_chosen, p),) = chosen.items()
    rest = otherwise or {label: 1.0 / len(labels) for label in labels}
    return {
        label: (p if label == label_chosen else 0.0) + (1.0 - p) * rest[label] for label in labels
    }


@dataclass
class NoBias(Agent):
    """Right with probability ``accuracy`` per prompt, or per problem (``by="problem"``), else a
    wrong label, whatever the perturbed tokens."""

    accuracy: float = 0.7
    by: str = "prompt"

    def distribution(self, request: Request, reasoner: Reasoner | None) -> Distribution:
        labels = request.labels
        gold = reasoner.gold(request) if reasoner is not None else labels[0]
        if len(labels) == 1:
            return {gold: 1.0}
        wrong = (1.0 - self.accuracy) / (len(labels) - 1)
        return {label: self.accuracy if label == gold else wrong for label in labels}

    def choose(self, request: Request, distribution: Distribution) -> str:
        if self.by == "prompt":
            return sample(request, distribution, "no-bias")
        reasoner = reasoner_for(request)
        gold = reasoner.gold(request) if reasoner is not None else request.labels[0]
        system = " ".join(m.text for m in request.messages if m.role == "system")
        draw = random.Random(stable_hash("no-bias-problem", problem_text(system, request.prompt)))
        wrong = [label for label in request.labels if label != gold]
        return gold if draw.random() < self.accuracy or not wrong else draw.choice(wrong)


def _no_bias(params: Mapping[str, str]) -> Agent:
    reject_unknown_params("no-bias", params, ("accuracy", "by"))
    by = params.get("by", "prompt")
    if by not in ("prompt", "problem"):
        raise BiaslabError(f"no-bias: by must be 'prompt' or 'problem', got {by!r}")
    return NoBias(
        name="no-bias",
        params=dict(params),
        accuracy=float_param(params, "accuracy", 0.7, 0.0, 1.0),
        by=by,
    )


def _token_biased(params: Mapping[str, str]) -> Agent:
    reject_unknown_params("token-biased", params, PARAMS)
    return TokenBiased(
        name="token-biased",
        params=dict(params),
        cue=float_param(params, "cue", 0.95, 0.0, 1.0),
        lure=float_param(params, "lure", 0.8, 0.0, 1.0),
        base=float_param(params, "base", 0.0, 0.0, 1.0),
    )


register_reasoner(TokenBiasReasoner())
register_agent(
    "no-bias",
    _no_bias,
    "Null reference: right with probability accuracy per prompt, else a wrong label; answers fixed "
    "per prompt (by=problem: per problem, names, towns and option order aside) and blind to every "
    "perturbed token (biaslab/no-bias?accuracy=0.7&by=prompt).",
)
register_agent(
    "token-biased",
    _token_biased,
    "Token-bias suite: right on famous/hint tokens (p=cue), lured by representative events, "
    "celebrities and reputable sources (p=lure), else knows with p=base (biaslab/token-biased?cue=0.95"
    "&lure=0.8&base=0).",
)
