// Graph fixtures for the IR tests: every node has one output tensor; a node
// without predecessors reads the graph input "x". Graphs are built with
// Graph::addTensor/addNode only (no ops, no ONNX).
#pragma once

#include "core/ir/graph.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace tessera::test {

class DagBuilder
{
public:
    DagBuilder()
    {
        m_x = graph.addTensor({.name = "x", .shape = {1}, .kind = Tensor::Kind::Input});
        graph.inputs = {m_x};
    }

    NodeId op(const std::string &name, const std::vector<NodeId> &preds = {}, const std::string &opType = "Op")
    {
        std::vector<TensorId> ins;
        for (NodeId p : preds)
            ins.push_back(graph.node(p).outputs[0]);
        if (ins.empty())
            ins.push_back(m_x);
        const TensorId out = graph.addTensor({.name = name + ":0", .shape = {1}});
        return graph.addNode({.name = name, .opType = opType, .inputs = ins, .outputs = {out}});
    }

    // Unconsumed node outputs become graph outputs.
    Graph finish()
    {
        for (const Node &n : graph.nodes())
            if (graph.tensor(n.outputs[0]).consumers.empty())
                graph.outputs.push_back(n.outputs[0]);
        return std::move(graph);
    }

    Graph graph;

private:
    TensorId m_x = kInvalidId;
};

// A random DAG on n nodes: rank i feeds rank j > i with probability p. Node ids
// are a random permutation of the ranks, so id order is not topological.
inline Graph randomDag(int n, double p, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::bernoulli_distribution edge(p);
    std::vector<int> rankOfId(static_cast<std::size_t>(n));
    std::iota(rankOfId.begin(), rankOfId.end(), 0);
    std::shuffle(rankOfId.begin(), rankOfId.end(), rng);
    std::vector<std::vector<int>> preds(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i)
            if (edge(rng))
                preds[static_cast<std::size_t>(j)].push_back(i);

    Graph g;
    const TensorId x = g.addTensor({.name = "x", .shape = {1}, .kind = Tensor::Kind::Input});
    g.inputs = {x};
    std::vector<TensorId> out(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r)
        out[static_cast<std::size_t>(r)] = g.addTensor({.name = "t" + std::to_string(r), .shape = {1}});
    for (int id = 0; id < n; ++id) {
        const int r = rankOfId[static_cast<std::size_t>(id)];
        std::vector<TensorId> ins;
        for (int q : preds[static_cast<std::size_t>(r)])
            ins.push_back(out[static_cast<std::size_t>(q)]);
        if (ins.empty())
            ins.push_back(x);
        g.addNode({.name = "v" + std::to_string(r),
                   .opType = "Op",
                   .inputs = ins,
                   .outputs = {out[static_cast<std::size_t>(r)]}});
    }
    for (int r = 0; r < n; ++r)
        if (g.tensor(out[static_cast<std::size_t>(r)]).consumers.empty())
            g.outputs.push_back(out[static_cast<std::size_t>(r)]);
    return g;
}

// Nodes reachable from `from` by a path of length >= 1, by plain DFS.
inline std::vector<bool> reachableByDfs(const Graph &g, NodeId from)
{
    std::vector<bool> seen(g.nodeCount(), false);
    std::vector<NodeId> todo = g.successors(from);
    while (!todo.empty()) {
        const NodeId v = todo.back();
        todo.pop_back();
        if (seen[static_cast<std::size_t>(v)])
            continue;
        seen[static_cast<std::size_t>(v)] = true;
        for (NodeId s : g.successors(v))
            todo.push_back(s);
    }
    return seen;
}

// A chain of residual blocks: stem, then per block
//   a = conv(in), b = bn(a), c = relu(b), d = conv(c), e = add(in, d), out = relu(e).
// `name(k)` names the k-th node created. Returns each block's nodes a..e
// (one single-entry/single-exit region) in `regions` when given.
inline Graph residualChain(int blocks, const std::function<std::string(int)> &name,
                           std::vector<std::vector<NodeId>> *regions = nullptr)
{
    DagBuilder b;
    int k = 0;
    NodeId in = b.op(name(k++), {}, "Conv");
    for (int i = 0; i < blocks; ++i) {
        const NodeId a = b.op(name(k++), {in}, "Conv");
        const NodeId bn = b.op(name(k++), {a}, "BatchNormalization");
        const NodeId c = b.op(name(k++), {bn}, "Relu");
        const NodeId d = b.op(name(k++), {c}, "Conv");
        const NodeId e = b.op(name(k++), {in, d}, "Add");
        if (regions)
            regions->push_back({a, bn, c, d, e});
        in = b.op(name(k++), {e}, "Relu");
    }
    return b.finish();
}

// A chain of inception-like modules: each has branches of length 1..branches
// from the module input into a concat. Width = branches.
inline Graph inceptionChain(int modules, int branches)
{
    DagBuilder b;
    int k = 0;
    auto next = [&] { return "n" + std::to_string(k++); };
    NodeId in = b.op(next());
    for (int m = 0; m < modules; ++m) {
        std::vector<NodeId> ends;
        for (int br = 0; br < branches; ++br) {
            NodeId v = in;
            for (int len = 0; len <= br; ++len)
                v = b.op(next(), {v});
            ends.push_back(v);
        }
        in = b.op(next(), ends, "Concat");
    }
    return b.finish();
}

} // namespace tessera::test
