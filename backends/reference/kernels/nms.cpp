// NonMaxSuppression (semantics and selection in core/ops/nms.{h,cpp}): the
// kernel reruns ops::nonMaxSuppression on the run-time values of its inputs
// (the constants shape inference used) and writes the tile's rows of
// selected_indices; a selection of another size than the output's (inputs
// that changed since compile time) is a run-time error naming the node.
#include "core/ops/nms.h"

#include "backends/reference/kernel.h"

namespace tessera::reference {

namespace {

class NmsKernel final : public NodeKernel
{
public:
    NmsKernel(const Graph &g, const Node &n, ops::NmsParams p) : m_name(n.name), m_p(p)
    {
        for (std::size_t i = 0; i < 5; ++i)
            m_types.push_back(hasInput(n, i) ? inTensor(g, n, i).dtype : DType::Undefined);
        m_rows = outTensor(g, n, 0).shape[0];
    }

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        auto values = [&](std::size_t i, std::int64_t count) {
            std::vector<double> v(static_cast<std::size_t>(count));
            for (std::int64_t k = 0; k < count; ++k)
                v[static_cast<std::size_t>(k)] = loadNumber(m_types[i], a.in[i].data, k);
            return v;
        };
        ops::NmsParams p = m_p;
        auto scalar = [&](std::size_t i) -> std::optional<double> {
            if (i >= a.in.size() || !a.in[i].present())
                return std::nullopt;
            return loadNumber(m_types[i], a.in[i].data, 0);
        };
        if (auto v = scalar(2))
            p.maxPerClass = static_cast<std::int64_t>(std::min(*v, 9.0e15));
        if (auto v = scalar(3))
            p.iouThreshold = *v;
        p.scoreThreshold = scalar(4);
        const auto sel =
            ops::nonMaxSuppression(p, values(0, p.batches * p.boxes * 4), values(1, p.batches * p.classes * p.boxes));
        if (static_cast<std::int64_t>(sel.size()) != m_rows)
            return Status::invalid("nonmaxsuppression: " + std::to_string(sel.size()) +
                                       " boxes selected, the output was sized for " + std::to_string(m_rows),
                                   {.node = m_name});
        std::int64_t *y = a.out[0].as<std::int64_t>();
        forEachIndex(r, [&](std::span<const std::int64_t> i) {
            y[i[0] * 3 + i[1]] = sel[static_cast<std::size_t>(i[0])][static_cast<std::size_t>(i[1])];
        });
        return Status::ok();
    }

private:
    std::string m_name;
    ops::NmsParams m_p;
    std::vector<DType> m_types;
    std::int64_t m_rows = 0;
};

Expected<KernelPtr> makeNms(const Graph &g, const Node &n)
{
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
        if (hasInput(n, i) && !isNumeric(inTensor(g, n, i).dtype))
            return unsupported(n,
                               "element type " + std::string(dtypeName(inTensor(g, n, i).dtype)) + " is not supported");
    const Shape &b = inTensor(g, n, 0).shape, &s = inTensor(g, n, 1).shape;
    ops::NmsParams p{.batches = b[0], .classes = s[1], .boxes = b[1]};
    p.centerPointBox = n.attrInt("center_point_box", 0) != 0;
    return KernelPtr(std::make_unique<NmsKernel>(g, n, p));
}

constexpr KernelEntry kKernels[] = {
    {"NonMaxSuppression", makeNms},
};

} // namespace

std::span<const KernelEntry> nmsKernels()
{
    return kKernels;
}

} // namespace tessera::reference
