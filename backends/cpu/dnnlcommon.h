// oneDNN helpers shared by onednn.cpp (convolutions, matrix products) and
// dnnlprims.cpp (pooling, softmax, reductions, normalisation). Internal to
// backends/cpu: the only header besides those .cpp files that includes
// dnnl.hpp, and included by nothing else.
#pragma once

#include "core/ir/graph.h"

#include <cstdint>
#include <dnnl.hpp>
#include <vector>

namespace tessera::cpu {

// The process's one CPU engine (created on first use).
dnnl::engine &dnnlEngine();

// A row-major float32 descriptor of `dims` (rank 1..6; undef tag beyond).
dnnl::memory::desc plainDesc(const std::vector<std::int64_t> &dims);

// Per-thread scratch bytes for a primitive's scratchpad or statistics: at
// least `bytes`, reused by every later call on the same thread (slot 0..3).
std::uint8_t *threadScratch(int slot, std::size_t bytes);

} // namespace tessera::cpu
