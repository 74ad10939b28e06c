"""Hypothesis strategies for small monadic views and problems."""

from __future__ import annotations

from hypothesis import strategies as st

from biaslab.suites.fallacy.views import Literal, MView, Term


@st.composite
def views(
    draw: st.DrawFn,
    predicates: tuple[str, ...] = ("P1", "P2"),
    constants: tuple[str, ...] = ("c1", "c2"),
    variables: tuple[str, ...] = ("x", "y"),
    max_states: int = 3,
    max_literals: int = 3,
    suppositions: bool = True,
    issues: bool = False,
) -> MView:
    """A random monadic view; every quantified variable occurs, none occurs unquantified."""
    used = draw(st.lists(st.sampled_from(variables), unique=True, max_size=len(variables)))
    terms = [Term(c) for c in constants] + [Term(v, True) for v in used]
    literal = st.builds(Literal, st.sampled_from(predicates), st.sampled_from(terms), st.booleans())
    supposition = (
        frozenset(draw(st.lists(literal, max_size=2)))
        if suppositions and draw(st.booleans())
        else frozenset()
    )
    states = draw(
        st.lists(
            st.frozensets(literal, min_size=1, max_size=max_literals),
            min_size=1,
            max_size=max_states,
        )
    )
    stage = [s | supposition for s in states]
    mentioned = {lit.term.name for s in stage for lit in s if lit.term.variable}
    for v in used:  # make every quantified variable occur
        if v not in mentioned:
            stage[0] = stage[0] | {Literal(predicates[0], Term(v, True), True)}
    kinds = draw(
        st.lists(st.sampled_from(("forall", "exists")), min_size=len(used), max_size=len(used))
    )
    view = MView.build(stage, supposition, list(zip(kinds, used, strict=True)))
    if issues:
        marked = draw(st.sets(st.sampled_from(sorted(view.literals(), key=Literal.sort_key))))
        view = view.with_issues(marked)
    return view
