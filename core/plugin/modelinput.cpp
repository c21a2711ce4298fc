#include "core/plugin/modelinput.h"

#include "core/ir/precision.h"
#include "core/plugin/extensions.h"
#include "core/sched/options.h"

namespace tessera::cli {

std::vector<ArgSpec> modelOptions()
{
    return {
        {"batch", true, false, "--batch N        value for symbolic batch dimensions (default 1)"},
        {"seq-len", true, false, "--seq-len N      value for symbolic sequence dimensions (default 128)"},
        {"dim", true, true, "--dim NAME=N     value for a named symbolic dimension (repeatable)"},
    };
}

std::vector<ArgSpec> schedulingOptions(const std::string &defaultAlgo, const std::string &defaultDevice,
                                       const std::string &scope)
{
    auto options = modelOptions();
    const auto defaulted = [](const std::string &value, const std::string &list) {
        return " (" + (value.empty() ? std::string() : "default " + value + "; ") + "see 'tessera-cli " + list + "')";
    };
    options.insert(
        options.end(),
        {{"algo", true, false,
          "--algo NAME      " + scope + "scheduling algorithm" + defaulted(defaultAlgo, "algorithms"), defaultAlgo},
         {"device", true, false, "--device PRESET  " + scope + "target device" + defaulted(defaultDevice, "devices"),
          defaultDevice},
         {"option", true, true, "--option K=V     " + scope + "algorithm option (repeatable)"}});
    return options;
}

Expected<ImportOptions> importOptions(const Args &args)
{
    ImportOptions opts;
    auto batch = args.intValue("batch", opts.batchSize, 1, 1 << 20);
    if (!batch)
        return batch.status();
    auto seq = args.intValue("seq-len", opts.seqLen, 1, 1 << 24);
    if (!seq)
        return seq.status();
    opts.batchSize = *batch;
    opts.seqLen = *seq;
    for (const std::string &d : args.values("dim")) {
        auto eq = d.find('=');
        if (eq == std::string::npos || eq == 0)
            return usageError("--dim expects NAME=N, got '" + d + "'");
        try {
            std::size_t used = 0;
            const long long v = std::stoll(d.substr(eq + 1), &used);
            if (used != d.size() - eq - 1 || v < 1)
                throw std::invalid_argument("dim");
            opts.dims[d.substr(0, eq)] = v;
        } catch (const std::exception &) {
            return usageError("--dim expects a positive integer, got '" + d + "'");
        }
    }
    return opts;
}

Expected<ImportResult> loadModel(const std::string &path, const Args &args, const Extensions &extensions)
{
    auto opts = importOptions(args);
    if (!opts)
        return opts.status();
    return extensions.importModel(path, *opts);
}

Expected<std::map<std::string, std::string>> algorithmOptions(const Args &args)
{
    std::map<std::string, std::string> out;
    for (const std::string &o : args.values("option")) {
        auto kv = parseOptionAssignment(o);
        if (!kv)
            return kv.status();
        out[kv->first] = kv->second;
    }
    return out;
}

ArgSpec precisionOption(const std::string &scope)
{
    return {"precision", true, false,
            "--precision P    " + scope + "schedule at this deployment precision: " + std::string(precisionNames()) +
                " (default fp32; float32 tensors sized and timed as P)",
            "fp32"};
}

Expected<DType> precisionOf(const Args &args)
{
    const std::string name = args.value("precision").value_or("fp32");
    const auto t = precisionFromName(name);
    if (!t)
        return usageError("--precision expects one of " + std::string(precisionNames()) + ", got '" + name + "'");
    return *t;
}

std::vector<ArgSpec> costOptions()
{
    return {{"cost", true, false,
             "--cost KIND      estimated (the device's cost model, default) or measured (kernels timed by a backend)",
             "estimated"},
            {"meter", true, false,
             "--meter NAME     the backend --cost measured times kernels on (default: cpu for a CPU device, sim "
             "otherwise)"}};
}

Expected<std::unique_ptr<BackendMeter>> costMeter(const Args &args, BackendRegistry &backends, const Device &device)
{
    const std::string cost = args.value("cost").value_or("estimated");
    if (cost == "estimated" && args.has("meter"))
        return usageError("--meter needs --cost measured");
    if (cost != "estimated" && cost != "measured")
        return usageError("--cost expects estimated or measured, got '" + cost + "'");
    return costMeter(cost, args.value("meter").value_or(""), backends, device);
}

Expected<std::unique_ptr<BackendMeter>> costMeter(const std::string &cost, const std::string &meter,
                                                  BackendRegistry &backends, const Device &device)
{
    if (cost == "estimated") {
        if (!meter.empty())
            return usageError("--meter needs --cost measured");
        return std::unique_ptr<BackendMeter>();
    }
    if (cost != "measured")
        return usageError("--cost expects estimated or measured, got '" + cost + "'");
    const std::string name = meter.empty() ? defaultMeterBackend(device) : meter;
    auto backend = backends.get(name);
    if (!backend)
        return backend.status();
    const BackendInfo &info = (*backend)->info();
    if (!info.available)
        return Status::error(ErrorCode::Unavailable,
                             "--cost measured: backend '" + name + "' is unavailable: " + info.unavailableReason);
    if (!info.capabilities.measured && !info.capabilities.timing)
        return usageError("--cost measured: backend '" + name +
                          "' reports no time (pick one that measures or simulates)");
    return std::make_unique<BackendMeter>(**backend, device);
}

} // namespace tessera::cli
