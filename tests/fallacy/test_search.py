"""Seed bank, mutations and the problem search: every accepted problem meets every condition."""

from __future__ import annotations

import random

import pytest

from biaslab.suites.fallacy import etr, workers
from biaslab.suites.fallacy.config import Config
from biaslab.suites.fallacy.deciders import decide, problem_context
from biaslab.suites.fallacy.generate import _search, search_task
from biaslab.suites.fallacy.mutate import MUTATIONS, PREDICATES, SEED_BANK, random_view, seed_pool
from biaslab.suites.fallacy.search import Limits, find_problem, tautological
from biaslab.suites.fallacy.views import MView, parse_pyetr, total_atoms
from tests.fallacy.reference_logic import reference_entails


def test_seed_bank_is_table_1() -> None:
    names = [p.name for p in SEED_BANK]
    assert names == [
        "modus ponens",
        "modus tollens",
        "quantified modus ponens",
        "disjunction fallacy",
    ]
    for problem in SEED_BANK:
        entailed = reference_entails(problem.premises, problem.conclusion)
        assert entailed is (problem.name != "disjunction fallacy")


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_every_mutation_keeps_a_well_formed_view(name: str) -> None:
    rng = random.Random(7)
    changed = 0
    for _ in range(200):
        view = rng.choice(seed_pool())
        mutated = MUTATIONS[name](view, rng)
        if mutated is None:
            continue
        changed += mutated != view
        assert all(not any(lit.negated() in s for lit in s) for s in mutated.stage)
        assert all(s >= mutated.supposition for s in mutated.stage)  # "if …, then …" stays one
        assert etr.from_view(etr.to_view(mutated)) == mutated
    assert changed > 5  # seeds are small: many draws repeat a literal or contradict one


def test_random_views_without_quantifiers_stay_ground() -> None:
    rng = random.Random(1)
    assert not any(random_view(rng, seed_pool(), quantifiers=False).quantified for _ in range(300))


@pytest.mark.parametrize(
    ("index", "size", "quantified"),
    [(0, 4, False), (1, 7, False), (2, 11, False), (3, 5, True), (4, 8, True)],
)
def test_accepted_problems_meet_every_condition(index: int, size: int, quantified: bool) -> None:
    found = find_problem(random.Random(index), size, Limits(quantified=quantified))
    premises = found.premises
    assert total_atoms(premises) == size and len(premises) >= 2
    assert any(p.quantified for p in premises) is quantified
    assert len(set().union(*(p.predicates() for p in premises))) <= len(PREDICATES)
    assert any(p.constants() for p in premises)
    conclusion = found.known.conclusion.view
    assert conclusion is not None and conclusion.categorical
    assert found.known.endorsed and etr.does_it_follow(premises, conclusion)
    views = [etr.to_view(p) for p in premises]
    decision = decide(views, etr.to_view(conclusion))
    assert decision.agree and decision.entailed is False
    assert etr.conclusion(premises) == found.known.conclusion
    from pyetr import View

    falsum = View.get_falsum()  # consistent together, so each premise is satisfiable too
    assert decide(views, falsum).entailed is False
    assert all(decide([v], falsum).entailed is False for v in views)
    verum = MView(stage=frozenset({frozenset()}))
    assert not any(reference_entails([verum], p) for p in premises)  # no premise a tautology


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{P1(c1()),~P1(c1())}", True),  # "either the ace is red or it is not"
        ("∀x {P1(x),~P1(x)}", True),
        ("{P1(c1())P2(c1()),~P1(c1()),~P2(c1())}", True),
        ("{P1(c1()),P2(c1())}", False),
        ("{P1(c1())P2(c1())}^{P1(c1())}", False),
        ("∃x {P1(x)}", False),
    ],
)
def test_tautological_premises_are_recognised(text: str, expected: bool) -> None:
    view = parse_pyetr(text)
    verum = MView(stage=frozenset({frozenset()}))
    assert reference_entails([verum], view) is expected  # the independent reference agrees
    with problem_context():
        assert tautological(view) is expected


@pytest.mark.parametrize(("seed", "index"), [(3, 351), (0, 150)])
def test_a_candidate_whose_query_would_list_millions_of_subsets_is_rejected(
    seed: int, index: int
) -> None:
    """These problems' searches met a query over 24 and 26 matching pairs (16 and 67 million
    subsets): the worker ran out of memory and ended the whole generation. The candidate is now
    rejected as over budget and the search goes on, in seconds, as the suite runs it (in a worker,
    under its hash seed)."""
    task = search_task(Config(), seed, index)
    solved = workers.call(_search, task)
    assert solved.rejections["ETR inference over budget"] >= 1
    assert total_atoms(solved.premises) == task.size


def test_the_search_is_a_function_of_its_random_stream() -> None:
    first = find_problem(random.Random(11), 6)
    second = find_problem(random.Random(11), 6)
    assert first.premises == second.premises and first.rejections == second.rejections


def test_a_problem_whose_analysis_is_over_budget_is_rejected_and_the_search_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first problem found cannot be analysed within the budget: it is counted and the
    search continues on the same random stream (it used to end the whole generation)."""
    from biaslab.suites.fallacy import solve

    real = solve.analyse
    analysed: list[tuple[MView, ...]] = []

    def first_over_budget(premises: tuple[MView, ...], known: object = None) -> object:
        analysed.append(premises)
        if len(analysed) == 1:
            raise etr.OverBudget("more than the budget")
        return real(premises, known)  # type: ignore[arg-type]

    monkeypatch.setattr(solve, "analyse", first_over_budget)
    solved = _search(search_task(Config(), 5, 0))
    assert solved.rejections["analysis over budget"] == 1
    assert len(analysed) == 2 and solved.premises == analysed[1] != analysed[0]
