"""Independent pairs for a matched-pair test: pairs that share a problem are one cluster.

Two pairs are not independent when they share a member: the same original with another twin (a
celebrity problem with two different generic names, a syllogism with two different synonym
wordings, the classic horse problem with two animals), or the same twin. A model at temperature 0
answers both copies alike, so counting both pairs counts one answer twice and the test exceeds its
level. Members are compared by their ``problem_key`` — a hash of the problem as a reasoner reads it
(:mod:`biaslab.suites.tokenbias.problems`: names, places, pronouns, option order and framing left
out) — and pairs by their ``pair_key``; pairs linked by any shared key, directly or through other
pairs, form one cluster (a connected component, found with scipy's sparse graph routines).

Each cluster contributes one pair: the one with the lowest (seed, pair_id), a choice made before
any answer is seen. The pairs kept are then independent, and the exact McNemar test keeps its
guarantee of never exceeding α. A clustered McNemar test (Durkalski et al., 2003) would use every
pair but rests on a normal approximation over clusters, which fails exactly where clustering
matters most here: the classic horse problem is one cluster, whatever the number of copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from biaslab.suites.tokenbias.directions import KEY

if TYPE_CHECKING:
    import pandas as pd

#: columns of a pair row that name what it shares with other pairs ("" = nothing), and the kind of
#: key each holds: a member's problem as original or as twin is the same question either way
LINK_COLUMNS = {
    "pair_key": "pair",
    "problem_key_original": "problem",
    "problem_key_twin": "problem",
}


def cluster_labels(pairs: pd.DataFrame) -> pd.Series:
    """The cluster of each pair row (an integer label, equal for linked pairs of one test key)."""
    import numpy as np
    import pandas as pd
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if pairs.empty:
        return pd.Series([], dtype=int, index=pairs.index)
    parts = [pairs[name].fillna("").astype(str).reset_index(drop=True) for name in KEY]
    test = parts[0]
    for part in parts[1:]:  # column-wise: a row-wise join is ~100x slower on arrow strings
        test = test + "\x1f" + part
    nodes: list[pd.Series] = []  # pair row -> the key node it links to, namespaced by test
    for column, kind in LINK_COLUMNS.items():
        if column in pairs.columns:
            values = pairs[column].fillna("").astype(str).reset_index(drop=True)
            nodes.append((test + f"\x1e{kind}\x1e" + values)[values != ""])
    n = len(pairs)
    links = pd.concat(nodes) if nodes else pd.Series([], dtype=str)
    if links.empty:
        return pd.Series(np.arange(n), index=pairs.index)
    # a bipartite graph: pair nodes 0..n-1 and key nodes n.., one edge per (pair, key it carries);
    # a pair_key and a problem_key never link (the kind is in the node's name)
    codes, uniques = pd.factorize(links.to_numpy())
    size = n + len(uniques)
    graph = coo_matrix(
        (np.ones(len(codes), dtype=np.int8), (links.index.to_numpy(), n + codes)),
        shape=(size, size),
    )
    _, labels = connected_components(graph, directed=False)
    return pd.Series(labels[:n], index=pairs.index)


def independent_pairs(pairs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one pair per cluster, the pairs left out); the kept pair has the lowest (seed, pair_id)."""
    ordered = pairs.sort_values([*KEY, "seed", "pair_id"], kind="stable")
    linked = cluster_labels(ordered).duplicated(keep="first")
    return ordered[~linked], ordered[linked]
