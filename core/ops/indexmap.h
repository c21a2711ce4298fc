// ops::NodeIndexMap: a node's index map (core/ops inputRegions) with its type inference done once,
// for callers that map many output tiles through the same node.
#pragma once

#include "core/ops/ops.h"

#include <memory>

namespace tessera::ops {

// inputRegions of one node for any number of output tiles, the node's type inference run once
// (by the constructor) instead of once per tile: for callers that map many tiles through the same
// nodes (a verifier or a lowering walking every task of a kernel). Refers to g and n, which must
// outlive it unchanged.
class NodeIndexMap
{
public:
    NodeIndexMap(const Graph &g, const Node &n);
    ~NodeIndexMap();
    NodeIndexMap(NodeIndexMap &&) noexcept;
    NodeIndexMap &operator=(NodeIndexMap &&) noexcept;
    // The same result as inputRegions(g, n, outputIndex, outTile).
    Expected<std::vector<InputRegion>> inputRegions(int outputIndex, const Region &outTile) const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tessera::ops
