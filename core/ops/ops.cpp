// The public face of core/ops: looks an op up in the table assembled from the
// family files, runs the checks every op shares (domain, arity, attribute
// kinds, input shapes, output extents, tile bounds) and dispatches. Family
// code (conv.cpp, pool.cpp, ...) may therefore assume well-formed shapes.
//
// Conventions fixed here for every op:
//  - bytesRead counts each distinct input tensor once, bytesWritten each
//    output, with the graph's current shapes; FLOPs come from the family and
//    are 0 for a node whose shapes do not infer.
//  - An empty output tile needs nothing: every input region of rank >= 1 is
//    all [0, 0). A rank-0 input's region is always {} (its one element).
//  - Inputs an output does not read (shape/value inputs, or inputs of other
//    outputs) are used=false with an all-[0, 0) region ({} if omitted).
#include "core/ops/ops.h"

#include "core/ops/indexmap.h"
#include "core/ops/opdef.h"
#include "core/support/assert.h"

#include <algorithm>
#include <limits>

namespace tessera::ops {

using namespace detail;

namespace detail {
std::span<const OpDef> spectralOps(); // spectral.cpp (declared here, not in opdef.h, which every family includes)
} // namespace detail

namespace {

const std::vector<OpDef> &table()
{
    static const std::vector<OpDef> t = [] {
        std::vector<OpDef> all;
        for (auto family : {convOps(), poolOps(), elementwiseOps(), mathOps(), indexedOps(), lossOps(), matmulOps(),
                            normOps(), reduceOps(), shapeOps(), movementOps(), resizeOps(), quantOps(), recurrentOps(),
                            einsumOps(), nmsOps(), uniqueOps(), tfidfOps(), spectralOps()})
            all.insert(all.end(), family.begin(), family.end());
        std::sort(all.begin(), all.end(), [](const OpDef &a, const OpDef &b) { return a.type < b.type; });
        for (std::size_t i = 1; i < all.size(); ++i)
            TS_ASSERT_MSG(all[i - 1].type != all[i].type, "op registered twice");
        return all;
    }();
    return t;
}

const OpDef *findOp(std::string_view type)
{
    const auto &t = table();
    auto it = std::lower_bound(t.begin(), t.end(), type, [](const OpDef &d, std::string_view s) { return d.type < s; });
    return it != t.end() && it->type == type ? &*it : nullptr;
}

std::string_view kindName(Attribute::Kind k)
{
    switch (k) {
    case Attribute::Kind::Int: return "an int";
    case Attribute::Kind::Float: return "a float";
    case Attribute::Kind::String: return "a string";
    case Attribute::Kind::Ints: return "ints";
    case Attribute::Kind::Floats: return "floats";
    case Attribute::Kind::Strings: return "strings";
    case Attribute::Kind::Tensor: return "a tensor";
    }
    return "?";
}

// Everything checked before a family function runs.
Status precheck(const OpDef *def, const OpContext &c)
{
    const Node &n = c.n;
    if (!def) {
        std::string names;
        for (auto k : knownOps())
            names += (names.empty() ? "" : ", ") + std::string(k);
        return Status::error(ErrorCode::Unsupported, "unknown op '" + n.opType + "'; known ops: " + names,
                             {.node = n.name});
    }
    if (!n.domain.empty() && n.domain != "ai.onnx")
        return Status::error(ErrorCode::Unsupported, c.prefix + ": domain '" + n.domain + "' is not the onnx domain",
                             {.node = n.name});
    const auto ins = static_cast<int>(n.inputs.size()), outs = static_cast<int>(n.outputs.size());
    if (ins < def->minInputs || (def->maxInputs >= 0 && ins > def->maxInputs))
        return c.fail("has " + std::to_string(ins) + " inputs, expected " + std::to_string(def->minInputs) +
                      (def->maxInputs == def->minInputs ? std::string()
                       : def->maxInputs < 0             ? " or more"
                                                        : " to " + std::to_string(def->maxInputs)));
    if (outs < def->minOutputs || outs > def->maxOutputs)
        return c.fail("has " + std::to_string(outs) + " outputs, expected " + std::to_string(def->minOutputs) +
                      (def->maxOutputs == def->minOutputs ? std::string() : " to " + std::to_string(def->maxOutputs)));
    for (int i = 0; i < ins; ++i) {
        if (n.inputs[static_cast<std::size_t>(i)] == kInvalidId) {
            if (i < def->minInputs)
                return c.fail("required input " + std::to_string(i) + " is missing");
            continue;
        }
        if (n.inputs[static_cast<std::size_t>(i)] < 0 ||
            static_cast<std::size_t>(n.inputs[static_cast<std::size_t>(i)]) >= c.g.tensorCount())
            return c.fail("input " + std::to_string(i) + " refers to no tensor");
        const Shape &s = c.shape(static_cast<std::size_t>(i));
        if (!numElements(s) || std::any_of(s.begin(), s.end(), [](std::int64_t d) { return d > kMaxExtent; }))
            return c.failAt(static_cast<std::size_t>(i),
                            "input " + std::to_string(i) + " has an invalid shape " + dimsStr(s));
    }
    for (const AttrSpec &spec : def->attrs) {
        const Attribute *a = n.attr(spec.name);
        if (a && a->kind() != spec.kind && !(spec.kind == Attribute::Kind::Float && a->kind() == Attribute::Kind::Int))
            return c.fail("attribute '" + std::string(spec.name) + "' is " + std::string(kindName(a->kind())) +
                          ", expected " + std::string(kindName(spec.kind)));
    }
    return Status::ok();
}

Status runInfer(const OpDef *def, OpContext &c)
{
    TS_TRY(precheck(def, c));
    std::vector<TensorType> outs;
    TS_TRY(def->infer(c, outs));
    TS_ASSERT_MSG(outs.size() == c.n.outputs.size(), "infer must type every node output");
    for (std::size_t i = 0; i < outs.size(); ++i) {
        const Shape &s = outs[i].shape;
        if (!numElements(s) || std::any_of(s.begin(), s.end(), [](std::int64_t d) { return d > kMaxExtent; }))
            return c.fail("output " + std::to_string(i) + " shape " + dimsStr(s) + " is negative or too large");
    }
    c.outs = std::move(outs);
    return Status::ok();
}

std::string tileStr(const Region &r)
{
    std::string s = "[";
    for (std::size_t i = 0; i < r.size(); ++i)
        s += (i ? ", " : "") + std::to_string(r[i].begin) + ":" + std::to_string(r[i].end);
    return s + "]";
}

} // namespace

Region fullRegion(const Shape &shape)
{
    Region r;
    for (auto d : shape)
        r.push_back({0, d});
    return r;
}

std::int64_t regionElements(const Region &r)
{
    std::int64_t n = 1;
    for (const Interval &i : r)
        n *= i.size();
    return n;
}

bool isKnownOp(std::string_view opType)
{
    return findOp(opType) != nullptr;
}

std::vector<std::string_view> knownOps()
{
    std::vector<std::string_view> names;
    for (const OpDef &d : table())
        names.push_back(d.type);
    return names;
}

Status inferShapes(const Graph &g, const Node &n, std::vector<TensorType> &outputs)
{
    OpContext c(g, n);
    TS_TRY(runInfer(findOp(n.opType), c));
    outputs = std::move(c.outs);
    return Status::ok();
}

OpCost opCost(const Graph &g, const Node &n)
{
    OpCost cost;
    std::vector<TensorId> seen;
    for (TensorId t : n.inputs)
        if (t >= 0 && static_cast<std::size_t>(t) < g.tensorCount() &&
            std::find(seen.begin(), seen.end(), t) == seen.end()) {
            seen.push_back(t);
            cost.bytesRead =
                addChecked(cost.bytesRead, g.tensor(t).bytes()).value_or(std::numeric_limits<std::int64_t>::max());
        }
    for (TensorId t : n.outputs)
        if (t >= 0 && static_cast<std::size_t>(t) < g.tensorCount())
            cost.bytesWritten =
                addChecked(cost.bytesWritten, g.tensor(t).bytes()).value_or(std::numeric_limits<std::int64_t>::max());
    const OpDef *def = findOp(n.opType);
    OpContext c(g, n);
    if (runInfer(def, c).isOk())
        cost.flops = def->flops(c);
    return cost;
}

namespace {

// inputRegions after a successful runInfer(def, c).
Expected<std::vector<InputRegion>> regionsOf(const OpDef *def, const OpContext &c, int outputIndex,
                                             const Region &outTile)
{
    const Node &n = c.n;
    if (outputIndex < 0 || static_cast<std::size_t>(outputIndex) >= c.outs.size())
        return Status::error(ErrorCode::Usage,
                             c.prefix + ": output index " + std::to_string(outputIndex) +
                                 " is out of range, node has " + std::to_string(c.outs.size()) + " outputs",
                             {.node = n.name});
    const Shape &os = c.outs[static_cast<std::size_t>(outputIndex)].shape;
    bool fits = outTile.size() == os.size();
    for (std::size_t d = 0; fits && d < os.size(); ++d)
        fits = outTile[d].begin >= 0 && outTile[d].begin <= outTile[d].end && outTile[d].end <= os[d];
    if (!fits)
        return Status::error(ErrorCode::Usage,
                             c.prefix + ": output tile " + tileStr(outTile) + " does not fit output shape " +
                                 dimsStr(os),
                             {.node = n.name});

    std::vector<InputRegion> in(n.inputs.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        in[i].used = false;
        if (c.has(i))
            in[i].region = in[i].clipped = Region(c.shape(i).size());
    }
    TS_TRY(def->regions(c, outputIndex, outTile, in));
    const bool emptyTile = std::any_of(outTile.begin(), outTile.end(), [](const Interval &i) { return i.empty(); });
    for (std::size_t i = 0; i < in.size(); ++i) {
        InputRegion &r = in[i];
        TS_ASSERT_MSG(!c.has(i) || r.region.size() == c.shape(i).size(), "region rank differs from input rank");
        TS_ASSERT(r.clipped.size() == r.region.size());
        if (emptyTile || !r.used)
            std::fill(r.region.begin(), r.region.end(), Interval{}),
                std::fill(r.clipped.begin(), r.clipped.end(), Interval{});
        canonicalize(r);
    }
    return in;
}

} // namespace

Expected<std::vector<InputRegion>> inputRegions(const Graph &g, const Node &n, int outputIndex, const Region &outTile)
{
    const OpDef *def = findOp(n.opType);
    OpContext c(g, n);
    TS_TRY(runInfer(def, c));
    return regionsOf(def, c, outputIndex, outTile);
}

struct NodeIndexMap::State {
    State(const Graph &g, const Node &n) : def(findOp(n.opType)), c(g, n), inferred(runInfer(def, c)) {}
    const OpDef *def;
    OpContext c;
    Status inferred;
};

NodeIndexMap::NodeIndexMap(const Graph &g, const Node &n) : m_state(std::make_unique<State>(g, n)) {}
NodeIndexMap::~NodeIndexMap() = default;
NodeIndexMap::NodeIndexMap(NodeIndexMap &&) noexcept = default;
NodeIndexMap &NodeIndexMap::operator=(NodeIndexMap &&) noexcept = default;

Expected<std::vector<InputRegion>> NodeIndexMap::inputRegions(int outputIndex, const Region &outTile) const
{
    if (!m_state->inferred.isOk())
        return m_state->inferred;
    return regionsOf(m_state->def, m_state->c, outputIndex, outTile);
}

std::vector<InputAxes> axisMaps(const Graph &g, const Node &n, int outputIndex)
{
    std::vector<InputAxes> in(n.inputs.size());
    for (InputAxes &a : in)
        a.opaque = true;
    const OpDef *def = findOp(n.opType);
    OpContext c(g, n);
    if (!runInfer(def, c).isOk() || outputIndex < 0 || static_cast<std::size_t>(outputIndex) >= c.outs.size())
        return in;
    def->axes(c, outputIndex, in);
    return in;
}

} // namespace tessera::ops
