"""Every structural knob of the DeReLab generator, its presets, and ``-p key=value`` parsing.

The easy/hard presets follow the paper's Tables 6-7 and, where paper and code disagree, the original
code's hard defaults (reference derelab.md section 2a): hard default-reasoning conversations draw
4-7 objects (paper: 4-6) and allow up to 5 hypothesis sections (paper: 3). Linear inheritance is
simplified from the original's per-depth fraction table to one depth range and one exception
fraction range (same spans: easy depth 4-6 with 3-4 exceptions, hard depth 20-30).

Parameters beyond the paper exist to fix what the original gets wrong (reference sections 4 and 6):
roots and final rules that *lack* the property (initial answers are not always "yes"), equal source
priorities and cross-links for multiple inheritance (genuine "unknown" labels), updates about other
objects and irrelevant attributes (answers that the polarity of the last update does not predict).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from biaslab.suites.params import resolve_params

IntRange = tuple[int, int]
FloatRange = tuple[float, float]

Topology = Literal["default", "linear", "tree"]
TOPOLOGIES: tuple[Topology, ...] = ("default", "linear", "tree")
SHAPES = ("jellyfish", "balanced", "bushy")


#: most conversations one ``generate`` call makes per topology (``--n``): every conversation is
#: held in memory until the set is written (about 60 kB and 15 ms of CPU each, so 3 topologies x
#: 2,000 is roughly 0.4 GB and 1.5 min before Inspect copies them into samples); make larger sets
#: as several seeds
MAX_CONVERSATIONS = 2_000


class Config(BaseModel):
    """One generator configuration (immutable; unknown keys are errors)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # ---- what to generate and how to present it
    topology: Literal["default", "linear", "tree", "all"] = "all"
    difficulty: Literal["easy", "hard"] = "easy"
    reveal: Literal["serial", "random", "mixed"] = "random"
    instructions: Literal["rules", "minimal", "none"] = "minimal"
    weakening: Literal["mixed", "defeat", "withhold"] = "mixed"
    question_order: Literal["standard", "reversed"] = "standard"
    effect_questions: Literal["auto", "always", "never"] = "auto"
    entities: Literal["pseudo", "real"] = "pseudo"
    domain: str = "any"
    max_updates_per_section: int | None = None
    #: a dataset file in the original DeReLab layout to relabel instead of generating
    conversations: str | None = None

    # ---- default reasoning (Table 7)
    chain_length: IntRange = (5, 10)
    num_objects: IntRange = (2, 3)
    irrelevant_attributes: IntRange = (1, 2)
    sparsity: FloatRange = (0.30, 0.50)
    max_sections: int = 2
    other_object_updates: IntRange = (0, 1)
    target_evidence_prob: float = 0.2
    negative_rule_prob: float = 0.3
    exception_wording_prob: float = 0.5
    source_section_prob: float = 0.5
    num_sources: IntRange = (2, 4)
    bypass_prob: float = 0.5
    weaker_claim_first_prob: float = 0.7
    equal_priority_prob: float = 0.3
    contested_rule_prob: float = 0.5

    # ---- linear inheritance
    linear_depth: IntRange = (4, 6)
    linear_exception_fraction: FloatRange = (0.5, 1.0)

    # ---- tree inheritance (Table 6)
    shape: Literal["mixed", "jellyfish", "balanced", "bushy"] = "mixed"
    tree_sparsity: FloatRange = (0.50, 0.80)
    jellyfish_max_depth: int = 4
    jellyfish_root_breadth: int = 5
    jellyfish_branching: IntRange = (1, 1)
    jellyfish_survival: float = 0.40
    jellyfish_decay: float = 1.0
    balanced_max_depth: int = 3
    balanced_root_breadth: int = 2
    balanced_branching: IntRange = (2, 2)
    balanced_survival: float = 1.0
    balanced_decay: float = 1.0
    bushy_max_depth: int = 2
    bushy_root_breadth: int = 3
    bushy_branching: IntRange = (1, 2)
    bushy_survival: float = 0.70
    bushy_decay: float = 1.0
    deepest_leaf_prob: float = 0.8
    cross_link_prob: float = 0.5

    # ---- both inheritance topologies
    root_lacks_prob: float = 0.4
    linear_distractors: IntRange = (3, 5)
    tree_distractors: IntRange = (1, 2)

    @model_validator(mode="after")
    def _check_ranges(self) -> Config:
        for name, value in self:
            if isinstance(value, tuple) and value[0] > value[1]:
                raise ValueError(f"{name}: low end {value[0]} is above high end {value[1]}")
            if name.endswith(("_prob", "_survival", "_decay", "sparsity", "_fraction")):
                values = value if isinstance(value, tuple) else (value,)
                if any(not 0.0 <= v <= 1.0 for v in values):
                    raise ValueError(f"{name} must lie between 0 and 1, got {value}")
        minimums = {
            "chain_length": 3,
            "num_objects": 1,
            "num_sources": 2,
            "linear_depth": 2,
            "irrelevant_attributes": 0,
            "other_object_updates": 0,
            "linear_distractors": 0,
            "tree_distractors": 0,
            "max_sections": 1,
            "jellyfish_max_depth": 1,
            "balanced_max_depth": 1,
            "bushy_max_depth": 1,
            "jellyfish_root_breadth": 1,
            "balanced_root_breadth": 1,
            "bushy_root_breadth": 1,
            "jellyfish_branching": 0,
            "balanced_branching": 0,
            "bushy_branching": 0,
        }
        for name, low in minimums.items():
            value = getattr(self, name)
            first = value[0] if isinstance(value, tuple) else value
            if first < low:
                raise ValueError(f"{name} must be at least {low}, got {value}")
        if self.max_updates_per_section is not None and self.max_updates_per_section < 1:
            raise ValueError("max_updates_per_section must be at least 1 (or none)")
        return self

    def topologies(self) -> tuple[Topology, ...]:
        """The topologies one ``generate`` call produces, in output order."""
        return TOPOLOGIES if self.topology == "all" else (self.topology,)

    def asks_effect(self, topology: Topology) -> bool:
        """Whether update turns get a strengthen/weaken/no-effect question (paper: default only)."""
        if self.effect_questions == "auto":
            return topology == "default"
        return self.effect_questions == "always"

    def tree_shape(self, shape: str) -> dict[str, Any]:
        """The Galton-Watson parameters of one tree shape."""
        return {
            key: getattr(self, f"{shape}_{key}")
            for key in ("max_depth", "root_breadth", "branching", "survival", "decay")
        }


