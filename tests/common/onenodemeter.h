// A KernelMeter (core/cost/measuredcost.h) that times one named node's
// kernel and nothing else: every other kernel "cannot be measured", so a
// test sees exactly which costs a measurement replaced. Counts its calls.
// Used by tst_devicecost and tst_welderschedule.
#pragma once

#include "core/cost/measuredcost.h"
#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tessera::test {

struct OneNodeMeter final : KernelMeter {
    std::string node; // the node timed
    double ns = 0;    // its kernel's time
    int calls = 0;
    CostKind kind() const override { return CostKind::Measured; }
    Expected<double> kernelNs(const Graph &g, const std::vector<NodeId> &nodes) override
    {
        ++calls;
        if (nodes.size() == 1 && g.node(nodes[0]).name == node)
            return ns;
        return Status::error(ErrorCode::Unavailable, "no timer for this kernel");
    }
};

} // namespace tessera::test
