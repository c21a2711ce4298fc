#include "plugins/pcgc/features.h"

#include "core/hw/device.h"
#include "core/ops/ops.h"
#include "plugins/pcgc/categories.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace tessera::pcgc {

namespace {

constexpr int kCategories = 6; // OpCategory values
constexpr int kOpClasses = 5;  // OpClass: Gemm, Elementwise, Reduction, Movement, Other

float lg(double v)
{
    return static_cast<float>(std::log2(1.0 + std::max(0.0, v)));
}

} // namespace

const std::vector<std::string> &featureNames()
{
    static const std::vector<std::string> kNames = [] {
        std::vector<std::string> n{"ops",
                                   "log2_flops",
                                   "log2_input_bytes",
                                   "log2_weight_bytes",
                                   "log2_output_bytes",
                                   "log2_intermediate_bytes",
                                   "log2_intensity",
                                   "element_bytes",
                                   "heaviest_category"};
        for (int c = 0; c < kCategories; ++c)
            n.push_back("n_" + std::string(categoryName(static_cast<OpCategory>(c))));
        for (const char *c : {"gemm", "elementwise", "reduction", "movement", "other"})
            n.push_back(std::string("n_class_") + c);
        n.insert(n.end(),
                 {"max_window", "grouped_conv", "log2_analytic_time_ns", "log2_analytic_power_mw",
                  "log2_analytic_launch_ns", "log2_analytic_compute_ns", "log2_analytic_memory_ns", "analytic_launches",
                  "log2_analytic_blocks", "analytic_core_share", "analytic_memory_bound"});
        return n;
    }();
    return kNames;
}

std::vector<float> groupFeatures(const Graph &g, const std::vector<NodeId> &nodes, const AnalyticEstimate &analytic)
{
    const std::unordered_set<NodeId> inside(nodes.begin(), nodes.end());
    const std::unordered_set<std::string> outputs = [&] {
        std::unordered_set<std::string> s;
        for (TensorId t : g.outputs)
            s.insert(g.tensor(t).name);
        return s;
    }();
    double flops = 0, inputBytes = 0, weightBytes = 0, outputBytes = 0, intermediateBytes = 0;
    int elementBytes = 0, maxWindow = 0, grouped = 0;
    OpCategory heaviest = OpCategory::Algebraic;
    std::vector<float> perCategory(kCategories, 0), perClass(kOpClasses, 0);
    std::unordered_set<TensorId> seenInputs;
    for (NodeId n : nodes) {
        const Node &node = g.node(n);
        flops += ops::opCost(g, node).flops;
        const OpCategory c = categoryOf(g, node);
        heaviest = heavier(heaviest, c);
        perCategory[static_cast<std::size_t>(c)] += 1;
        const auto cls = static_cast<std::size_t>(opClassOf(node.opType));
        if (cls < perClass.size())
            perClass[cls] += 1;
        if (node.opType == "Conv") {
            const auto k = node.attrInts("kernel_shape");
            int window = 1;
            for (auto v : k)
                window *= static_cast<int>(v);
            maxWindow = std::max(maxWindow, window);
            grouped = grouped || node.attrInt("group", 1) > 1;
        }
        for (TensorId t : node.inputs) {
            if (t == kInvalidId || !seenInputs.insert(t).second)
                continue;
            const Tensor &tensor = g.tensor(t);
            if (tensor.producer != kInvalidId && inside.count(tensor.producer))
                continue;
            (tensor.isConstant() ? weightBytes : inputBytes) += double(tensor.bytes());
        }
        for (TensorId t : node.outputs) {
            if (t == kInvalidId)
                continue;
            const Tensor &tensor = g.tensor(t);
            if (!elementBytes)
                elementBytes = static_cast<int>(dtypeSize(tensor.dtype));
            const bool escapes =
                outputs.count(tensor.name) || std::any_of(tensor.consumers.begin(), tensor.consumers.end(),
                                                          [&](NodeId c2) { return !inside.count(c2); });
            (escapes ? outputBytes : intermediateBytes) += double(tensor.bytes());
        }
    }
    const double external = inputBytes + weightBytes + outputBytes;
    std::vector<float> row{float(nodes.size()),
                           lg(flops),
                           lg(inputBytes),
                           lg(weightBytes),
                           lg(outputBytes),
                           lg(intermediateBytes),
                           lg(external > 0 ? flops / external : 0),
                           float(elementBytes),
                           float(static_cast<int>(heaviest))};
    row.insert(row.end(), perCategory.begin(), perCategory.end());
    row.insert(row.end(), perClass.begin(), perClass.end());
    row.insert(row.end(),
               {float(maxWindow), float(grouped), lg(analytic.timeNs), lg(analytic.powerW() * 1e3),
                lg(analytic.launchNs), lg(analytic.computeNs), lg(analytic.memoryNs), float(analytic.launches),
                lg(analytic.blocks), float(analytic.coreShare), float(analytic.memoryBound)});
    return row;
}

} // namespace tessera::pcgc
