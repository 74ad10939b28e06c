"""Benchmark the skeptical resolver and re-check it against the brute-force reference.

Run from the repository root: ``/work/venv/bin/python bench/bench_resolver.py [--nets 20000]``.

(a) Speed: random 40-node inheritance trees (links from each class to a random earlier one, some
    negative or strict), with and without extra shortcut/exception links; the subject is the root
    and every other node is queried, one ``resolve`` call at a time and in one
    ``supported_conclusions`` call. Generators call the resolver thousands of times, so the target is
    well under 1 ms per query.
(c) Explanations: ``explain`` with ``--max-paths 10`` on layered DAGs 4 wide and up to 16 deep
    (4**16 = 4.3 billion supported paths), which must list 10 and count the rest without enumerating.
(b) Agreement: many random signed DAGs of at most 7 nodes; every (subject, property) pair is
    answered by ``resolve`` and by the literal reference; the number of disagreements must be 0.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.defeasible.*

from tests.defeasible.reference_resolver import reference_conclusions

from biaslab.suites.defeasible.network import Link, Network, make_network
from biaslab.suites.defeasible.resolver import explain, resolve, supported_conclusions


def random_tree(rng: random.Random, size: int, extra: int) -> Network:
    """Node n0 is the subject; n_i hangs below a random earlier node; extra forward links."""
    links = []
    for i in range(1, size):
        parent = rng.randrange(i)
        links.append(Link(f"n{parent}", f"n{i}", rng.random() > 0.2, rng.random() < 0.05))
    for _ in range(extra):
        i, j = sorted(rng.sample(range(size), 2))
        links.append(Link(f"n{i}", f"n{j}", rng.random() > 0.4, rng.random() < 0.05))
    return make_network(links)


def random_dag(rng: random.Random, max_nodes: int = 7) -> Network:
    size = rng.randint(2, max_nodes)
    names = rng.sample("abcdefghijkl", size)
    density = rng.uniform(0.2, 0.75)
    links = []
    for i in range(size):
        for j in range(i + 1, size):
            if rng.random() >= density:
                continue
            positive = rng.random() < 0.5
            links.append(Link(names[i], names[j], positive, rng.random() < 0.08))
            if rng.random() < 0.05:  # an occasional contradictory pair
                links.append(Link(names[i], names[j], not positive, rng.random() < 0.25))
    if not links:
        links.append(Link(names[0], names[1]))
    return make_network(links)


def random_dense_dag(rng: random.Random, size: int, density: float) -> Network:
    """A stress case beyond the generators' shapes: many redundant and conflicting links."""
    links = [
        Link(f"n{i}", f"n{j}", rng.random() > 0.3, rng.random() < 0.03)
        for i in range(size)
        for j in range(i + 1, size)
        if rng.random() < density
    ]
    return make_network(links)


def bench_trees(rng: random.Random, trees: int, extra: int, dense: bool = False) -> None:
    if dense:
        networks = [random_dense_dag(rng, 40, 0.15) for _ in range(trees)]
    else:
        networks = [random_tree(rng, 40, extra) for _ in range(trees)]
    queries = 0
    start = time.perf_counter()
    for network in networks:
        for node in network.nodes:
            if node != "n0":
                resolve(network, "n0", node)
                queries += 1
    single = time.perf_counter() - start
    start = time.perf_counter()
    for network in networks:
        supported_conclusions(network, "n0")
    batch = time.perf_counter() - start
    shape = "40-node dense DAGs (p=0.15)   " if dense else f"40-node trees, {extra:2d} extra links"
    print(
        f"  {shape}: resolve {1000 * single / queries:.3f} ms/query "
        f"({queries} queries); supported_conclusions {1000 * batch / trees:.3f} ms/net "
        f"= {1000 * batch / queries:.4f} ms/query"
    )


def layered_dag(width: int, depth: int) -> Network:
    """s -> every node of layer 0 -> every node of the next layer ... -> goal: width**depth paths."""
    links = [Link("s", f"0_{j}") for j in range(width)]
    for layer in range(1, depth):
        links += [
            Link(f"{layer - 1}_{i}", f"{layer}_{j}") for i in range(width) for j in range(width)
        ]
    links += [Link(f"{depth - 1}_{j}", "goal") for j in range(width)]
    return make_network(links)


def bench_explain(width: int = 4) -> None:
    for depth in (8, 12, 16):
        network = layered_dag(width, depth)
        start = time.perf_counter()
        explanation = explain(network, "s", "goal", max_paths=10)
        elapsed = time.perf_counter() - start
        listed = len(explanation.supporting)
        total = listed + explanation.omitted_supporting
        print(
            f"  {width} wide x {depth:2d} deep: {total:,} paths, {listed} listed, {elapsed * 1000:.1f} ms"
        )


def agreement(rng: random.Random, nets: int, max_nodes: int = 7) -> int:
    disagreements = queries = 0
    start = time.perf_counter()
    for _ in range(nets):
        network = random_dag(rng, max_nodes)
        for subject in network.nodes:
            expected = reference_conclusions(network, subject)
            for prop in network.nodes:
                if prop == subject:
                    continue
                queries += 1
                got = resolve(network, subject, prop)
                if got != expected[prop]:
                    disagreements += 1
                    if disagreements <= 5:
                        print(f"  DISAGREE {subject}->{prop}: {got} vs {expected[prop]}")
                        print(f"    {network.to_dict()}")
    elapsed = time.perf_counter() - start
    print(
        f"  {nets} random nets (<= {max_nodes} nodes), {queries} queries, {elapsed:.1f} s: "
        f"{disagreements} disagreements"
    )
    return disagreements


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--nets", type=int, default=20_000, help="random nets for the agreement run"
    )
    parser.add_argument("--trees", type=int, default=300, help="random 40-node trees to time")
    parser.add_argument("--max-nodes", type=int, default=7, help="largest net in the agreement run")
    parser.add_argument("--seed", type=int, default=20240901)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("(a) speed")
    for extra in (0, 10):
        bench_trees(rng, args.trees, extra)
    bench_trees(rng, args.trees, 0, dense=True)
    print("(c) explain, at most 10 paths listed")
    bench_explain()
    print("(b) agreement with the brute-force reference")
    failures = agreement(rng, args.nets, args.max_nodes)
    failures += agreement(rng, args.nets // 4, args.max_nodes + 3)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
