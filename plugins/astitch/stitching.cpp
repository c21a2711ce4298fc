#include "plugins/astitch/stitching.h"

#include "core/ir/analysis.h"
#include "core/plan/tiles.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace tessera::astitch {

namespace {

bool computeIntensive(const Node &n)
{
    return opClassOf(n.opType) == OpClass::Gemm;
}

// Would node `n` joining kernel `k` close a cycle between kernels? True when a producer of
// `n` outside `k` lies in a kernel that depends on `k` (k → … → that kernel → n): then `k`
// would both feed and wait for it. Walks kernels backwards from n's other producers; a kernel
// whose last rank is below k's first cannot depend on k.
bool closesACycle(const Graph &g, const std::vector<int> &kernelOf, const std::vector<std::vector<NodeId>> &members,
                  const std::vector<std::int32_t> &minRank, const std::vector<std::int32_t> &maxRank, int k, NodeId n)
{
    std::vector<int> stack;
    std::vector<char> seen(members.size(), 0);
    auto push = [&](NodeId p) {
        const int x = kernelOf[static_cast<std::size_t>(p)];
        if (x >= 0 && !seen[static_cast<std::size_t>(x)] &&
            maxRank[static_cast<std::size_t>(x)] >= minRank[static_cast<std::size_t>(k)]) {
            seen[static_cast<std::size_t>(x)] = 1;
            stack.push_back(x);
        }
    };
    for (TensorId t : g.node(n).inputs)
        if (t != kInvalidId && g.tensor(t).producer != kInvalidId &&
            kernelOf[static_cast<std::size_t>(g.tensor(t).producer)] != k)
            push(g.tensor(t).producer);
    while (!stack.empty()) {
        const int x = stack.back();
        stack.pop_back();
        if (x == k)
            return true;
        for (NodeId m : members[static_cast<std::size_t>(x)])
            for (TensorId t : g.node(m).inputs)
                if (t != kInvalidId && g.tensor(t).producer != kInvalidId)
                    push(g.tensor(t).producer);
    }
    return false;
}

} // namespace

std::string kernelLabel(const Graph &g, const StitchKernel &k)
{
    std::string s = g.node(k.nodes.front()).name;
    if (k.nodes.size() > 1)
        s += " +" + std::to_string(k.nodes.size() - 1);
    return s;
}

std::string levelName(const Device &dev, int level)
{
    const std::size_t n = dev.levels.size();
    if (level >= 2)
        return dev.levels.back().name;
    return dev.levels[std::min<std::size_t>(static_cast<std::size_t>(std::max(level, 0)), n - 1)].name;
}

