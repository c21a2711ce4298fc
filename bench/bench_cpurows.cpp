// bench_cpurows: softmax, layer normalisation and a reduction as LLVM row
// kernels (backends/cpu/rowops.cpp) against the oneDNN primitives they
// replace (dnnlprims.cpp), on the same shapes, in one process: each shape is
// a one-node graph compiled twice by the CPU backend — as it compiles by
// default (the row kernel) and with TESSERA_CPU_ENGINES=onednn,copy (the
// oneDNN primitive) — and run alternately. Printed per shape: the median op
// time of each (the run's op_ms/<engine> metric: the op alone, without the
// run's dispatch), their ratio (LLVM / oneDNN; above 1 the row kernel is
// slower) and the relative L2 between the two outputs.
//
// Shapes: softmax [12·128, 128] (BERT-base attention at sequence 128),
// LayerNorm [128, 768] and [197, 768] (BERT, ViT-B/16), ReduceMean [2048, 49]
// (ResNet-50's global pool over NCHW 7x7), softmax [1, 1000] (a classifier).
//
// Guard: exits 1 when the two outputs differ by a relative L2 of 1e-5 or more.
//
// Usage: bench_cpurows [runs=50] [threads=0 (the host's cores)]
// Links: tessera_backend_cpu.
#include "backends/cpu/cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "bench/onenode.h"

using namespace tessera;

namespace {

TensorId addTensor(Graph &g, const std::string &name, Shape shape, Tensor::Kind kind,
                   std::shared_ptr<TensorData> data = nullptr)
{
    Tensor t;
    std::tie(t.name, t.shape, t.kind, t.data) = std::tie(name, shape, kind, data);
    return g.addTensor(std::move(t));
}

std::shared_ptr<TensorData> constant(std::int64_t n, float base)
{
    auto d = std::make_shared<TensorData>();
    d->dtype = DType::Float32;
    d->shape = {n};
    d->bytes.resize(static_cast<std::size_t>(n) * 4);
    for (std::int64_t i = 0; i < n; ++i) {
        const float v = base + static_cast<float>(i % 13) / 64.0f;
        std::memcpy(d->bytes.data() + i * 4, &v, 4);
    }
    return d;
}

struct Case {
    std::string what, opType;
    Shape shape;
};

// One node over input x of `c.shape`: softmax / layer norm over the last
// axis (scale and bias constants), a reduction of the last axis (keepdims).
Graph graphOf(const Case &c)
{
    Graph g;
    g.name = c.what;
    g.opsetVersion = 17;
    const TensorId x = addTensor(g, "x", c.shape, Tensor::Kind::Input);
    g.inputs = {x};
    Node n;
    n.name = "node";
    n.opType = c.opType;
    n.inputs = {x};
    Shape out = c.shape;
    if (c.opType == "LayerNormalization") {
        n.inputs.push_back(
            addTensor(g, "scale", {c.shape.back()}, Tensor::Kind::Initializer, constant(c.shape.back(), 0.75f)));
        n.inputs.push_back(
            addTensor(g, "bias", {c.shape.back()}, Tensor::Kind::Initializer, constant(c.shape.back(), -0.1f)));
    } else if (c.opType.rfind("Reduce", 0) == 0) {
        n.attrs = {{"axes", {std::vector<std::int64_t>{-1}}}};
        out.back() = 1;
    }
    n.outputs = {addTensor(g, "y", out, Tensor::Kind::Intermediate)};
    g.addNode(std::move(n));
    g.outputs = {g.node(0).outputs[0]};
    return g;
}

double relativeL2(const HostTensor &a, const HostTensor &b)
{
    double num = 0, den = 0;
    for (std::int64_t i = 0; i < a.elements(); ++i) {
        const double d = static_cast<double>(a.f32()[i]) - b.f32()[i];
        num += d * d;
        den += static_cast<double>(b.f32()[i]) * b.f32()[i];
    }
    return std::sqrt(num / std::max(den, 1e-300));
}

} // namespace

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
    CpuBackendOptions options;
    options.threads = argc > 2 ? std::max(0, std::atoi(argv[2])) : 0;
    const std::vector<Case> cases = {
        {"softmax [1536, 128]", "Softmax", {12 * 128, 128}},
        {"layernorm [128, 768]", "LayerNormalization", {128, 768}},
        {"layernorm [197, 768]", "LayerNormalization", {197, 768}},
        {"reducemean [2048, 49]", "ReduceMean", {2048, 49}},
        {"softmax [1, 1000]", "Softmax", {1, 1000}},
    };
    auto backend = createCpuBackend(options);
    std::printf("%-24s %12s %12s %8s %10s\n", "shape", "llvm-jit ms", "onednn ms", "ratio", "rel L2");
    int status = 0;
    for (const Case &c : cases) {
        const Graph g = graphOf(c);
        const ExecutionPlan plan = bench::oneNodePlan(g);
        std::mt19937 rng(1);
        const HostTensor input = bench::uniformInput(g, g.inputs[0], -4, 4, rng);
        auto jit = bench::compileWithEngines(*backend, g, plan, nullptr);
        auto dnnl = bench::compileWithEngines(*backend, g, plan, "onednn,copy");
        if (!jit || !dnnl) {
            std::fprintf(stderr, "bench_cpurows: %s\n", (!jit ? jit.status() : dnnl.status()).str().c_str());
            return 1;
        }
        std::vector<double> jitMs, dnnlMs;
        RunResult a, b;
        for (int r = 0; r < runs + 2; ++r) { // two warm-up runs each
            auto ra = backend->run(**jit, {input});
            auto rb = backend->run(**dnnl, {input});
            if (!ra || !rb) {
                std::fprintf(stderr, "bench_cpurows: %s\n", (!ra ? ra.status() : rb.status()).str().c_str());
                return 1;
            }
            if (ra->metrics["ops/llvm-jit"] != 1 || rb->metrics["ops/onednn"] != 1) {
                std::fprintf(stderr, "bench_cpurows: %s did not run on the engines compared\n", c.what.c_str());
                return 1;
            }
            if (r >= 2) {
                jitMs.push_back(ra->metrics["op_ms/llvm-jit"]);
                dnnlMs.push_back(rb->metrics["op_ms/onednn"]);
            }
            a = std::move(*ra);
            b = std::move(*rb);
        }
        const double err = relativeL2(a.outputs[0], b.outputs[0]);
        const double mj = bench::median(jitMs), md = bench::median(dnnlMs);
        std::printf("%-24s %12.4f %12.4f %8.2f %10.1e\n", c.what.c_str(), mj, md, mj / md, err);
        if (!(err < 1e-5))
            status = 1;
    }
    return status;
}
