"""Reading a model's reply as a careful human coder would: the answer line, the strict grammar,
"nothing follows", the lenient reading, in that order — and never a meaning the reply lacks.

The paper had GPT-4.1-mini translate replies; its post-processing corrupted names and it turned
refusals into "nothing follows". Here the last ``Answer:`` line (markdown removed, a second
sentence kept as "A; B") loses its lead-in ("we can conclude that …", removed in place when a
condition precedes it) and is read by :mod:`biaslab.suites.fallacy.grammar`, whole or without a
trailing remark — only a remark that adds no claim (a disclaimer such as "…, but nothing else
follows", a justification such as "(by premise 2)", or one naming nothing) may be dropped; a remark
that hedges or takes the claim back makes the answer hedged, any other keeps it unread. Only when
no claim reads does a sentence saying that nothing follows read as verum (logic's and ETR's
"nothing follows"), and never beside a claim. A sentence that says the model cannot tell
("undecided"), refuses, or only says what *might* be ("hedged") is unparsed with that status.
Then the *lenient* reading, flagged as such, takes the conjunction of every (object, property,
polarity) it can pair up in a sentence with no word that could change its logic.

The meaning guard: a reading is accepted only if the suite's own English for it reads back to the
same view (:func:`meaning_guard`), and no word of :data:`~biaslab.suites.fallacy.lexicon.LOGIC_WORDS`
is skipped (no filler is one, the lenient reading refuses them, a dropped lead-in or remark may
carry none). Otherwise the answer is unreadable, with the word or construction that stopped it.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from biaslab.errors import BiaslabError
from biaslab.suites.fallacy.grammar import ParseError, read_sentence
from biaslab.suites.fallacy.lexicon import LOGIC_WORDS, NEGATIONS, Lexicon, Token, tokenize
from biaslab.suites.fallacy.render import view_text
from biaslab.suites.fallacy.themes import Names, normalise
from biaslab.suites.fallacy.views import Literal, MView, Term


def _patterns(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


_ADVERBS = (
    r"((logically|necessarily|definitely|definitively|really|validly|certainly|strictly|"
    r"firmly|reliably|actually|conclusively|with certainty) )*"
)
_SO = r"(so |therefore |thus |hence |then |consequently |overall |in conclusion |in summary )?"
#: "nothing follows": a legitimate answer (ETR's and logic's verum), read only when no claim reads
_NOTHING = _patterns(
    rf"^{_SO}(nothing|none)$",
    rf"^{_SO}nothing ((new|definite|further|else|more|certain|specific|definitive|conclusive|"
    rf"at all|of substance|in particular) )*{_ADVERBS}(follows|can be {_ADVERBS}(concluded|"
    r"inferred|deduced|derived|determined|established|said)|is (entailed|implied)|"
    r"is (logically )?(entailed|implied)|(can|may) be drawn)",
    rf"^{_SO}no ((definite|definitive|valid|new|certain|further|specific|firm|conclusive|logical|"
    r"particular|additional|meaningful|sound) )*(conclusions?|inferences?)\b",
    rf"^{_SO}there (is|are) no ((definite|definitive|valid|new|certain|further|specific|firm|"
    r"conclusive|logical|particular|additional) )*(conclusions?|inferences?)\b",
    rf"\b(can ?not|can t|unable to|not possible to|not able to) {_ADVERBS}(be )?(conclude|infer|"
    rf"deduce|derive|draw|establish|determine) {_ADVERBS}(anything|any ((definite|valid|further|"
    r"new|specific|firm|certain|logical) )*conclusions?)",
    rf"^{_SO}(it )?(can ?not|can t) be {_ADVERBS}(determined|concluded|inferred|deduced)"
    r"( (from|based on|given) (the )?(given |available )?(premises|information|statements|notes"
    r"|facts|clues))?$",
    r"^(the premises|they) (do not|don t) (entail|imply|determine) (anything|any conclusion)",
    r"^no (further |new )?(information|facts?) (can be|is) (concluded|inferred|deduced|derived|"
    r"determined|entailed)",
)
#: undecided: the model does not know or cannot tell, which is not a claim that nothing follows
_UNDECIDED = _patterns(
    r"(can ?not|can t|unable to|impossible to|not possible to) (really )?(tell|determine|decide|"
    r"know|say|judge|be sure)",
    r"\b(can ?not|can t) be (determined|decided|known|told|said)",
    r"^(it is )?(undetermined|indeterminate|unknown|unclear|uncertain|undecidable|ambiguous)\b",
    r"\b(not sure|unsure|don t know|do not know|no idea|not certain|hard to say)\b",
    r"\b(insufficient|not enough) information\b",
)
#: a refusal to answer (unparsed, never "nothing follows")
_REFUSAL = _patterns(
    r"\b(i|we) (can ?not|can t|won t|will not|refuse to|am unable to|m unable to|am not able to|"
    r"m not able to|decline to) (help|answer|assist|comply|do (that|this)|provide|respond|solve)",
    r"^(i m |i am )?(sorry|apologies)\b",
    r"\bas an (ai|assistant|language model)\b",
    r"\bi (must |have to )?(decline|refuse)\b",
)
#: words that turn a claim into a possibility: the sentence asserts nothing categorical
HEDGES = frozenset(
    {
        "might", "may", "could", "can", "possibly", "perhaps", "probably", "likely", "unlikely",
        "maybe", "possible", "presumably", "seems", "seem", "appears", "appear", "suggests",
        "plausibly", "conceivably", "not-necessarily",
    }
)  # fmt: skip
#: words that change what a sentence says in ways the lenient reading cannot see
_LENIENT_BLOCKERS = HEDGES | {
    "or", "if", "either", "neither", "nor", "unless", "otherwise", "false", "untrue", "wrong",
    "incorrect", "case", "impossible", "doubt", "except", "without", "lacks", "lack", "opposite",
    "contrary", "contradiction", "contradicts", "whether", "not-the-case", "not-both",
    "not-either", "none", "nothing", "nobody", "everything", "every", "all", "some", "something",
    "any", "each",
} | (LOGIC_WORDS - {"not", "never", "cannot"})  # fmt: skip


#: most words outside the problem and the grammar a lenient reading tolerates
LENIENT_UNKNOWN_WORDS = 2
_NEGATING = NEGATIONS | {"no", "cannot"}
_LENIENT_KNOWN = _NEGATING | {"is", "and", "but", "the", "a", "an", "it", "they", "then", "that"}


def _matches(patterns: tuple[re.Pattern[str], ...], text: str) -> bool:
    normal = normalise(text)
    return any(pattern.search(normal) for pattern in patterns)


#: how an answer was read; the first three are parsed (``view`` set), the others unparsed
STATUSES = (
    "strict",  # the grammar read it
    "lenient",  # the conjunction of the (object, property, polarity) triples it pairs up
    "nothing",  # "nothing follows" (verum): a legitimate answer
    "undecided",  # "I can't tell", "cannot be determined", "unknown": no conclusion claimed
    "hedged",  # "might", "could", "possibly": a possibility, not a conclusion
    "refusal",  # "I cannot help with that", "I'm sorry"
    "no_answer",  # no "Answer:" line (or an empty reply)
    "unreadable",  # words outside the problem or the grammar
)


@dataclass(frozen=True)
class Reading:
    """What an answer says: ``view`` (None when unparsed), how it was read, and the sentence."""

    view: MView | None
    status: str  # one of STATUSES
    sentence: str
    error: str | None = None

    @property
    def mode(self) -> str | None:
        """strict | lenient | nothing for a parsed answer, else None."""
        return self.status if self.view is not None else None

    @property
    def parsed(self) -> bool:
        return self.view is not None


def says_nothing_follows(sentence: str) -> bool:
    return _matches(_NOTHING, sentence)


def unparsed_status(sentence: str, lexicon: Lexicon) -> str | None:
    """Why a sentence the grammar cannot read is no conclusion: undecided, a refusal, hedged
    (None: none of these)."""
    if _matches(_UNDECIDED, sentence):
        return "undecided"
    if _matches(_REFUSAL, sentence):
        return "refusal"
    if any(t.kind == "word" and t.value in HEDGES for t in tokenize(sentence, lexicon)):
        return "hedged"
    return None


def lenient(sentence: str, lexicon: Lexicon) -> MView | None:
    """The conjunction of every (object, property, polarity) the sentence pairs up — if a copula
    (or a comma/colon) links each subject to its properties, at most
    :data:`LENIENT_UNKNOWN_WORDS` words are outside the problem and the grammar, and no word
    could change the sentence's logic (see :data:`_LENIENT_BLOCKERS`). Garbage that happens to
    name an object and a property ("blah ace red") is not read."""
    tokens = tokenize(sentence, lexicon)
    words = [t.value for t in tokens if t.kind == "word"]
    if set(words) & _LENIENT_BLOCKERS or any(t.kind == "var" for t in tokens):
        return None
    if sum(w not in _LENIENT_KNOWN for w in words) > LENIENT_UNKNOWN_WORDS:
        return None
    literals: list[Literal] = []
    subjects: list[str] = []
    negated = linked = described = False
    previous_kind = ""
    for before, token in itertools.pairwise([Token("start", ""), *tokens, Token("end", "")]):
        if before.kind == "word" and before.value in _NEGATING and token.kind != "prop":
            return None  # "not the ace …", "red, not": a negation whose scope is not one property
        if token.kind == "obj":
            if previous_kind not in ("obj", "and-subject"):
                if subjects and not described:
                    return None  # "the ace and the king, …": a subject with no property
                subjects, described = [], False
            subjects.append(token.value)
            negated = linked = False
            previous_kind = "obj"
        elif token.kind == "prop":
            if not subjects or not linked:
                return None
            literals.extend(Literal(token.value, Term(s), not negated) for s in subjects)
            described = True
            previous_kind = "prop"
        elif token.kind == "comma" or (token.kind == "word" and token.value == "is"):
            linked = linked or bool(subjects)
        elif token.kind == "word" and token.value in _NEGATING:
            if negated:
                return None  # "not not P": a double negation is never read as one
            negated = True
        elif token.kind == "word" and token.value in ("and", "but") and previous_kind == "prop":
            negated = False
            previous_kind = "and"
        elif token.kind == "word" and token.value == "and" and previous_kind == "obj":
            previous_kind = "and-subject"
    if not literals or not described:
        return None  # nothing read, or a last subject with no property
    return MView.build([literals])


_ANSWER_LINE = re.compile(r"^[\W_]*(?:final\s+)?answer[\W_]*?[:：]\s*(.*)$", re.IGNORECASE)
#: phrases that introduce the claim ("we can conclude that …"): removed, and with them what comes
#: before them when that names nothing and has no word that changes the logic ("From the
#: premises, we can conclude that …"); otherwise only the phrase goes ("if A, we can conclude that
#: B" is "if A, B")
_LEAD_IN = re.compile(
    r"\b(?:we can (?:now |therefore |thus |safely |validly )?(?:conclude|infer|deduce|say|determine)"
    r"|(?:we|i|one) (?:can )?(?:conclude|infer|deduce)|it can be (?:concluded|inferred|deduced)"
    r"|it (?:logically |necessarily )?follows|the (?:only |valid |final |logical )?conclusion is"
    r"|it must be the case|we know|this means|we get|we have)(?: that)?\s*[:,]?\s+",
    re.IGNORECASE,
)
#: where a remark after the claim may start: ", but …", "; …", " (…", " - …", ", which …" …
_TRAILS = re.compile(
    r"(?:,\s*but\b(?!\s+not\s+both)|,\s*(?:and\s+|so\s+)?nothing\s+(?:else|more)\b|;\s*"
    r"|\s+\(|\s+-+\s+|\s+—\s*|,\s*(?:though|although|however|which|as|since|because|given"
    r"|so|and\s+(?:this|that|we|it\s+is|nothing))\b|\s+(?:because|since|as\s+(?:shown|stated|"
    r"given|per))\b)",
    re.IGNORECASE,
)
#: a remark that says no more can be concluded: it takes nothing back and adds no claim
_DISCLAIMERS = _patterns(
    r"^(but |and |so |though |although |however |yet )?(nothing|no) (else|more|further|other|"
    r"additional)\b",
    r"^(but |and |though |although |however |yet )?(we|i|one) (can ?not|can t|are unable to|"
    r"am unable to|m unable to|don t|do not|cannot) (\w+ )?(determine|tell|say|know|conclude|"
    r"infer|decide|deduce) (which|whether|anything|more|the rest|what else|what|how|if|about|"
    r"regarding|for sure about)\b",
    r"^(but |and |though |although |however |yet )?(it is |it s )?(unknown|unclear|undetermined|"
    r"not determined|not known|uncertain|undecided|indeterminate) (which|whether|what|if|how)\b",
    r"(can ?not|can t) be (determined|concluded|inferred|deduced|known|decided|said|established)"
    r"( (from|based on|given) (the )?(given |available )?(premises|information|statements|notes|"
    r"facts|clues))?$",
    r"\b(is|are|remains?|stays?) (unknown|undetermined|undecided|unclear|indeterminate|open|"
    r"not determined|not known|uncertain)$",
    r"^(but |and )?(that is|that s|this is) (all|it)$",
)
#: a remark that takes the claim itself back ("…, but this cannot be determined")
_RETRACTIONS = _patterns(
    r"^(but |and |though |although |however |yet |so )?(this|that|it|which)( claim| conclusion)? "
    r"(can ?not|can t|is not|isn t|may not|might not|does not|doesn t) (be )?(determined|"
    r"certain|sure|known|concluded|established|follow|necessarily|definite|guaranteed)",
)
#: a remark that says why the claim holds (premise numbers, rules): not part of the claim
_JUSTIFICATIONS = _patterns(
    r"^(because|since|as(?! (is|are|does|do|well|with|for)\b)|from|by|via|using|per|according to|"
    r"following|based on|due to|given "
    r"(the |premises?|statements?)|see|cf|which follows|which is|this follows|it follows from|"
    r"this is (because|since|due|from|by)|as (shown|stated|given|per)|premises?|statements?|"
    r"steps?|modus|by (premise|statement|modus))\b",
)
#: a remark that takes the claim back ("…, but I'm not sure")
_UNSURE = _patterns(r"\b(not sure|unsure|not certain|uncertain|i think|i guess|i believe)\b")


def answer_sentence(completion: str) -> str | None:
    """What the last 'Answer:' line says (markdown removed; a full stop between sentences
    becomes a '; ', so a second sentence is read, not dropped), or None."""
    lines = completion.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        match = _ANSWER_LINE.match(lines[i].strip())
        if not match:
            continue
        text = match.group(1).strip()
        if not text:
            rest = [line.strip() for line in lines[i + 1 :] if line.strip()]
            text = rest[0] if rest else ""
        text = re.sub(r"[*`\"“”]", "", text).strip()
        text = re.sub(r"(?<=[^\s.])[.!]+\s+(?=\S)", "; ", text.strip())
        return text.rstrip(".!").strip() or None
    return None


def read_answer(completion: str, lexicon: Lexicon) -> Reading:
    """Read a model's reply: the claim (strict grammar, without a lead-in and a trailing remark
    that adds no claim), then 'nothing follows', then the reasons it is no conclusion
    (undecided, refusal, hedged), then the lenient reading. Every reading passes the meaning
    guard (:func:`meaning_guard`) or the answer is unreadable with the word that stopped it."""
    sentence = answer_sentence(completion)
    if sentence is None:
        if _matches(_REFUSAL, completion):
            return Reading(None, "refusal", "", "a refusal without an 'Answer:' line")
        return Reading(None, "no_answer", "", "no 'Answer:' line")
    body, lead_error = _without_lead_in(sentence, lexicon)
    if lead_error is not None:
        return Reading(None, "unreadable", sentence, lead_error)
    error = ""
    claim_read = False  # a claim read, with a remark that may change it: never "nothing follows"
    for claim, remark in _claim_and_remark(body):
        try:
            view = read_sentence(claim, lexicon)
        except (ParseError, ValueError) as exc:
            error = error or str(exc)
            continue
        claim_read = True
        kind = remark_kind(remark, lexicon)
        if kind == "hedge":
            return Reading(None, "hedged", sentence, "a claim with a hedging remark")
        if kind == "other":
            error = error or f"a remark after the claim that may change it: {remark.strip()!r}"
            continue
        guard = meaning_guard(view, lexicon)
        if guard is not None:
            return Reading(None, "unreadable", sentence, guard)
        return Reading(view, "strict", sentence)
    if _matches(_REFUSAL, sentence):  # "I'm sorry, but I cannot …" is never "nothing follows"
        return Reading(None, "refusal", sentence, "refusal answer")
    if not claim_read and (says_nothing_follows(body) or says_nothing_follows(sentence)):
        beside = _claim_beside_nothing(body, lexicon)
        if beside is not None:
            return Reading(
                None, "unreadable", sentence, f"a claim beside 'nothing follows': {beside!r}"
            )
        return Reading(MView(stage=frozenset({frozenset()})), "nothing", sentence)
    status = unparsed_status(sentence, lexicon)
    if status is not None:
        return Reading(None, status, sentence, f"{status} answer")
    loose = lenient(body, lexicon)
    if loose is not None and meaning_guard(loose, lexicon) is None:
        return Reading(loose, "lenient", sentence)
    stop = _logic_word(body, lexicon)
    if stop is not None and not error:
        error = f"a word that changes the logic: {stop!r}"
    return Reading(None, "unreadable", sentence, error or "unreadable")


def _claim_beside_nothing(sentence: str, lexicon: Lexicon) -> str | None:
    """A remark after "nothing follows" that names something and is no disclaimer or
    justification ("nothing can be concluded about A, but B is P"): the answer is not verum."""
    for _, remark in _claim_and_remark(sentence):
        if remark and remark_kind(remark, lexicon) in ("other", "hedge"):
            return remark.strip(" ,;")
    return None


def _logic_word(text: str, lexicon: Lexicon) -> str | None:
    """The first word in ``text`` that changes what a sentence says (None: there is none)."""
    for token in tokenize(text, lexicon):
        if token.kind == "word" and token.value in LOGIC_WORDS:
            return token.value.replace("-", " ")
    return None


def _without_lead_in(sentence: str, lexicon: Lexicon) -> tuple[str, str | None]:
    """The sentence without its lead-in phrase (and error None), or the sentence and why not."""
    if says_nothing_follows(sentence):
        return sentence, None
    match = _LEAD_IN.search(sentence)
    if match is None:
        return sentence, None
    before, after = sentence[: match.start()], sentence[match.end() :]
    tokens = tokenize(before, lexicon)
    if all(t.kind in ("word", "comma") for t in tokens) and _logic_word(before, lexicon) is None:
        return after, None  # "From premises 1 and 2, we can conclude that …"
    if before.rstrip().endswith(","):
        return f"{before.rstrip()} {after}", None  # "if A, we can conclude that B": "if A, B"
    return sentence, f"a lead-in inside the claim: {match.group(0).strip()!r}"


def _claim_and_remark(sentence: str) -> list[tuple[str, str]]:
    """(claim, remark) splits: the whole sentence, then cut before each place a trailing remark
    may start, longest claim first."""
    splits = [(sentence, "")]
    for match in reversed(list(_TRAILS.finditer(sentence))):
        head = sentence[: match.start()].strip()
        if head and all(head != claim for claim, _ in splits):
            splits.append((head, sentence[match.start() :]))
    return splits


def remark_kind(remark: str, lexicon: Lexicon) -> str:
    """What a remark after a claim does: "" (there is none), "disclaimer" (no more follows, or
    which alternative holds is open), "justification" (why the claim holds), "hedge" (takes the
    claim back), "empty" (names nothing and has no word that changes the logic) or "other" (may
    add to or change the claim: the claim alone is not read)."""
    text = normalise(remark)
    text = re.sub(r"^(but|and|so|though|although|however|which|yet)\s+", r"\1 ", text).strip()
    if not text:
        return ""
    if _matches(_RETRACTIONS, text):
        return "hedge"
    if _matches(_DISCLAIMERS, text):
        return "disclaimer"
    words = {t.value for t in tokenize(remark, lexicon) if t.kind == "word"}
    if words & HEDGES or _matches(_UNSURE, text):
        return "hedge"
    if _matches(_JUSTIFICATIONS, re.sub(r"^(,|and|so|which is)\s+", "", text)):
        return "justification"
    tokens = tokenize(remark, lexicon)
    if all(t.kind in ("word", "comma") for t in tokens) and _logic_word(remark, lexicon) is None:
        return "empty"
    return "other"


def names_of(lexicon: Lexicon) -> Names:
    """Names to write a view in for a lexicon: each constant's longest phrase, each property's."""
    objects: dict[str, str] = {}
    for phrase, constant in sorted(lexicon.objects.items()):
        if len(phrase) > len(objects.get(constant, "")):
            objects[constant] = phrase
    properties = {predicate: phrase for phrase, predicate in sorted(lexicon.properties.items())}
    return Names("reading", objects, properties)


def meaning_guard(view: MView, lexicon: Lexicon) -> str | None:
    """Why a reading is not accepted (None: it is): our own English for the view, read back,
    must give the same view — a reading the suite cannot say in its own words is not trusted."""
    try:
        text = view_text(view, names_of(lexicon))
    except (BiaslabError, KeyError) as exc:
        return f"a reading the suite cannot write back: {exc}"
    try:
        back = read_sentence(text, lexicon)
    except (ParseError, ValueError) as exc:
        return f"a reading whose English does not read back ({text!r}: {exc})"
    if back != view.without_issues():
        return f"a reading whose English reads back differently ({text!r})"
    return None
