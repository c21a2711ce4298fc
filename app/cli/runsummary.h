// The summary of a scheduling run as `schedule --json` and `replay --json`
// print it (keys: algorithm, device, model, model_hash, kernels, tasks, steps,
// decisions, search_ms, verify_ms, est_latency_ms, energy_j, traffic_bytes,
// stats, overrides). Commands add their own keys to the returned object.
#pragma once

#include "core/sched/scheduler.h"

#include <QJsonObject>

#include <string>

namespace tessera::cli {

QJsonObject runSummaryJson(const ScheduleRun &run, const std::string &algorithm, const std::string &device,
                           const std::string &model);

} // namespace tessera::cli
