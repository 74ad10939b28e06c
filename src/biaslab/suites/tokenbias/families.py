"""Problem families as structured records built from templates and word lists (no LLM in the loop).

Each record keeps its templates and fillers apart (e.g. a ``{name}`` placeholder and the name), so a
twin is the *same record* with one field replaced and renders identically apart from those tokens.
Gold answers follow from the structure: the single event of a conjunction problem is always at least
as probable; a syllogism is valid iff every Venn model of its premises satisfies its conclusion; the
horse answer is :func:`biaslab.suites.tokenbias.horses.min_races`.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from functools import cache
from typing import Literal

from biaslab.suites.tokenbias import wordlists as wl
from biaslab.suites.tokenbias.horses import CLASSIC, min_races

Style = Literal["bio", "story", "news", "medical", "celebrity"]
STYLES: tuple[Style, ...] = ("bio", "story", "news", "medical", "celebrity")
HORSE = wl.Animal("horse", "horses")

# --------------------------------------------------------------------------------------------------
# conjunction fallacy
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Conjunction:
    """Which is more probable: ``single`` or ``single <connector> <added event>``?

    Templates may contain ``{name}``; ``relevant`` picks the representative or the unrelated added
    event, so the H1 twin flips one flag.
    """

    style: Style
    name: str
    setup: str
    single: str
    connector: str
    relevant_extra: str
    irrelevant_extra: str
    relevant: bool = True

    @property
    def extra(self) -> str:
        return self.relevant_extra if self.relevant else self.irrelevant_extra

    def fill(self, template: str) -> str:
        return template.replace("{name}", self.name)

    @property
    def single_text(self) -> str:
        return self.fill(self.single)

    @property
    def conjunction_text(self) -> str:
        return f"{self.single_text} {self.connector} {self.fill(self.extra)}"


def build_conjunction(style: Style, rng: random.Random, relevant: bool = True) -> Conjunction:
    """One conjunction problem of the given style."""
    builder = {
        "bio": _bio,
        "story": _story,
        "news": _news,
        "medical": _medical,
        "celebrity": _celebrity,
    }[style]
    return builder(rng, relevant)


def _person(rng: random.Random) -> str:
    return rng.choice(wl.first_names(rng.choice(("female", "male"))))


def _bio(rng: random.Random, relevant: bool) -> Conjunction:
    profile = rng.choice(wl.profiles())
    traits = rng.sample(profile.traits, 2)
    backgrounds = " ".join(rng.sample(profile.backgrounds, 2))
    age = rng.randint(25, 50)
    setup = f"{{name}} is {age} years old, {traits[0]} and {traits[1]}. {backgrounds}"
    return Conjunction(
        style="bio",
        name=_person(rng),
        setup=setup,
        single=f"{{name}} is {rng.choice(wl.occupations())}",
        connector="and",
        relevant_extra=rng.choice(profile.activities),
        irrelevant_extra=rng.choice(wl.neutral_activities()),
        relevant=relevant,
    )


def _story(rng: random.Random, relevant: bool, kind: str = "story") -> Conjunction:
    story = rng.choice(wl.stories(kind))
    return Conjunction(
        style="story" if kind == "story" else "news",
        name=_person(rng),
        setup=story.setup,
        single=story.event,
        connector="because",
        relevant_extra=rng.choice(story.reasons),
        irrelevant_extra=rng.choice(wl.irrelevant_reasons()),
        relevant=relevant,
    )


def _news(rng: random.Random, relevant: bool) -> Conjunction:
    return _story(rng, relevant, kind="news")


def _medical(rng: random.Random, relevant: bool) -> Conjunction:
    disease = rng.choice(wl.diseases())
    first, second = rng.sample(disease.symptoms, 2)
    age = rng.randint(40, 70)
    return Conjunction(
        style="medical",
        name=_person(rng),
        setup=f"{{name}}, a {age}-year-old patient, has been diagnosed with {disease.name}.",
        single=f"{{name}} has {first}",
        connector="and",
        relevant_extra=second,
        irrelevant_extra=rng.choice(wl.unrelated_findings()),
        relevant=relevant,
    )


def _celebrity(rng: random.Random, relevant: bool) -> Conjunction:
    celebrity = rng.choice(wl.celebrities())
    scenario = rng.choice(wl.scenarios(celebrity.field))
    return Conjunction(
        style="celebrity",
        name=celebrity.name,
        setup=scenario.setup,
        single=scenario.single,
        connector="but",
        relevant_extra=scenario.extra,
        irrelevant_extra=scenario.extra,
        relevant=True,
    )


def generic_name_for(celebrity: str, rng: random.Random) -> str:
    """A same-gender 'First Last' name sharing no word with any celebrity (no surname leak)."""
    gender = next(c.gender for c in wl.celebrities() if c.name == celebrity)
    return rng.choice(wl.generic_names(gender))


# --------------------------------------------------------------------------------------------------
# syllogisms
# --------------------------------------------------------------------------------------------------

Quantifier = Literal["all", "some", "no", "some-not"]
Role = Literal[
    "X", "Y", "Z"
]  # X: member noun (conclusion subject), Y: category (middle), Z: property


@dataclass(frozen=True)
class Statement:
    quantifier: Quantifier
    subject: str
    predicate: str


@dataclass(frozen=True)
class Form:
    name: str
    premises: tuple[tuple[Quantifier, Role, Role], tuple[Quantifier, Role, Role]]
    conclusion: tuple[Quantifier, Role, Role]
    valid: bool


def _form(name: str, p1: str, p2: str, conclusion: str, valid: bool) -> Form:
    def parse(spec: str) -> tuple[Quantifier, Role, Role]:
        q, s, p = spec.split()
        return (q, s, p)  # type: ignore[return-value]

    return Form(name, (parse(p1), parse(p2)), parse(conclusion), valid)


#: Categorical forms whose terms fit "plural noun are plural noun/adjective" (Z is always a predicate).
#: Validity uses Boolean semantics (no existential import); the tests recompute it from the Venn models.
FORMS: tuple[Form, ...] = (
    _form("barbara", "all Y Z", "all X Y", "all X Z", True),
    _form("barbara-swapped", "all X Y", "all Y Z", "all X Z", True),
    _form("celarent", "no Y Z", "all X Y", "no X Z", True),
    _form("darii", "all Y Z", "some X Y", "some X Z", True),
    _form("ferio", "no Y Z", "some X Y", "some-not X Z", True),
    _form("datisi", "all Y Z", "some Y X", "some X Z", True),
    _form("disamis", "some Y Z", "all Y X", "some X Z", True),
    _form("ferison", "no Y Z", "some Y X", "some-not X Z", True),
    _form("undistributed-middle", "all X Y", "some Y Z", "some X Z", False),
    _form("undistributed-some", "some X Y", "some Y Z", "some X Z", False),
    _form("illicit-major", "all Y Z", "no X Y", "no X Z", False),
    _form("illicit-minor", "all Y Z", "all Y X", "all X Z", False),
    _form("converse-negative", "all X Y", "some-not Y Z", "some-not X Z", False),
    _form("exclusive-premises", "no X Y", "no Y Z", "no X Z", False),
    _form("affirmative-from-negative", "no Y Z", "all X Y", "all X Z", False),
    _form("negative-middle", "some-not X Y", "no Y Z", "some X Z", False),
)


@dataclass(frozen=True)
class Syllogism:
    """Two premises and a conclusion; quantifier wording and source framing are rendering choices."""

    form: str
    premises: tuple[Statement, Statement]
    conclusion: Statement
    all_word: str = "all"
    some_word: str = "some"
    outlet: str | None = None
    institution: str | None = None

    @property
    def valid(self) -> bool:
        return is_valid(self.premises, self.conclusion)


def build_syllogism(rng: random.Random, valid: bool, need_all_or_some: bool = False) -> Syllogism:
    """A syllogism of a random form with the requested validity over random terms."""
    forms = [f for f in FORMS if f.valid == valid]
    if need_all_or_some:
        forms = [f for f in forms if _uses_all_or_some(f)]
    form = rng.choice(forms)
    terms = rng.choice(wl.syllogism_terms())
    binding = {"X": terms.member, "Y": terms.category, "Z": rng.choice(terms.properties)}

    def bind(spec: tuple[Quantifier, Role, Role]) -> Statement:
        return Statement(spec[0], binding[spec[1]], binding[spec[2]])

    return Syllogism(
        form=form.name,
        premises=(bind(form.premises[0]), bind(form.premises[1])),
        conclusion=bind(form.conclusion),
    )


def _uses_all_or_some(form: Form) -> bool:
    return any(q != "no" for q, _, _ in (*form.premises, form.conclusion))


#: a syllogism's logical form: (quantifier, subject, predicate) per statement, conclusion last, with
#: the terms numbered by first appearance; validity depends on nothing else
Shape = tuple[tuple[Quantifier, int, int], ...]


def shape_of(premises: tuple[Statement, ...], conclusion: Statement) -> Shape:
    """The form of an argument, independent of which words fill its terms."""
    numbers: dict[str, int] = {}

    def number(term: str) -> int:
        return numbers.setdefault(term, len(numbers))

    return tuple(
        (s.quantifier, number(s.subject), number(s.predicate)) for s in (*premises, conclusion)
    )


def is_valid(premises: tuple[Statement, ...], conclusion: Statement) -> bool:
    """Validity, decided once per form by :func:`follows` and then looked up: validity is invariant
    under renaming terms, and the brute force (2^(2^t) Venn models) would otherwise be repeated for
    every generated syllogism and every answer the reasoner checks."""
    return _valid_shape(shape_of(premises, conclusion))


@cache
def _valid_shape(shape: Shape) -> bool:
    statements = [Statement(q, f"t{s}", f"t{p}") for q, s, p in shape]
    return follows(tuple(statements[:-1]), statements[-1])


def follows(premises: tuple[Statement, ...], conclusion: Statement) -> bool:
    """Validity by brute force over Venn models: each of the 2^t regions empty or not (the
    reference that :func:`is_valid` caches by form)."""
    terms = sorted({t for s in (*premises, conclusion) for t in (s.subject, s.predicate)})
    regions = list(itertools.product((False, True), repeat=len(terms)))
    for occupied in itertools.product((False, True), repeat=len(regions)):
        model = [
            dict(zip(terms, r, strict=True)) for r, o in zip(regions, occupied, strict=True) if o
        ]
        if all(_holds(p, model) for p in premises) and not _holds(conclusion, model):
            return False
    return True


def _holds(statement: Statement, model: list[dict[str, bool]]) -> bool:
    s, p = statement.subject, statement.predicate
    if statement.quantifier == "all":
        return all(region[p] for region in model if region[s])
    if statement.quantifier == "no":
        return not any(region[s] and region[p] for region in model)
    if statement.quantifier == "some":
        return any(region[s] and region[p] for region in model)
    return any(region[s] and not region[p] for region in model)


# --------------------------------------------------------------------------------------------------
# horses
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HorseProblem:
    n: int
    k: int
    m: int
    animal: wl.Animal = HORSE

    @property
    def answer(self) -> int:
        return min_races(self.n, self.k, self.m)


def _grid() -> tuple[tuple[int, int, int], ...]:
    """Every (n, k, m) the generator may emit: derived answers only, each ≥ 5 so a five-label window
    can put the answer in any position (tested one by one in tests/tokenbias/test_horses.py)."""
    squares = [(k * k, k, m) for k in range(4, 11) for m in (1, 2, 3) if m < 3 or k >= 5]
    extra = [(9, 3, 3), (13, 4, 3), (16, 4, 3), (20, 5, 3), (30, 6, 1), (20, 4, 1)]
    grid = sorted(set(squares + extra))
    return tuple(t for t in grid if min_races(*t) >= 5)


HORSE_GRID: tuple[tuple[int, int, int], ...] = _grid()


def build_horses(rng: random.Random, numbers: Literal["classic", "varied"]) -> HorseProblem:
    n, k, m = CLASSIC if numbers == "classic" else rng.choice(HORSE_GRID)
    return HorseProblem(n, k, m)


def other_numbers(problem: HorseProblem, rng: random.Random) -> tuple[int, int, int]:
    """Grid numbers different from the problem's (the H3 numbers perturbation), keeping "the m
    fastest, ranked in order" wording (m ≥ 2 stays m ≥ 2) so only number tokens change."""
    same = (problem.n, problem.k, problem.m)
    return rng.choice([t for t in HORSE_GRID if t != same and (t[2] == 1) == (problem.m == 1)])
