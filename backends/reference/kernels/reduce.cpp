// ReduceMean and ReduceSum on float32 (ONNX -13, axes from the constant `axes`
// input or the attribute, keepdims, noop_with_empty_axes).
//
// Each output element sums its reduced box in row-major order in double and
// rounds once (ReduceMean divides by the box's element count first).
#include "backends/reference/kernel.h"

namespace tessera::reference {

namespace {

class ReduceKernel final : public NodeKernel
{
public:
    ReduceKernel(const Shape &x, const std::vector<bool> &reduced, bool keepdims, bool mean) : m_mean(mean)
    {
        const auto st = stridesOf(x);
        ops::Region box;
        Shape boxShape;
        for (std::size_t d = 0; d < x.size(); ++d) {
            if (reduced[d]) {
                box.push_back({0, x[d]});
                if (keepdims)
                    m_outToIn.push_back(0); // a kept extent-1 dim
            } else {
                box.push_back({0, 1});
                m_outToIn.push_back(st[d]);
            }
        }
        forEachIndex(box, [&](std::span<const std::int64_t> idx) { m_offsets.push_back(dot(idx, st)); });
    }

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>();
        float *y = a.out[0].as<float>();
        const auto yStrides = stridesOf(*a.out[0].shape);
        const double count = static_cast<double>(m_offsets.size());
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            const float *xb = x + dot(idx, m_outToIn);
            double sum = 0;
            for (std::int64_t off : m_offsets)
                sum += xb[off];
            y[dot(idx, yStrides)] = static_cast<float>(m_mean ? sum / count : sum);
        });
        return Status::ok();
    }

private:
    bool m_mean;
    std::vector<std::int64_t> m_outToIn; // input stride of every output dim
    std::vector<std::int64_t> m_offsets; // the reduced box, relative to its first element
};

Expected<KernelPtr> makeReduce(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    const Shape &x = inTensor(g, n, 0).shape;
    std::vector<std::int64_t> axes = n.attrInts("axes");
    if (hasInput(n, 1)) {
        auto v = constInts(g, n, 1);
        if (!v)
            return v.status();
        axes = std::move(*v);
    }
    const bool noop = n.attrInt("noop_with_empty_axes", 0) != 0;
    std::vector<bool> reduced(x.size(), axes.empty() && !noop);
    for (std::int64_t a : axes) {
        auto d = normAxis(n, a, static_cast<std::int64_t>(x.size()));
        if (!d)
            return d.status();
        reduced[static_cast<std::size_t>(*d)] = true;
    }
    return KernelPtr(
        std::make_unique<ReduceKernel>(x, reduced, n.attrInt("keepdims", 1) != 0, n.opType == "ReduceMean"));
}

constexpr KernelEntry kKernels[] = {
    {"ReduceMean", makeReduce},
    {"ReduceSum", makeReduce},
};

} // namespace

std::span<const KernelEntry> reduceKernels()
{
    return kKernels;
}

} // namespace tessera::reference
