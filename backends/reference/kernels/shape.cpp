// Shape (int64, with opset 15's start/end clamped as the spec says) and
// Constant (value, value_float(s), value_int(s)): outputs known at compile
// time, written into the tile at run time. Both read no input elements.
#include "backends/reference/kernel.h"

#include <algorithm>
#include <cstring>

namespace tessera::reference {

namespace {

// Writes a tile of a constant tensor held as packed bytes.
class ConstantKernel final : public NodeKernel
{
public:
    ConstantKernel(Shape shape, std::size_t size, std::vector<std::uint8_t> bytes)
        : m_shape(std::move(shape)), m_size(size), m_bytes(std::move(bytes))
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        for (const Run &run : contiguousRuns(r, m_shape))
            std::memcpy(a.out[0].data + static_cast<std::size_t>(run.offset) * m_size,
                        m_bytes.data() + static_cast<std::size_t>(run.offset) * m_size,
                        static_cast<std::size_t>(run.length) * m_size);
        return Status::ok();
    }

private:
    Shape m_shape;
    std::size_t m_size;
    std::vector<std::uint8_t> m_bytes;
};

template <typename T> std::vector<std::uint8_t> packed(const std::vector<T> &v)
{
    std::vector<std::uint8_t> b(v.size() * sizeof(T));
    if (!v.empty())
        std::memcpy(b.data(), v.data(), b.size());
    return b;
}

Expected<KernelPtr> makeShape(const Graph &g, const Node &n)
{
    const Shape &x = inTensor(g, n, 0).shape;
    const auto r = static_cast<std::int64_t>(x.size());
    auto clampAxis = [r](std::int64_t a) { return std::clamp(a < 0 ? a + r : a, std::int64_t{0}, r); };
    const std::int64_t start = clampAxis(n.attrInt("start", 0)), end = std::max(start, clampAxis(n.attrInt("end", r)));
    const std::vector<std::int64_t> dims(x.begin() + start, x.begin() + end);
    return KernelPtr(std::make_unique<ConstantKernel>(Shape{end - start}, 8, packed(dims)));
}

Expected<KernelPtr> makeConstant(const Graph &g, const Node &n)
{
    const Tensor &y = outTensor(g, n, 0);
    const std::size_t size = dtypeSize(y.dtype);
    std::vector<std::uint8_t> bytes;
    if (const Attribute *a = n.attr("value")) {
        const auto *t = std::get_if<std::shared_ptr<const TensorData>>(&a->value);
        if (!t || !*t || (*t)->isExternal())
            return unsupported(n, "value must be a tensor with inline data");
        bytes.assign((*t)->view().begin(), (*t)->view().end());
    } else if (n.attr("value_float")) {
        bytes = packed(std::vector<float>{static_cast<float>(n.attrFloat("value_float", 0))});
    } else if (const Attribute *fs = n.attr("value_floats")) {
        const auto *v = std::get_if<std::vector<double>>(&fs->value);
        std::vector<float> f;
        for (double d : v ? *v : std::vector<double>{})
            f.push_back(static_cast<float>(d));
        bytes = packed(f);
    } else if (n.attr("value_int")) {
        bytes = packed(std::vector<std::int64_t>{n.attrInt("value_int", 0)});
    } else if (n.attr("value_ints")) {
        bytes = packed(n.attrInts("value_ints"));
    } else {
        return unsupported(n, "only value, value_float(s) and value_int(s) are supported");
    }
    if (!isNumeric(y.dtype) || static_cast<std::int64_t>(bytes.size()) != y.bytes())
        return unsupported(n, "value holds " + std::to_string(bytes.size()) + " bytes, the output needs " +
                                  std::to_string(y.bytes()));
    return KernelPtr(std::make_unique<ConstantKernel>(y.shape, size, std::move(bytes)));
}

constexpr KernelEntry kKernels[] = {
    {"Constant", makeConstant},
    {"Shape", makeShape},
};

} // namespace

std::span<const KernelEntry> shapeKernels()
{
    return kKernels;
}

} // namespace tessera::reference
