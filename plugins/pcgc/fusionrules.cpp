#include "plugins/pcgc/fusionrules.h"

#include <array>

namespace tessera::pcgc {

namespace {

constexpr std::uint32_t bit(OpCategory c)
{
    return 1u << static_cast<std::uint32_t>(c);
}
constexpr std::uint32_t kAny = 0x3f;
constexpr std::uint32_t kElementwise = bit(OpCategory::Algebraic) | bit(OpCategory::Broadcast);
constexpr std::uint32_t kHeavy = bit(OpCategory::Complex) | bit(OpCategory::TwoPhase);

// clang-format off
constexpr std::array kRules{
    // P1: an infusible operator (constants, Concat, unknown ops) gains nothing
    //     from fusion on either side (§3.3 (5); Example 3's Concat).
    FusionRule{"P1", RuleKind::Prohibited, bit(OpCategory::Infusible), kAny,
               "infusible producer: never fused", 1},
    FusionRule{"P1", RuleKind::Prohibited, kAny, bit(OpCategory::Infusible),
               "infusible consumer: never fused", 1},
    // P2: two complex operators in one kernel both want the whole chip; the
    //     fusion saves one intermediate but exhausts the resources (the
    //     "very weak" fusions §3.3 abandons).
    FusionRule{"P2", RuleKind::Prohibited, bit(OpCategory::Complex), bit(OpCategory::Complex),
               "complex into complex: both exhaust the chip", 1},
    // P3: a reduction feeding a reduction needs the first one's complete result
    //     before the second starts; nothing stays on chip between them.
    FusionRule{"P3", RuleKind::Prohibited, bit(OpCategory::Reduction), bit(OpCategory::Reduction),
               "reduction into reduction: the second waits for the whole first", 1},
    // S1: rule one of stable fusion (Example 1, CONV + BN + RELU): a complex or
    //     two-phase operator with an element-wise epilogue, computed on the
    //     tile still on chip; it helps on every hardware.
    FusionRule{"S1", RuleKind::Stable, kHeavy, kElementwise,
               "heavy operator + element-wise epilogue (CONV+BN+RELU)", 1},
    // S2: chains of algebraic and broadcast operators: one pass over the data
    //     instead of one per operator.
    FusionRule{"S2", RuleKind::Stable, kElementwise, kElementwise,
               "element-wise chain", 1},
    // S3: an element-wise prologue of a reduction (ReLU → ReduceSum, scale →
    //     Softmax): the reduction reads the values as they are produced.
    FusionRule{"S3", RuleKind::Stable, kElementwise, bit(OpCategory::Reduction),
               "element-wise prologue of a reduction", 2},
};
// clang-format on

// D: everything else that meets the basic criteria fuses greedily and the
//    cost model decides later whether it stays (two-phase pairs, CONV1×1 →
//    CONV3×3/5×5, MaxPool → CONV1×1, epilogues of reductions...).
constexpr FusionRule kDefault{"D",
                              RuleKind::CostEvaluated,
                              kAny,
                              kAny,
                              "fusable; benefit depends on the hardware: re-evaluated by the cost model",
                              3};

} // namespace

std::string_view ruleKindName(RuleKind k)
{
    switch (k) {
    case RuleKind::Stable: return "stable";
    case RuleKind::Prohibited: return "prohibited";
    case RuleKind::CostEvaluated: return "cost-evaluated";
    }
    return "?";
}

std::span<const FusionRule> fusionRules()
{
    return kRules;
}

const FusionRule &matchRule(OpCategory producer, OpCategory consumer)
{
    for (const FusionRule &r : kRules)
        if ((r.producers & bit(producer)) && (r.consumers & bit(consumer)))
            return r;
    return kDefault;
}

} // namespace tessera::pcgc
