// ONNX export: writes a tessera::Graph back as a .onnx model.
//
// Everything the importer reads survives: node names, op types, domains,
// attributes, opaque nodes, initializers, graph inputs/outputs with their
// static shapes, and value_info for every intermediate tensor. Initializers go
// inline, or into one external data file next to the model when asked to or
// when inline data would pass protobuf's 2 GiB limit; weights the source graph
// kept lazily in external files are read as they are written. import → export
// → import yields the same graph structure. Files are written to a temporary
// name first and renamed, so a failed export leaves no half-written model.
// Overwriting the data file a lazily imported graph still reads from is
// refused: load its data first (loadExternalData, external_data.h).
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace tessera {

struct ExportOptions {
    enum class ExternalData : std::uint8_t {
        Auto,   // inline, unless the data would pass protobuf's 2 GiB limit
        Always, // initializers of at least externalThreshold bytes go to the data file
        Never,  // always inline; fails when the model would pass 2 GiB
    };
    ExternalData externalData = ExternalData::Auto;
    std::string externalFile;              // plain file name next to the model; default "<model file name>.data"
    std::int64_t externalThreshold = 1024; // smaller initializers stay inline
    std::int64_t irVersion = 8;
    // Opset per domain ("" is the default domain; it defaults to Graph::opsetVersion,
    // other domains used by nodes to 1). ImportResult::metadata.opsetImports fits here.
    std::map<std::string, std::int64_t, std::less<>> opsetImports;
    std::string producerName = "tessera";
    std::string producerVersion; // default: Tessera's version
};

Status exportModel(const Graph &g, const std::string &path, const ExportOptions &options = {});

// The serialized model; all data inline (ExternalData::Always is a usage error).
Expected<std::string> exportModelToBytes(const Graph &g, const ExportOptions &options = {});

} // namespace tessera
