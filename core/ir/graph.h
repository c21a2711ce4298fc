// The Tessera graph IR: nodes (operators) and tensors with static shapes.
//
// A Graph owns its nodes and tensors in two vectors; NodeId and TensorId are
// indices into them. Every tensor has at most one producer (a node output) and
// any number of consumers. Graph inputs and initializers have no producer.
// Shapes are static; the ONNX importer resolves symbolic dims before building.
// Ids are stable while a graph is only added to; eraseNodes() compacts and
// renumbers, so code that keeps ids across an erase must remap them.
#pragma once

#include "core/ir/types.h"
#include "core/support/status.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace tessera {

using NodeId = std::int32_t;
using TensorId = std::int32_t;
inline constexpr std::int32_t kInvalidId = -1;

struct TensorData;

// An operator attribute. Tensor attributes (Constant's value) are held as data.
struct Attribute {
    enum class Kind : std::uint8_t { Int, Float, String, Ints, Floats, Strings, Tensor };
    using Value = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>,
                               std::vector<std::string>, std::shared_ptr<const TensorData>>;
    Value value;

    Kind kind() const { return static_cast<Kind>(value.index()); }
    std::string str() const; // human-readable, clipped for the inspector
};
using AttrMap = std::map<std::string, Attribute, std::less<>>; // sorted: deterministic output

// Constant data of an initializer or a Constant node, packed little-endian.
// Large models keep their weights in external files; such data is described by
// `external` and loaded only when a backend needs it (the viewer never does).
// Loading maps the file read-only instead of copying it (`mapped`, see
// loadTensorData() in core/onnx/external_data.h). Read the bytes through
// view(), which is the same for inline and mapped data; `bytes` is only the
// inline storage (writers fill it).
class FileMapping; // core/support/filemapping.h

struct TensorData {
    DType dtype = DType::Undefined;
    Shape shape;
    std::vector<std::uint8_t> bytes; // inline storage; empty if external or mapped
    struct External {
        std::string path; // absolute, already checked to lie inside the model's folder
        std::int64_t offset = 0;
        std::int64_t length = 0;
    };
    std::optional<External> external; // set while not loaded
    struct Mapped {
        std::shared_ptr<const FileMapping> file; // shared by every tensor of that file
        std::int64_t offset = 0;                 // [offset, offset + length) lies inside file->size()
        std::int64_t length = 0;
    };
    std::optional<Mapped> mapped; // loaded external data

    bool isExternal() const { return external.has_value(); }
    bool isMapped() const { return mapped.has_value(); }
    // The bytes of inline or mapped data; empty if external (not loaded yet).
    std::span<const std::uint8_t> view() const;
    std::int64_t byteSize() const;
    // Typed view of inline or mapped data; nullptr if external, wrong type or too short.
    const float *f32() const;
    const std::int64_t *i64() const;
    // Element i as int64 / double for small integer or float tensors (shape math).
    std::optional<std::int64_t> intAt(std::int64_t i) const;
    std::optional<double> floatAt(std::int64_t i) const;
};

struct Tensor {
    enum class Kind : std::uint8_t {
        Intermediate, // produced by a node
        Input,        // graph input
        Initializer,  // constant weight
    };
    std::string name;
    DType dtype = DType::Float32;
    Shape shape;
    Kind kind = Kind::Intermediate;
    NodeId producer = kInvalidId;
    std::vector<NodeId> consumers;          // one entry per use, in node order
    std::shared_ptr<const TensorData> data; // initializers (and folded constants)

    bool isConstant() const { return data != nullptr; }
    std::int64_t elements() const; // 0 if the shape overflows
    std::int64_t bytes() const;    // elements() * dtype size, saturating at INT64_MAX
};

struct Node {
    std::string name;   // unique within the graph (the importer makes it so)
    std::string opType; // ONNX op type, e.g. "Conv"
    std::string domain; // "" for the default ONNX domain
    AttrMap attrs;
    std::vector<TensorId> inputs;  // kInvalidId for an omitted optional input
    std::vector<TensorId> outputs; // kInvalidId for an omitted optional output
    bool opaque = false;           // op Tessera does not know: shown, never fused

    const Attribute *attr(std::string_view key) const;
    std::int64_t attrInt(std::string_view key, std::int64_t def) const;
    double attrFloat(std::string_view key, double def) const;
    std::string attrString(std::string_view key, std::string_view def) const;
    std::vector<std::int64_t> attrInts(std::string_view key, std::vector<std::int64_t> def = {}) const;
};

class Graph
{
public:
    std::string name;
    std::int64_t opsetVersion = 17;
    std::vector<TensorId> inputs; // graph inputs that are not initializers
    std::vector<TensorId> outputs;

    // Construction. Names must be unique; adding a duplicate is an assertion.
    TensorId addTensor(Tensor t);
    NodeId addNode(Node n); // wires producer/consumers of n's tensors

    std::size_t nodeCount() const { return m_nodes.size(); }
    std::size_t tensorCount() const { return m_tensors.size(); }
    const Node &node(NodeId id) const { return m_nodes[static_cast<std::size_t>(id)]; }
    Node &node(NodeId id) { return m_nodes[static_cast<std::size_t>(id)]; }
    const Tensor &tensor(TensorId id) const { return m_tensors[static_cast<std::size_t>(id)]; }
    Tensor &tensor(TensorId id) { return m_tensors[static_cast<std::size_t>(id)]; }
    const std::vector<Node> &nodes() const { return m_nodes; }
    const std::vector<Tensor> &tensors() const { return m_tensors; }

    NodeId findNode(std::string_view name) const;     // kInvalidId if absent
    TensorId findTensor(std::string_view name) const; // kInvalidId if absent

    // Input/output tensor of a node, or nullptr for an omitted optional slot.
    const Tensor *input(const Node &n, std::size_t i) const;
    const Tensor *output(const Node &n, std::size_t i) const;

    // Nodes feeding / fed by `id` (deduplicated, ascending).
    std::vector<NodeId> predecessors(NodeId id) const;
    std::vector<NodeId> successors(NodeId id) const;
    std::size_t edgeCount() const; // distinct (producer node, consumer node) pairs

    // Removes the marked nodes and every tensor left without producer or use
    // (graph inputs and outputs are kept), then renumbers. Returns old->new
    // node ids (kInvalidId for erased ones).
    std::vector<NodeId> eraseNodes(const std::vector<bool> &erase);

    // Recomputes producer/consumers from the nodes (after editing node.inputs).
    void rebuildUses();

    // Structural checks: ids in range, unique names, single producer, graph
    // outputs produced or constant, no cycle. Returns the first problem.
    Status verify() const;

private:
    std::vector<Node> m_nodes;
    std::vector<Tensor> m_tensors;
    std::unordered_map<std::string, NodeId> m_nodeByName;
    std::unordered_map<std::string, TensorId> m_tensorByName;
};

} // namespace tessera
