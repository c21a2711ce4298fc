// layer-fusion: TVM-style operator fusion within a layer, every kernel's
// output written to main memory — the baseline GraphTurbo improves on
// (graphturbo-osdi23 §1.2: "TVM ... fuses the ops within a layer into a
// kernel ... the output of each kernel is stored to DDR").
//
// Fusion follows TVM's FuseOps patterns, simplified to chains:
//   anchor   Conv, ConvTranspose, MatMul, Gemm (out-elementwise fusable), and
//            reductions (ReduceMean/Sum, Softmax, pooling, LayerNormalization);
//   follower elementwise, broadcast and injective ops (Relu, Add, BN, Reshape...).
// A node joins the kernel of an input's producer when that producer's outputs
// are used by this node alone (so the kernel stays single-exit and convex), a
// kernel holds at most one anchor, and opaque nodes stay alone. Every kernel
// reads and writes the slowest memory level.
// Decision per fusable node: fuse into the producer's kernel (preferred) or
// start a new kernel.
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
// The plugin: its one scheduler (listed in plugins/CMakeLists.txt).
void registerLayerfusionPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createLayerFusionScheduler();
} // namespace tessera
