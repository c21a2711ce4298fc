#include "core/ir/graph.h"

#include "core/ir/analysis.h"
#include "core/support/assert.h"
#include "core/support/filemapping.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>

namespace tessera {

// --- Attribute ---------------------------------------------------------------

namespace {
template <typename T> std::string joinClipped(const std::vector<T> &v, std::size_t maxItems = 16)
{
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < v.size() && i < maxItems; ++i)
        os << (i ? ", " : "") << v[i];
    if (v.size() > maxItems)
        os << ", … (" << v.size() << " items)";
    os << ']';
    return os.str();
}
} // namespace

std::string Attribute::str() const
{
    switch (kind()) {
    case Kind::Int: return std::to_string(std::get<std::int64_t>(value));
    case Kind::Float: {
        std::ostringstream os;
        os << std::get<double>(value);
        return os.str();
    }
    case Kind::String: {
        const auto &s = std::get<std::string>(value);
        return '"' + (s.size() > 64 ? s.substr(0, 64) + "…" : s) + '"';
    }
    case Kind::Ints: return joinClipped(std::get<std::vector<std::int64_t>>(value));
    case Kind::Floats: return joinClipped(std::get<std::vector<double>>(value));
    case Kind::Strings: return joinClipped(std::get<std::vector<std::string>>(value));
    case Kind::Tensor: {
        const auto &t = std::get<std::shared_ptr<const TensorData>>(value);
        return t ? "tensor<" + std::string(dtypeName(t->dtype)) + " " + shapeStr(t->shape) + ">" : "tensor<null>";
    }
    }
    return {};
}

// --- TensorData / Tensor -----------------------------------------------------

std::span<const std::uint8_t> TensorData::view() const
{
    if (mapped) {
        if (!mapped->file || mapped->length == 0)
            return {};
        TS_ASSERT(mapped->offset >= 0 && mapped->length >= 0 && mapped->offset <= mapped->file->size() &&
                  mapped->length <= mapped->file->size() - mapped->offset);
        return {mapped->file->data() + mapped->offset, static_cast<std::size_t>(mapped->length)};
    }
    return bytes;
}

std::int64_t TensorData::byteSize() const
{
    if (external)
        return external->length;
    return static_cast<std::int64_t>(view().size());
}

const float *TensorData::f32() const
{
    auto n = numElements(shape);
    const auto v = view();
    if (dtype != DType::Float32 || !n || v.size() < static_cast<std::size_t>(*n) * 4 ||
        reinterpret_cast<std::uintptr_t>(v.data()) % alignof(float) != 0)
        return nullptr;
    return reinterpret_cast<const float *>(v.data());
}

const std::int64_t *TensorData::i64() const
{
    auto n = numElements(shape);
    const auto v = view();
    if (dtype != DType::Int64 || !n || v.size() < static_cast<std::size_t>(*n) * 8 ||
        reinterpret_cast<std::uintptr_t>(v.data()) % alignof(std::int64_t) != 0)
        return nullptr;
    return reinterpret_cast<const std::int64_t *>(v.data());
}

