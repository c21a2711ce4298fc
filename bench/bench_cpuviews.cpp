// bench_cpuviews: views folded into the LLVM element-wise chain that reads
// them (backends/cpu/viewfold.cpp) against the same view lowered where it
// stands (a copy, or the reference kernel for Expand) before the chain, in
// one process: each case is a two-node graph (view, then an element-wise op)
// compiled as one kernel twice by the CPU backend — as it compiles by default
// and with TESSERA_CPU_FOLD_VIEWS=0 — and run alternately. Printed per case:
// the median time of the kernel's ops (the sum of the run's op_ms/<engine>
// metrics: the ops alone, without the run's dispatch) and of the run (wall),
// each setting's, their ratios (folded / not; under 1 folding is faster),
// and the relative L2 between the two outputs.
//
// Cases: Transpose [1,128,12,64] by (0,2,1,3) then Add of a full-size input
// and Mul by a constant (BERT-base's heads at sequence 128); Transpose
// [1,64,56,56] to channels-last (the innermost dim read 3136 elements apart)
// then Add; Expand of a [1,1,128,128] mask to 12 heads then Add (attention
// scores); Slice of [1,197,768] from row 1 then Add (ViT's patch tokens
// without the class token).
//
// Guard: exits 1 when the two outputs differ by a relative L2 of 1e-6 or more,
// 2 when the default compile did not fold the view.
//
// Usage: bench_cpuviews [runs=50] [threads=0 (the host's cores)]
// Links: tessera_backend_cpu (bench/onenode.h).
#include "backends/cpu/cpu.h"
#include "core/backend/outputcheck.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/onenode.h"

using namespace tessera;

