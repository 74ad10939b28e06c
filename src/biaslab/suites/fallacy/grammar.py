"""The grammar of the suite's controlled English: a sentence (a premise or an answer) back into a
monadic view, deterministically, over the problem's own names and the constructions the premises
use:

    sentence   := "nothing follows"-like | prefix* (conditional | disjunction ("but not both")?)
                | "it is not the case that" disjunction                     (De Morgan)
    prefix     := "for all" VAR | "there is some" VAR "such that"            (also every/each/exists)
    conditional:= ("if" | "whenever" | "when" | "given that" | "assuming that") conjunction ","?
                  "then"? disjunction
                | disjunction ("if" | "whenever" | ", given that" | ", assuming") conjunction
                | conjunction ("only if" | "implies (that)") disjunction
                | disjunction "unless" literal | "unless" literal "," disjunction   (if not …)
                | literal "if and only if" literal                   (both, or neither)
    disjunction:= "either"? conjunction ("or" conjunction)* (", or both")? ("," "and" conjunction)?
    conjunction:= clause (("and" | "but" | ",") (clause | "either" clause ("or" clause)+
                                                 | "as is" subject))*
    clause     := subjects copula predicates
                | "neither" S "nor" S copula predicates | "at least one of" S "or" S copula P
    subjects   := subject ("and" subject)*       ("the ace and the king are red": both are)
    predicates := "not"? P (("and" | "but") "not"? P)* | "either" P "or" P | P ("or" P)+
                | "neither" P "nor" P | "not either" P "or" P | "not both" P "and" P
    subject    := object | variable | "it" (the last subject)

"and" binds tighter than "or" only where "either" marks the grouping ("either A and B, or C", as
the premises are written); "A and B or C" without it is ambiguous and not read, and "A or B, and
C" is (A or B) and C. After "and"/"or" a property continues the predicate list and a subject
starts a new clause. "both" is read, never skipped: "both A and B are P", "A and B are both (not)
P", "A is both P and Q"; "not both" / "cannot both be" / "never both" negate the list; "both" with
one subject and one property, "either" without "or" and "not not" are errors.
A "not" negates the one property after it ("not P and Q" is ~P ∧ Q,
"not P or Q" is ~P ∨ Q); "not both" and "not either" negate the whole list after them ("A and B
are not both P" is ~P(A) ∨ ~P(B); "A is not either P or Q" is ~P(A) ∧ ~Q(A)). Modal words: "must"
(and "necessarily", "definitely" …) asserts the bare claim; "might", "may", "could", "possibly" …
are not in the grammar, so a hedged sentence never reads (:mod:`reading` records it as hedged).
Copulas are "is", "are", "must be", "is definitely" … Besides the
premises' explicit prefixes, the usual English quantified forms of one variable are read:
"something is P", "some card is P and Q", "there is a P card that is (also) Q", "everything is P",
"every card that is P is Q", "all P cards are Q", "no card is P", "nothing is P".

Names are matched by :mod:`biaslab.suites.fallacy.lexicon`. Any word outside the grammar and the
problem's names fails the reading (:class:`ParseError`); what happens then (a lenient reading,
"nothing follows") is :mod:`biaslab.suites.fallacy.reading`'s business.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from biaslab.suites.fallacy.lexicon import NEGATIONS, Lexicon, Token, tokenize
from biaslab.suites.fallacy.views import VARIABLE_NAMES, Literal, MView, Quantifier, Term


class ParseError(ValueError):
    pass


DNF = list[frozenset[Literal]]


@dataclass
class _Parser:
    tokens: list[Token]
    pos: int = 0
    bound: dict[str, Quantifier] = field(default_factory=dict)
    prefix: list[tuple[Quantifier, str]] = field(default_factory=list)
    last_subjects: list[Term] = field(default_factory=list)
    natural_error: ParseError | None = None  # why an English quantified form did not read
    clause_joins: int = 0  # clauses joined by "and" / a comma so far
    #: the predicates of the last plain clause, for "…, as is B" / "…, and so is B"
    last_predicates: list[list[tuple[str, bool]]] | None = None

    # ------------------------------------------------------------------ token helpers

    def peek(self, offset: int = 0) -> Token | None:
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def at(self, *words: str, offset: int = 0) -> bool:
        token = self.peek(offset)
        return token is not None and token.kind == "word" and token.value in words

    def take(self, *words: str) -> bool:
        if self.at(*words):
            self.pos += 1
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.take(*words):
            raise ParseError(f"expected {'/'.join(words)} at {self._where()}")

    def commas(self) -> None:
        while self.peek() is not None and self.peek().kind == "comma":  # type: ignore[union-attr]
            self.pos += 1

    def _where(self) -> str:
        token = self.peek()
        return "end" if token is None else repr(token.value)

    def done(self) -> bool:
        self.commas()
        return self.pos >= len(self.tokens)

    # ------------------------------------------------------------------ sentence

    def sentence(self) -> MView:
        if self.take("not-the-case"):
            return self._negated_sentence()
        natural = self._natural_quantified()
        if natural is not None:
            return natural
        try:
            while self._quantifier():
                pass
            self.commas()
            view = self._body()
            if not self.done():
                raise ParseError(f"unexpected {self._where()}")
        except ParseError:
            if self.natural_error is not None:  # "all cards are not red": say what stopped it
                raise self.natural_error from None
            raise
        return view

    def _body(self) -> MView:
        """A claim or a conditional in any of its English orders: "if A, B", "whenever A, B",
        "given that A, B", "unless A, B", "B if A", "B whenever A", "B, given that A", "B unless
        A", "A only if B", "A implies that B"."""
        if self.take("if", "whenever", "when"):
            return self._conditional()
        if self.take("given"):
            self.expect("that")
            return self._conditional()
        if self.take("assuming", "provided", "supposing"):  # "assuming (that) A, B"
            self.take("that")
            return self._conditional()
        if self.take("unless"):
            antecedent = self._negated_literal(self._conjunction(stop_at_comma=True))
            self.commas()
            self.take("then")
            return self._build_conditional(antecedent, self._disjunction())
        states = self._disjunction()
        save = self.pos
        self.commas()
        if self.take("only"):  # "A only if B": if A, then B
            self.expect("if")
            return self._build_conditional(self._one_state(states), self._disjunction())
        if self.take("implies", "imply", "means"):  # "A implies (that) B"
            self.take("that")
            return self._build_conditional(self._one_state(states), self._disjunction())
        if self.take("iff") or (
            self.at("if") and self.at("and", offset=1) and self.at("only", offset=2)
        ):
            if self.take("if"):
                self.pos += 2
                self.expect("if")
            return self._biconditional(states, self._disjunction())
        if self.take("if", "whenever", "when"):  # "B if A"
            return self._build_conditional(self._one_state(self._disjunction()), states)
        if self.take("given"):  # "B, given that A"
            self.expect("that")
            return self._build_conditional(self._one_state(self._disjunction()), states)
        if self.take("assuming", "provided", "supposing"):  # "B, assuming (that) A"
            self.take("that")
            return self._build_conditional(self._one_state(self._disjunction()), states)
        if self.take("unless"):  # "B unless A": if not A, then B
            return self._build_conditional(self._negated_literal(self._conjunction()), states)
        if self.take("but", "and"):
            if not self.take("not-both"):
                raise ParseError(f"unexpected {self._where()}")
            return MView.build(_exclusive(states), (), self.prefix)
        self.pos = save
        return MView.build(states, (), self.prefix)

    @staticmethod
    def _one_state(states: DNF) -> frozenset[Literal]:
        if len(states) != 1:
            raise ParseError("an antecedent with 'or' is not supported")
        return states[0]

    @staticmethod
    def _negated_literal(states: DNF) -> frozenset[Literal]:
        """The antecedent of "B unless A": not A, for an A of one literal (the negation of a
        longer A would be a disjunction, which no one supposition holds)."""
        if len(states) != 1 or len(states[0]) != 1:
            raise ParseError("'unless' with more than one literal is not supported")
        (literal,) = states[0]
        return frozenset({literal.negated()})

    def _biconditional(self, left: DNF, right: DNF) -> MView:
        """ "A if and only if B" for one literal on each side: A and B, or neither (PyETR's own
        view of a biconditional); a longer side would make its negation a disjunction."""
        if any(len(side) != 1 or len(side[0]) != 1 for side in (left, right)):
            raise ParseError("'if and only if' with more than one literal a side is not supported")
        (a,), (b,) = left[0], right[0]
        return MView.build([{a, b}, {a.negated(), b.negated()}], (), self.prefix)

    def _build_conditional(self, supposition: frozenset[Literal], consequent: DNF) -> MView:
        return MView.build([supposition | state for state in consequent], supposition, self.prefix)

    def _negated_sentence(self) -> MView:
        """'it is not the case that S' for a sentence S without quantifiers or 'if': the negation
        of S's disjunction of conjunctions, multiplied out into one again (De Morgan)."""
        states = self._disjunction()
        if not self.done():
            raise ParseError(f"unexpected {self._where()}")
        negated = _product([[frozenset({lit.negated()}) for lit in state] for state in states])
        consistent = [s for s in negated if not any(lit.negated() in s for lit in s)]
        if not consistent:
            raise ParseError("the negation of a tautology")
        return MView.build(_minimal(consistent))

    def _quantifier(self) -> bool:
        start = self.pos
        self.commas()
        kind: Quantifier | None = None
        if self.take("for") and self.take("all", "every", "each", "any"):
            kind = "forall"
        elif self.take("there") and self.take("is", "exists", "exist"):
            self.take("some", "a", "an")
            kind = "exists"
        token = self.peek()
        if kind is None or token is None or token.kind != "var":
            self.pos = start
            return False
        self.pos += 1
        if kind == "exists":
            self.expect("such that")
        if token.value in self.bound:
            raise ParseError(f"variable {token.value} is quantified twice")
        self.bound[token.value] = kind
        self.prefix.append((kind, token.value))
        return True

    def _conditional(self) -> MView:
        antecedent = self._disjunction(stop_at_comma=True)
        supposition = self._one_state(antecedent)
        self.commas()
        self.take("then")
        self.commas()
        return self._build_conditional(supposition, self._disjunction())

    def _disjunction(self, stop_at_comma: bool = False) -> DNF:
        """Disjuncts joined by "or" ("either" first is optional, but "either" needs an "or");
        "…, or both" is the inclusive "or" said twice. A comma and "and"/"but" after the last
        disjunct closes the disjunction: "A or B, and C" is (A or B) and C."""
        either = not self._at_either_subjects() and self.take("either")
        joins = self.clause_joins
        states = self._conjunction(stop_at_comma)
        disjuncts = 1
        while True:
            save = self.pos
            if not stop_at_comma:
                self.commas()
            if not self.take("or"):
                self.pos = save
                break
            if self.take("both"):
                if len(states) < 2:
                    raise ParseError("'or both' without two alternatives")
                break
            states = states + self._conjunction(stop_at_comma, after_or=True)
            disjuncts += 1
        if either and disjuncts < 2:
            raise ParseError("'either' without 'or'")
        if not either and disjuncts > 1 and self.clause_joins > joins:
            # "A and B or C": (A and B) or C, or A and (B or C)? Our own English always writes
            # "either A and B, or C"; without "either" the answer is not read.
            raise ParseError("an ambiguous 'and' with 'or' (no 'either')")
        if disjuncts > 1 and not stop_at_comma:
            states = self._closing_conjunct(states)
        return _unique(states)

    def _closing_conjunct(self, states: DNF) -> DNF:
        """ "A or B, and C": C conjoined with the whole disjunction (a comma is required; without
        one, "and" binds tighter, as in the premises' own "either A, or B and C")."""
        save = self.pos
        comma = self.peek() is not None and self.peek().kind == "comma"  # type: ignore[union-attr]
        self.commas()
        if comma and (self.take("and", "but") or True) and self._starts_clause():
            conjunct = self._conjunction()
            states = [a | b for a in states for b in conjunct]
            if self.at("or"):
                raise ParseError("an ambiguous 'or' after '…, and …'")
            return states
        self.pos = save
        return states

    def _conjunction(self, stop_at_comma: bool = False, after_or: bool = False) -> DNF:
        """Clauses joined by "and"/"but"/a comma, and "either B or C" as one conjunct ("A, and
        either B or C"). After an "or", a comma ends the disjunct (see :meth:`_disjunction`)."""
        states = self._clause()
        while True:
            save = self.pos
            comma = self.peek() is not None and self.peek().kind == "comma"  # type: ignore[union-attr]
            if comma and after_or:
                return states
            if not stop_at_comma:
                self.commas()
            joined = self.take("and", "but", "while", "whereas") or self.pos > save
            if joined and self.at("either") and not self._at_either_subjects():
                group = self._either_group()
                states = [a | b for a in states for b in group]
            elif joined and self._at_ellipsis():  # "A is P, as is B" / "A is P, and so is B"
                self.take("as")
                self.expect("is")
                subject = self._subject()
                if self.last_predicates is None or len(self.last_predicates) != 1:
                    raise ParseError("'as is' after a clause without one list of properties")
                self.clause_joins += 1
                clause = _product(_apply([subject], self.last_predicates))
                states = [a | b for a in states for b in clause]
            elif joined and self._starts_clause():  # "A is P, and B is Q" / "A is P; B is Q"
                self.clause_joins += 1
                clause = self._clause()
                states = [a | b for a in states for b in clause]
            else:
                self.pos = save
                return states

    def _at_ellipsis(self) -> bool:
        offset = 1 if self.at("as") else 0
        return self.at("is", offset=offset) and self._next_is_subject(offset + 1)

    def _either_group(self) -> DNF:
        """ "either B or C" inside a conjunction: clauses joined by "or"; a bare "and" right after
        it would be ambiguous ("A and either B or C and D")."""
        self.expect("either")
        states = self._clause()
        disjuncts = 1
        while True:
            save = self.pos
            self.commas()
            if self.take("or") and self._starts_clause():
                states = states + self._clause()
                disjuncts += 1
            else:
                self.pos = save
                break
        if disjuncts < 2:
            raise ParseError("'either' without 'or'")
        if self.at("and", "but", "or"):
            raise ParseError(f"an ambiguous {self._where()} after 'either … or …'")
        return _unique(states)

    def _starts_clause(self) -> bool:
        token = self.peek()
        if token is None:
            return False
        return (
            token.kind in ("obj", "var")
            or self.at("it", "they", "neither", "at least one of", "the", "both")
            or self._at_either_subjects()
        )

    # ------------------------------------------------------------------ clauses

    def _clause(self) -> DNF:
        self.last_predicates = None
        if self.take("neither"):
            first = self._subject()
            self.expect("nor")
            second = self._subject()
            self._copula()
            predicates = self._predicates()
            return _product(_apply([first, second], predicates, negate=True))
        if self.take("at least one of") or self._either_subjects():
            return self._alternative_subjects()
        both = self.take("both")  # "both the ace and the king are red"
        if not both and self._at_or_subjects():  # "the ace or the king is red": at least one
            return self._alternative_subjects()
        subjects = [self._subject()]
        while True:
            save = self.pos
            self.commas()
            if self.at("and") and self._next_is_subject(1):
                self.pos += 1
            elif not (self.pos > save and self._next_is_subject(0)):
                self.pos = save
                break
            subjects.append(self._subject())
        self.last_subjects = [term for group in subjects for term in group]
        if both and len(self.last_subjects) < 2:
            raise ParseError("'both' before one subject")
        self._copula()
        if self.at("both", "all"):
            # "the ace and the king are both (not) red", "the ace is both red and striped", "the
            # ace, the king and the ten are all red": the word repeats what "and" says; anywhere
            # else it is not understood
            word = self.peek().value  # type: ignore[union-attr]
            self.pos += 1
            predicates = self._predicates()
            two_subjects = len(self.last_subjects) >= 2
            if len(predicates) != 1 or not (
                two_subjects or (word == "both" and len(predicates[0]) > 1)
            ):
                raise ParseError(f"'{word}' without two subjects or two properties joined by 'and'")
            return _product(_apply(subjects, predicates))
        if self.take("not-both"):
            # "A and B are not both P": not (P(A) and P(B)); "A is not both P and Q" likewise
            properties = self._property_list()
            if any(not positive for _, positive in properties):
                raise ParseError("a negation inside 'not both'")
            if len(self.last_subjects) * len(properties) < 2:
                raise ParseError("'not both' of one subject and one property")
            return _unique(
                [
                    frozenset({_lit(p, term, False)})
                    for term in self.last_subjects
                    for p, _ in properties
                ]
            )
        predicates = self._predicates()
        self.last_predicates = predicates
        return _product(_apply(subjects, predicates))

    def _alternative_subjects(self) -> DNF:
        """ "(at least one of / either) A or B is P": one alternative per subject."""
        subjects = [self._subject()]
        while self.take("or", "and"):
            subjects.append(self._subject())
        self._copula()
        alternatives = self._predicates()
        return _unique(
            [
                frozenset(_lit(p, term, pos) for p, pos in conj)
                for group in subjects
                for term in group
                for conj in alternatives
            ]
        )

    def _at_or_subjects(self) -> bool:
        offset = 1 if self.at("the") else 0
        return (
            self._subject_token(self.peek(offset))
            and self.at("or", offset=offset + 1)
            and self._next_is_subject(offset + 2)
        )

    def _either_subjects(self) -> bool:
        """'either the ace or the king is red' (a disjunction over subjects), as opposed to a
        sentence-level 'either A, or B'."""
        if self._at_either_subjects():
            self.pos += 1
            return True
        return False

    def _at_either_subjects(self) -> bool:
        return (
            self.at("either")
            and self._subject_token(self.peek(1))
            and self.at("or", offset=2)
            and self._subject_token(self.peek(3))
            and self.at("is", offset=4)
        )

    def _next_is_subject(self, offset: int) -> bool:
        token = self.peek(offset)
        if token is not None and token.kind == "word" and token.value == "the":
            token = self.peek(offset + 1)
        return self._subject_token(token)

    @staticmethod
    def _subject_token(token: Token | None) -> bool:
        return token is not None and (
            token.kind in ("obj", "var") or (token.kind == "word" and token.value == "it")
        )

    def _subject(self) -> list[Term]:
        self.take("the")
        token = self.peek()
        if token is None:
            raise ParseError("expected a subject at end")
        if token.kind == "obj":
            self.pos += 1
            return [Term(token.value)]
        if token.kind == "var":
            if token.value not in self.bound:
                raise ParseError(f"variable {token.value} is not quantified")
            self.pos += 1
            return [Term(token.value, True)]
        if self.take("it", "they"):
            if not self.last_subjects:
                raise ParseError("a pronoun with nothing to refer to")
            return list(self.last_subjects)
        raise ParseError(f"expected a subject at {self._where()}")

    def _copula(self) -> None:
        self.expect("is")

    def _predicates(self) -> list[list[tuple[str, bool]]]:
        """Alternatives (outer list, disjunction) of conjunctions of (predicate, positive)."""
        if self.take("not-either") or (self.at(*NEGATIONS) and self.at("either", offset=1)):
            # "not either P or Q": neither of them
            self.take(*NEGATIONS)
            self.take("either")
            properties = [self._property(True)]
            while self.take("or"):
                properties.append(self._property(True))
            if len(properties) < 2:
                raise ParseError("'either' without 'or'")
            return [properties]
        # a "not" scopes over the property right after it only: "not P and Q" is ~P and Q
        negated = self.take(*NEGATIONS)
        if self.take("either"):
            alternatives = [[self._property(negated)]]
            while self.take("or"):
                alternatives.append([self._property(negated)])
            if len(alternatives) < 2:
                raise ParseError("'either' without 'or'")
            return alternatives
        if self.take("neither"):
            first = self._property(True)
            self.expect("nor")
            return [[first, self._property(True)]]
        conjunction = [self._property(negated)]
        options: list[list[tuple[str, bool]]] = []
        while True:
            save = self.pos
            comma = self.peek() is not None and self.peek().kind == "comma"  # type: ignore[union-attr]
            self.commas()
            if (self.take("and", "but") or comma) and self._starts_property():
                conjunction.append(self._property(self.take(*NEGATIONS)))
            elif self.take("or") and self._starts_property():
                options.append(conjunction)
                conjunction = [self._property(self.take(*NEGATIONS))]
            else:
                self.pos = save
                break
        return [*options, conjunction]

    def _starts_property(self) -> bool:
        offset = 0
        while self.at(*NEGATIONS, "a", "an", offset=offset):
            offset += 1
        token = self.peek(offset)
        return token is not None and token.kind == "prop"

    def _property(self, negated: bool) -> tuple[str, bool]:
        if self.take(*NEGATIONS):
            if negated:
                raise ParseError("a double negation")  # "not not red" is never read as "not red"
            negated = True
        self.take("a", "an")
        token = self.peek()
        if token is None or token.kind != "prop":
            raise ParseError(f"expected a property at {self._where()}")
        self.pos += 1
        if (noun := self.peek()) is not None and noun.kind == "kind":
            self.pos += 1  # "a dormant program"
        return (token.value, not negated)

    # ------------------------------------------------------------------ natural quantifiers

    def _natural_quantified(self) -> MView | None:
        """'something is P', 'every card that is P is Q', 'no card is P', 'there is a P card
        that is Q' and the like: one bound variable without a letter."""
        start = self.pos
        try:
            view = self._natural()
        except ParseError as exc:
            self.natural_error = exc
            view = None
        if view is None or not self.done():
            self.pos = start
            self.bound.clear()
            self.prefix.clear()
            return None
        return view

    def _natural(self) -> MView | None:
        variable = next(v for v in VARIABLE_NAMES if v not in self.bound)
        term = Term(variable, True)
        if self.at(*NEGATIONS) and self.at("every", "all", "everything", offset=1):
            return self._not_every(term)
        if self.take("something", "someone", "some") or self._there_is_a():
            before, relative = self._restriction()
            if relative is None:
                self._copula()
                relative = self._property_list()
            literals = [_lit(p, term, pos) for p, pos in before + relative]
            return MView.build([literals], (), [("exists", variable)])
        universal = self.take("everything", "everyone", "every", "all", "each", "anything", "any")
        if universal or self.take("nothing", "nobody", "no", "none"):
            before, relative = self._restriction()
            antecedent = [_lit(p, term, pos) for p, pos in before + (relative or [])]
            self._copula()
            if universal and self.at(*NEGATIONS, "not-both", "not-either"):
                # "all cards are not red": "none is" or "not all are"? Not read either way.
                raise ParseError("'all … are not' is ambiguous")
            body = self._property_list()
            if not universal:
                if len(body) != 1:
                    raise ParseError("'no … is P and Q' is not a conjunction of literals")
                body = [(p, not pos) for p, pos in body]
            consequent = [_lit(p, term, pos) for p, pos in body]
            if not antecedent:
                return MView.build([consequent], (), [("forall", variable)])
            return MView.build([antecedent + consequent], antecedent, [("forall", variable)])
        return None

    def _not_every(self, term: Term) -> MView:
        """ "not every card that is P is Q" / "not all P cards are Q": some P card is not Q (for a
        Q of one literal: "not every card is P and Q" would be a disjunction under "some")."""
        self.pos += 2
        before, relative = self._restriction()
        self._copula()
        if self.at(*NEGATIONS, "not-both", "not-either"):
            raise ParseError("'not every … is not' is not supported")
        body = self._property_list()
        if len(body) != 1:
            raise ParseError("'not every … is P and Q' is not a conjunction of literals")
        ((predicate, positive),) = body
        literals = [_lit(p, term, pos) for p, pos in before + (relative or [])]
        literals.append(_lit(predicate, term, not positive))
        return MView.build([literals], (), [("exists", term.name)])

    def _there_is_a(self) -> bool:
        if (
            self.at("there")
            and self.at("is", "exists", "exist", offset=1)
            and self.at("a", "an", "some", "something", "someone", offset=2)
        ):
            self.pos += 3
            return True
        return False

    def _restriction(self) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]] | None]:
        """After a quantifier word: the adjectives, an optional kind noun, and the properties of
        an optional relative clause ('that is P', None when there is none)."""
        adjectives: list[tuple[str, bool]] = []
        while (token := self.peek()) is not None and token.kind == "prop":
            adjectives.append((token.value, True))
            self.pos += 1
        if (token := self.peek()) is not None and token.kind == "kind":
            self.pos += 1
        if not self.take("that", "which", "who"):
            return adjectives, None
        self._copula()
        return adjectives, self._property_list()

    def _property_list(self) -> list[tuple[str, bool]]:
        options = self._predicates()
        if len(options) != 1:
            raise ParseError("a disjunction inside a quantified phrase")
        return options[0]


