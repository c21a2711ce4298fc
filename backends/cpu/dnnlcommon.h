// oneDNN helpers shared by onednn.cpp (convolutions, matrix products) and
// dnnlprims.cpp (pooling, softmax, reductions, normalisation). Internal to
// backends/cpu: the only header besides those .cpp files that includes
// dnnl.hpp, and included by nothing else.
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <cstdint>
#include <dnnl.hpp>
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

} // namespace tessera::cpu
