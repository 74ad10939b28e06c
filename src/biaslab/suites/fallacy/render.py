"""Monadic views in controlled English, and the prompt of a problem.

The sentence forms are few and fixed, so that :mod:`biaslab.suites.fallacy.grammar` reads every
one of them back into the same view (a property test checks it on every premise and conclusion):

* a literal: "the ace is red", "the ace is not red", "x is red";
* a state: literals joined by "and";
* several states: "either A, or B, or C";
* a supposition: "if A, then B" (the stage states minus the antecedent, joined as above; PyETR's
  ``{Q}^{P}`` and ``{PQ}^{P}`` are both "if P, then Q" and read back as the second);
* a quantifier prefix: "for all x, …" and "there is some x such that …", in prefix order.

Everything is sorted (states, literals, and the objects within a state), so the text never
depends on set order. Issue marks are not rendered: the paper's English carries none.
"""

from __future__ import annotations

from collections.abc import Sequence

from biaslab.errors import BiaslabError
from biaslab.suites.fallacy.themes import Names, Theme
from biaslab.suites.fallacy.views import Literal, MView, prefix, sorted_state

NOTHING = "nothing follows"
QUESTION = "What, if anything, follows? It is possible that nothing follows."


def _literal_key(lit: Literal, names: Names) -> tuple[int, str, bool, str]:
    subject = lit.term.name if lit.term.variable else names.objects[lit.term.name]
    return (
        0 if lit.term.variable else 1,
        subject.lower(),
        not lit.positive,
        names.properties[lit.predicate],
    )


def literal_text(lit: Literal, names: Names) -> str:
    subject = lit.term.name if lit.term.variable else names.objects[lit.term.name]
    copula = "is" if lit.positive else "is not"
    return f"{subject} {copula} {names.properties[lit.predicate]}"


def state_text(state: Sequence[Literal], names: Names) -> str:
    ordered = sorted(state, key=lambda lit: _literal_key(lit, names))
    return " and ".join(literal_text(lit, names) for lit in ordered)


def _disjunction(states: Sequence[Sequence[Literal]], names: Names) -> str:
    texts = sorted(state_text(s, names) for s in states)
    if len(texts) == 1:
        return texts[0]
    return "either " + ", or ".join(texts)


def view_text(view: MView, names: Names) -> str:
    """One sentence (no final full stop, lower-case start) for a monadic view."""
    if view.is_verum:
        return NOTHING
    if view.is_falsum:
        raise BiaslabError("cannot render falsum as a conclusion")
    if view.supposition:
        # PyETR writes "if P then Q" as {PQ}^{P}, and also accepts {Q}^{P} (its ordinary form for
        # "every P is Q", ∀x {Q(x*)}^{P(x*)}): both mean P → Q, so a state is rendered by what it
        # adds to the antecedent, whether it repeats the antecedent or not
        consequents = [sorted_state(s - view.supposition) for s in view.stage]
        if any(not c for c in consequents):
            raise BiaslabError(
                f"cannot render {view.to_pyetr()}: a state adds nothing to the antecedent"
            )
        body = (
            f"if {state_text(sorted_state(view.supposition), names)}, "
            f"then {_disjunction(consequents, names)}"
        )
    else:
        if any(not s for s in view.stage):
            raise BiaslabError(f"cannot render {view.to_pyetr()}: an empty state")
        body = _disjunction([sorted_state(s) for s in view.stage], names)
    head = "".join(
        f"for all {name}, " if kind == "forall" else f"there is some {name} such that "
        for kind, name in prefix(view)
    )
    return head + body


def sentence(view: MView, names: Names) -> str:
    """A premise as written in the prompt: capitalised, with a full stop."""
    text = view_text(view, names)
    return text[0].upper() + text[1:] + "."


def names_line(names: Names, constants: Sequence[str], predicates: Sequence[str]) -> list[str]:
    objects = sorted((names.objects[c] for c in constants), key=str.lower)
    properties = sorted((names.properties[p] for p in predicates), key=str.lower)
    return [f"Objects: {'; '.join(objects)}.", f"Properties: {'; '.join(properties)}."]


def prompt(premises: Sequence[MView], names: Names, theme: Theme) -> str:
    """The whole question: the theme's introduction, the premises, the paper's open question
    and the answer format."""
    constants = sorted(set().union(*(p.constants() for p in premises)))
    predicates = sorted(set().union(*(p.predicates() for p in premises)))
    lines = [theme.intro, ""]
    lines += [f"- {sentence(p, names)}" for p in premises]
    lines += ["", QUESTION, ""]
    lines += names_line(names, constants, predicates)
    lines += [
        "",
        "Think it through as you like. Then finish with one line that states your conclusion in "
        "one sentence, written the way the statements above are written and using only the "
        "objects and properties listed:",
        "Answer: <your conclusion>",
        f"If you find that nothing follows, finish with the line: Answer: {NOTHING}",
    ]
    return "\n".join(lines)
