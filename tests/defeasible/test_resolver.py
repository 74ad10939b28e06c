"""The skeptical resolver against the classic nets and against a brute-force reference.

Every named net is answered by both implementations (``resolver`` and the literal, path-enumerating
``reference_resolver``), so a disagreement on a textbook case shows up as a test failure rather than
as a wrong gold label.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biaslab.suites.defeasible.network import Link, Network, make_network
from biaslab.suites.defeasible.resolver import (
    DefeatedPath,
    Explanation,
    Path,
    SubjectResolution,
    explain,
    reachable_nodes,
    resolve,
    resolve_with_reach,
    supported_conclusions,
)
from tests.defeasible.reference_resolver import (
    reference_conclusions,
    reference_resolve,
    reference_supported,
)

# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------

_ARROWS = {"->": (True, False), "-/->": (False, False), "=>": (True, True), "=/=>": (False, True)}


def net(*specs: str) -> Network:
    """Build a network from "a -> b" (defeasible +), "a -/-> b" (-), "a => b", "a =/=> b" (strict)."""
    links = []
    for spec in specs:
        src, arrow, dst = spec.split()
        positive, strict = _ARROWS[arrow]
        links.append(Link(src, dst, positive=positive, strict=strict))
    return make_network(links)


def answer(network: Network, subject: str, prop: str) -> str:
    """The answer, after checking the fast resolver, its batch form and the reference agree."""
    fast = resolve(network, subject, prop)
    batch = supported_conclusions(network, subject).get(prop, "unknown")
    slow = reference_resolve(network, subject, prop)
    assert fast == slow == batch, f"resolve={fast} batch={batch} reference={slow}"
    assert explain(network, subject, prop).answer == fast
    return fast


TWEETY = ("tweety -> penguin", "penguin -> bird", "bird -> flies", "penguin -/-> flies")
NIXON = (
    "nixon -> quaker",
    "nixon -> republican",
    "quaker -> pacifist",
    "republican -/-> pacifist",
)
CLYDE = (
    "clyde -> royal_elephant",
    "royal_elephant -> elephant",
    "elephant -> gray",
    "royal_elephant -/-> gray",
)
CHAIN = ("x -> p0", "p0 -> p1", "p1 -> p2", "p2 -> p3", "p3 -> p4")


# --------------------------------------------------------------------------------------------------
# the classic nets (Horty, Thomason & Touretzky 1990; Lifschitz 1989)
# --------------------------------------------------------------------------------------------------


def test_tweety_penguin_does_not_fly() -> None:
    network = net(*TWEETY)
    assert answer(network, "tweety", "flies") == "no"
    assert answer(network, "tweety", "bird") == "yes"
    # a generic bird, out of the penguin's scope, still flies
    assert answer(net(*TWEETY, "robin -> bird"), "robin", "flies") == "yes"


def test_nixon_diamond_is_unknown() -> None:
    network = net(*NIXON)
    assert answer(network, "nixon", "pacifist") == "unknown"
    assert answer(network, "nixon", "quaker") == "yes"
    assert answer(network, "nixon", "republican") == "yes"


def test_royal_elephants_with_redundant_link_are_not_gray() -> None:
    # Off-path preemption: clyde -> elephant -> gray is preempted by royal_elephant -/-> gray because
    # royal_elephant lies on a supported path clyde -> royal_elephant -> elephant.
    assert answer(net(*CLYDE), "clyde", "gray") == "no"
    assert answer(net(*CLYDE, "clyde -> elephant"), "clyde", "gray") == "no"
    assert answer(net(*CLYDE, "dumbo -> elephant"), "dumbo", "gray") == "yes"


def test_redundant_links_do_not_change_conclusions() -> None:
    assert answer(net(*TWEETY, "tweety -> bird"), "tweety", "flies") == "no"
    # a shortcut around a preempting node does not bypass it
    chain = ("x -> a", "a -> b", "b -> c", "c -> d", "d -> f", "b -/-> f")
    assert answer(net(*chain), "x", "f") == "no"
    assert answer(net(*chain, "x -> c"), "x", "f") == "no"
    assert answer(net(*chain, "a -> d"), "x", "f") == "no"


def test_direct_preemption_along_a_chain() -> None:
    network = net("x -> a", "a -> b", "b -> c", "a -/-> c")
    assert answer(network, "x", "c") == "no"
    network = net("x -> a", "a -> b", "b -/-> c", "a -> c")
    assert answer(network, "x", "c") == "yes"


def test_direct_link_from_the_subject_wins() -> None:
    assert answer(net(*TWEETY, "tweety -> flies"), "tweety", "flies") == "yes"
    assert answer(net("x -> a", "a -> b", "x -/-> b"), "x", "b") == "no"
    assert answer(net(*NIXON, "nixon -/-> pacifist"), "nixon", "pacifist") == "no"


def test_ambiguity_propagates_downstream_as_unknown() -> None:
    network = net(*NIXON, "pacifist -> antimilitary", "antimilitary -> marches")
    assert answer(network, "nixon", "antimilitary") == "unknown"
    assert answer(network, "nixon", "marches") == "unknown"


def test_ambiguity_blocks_competing_paths_downstream() -> None:
    # HTT's theory is "ambiguity blocking": the unsupported pacifist node cannot lend support to
    # anything, so the unopposed footballfan path goes through (a known feature of the 1990 theory).
    network = net(
        *NIXON,
        "pacifist -> antimilitary",
        "republican -> footballfan",
        "footballfan -/-> antimilitary",
    )
    assert answer(network, "nixon", "antimilitary") == "no"


def test_denying_the_antecedent_is_unknown() -> None:
    network = net("x -/-> b", "b -> c")
    assert answer(network, "x", "b") == "no"
    assert answer(network, "x", "c") == "unknown"


def test_broken_chain_is_unknown_beyond_the_break() -> None:
    network = net(*CHAIN, "x -/-> p2")
    assert [answer(network, "x", f"p{i}") for i in range(5)] == [
        "yes",
        "yes",
        "no",
        "unknown",
        "unknown",
    ]
    # the chain itself broken: x -> p0 -> p1 -/-> p2 -> p3 -> p4
    inner = net("x -> p0", "p0 -> p1", "p1 -/-> p2", "p2 -> p3", "p3 -> p4")
    assert [answer(inner, "x", f"p{i}") for i in range(2, 5)] == ["no", "unknown", "unknown"]
    # a node asserting both p1 -> p2 and p1 -/-> p2 is an unresolved conflict: unknown onwards
    clash = net(*CHAIN, "p1 -/-> p2")
    assert answer(clash, "x", "p2") == "unknown"
    assert answer(clash, "x", "p3") == "unknown"


def test_more_specific_positive_reinstates_yes() -> None:
    network = net(*CHAIN, "x -/-> p2", "x -> p4")
    assert answer(network, "x", "p3") == "unknown"
    assert answer(network, "x", "p4") == "yes"
    network = net(*CHAIN, "x -/-> p1", "x -> p3")
    assert [answer(network, "x", f"p{i}") for i in range(5)] == [
        "yes",
        "no",
        "unknown",
        "yes",
        "yes",
    ]


def test_lifschitz_b1_linear_inheritance() -> None:
    network = net(
        "animal -/-> flies",
        "bird -> animal",
        "bird -> flies",
        "ostrich -> bird",
        "ostrich -/-> flies",
        "rex -> animal",
        "robin -> bird",
        "ozzy -> ostrich",
    )
    assert answer(network, "rex", "flies") == "no"
    assert answer(network, "robin", "flies") == "yes"
    assert answer(network, "ozzy", "flies") == "no"
    assert answer(network, "ozzy", "animal") == "yes"


def test_lifschitz_b2_tree_inheritance() -> None:
    network = net(
        "animal -/-> flies",
        "bird -> animal",
        "bird -> flies",
        "bat -> animal",
        "bat -> flies",
        "ostrich -> bird",
        "ostrich -/-> flies",
        "rex -> animal",
        "robin -> bird",
        "vlad -> bat",
        "ozzy -> ostrich",
    )
    expected = {"rex": "no", "robin": "yes", "vlad": "yes", "ozzy": "no"}
    assert {who: answer(network, who, "flies") for who in expected} == expected


def test_paper_quantifies_over_conflicting_paths_not_over_the_own_link() -> None:
    # x -> z -> v -> u -> y: u -> y is overridden by the more specific v -/-> y, but z -> y (more
    # specific still) overrides v, so HTT's clause (d) supports x -> z -> v -> u -> y. That makes u
    # a supported subclass of y, and u -/-> w then preempts y -> w.
    network = net(
        "x -> z", "z -> v", "v -> u", "u -> y", "v -/-> y", "z -> y", "u -/-> w", "y -> w"
    )
    assert answer(network, "x", "y") == "yes"
    assert Path(("x", "z", "v", "u", "y"), True) in explain(network, "x", "y").supporting
    assert answer(network, "x", "w") == "no"


def test_contradictory_direct_links_support_neither() -> None:
    network = net("x -> a", "x -/-> a", "a -> b")
    assert answer(network, "x", "a") == "unknown"
    assert answer(network, "x", "b") == "unknown"


def test_unknown_nodes_and_trivial_queries() -> None:
    network = net(*TWEETY)
    assert answer(network, "ghost", "flies") == "unknown"
    assert answer(network, "tweety", "ghost") == "unknown"
    assert answer(network, "tweety", "tweety") == "unknown"
    assert answer(network, "flies", "tweety") == "unknown"  # links point the other way
    assert supported_conclusions(network, "ghost") == {}
    assert explain(network, "ghost", "flies") == Explanation("unknown", (), ())


# --------------------------------------------------------------------------------------------------
# strict links
# --------------------------------------------------------------------------------------------------


def test_strict_link_is_not_preempted_by_a_more_specific_default() -> None:
    network = net("tweety -> penguin", "penguin -> bird", "bird => flies", "penguin -/-> flies")
    assert answer(network, "tweety", "flies") == "yes"
    reasons = [path.reason for path in explain(network, "tweety", "flies").defeated]
    assert reasons == ["overridden by strict link bird =-> flies"]


def test_strict_link_overrides_a_direct_default_from_the_subject() -> None:
    network = net("x -> a", "a =/=> b", "x -> b")
    assert answer(network, "x", "b") == "no"


def test_conflicting_strict_links_give_unknown() -> None:
    assert answer(net("x -> a", "x -> c", "a => b", "c =/=> b"), "x", "b") == "unknown"
    # even when one of them is a direct link from the subject
    assert answer(net("x => b", "x -> a", "a =/=> b"), "x", "b") == "unknown"
    # and defeasible paths to the same node are blocked too
    network = net("x -> a", "x -> c", "a => b", "c =/=> b", "x -> d", "d -> b")
    assert answer(network, "x", "b") == "unknown"


def test_strict_links_chain_and_preempt_like_ordinary_links() -> None:
    network = net("x => a", "a => b", "b -> c", "a -/-> c")
    assert answer(network, "x", "c") == "no"
    assert answer(network, "x", "b") == "yes"
    # a strict link with a defeasible duplicate counts as strict
    network = net("x -> a", "a => b", "a -> b", "x -> c", "c -/-> b")
    assert answer(network, "x", "b") == "yes"


# --------------------------------------------------------------------------------------------------
# explanations
# --------------------------------------------------------------------------------------------------


def test_explain_tweety() -> None:
    explanation = explain(net(*TWEETY), "tweety", "flies")
    assert explanation.answer == "no"
    assert [str(path) for path in explanation.supporting] == ["tweety -> penguin -/-> flies"]
    assert explanation.defeated == (
        DefeatedPath(
            ("tweety", "penguin", "bird", "flies"), True, "preempted by penguin -/-> flies"
        ),
    )
    assert explanation.to_dict() == {
        "answer": "no",
        "supporting": [
            {
                "nodes": ["tweety", "penguin", "flies"],
                "sign": "-",
                "text": "tweety -> penguin -/-> flies",
            }
        ],
        "defeated": [
            {
                "nodes": ["tweety", "penguin", "bird", "flies"],
                "sign": "+",
                "text": "tweety -> penguin -> bird -> flies",
                "reason": "preempted by penguin -/-> flies",
            }
        ],
        "omitted_supporting": 0,
        "omitted_defeated": 0,
    }


def layered_dag(width: int, depth: int) -> Network:
    """width nodes per layer, every node linked to every node of the next: width**depth paths."""
    links = [Link("s", f"0_{j}", True) for j in range(width)]
    for layer in range(depth - 1):
        links += [
            Link(f"{layer}_{a}", f"{layer + 1}_{b}", True)
            for a in range(width)
            for b in range(width)
        ]
    links += [Link(f"{depth - 1}_{j}", "goal", True) for j in range(width)]
    return make_network(links)


def test_explain_is_bounded_and_counts_what_it_leaves_out() -> None:
    network = layered_dag(width=4, depth=12)  # 4**12 = 16.7 million supported paths
    explanation = explain(network, "s", "goal", max_paths=10)
    assert explanation.answer == "yes"
    assert len(explanation.supporting) == 10
    assert explanation.omitted_supporting == 4**12 - 10
    assert all(len(path.nodes) == 14 for path in explanation.supporting)
    assert len(set(explanation.supporting)) == 10


def test_explain_lists_every_path_when_unbounded_and_shortest_first() -> None:
    links = [Link("s", "a", True), Link("a", "g", True), Link("s", "b", True)]
    links += [Link("b", "c", True), Link("c", "g", True), Link("s", "g", True)]
    explanation = explain(make_network(links), "s", "g", max_paths=None)
    assert [p.nodes for p in explanation.supporting] == [
        ("s", "g"),
        ("s", "a", "g"),
        ("s", "b", "c", "g"),
    ]
    assert explain(make_network(links), "s", "g", max_paths=2).omitted_supporting == 1


def test_a_long_chain_resolves_without_recursion() -> None:
    n = 5_000
    network = make_network(Link(f"n{i}", f"n{i + 1}", True) for i in range(n - 1))
    assert resolve(network, "n0", f"n{n - 1}") == "yes"
    explanation = explain(network, "n0", f"n{n - 1}")
    assert len(explanation.supporting[0].nodes) == n


def test_explain_nixon_reports_unresolved_conflicts() -> None:
    explanation = explain(net(*NIXON), "nixon", "pacifist")
    assert explanation.answer == "unknown"
    assert explanation.supporting == ()
    assert [(str(p), p.reason) for p in explanation.defeated] == [
        (
            "nixon -> quaker -> pacifist",
            "conflicted by republican -/-> pacifist (neither is more specific)",
        ),
        (
            "nixon -> republican -/-> pacifist",
            "conflicted by quaker -> pacifist (neither is more specific)",
        ),
    ]


def test_explain_lists_every_path_of_the_royal_elephant() -> None:
    explanation = explain(net(*CLYDE, "clyde -> elephant"), "clyde", "gray")
    assert [str(p) for p in explanation.supporting] == ["clyde -> royal_elephant -/-> gray"]
    assert {(str(p), p.reason) for p in explanation.defeated} == {
        ("clyde -> elephant -> gray", "preempted by royal_elephant -/-> gray"),
        ("clyde -> royal_elephant -> elephant -> gray", "preempted by royal_elephant -/-> gray"),
    }
    assert all(p.path == Path(p.nodes, p.positive) for p in explanation.defeated)


def test_explain_direct_contradiction_and_unreachable() -> None:
    explanation = explain(net("x -> a", "x -/-> a"), "x", "a")
    assert explanation.supporting == ()
    assert sorted(p.reason for p in explanation.defeated) == [
        "contradicted by direct link x -/-> a",
        "contradicted by direct link x -> a",
    ]
    # nothing is constructible past a negative link
    assert explain(net("x -/-> b", "b -> c"), "x", "c") == Explanation("unknown", (), ())


def test_path_text() -> None:
    assert str(Path(("a", "b"), True)) == "a -> b"
    assert str(Path(("a", "b", "c"), False)) == "a -> b -/-> c"
    assert Path(("a", "b", "c"), False).last_link == ("b", "c")


# --------------------------------------------------------------------------------------------------
# property tests on random small acyclic nets
# --------------------------------------------------------------------------------------------------

_NAMES = ("a", "b", "c", "d", "e", "f", "g")
_OTHER_NAMES = ("zeta", "eta", "theta", "iota", "kappa", "lam", "mu")


@st.composite
def small_networks(draw: st.DrawFn, max_nodes: int = 7) -> Network:
    """A random signed DAG: a random node order, then each forward pair gets 0, 1 or 2 links."""
    # spread sizes evenly (plain integers(2, 7) would favour the smallest nets)
    size = 2 + draw(st.integers(0, 9999)) % (max_nodes - 1)
    order = draw(st.permutations(_NAMES))[:size]
    density = 20 + draw(st.integers(0, 9999)) % 56
    links: list[Link] = []
    for i in range(size):
        for j in range(i + 1, size):
            # one draw per pair keeps examples small: existence, sign, strictness, a second link
            code = draw(st.integers(0, 9999))
            if code % 100 >= density:
                continue
            positive = (code // 100) % 2 == 0
            strict = (code // 200) % 16 == 0
            links.append(Link(order[i], order[j], positive, strict))
            if code % 100 < density // 10:  # occasionally a contradictory pair
                links.append(Link(order[i], order[j], not positive, (code // 2000) == 0))
    if not links:
        links.append(Link(order[0], order[1], True))
    return make_network(links)


def _agree(network: Network) -> None:
    nodes = network.nodes
    for subject in nodes:
        expected = reference_conclusions(network, subject)
        batch = supported_conclusions(network, subject)
        for prop in nodes:
            if prop == subject:
                assert resolve(network, subject, prop) == "unknown"
                continue
            fast = resolve(network, subject, prop)
            assert fast == expected[prop], (subject, prop, network.to_dict())
            assert batch.get(prop, "unknown") == fast
            # the labeller's variant: every reachable node evaluated, the reach returned
            assert resolve_with_reach(network, subject, prop) == (
                fast,
                reachable_nodes(network, subject),
            )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_networks())
def test_agrees_with_the_reference(network: Network) -> None:
    _agree(network)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_networks())
def test_agrees_with_the_reference_long(network: Network) -> None:
    _agree(network)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_networks(), st.randoms(use_true_random=False))
def test_a_resolution_kept_as_links_come_and_go_agrees_with_resolving_afresh(
    network: Network, rng: random.Random
) -> None:
    """The labeller keeps each subject's resolution while the conversation adds links (and
    evaluates only what an added link reaches): after every addition or removal it must give
    :func:`resolve_with_reach`'s answer for every node and the same reach."""
    links = list(network.links)
    rng.shuffle(links)
    current = make_network([])
    kept = {subject: SubjectResolution(current, subject) for subject in network.nodes}
    while links:
        before = current
        if current.links and rng.random() < 0.2:  # now and then a link is withdrawn
            gone = rng.choice(current.links)
            current = make_network(set(current.links) - {gone})
            changes: tuple[list[Link], bool] = ([], True)
        else:  # one link or several (the labeller resolves again only when it must)
            added = [links.pop() for _ in range(min(len(links), rng.choice((1, 1, 2, 3))))]
            for link in added:
                current = current.plus(link)
            changes = (added, False)
        assert current is not before
        for subject, resolution in kept.items():
            resolution.update(current, *changes)
            for prop in network.nodes:
                assert (resolution.answer(prop), resolution.reach) == resolve_with_reach(
                    current, subject, prop
                ), (subject, prop, current.to_dict())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_networks(), st.randoms(use_true_random=False))
