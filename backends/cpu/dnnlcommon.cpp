// The oneDNN helpers of dnnlcommon.h that several op families share and that
// are not onednn.cpp's own (that file holds the engine and the thread scratch).
#include "backends/cpu/dnnlcommon.h"

#include "backends/cpu/cpuop.h"

#include <map>
#include <string_view>
#include <utility>

namespace tessera::cpu {

dnnl::primitive_attr userScratchpad()
{
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return attr;
}

std::string dnnlReductionOf(const Graph &g, const Node &n, const Constants &constants, DnnlReduction &r)
{
    static const std::map<std::string_view, std::pair<dnnl::algorithm, float>> kinds = {
        {"ReduceSum", {dnnl::algorithm::reduction_sum, 0.f}},
        {"ReduceMean", {dnnl::algorithm::reduction_mean, 0.f}},
        {"ReduceMax", {dnnl::algorithm::reduction_max, 0.f}},
        {"ReduceMin", {dnnl::algorithm::reduction_min, 0.f}},
        {"ReduceProd", {dnnl::algorithm::reduction_mul, 0.f}},
        {"ReduceL1", {dnnl::algorithm::reduction_norm_lp_sum, 1.f}},
        {"ReduceL2", {dnnl::algorithm::reduction_norm_lp_sum, 2.f}},
        {"ReduceSumSquare", {dnnl::algorithm::reduction_norm_lp_power_p_sum, 2.f}}};
    const auto kind = kinds.at(n.opType);
    r.alg = kind.first;
    r.p = kind.second;
    const Shape &x = g.tensor(n.inputs[0]).shape;
    if (x.empty() || x.size() > 6)
        return "rank " + std::to_string(x.size()) + " reduction";
    return reductionAxes(g, n, constants, r.reduced, r.keepDims);
}

} // namespace tessera::cpu
