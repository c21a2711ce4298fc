#include "plugins/ios/iosimport.h"

#include "core/plugin/samples.h"
#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosnetworks.h"

#include <onnx/onnx_pb.h>

namespace tessera {

namespace {

Expected<ImportResult> importProto(const onnx::ModelProto &proto, std::string sourceName)
{
    std::string bytes;
    if (!proto.SerializeToString(&bytes))
        return Status::error(ErrorCode::Internal, "cannot serialise the converted ios model");
    auto model = importModelFromBytes(bytes, std::move(sourceName));
    if (!model)
        return model.status();
    auto units = iosUnitsFromMetadata(model->graph, model->metadata.properties);
    if (!units)
        return units.status().at(Location{.file = model->metadata.path});
    const std::int32_t last = units->blocks.back().units.back();
    for (std::size_t u = 0; u < units->units.size(); ++u)
        if (static_cast<std::int32_t>(u) != last && units->successors[u].empty())
            return Status::invalid("unit '" + units->units[u].name + "' is disconnected: no unit reads its output",
                                   Location{.file = model->metadata.path, .node = units->units[u].name});
    return model;
}

} // namespace

Expected<ImportResult> importIosConfig(std::string_view json, std::string sourceName, std::int64_t batch)
{
    SampleOptions opts;
    opts.batch = batch;
    auto proto = buildFromIosConfig(json, opts, sourceName);
    if (!proto)
        return proto.status();
    return importProto(**proto, sourceName.empty() ? std::string("<ios config>") : std::move(sourceName));
}

Expected<ImportResult> importIosNetwork(std::string_view name, std::int64_t batch)
{
    SampleOptions opts;
    opts.batch = batch;
    auto proto = buildIosNetwork(name, opts);
    if (!proto)
        return proto.status();
    return importProto(**proto, std::string(name));
}

} // namespace tessera
