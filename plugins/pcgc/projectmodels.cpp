#include "plugins/pcgc/projectmodels.h"

#include "core/support/fileio.h"

#include <filesystem>

namespace tessera::pcgc {

std::string projectModelKey(const std::string &deviceId)
{
    return "cost-model/" + deviceId;
}

Status storeModelInProject(Project &project, const LearnedCostModel &model)
{
    auto json = model.toJson();
    if (!json)
        return json.status();
    return project.setPluginData(kProjectPlugin, projectModelKey(model.device().id), *json);
}

Expected<std::unique_ptr<LearnedCostModel>> loadModelFromProject(const Project &project, const Device &device)
{
    auto bytes = project.pluginData(kProjectPlugin, projectModelKey(device.id));
    if (!bytes)
        return bytes.status();
    if (!*bytes)
        return std::unique_ptr<LearnedCostModel>();
    return LearnedCostModel::fromJson(**bytes, device, project.path() + " (" + projectModelKey(device.id) + ")");
}

Expected<RestoreOutcome> restoreProjectModel(const Project &project, const Device &device, const std::string &path)
{
    auto stored = loadModelFromProject(project, device);
    if (!stored)
        return stored.status();
    if (!*stored)
        return RestoreOutcome::NoneStored;
    if (std::filesystem::exists(path) && LearnedCostModel::load(path, device).isOk())
        return RestoreOutcome::KeptExisting;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    TS_TRY((*stored)->save(path));
    return RestoreOutcome::Restored;
}

} // namespace tessera::pcgc
