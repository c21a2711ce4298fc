// ONNX import: reads a .onnx model into a tessera::Graph with static shapes.
//
// The pipeline (importer.cpp) runs one step per file, each failing with a
// Status that names the file and, where there is one, the node or tensor:
//   S1 read      importer.cpp        size limit, empty/missing file
//   S2 parse     parse.cpp           protobuf with a total-bytes limit
//   S2b optional drop_unused_outputs.cpp unread optional outputs (Dropout mask, MaxPool Indices...)
//   S2c flow     inline_control_flow.cpp If/Loop/Scan with a static path → plain nodes
//   S3 structure structure.cpp       unique names, wiring, dangling/duplicate/cycle, topo order
//   S4 validate  validate_proto.cpp  dims, ranks, sizes, initializer data, external refs, attributes
//   S5 dims      resolve_dims.cpp    symbolic dims → numbers (batch, sequence, ImportOptions::dims)
//   S6 onnx      onnx_checks.cpp     onnx::checker + onnx shape inference (exceptions stop here)
//   S7 types     apply_types.cpp     dtype and static shape of every tensor
//   S8 data      attach_data.cpp     initializers (raw_data moved, external kept lazy) and attributes
//   S9 fold      fold_constants.cpp  nodes with constant inputs → initializers, pending dims computed
//   S10 shapes   check_shapes.cpp    ONNX's shapes agree with ops::inferShapes
// Nothing throws out of these functions; libonnx's exceptions are caught in S6.
#pragma once

#include "core/ir/graph.h"
#include "core/onnx/fold_constants.h"
#include "core/support/status.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace tessera {

struct ImportOptions {
    std::int64_t maxFileBytes = std::int64_t(4) << 30;    // bigger files are refused (protobuf stops at 2 GiB)
    std::int64_t maxTensorBytes = std::int64_t(16) << 30; // per tensor, declared or inferred
    int maxRank = 8;

    // Symbolic dimensions. An explicit entry in `dims` wins; otherwise batch-like
    // names ("batch", "batch_size", "N", "B", ...) get batchSize and sequence-like
    // names ("sequence", "seq_len", "T", ...) get seqLen. An unnamed unknown first
    // dimension of a graph input counts as batch. Anything else is an error.
    std::int64_t batchSize = 1;
    std::int64_t seqLen = 128;
    std::map<std::string, std::int64_t, std::less<>> dims;

    bool loadExternalData = false; // read external weights now instead of on demand

    // S6 runs libonnx's checker and shape inference in a child process, since
    // libonnx 1.12 can crash or hang on malformed models; the child's death
    // becomes an error. Turn off only for debugging libonnx itself.
    bool isolateOnnx = true;
    int onnxTimeoutSeconds = 60;

    bool foldConstants = true; // S9
    FoldOptions fold;
    bool checkShapes = true; // S10

    // Set: the import stops with ErrorCode::Cancelled soon after it turns true
    // (checked between the steps and per node or tensor inside the long ones).
    const std::atomic<bool> *cancel = nullptr;
};

struct ModelMetadata {
    std::string path; // as given (or the virtual path)
    std::int64_t fileBytes = 0;
    std::string producerName;
    std::string producerVersion;
    std::string domain;
    std::string docString;
    std::int64_t irVersion = 0;
    std::int64_t modelVersion = 0;
    std::int64_t opsetVersion = 0;                                 // default ("ai.onnx") domain
    std::map<std::string, std::int64_t, std::less<>> opsetImports; // every domain, "" for the default one
    std::map<std::string, std::string> properties;                 // metadata_props (e.g. a converter's units)
};

struct ImportResult {
    Graph graph;
    DiagnosticLog log; // warnings (opaque ops, dropped subgraphs) and notes (resolved dims)
    ModelMetadata metadata;
    FoldStats fold;
};

// Imports the model at `path`. External data is looked up next to it.
Expected<ImportResult> importModel(const std::string &path, const ImportOptions &options = {});

// Imports a model held in memory. `virtualPath` is the name diagnostics show;
// external data is resolved in its folder, and refused when it is empty.
Expected<ImportResult> importModelFromBytes(std::string_view bytes, std::string virtualPath,
                                            const ImportOptions &options = {});

} // namespace tessera