_HARD: dict[str, Any] = {
    "difficulty": "hard",
    "chain_length": (10, 20),
    "num_objects": (4, 7),
    "irrelevant_attributes": (2, 4),
    "sparsity": (0.40, 0.70),
    "max_sections": 5,
    "other_object_updates": (1, 2),
    "source_section_prob": 0.4,
    "linear_depth": (20, 30),
    "linear_exception_fraction": (0.5, 0.85),
    "tree_sparsity": (0.40, 0.60),
    "jellyfish_max_depth": 8,
    "jellyfish_root_breadth": 13,
    "jellyfish_branching": (1, 1),
    "jellyfish_survival": 0.60,
    "jellyfish_decay": 1.0,
    "balanced_max_depth": 4,
    "balanced_root_breadth": 3,
    "balanced_branching": (2, 2),
    "balanced_survival": 1.0,
    "balanced_decay": 1.0,
    "bushy_max_depth": 4,
    "bushy_root_breadth": 4,
    "bushy_branching": (1, 4),
    "bushy_survival": 0.80,
    "bushy_decay": 0.75,
    "linear_distractors": (3, 5),
    "tree_distractors": (2, 4),
}

#: preset name -> overrides of the field defaults (the defaults are the easy preset)
PRESETS: dict[str, dict[str, Any]] = {
    "easy": {"difficulty": "easy"},
    "hard": _HARD,
}

