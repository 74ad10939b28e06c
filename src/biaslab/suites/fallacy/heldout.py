"""Held-out answerers for checking FallacyRate's chance level (``bench/bench_heldout.py``).

Written apart from :mod:`~biaslab.suites.fallacy.chance` and never used to tune it: each agent
reads an item (its premises, names and order, as the prompt states them) and writes a reply, which
the suite's own reader and scorer then read and label like any model's. The candidates an agent
errs with are enumerated here, from the premises' literals (:func:`problem_atoms_of`), not taken
from the null's code.

Every agent is right with a probability that depends on the problem (number of premises, number
of atoms, quantified or not, premise order, or a per-problem latent skill) and then gives the
correct answer (the strongest valid conclusion, or "nothing follows" when none is); otherwise it
gives a wrong-looking answer of its own kind (which may still turn out to be correct):

*At chance by construction* (``kind="chance"``): the wrong answer is a conjunction of ``j``
literals drawn uniformly over distinct atoms of the problem, each either way round, where ``j``
depends on the problem but not on which conjunction is ETR's. Given its size, such an answer is
uniform over the problem's conjunctions of that size, so among the wrong ones an ETR-predicted
one turns up exactly at the share the null sets beside it: none of these agents may be flagged
above the nominal rate. (A size beyond those the null counts is set beside the problem's pooled
share instead: a different comparison, and the ``size-by-premises`` agent exercises it.)

*Matching heuristics* (``kind="heuristic"``): the wrong answer re-uses what the premises state —
the ground literals of the first premise, as a conjunction (``first-premise``), or one ground
literal stated anywhere, with its polarity (``premise-literal``). They know nothing of ETR, but the
null conditions only on the answer's shape, not on its overlap with the premises, and ETR's
conclusions are made of premise literals: such agents may be above chance, and if they are, that
is what FallacyRate's excess measures (an ETR-like matching of premise content), not a failure of
the null. The bench reports them apart; they are well above chance (``docs/suites/fallacy.md``).

*Biased* (``kind="biased"``): ``etr-lured`` answers ETR's conclusion for the order shown with
probability :data:`LURE` (when it can be said in English: a conclusion with an empty disjunct,
which some reversed orders give, cannot), otherwise like ``latent``: the excess must be
detected.

Every draw comes from its own stream (seed, agent, item id), so the same seed gives the same
replies in every process and no reply depends on another's draw.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from typing import Literal as TypingLiteral

from biaslab.errors import BiaslabError
from biaslab.schema import Item
from biaslab.seeding import stable_hash
from biaslab.suites.fallacy.render import NOTHING, view_text
from biaslab.suites.fallacy.themes import Names
from biaslab.suites.fallacy.views import Literal, MView, Term, parse_pyetr

if TYPE_CHECKING:
    import pandas as pd

Kind = TypingLiteral["chance", "heuristic", "biased"]
Atom = tuple[str, str]  # (predicate, constant)
#: the etr-lured agent's probability of answering ETR's conclusion
LURE = 0.5


@dataclass(frozen=True)
class Problem:
    """What an agent reads from an item."""

    item_id: str
    problem_id: str
    order: str
    premises: tuple[MView, ...]
    names: Names
    correct: str  # the strongest valid conclusion in English, or "nothing follows"
    etr_shown: str  # PyETR text of ETR's conclusion for the order shown
    atoms: tuple[Atom, ...]

    @property
    def quantified(self) -> bool:
        return any(p.quantified for p in self.premises)

    @property
    def n_premises(self) -> int:
        return len(self.premises)


def problem_atoms_of(premises: Sequence[MView]) -> tuple[Atom, ...]:
    """The ground atoms a conclusion over the problem can use: every (predicate, object) stated,
    and every predicate said of a variable ("for all x, x is P") applied to every object."""
    literals = [lit for view in premises for lit in view.literals()]
    objects = sorted({lit.term.name for lit in literals if not lit.term.variable})
    found: set[Atom] = set()
    for lit in literals:
        if lit.term.variable:
            found.update((lit.predicate, obj) for obj in objects)
        else:
            found.add((lit.predicate, lit.term.name))
    return tuple(sorted(found))


def read_problem(item: Item) -> Problem:
    meta = item.meta
    order = str(meta.get("order", "standard"))
    etr_key = "etr_conclusion_reversed" if order == "reversed" else "etr_conclusion"
    premises = tuple(parse_pyetr(str(text)) for text in meta["premises"])  # type: ignore[union-attr]
    return Problem(
        item_id=item.id,
        problem_id=str(meta.get("problem_id", item.id)),
        order=order,
        premises=premises,
        names=Names.from_json(meta["names"]),  # type: ignore[arg-type]
        correct=str(item.turns[0].gold or NOTHING),
        etr_shown=str(meta.get(etr_key, "")),
        atoms=problem_atoms_of(premises),
    )


# --------------------------------------------------------------------------------------------------
# how often each agent is right
# --------------------------------------------------------------------------------------------------


def _clip(value: float) -> float:
    return min(0.92, max(0.08, value))


def by_premises(problem: Problem) -> float:
    return _clip(0.85 - 0.2 * (problem.n_premises - 2))


def by_atoms(problem: Problem) -> float:
    return _clip(0.95 - 0.1 * (len(problem.atoms) - 2))


def by_quantified(problem: Problem) -> float:
    return 0.25 if problem.quantified else 0.7


def by_order(problem: Problem) -> float:
    return 0.7 if problem.order == "standard" else 0.3


def latent_skill(problem: Problem) -> float:
    """A per-problem skill (the same in both orders), from a hash of the problem id."""
    return 0.1 + 0.8 * stable_hash("fallacy-heldout-latent", problem.problem_id) / 2.0**64


def by_everything(problem: Problem) -> float:
    return _clip(by_premises(problem) * by_quantified(problem) / 0.7 * by_order(problem) / 0.7)


# --------------------------------------------------------------------------------------------------
# what each agent answers when it errs
# --------------------------------------------------------------------------------------------------

Wrong = Callable[[Problem, random.Random], list[Literal]]


def uniform_conjunction(size: Callable[[Problem], int]) -> Wrong:
    """``size(problem)`` distinct atoms drawn uniformly, each asserted or denied with 1/2."""

    def draw(problem: Problem, rng: random.Random) -> list[Literal]:
        j = max(1, min(size(problem), len(problem.atoms)))
        chosen = rng.sample(problem.atoms, j)
        return [Literal(p, Term(c), rng.random() < 0.5) for p, c in chosen]

    return draw


def _one(problem: Problem) -> int:
    return 1


def _by_atoms_size(problem: Problem) -> int:
    return 1 if len(problem.atoms) <= 5 else 2


def _by_quantified_size(problem: Problem) -> int:
    return 2 if problem.quantified else 1


def _by_premises_size(problem: Problem) -> int:
    return problem.n_premises - 1


def _random_size(problem: Problem, rng: random.Random) -> int:
    return rng.choice((1, 1, 2, 3))


def random_size_conjunction(problem: Problem, rng: random.Random) -> list[Literal]:
    """A size drawn from {1, 1, 2, 3}, then a uniform conjunction of that size."""
    j = _random_size(problem, rng)
    return uniform_conjunction(lambda _: j)(problem, rng)


def _ground_literals(view: MView) -> list[Literal]:
    return sorted((lit for lit in view.literals() if not lit.term.variable), key=Literal.sort_key)


def _distinct_atoms(literals: Sequence[Literal]) -> list[Literal]:
    seen: set[Atom] = set()
    kept = []
    for lit in literals:
        if lit.atom_key not in seen:
            seen.add(lit.atom_key)
            kept.append(lit)
    return kept


def first_premise(problem: Problem, rng: random.Random) -> list[Literal]:
    """The ground literals of the first premise shown, as stated (one per atom), as a
    conjunction; a uniform literal if it has none."""
    found = _distinct_atoms(_ground_literals(problem.premises[0]))
    return found or uniform_conjunction(_one)(problem, rng)


def premise_literal(problem: Problem, rng: random.Random) -> list[Literal]:
    """One ground literal stated in some premise, with its polarity, drawn uniformly."""
    found = sorted({lit for view in problem.premises for lit in _ground_literals(view)},
                   key=Literal.sort_key)  # fmt: skip
    return [rng.choice(found)] if found else uniform_conjunction(_one)(problem, rng)


# --------------------------------------------------------------------------------------------------
# the agents
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HeldOutAgent:
    """Right with ``accuracy(problem)``; else ETR's conclusion with probability ``lure``, else
    ``wrong(problem, rng)`` as a conjunction."""

    name: str
    kind: Kind
    accuracy: Callable[[Problem], float]
    wrong: Wrong
    lure: float = 0.0

    def reply(self, problem: Problem, seed: int) -> str:
        rng = random.Random(stable_hash("fallacy-heldout", seed, self.name, problem.item_id))
        right, lured = rng.random(), rng.random()
        if right < self.accuracy(problem):
            return f"Answer: {problem.correct}"
        if lured < self.lure and problem.etr_shown:
            try:  # ETR's conclusion may have no English form (a disjunct that is empty)
                return f"Answer: {view_text(parse_pyetr(problem.etr_shown), problem.names)}"
            except BiaslabError:
                pass
        if not problem.atoms:
            return f"Answer: {NOTHING}"
        literals = self.wrong(problem, rng)
        return f"Answer: {view_text(MView.build([literals]), problem.names)}"


AGENTS: dict[str, HeldOutAgent] = {
    agent.name: agent
    for agent in (
        HeldOutAgent("premises-one-literal", "chance", by_premises, uniform_conjunction(_one)),
        HeldOutAgent("atoms-size", "chance", by_atoms, uniform_conjunction(_by_atoms_size)),
        HeldOutAgent(
            "quantified-size", "chance", by_quantified, uniform_conjunction(_by_quantified_size)
        ),
        HeldOutAgent("order", "chance", by_order, uniform_conjunction(_one)),
        HeldOutAgent(
            "size-by-premises", "chance", by_order, uniform_conjunction(_by_premises_size)
        ),
        HeldOutAgent("latent", "chance", latent_skill, random_size_conjunction),
        HeldOutAgent("mixed", "chance", by_everything, random_size_conjunction),
        HeldOutAgent("first-premise", "heuristic", by_premises, first_premise),
        HeldOutAgent("premise-literal", "heuristic", latent_skill, premise_literal),
        HeldOutAgent("etr-lured", "biased", latent_skill, random_size_conjunction, lure=LURE),
    )
}


def replies(items: Sequence[Item], agent: HeldOutAgent, seed: int) -> list[str]:
    """The agent's reply to every item, in order."""
    return [agent.reply(read_problem(item), seed) for item in items]


