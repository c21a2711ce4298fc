// Loading the MODEL argument of tessera-cli commands: ONNX files through the
// importer, with --batch/--seq-len/--dim applied to symbolic dimensions; a
// file of a plugin's model format (Extensions::modelFormatFor, by suffix)
// through that format. Shared by the built-in commands and plugin commands.
#pragma once

#include "core/backend/kernelmeter.h"
#include "core/onnx/importer.h"
#include "core/plugin/command.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera::cli {

// Options every command that reads a model accepts.
std::vector<ArgSpec> modelOptions();
// modelOptions() plus the rows of every scheduling command: --algo, --device
// and the repeatable --option. The defaults are the specs' defaultValue, so
// Args::value("algo") / value("device") return them when the option is not
// given; an empty default is shown as required. `scope` prefixes the help of
// commands that schedule in one mode only ("(create) ").
std::vector<ArgSpec> schedulingOptions(const std::string &defaultAlgo, const std::string &defaultDevice,
                                       const std::string &scope = {});
Expected<ImportResult> loadModel(const std::string &path, const Args &args, const Extensions &extensions);
// The --batch/--seq-len/--dim arguments as import options.
Expected<ImportOptions> importOptions(const Args &args);
// The repeatable --option K=V arguments as a key -> text map.
Expected<std::map<std::string, std::string>> algorithmOptions(const Args &args);

// --precision fp32|fp16|bf16|int8 (ScheduleSetup::precision), for the commands
// that schedule; `scope` as for schedulingOptions.
ArgSpec precisionOption(const std::string &scope = {});
Expected<DType> precisionOf(const Args &args);

// --cost estimated|measured and --meter NAME, for the commands that schedule.
std::vector<ArgSpec> costOptions();
// The meter --cost measured asks for (null for estimated): --meter's
// backend, else the CPU backend for a CPU device and the simulator for any
// other; refused naming the backend when it is unavailable or measures
// nothing. `backends` must outlive the meter.
Expected<std::unique_ptr<BackendMeter>> costMeter(const Args &args, BackendRegistry &backends, const Device &device);
// The same for a cost source given as values (a project's ProjectSetup::cost
// and ::meter): `meter` empty for the device's default backend.
Expected<std::unique_ptr<BackendMeter>> costMeter(const std::string &cost, const std::string &meter,
                                                  BackendRegistry &backends, const Device &device);

} // namespace tessera::cli
