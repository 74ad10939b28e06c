"""Realistic final answers, written for this project, each with what a careful human coder reads.

``expect`` is the view in PyETR syntax (``{0}``: nothing follows) or, for an answer that is no
conclusion, its reply kind (``hedged``, ``undecided``, ``refusal``, ``no_answer``,
``unreadable``). ``claim`` marks an answer that states a claim or "nothing follows": the reader's
coverage is the share of those it reads. The unreadable ones among them are left unreadable on
purpose (the reason is in the comment).

Names: ``shop`` has three objects (the lamp c1, the kettle c2, the bell c3) and four properties
(bright P1, hot P2, loud P3, cracked P4) told as "samples"; ``sky`` has Kepra c1, Oldun c2,
Vessar c3 and ringed P1, tidally locked P2, icy P3, visible at dusk P4 told as "bodies".
"""

from __future__ import annotations

from typing import NamedTuple

from biaslab.suites.fallacy.themes import Names

NAMES = {
    "shop": Names(
        "materials",
        {"c1": "the lamp", "c2": "the kettle", "c3": "the bell"},
        {"P1": "bright", "P2": "hot", "P3": "loud", "P4": "cracked"},
    ),
    "sky": Names(
        "celestial",
        {"c1": "Kepra", "c2": "Oldun", "c3": "Vessar"},
        {"P1": "ringed", "P2": "tidally locked", "P3": "icy", "P4": "visible at dusk"},
    ),
}
KINDS = ("hedged", "undecided", "refusal", "no_answer", "unreadable")


class Golden(NamedTuple):
    names: str
    answer: str
    expect: str
    claim: bool | None = None  # None: a claim exactly when ``expect`` is a view

    @property
    def states_claim(self) -> bool:
        return self.expect not in KINDS if self.claim is None else self.claim


