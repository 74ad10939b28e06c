"""What the analysis tests: the key of a matched-pair test and the direction fixed in advance for
each hypothesis × analysis family (read by the analysis and by the answer importer alike)."""

from __future__ import annotations

from typing import Literal

Alternative = Literal["greater", "less", "two-sided"]

#: one matched-pair test per value of these columns
KEY = ("hypothesis", "family", "model", "mode")

#: "greater": π12 > π21, the twin is answered worse; "less": the twin is answered better.
DIRECTIONS: dict[tuple[str, str], Alternative] = {
    ("linda", "H1"): "less",  # an irrelevant added event breaks the representativeness lure
    ("linda", "H2"): "greater",  # without the famous "Linda" exemplar accuracy drops
    ("linda", "H3"): "less",  # a generic name removes the celebrity's misleading background
    ("horses", "H3"): "greater",  # the famous "horses" problem is solved, bunnies are not
    ("syllogism-invalid", "H4"): "greater",  # textbook "All"/"Some" tokens cue the fallacy
    ("syllogism-valid", "H4"): "two-sided",  # the cue could also make valid ones look fallacious
    ("syllogism-invalid", "H5"): "less",  # reputable sources make invalid arguments look sound
    ("syllogism-valid", "H5"): "greater",  # ... and valid ones too: doubting the twin hurts there
    ("linda", "H6"): "less",  # hints help
    ("syllogism-invalid", "H6"): "less",
    ("syllogism-valid", "H6"): "two-sided",  # a fallacy warning may also push valid ones to "no"
}

#: the analysis families, in the order answers files list them
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(f for f, _ in DIRECTIONS))
