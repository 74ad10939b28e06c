"""Every analysis decision the paper leaves open or our correct "unknown" labels force, written out
once: the results carry them (``decisions``) and the report prints them."""

from __future__ import annotations

from biaslab.suites.defeasible.conditions import (
    EXACT_MCNEMAR_BELOW,
    ICC_BOOT,
    N_BOOT,
)
from biaslab.suites.defeasible.nulls import (
    BIAS_STRATA,
    N_PERM,
    SIGNAL_STRATA,
    SLOPE_STRATA,
)

DECISIONS: dict[str, str] = {
    "prior": (
        "The prior of an update turn is the model's OWN parsed answer at the immediately preceding "
        "entailment question of the same hypothesis section (paper, appendix H). At every section "
        "start the prior is reset to the GROUND TRUTH of the section's opening question, as the "
        "paper prescribes, so the first update of each section is judged against the gold opening "
        "answer, not the model's (the paper's text reads both ways for the first section; we apply "
        "the reset to every section). A section without an opening turn resets to the first "
        "update's gold_before. An unparsed previous answer gives no prior (C0)."
    ),
    "effect labels": (
        "Our `effect` is the change of the resolver's answer under yes > unknown > no "
        "(strengthening = rose, weakening = fell). The paper's effects were mostly polarity-based, "
        "so its C1 ('prior yes, strengthening') covered confirmations of a live yes; under a state "
        "delta a correct yes prior can never meet a strengthening. C1 therefore also admits "
        "on-path supporting updates (polarity '+') after which the gold stays yes."
    ),
    "C1": "prior yes; gold after the update yes; the update is strengthening, or an on-path "
    "update whose revealed link is positive and that has no effect (a confirmation).",
    "C2": "prior yes; the update is weakening (the gold falls). This includes gold transitions "
    "yes->no, yes->unknown and unknown->no (a yes prior that was already wrong); "
    "`c2_by_transition` breaks C2 accuracy down by transition.",
    "C3": "prior no; negative-sounding no-effect update while the gold stays no (already "
    "defeated), any topology. Negative-sounding = the revealed link is negative or the sentence "
    "is worded as an exception (the paper's update types neg/exception). Semantic override = the "
    "effect answer 'weakening' (needs effect questions).",
    "C3inh": "linear/tree only: prior yes; negative-sounding, no-effect, off-path update while "
    "the gold stays yes. Override = the entailment answer leaves yes (no OR unknown): the paper counts "
    "'answers no' because its gold never was unknown; ours can be, and unknown is equally a "
    "revision.",
    "C4": "prior no; no-effect, off-path, non-negative update while the gold stays no (distractor, "
    "other object, sibling branch). The paper restricts default-reasoning C4 to explicitly "
    "harmless update types; the structural path (see 'paths') lets one rule serve every "
    "topology.",
    "C5": "prior unknown; strengthening or weakening update.",
    "C0": "everything else, counted by reason in `c0_reasons` and excluded from every condition "
    "analysis. Rules are tried in the order C2, C1, C3inh, C5, C3, C4.",
    "bias metrics": "BiasGap = Acc(C1) - Acc(C2) with a conversation-level cluster-bootstrap CI; "
    "OR = odds(correct | C1) / odds(correct | C2) with a 95% cluster-bootstrap percentile CI "
    f"({N_BOOT:,} resamples, seeded per cell); a zero cell leaves the OR undefined (paper: "
    "'OR undefined when C1 contains zero errors'). Unparsed answers count as wrong.",
    "McNemar pairing": "one pair per hypothesis section: the section's first C1 turn and its first "
    "C2 turn in turn order (whichever comes first); sections lacking either give no pair. Test: "
    f"exact binomial when the discordant pairs b + c < {EXACT_MCNEMAR_BELOW}, else chi-square "
    "with continuity correction (the paper's test; the approximation is poor for few pairs).",
    "McNemar selection": "With the paper's prior (the model's own answer), whether the later "
    "turn of a section is C1 or C2 depends on the model's answer at the earlier one: a C2 can "
    "follow a C1 only if the model answered yes there, so pairs over-sample correct C1 and wrong "
    "C2 answers and a memoryless random agent shows b > c (simulated: e.g. 30 vs 8, p < 0.001, "
    "with BiasGap ~ 0). The paper's test is reported as specified (mcnemar_p); "
    "mcnemar_gold_prior_p repeats it with conditions computed from the gold prior (gold_before), "
    "whose membership never depends on the model's answers. BiasGap/OR use every C1/C2 turn and "
    "are not affected (a turn's own answer never decides its condition).",
    "Holm": "Holm-Bonferroni within each model, across that model's reasoning-type cells with a "
    "defined McNemar p (default, linear, tree and the pooled inheritance cell), so a model's "
    "adjusted p never depends on which other models were analysed beside it. Including both "
    "the pooled and the per-topology inheritance cells makes the family larger than the "
    "paper's, so the adjustment is conservative. The gold-prior, defeat and withhold McNemar "
    "tests are adjusted as separate families.",
    "reasoning types": "cells per topology; linear + tree are also pooled as 'inheritance' (the "
    "paper's reasoning type) when a model has both.",
    "question order": "a model's main cells use its standard-order turns when it has any (else "
    "its reversed-order turns, flagged in `question_order`); reversed-order turns otherwise only "
    "enter the `question_order` comparison (paper Table 18).",
    "anchoring": "A = |{s: final answer = initial answer != final gold}| / |{s: initial gold != "
    "final gold}| over hypothesis sections; initial = the section's opening question, final = its "
    "last entailment question. Sections with an unparsed initial or final answer are left out.",
    "metacognition": "C1-eff / C2-eff = accuracy of the effect question paired with the C1 / C2 "
    "turns (paired by section and update index, in either question order). Dissociation = "
    "C2-eff - C2 entailment accuracy on the same turns; know_but_dont_output = share of C2 turns "
    "with the effect right and the entailment wrong. For a C1 confirmation our effect gold is "
    "'no effect', not 'strengthening'.",
    "confidence": "gold_conf = the label probability of the gold answer at an entailment turn; "
    "Δgold_conf = gold_conf - gold_conf at the section's opening turn (paper's t0); entropy in "
    "nats and margin p(1) - p(2) over the label distribution. On/off path as in 'paths' (the "
    "paper used effect != no effect, which mislabels preempted on-path updates). Spearman "
    "rho(distance, gold_conf) on on-path turns (and off-path turns with a distance); per-hop "
    "slope = OLS Δgold_conf ~ distance with conversation-clustered SEs (the paper: a mixed model "
    "with a random intercept per conversation; see 'confidence slope'), on on-path "
    "turns (the 'all' difficulty cell pools difficulties, as the paper's identical per-hop rows "
    "suggest it did); Brier = top-label Brier (probability of the given answer vs its "
    "correctness) on on-path turns, ΔBrier = Brier(d > 2) - Brier(d <= 2).",
    "off-path": "off-path turns = the path is off (sibling branches, other objects, distractors). "
    "Intrusion = no-effect update, the answer differs from the model's own previous answer and "
    "is wrong; turns with an unparsed current or previous answer are left out. Signal ratio = "
    "mean |Δgold_conf| on-path / mean |Δgold_conf| off-path. Off-path accuracy and intrusion need "
    "no label probabilities.",
    "reproducibility": "per model x topology (main question order), entailment accuracy per seed "
    "(`item_seed`); ICC(2,1) on the targets x seeds matrix (targets = model x topology cells, "
    f"raters = seeds common to every cell), bootstrap over targets ({ICC_BOOT:,} resamples); "
    "Kruskal-Wallis per cell with per-conversation accuracies grouped by seed, Holm across cells; "
    "CV = SD/mean x 100 of the per-seed accuracies.",
    "paths": "on-path = the generator's on_path flag (the updated node lies on a path from the "
    "subject to the hypothesis property) except that distractors (irrelevant-attribute updates) "
    "are always off-path: the generator flags a distractor about an ancestor class on-path "
    "because the class is, though the attribute cannot bear on the hypothesis.",
    "clusters": "a conversation (the bootstrap, permutation and mixed-model cluster) is one "
    "(model, roles, seed, item id, epoch, run_key); run_key is the stable hash of what determines "
    "a run's answers, never Inspect's random run id. Rows are ordered by that identity and the turn "
    "index before anything is computed, so the results depend only on the answers, never on the "
    "order of the frame's rows or of the logs.",
    "nulls": "every bias metric X is reported beside a stratified permutation null (X_null = "
    "null mean, X_null_lo / X_null_hi = its central 95% band, X_excess = X - X_null, X_null_p = "
    f"permutation p, {N_PERM:,} permutations, seeded per cell and metric; the smallest p "
    f"possible is 1/({N_PERM:,} + 1)): what an answerer with the model's own accuracy profile "
    "over the strata, but whose answer at an update does not depend on its own prior, would "
    "score. A revision turn was entered with a right prior (the model's previous answer equals "
    "the gold before the update) and its update moves the gold away from it (C2, split into "
    "defeat yes->no and withhold yes->unknown; for bias_gap_no_prior a right 'no' moved to yes "
    "or unknown); a stable turn was entered with a right prior and keeps its gold. The null "
    "exchanges the answers of the revision turns with those of the stable turns of the same "
    f"stratum, and nothing else. Strata: {', '.join(BIAS_STRATA)} (kind separates openings from "
    "updates; gold = the answer after the update; distance exact; update_index = the message's "
    "position in its section): turns that differ in any of them are never pooled. A revision "
    "turn whose stratum holds no stable turn keeps its answer and cannot move the null; "
    "null_tested / null_candidates count the revision turns the null could test; a metric with "
    "none is undefined with that reason. The control side of a gap (C1; the kept 'no' turns) "
    "keeps its answers, so a condition's null never borrows another condition's turns (a "
    "'prior no -> gold yes' turn never enters the defeat null). Turns entered with a wrong "
    "prior are in no null. WHAT THE NULL ABSORBS: any accuracy profile over the strata columns, "
    "and per-item difficulty through the common right-prior selection of revision and stable "
    "turns. WHAT IT DELIBERATELY DOES NOT: the gold BEFORE the update and the section's history "
    "(for a model that tracks the conversation the gold before is the prior itself, so "
    "conditioning on it would remove the contrast BiasGap measures). So an answerer that never "
    "reads its own replies but answers from what was true earlier (e.g. the section opening's "
    "gold) fails revisions, not stable turns, and is flagged: that is belief perseverance, and "
    "the null is NOT 'what any answerer without memory of its replies would get'. Likewise the "
    "number of rules stated so far and the message's position in the whole conversation are "
    "not strata (they vary with the item and would leave no stable turn beside most revisions); "
    "bench/bench_bias_nulls.py checks agents whose accuracy follows them. Headline numbers are "
    "the excess and its p (one-sided, greater: the direction of a bias); the raw value stays "
    "beside it.",
    "null strata per metric": "BiasGap (pooled, defeat, withhold), the prior-no gap and the odds "
    "ratio: the entailment answer of the revision turns among the stable turns of their "
    "stratum, the control turns fixed. Know-but-don't-output: the entailment answer as for "
    "BiasGap while the effect answer stays with its turn (its gold, the update's effect, moves "
    "with the gold before, so exchanging it would score a 'no effect' answer from an unchanged "
    "turn as a wrong answer on a C2 turn). C3 override: the effect answer among every update "
    "turn sharing the stratum and the effect gold, whatever the model's prior; C3inh override: "
    "the entailment answer among every update turn of the stratum (among stable turns alone "
    "their strata hold little but C3/C3inh turns and the null could not move). Anchoring: "
    "opening answers among openings, flipping sections' final answers among stable update "
    "turns of their stratum. Signal ratio (on- vs off-path): |Δgold_conf| "
    f"exchanged within {', '.join(SIGNAL_STRATA)} (path left out: it is what the ratio "
    "contrasts; distance kept, since confidence that only tracks distance is not structural "
    "blindness). Confidence vs distance: gold_conf (Spearman rho) and Δgold_conf (within-section "
    f"slope) exchanged within {', '.join(SLOPE_STRATA)} (distance is what they measure). Each "
    "null exchanges what its metric is computed on; signal ratio and slopes are tested "
    "two-sided.",
    "prior-no gap": "bias_gap_no_prior = accuracy on updates that keep a right 'no' prior "
    "(gold no before and after) minus accuracy on updates that move the gold off a right 'no' "
    "(to yes or unknown): the mirror of BiasGap for a model that clings to its 'no', which the "
    "paper's taxonomy leaves in C0. Conversation-level cluster-bootstrap CI and the null above.",
    "BiasGap by transition": "C2 pooled over yes->no, yes->unknown and unknown->no measures "
    "different things: bias_gap_defeat = Acc(C1) - Acc(C2 with gold yes->no, overturning a "
    "belief, the paper's construct) and bias_gap_withhold = Acc(C1) - Acc(C2 with gold "
    "yes->unknown), each with its own cluster-bootstrap CI, null and McNemar test (the first C1 "
    "and the first C2 of that transition per section; Holm across cells per test). The pooled "
    "BiasGap stays for completeness.",
    "confidence slope": "confidence_slope = the OLS slope of Δgold_conf on distance with "
    "distances centred within each hypothesis section (a fixed-effect, within-section slope, "
    "vectorised so it can be permuted); per_hop_slope (OLS with conversation-clustered SEs) is "
    "reported beside it without a null. The paper's estimator for per_hop_slope is a mixed model "
    "with a random intercept per conversation; measured beside it on 20k reference-agent answers, "
    "the slopes agree to 1e-4 where conversations share no baseline (the mixed model's variance "
    "on its boundary, with convergence warnings, 0.4-3.5 s per fit) and differ by up to half an "
    "SE where they do; the clustered SEs were 0.9-2.9 times the mixed model's (one p-value 0.02 -> "
    "0.12). The clustered SE needs no assumption about how answers within a conversation "
    "correlate (the random intercept assumes one shared shift), and costs milliseconds.",
    "effect baselines": "effect golds are mostly 'no effect' under the state-delta definition, "
    "so effect accuracy is reported beside the effect majority baseline and the balanced "
    "accuracy (mean recall over the effect golds present).",
    "entities": "a model run on both pseudoword and real-noun entities (entities=pseudo|real) "
    "keeps pseudowords for its main cells; `entities` compares the two (real - pseudo "
    "entailment accuracy, conversation-level cluster-bootstrap CI; paper Table 19).",
    "depth curves": "entailment accuracy (openings and updates) by chain length (default), "
    "classes between root and subject (linear) and classes in the tree (at most six quantile "
    "bins, labelled by their low end), difficulties pooled; 95% cluster-bootstrap CIs.",
    "instructions": "the system-prompt mode (item meta `instructions`: minimal, rules or none) is "
    "listed per cell; cells mixing modes mix different tasks.",
}
