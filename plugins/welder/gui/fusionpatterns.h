// The fusion-pattern list (welder-osdi23 §5.2, Table 4 "Examples of fusion patterns discovered
// by Welder"): which operator sequences a plan fused into one kernel and how often, with the
// memory levels the kernel connects them at. A pattern is the op types of a kernel's nodes in
// its topological order; kernels of one node are not patterns. Sorted by occurrences, then by
// length, then by text.
#pragma once

#include "core/plan/plan.h"

#include <QTableWidget>

#include <string>
#include <vector>

namespace tessera::welder {

struct FusionPattern {
    std::string ops;     // "Conv Relu MaxPool"
    int opCount = 0;     // operators in the pattern
    int occurrences = 0; // kernels with it
    std::string levels;  // the kernel strategies seen, e.g. "welder:REG+SMEM"
};

std::vector<FusionPattern> fusionPatterns(const Graph &g, const ExecutionPlan &plan);

class FusionPatternView : public QTableWidget
{
public:
    explicit FusionPatternView(QWidget *parent = nullptr);
    void setPlan(const Graph &g, const ExecutionPlan &plan);
};

} // namespace tessera::welder
