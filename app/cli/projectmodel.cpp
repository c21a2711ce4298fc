// ScratchModels (see projectmodel.h).
#include "app/cli/projectmodel.h"

#include "core/onnx/modelbuilder.h" // saveModel
#include "core/plugin/extensions.h"

#include <filesystem>
#include <onnx/onnx_pb.h>
#include <unistd.h>

namespace tessera::cli {

namespace fs = std::filesystem;

ScratchModels::ScratchModels(const Extensions &extensions)
    : m_extensions(extensions),
      m_dir((fs::temp_directory_path() / ("tessera-cli-models-" + std::to_string(::getpid()))).string())
{}

ScratchModels::~ScratchModels()
{
    std::error_code ec;
    fs::remove_all(m_dir, ec);
}

std::string ScratchModels::registeredName(const std::string &name) const
{
    const SampleNetwork *sample = m_extensions.findSample(name);
    return sample ? sample->info.name : std::string();
}

Expected<ModelResolver::BuiltSample> ScratchModels::buildSample(const std::string &name) const
{
    const SampleNetwork *sample = m_extensions.findSample(name);
    auto model = m_extensions.buildSample(name, SampleOptions{}); // an unknown name: its error lists the known
    if (!model)
        return model.status();
    std::error_code ec;
    const fs::path folder = fs::path(m_dir) / "samples" / sample->info.name;
    fs::create_directories(folder, ec);
    const std::string path = (folder / (sample->info.name + ".onnx")).string();
    TS_TRY(saveModel(**model, path, /*externalData=*/true));
    return ModelResolver::BuiltSample{path, sample->info.version};
}

ModelResolver ScratchModels::resolver() const
{
    ModelResolver r;
    r.buildSample = [this](const std::string &name) { return buildSample(name); };
    r.extractDir = (fs::path(m_dir) / "embedded").string();
    return r;
}

} // namespace tessera::cli
