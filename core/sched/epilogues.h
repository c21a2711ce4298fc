// Operators with their epilogues: the operator granularity of the ios thesis'
// baseline schedules (§4.2: sequential and greedy schedule the same operators
// IOS does, a convolution together with its bias and activation — one
// cuDNN call, cudnnConvolutionBiasActivationForward).
//
// operatorsWithEpilogues() visits the nodes in topological order. An
// element-wise node (OpClass::Elementwise: Relu, Add, BatchNormalization, ...)
// joins the group of the producer p of one of its inputs when p is the last
// node of its group and every output of p is read by this node only; of
// several such producers the latest is taken. Every other node starts a group.
// So Conv → Relu is one group, Conv → BN → Relu one, and a tensor read twice
// ends its group. This is the epilogue rule of the device cost model (S1,
// core/cost/devicecost.h), which costs such a group as one launch.
//
// Assumes an acyclic graph (asserted). Joining adds no dependency between
// groups: a group's only output read outside it is its last node's, and that
// output's sole reader is the joining node, so no group can lie between them.
#pragma once

#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tessera {

// The groups in topological order of their first node; each group's nodes in
// topological order, head first. Every node is in exactly one group.
std::vector<std::vector<NodeId>> operatorsWithEpilogues(const Graph &g);

// The operators a baseline schedule issues — with their epilogues, or each
// node alone — and the dependencies between them.
struct OperatorDag {
    std::vector<std::vector<NodeId>> ops;           // topological order of their heads
    std::vector<std::vector<std::int32_t>> readers; // per operator: the operators reading it
    std::vector<int> inDegree;                      // per operator: operators it reads from
};
OperatorDag operatorDag(const Graph &g, bool withEpilogues);

// "Conv conv1 + Relu" for trace lines and decision options.
std::string describeOperator(const Graph &g, const std::vector<NodeId> &op);

} // namespace tessera
