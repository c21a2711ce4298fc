// One output of a run against the same output of another run (a backend
// against the reference backend): the relative L2 error ||got - want|| /
// ||want|| over float32 values, and the values that are NaN/Inf in `got`
// where `want` is finite. Other element types must match byte for byte.
// Used by `tessera-cli run --check`, the backend tests and the benches, so
// "matches the reference" means one thing everywhere.
#pragma once

#include "core/backend/backend.h"

#include <cstdint>
#include <string>

namespace tessera {

struct OutputCheck {
    std::string name;
    double relL2 = 0;           // over the values finite in both; infinite on a shape or type mismatch
    std::int64_t badValues = 0; // NaN/Inf in `got` where `want` is finite
    bool ok = true;             // badValues == 0 and relL2 < tolerance
};

OutputCheck checkOutput(const HostTensor &got, const HostTensor &want, double tolerance);

// The relative L2 error as one number: infinite when `got` has a NaN/Inf
// where `want` does not, or the two do not compare at all.
double relativeL2(const HostTensor &got, const HostTensor &want);

} // namespace tessera
