// PCGC static fusion rules (pcgc §3.3, Fig. 4): which category pairs fuse
// stably (never split later), which are prohibited, and which may fuse
// but are left to the cost model (re-cutting, §3.6).
//
// The paper's Fig. 4 is not reproduced in the text we have; the table in
// fusionrules.cpp is rebuilt from what §3.3 and Examples 1 and 3 say:
//   - "CONV + RELU + BN conforms to rule one of stable fusion" and
//     "CONV3×3 and RELU satisfy the stable fusion rule";
//   - "CONV1×1 and CONV3×3 ... do not satisfy the stable fusion rules, so
//     they are fused" (and re-evaluated later), likewise CONV1×1–CONV5×5 and
//     MaxPool3×3–CONV1×1;
//   - "the Concat operator inputs the infusible operator, so the operator
//     is not fused"; fusions "generally considered to be very weak" are
//     abandoned.
// A rule matches the categories of the two groups being fused (a group's
// category is the heaviest of its members, categories.h), producer first.
// The first matching rule in table order wins; no match = the default rule
// (fusable, re-evaluated by the cost model).
// Levels (our reading of "multilevel"): static fusion runs to a fixed point
// with the level-1 rules (S1, S2: heavy operators and their element-wise
// epilogues), then level 2 (S3: element-wise prologues of reductions), then
// level 3 (the cost-evaluated default). Without the order, the reverse
// traversal hands an epilogue (MatMul → Div → Add) to the Softmax after it
// before MatMul + Div + Add is ever looked at.
#pragma once

#include "plugins/pcgc/categories.h"

#include <span>
#include <string_view>

namespace tessera::pcgc {

enum class RuleKind : std::uint8_t { Stable, Prohibited, CostEvaluated };

struct FusionRule {
    std::string_view id; // "S1", "P2", "D" (stable across runs: traces and tests name it)
    RuleKind kind;
    std::uint32_t producers; // bit mask of OpCategory: producer group's category
    std::uint32_t consumers; // bit mask of OpCategory: consumer group's category
    std::string_view text;   // one line for the trace and the view
    int level = 3;           // static-fusion level that applies it (prohibitions apply at every level)
};

std::string_view ruleKindName(RuleKind k); // "stable", "prohibited", "cost-evaluated"

// The rule table in match order (the default rule is not in it).
std::span<const FusionRule> fusionRules();
// The first rule matching (producer, consumer), or the default rule "D".
const FusionRule &matchRule(OpCategory producer, OpCategory consumer);

} // namespace tessera::pcgc
