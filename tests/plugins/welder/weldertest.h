// Fixtures shared by the Welder tests: the paper's example graphs and the device presets.
#pragma once

#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"

#include <gtest/gtest.h>
#include <string>

#include "tests/common/testgraphs.h"

namespace tessera::weldertest {

inline const Device &device(const std::string &id)
{
    static std::map<std::string, Device> cache;
    auto it = cache.find(id);
    if (it == cache.end()) {
        auto d = DeviceRegistry::standard().lookup(id);
        EXPECT_TRUE(d.isOk()) << d.status().str();
        it = cache.emplace(id, *d).first;
    }
    return it->second;
}

// §2 / Fig. 2: C = A[rows×64] · B[64×128], D = Softmax(C) along the last axis, FP32.
inline Graph matmulSoftmax(std::int64_t rows)
{
    using namespace testgraphs;
    Graph g;
    g.name = "matmul_softmax";
    const TensorId a = tensor(g, "A", {rows, 64}, Tensor::Kind::Input);
    g.inputs = {a};
    const TensorId c = op(g, "matmul", "MatMul", {a, weight(g, "B", {64, 128})}, {rows, 128});
    g.outputs = {op(g, "softmax", "Softmax", {c}, {rows, 128}, {{"axis", {std::int64_t{-1}}}})};
    return g;
}

// Fig. 4 / Fig. 5: Conv 3×3 (pad 1) → ReLU → MaxPool 2×2 stride 2, NCHW.
inline Graph convReluPool(std::int64_t c, std::int64_t f, std::int64_t hw)
{
    using namespace testgraphs;
    Graph g;
    g.name = "conv_relu_pool";
    const TensorId x = tensor(g, "x", {1, c, hw, hw}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId y =
        op(g, "conv", "Conv", {x, weight(g, "w", {f, c, 3, 3})}, {1, f, hw, hw},
           {{"kernel_shape", {std::vector<std::int64_t>{3, 3}}}, {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}});
    const TensorId r = op(g, "relu", "Relu", {y}, {1, f, hw, hw});
    g.outputs = {
        op(g, "pool", "MaxPool", {r}, {1, f, hw / 2, hw / 2},
           {{"kernel_shape", {std::vector<std::int64_t>{2, 2}}}, {"strides", {std::vector<std::int64_t>{2, 2}}}})};
    return g;
}

// Relu → MaxPool with a 128×128 window (stride 1) over [1×1×160×160]: one output needs 64 KiB.
inline Graph hugeWindowPool()
{
    using namespace testgraphs;
    Graph g;
    g.name = "huge_window_pool";
    const TensorId x = tensor(g, "x", {1, 1, 160, 160}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId r = op(g, "relu", "Relu", {x}, {1, 1, 160, 160});
    g.outputs = {
        op(g, "pool", "MaxPool", {r}, {1, 1, 33, 33}, {{"kernel_shape", {std::vector<std::int64_t>{128, 128}}}})};
    return g;
}

// §5.2 separable convolutions: x → dw1 (3×3 depthwise) → pw1 (1×1) → dw2 → pw2, C channels, hw×hw.
inline Graph separable(std::int64_t c, std::int64_t hw)
{
    using namespace testgraphs;
    Graph g;
    g.name = "separable";
    TensorId t = tensor(g, "x", {1, c, hw, hw}, Tensor::Kind::Input);
    g.inputs = {t};
    for (int i = 1; i <= 2; ++i) {
        const std::string n = std::to_string(i);
        t = op(g, "dw" + n, "Conv", {t, weight(g, "dw" + n + "/w", {c, 1, 3, 3})}, {1, c, hw, hw},
               {{"kernel_shape", {std::vector<std::int64_t>{3, 3}}},
                {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}},
                {"group", {c}}});
        t = op(g, "pw" + n, "Conv", {t, weight(g, "pw" + n + "/w", {c, c, 1, 1})}, {1, c, hw, hw},
               {{"kernel_shape", {std::vector<std::int64_t>{1, 1}}}});
    }
    g.outputs = {t};
    return g;
}

} // namespace tessera::weldertest
