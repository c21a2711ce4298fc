// Plain core binding of an instance's output (graphturbo-osdi23 §3.4, Algo. 4
// line 5's plain_binding): cores are handed out greedily from the outermost
// loop dimension inwards, each dimension taking the first of 8, 4, 2, 1 that
// divides its extent and the cores still free, so the load stays balanced.
// The binding factors form a tuple per dimension; their product is the
// number of cores the instance runs on (cores 0..product-1 of its cluster).
// Which of the plain bindings over 8, 4, 2 or 1 cores a sub-graph uses is a
// decision (instances.h). Only the plain strategy is implemented: Algo. 4's inference through
// producers and the GB scope on mismatch are not (see the plugin's header).
#pragma once

#include "core/ops/ops.h"

#include <string>
#include <vector>

namespace tessera::graphturbo {

std::vector<int> plainBinding(const ops::Region &tile, int cores);
int boundCores(const std::vector<int> &binding);
std::string bindingStr(const std::vector<int> &binding); // "[1,8,1,1]"

} // namespace tessera::graphturbo
