#include "plugins/graphturbo/subgraph.h"

#include "core/plan/tiles.h"
#include "plugins/graphturbo/binding.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

namespace tessera::graphturbo {

TensorId outputOf(const Graph &g, const SubGraph &sg)
{
    const Node &n = g.node(sg.exit);
    return n.outputs.empty() ? kInvalidId : n.outputs.front();
}

std::int64_t peakFootprint(const Graph &g, const std::vector<NodeId> &nodes)
{
    const std::unordered_set<NodeId> in(nodes.begin(), nodes.end());
    // Remaining uses inside the set per tensor; tensors used outside stay live to the end.
    std::map<TensorId, int> usesLeft;
    std::set<TensorId> escapes;
    std::int64_t live = 0;
    for (NodeId n : nodes)
        for (TensorId t : g.node(n).inputs) {
            if (t == kInvalidId || g.tensor(t).isConstant())
                continue;
            if (!usesLeft.count(t) && !in.count(g.tensor(t).producer))
                live += g.tensor(t).bytes(); // external activation input
            ++usesLeft[t];
        }
    for (NodeId n : nodes)
        for (TensorId t : g.node(n).outputs) {
            if (t == kInvalidId)
                continue;
            const Tensor &tt = g.tensor(t);
            const bool outside =
                std::any_of(tt.consumers.begin(), tt.consumers.end(), [&](NodeId c) { return !in.count(c); }) ||
                std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
            if (outside)
                escapes.insert(t);
        }
    std::int64_t peak = live;
    for (NodeId n : nodes) {
        const Node &node = g.node(n);
        for (TensorId t : node.outputs)
            if (t != kInvalidId)
                live += g.tensor(t).bytes();
        peak = std::max(peak, live);
        std::set<TensorId> seen;
        for (TensorId t : node.inputs) {
            if (t == kInvalidId || g.tensor(t).isConstant() || !seen.insert(t).second)
                continue;
            int &left = usesLeft[t];
            left -= static_cast<int>(std::count(node.inputs.begin(), node.inputs.end(), t));
            if (left <= 0 && !escapes.count(t))
                live -= g.tensor(t).bytes();
        }
        for (TensorId t : node.outputs) // dead outputs (no use at all)
            if (t != kInvalidId && !usesLeft.count(t) && !escapes.count(t))
                live -= g.tensor(t).bytes();
    }
    return peak;
}

std::vector<int> producersOf(const Graph &g, const std::vector<SubGraph> &sgs, const std::vector<int> &ofNode, int sg)
{
    std::set<int> out;
    for (NodeId n : sgs[static_cast<std::size_t>(sg)].nodes)
        for (TensorId t : g.node(n).inputs) {
            if (t == kInvalidId || g.tensor(t).producer == kInvalidId)
                continue;
            const int p = ofNode[static_cast<std::size_t>(g.tensor(t).producer)];
            if (p != sg && p >= 0)
                out.insert(p);
        }
    return {out.begin(), out.end()};
}

std::vector<int> consumersOf(const Graph &g, const std::vector<SubGraph> &sgs, const std::vector<int> &ofNode, int sg)
{
    std::set<int> out;
    for (NodeId n : sgs[static_cast<std::size_t>(sg)].nodes)
        for (TensorId t : g.node(n).outputs) {
            if (t == kInvalidId)
                continue;
            for (NodeId c : g.tensor(t).consumers) {
                const int s = ofNode[static_cast<std::size_t>(c)];
                if (s != sg && s >= 0)
                    out.insert(s);
            }
        }
    return {out.begin(), out.end()};
}

std::vector<std::string> nodeNames(const Graph &g, const std::vector<NodeId> &nodes)
{
    std::vector<std::string> names;
    names.reserve(nodes.size());
    for (NodeId n : nodes)
        names.push_back(g.node(n).name);
    return names;
}

std::string subgraphLabel(const Graph &g, const SubGraph &sg)
{
    std::string s = g.node(sg.nodes.front()).name;
    if (sg.nodes.size() > 1)
        s += "+" + std::to_string(sg.nodes.size() - 1);
    return s;
}

Shape clusterShape(Shape shape, int parts)
{
    if (!shape.empty() && parts > 1)
        shape[0] /= parts;
    return shape;
}

bool regionsOverlap(const ops::Region &a, const ops::Region &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::max(a[i].begin, b[i].begin) >= std::min(a[i].end, b[i].end))
            return false;
    return true;
}

std::int64_t regionBytes(const Tensor &t, const ops::Region &r)
{
    const std::int64_t elems = r.empty() ? t.elements() : ops::regionElements(r);
    return t.elements() > 0 ? t.bytes() / t.elements() * elems : 0;
}

std::int32_t dominantUnit(const Graph &g, const Device &dev, const SubGraph &sg)
{
    OpClass cls = OpClass::Other;
    DType dt = DType::Float32;
    for (NodeId n : sg.nodes) {
        const OpClass c = opClassOf(g.node(n).opType);
        if (c == OpClass::Gemm || cls == OpClass::Other) {
            cls = c;
            if (!g.node(n).outputs.empty() && g.node(n).outputs.front() != kInvalidId)
                dt = g.tensor(g.node(n).outputs.front()).dtype;
        }
    }
    // The cost model's and the simulator's choice: the best unit for the class and dtype, else
    // for float32, else the device's fastest float32 unit (STCP920's MME has no f32 rate).
    const ComputeUnit *u = dev.bestUnit(cls, dt);
    if (!u)
        u = dev.bestUnit(cls, DType::Float32);
    if (!u)
        for (const ComputeUnit &c : dev.units) {
            auto it = c.peakOpsPerSec.find(DType::Float32);
            if (it != c.peakOpsPerSec.end() && (!u || it->second > u->peakOpsPerSec.at(DType::Float32)))
                u = &c;
        }
    if (!u)
        return -1;
    return static_cast<std::int32_t>(u - dev.units.data());
}

int instanceCores(const SubGraph &sg, const Instance &inst)
{
    return boundCores(inst.binding.empty() ? sg.binding : inst.binding);
}

std::vector<char> overlapWithNext(const Context &ctx, const std::vector<SubGraph> &subgraphs,
                                  const std::vector<Instance> &instances, const std::vector<int> &order)
{
    std::vector<char> out(order.size(), 0);
    if (!ctx.overlap())
        return out;
    for (std::size_t p = 0; p + 1 < order.size(); ++p) {
        const Instance &a = instances[static_cast<std::size_t>(order[p])];
        const Instance &b = instances[static_cast<std::size_t>(order[p + 1])];
        const int ua = subgraphs[static_cast<std::size_t>(a.subgraph)].unit;
        const int ub = subgraphs[static_cast<std::size_t>(b.subgraph)].unit;
        const bool feeds = std::find(b.producers.begin(), b.producers.end(), order[p]) != b.producers.end();
        out[p] = ua >= 0 && ub >= 0 && ua != ub && !feeds;
    }
    return out;
}

} // namespace tessera::graphturbo