def test_a_copied_resolution_follows_its_own_growth_and_leaves_the_original(
    network: Network, rng: random.Random
) -> None:
    """The generator tries candidate links on copies of one resolution: a copy grown link by
    link must agree with resolving afresh, and the original must still answer for its own
    network."""
    links = list(network.links)
    rng.shuffle(links)
    half = len(links) // 2
    start = make_network(links[:half])
    for subject in network.nodes:
        original = SubjectResolution(start, subject)
        copied = original.copy()
        current = start
        for link in links[half:]:
            current = current.plus(link)
            copied.update(current, [link], False)
        for prop in network.nodes:
            assert (copied.answer(prop), copied.reach) == resolve_with_reach(current, subject, prop)
            assert (original.answer(prop), original.reach) == resolve_with_reach(
                start, subject, prop
            )


@settings(max_examples=200, deadline=None)
@given(small_networks(), st.randoms(use_true_random=False), st.permutations(_OTHER_NAMES))
def test_answers_ignore_edge_order_and_names(
    network: Network, rng: random.Random, new_names: list[str]
) -> None:
    rename = dict(zip(network.nodes, new_names, strict=False))
    links = [Link(rename[k.src], rename[k.dst], k.positive, k.strict) for k in network.links]
    rng.shuffle(links)
    renamed = make_network(links)
    for subject in network.nodes:
        for prop in network.nodes:
            original = explain(network, subject, prop)
            moved = explain(renamed, rename[subject], rename[prop])
            assert moved.answer == original.answer == resolve(network, subject, prop)
            assert {tuple(rename[n] for n in p.nodes) for p in original.supporting} == {
                p.nodes for p in moved.supporting
            }


