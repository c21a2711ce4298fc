// The importer's steps (see importer.h for the pipeline) and the helpers they
// share. Private to core/onnx: it includes libonnx's generated protobuf classes.
#pragma once

#include "core/onnx/importer.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <onnx/onnx_pb.h>
#include <string>
#include <utility>
#include <vector>

namespace tessera::onnximport {

// What every step needs to report a problem or a note.
struct ImportContext {
    const ImportOptions &options;
    std::string file;               // Location::file of every diagnostic
    std::filesystem::path modelDir; // canonical folder for external data; empty: external data refused
    DiagnosticLog &log;

    Location at(std::string node = {}, std::string tensor = {}) const
    {
        return {.file = file, .offset = -1, .node = std::move(node), .tensor = std::move(tensor)};
    }

    // ImportOptions::cancel: Cancelled once it is set, else Ok. Steps that
    // loop over nodes or tensors look at it per item; run() between steps.
    Status cancelled() const
    {
        if (options.cancel && options.cancel->load(std::memory_order_relaxed))
            return Status::error(ErrorCode::Cancelled, "importing the model was cancelled", at());
        return Status::ok();
    }
};

// Normalised domain: "ai.onnx" is the default domain "".
std::string normalDomain(const std::string &domain);

// S2 parse.cpp: protobuf with a total-bytes limit; refuses empty, oversized,
// corrupt or graph-less input. Protobuf reads `bytes` kParseChunkBytes at a
// time; `consumed`, when set, is called with n each time bytes [0, n) will not
// be read again (n grows; the last chunk is never reported), so a file mapping
// can let go of the pages the proto has copied.
using ConsumedBytes = std::function<void(std::size_t n)>;
inline constexpr std::size_t kParseChunkBytes = std::size_t(1) << 20;
Status parseModel(std::string_view bytes, const ImportContext &ctx, ::onnx::ModelProto &model,
                  const ConsumedBytes &consumed = {});

// S2b drop_unused_outputs.cpp: optional outputs nothing reads (Dropout's mask,
// MaxPool's Indices, BatchNormalization's training outputs, recurrent Y_h/Y_c)
// become omitted outputs, whatever type the model declares for them.
void dropUnusedOptionalOutputs(::onnx::GraphProto &graph, const ImportContext &ctx);

// S2c inline_control_flow.cpp: If with a constant condition, Loop with a
// small constant trip count and Scan with static lengths become plain nodes;
// any other control flow stays (opaque later) with a warning naming the node.
void inlineControlFlow(::onnx::ModelProto &model, const ImportContext &ctx);

// S2d resolve_sequences.cpp: sequence values built from constant positions
// (SequenceConstruct/Insert/Erase/At/Length, SplitToSequence,
// ConcatFromSequence) become the tensors they hold; otherwise every sequence
// node stays (opaque later) with a warning naming the node.
void resolveSequences(::onnx::ModelProto &model, const ImportContext &ctx);

// S3 structure.cpp: the Graph's tensors and nodes (names made unique and
// written back to the proto), dangling inputs, duplicate producers and cycles;
// reorders the proto's nodes topologically when they are not. Attributes, types
// and data come later.
Expected<Graph> buildStructure(::onnx::ModelProto &model, const ImportContext &ctx);

// S4 validate_proto.cpp: every declared dim, rank, tensor size, initializer
// payload and shape-relevant attribute is sane before libonnx or we allocate
// anything from it.
Status validateProto(const ::onnx::ModelProto &model, const ImportContext &ctx);

// S5 resolve_dims.cpp: symbolic and unknown dims of graph inputs become numbers
// (also in value_info/outputs where the same symbol appears).
Status resolveSymbolicDims(::onnx::GraphProto &graph, const ImportContext &ctx);

// S6a shape_constants.cpp: for the lifetime of this object, Shape nodes of
// tensors whose shape is static before inference (graph inputs, initializers)
// are Constant nodes in `graph`, so libonnx's inference sees their values
// (Reshape(y, Shape(x))). The destructor restores the original nodes.
class StaticShapesShown
{
public:
    explicit StaticShapesShown(::onnx::GraphProto &graph);
    ~StaticShapesShown();
    StaticShapesShown(const StaticShapesShown &) = delete;
    StaticShapesShown &operator=(const StaticShapesShown &) = delete;
    int count() const { return static_cast<int>(m_saved.size()); }

private:
    ::onnx::GraphProto &m_graph;
    std::vector<std::pair<int, ::onnx::NodeProto>> m_saved; // node index, original node
};

// S6 onnx_checks.cpp: onnx::checker::check_model, then onnx shape inference
// (non-strict, with data propagation). Every libonnx exception ends here.
Status checkAndInferShapes(::onnx::ModelProto &model, const ImportContext &ctx);

// A tensor whose shape S6 left unknown or symbolic, for S9 to compute.
struct PendingShape {
    TensorId tensor = kInvalidId;
    std::string reason; // "has symbolic dimension 'unk__0' (axis 0) that no graph input fixes"
};

// S7 apply_types.cpp: dtype and static shape of every Graph tensor from the
// inferred value infos. An unknown dim of a tensor a default-domain node
// produces is appended to `pending` for S9; any other is an error naming the
// tensor.
Status applyTypes(Graph &g, const ::onnx::GraphProto &graph, const ImportContext &ctx,
                  std::vector<PendingShape> &pending);

// S8 attach_data.cpp: initializer data (raw_data moved out of the proto) and
// node attributes. Destroys the payloads in `graph`.
Status attachData(Graph &g, ::onnx::GraphProto &graph, const ImportContext &ctx);

// S8b legacy_prelu.cpp: an opset < 7 PRelu's constant per-channel slope [C]
// becomes [C, 1, ..., 1], the broadcasting form of the same meaning.
void channelwiseLegacyPRelu(Graph &g, const ImportContext &ctx);

// S9 fold_constants.cpp (see fold_constants.cpp's header): foldConstants
// with the tensors S7 left pending, and what it did for the import log.
struct FoldReport {
    FoldStats stats;
    std::int64_t evaluatedNodes = 0;  // folded by the constant evaluator
    std::int64_t inferredTensors = 0; // pending shapes made static
    std::vector<std::string> folded;  // names of the folded nodes, in order
};
Expected<FoldReport> foldConstants(Graph &g, const FoldOptions &options, const std::vector<PendingShape> &pending);

// S10 check_shapes.cpp: ops::inferShapes agrees with the imported shapes for
// every known op (nodes ops rejects as Unsupported become opaque with a warning).
Status checkShapes(Graph &g, const ImportContext &ctx);

// --- tensor_proto.cpp: TensorProto <-> TensorData ----------------------------

// Bytes a tensor of `dtype` and `shape` occupies; errors on negative dims, a
// rank above the limit, element-count overflow or more than maxBytes.
// `what` names the tensor's role in the message ("initializer", "input", ...).
Expected<std::int64_t> checkedTensorBytes(DType dtype, const Shape &shape, const ImportOptions &options,
                                          std::string_view what);

// Checks a TensorProto's payload against its dims and element type; resolves
// external data in ctx.modelDir. Nothing is allocated from the declared sizes.
Status validateTensorProto(const ::onnx::TensorProto &t, const ImportContext &ctx, std::string_view what);

// Converts a validated TensorProto. Moves raw_data out of `t`; external data
// stays lazy unless ctx.options.loadExternalData.
Expected<std::shared_ptr<const TensorData>> takeTensorData(::onnx::TensorProto &t, const ImportContext &ctx);

// Fills `t` (dims, data_type, raw_data) from inline data.
void fillTensorProto(const TensorData &data, ::onnx::TensorProto &t);

} // namespace tessera::onnximport
