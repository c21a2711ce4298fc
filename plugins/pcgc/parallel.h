// PCGC parallel processing (pcgc §3.4 "Parallel Processing", Fig. 5,
// Example 4): which sub-graphs run concurrently.
//
// Virtual compute units (virtualUnits): for an op class and dtype, the
// device's unit instances that can run it — Σ over units that support the
// class and have a peak for the dtype of (cores carrying the unit) ×
// countPerCore; when no unit supports the class at that dtype, the units with
// a peak for the dtype (the cost model's fallback unit).
// Waves: a sub-graph's wave is one more than the latest wave of the
// sub-graphs producing its inputs, so sub-graphs of one wave have no data
// dependence between them and dependent ones are in different waves — serial
// (Example 4's blue box). A wave of k ≥ 2 sub-graphs (the red box) may run
// them on s = min(k, U) streams, U = the virtual units of the wave's heaviest
// op class (gemm before reduction before element-wise...) at the dtype of its
// first output; the sub-graphs go to the least-loaded stream, longest first
// (by the cost model's time alone). Intra-op parallelism is each kernel's own
// (the cost model spreads a kernel over the cores; streams share them, S4 of
// devicecost.h); inter-op parallelism is preferred — the decision
// "pcgc.parallel" of the wave prefers the streams — when U ≥ 2 and the
// lowered plan (lowering.h: the wave between two barriers) is estimated
// shorter with the wave on s streams than serial ("if the extra resources
// can achieve inter-operator parallelism ... the inter-operator parallelism
// strategy is given priority"; our reading: when the resources exist and the
// model says they shorten the plan — the whole plan, because the barriers a
// parallel wave needs also stop the host from issuing the next kernels early,
// which a wave's own span does not show). Waves are judged in dependence
// order, each against the plan as decided so far (every later wave serial):
// one plan lowering per candidate wave. With one virtual unit the wave is
// serial, its time the sum of its kernels (Example 4 with one convolution
// unit). The trace step of a wave also gives the wave's own span serial and
// parallel (serial_ns, parallel_ns).
#pragma once

#include "core/cost/costmodel.h"
#include "core/hw/device.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/pcgc/partition.h"

namespace tessera::pcgc {

std::int32_t virtualUnits(const Device &device, OpClass opClass, DType dtype);

struct Wave {
    // Group indices (into Partition::groups) per stream; one stream = serial.
    std::vector<std::vector<std::size_t>> streams;
    bool parallel() const { return streams.size() > 1; }
};

struct ParallelPlan {
    std::vector<Wave> waves; // in dependence order
    std::int32_t parallelWaves = 0;
};

ParallelPlan planParallel(const Graph &g, const Device &device, const CostModel &cost, const Partition &partition,
                          bool allowParallel, DecisionContext &decisions, Trace &trace);

} // namespace tessera::pcgc