namespace {

using Ints = std::vector<std::int64_t>;

// A tensor of g; constant when `data` holds its bytes.
TensorId tensorOf(Graph &g, const std::string &name, const Shape &shape, DType dtype, std::vector<std::uint8_t> data)
{
    Tensor t;
    t.name = name;
    t.shape = shape;
    t.dtype = dtype;
    t.kind = data.empty() ? Tensor::Kind::Intermediate : Tensor::Kind::Initializer;
    if (!data.empty()) {
        auto d = std::make_shared<TensorData>();
        d->dtype = dtype;
        d->shape = shape;
        d->bytes = std::move(data);
        t.data = std::move(d);
    }
    return g.addTensor(std::move(t));
}

TensorId int64s(Graph &g, const std::string &name, const Ints &v)
{
    std::vector<std::uint8_t> bytes(v.size() * 8);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return tensorOf(g, name, {static_cast<std::int64_t>(v.size())}, DType::Int64, std::move(bytes));
}

TensorId nodeOf(Graph &g, const std::string &opType, std::vector<TensorId> inputs, const Shape &out, AttrMap attrs = {})
{
    Node n;
    n.name = opType;
    n.opType = opType;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    n.outputs = {tensorOf(g, opType + ":0", out, DType::Float32, {})};
    const TensorId y = n.outputs[0];
    g.addNode(std::move(n));
    return y;
}

struct Case {
    std::string what, label; // the folded op's label
    Graph graph;
};

// x -> view -> op(view, other); `other` is an input of `out`'s shape, or a
// constant scalar when `scalar`.
Case makeCase(const std::string &what, const std::string &view, const Shape &in, const Shape &out,
              const std::string &opType, bool scalar,
              const std::function<TensorId(Graph &, TensorId)> &addView = nullptr)
{
    Case c{what, "llvm-jit:" + view + "+" + opType, Graph{}};
    Graph &g = c.graph;
    g.name = what;
    g.opsetVersion = 17;
    const TensorId x = tensorOf(g, "x", in, DType::Float32, {});
    g.tensor(x).kind = Tensor::Kind::Input;
    g.inputs = {x};
    TensorId other;
    if (scalar) {
        const float v = 0.125f;
        std::vector<std::uint8_t> bytes(4);
        std::memcpy(bytes.data(), &v, 4);
        other = tensorOf(g, "scale", {1}, DType::Float32, std::move(bytes));
    } else {
        other = tensorOf(g, "y", out, DType::Float32, {});
        g.tensor(other).kind = Tensor::Kind::Input;
        g.inputs.push_back(other);
    }
    const TensorId v = addView(g, x);
    g.outputs = {nodeOf(g, opType, {v, other}, out)};
    return c;
}

// A run's time in its ops (the op_ms/<engine> metrics summed), and whether
// some kernel ran an op labelled `label`.
std::pair<double, bool> opMsAndLabel(const RunResult &r, const std::string &label)
{
    std::pair<double, bool> out{0, false};
    for (const auto &[key, value] : r.metrics) {
        out.first += key.rfind("op_ms/", 0) == 0 ? value : 0;
        out.second = out.second || (key.rfind("kernel/", 0) == 0 && key.find(label) != std::string::npos);
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
    CpuBackendOptions options;
    options.threads = argc > 2 ? std::max(0, std::atoi(argv[2])) : 0;
    const Shape heads{1, 128, 12, 64}, tokens{1, 12, 128, 64};
    auto transpose = [&](Graph &g, TensorId x) {
        return nodeOf(g, "Transpose", {x}, tokens, {{"perm", {Ints{0, 2, 1, 3}}}});
    };
    std::vector<Case> cases;
    cases.push_back(makeCase("transpose + add", "Transpose", heads, tokens, "Add", false, transpose));
    cases.push_back(makeCase("transpose * const", "Transpose", heads, tokens, "Mul", true, transpose));
    cases.push_back(makeCase("nchw to nhwc + add", "Transpose", {1, 64, 56, 56}, {1, 56, 56, 64}, "Add", false,
                             [](Graph &g, TensorId x) {
                                 return nodeOf(g, "Transpose", {x}, {1, 56, 56, 64}, {{"perm", {Ints{0, 2, 3, 1}}}});
                             }));
    cases.push_back(makeCase(
        "expand mask + add", "Expand", {1, 1, 128, 128}, {1, 12, 128, 128}, "Add", false, [](Graph &g, TensorId x) {
            return nodeOf(g, "Expand", {x, int64s(g, "shape", {1, 12, 128, 128})}, {1, 12, 128, 128});
        }));
    cases.push_back(
        makeCase("slice rows + add", "Slice", {1, 197, 768}, {1, 196, 768}, "Add", false, [](Graph &g, TensorId x) {
            return nodeOf(g, "Slice", {x, int64s(g, "starts", {1}), int64s(g, "ends", {197}), int64s(g, "axes", {1})},
                          {1, 196, 768});
        }));

    auto backend = createCpuBackend(options);
    std::printf("%d runs each, alternating; ms = median per run\n", runs);
    std::printf("%-20s %10s %10s %7s %10s %10s %7s %9s\n", "case", "ops fold", "ops copy", "ratio", "wall fold",
                "wall copy", "ratio", "rel L2");
    int status = 0;
    for (const Case &c : cases) {
        const Graph &g = c.graph;
        const ExecutionPlan plan = bench::oneKernelPlan(g, {0, 1});
        std::mt19937 rng(1);
        std::vector<HostTensor> inputs;
        for (TensorId x : g.inputs)
            inputs.push_back(bench::uniformInput(g, x, -1, 1, rng));
        auto folded = bench::compileWithEnv(*backend, g, plan, "TESSERA_CPU_FOLD_VIEWS", nullptr);
        auto copied = bench::compileWithEnv(*backend, g, plan, "TESSERA_CPU_FOLD_VIEWS", "0");
        if (!folded || !copied) {
            std::fprintf(stderr, "bench_cpuviews: %s\n", (!folded ? folded.status() : copied.status()).str().c_str());
            return 1;
        }
        std::vector<double> opsA, opsB, wallA, wallB;
        RunResult a, b;
        for (int r = 0; r < runs + 2; ++r) { // two warm-up runs each
            auto ra = backend->run(**folded, inputs);
            auto rb = backend->run(**copied, inputs);
            if (!ra || !rb) {
                std::fprintf(stderr, "bench_cpuviews: %s\n", (!ra ? ra.status() : rb.status()).str().c_str());
                return 1;
            }
            if (r >= 2) {
                opsA.push_back(opMsAndLabel(*ra, c.label).first);
                opsB.push_back(opMsAndLabel(*rb, c.label).first);
                wallA.push_back(ra->latencyMs);
                wallB.push_back(rb->latencyMs);
            }
            a = std::move(*ra);
            b = std::move(*rb);
        }
        if (!opMsAndLabel(a, c.label).second) {
            std::fprintf(stderr, "bench_cpuviews: %s did not run as %s\n", c.what.c_str(), c.label.c_str());
            status = 2;
        }
        const double err = relativeL2(a.outputs[0], b.outputs[0]);
        const double oa = bench::median(opsA), ob = bench::median(opsB), wa = bench::median(wallA),
                     wb = bench::median(wallB);
        std::printf("%-20s %10.4f %10.4f %7.2f %10.4f %10.4f %7.2f %9.1e\n", c.what.c_str(), oa, ob, oa / ob, wa, wb,
                    wa / wb, err);
        if (!(err < 1e-6) && status == 0)
            status = 1;
    }
    return status;
}
