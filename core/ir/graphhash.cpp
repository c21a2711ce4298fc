#include "core/ir/graphhash.h"

#include <cstdio>

namespace tessera {

namespace {
class Fnv
{
public:
    void bytes(const void *p, std::size_t n)
    {
        const auto *c = static_cast<const unsigned char *>(p);
        for (std::size_t i = 0; i < n; ++i) {
            m_h ^= c[i];
            m_h *= 0x100000001b3ULL;
        }
    }
    void str(const std::string &s)
    {
        bytes(s.data(), s.size());
        bytes("\0", 1);
    }
    void i64(std::int64_t v) { bytes(&v, sizeof v); }
    std::uint64_t value() const { return m_h; }

private:
    std::uint64_t m_h = 0xcbf29ce484222325ULL;
};
} // namespace

std::string modelStructureHash(const Graph &g)
{
    Fnv h;
    auto tensor = [&](TensorId id) {
        if (id == kInvalidId) {
            h.str("-");
            return;
        }
        const Tensor &t = g.tensor(id);
        h.str(t.name);
        h.i64(static_cast<std::int64_t>(t.dtype));
        h.i64(static_cast<std::int64_t>(t.shape.size()));
        for (auto d : t.shape)
            h.i64(d);
    };
    for (TensorId t : g.inputs)
        tensor(t);
    for (const Node &n : g.nodes()) {
        h.str(n.name);
        h.str(n.domain);
        h.str(n.opType);
        for (const auto &[k, a] : n.attrs) {
            h.str(k);
            h.str(a.str());
        }
        for (TensorId t : n.inputs)
            tensor(t);
        for (TensorId t : n.outputs)
            tensor(t);
    }
    for (TensorId t : g.outputs)
        tensor(t);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h.value()));
    return hex;
}

} // namespace tessera