IF_BRIGHT_THEN_HOT = "{P1(c1())P2(c2())}^{P1(c1())}"
NOT_BOTH_LOUD_CRACKED = "{~P3(c3()),~P4(c3())}"
LAMP_AND_KETTLE_NOT_BRIGHT = "{~P1(c1())~P1(c2())}"
GOLDEN: list[Golden] = [
    # plain claims
    Golden("shop", "Answer: The lamp is bright.", "{P1(c1())}"),
    Golden("shop", "Answer: the kettle is not hot", "{~P2(c2())}"),
    Golden("shop", "**Answer:** The bell is loud and cracked.", "{P3(c3())P4(c3())}"),
    Golden("shop", "Answer: The lamp is bright and the kettle is hot.", "{P1(c1())P2(c2())}"),
    Golden("shop", "Answer: the lamp isn't bright", "{~P1(c1())}"),
    Golden("shop", "Answer: the kettle must be hot", "{P2(c2())}"),
    Golden("shop", "Answer: The bell is definitely not cracked.", "{~P4(c3())}"),
    Golden("shop", "Final answer: the lamp and the bell are loud", "{P3(c1())P3(c3())}"),
    Golden(
        "shop",
        "Answer: the lamp, the kettle and the bell are all bright",
        "{P1(c1())P1(c2())P1(c3())}",
    ),
    Golden("shop", "Answer: the lamp is bright, hot and loud", "{P1(c1())P2(c1())P3(c1())}"),
    Golden("shop", "Answer: The kettle is hot, but the bell is not loud.", "{P2(c2())~P3(c3())}"),
    Golden("shop", "Answer: the lamp is bright; the kettle is hot", "{P1(c1())P2(c2())}"),
    Golden(
        "shop",
        "Answer: the lamp is bright; the kettle is hot; the bell is loud",
        "{P1(c1())P2(c2())P3(c3())}",
    ),
    Golden("shop", "Answer: The lamp is bright. The bell is cracked.", "{P1(c1())P4(c3())}"),
    Golden("shop", "Answer: the lamp is bright, and the kettle is not hot", "{P1(c1())~P2(c2())}"),
    Golden("shop", "Answer: **The lamp is bright.**", "{P1(c1())}"),
    Golden("shop", "Answer: The kettle is HOT", "{P2(c2())}"),
    Golden("shop", "Reasoning first.\nAnswer:\nThe bell is cracked.", "{P4(c3())}"),
    Golden("shop", "Answer: kettle is hot", "{P2(c2())}"),
    Golden("shop", "Answer: the lamp is always bright", "{P1(c1())}"),
    Golden(
        "shop",
        "Answer: the lamp is bright and the kettle is hot, but the bell is not loud",
        "{P1(c1())P2(c2())~P3(c3())}",
    ),
    Golden("shop", "Answer: the bell is not loud and cracked", "{~P3(c3())P4(c3())}"),
    Golden("shop", "Answer: the bell is not loud and not cracked", "{~P3(c3())~P4(c3())}"),
    # "both" and "not both"
    Golden(
        "shop", "Answer: the lamp and the kettle cannot both be bright", "{~P1(c1()),~P1(c2())}"
    ),
    Golden("shop", "Answer: the bell is never both loud and cracked", NOT_BOTH_LOUD_CRACKED),
    Golden("shop", "Answer: the lamp and the kettle are not both hot", "{~P2(c1()),~P2(c2())}"),
    Golden("shop", "Answer: the lamp and the kettle are both not hot", "{~P2(c1())~P2(c2())}"),
    Golden("shop", "Answer: both the lamp and the kettle are hot", "{P2(c1())P2(c2())}"),
    Golden("shop", "Answer: the lamp and the kettle are both hot", "{P2(c1())P2(c2())}"),
    Golden("shop", "Answer: the bell is both loud and cracked", "{P3(c3())P4(c3())}"),
    Golden("shop", "Answer: the bell is not both loud and cracked", NOT_BOTH_LOUD_CRACKED),
    Golden("shop", "Answer: the bell can't both be loud and cracked", NOT_BOTH_LOUD_CRACKED),
    Golden(
        "shop",
        "Answer: the lamp and the kettle must not both be bright",
        "{~P1(c1()),~P1(c2())}",
    ),
    Golden(
        "shop",
        "Answer: the lamp and the kettle can not both be bright",
        "{~P1(c1()),~P1(c2())}",
    ),
    # "both" with one subject and one property: no reading would be honest
    Golden("shop", "Answer: the lamp is both bright", "unreadable"),
    # "neither … nor"
    Golden("shop", "Answer: neither the lamp nor the kettle is bright", LAMP_AND_KETTLE_NOT_BRIGHT),
    Golden(
        "shop", "Answer: neither the lamp nor the kettle can be bright", LAMP_AND_KETTLE_NOT_BRIGHT
    ),
    Golden("shop", "Answer: the bell is neither loud nor cracked", "{~P3(c3())~P4(c3())}"),
    Golden("shop", "Answer: Neither the lamp nor the bell is cracked.", "{~P4(c1())~P4(c3())}"),
    Golden(
        "shop",
        "Answer: the lamp is not bright, and neither the kettle nor the bell is hot",
        "{~P1(c1())~P2(c2())~P2(c3())}",
    ),
    Golden("shop", "Answer: the lamp is neither bright nor hot", "{~P1(c1())~P2(c1())}"),
    Golden(
        "shop", "Answer: Neither the lamp nor the kettle are bright.", LAMP_AND_KETTLE_NOT_BRIGHT
    ),
    # "either … or", "or both", "but not both", "at least one of"
    Golden("shop", "Answer: the lamp is either bright or hot", "{P1(c1()),P2(c1())}"),
    Golden("shop", "Answer: either the lamp is bright or the kettle is hot", "{P1(c1()),P2(c2())}"),
    Golden(
        "shop", "Answer: the lamp is bright or the kettle is hot, or both", "{P1(c1()),P2(c2())}"
    ),
    Golden("shop", "Answer: the lamp is bright or hot, or both", "{P1(c1()),P2(c1())}"),
    Golden(
        "shop",
        "Answer: either the lamp is bright or the kettle is hot, but not both",
        "{P1(c1())~P2(c2()),~P1(c1())P2(c2())}",
    ),
    Golden(
        "shop",
        "Answer: the bell is either loud or cracked, but not both",
        "{P3(c3())~P4(c3()),~P3(c3())P4(c3())}",
    ),
    Golden("shop", "Answer: at least one of the lamp or the kettle is hot", "{P2(c1()),P2(c2())}"),
    Golden("shop", "Answer: At least one of the lamp and the bell is loud.", "{P3(c1()),P3(c3())}"),
    Golden("shop", "Answer: either the lamp or the kettle is bright", "{P1(c1()),P1(c2())}"),
    Golden("shop", "Answer: the lamp or the kettle is bright", "{P1(c1()),P1(c2())}"),
    Golden("shop", "Answer: the lamp or the kettle is bright, or both", "{P1(c1()),P1(c2())}"),
    Golden(
        "shop",
        "Answer: the lamp is bright, and either the kettle is hot or the bell is loud",
        "{P1(c1())P2(c2()),P1(c1())P3(c3())}",
    ),
    Golden(
        "shop",
        "Answer: either the lamp is bright or the kettle is hot, and the bell is loud",
        "{P1(c1())P3(c3()),P2(c2())P3(c3())}",
    ),
    Golden(
        "shop",
        "Answer: either the lamp is bright and the kettle is hot, or the bell is loud",
        "{P1(c1())P2(c2()),P3(c3())}",
    ),
    Golden(
        "shop",
        "Answer: either the lamp is bright, or the kettle is hot and the bell is loud",
        "{P1(c1()),P2(c2())P3(c3())}",
    ),
    Golden("shop", "Answer: the lamp is not bright or the kettle is hot", "{~P1(c1()),P2(c2())}"),
    Golden("shop", "Answer: the kettle is either not hot or cracked", "{~P2(c2()),P4(c2())}"),
    Golden(
        "shop",
        "Answer: the lamp is bright or the kettle is hot or the bell is loud",
        "{P1(c1()),P2(c2()),P3(c3())}",
    ),
    Golden(
        "shop",
        "Answer: the lamp is bright or the kettle is hot; the bell is loud",
        "{P1(c1())P3(c3()),P2(c2())P3(c3())}",
    ),
    Golden(
        "shop",
        "Answer: the lamp is bright or the kettle is hot, and the bell is loud",
        "{P1(c1())P3(c3()),P2(c2())P3(c3())}",
    ),
    Golden(
        "shop",
        "Answer: the lamp is bright, and either the kettle is hot or the bell is loud and cracked",
        "{P1(c1())P2(c2()),P1(c1())P3(c3())P4(c3())}",
    ),
    Golden("shop", "Answer: either the lamp is bright", "unreadable"),  # an "either" with no "or"
    # "A and B or C" without "either": which grouping? unreadable on purpose
    Golden(
        "shop",
        "Answer: the lamp is bright and the kettle is hot or the bell is loud",
        "unreadable",
        claim=True,
    ),
    # ambiguous: "(B or C) and D" or "B or (C and D)"? left unreadable on purpose
    Golden(
        "shop",
        "Answer: the lamp is bright, and either the kettle is hot or the bell is loud and the "
        "lamp is hot",
        "unreadable",
        claim=True,
    ),
    # conditionals in every order
    Golden("shop", "Answer: if the lamp is bright, then the kettle is hot", IF_BRIGHT_THEN_HOT),
    Golden("shop", "Answer: if the lamp is bright then it is hot", "{P1(c1())P2(c1())}^{P1(c1())}"),
    Golden("shop", "Answer: If the lamp is bright, the kettle is hot.", IF_BRIGHT_THEN_HOT),
    Golden("shop", "Answer: the lamp is bright only if the kettle is hot", IF_BRIGHT_THEN_HOT),
    Golden("shop", "Answer: the kettle is hot whenever the lamp is bright", IF_BRIGHT_THEN_HOT),
    Golden("shop", "Answer: whenever the lamp is bright, the kettle is hot", IF_BRIGHT_THEN_HOT),
    Golden("shop", "Answer: given that the lamp is bright, the kettle is hot", IF_BRIGHT_THEN_HOT),
    Golden("shop", "Answer: the kettle is hot, given that the lamp is bright", IF_BRIGHT_THEN_HOT),
    Golden("shop", "Answer: the kettle is hot if the lamp is bright", IF_BRIGHT_THEN_HOT),
    Golden(
        "shop", "Answer: the lamp being bright implies that the kettle is hot", IF_BRIGHT_THEN_HOT
    ),
    Golden("shop", "Answer: the lamp is bright implies the kettle is hot", IF_BRIGHT_THEN_HOT),
    Golden(
        "shop",
        "Answer: if the lamp is bright and the bell is loud, then the kettle is not hot",
        "{P1(c1())P3(c3())~P2(c2())}^{P1(c1())P3(c3())}",
    ),
    Golden(
        "shop",
        "Answer: if the lamp is bright, then either the kettle is hot or the bell is loud",
        "{P1(c1())P2(c2()),P1(c1())P3(c3())}^{P1(c1())}",
    ),
    Golden(
        "shop",
        "Answer: if the lamp is bright, we can conclude that the kettle is hot",
        IF_BRIGHT_THEN_HOT,
    ),
    Golden(
        "shop",
        "Answer: the kettle is hot unless the lamp is bright",
        "{~P1(c1())P2(c2())}^{~P1(c1())}",
    ),
    Golden(
        "shop",
        "Answer: the lamp is hot and the kettle is bright, unless the bell is loud",
        "{~P3(c3())P2(c1())P1(c2())}^{~P3(c3())}",
    ),
    Golden(
        "shop", "Answer: if the bell is cracked, it is not loud", "{P4(c3())~P3(c3())}^{P4(c3())}"
    ),
    Golden(
        "shop", "Answer: the lamp is hot when the kettle is hot", "{P2(c2())P2(c1())}^{P2(c2())}"
    ),
    Golden(
        "shop",
        "Answer: if the lamp isn't bright, the bell is loud",
        "{~P1(c1())P3(c3())}^{~P1(c1())}",
    ),
    Golden("shop", "Answer: the kettle is hot, assuming the lamp is bright", IF_BRIGHT_THEN_HOT),
    Golden(
        "shop", "Answer: assuming that the lamp is bright, the kettle is hot", IF_BRIGHT_THEN_HOT
    ),
    Golden(
        "shop", "Answer: the kettle is hot provided that the lamp is bright", IF_BRIGHT_THEN_HOT
    ),
    # a disjunctive antecedent has no one-supposition view; "unless" a conjunction would need a
    # disjunctive supposition; "iff" is read for one literal a side: the rest unreadable on purpose
    Golden(
        "shop",
        "Answer: if the lamp is bright or the kettle is hot, then the bell is loud",
        "unreadable",
        claim=True,
    ),
    Golden(
        "shop",
        "Answer: the lamp is bright if and only if the kettle is hot",
        "{P1(c1())P2(c2()),~P1(c1())~P2(c2())}",
    ),
    Golden(
        "shop",
        "Answer: the lamp is bright if and only if the kettle is hot and the bell is loud",
        "unreadable",
        claim=True,
    ),
    Golden(
        "shop",
        "Answer: the lamp is bright unless the kettle is hot and the bell is loud",
        "unreadable",
        claim=True,
    ),
    # quantified claims ("samples" is the theme's kind noun)
    Golden("shop", "Answer: every sample that is bright is hot", "∀x {P1(x)P2(x)}^{P1(x)}"),
    Golden("shop", "Answer: all bright samples are hot", "∀x {P1(x)P2(x)}^{P1(x)}"),
    Golden("shop", "Answer: there is some sample that is also bright", "∃x {P1(x)}"),
    Golden("shop", "Answer: there is a bright sample that is also loud", "∃x {P1(x)P3(x)}"),
    Golden("shop", "Answer: something is bright and hot", "∃x {P1(x)P2(x)}"),
    Golden("shop", "Answer: no sample is cracked", "∀x {~P4(x)}"),
    Golden("shop", "Answer: nothing is loud", "∀x {~P3(x)}"),
    Golden("shop", "Answer: everything is hot", "∀x {P2(x)}"),
    Golden("shop", "Answer: for all x, if x is bright, then x is hot", "∀x {P1(x)P2(x)}^{P1(x)}"),
    Golden(
        "shop",
        "Answer: there is some x such that x is loud and x is not cracked",
        "∃x {P3(x)~P4(x)}",
    ),
    Golden("shop", "Answer: every bright thing is loud", "∀x {P1(x)P3(x)}^{P1(x)}"),
    Golden("shop", "Answer: some sample is loud", "∃x {P3(x)}"),
    Golden("shop", "Answer: no sample can be cracked", "∀x {~P4(x)}"),
    Golden("shop", "Answer: each sample that is hot is bright", "∀x {P1(x)P2(x)}^{P2(x)}"),
    Golden("shop", "Answer: there is a sample that is bright and not hot", "∃x {P1(x)~P2(x)}"),
    Golden("shop", "Answer: all samples are hot", "∀x {P2(x)}"),
    # "all … are not" is "none" or "not all": unreadable on purpose; "not every" is "some … not"
    Golden("shop", "Answer: all samples are not cracked", "unreadable", claim=True),
    Golden("shop", "Answer: not every sample is bright", "∃x {~P1(x)}"),
    Golden("shop", "Answer: not all bright samples are hot", "∃x {P1(x)~P2(x)}"),
    # nothing follows
    Golden("shop", "Answer: nothing follows", "{0}"),
    Golden("shop", "Answer: Nothing logically follows.", "{0}"),
    Golden("shop", "Answer: We cannot definitively conclude anything.", "{0}"),
    Golden("shop", "Answer: No conclusion can be drawn.", "{0}"),
    Golden("shop", "Answer: It cannot be determined.", "{0}"),
    Golden("shop", "Answer: Nothing follows from these premises.", "{0}"),
    Golden("shop", "Answer: no definite conclusion can be drawn", "{0}"),
    Golden("shop", "Answer: Therefore, nothing can be concluded.", "{0}"),
    Golden("shop", "Answer: There is no valid conclusion.", "{0}"),
    Golden("shop", "Answer: None", "{0}"),
    Golden("shop", "Answer: it cannot be determined from the given premises", "{0}"),
    Golden("shop", "Answer: nothing further can be inferred", "{0}"),
    Golden("shop", "Answer: The premises do not entail any conclusion.", "{0}"),
    Golden("shop", "Answer: nothing else can be determined", "{0}"),
    Golden("shop", "Answer: we are unable to draw any conclusion", "{0}"),
    Golden("shop", "Answer: Nothing new follows.", "{0}"),
    Golden("shop", "Answer: we can conclude nothing", "{0}"),
    Golden("shop", "Answer: Nothing follows; the premises are consistent.", "{0}"),
    # "nothing follows" beside a claim is not verum
    Golden(
        "shop",
        "Answer: nothing can be concluded about the lamp, but the kettle is hot",
        "unreadable",
    ),
    Golden("shop", "Answer: nothing necessarily follows", "{0}"),
    Golden("shop", "Answer: No valid conclusions can be drawn from these statements.", "{0}"),
    Golden("shop", "Answer: we can't conclude anything definite", "{0}"),
    # undecided: the model cannot tell (no claim that nothing follows)
    Golden("shop", "Answer: I can't tell.", "undecided"),
    Golden("shop", "Answer: unknown", "undecided"),
    Golden("shop", "Answer: I do not know", "undecided"),
    Golden("shop", "Answer: There is not enough information to decide.", "undecided"),
    Golden("shop", "Answer: whether the lamp is bright cannot be determined", "undecided"),
    Golden("shop", "Answer: it is unclear whether the kettle is hot", "undecided"),
    Golden("shop", "Answer: I am not sure what follows", "undecided"),
    # hedged: a possibility is no conclusion ("can be P" alone claims a possibility)
    Golden("shop", "Answer: the lamp might be bright", "hedged"),
    Golden("shop", "Answer: the lamp can be bright", "hedged"),
    Golden("shop", "Answer: the kettle could be hot and the bell is loud", "hedged"),
    Golden("shop", "Answer: possibly the bell is cracked", "hedged"),
    Golden("shop", "Answer: the lamp is probably bright", "hedged"),
    Golden("shop", "Answer: the lamp is bright, but I am not sure", "hedged"),
    Golden("shop", "Answer: the lamp is bright, but the kettle may be hot", "hedged"),
    Golden("shop", "Answer: It seems that the bell is loud", "hedged"),
    Golden("shop", "Answer: the lamp is likely bright", "hedged"),
    Golden("shop", "Answer: perhaps the kettle is not hot", "hedged"),
    Golden("shop", "Answer: the lamp is bright (I think)", "hedged"),
    # "not necessarily P" says P does not follow, not that P is false
    Golden("shop", "Answer: the lamp is not necessarily bright", "hedged"),
    Golden("shop", "Answer: the kettle isn't necessarily hot", "hedged"),
    Golden("shop", "Answer: the kettle is necessarily not hot", "{~P2(c2())}"),
    # a remark that takes the claim itself back
    Golden("shop", "Answer: the lamp is bright, but this cannot be determined", "hedged"),
    Golden("shop", "Answer: the lamp is bright, but that is not certain", "hedged"),
    # refusals, and replies without an answer line
    Golden("shop", "Answer: I'm sorry, but I can't help with that.", "refusal"),
    Golden("shop", "I'm sorry, I cannot answer this question.", "refusal"),
    Golden("shop", "Answer: I refuse to answer", "refusal"),
    Golden("shop", "Answer: As an AI language model, I will not speculate", "refusal"),
    Golden("shop", "I won't answer this.", "refusal"),
    Golden("shop", "Answer: I'm sorry, but I cannot determine anything from this", "refusal"),
    Golden("shop", "The lamp is bright.", "no_answer"),
    Golden("shop", "", "no_answer"),
    Golden("shop", "Let me think. The lamp is bright, so the kettle is hot.", "no_answer"),
    # a claim with a remark that adds no claim: the claim is read
    Golden("shop", "Answer: the lamp is bright, but nothing else can be concluded", "{P1(c1())}"),
    Golden("shop", "Answer: the lamp is bright, and nothing more follows", "{P1(c1())}"),
    Golden(
        "shop",
        "Answer: the lamp is either bright or hot, but we cannot determine which",
        "{P1(c1()),P2(c1())}",
    ),
    Golden("shop", "Answer: the kettle is hot; nothing else follows", "{P2(c2())}"),
    Golden("shop", "Answer: the bell is loud (from premises 1 and 2)", "{P3(c3())}"),
    Golden("shop", "Answer: the bell is loud, because the lamp is bright", "{P3(c3())}"),
    Golden(
        "shop", "Answer: the bell is loud. This follows from the first two premises.", "{P3(c3())}"
    ),
    Golden(
        "shop",
        "Answer: the lamp is bright, but whether the kettle is hot cannot be determined",
        "{P1(c1())}",
    ),
    Golden("shop", "Answer: the lamp is bright - by modus ponens", "{P1(c1())}"),
    Golden(
        "shop",
        "Answer: the lamp is bright; the kettle is hot, which follows from premise 2",
        "{P1(c1())P2(c2())}",
    ),
    Golden(
        "shop",
        "Answer: the lamp is bright, and it is unknown whether the bell is loud",
        "{P1(c1())}",
    ),
    Golden(
        "shop",
        "Answer: the lamp is bright, and we cannot determine anything about the kettle",
        "{P1(c1())}",
    ),
    Golden("shop", "Answer: the bell is cracked, since the lamp is not bright", "{P4(c3())}"),
    Golden("shop", "Answer: the lamp is bright, but we don't know about the kettle", "{P1(c1())}"),
    # "as is B" adds a claim: not dropped as a justification would be
    Golden("shop", "Answer: The lamp is bright, as is the kettle", "{P1(c1())P1(c2())}"),
    Golden("shop", "Answer: the bell is loud, and so is the lamp", "{P3(c3())P3(c1())}"),
    Golden("shop", "Answer: the lamp is bright, as premise 1 says", "{P1(c1())}"),
    Golden("shop", "Answer: the lamp is bright, but the kettle's status is unknown", "{P1(c1())}"),
    Golden("shop", "Answer: the lamp is bright, though the kettle is hot", "{P1(c1())P2(c2())}"),
    Golden(
        "shop", "Answer: The lamp is bright, although the bell is not loud", "{P1(c1())~P3(c3())}"
    ),
    Golden("shop", "Answer: the lamp is bright, the kettle is obviously hot", "{P1(c1())P2(c2())}"),
    # lead-ins
    Golden(
        "shop", "Answer: From the premises, we can conclude that the kettle is hot.", "{P2(c2())}"
    ),
    Golden("shop", "Answer: Therefore, the bell is cracked.", "{P4(c3())}"),
    Golden("shop", "Answer: It follows that the lamp is not bright", "{~P1(c1())}"),
    Golden(
        "shop",
        "Answer: We can infer that the kettle is hot and the bell is loud",
        "{P2(c2())P3(c3())}",
    ),
    Golden("shop", "Answer: The conclusion is that the lamp is bright.", "{P1(c1())}"),
    Golden("shop", "Answer: So the bell is loud", "{P3(c3())}"),
    # sentence negation
    Golden("shop", "Answer: it is not the case that the lamp is bright", "{~P1(c1())}"),
    Golden(
        "shop",
        "Answer: It is false that the kettle is hot and the bell is loud",
        "{~P2(c2()),~P3(c3())}",
    ),
    # words that change the logic are never skipped: unreadable rather than a wrong reading
    Golden("shop", "Answer: the lamp is not not bright", "unreadable"),
    Golden("shop", "Answer: only the lamp is bright", "unreadable", claim=True),
    Golden("shop", "Answer: the lamp is bright, not the kettle", "unreadable", claim=True),
    Golden(
        "shop", "Answer: the lamp is bright except when the kettle is hot", "unreadable", claim=True
    ),
    Golden("shop", "Answer: the lamp is bright only", "unreadable"),
    Golden("shop", "Answer: the lamp is bright and the kettle is hot, or both", "unreadable"),
    Golden("shop", "Answer: some of the lamp is bright", "unreadable"),
    # words outside the problem
    Golden("shop", "Answer: the lamp is blue", "unreadable"),
    Golden("shop", "Answer: the lamp is bright and the kettle", "unreadable"),
    Golden("shop", "Answer: the stove is hot", "unreadable"),
    # multi-word names
    Golden("sky", "Answer: Kepra is tidally locked", "{P2(c1())}"),
    Golden("sky", "Answer: Oldun is not visible at dusk", "{~P4(c2())}"),
    Golden("sky", "Answer: Kepra and Vessar cannot both be icy", "{~P3(c1()),~P3(c3())}"),
    Golden("sky", "Answer: neither Kepra nor Oldun is ringed", "{~P1(c1())~P1(c2())}"),
    Golden(
        "sky",
        "Answer: if Vessar is icy, then it is tidally locked",
        "{P3(c3())P2(c3())}^{P3(c3())}",
    ),
    Golden("sky", "Answer: every body that is ringed is icy", "∀x {P1(x)P3(x)}^{P1(x)}"),
    Golden("sky", "Answer: there is some body that is also visible at dusk", "∃x {P4(x)}"),
    Golden("sky", "Answer: Kepra is ringed or icy, or both", "{P1(c1()),P3(c1())}"),
    Golden("sky", "Answer: Oldun is icy whenever Kepra is ringed", "{P1(c1())P3(c2())}^{P1(c1())}"),
    Golden("sky", "Answer: Vessar is tidally-locked", "{P2(c3())}"),
    Golden(
        "sky", "Answer: At least one of Kepra or Oldun is visible at dusk", "{P4(c1()),P4(c2())}"
    ),
    Golden(
        "sky",
        "Answer: Kepra is ringed, and either Oldun is icy or Vessar is icy",
        "{P1(c1())P3(c2()),P1(c1())P3(c3())}",
    ),
    Golden("sky", "Answer: Kepra is icy only if Oldun is ringed", "{P3(c1())P1(c2())}^{P3(c1())}"),
    Golden("sky", "Answer: Kepra might be icy", "hedged"),
    Golden("sky", "Answer: Nothing definite can be concluded about Kepra", "{0}"),
    Golden("sky", "Answer: Oldun and Vessar are both not ringed", "{~P1(c2())~P1(c3())}"),
    Golden("sky", "Answer: Oldun and Vessar are not both ringed", "{~P1(c2()),~P1(c3())}"),
    Golden(
        "sky",
        "Answer: Kepra is icy or Oldun is ringed, but not both",
        "{P3(c1())~P1(c2()),~P3(c1())P1(c2())}",
    ),
    Golden(
        "sky", "Answer: neither Kepra nor Vessar can be visible at dusk", "{~P4(c1())~P4(c3())}"
    ),
    Golden("sky", "Answer: Kepra can be visible at dusk", "hedged"),
    Golden("sky", "Answer: Kepra is never both ringed and icy", "{~P1(c1()),~P3(c1())}"),
    Golden("sky", "Answer: Vessar is ringed, but nothing else can be determined", "{P1(c3())}"),
    Golden("sky", "Answer: every icy body is ringed", "∀x {P1(x)P3(x)}^{P3(x)}"),
    Golden("sky", "Answer: no body is visible at dusk", "∀x {~P4(x)}"),
    Golden("sky", "Answer: Kepra and Oldun are icy", "{P3(c1())P3(c2())}"),
    Golden("sky", "Answer: Kepra is icy. Oldun is ringed.", "{P3(c1())P1(c2())}"),
    Golden("sky", "Answer: Vessar is ringed (by premises 2 and 3)", "{P1(c3())}"),
    Golden("sky", "Answer: I cannot determine this", "undecided"),
    Golden("sky", "Answer: Nothing can be concluded", "{0}"),
]
