// bench_cpumoves: data movement as LLVM-generated kernels (jit.h
// MoveProgram, datamove.cpp) against the C++ copy loops they replace, on
// the same shapes, in one process: each case is a one-node graph compiled
// twice by the CPU backend — by default (the generated kernel) and with
// TESSERA_CPU_ENGINES=onednn,copy (no JIT: the C++ loops) — and run
// alternately. Printed per case: the median op time of each (the run's
// op_ms/copy metric: the op alone), their ratio (generated / C++; below 1
// the generated kernel is faster).
//
// Cases: a 2-D transpose [64, 3136] (NCHW to NHWC of ResNet's first stage),
// BERT-base's heads [1,128,12,64] by (0,2,1,3) (runs of 64 contiguous
// floats), ShuffleNetV2's channel shuffle [1,2,58,28,28] by (0,2,1,3,4),
// a stride-2 Slice of [1,64,56,56] over H and W, a Concat of two [4096,3]
// along the last axis (rows of 12 bytes), a Pad of [1,64,56,56] by 1.
//
// Guard: exits 1 when the two outputs differ in any byte (moves are exact).
//
// Usage: bench_cpumoves [runs=50]
// Links: tessera_backend_cpu.
#include "backends/cpu/cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/onenode.h"

using namespace tessera;

namespace {

using Ints = std::vector<std::int64_t>;

struct Case {
    std::string what, opType;
    std::vector<Shape> inputs;
    Shape out;
    AttrMap attrs;
    std::vector<Ints> constants; // int64 inputs after the data (Slice's starts, ends, axes, steps)
};

Graph graphOf(const Case &c)
{
    Graph g;
    g.name = c.what;
    g.opsetVersion = 13;
    Node n;
    n.name = "node";
    n.opType = c.opType;
    n.attrs = c.attrs;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
        Tensor t;
        t.name = "x" + std::to_string(i);
        t.shape = c.inputs[i];
        t.kind = Tensor::Kind::Input;
        n.inputs.push_back(g.addTensor(std::move(t)));
        g.inputs.push_back(n.inputs.back());
    }
    for (std::size_t i = 0; i < c.constants.size(); ++i) {
        auto d = std::make_shared<TensorData>();
        d->dtype = DType::Int64;
        d->shape = {static_cast<std::int64_t>(c.constants[i].size())};
        d->bytes.resize(c.constants[i].size() * 8);
        std::memcpy(d->bytes.data(), c.constants[i].data(), d->bytes.size());
        Tensor t;
        t.name = "c" + std::to_string(i);
        t.shape = d->shape;
        t.dtype = DType::Int64;
        t.kind = Tensor::Kind::Initializer;
        t.data = std::move(d);
        n.inputs.push_back(g.addTensor(std::move(t)));
    }
    Tensor y;
    y.name = "y";
    y.shape = c.out;
    n.outputs = {g.addTensor(std::move(y))};
    g.outputs = {n.outputs[0]};
    g.addNode(std::move(n));
    return g;
}

} // namespace

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
    const std::vector<Case> cases = {
        {"transpose [64, 3136]", "Transpose", {{64, 3136}}, {3136, 64}, {{"perm", {Ints{1, 0}}}}, {}},
        {"heads [1,128,12,64]", "Transpose", {{1, 128, 12, 64}}, {1, 12, 128, 64}, {{"perm", {Ints{0, 2, 1, 3}}}}, {}},
        {"shuffle [1,2,58,28,28]",
         "Transpose",
         {{1, 2, 58, 28, 28}},
         {1, 58, 2, 28, 28},
         {{"perm", {Ints{0, 2, 1, 3, 4}}}},
         {}},
        {"slice /2 [1,64,56,56]", "Slice", {{1, 64, 56, 56}}, {1, 64, 28, 28}, {}, {{0, 0}, {56, 56}, {2, 3}, {2, 2}}},
        {"concat 2x[4096,3]", "Concat", {{4096, 3}, {4096, 3}}, {4096, 6}, {{"axis", {std::int64_t{1}}}}, {}},
        {"pad [1,64,56,56]", "Pad", {{1, 64, 56, 56}}, {1, 64, 58, 58}, {}, {{0, 0, 1, 1, 0, 0, 1, 1}}},
    };
    auto backend = createCpuBackend({});
    std::printf("%-24s %12s %12s %8s\n", "case", "llvm ms", "c++ ms", "ratio");
    int status = 0;
    for (const Case &c : cases) {
        const Graph g = graphOf(c);
        const ExecutionPlan plan = bench::oneNodePlan(g);
        std::vector<HostTensor> inputs;
        std::mt19937 rng(1);
        for (TensorId id : g.inputs)
            inputs.push_back(bench::uniformInput(g, id, -4, 4, rng));
        auto jit = bench::compileWithEngines(*backend, g, plan, nullptr);
        auto cpp = bench::compileWithEngines(*backend, g, plan, "onednn,copy");
        if (!jit || !cpp) {
            std::fprintf(stderr, "bench_cpumoves: %s\n", (!jit ? jit.status() : cpp.status()).str().c_str());
            return 1;
        }
        std::vector<double> jitMs, cppMs;
        RunResult a, b;
        for (int r = 0; r < runs + 2; ++r) { // two warm-up runs each
            auto ra = backend->run(**jit, inputs);
            auto rb = backend->run(**cpp, inputs);
            if (!ra || !rb) {
                std::fprintf(stderr, "bench_cpumoves: %s\n", (!ra ? ra.status() : rb.status()).str().c_str());
                return 1;
            }
            bool generated = false;
            for (const auto &[key, value] : ra->metrics)
                generated = generated || (key.starts_with("kernel/") && key.find("copy[llvm") != std::string::npos);
            if (ra->metrics["ops/copy"] != 1 || rb->metrics["ops/copy"] != 1 || !generated) {
                std::fprintf(stderr, "bench_cpumoves: %s did not run on the kernels compared\n", c.what.c_str());
                return 1;
            }
            if (r >= 2) {
                jitMs.push_back(ra->metrics["op_ms/copy"]);
                cppMs.push_back(rb->metrics["op_ms/copy"]);
            }
            a = std::move(*ra);
            b = std::move(*rb);
        }
        const bool same = a.outputs[0].bytes == b.outputs[0].bytes;
        const double mj = bench::median(jitMs), mc = bench::median(cppMs);
        std::printf("%-24s %12.4f %12.4f %8.2f%s\n", c.what.c_str(), mj, mc, mj / mc, same ? "" : "  OUTPUTS DIFFER");
        if (!same)
            status = 1;
    }
    return status;
}
