// Helpers shared by the CPU-backend benchmarks (bench_cpu, bench_cpufused):
// process CPU time, a registered sample taken through the path users take
// (built as `tessera-cli sample` builds it, saved as ONNX, imported), and its
// first input filled the same way in both.
// Links: tessera_app_common tessera_samples onnx_proto (besides tessera_core).
#pragma once

#include "core/backend/backend.h"
#include "core/onnx/importer.h"
#include "core/plugin/extensions.h"
#include "samples/catalog.h"

#include <ctime>
#include <filesystem>
#include <onnx/onnx_pb.h>
#include <random>
#include <string>
#include <vector>

namespace tessera::bench {

// CPU time of the whole process (every thread), ms: on a shared machine wall
// time swings with the other jobs' load, CPU time much less.
inline double processCpuMs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Sample `name` as `extensions` builds it (the catalog's and the plugins'),
// saved as <dir>/<name>.onnx with external weights and imported.
inline Expected<ImportResult> importRegisteredSample(const Extensions &extensions, const std::string &name,
                                                     const samples::SampleOptions &options,
                                                     const std::filesystem::path &dir)
{
    auto model = extensions.buildSample(name, options);
    if (!model)
        return model.status();
    const std::string path = (dir / (name + ".onnx")).string();
    if (Status s = samples::saveModel(**model, path, true); !s)
        return s;
    model->reset();
    return importModel(path);
}

// Input 0 of `g` (float32), uniform in [-1, 1) from a fixed seed.
inline std::vector<HostTensor> uniformInput(const Graph &g)
{
    std::mt19937 rng(1);
    const Tensor &x = g.tensor(g.inputs.at(0));
    HostTensor input{x.name, x.dtype, x.shape, std::vector<std::uint8_t>(static_cast<std::size_t>(x.bytes()))};
    for (std::int64_t i = 0; i < input.elements(); ++i)
        input.f32()[i] = std::uniform_real_distribution<float>(-1, 1)(rng);
    return {input};
}

} // namespace tessera::bench
