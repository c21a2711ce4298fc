// bench_cpuewise: Exp, Sigmoid, Tanh and Erf in the CPU backend's LLVM
// element-wise chains (inline vectorisable arithmetic: jit.cpp emitExp,
// emitSigmoid, emitTanh, emitErf) against what the chains did before: one
// call of the C library's float function per element (expf, tanhf, erff;
// 1/(1 + expf(-x)) for the sigmoid), the loop compiled here, timed in the
// same process on the same data. Printed per op: the median op time of the
// chain (the run's op_ms/llvm-jit metric, one thread), of the loop, their
// ratio (below 1 the chain is faster), and the largest difference between
// the two outputs relative to max(1, |the library's|).
//
// Shape [128, 3072]: BERT-base's feed-forward activation at sequence 128
// (GELU is x·(1 + erf(x/√2))/2; its Erf is the op measured here).
//
// Guard: exits 1 when that difference exceeds 1e-6.
//
// Usage: bench_cpuewise [runs=50]
// Links: tessera_backend_cpu.
#include "backends/cpu/cpu.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/onenode.h"

using namespace tessera;

namespace {

Graph graphOf(const std::string &opType, const Shape &shape)
{
    Graph g;
    g.name = opType;
    g.opsetVersion = 17;
    Tensor x;
    x.name = "x";
    x.shape = shape;
    x.kind = Tensor::Kind::Input;
    const TensorId xi = g.addTensor(std::move(x));
    Tensor y;
    y.name = "y";
    y.shape = shape;
    const TensorId yi = g.addTensor(std::move(y));
    Node n;
    n.name = "node";
    n.opType = opType;
    n.inputs = {xi};
    n.outputs = {yi};
    g.addNode(std::move(n));
    g.inputs = {xi};
    g.outputs = {yi};
    return g;
}

} // namespace

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
    const Shape shape{128, 3072};
    struct Case {
        std::string opType;
        float (*libm)(float);
    };
    const std::vector<Case> cases = {
        {"Exp", [](float x) { return std::exp(x); }},
        {"Sigmoid", [](float x) { return 1.0f / (1.0f + std::exp(-x)); }},
        {"Tanh", [](float x) { return std::tanh(x); }},
        {"Erf", [](float x) { return std::erf(x); }},
    };
    CpuBackendOptions options;
    options.threads = 1;
    auto backend = createCpuBackend(options);
    std::printf("%-10s %12s %12s %8s %10s\n", "op", "llvm ms", "libm ms", "ratio", "max diff");
    int status = 0;
    for (const Case &c : cases) {
        const Graph g = graphOf(c.opType, shape);
        const ExecutionPlan plan = bench::oneNodePlan(g);
        std::mt19937 rng(1);
        const HostTensor input = bench::uniformInput(g, g.inputs[0], -6, 6, rng);
        auto compiled = bench::compileWithEngines(*backend, g, plan, nullptr);
        if (!compiled) {
            std::fprintf(stderr, "bench_cpuewise: %s\n", compiled.status().str().c_str());
            return 1;
        }
        std::vector<float> loop(static_cast<std::size_t>(input.elements()));
        std::vector<double> jitMs, libmMs;
        RunResult last;
        for (int r = 0; r < runs + 2; ++r) { // two warm-up runs each
            auto ran = backend->run(**compiled, {input});
            if (!ran || ran->metrics["ops/llvm-jit"] != 1) {
                std::fprintf(stderr, "bench_cpuewise: %s did not run as an LLVM chain\n", c.opType.c_str());
                return 1;
            }
            const auto t0 = std::chrono::steady_clock::now();
            const float *in = input.f32();
            for (std::size_t i = 0; i < loop.size(); ++i)
                loop[i] = c.libm(in[i]);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (r >= 2) {
                jitMs.push_back(ran->metrics["op_ms/llvm-jit"]);
                libmMs.push_back(ms);
            }
            last = std::move(*ran);
        }
        double diff = 0;
        for (std::size_t i = 0; i < loop.size(); ++i)
            diff = std::max(diff, std::abs(static_cast<double>(last.outputs[0].f32()[i]) - loop[i]) /
                                      std::max(1.0, std::abs(static_cast<double>(loop[i]))));
        const double mj = bench::median(jitMs), ml = bench::median(libmMs);
        std::printf("%-10s %12.4f %12.4f %8.2f %10.1e\n", c.opType.c_str(), mj, ml, mj / ml, diff);
        if (!(diff <= 1e-6))
            status = 1;
    }
    return status;
}
