// The IOS artifact's schedule format as a Tessera schedule format
// (core/plugin/extensions.h): File ▸ Export ▸ IOS Schedule in the workbench.
// The schedule's stages come from the plan (iosScheduleFromPlan), the graph
// part from the IOS graph config the model was converted from (iosformat.h,
// writeIosSchedule; ios thesis §3.1).
#pragma once

#include "core/plugin/extensions.h"

#include <map>
#include <string>
#include <string_view>

namespace tessera {

// The IOS graph config a model was built from: the embedded config of an IOS
// benchmark sample (by the model's file name: inception-v3, squeezenet,
// randwire, nasnet-a, or an IOS network name), else "<name>.ios.json" or
// "<name>.json" beside the model. Unsupported error naming the places looked at.
Expected<std::string> iosConfigFor(const std::string &modelPath);

// `run` (made by an IOS-shaped scheduler for `graph`) in the IOS artifact's
// schedule format. Units come from the model's "ios.units" metadata
// (`properties`), else from its node names.
Expected<std::string> iosScheduleJson(const ScheduleRun &run, const Graph &graph,
                                      const std::map<std::string, std::string> &properties, std::string_view configJson,
                                      std::string_view scheduleName);

// The format "ios": plans of the "ios" scheduler; its companion is the graph config.
ScheduleFormat iosScheduleFormat();

} // namespace tessera