def _lit(predicate: str, term: Term, positive: bool) -> Literal:
    return Literal(predicate, term, positive)


def _apply(
    subjects: Sequence[list[Term]], predicates: list[list[tuple[str, bool]]], negate: bool = False
) -> list[DNF]:
    """For each subject, the DNF "subject has the predicates"."""
    result: list[DNF] = []
    for group in subjects:
        for term in group:
            dnf = [
                frozenset(_lit(p, term, (not pos) if negate else pos) for p, pos in conj)
                for conj in predicates
            ]
            result.append(dnf)
    return result


def _product(dnfs: Iterable[DNF]) -> DNF:
    states: DNF = [frozenset()]
    for dnf in dnfs:
        states = [a | b for a in states for b in dnf]
    return _unique(states)


def _unique(states: DNF) -> DNF:
    return list(dict.fromkeys(states))


def _exclusive(states: DNF) -> DNF:
    """'A or B, but not both' for two disjuncts: (A ∧ ¬B) ∨ (¬A ∧ B) as a disjunction of
    conjunctions (¬B is the disjunction of B's negated literals)."""
    if len(states) != 2:
        raise ParseError("'but not both' needs exactly two alternatives")
    first, second = states
    result = [first | {lit.negated()} for lit in sorted(second)]
    result += [second | {lit.negated()} for lit in sorted(first)]
    consistent = [s for s in result if not any(lit.negated() in s for lit in s)]
    if not consistent:
        raise ParseError("'but not both' of two alternatives that cannot both fail")
    return _minimal(consistent)


def _minimal(states: DNF) -> DNF:
    """The states no other state is a proper subset of (the same disjunction, shorter)."""
    return [s for s in _unique(states) if not any(other < s for other in states)]


def read_sentence(sentence: str, lexicon: Lexicon) -> MView:
    """The strict reading of one sentence (raises :class:`ParseError`)."""
    tokens = tokenize(sentence, lexicon)
    if not tokens:
        raise ParseError("empty sentence")
    return _Parser(tokens).sentence()


def read_premise(sentence: str, lexicon: Lexicon) -> MView:
    """A premise of a prompt (strict reading only; raises :class:`ParseError`)."""
    return read_sentence(sentence.strip().rstrip("."), lexicon)