class Scorer:
    """Reads and scores replies with the suite's own parser (:func:`~biaslab.suites.fallacy.
    scoring.read_view`, PyETR and the deciders in the suite's worker), remembering each (item,
    reply): agents and seeds repeat replies, and scoring is the slow part."""

    def __init__(self) -> None:
        self._records: dict[tuple[str, str], dict[str, Any]] = {}

    def record(self, item: Item, text: str) -> dict[str, Any]:
        key = (item.id, text)
        if key not in self._records:
            from biaslab.suites.fallacy.scoring import read_view

            self._records[key] = read_view(item.turns[0], item, text).model_dump()
        return self._records[key]

    def frame(
        self, items: Sequence[Item], agents: Sequence[HeldOutAgent], seed: int
    ) -> pd.DataFrame:
        """The tidy frame (one row per answer, model ``heldout/<agent>``) the analysis reads."""
        import pandas as pd

        rows = []
        for agent in agents:
            for item, text in zip(items, replies(items, agent, seed), strict=True):
                meta = {f"item_{k}": v for k, v in item.meta.items() if not isinstance(v, dict)}
                row = {**self.record(item, text), **meta}
                row.update(model=f"heldout/{agent.name}", item_id=item.id, epoch=1, seed=seed)
                rows.append(row)
        return pd.DataFrame(rows)


__all__ = [
    "AGENTS",
    "LURE",
    "HeldOutAgent",
    "Problem",
    "Scorer",
    "problem_atoms_of",
    "read_problem",
    "replies",
]
