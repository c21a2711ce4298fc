// PCGC learned cost models in the project file (issue 17: "persist trained
// models per device in the user's data folder and in the project file").
//
// A trained model (learnedcost.h) is kept as the project's plugin data
// (core/store/project.h setPluginData: plugin "pcgc", key "cost-model/<device
// id>", the same JSON the user's data folder holds), so a project carries the
// models it was scheduled with to another machine and reopening it brings
// them back. Reading one back checks it exactly as a file is checked: the
// format, the device id and the device's fingerprint (a device whose
// parameters changed since training is refused with the reason), the
// features and the regressor. restoreProjectModel() writes a model that
// passes to the path the scheduler reads (option model_file, default the
// user's data folder) — only when that file is missing or holds a model the
// device refuses, never over a good one: the user's own training wins.
#pragma once

#include "core/store/project.h"
#include "plugins/pcgc/learnedcost.h"

#include <memory>
#include <string>

namespace tessera::pcgc {

inline constexpr const char *kProjectPlugin = "pcgc";
std::string projectModelKey(const std::string &deviceId); // "cost-model/<device id>"

Status storeModelInProject(Project &project, const LearnedCostModel &model);
// Null when the project holds no model for the device; InvalidInput (naming
// the project and the reason) when it holds one the device refuses.
Expected<std::unique_ptr<LearnedCostModel>> loadModelFromProject(const Project &project, const Device &device);

enum class RestoreOutcome : std::uint8_t { Restored, KeptExisting, NoneStored };
// Restores the project's model for `device` to `path` (see above).
Expected<RestoreOutcome> restoreProjectModel(const Project &project, const Device &device, const std::string &path);

} // namespace tessera::pcgc
