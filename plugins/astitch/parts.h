// A2: cluster parts (graphturbo-osdi23 §2.1 and §5.1: a DSA's clusters each
// take a share of the batch; AStitch does not split a kernel into instances
// within a cluster).
//
// A kernel is spread over the clusters when every one of its escaping outputs
// divides along dim 0 (the batch) and each cluster's share computes exactly
// its slab of every tensor inside the kernel (dim 0 of each from c·n/P to
// (c+1)·n/P, the other dims whole; checked through core/plan's taskRegions,
// so reshapes folding the batch into another dim pass and transposes moving it
// do not). Otherwise the kernel runs whole on cluster 0. Part c runs on
// cluster c. Each part's read regions are kept for A3 and A4.
#pragma once

#include "core/support/status.h"
#include "plugins/astitch/stitching.h"

namespace tessera::astitch {

// Fills kernels[i].parts; returns how many kernels were spread over the clusters.
Expected<int> assignParts(Context &ctx, std::vector<StitchKernel> &kernels);

} // namespace tessera::astitch
