// Unique (semantics and selection in core/ops/unique.{h,cpp}): the kernel
// reruns ops::uniqueOf on X's run-time values (the constant shape inference
// used) and writes the tile of the output asked for: Y gathers the unique
// slices, indices/inverse_indices/counts copy the selection. A selection of
// another size than the outputs' is a run-time error naming the node.
#include "core/ops/unique.h"

#include "backends/reference/kernel.h"

#include <cstring>

namespace tessera::reference {

namespace {

class UniqueKernel final : public NodeKernel
{
public:
    UniqueKernel(const Graph &g, const Node &n, std::optional<std::int64_t> axis)
        : m_name(n.name), m_x(inTensor(g, n, 0).shape), m_type(inTensor(g, n, 0).dtype), m_axis(axis),
          m_sorted(n.attrInt("sorted", 1) != 0)
    {
        for (TensorId t : n.outputs)
            m_outs.push_back(t == kInvalidId ? Shape{} : g.tensor(t).shape);
    }

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        const std::int64_t count = numElements(m_x).value_or(0);
        std::vector<double> x(static_cast<std::size_t>(count));
        for (std::int64_t i = 0; i < count; ++i)
            x[static_cast<std::size_t>(i)] = loadNumber(m_type, a.in[0].data, i);
        const ops::UniqueResult u = ops::uniqueOf(x, m_x, m_axis, m_sorted);
        const auto k = static_cast<std::int64_t>(u.first.size());
        const Shape &y = m_outs[static_cast<std::size_t>(output)];
        if ((output != 2 && (output == 0 && m_axis ? y[static_cast<std::size_t>(*m_axis)] : y[0]) != k))
            return Status::invalid(
                "unique: " + std::to_string(k) + " unique values, the outputs were sized for " +
                    std::to_string(output == 0 && m_axis ? y[static_cast<std::size_t>(*m_axis)] : y[0]),
                {.node = m_name});
        const auto ys = stridesOf(y);
        forEachIndex(r, [&](std::span<const std::int64_t> i) {
            const std::int64_t off = dot(i, ys);
            if (output == 0) { // copy element i of Y from its slice's first occurrence
                std::vector<std::int64_t> from(i.begin(), i.end());
                const std::size_t d = m_axis ? static_cast<std::size_t>(*m_axis) : 0;
                from[d] = u.first[static_cast<std::size_t>(i[d])];
                const std::size_t size = dtypeSize(m_type);
                std::memcpy(a.out[0].data + off * static_cast<std::int64_t>(size),
                            a.in[0].data + dot(from, m_axis ? stridesOf(m_x) : std::vector<std::int64_t>{1}) *
                                               static_cast<std::int64_t>(size),
                            size);
                return;
            }
            const std::vector<std::int64_t> &v = output == 1 ? u.first : output == 2 ? u.inverse : u.counts;
            storeNumber(DType::Int64, a.out[static_cast<std::size_t>(output)].data, off,
                        static_cast<double>(v[static_cast<std::size_t>(i[0])]));
        });
        return Status::ok();
    }

private:
    std::string m_name;
    Shape m_x;
    DType m_type;
    std::optional<std::int64_t> m_axis;
    bool m_sorted;
    std::vector<Shape> m_outs;
};

Expected<KernelPtr> makeUnique(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    if (!isNumeric(x.dtype))
        return unsupported(n, "element type " + std::string(dtypeName(x.dtype)) + " is not supported");
    std::optional<std::int64_t> axis;
    if (n.attr("axis")) {
        auto ax = normAxis(n, n.attrInt("axis", 0), static_cast<std::int64_t>(x.shape.size()));
        if (!ax)
            return ax.status();
        axis = *ax;
    }
    return KernelPtr(std::make_unique<UniqueKernel>(g, n, axis));
}

constexpr KernelEntry kKernels[] = {
    {"Unique", makeUnique},
};

} // namespace

std::span<const KernelEntry> uniqueKernels()
{
    return kKernels;
}

} // namespace tessera::reference
