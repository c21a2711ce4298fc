// Synthetic graph inputs: what a run uses when the user gave no data, shared
// by `tessera-cli run` and the workbench's run panel so both feed a plan the
// same tensors. Deterministic from a seed (a PCG-style LCG, top 24 bits), so
// two runs of one model — in either tool — see identical inputs and their
// outputs can be compared bit for bit.
//
// Per dtype: floating types (f32, f64, f16, bf16) are uniform in
// [floatLow, floatHigh); integer types are uniform in [intLow, intHigh]
// (default 0..0: all zeros, which is a valid index for every Gather, a
// zero-length Slice bound nothing reads past, and a neutral mask), clamped
// to the type's range; bool is false unless the integer range reaches 1.
// Strings and undefined dtypes get zeroed bytes.
//
// Reading inputs from files is core/backend/tensorio.h; this file only makes
// data up.
#pragma once

#include "core/backend/backend.h"

#include <cstdint>
#include <vector>

namespace tessera {

struct SyntheticInputOptions {
    float floatLow = -1.0f;
    float floatHigh = 1.0f;
    std::int64_t intLow = 0;
    std::int64_t intHigh = 0; // inclusive
};

// One input for tensor `t` (its name, dtype and shape), from `seed`.
HostTensor syntheticInput(const Tensor &t, std::uint64_t seed, const SyntheticInputOptions &options = {});

// Every graph input in graph order, seeded firstSeed, firstSeed + 1, ... —
// exactly what `tessera-cli run` feeds when no --input is given.
std::vector<HostTensor> syntheticInputs(const Graph &g, std::uint64_t firstSeed = 1,
                                        const SyntheticInputOptions &options = {});

} // namespace tessera