Expected<Stitching> stitchKernels(Context &ctx)
{
    const Graph &g = ctx.graph;
    auto order = topologicalOrder(g);
    if (!order)
        return order.status();
    const std::vector<std::int32_t> rank = topologicalRanks(*order);
    Stitching out;
    out.kernelOf.assign(g.nodeCount(), -1);
    std::vector<std::int32_t> minRank, maxRank; // per kernel
    std::vector<std::vector<NodeId>> members;   // per kernel (kernels[k].nodes while building)
    for (NodeId n : *order) {
        if (ctx.cancelled && ctx.cancelled())
            return Status::error(ErrorCode::Cancelled, "cancelled");
        const Node &node = g.node(n);
        const bool compute = computeIntensive(node);
        int target = -1;
        NodeId via = kInvalidId;
        if (!compute && !node.opaque)
            for (TensorId t : node.inputs) {
                if (t == kInvalidId || g.tensor(t).producer == kInvalidId)
                    continue;
                const NodeId p = g.tensor(t).producer;
                const int k = out.kernelOf[static_cast<std::size_t>(p)];
                const StitchKernel &pk = out.kernels[static_cast<std::size_t>(k)];
                if (pk.compute || pk.opaque || k == target)
                    continue;
                if (closesACycle(g, out.kernelOf, members, minRank, maxRank, k, n))
                    continue;
                target = k;
                via = p;
                break;
            }
        if (target >= 0) {
            const StitchKernel &tk = out.kernels[static_cast<std::size_t>(target)];
            std::vector<DecisionOption> options{{"stitch",
                                                 "stitch into " + kernelLabel(g, tk),
                                                 std::nan(""),
                                                 "its producer's kernel is memory-intensive",
                                                 {}},
                                                {"separate", "start a new kernel", std::nan(""), {}, {}}};
            const std::int32_t pick =
                ctx.decisions.decide(decisionKey("astitch.stitch", {node.name}), "astitch.stitch", options, 0);
            auto &s =
                ctx.trace.add("A1: stitch (§5.2)", node.opType + " " + node.name + " after " + g.node(via).name,
                              pick == 0 ? "stitched into " + kernelLabel(g, tk) : "new kernel",
                              pick == 0 ? "memory-intensive ops exchange data through the local buffer" : "override");
            s.touched = {via, n};
            ctx.trace.linkLastDecision(ctx.decisions);
            if (pick != 0)
                target = -1;
        }
        if (target < 0) {
            target = static_cast<int>(out.kernels.size());
            out.kernels.push_back({});
            out.kernels.back().compute = compute;
            out.kernels.back().opaque = node.opaque;
            minRank.push_back(rank[static_cast<std::size_t>(n)]);
            maxRank.push_back(rank[static_cast<std::size_t>(n)]);
            members.emplace_back();
        } else {
            ++out.stitched;
        }
        out.kernels[static_cast<std::size_t>(target)].nodes.push_back(n);
        members[static_cast<std::size_t>(target)].push_back(n);
        maxRank[static_cast<std::size_t>(target)] = rank[static_cast<std::size_t>(n)];
        out.kernelOf[static_cast<std::size_t>(n)] = target;
    }
    // Issue order: a topological order of the kernel graph (acyclic: closesACycle), the kernel
    // whose last node ranks first going first among the ready ones.
    const std::size_t nk = out.kernels.size();
    std::vector<std::set<int>> succ(nk);
    std::vector<int> indeg(nk, 0);
    for (std::size_t k = 0; k < nk; ++k)
        for (NodeId m : out.kernels[k].nodes)
            for (TensorId t : g.node(m).inputs) {
                if (t == kInvalidId || g.tensor(t).producer == kInvalidId)
                    continue;
                const int p = out.kernelOf[static_cast<std::size_t>(g.tensor(t).producer)];
                if (p != static_cast<int>(k) && succ[static_cast<std::size_t>(p)].insert(static_cast<int>(k)).second)
                    ++indeg[k];
            }
    std::set<std::pair<std::int32_t, std::size_t>> ready; // (rank of the last node, kernel)
    for (std::size_t k = 0; k < nk; ++k)
        if (indeg[k] == 0)
            ready.insert({maxRank[k], k});
    std::vector<std::size_t> issue;
    while (!ready.empty()) {
        const std::size_t k = ready.begin()->second;
        ready.erase(ready.begin());
        issue.push_back(k);
        for (int s2 : succ[k])
            if (--indeg[static_cast<std::size_t>(s2)] == 0)
                ready.insert({maxRank[static_cast<std::size_t>(s2)], static_cast<std::size_t>(s2)});
    }
    if (issue.size() != nk)
        return Status::invalid("astitch: the stitched kernels form a cycle"); // closesACycle prevents it
    std::vector<StitchKernel> sorted;
    std::vector<int> newId(out.kernels.size());
    for (std::size_t i = 0; i < issue.size(); ++i) {
        newId[issue[i]] = static_cast<int>(i);
        sorted.push_back(std::move(out.kernels[issue[i]]));
    }
    out.kernels = std::move(sorted);
    for (int &k : out.kernelOf)
        if (k >= 0)
            k = newId[static_cast<std::size_t>(k)];
    for (StitchKernel &k : out.kernels)
        for (NodeId n : kernelOutputNodes(g, k.nodes))
            for (TensorId t : g.node(n).outputs) {
                if (t == kInvalidId)
                    continue;
                const Tensor &tt = g.tensor(t);
                const bool escapes = std::any_of(tt.consumers.begin(), tt.consumers.end(),
                                                 [&](NodeId c) {
                                                     return out.kernelOf[static_cast<std::size_t>(c)] !=
                                                            out.kernelOf[static_cast<std::size_t>(n)];
                                                 }) ||
                                     std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
                if (escapes)
                    k.outputs.push_back(t);
            }
    auto &step = ctx.trace.add("A1: stitch (§5.2)", std::to_string(out.kernels.size()) + " kernels",
                               std::to_string(out.stitched) + " memory-intensive ops stitched",
                               "compute-intensive ops stay one kernel each; memory-intensive neighbours share one");
    step.numbers = {{"kernels", double(out.kernels.size())}, {"stitched", double(out.stitched)}};
    return out;
}

} // namespace tessera::astitch
