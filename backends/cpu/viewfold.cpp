// Views an element-wise chain reads through strides (see lower.h ViewFold):
// which view nodes of a whole-tensor task fold into the chain reading them,
// and the index map each stack of them composes to. A folded view costs no
// copy and no storage: the chain's operand is the stack's source tensor at
// the composed strides, from the composed base element. lower.cpp defers
// the folded views and lowers any the chain does not take before their
// reader.
#include "backends/cpu/lower.h"

#include <algorithm>
#include <optional>

namespace tessera::cpu {

namespace {

// Where the elements of a tensor are: element base + Σ_d i_d · strides[d] of `source`.
struct IndexMap {
    TensorId source = kInvalidId;
    std::int64_t base = 0;
    std::vector<std::int64_t> strides; // per dim of the tensor
};

bool viewType(std::string_view t)
{
    return t == "Transpose" || t == "Slice" || t == "Reshape" || t == "Flatten" || t == "Squeeze" || t == "Unsqueeze" ||
           t == "Expand";
}

IndexMap rowMajorMap(const Graph &g, TensorId t)
{
    const Shape &s = g.tensor(t).shape;
    IndexMap m{t, 0, std::vector<std::int64_t>(s.size(), 1)};
    for (std::size_t d = s.size(); d-- > 1;)
        m.strides[d - 1] = m.strides[d] * s[d];
    return m;
}

// The strides over `y` of a reshape of `x` walked at `xs`: numpy's no-copy
// reshape — the dims of x (unit dims dropped) and of y are matched in groups
// of equal element count; a group of x's dims must be walked as one (each
// dim's stride its inner neighbour's times its extent), and y's dims of the
// group then walk it row-major from its innermost stride. Unit dims of y get
// stride 0 (never walked).
std::optional<std::vector<std::int64_t>> reshapeStrides(const Shape &x, const std::vector<std::int64_t> &xs,
                                                        const Shape &y)
{
    std::vector<std::int64_t> od, os;
    for (std::size_t d = 0; d < x.size(); ++d)
        if (x[d] != 1) {
            od.push_back(x[d]);
            os.push_back(xs[d]);
        }
    std::vector<std::int64_t> nd, where; // y's non-unit dims and their index in y
    for (std::size_t d = 0; d < y.size(); ++d)
        if (y[d] != 1) {
            nd.push_back(y[d]);
            where.push_back(static_cast<std::int64_t>(d));
        }
    std::vector<std::int64_t> ns(nd.size(), 0);
    std::size_t oi = 0, ni = 0;
    while (oi < od.size() && ni < nd.size()) {
        std::size_t oj = oi + 1, nj = ni + 1;
        std::int64_t op = od[oi], np = nd[ni];
        while (op != np) {
            if (np < op) {
                if (nj == nd.size())
                    return std::nullopt;
                np *= nd[nj++];
            } else {
                if (oj == od.size())
                    return std::nullopt;
                op *= od[oj++];
            }
        }
        for (std::size_t k = oi; k + 1 < oj; ++k)
            if (os[k] != os[k + 1] * od[k + 1])
                return std::nullopt;
        ns[nj - 1] = os[oj - 1];
        for (std::size_t k = nj - 1; k > ni; --k)
            ns[k - 1] = ns[k] * nd[k];
        oi = oj;
        ni = nj;
    }
    if (oi != od.size() || ni != nd.size())
        return std::nullopt;
    std::vector<std::int64_t> out(y.size(), 0);
    for (std::size_t k = 0; k < nd.size(); ++k)
        out[static_cast<std::size_t>(where[k])] = ns[k];
    return out;
}

// The map of view node n's output, its input read through `in`; none when
// the view does not map to strides over `in`.
std::optional<IndexMap> through(const Graph &g, const Constants &constants, const Node &n, const IndexMap &in)
{
    const Shape &x = g.tensor(n.inputs[0]).shape, &y = g.tensor(n.outputs[0]).shape;
    IndexMap out{in.source, in.base, std::vector<std::int64_t>(y.size(), 0)};
    if (n.opType == "Transpose") {
        std::vector<std::int64_t> perm = n.attrInts("perm");
        if (perm.empty())
            for (std::size_t d = x.size(); d-- > 0;)
                perm.push_back(static_cast<std::int64_t>(d));
        if (perm.size() != x.size() || y.size() != x.size())
            return std::nullopt;
        std::vector<bool> seen(x.size(), false);
        for (std::size_t d = 0; d < y.size(); ++d) {
            if (perm[d] < 0 || perm[d] >= static_cast<std::int64_t>(x.size()))
                return std::nullopt;
            const auto p = static_cast<std::size_t>(perm[d]);
            if (seen[p] || x[p] != y[d])
                return std::nullopt;
            seen[p] = true;
            out.strides[d] = in.strides[p];
        }
        return out;
    }
    if (n.opType == "Slice") {
        std::vector<std::int64_t> start, step;
        if (x.size() != y.size() || !sliceGeometry(g, n, constants, start, step).empty())
            return std::nullopt;
        for (std::size_t d = 0; d < y.size(); ++d) {
            out.base += start[d] * in.strides[d];
            if (y[d] == 1)
                continue; // never walked: any step
            out.strides[d] = in.strides[d] * step[d];
        }
        return out;
    }
    if (n.opType == "Expand") {
        if (y.size() < x.size())
            return std::nullopt;
        const std::size_t lead = y.size() - x.size();
        for (std::size_t d = 0; d < x.size(); ++d) {
            if (x[d] == y[lead + d])
                out.strides[lead + d] = y[lead + d] == 1 ? 0 : in.strides[d];
            else if (x[d] != 1)
                return std::nullopt;
        }
        return out;
    }
    // Reshape, Flatten, Squeeze, Unsqueeze: the same elements in the same order.
    if (numElements(x).value_or(-1) != numElements(y).value_or(-2))
        return std::nullopt;
    auto strides = reshapeStrides(x, in.strides, y);
    if (!strides)
        return std::nullopt;
    out.strides = std::move(*strides);
    return out;
}

bool isGraphOutput(const Graph &g, TensorId t)
{
    return std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
}

} // namespace

ViewFolds foldableViews(const Graph &g, const Constants &constants, const std::vector<NodeId> &kernelNodes)
{
    auto position = [&](NodeId n) {
        auto it = std::find(kernelNodes.begin(), kernelNodes.end(), n);
        return it == kernelNodes.end() ? -1 : static_cast<int>(it - kernelNodes.begin());
    };
    // S1, in kernel order: the map of each candidate view's output, composed
    // over its input's when that is a candidate too (the stack grows), else
    // over its input as stored. A view that does not compose over its
    // candidate input starts a stack of its own: the input is then lowered.
    std::map<TensorId, IndexMap> maps;
    std::map<TensorId, std::vector<std::size_t>> stacks;
    for (std::size_t pos = 0; pos < kernelNodes.size(); ++pos) {
        const Node &n = g.node(kernelNodes[pos]);
        if (!viewType(n.opType) || n.opaque || n.inputs.empty() || n.outputs.size() != 1 || n.inputs[0] == kInvalidId ||
            n.outputs[0] == kInvalidId)
            continue;
        const TensorId x = n.inputs[0], y = n.outputs[0];
        const Tensor &yt = g.tensor(y);
        if (g.tensor(x).dtype != DType::Float32 || yt.dtype != DType::Float32 || yt.consumers.size() != 1 ||
            isGraphOutput(g, y) || position(yt.consumers.front()) <= static_cast<int>(pos) ||
            numElements(yt.shape).value_or(0) <= 0)
            continue;
        std::optional<IndexMap> m;
        std::vector<std::size_t> stack;
        if (auto it = maps.find(x); it != maps.end()) {
            m = through(g, constants, n, it->second);
            if (m)
                stack = stacks[x];
            else
                maps.erase(it); // the input's stack ends unfolded: lowered, then read as stored
        }
        if (!m)
            m = through(g, constants, n, rowMajorMap(g, x));
        if (!m)
            continue;
        stack.push_back(pos);
        maps[y] = std::move(*m);
        stacks[y] = std::move(stack);
    }
    // S2: the stacks whose last view is read by a node joining a chain (a
    // view read by a candidate view is part of that one's stack).
    ViewFolds out;
    for (auto &[y, m] : maps) {
        const Node &reader = g.node(g.tensor(y).consumers.front());
        if (viewType(reader.opType) && reader.outputs.size() == 1 && maps.count(reader.outputs[0]))
            continue;
        if (!joinsChain(g, constants, reader))
            continue;
        out[y] = ViewFold{m.source, m.base, std::move(m.strides), std::move(stacks[y])};
    }
    return out;
}

} // namespace tessera::cpu
