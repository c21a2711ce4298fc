// Fused intermediates of a tiled task: which tensors a tiled task keeps only
// in a tile-sized buffer instead of the run's arena (issue 13, item 1).
//
// Welder's tile graph keeps the intermediates of a fused group in shared
// memory, one tile's worth at a time (welder-osdi23 §3, Figure 6: the
// conv→relu→conv tile graph; BrickDL's bricks likewise, brickdl §3). On the
// CPU that memory is the running thread's scratch: the intermediate of a
// tiled task whose producer and every consumer are nodes of the task's
// kernel lives in a buffer holding exactly the region the task computes of
// it (core/plan/tiles.h taskRegions(...).computed, the halo its consumers
// read included), row-major over that region's extents; the producer writes
// it and the consumers read it at the region's origin.
//
// A tensor is a candidate when
//   - the task's regions are exact (no opaque node assumed whole inputs);
//   - its node is not a kernel output node (kernelOutputNodes: not a graph
//     output, no consumer outside the kernel);
//   - every kernel of the plan that holds one of its consumers also holds
//     its producer (a consumer in another kernel computes it itself, so no
//     other task waits for this task's copy);
//   - the region is short of the whole tensor (else a buffer of the whole
//     tensor per thread saves nothing).
// tiled.cpp then keeps a candidate only when every op of the task that
// touches it addresses it through strides (oneDNN views, LLVM runs, oneDNN
// reorders); a reference-kernel fallback or a reshape's flat copy reads whole
// tensors, so its tensors stay in the arena (lowerTiledTask, F1).
//
// The tensor then has no arena storage at all when no task writes it whole
// (cpu.cpp places only tensors some op writes; the ops of a task do not list
// their fused intermediates). Choices where the papers leave it open: the
// buffer holds a task's whole computed region — every task of the Welder,
// GraphTurbo and BrickDL plans has one tile per output node, so a task's
// region is one tile's; a task with several tiles of a node keeps their hull
// — unless it has the same number m of tiles of every node it tiles: then
// lowerTask (lower.cpp) runs it tile by tile, as m parts each holding the
// i-th tile of every node, so the scratch holds one tile's intermediates at a
// time. The scratch is per worker thread and reused by every task it runs.
// Not weighed: every worker holds the largest task's scratch, so a plan of
// few, large tiles can hold more bytes than its whole-tensor arena did
// (Darknet-53 at 64×64 under Welder: arena 1.0 → 0.38 MiB, plus 2 × 0.34 MiB
// of scratch; BENCHMARKS.md) — a rule trading the two would need the worker
// count, which only the run knows.
#include "backends/cpu/lower.h"

#include <algorithm>
#include <unordered_set>

namespace tessera::cpu {

LocalTensors fusedIntermediates(const Graph &g, const ExecutionPlan &plan, const Kernel &k, const TaskRegions &regions)
{
    LocalTensors out;
    if (!regions.exact)
        return out;
    const std::vector<NodeId> escaping = kernelOutputNodes(g, k.nodes);
    const std::unordered_set<NodeId> outputNodes(escaping.begin(), escaping.end());
    for (NodeId id : k.nodes) {
        if (outputNodes.count(id))
            continue;
        for (TensorId t : g.node(id).outputs) {
            if (t == kInvalidId)
                continue;
            const Tensor &tensor = g.tensor(t);
            auto it = regions.computed.find(t);
            if (it == regions.computed.end() || regionEmpty(it->second) || dtypeSize(tensor.dtype) == 0 ||
                it->second.size() != tensor.shape.size() ||
                ops::regionElements(it->second) >= numElements(tensor.shape).value_or(0))
                continue;
            bool alone = true;
            for (NodeId c : tensor.consumers)
                for (const Kernel &other : plan.kernels)
                    alone = alone && (std::find(other.nodes.begin(), other.nodes.end(), c) == other.nodes.end() ||
                                      std::find(other.nodes.begin(), other.nodes.end(), id) != other.nodes.end());
            if (alone)
                out.emplace(t, it->second);
        }
    }
    return out;
}

} // namespace tessera::cpu
