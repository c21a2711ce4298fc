// Helpers shared by the simulator benchmarks (bench_sim, bench_graphturbo): wall time, and a
// catalog sample taken through the path users take — built, saved as ONNX, imported — so the
// graphs they time are the ones `tessera-cli` would schedule.
// Links: tessera_samples onnx_proto (besides tessera_core).
#pragma once

#include "core/onnx/importer.h"
#include "samples/catalog.h"

#include <chrono>
#include <filesystem>
#include <onnx/onnx_pb.h>
#include <string>

namespace tessera::bench {

inline double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Builds sample `name` with `options`, saves it as <dir>/<name>.onnx and imports it.
inline Expected<ImportResult> importSample(const std::string &name, const samples::SampleOptions &options,
                                           const std::filesystem::path &dir)
{
    auto m = samples::buildSample(name, options);
    if (!m)
        return m.status();
    const std::string path = (dir / (name + ".onnx")).string();
    if (Status s = samples::saveModel(**m, path, true); !s.isOk())
        return s;
    m->reset();
    return importModel(path);
}

} // namespace tessera::bench