@settings(max_examples=200, deadline=None)
@given(small_networks())
def test_yes_and_no_are_never_both_supported(network: Network) -> None:
    for subject in network.nodes:
        decided = reference_supported(network, subject)
        supported = {key for key, ok in decided.items() if ok}
        constructible = {
            key for key in decided if len(key[0]) == 2 or (key[0][:-1], True) in supported
        }
        for prop in network.nodes:
            signs = {positive for nodes, positive in supported if nodes[-1] == prop}
            assert len(signs) <= 1
            explanation = explain(network, subject, prop)
            fast_signs = {p.positive for p in explanation.supporting}
            assert fast_signs == signs
            expected = "unknown" if not signs else "yes" if True in signs else "no"
            assert explanation.answer == expected
            # supporting / defeated are exactly the supported / other constructible paths to prop
            to_prop = {key for key in constructible if key[0][-1] == prop}
            assert {(p.nodes, p.positive) for p in explanation.supporting} == to_prop & supported
            assert {(p.nodes, p.positive) for p in explanation.defeated} == to_prop - supported


@settings(max_examples=200, deadline=None)
@given(small_networks(), st.integers(1, 4))
def test_a_bounded_explanation_is_the_head_of_the_full_one(network: Network, limit: int) -> None:
    """The best-first walk is exact: ``max_paths=k`` keeps the first k paths of the full listing
    (shortest first, then by node names) and counts the rest."""
    for subject in network.nodes:
        for prop in network.nodes:
            full = explain(network, subject, prop, max_paths=None)
            bounded = explain(network, subject, prop, max_paths=limit)
            assert full.supporting == tuple(
                sorted(full.supporting, key=lambda p: (len(p.nodes), p.nodes, p.positive))
            )
            assert bounded.supporting == full.supporting[:limit]
            assert bounded.defeated == full.defeated[:limit]
            assert len(bounded.supporting) + bounded.omitted_supporting == len(full.supporting)
            assert len(bounded.defeated) + bounded.omitted_defeated == len(full.defeated)


def test_an_unbounded_explanation_lists_every_path_even_through_contradictory_links() -> None:
    """Each contradictory pair of links gives two paths; the unbounded listing once stopped at the
    number of positive paths to the sources and dropped the rest."""
    links = [
        Link("a", "d", False, True), Link("a", "d", True), Link("c", "a", True, True),
        Link("c", "d", False, True), Link("c", "d", True), Link("c", "e", True),
        Link("e", "d", True, True),
    ]  # fmt: skip
    full = explain(make_network(links), "c", "d", max_paths=None)
    assert (len(full.defeated), full.omitted_defeated) == (5, 0)
    assert [(p.nodes, p.positive) for p in full.defeated] == [
        (("c", "d"), False), (("c", "d"), True), (("c", "a", "d"), False),
        (("c", "a", "d"), True), (("c", "e", "d"), True),
    ]  # fmt: skip