std::optional<std::int64_t> TensorData::intAt(std::int64_t i) const
{
    const std::size_t sz = dtypeSize(dtype);
    const auto bytes = view();
    if (i < 0 || sz == 0 || static_cast<std::size_t>(i + 1) * sz > bytes.size())
        return std::nullopt;
    const std::uint8_t *p = bytes.data() + static_cast<std::size_t>(i) * sz;
    switch (dtype) {
    case DType::Int64: {
        std::int64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    case DType::Int32: {
        std::int32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case DType::Int16: {
        std::int16_t v;
        std::memcpy(&v, p, 2);
        return v;
    }
    case DType::Int8: return static_cast<std::int8_t>(*p);
    case DType::UInt16: {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        return v;
    }
    case DType::UInt32: {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case DType::UInt64: { // values past int64's range have no int64 value
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        return v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                   ? std::optional<std::int64_t>(static_cast<std::int64_t>(v))
                   : std::nullopt;
    }
    case DType::UInt8:
    case DType::Bool: return *p;
    default: return std::nullopt;
    }
}

std::optional<double> TensorData::floatAt(std::int64_t i) const
{
    const std::size_t sz = dtypeSize(dtype);
    const auto bytes = view();
    if (i < 0 || sz == 0 || static_cast<std::size_t>(i + 1) * sz > bytes.size())
        return std::nullopt;
    const std::uint8_t *p = bytes.data() + static_cast<std::size_t>(i) * sz;
    switch (dtype) {
    case DType::Float32: {
        float v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case DType::Float64: {
        double v;
        std::memcpy(&v, p, 8);
        return v;
    }
    default: {
        auto v = intAt(i);
        return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
    }
    }
}

std::int64_t Tensor::elements() const
{
    return numElements(shape).value_or(0);
}

std::int64_t Tensor::bytes() const
{
    const std::int64_t n = elements(), size = dtypeSize(dtype);
    if (size != 0 && n > std::numeric_limits<std::int64_t>::max() / size)
        return std::numeric_limits<std::int64_t>::max();
    return n * size;
}

// --- Node --------------------------------------------------------------------

const Attribute *Node::attr(std::string_view key) const
{
    auto it = attrs.find(key);
    return it == attrs.end() ? nullptr : &it->second;
}

std::int64_t Node::attrInt(std::string_view key, std::int64_t def) const
{
    const Attribute *a = attr(key);
    if (!a)
        return def;
    if (auto *i = std::get_if<std::int64_t>(&a->value))
        return *i;
    return def;
}

double Node::attrFloat(std::string_view key, double def) const
{
    const Attribute *a = attr(key);
    if (!a)
        return def;
    if (auto *f = std::get_if<double>(&a->value))
        return *f;
    if (auto *i = std::get_if<std::int64_t>(&a->value))
        return static_cast<double>(*i);
    return def;
}

std::string Node::attrString(std::string_view key, std::string_view def) const
{
    const Attribute *a = attr(key);
    if (a)
        if (auto *s = std::get_if<std::string>(&a->value))
            return *s;
    return std::string(def);
}

std::vector<std::int64_t> Node::attrInts(std::string_view key, std::vector<std::int64_t> def) const
{
    const Attribute *a = attr(key);
    if (a)
        if (auto *v = std::get_if<std::vector<std::int64_t>>(&a->value))
            return *v;
    return def;
}

// --- Graph -------------------------------------------------------------------

TensorId Graph::addTensor(Tensor t)
{
    TS_ASSERT_MSG(!m_tensorByName.count(t.name), "duplicate tensor name");
    const auto id = static_cast<TensorId>(m_tensors.size());
    t.producer = kInvalidId;
    t.consumers.clear();
    m_tensorByName.emplace(t.name, id);
    m_tensors.push_back(std::move(t));
    return id;
}

NodeId Graph::addNode(Node n)
{
    TS_ASSERT_MSG(!m_nodeByName.count(n.name), "duplicate node name");
    const auto id = static_cast<NodeId>(m_nodes.size());
    for (TensorId t : n.inputs)
        if (t != kInvalidId) {
            TS_ASSERT(t >= 0 && static_cast<std::size_t>(t) < m_tensors.size());
            m_tensors[static_cast<std::size_t>(t)].consumers.push_back(id);
        }
    for (TensorId t : n.outputs)
        if (t != kInvalidId) {
            TS_ASSERT(t >= 0 && static_cast<std::size_t>(t) < m_tensors.size());
            Tensor &out = m_tensors[static_cast<std::size_t>(t)];
            TS_ASSERT_MSG(out.producer == kInvalidId, "tensor has two producers");
            out.producer = id;
            out.kind = Tensor::Kind::Intermediate;
        }
    m_nodeByName.emplace(n.name, id);
    m_nodes.push_back(std::move(n));
    return id;
}

NodeId Graph::findNode(std::string_view name) const
{
    auto it = m_nodeByName.find(std::string(name));
    return it == m_nodeByName.end() ? kInvalidId : it->second;
}

TensorId Graph::findTensor(std::string_view name) const
{
    auto it = m_tensorByName.find(std::string(name));
    return it == m_tensorByName.end() ? kInvalidId : it->second;
}

const Tensor *Graph::input(const Node &n, std::size_t i) const
{
    if (i >= n.inputs.size() || n.inputs[i] == kInvalidId)
        return nullptr;
    return &tensor(n.inputs[i]);
}

const Tensor *Graph::output(const Node &n, std::size_t i) const
{
    if (i >= n.outputs.size() || n.outputs[i] == kInvalidId)
        return nullptr;
    return &tensor(n.outputs[i]);
}

std::vector<NodeId> Graph::predecessors(NodeId id) const
{
    std::vector<NodeId> out;
    for (TensorId t : node(id).inputs)
        if (t != kInvalidId && tensor(t).producer != kInvalidId)
            out.push_back(tensor(t).producer);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<NodeId> Graph::successors(NodeId id) const
{
    std::vector<NodeId> out;
    for (TensorId t : node(id).outputs)
        if (t != kInvalidId)
            out.insert(out.end(), tensor(t).consumers.begin(), tensor(t).consumers.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::size_t Graph::edgeCount() const
{
    std::size_t n = 0;
    for (NodeId i = 0; i < static_cast<NodeId>(m_nodes.size()); ++i)
        n += successors(i).size();
    return n;
}

void Graph::rebuildUses()
{
    for (Tensor &t : m_tensors) {
        t.producer = kInvalidId;
        t.consumers.clear();
    }
    for (NodeId id = 0; id < static_cast<NodeId>(m_nodes.size()); ++id) {
        for (TensorId t : m_nodes[static_cast<std::size_t>(id)].inputs)
            if (t != kInvalidId)
                m_tensors[static_cast<std::size_t>(t)].consumers.push_back(id);
        for (TensorId t : m_nodes[static_cast<std::size_t>(id)].outputs)
            if (t != kInvalidId)
                m_tensors[static_cast<std::size_t>(t)].producer = id;
    }
}

std::vector<NodeId> Graph::eraseNodes(const std::vector<bool> &erase)
{
    TS_ASSERT(erase.size() == m_nodes.size());
    std::vector<NodeId> nodeMap(m_nodes.size(), kInvalidId);
    std::vector<Node> keptNodes;
    keptNodes.reserve(m_nodes.size());
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        if (!erase[i]) {
            nodeMap[i] = static_cast<NodeId>(keptNodes.size());
            keptNodes.push_back(std::move(m_nodes[i]));
        }

    // A tensor survives if a kept node touches it or it is a graph input/output.
    std::vector<bool> keepTensor(m_tensors.size(), false);
    for (const Node &n : keptNodes) {
        for (TensorId t : n.inputs)
            if (t != kInvalidId)
                keepTensor[static_cast<std::size_t>(t)] = true;
        for (TensorId t : n.outputs)
            if (t != kInvalidId)
                keepTensor[static_cast<std::size_t>(t)] = true;
    }
    for (TensorId t : inputs)
        keepTensor[static_cast<std::size_t>(t)] = true;
    for (TensorId t : outputs)
        keepTensor[static_cast<std::size_t>(t)] = true;

    std::vector<TensorId> tensorMap(m_tensors.size(), kInvalidId);
    std::vector<Tensor> keptTensors;
    for (std::size_t i = 0; i < m_tensors.size(); ++i)
        if (keepTensor[i]) {
            tensorMap[i] = static_cast<TensorId>(keptTensors.size());
            keptTensors.push_back(std::move(m_tensors[i]));
        }
    auto remap = [&](std::vector<TensorId> &ids) {
        for (TensorId &t : ids)
            if (t != kInvalidId)
                t = tensorMap[static_cast<std::size_t>(t)];
    };
    for (Node &n : keptNodes) {
        remap(n.inputs);
        remap(n.outputs);
    }
    remap(inputs);
    remap(outputs);

    m_nodes = std::move(keptNodes);
    m_tensors = std::move(keptTensors);
    m_nodeByName.clear();
    m_tensorByName.clear();
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        m_nodeByName.emplace(m_nodes[i].name, static_cast<NodeId>(i));
    for (std::size_t i = 0; i < m_tensors.size(); ++i)
        m_tensorByName.emplace(m_tensors[i].name, static_cast<TensorId>(i));
    rebuildUses();
    return nodeMap;
}

Status Graph::verify() const
{
    const auto nt = static_cast<TensorId>(m_tensors.size());
    std::vector<int> producers(m_tensors.size(), 0);
    for (const Node &n : m_nodes) {
        for (TensorId t : n.inputs)
            if (t != kInvalidId && (t < 0 || t >= nt))
                return Status::invalid("input id out of range", {.node = n.name});
        for (TensorId t : n.outputs) {
            if (t == kInvalidId)
                continue;
            if (t < 0 || t >= nt)
                return Status::invalid("output id out of range", {.node = n.name});
            if (++producers[static_cast<std::size_t>(t)] > 1)
                return Status::invalid("tensor is produced by more than one node",
                                       {.node = n.name, .tensor = tensor(t).name});
            if (tensor(t).isConstant())
                return Status::invalid("node writes a constant tensor", {.node = n.name, .tensor = tensor(t).name});
        }
    }
    for (const Node &n : m_nodes)
        for (TensorId t : n.inputs)
            if (t != kInvalidId && !producers[static_cast<std::size_t>(t)] && !tensor(t).isConstant() &&
                tensor(t).kind != Tensor::Kind::Input)
                return Status::invalid("input is neither a graph input, a constant nor produced by a node",
                                       {.node = n.name, .tensor = tensor(t).name});
    for (TensorId t : outputs) {
        if (t < 0 || t >= nt)
            return Status::invalid("graph output id out of range");
        const Tensor &o = tensor(t);
        if (!producers[static_cast<std::size_t>(t)] && !o.isConstant() && o.kind != Tensor::Kind::Input)
            return Status::invalid("graph output is not produced by any node", {.tensor = o.name});
    }
    auto order = topologicalOrder(*this);
    if (!order)
        return order.status();
    return Status::ok();
}

} // namespace tessera
