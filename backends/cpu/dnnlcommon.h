// oneDNN helpers shared by onednn.cpp (convolutions, matrix products),
// dnnlprims.cpp (pooling, softmax, reductions, normalisation) and the tiled
// ops (tiled.cpp, tiledops.cpp); dnnlcommon.cpp holds those that are not
// onednn.cpp's. Internal to backends/cpu: the only header besides those .cpp
// files that includes dnnl.hpp, and included by nothing else.
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <cstdint>
#include <dnnl.hpp>
#include <omp.h>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::cpu {

// The process's one CPU engine (created on first use).
dnnl::engine &dnnlEngine();

// A row-major float32 descriptor of `dims` (rank 1..6; undef tag beyond).
dnnl::memory::desc plainDesc(const std::vector<std::int64_t> &dims);

// The descriptor of a rank-4 float32 tensor in the activation layout of
// `block` (LayoutContext): nChw16c for 16, nChw8c for 8, nhwc for 1; a zero
// descriptor otherwise.
dnnl::memory::desc blockedDesc(const std::vector<std::int64_t> &dims, int block);

// Per-thread scratch bytes for a primitive's scratchpad or statistics: at
// least `bytes`, reused by every later call on the same thread (slot 0..3).
std::uint8_t *threadScratch(int slot, std::size_t bytes);

// Attributes asking for a user scratchpad (bound from threadScratch at run
// time, so primitives allocate nothing per call).
dnnl::primitive_attr userScratchpad();

struct Constants; // cpuop.h

// A Reduce* node as a oneDNN reduction: the algorithm, its p (norms), the
// input dims it reduces and whether they are kept.
struct DnnlReduction {
    dnnl::algorithm alg = dnnl::algorithm::undef;
    float p = 0;
    std::vector<bool> reduced; // per input dim
    bool keepDims = true;
};

// Reads the reduction of `n` (one of the eight Reduce* types, axes from the
// attribute or a constant input) into `r`; empty, or why oneDNN does not take
// it (rank beyond 1..6, axes computed at run time, no axes with
// noop_with_empty_axes). Whether any reduced axis is more than 1 is the
// caller's check: the whole tensor's (dnnlprims.cpp) or a tile's (tiledops.cpp).
std::string dnnlReductionOf(const Graph &g, const Node &n, const Constants &constants, DnnlReduction &r);

// One tile runs on its calling thread: the plan's tiles are its units of
// parallelism (the worker pool runs independent tasks at once), and an OpenMP
// team per small tile on top of them oversubscribes the cores (SqueezeNet's
// GraphTurbo plan ran 4x slower than on the reference kernels, 2 cores). oneDNN
// sizes a primitive's partition by the team size when it is created and runs
// it with that team, so tiled primitives (tiled.cpp, tiledops.cpp) are created
// and run under this guard: one thread for the calling thread's OpenMP regions
// (its own setting, restored after).
struct OneThread {
    int before = omp_get_max_threads();
    OneThread() { omp_set_num_threads(1); }
    ~OneThread() { omp_set_num_threads(before); }
    OneThread(const OneThread &) = delete;
    OneThread &operator=(const OneThread &) = delete;
};

// Executes `prim` on a fresh stream of the engine with the arguments
// `makeArgs()` returns (an std::unordered_map<int, dnnl::memory>) and waits.
// A dnnl::error thrown while making the arguments or running becomes
// "oneDNN failed on '<label>': <what>": nothing throws out of the backend.
template <class MakeArgs>
Status runPrimitive(const dnnl::primitive &prim, const std::string &label, MakeArgs &&makeArgs)
{
    try {
        dnnl::stream stream(dnnlEngine());
        const std::unordered_map<int, dnnl::memory> args = makeArgs();
        prim.execute(stream, args);
        stream.wait();
    } catch (const dnnl::error &e) {
        return Status::error(ErrorCode::Internal, "oneDNN failed on '" + label + "': " + e.what());
    }
    return Status::ok();
}

// A tiled op's pieces (tiled.cpp, tiledops.cpp) on one stream: `body(stream)`
// enqueues them, under OneThread, then the stream is waited for. A dnnl::error
// becomes "oneDNN failed on tiled '<label>': <what>".
template <class Body> Status runTiled(const std::string &label, Body &&body)
{
    const OneThread oneThread;
    try {
        dnnl::stream stream(dnnlEngine());
        body(stream);
        stream.wait();
    } catch (const dnnl::error &err) {
        return Status::error(ErrorCode::Internal, "oneDNN failed on tiled '" + label + "': " + err.what());
    }
    return Status::ok();
}

// A piece's operands where its primitive wants a dense tile rather than the
// view of the run's tensor: the source reordered by `in` into `md` on the
// thread's scratch slot 1 (or the view itself without `in`), the destination
// on slot 2 (reordered out by the caller), the scratchpad on slot 0.
inline dnnl::memory stagedSource(const dnnl::stream &stream, dnnl::memory view, const std::optional<dnnl::reorder> &in,
                                 const dnnl::memory::desc &md)
{
    if (!in)
        return view;
    dnnl::memory tile(md, dnnlEngine(), threadScratch(1, md.get_size()));
    in->execute(stream, view, tile);
    return tile;
}
inline dnnl::memory stagedDestination(const dnnl::memory &view, bool reorderedOut, const dnnl::memory::desc &md)
{
    return reorderedOut ? dnnl::memory(md, dnnlEngine(), threadScratch(2, md.get_size())) : view;
}
inline dnnl::memory scratchpadMemory(const dnnl::memory::desc &md)
{
    return dnnl::memory(md, dnnlEngine(), threadScratch(0, md.get_size()));
}

} // namespace tessera::cpu