PARAMETER_DOCS: dict[str, str] = {
    "topology": "default | linear | tree | all (all: n conversations of each topology)",
    "difficulty": "easy | hard; names the split; without a preset it also picks the base preset",
    "reveal": "serial (general-to-specific, as the paper's serial mode) | random update order | "
    "mixed (a fair coin per subject, as the paper: each hypothesis section has its own subject)",
    "instructions": "system prompt: minimal (the task and answer format only, as the paper) | "
    "rules (also teaches the inference rules and defines the effect answer) | none",
    "weakening": "mix of weakening transitions: mixed | defeat (on-path weakenings are yes->no "
    "defeats by a more specific negative link; no withholding conflicts) | withhold "
    "(weakenings of the chain leave the hypothesis undetermined: yes->unknown)",
    "question_order": "standard (entailment, then effect) | reversed (effect question first)",
    "effect_questions": "auto (default topology only, as the paper) | always | never",
    "entities": "pseudo (pseudoword names) | real (the domain's real nouns, same structures)",
    "domain": "lexicon domain for properties and real nouns, or 'any' (one drawn per item)",
    "max_updates_per_section": "cap on updates per hypothesis section, or none",
    "conversations": "FILE.json in the original DeReLab dataset layout: its conversations, "
    "wording kept, relabelled by our resolver instead of generated (--n caps how many are read; "
    "-p topology= keeps one topology)",
    "chain_length": "default: property-chain nodes, lo,hi (easy 5,10; hard 10,20)",
    "num_objects": "default: objects instantiating the chain root, lo,hi (hard 4,7; paper 4-6)",
    "irrelevant_attributes": "default: irrelevant-attribute facts per conversation, lo,hi",
    "sparsity": "default: chance each intermediate chain node gets evidence per object, lo,hi",
    "max_sections": "default: hypothesis sections per conversation (hard 5; paper 3)",
    "other_object_updates": "default: updates about objects other than the subject, lo,hi",
    "target_evidence_prob": "default: chance a section reveals a fact about the hypothesis itself",
    "negative_rule_prob": "default: chance the chain's last rule is negative (initial answer no)",
    "exception_wording_prob": "default: chance a fact against a rule is worded as an exception",
    "source_section_prob": "default: chance a section has source claims (contradiction/bypass)",
    "num_sources": "default: named sources with stated reliability, lo,hi",
    "bypass_prob": "default: chance a source section is a bypass (else a contradiction)",
    "weaker_claim_first_prob": "default: chance the less reliable source's claim comes first",
    "equal_priority_prob": "default: chance two rank-adjacent sources are equally reliable",
    "contested_rule_prob": "default: chance another source contradicts the bypass rule",
    "linear_depth": "linear: classes between root and subject, lo,hi (easy 4,6; hard 20,30)",
    "linear_exception_fraction": "linear: share of classes carrying an exception, lo,hi",
    "shape": "tree: mixed (uniform) | jellyfish | balanced | bushy",
    "tree_sparsity": "tree: chance each class gets an exception, lo,hi",
    "deepest_leaf_prob": "tree: chance the subject is a deepest leaf (else any leaf)",
    "cross_link_prob": "tree: chance of a multiple-inheritance update (Nixon-style unknowns)",
    "root_lacks_prob": "inheritance: chance the root lacks the property (initial answer no)",
    "linear_distractors": "linear: updates about an irrelevant attribute, lo,hi",
    "tree_distractors": "tree: updates about an irrelevant attribute, lo,hi",
}
for _shape in SHAPES:
    PARAMETER_DOCS.update(
        {
            f"{_shape}_max_depth": f"tree ({_shape}): maximum depth",
            f"{_shape}_root_breadth": f"tree ({_shape}): children of the root",
            f"{_shape}_branching": f"tree ({_shape}): children of an inner class, lo,hi",
            f"{_shape}_survival": f"tree ({_shape}): chance a non-root class has children",
            f"{_shape}_decay": f"tree ({_shape}): max branching shrinks by this per level",
        }
    )


def resolve_config(preset: str | None, overrides: Mapping[str, str]) -> Config:
    """The preset (or, without one, the preset named by a ``difficulty`` override, else easy) with
    ``-p key=value`` overrides applied; every problem is one BiaslabError line."""
    if preset is None:
        preset = overrides.get("difficulty", "easy")
    return resolve_params(Config, "defeasible", PRESETS, preset, overrides)


__all__ = ["PARAMETER_DOCS", "PRESETS", "TOPOLOGIES", "Config", "Topology", "resolve_config"]
