// What the PCGC tests share (tst_pcgc, tst_pcgcxb): device presets by id,
// the convolution and batch-norm builders of their graphs, scheduling with
// PCGC (runSchedule: run + verify), running a plan against the sequential
// plan on the reference backend, and looking things up in a trace.
#pragma once

#include "backends/reference/reference.h"
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "plugins/pcgc/pcgc.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <string>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"

namespace tessera::pcgctest {

// A preset of the standard registry, looked up once.
inline const Device &device(const std::string &id)
{
    static std::map<std::string, Device> cache;
    auto it = cache.find(id);
    if (it == cache.end()) {
        auto d = DeviceRegistry::standard().lookup(id);
        EXPECT_TRUE(d.isOk()) << d.status().str();
        it = cache.emplace(id, d.isOk() ? *d : Device{}).first;
    }
    return it->second;
}

// kernel_shape k×k, "same" padding k/2.
inline AttrMap convAttrs(std::int64_t k)
{
    const std::int64_t p = k / 2;
    return {{"kernel_shape", {std::vector<std::int64_t>{k, k}}}, {"pads", {std::vector<std::int64_t>{p, p, p, p}}}};
}

// A k×k convolution cin → cout at size×size (batch 1), with its own weight.
inline TensorId conv(Graph &g, const std::string &name, TensorId in, std::int64_t cin, std::int64_t cout,
                     std::int64_t k, std::int64_t size)
{
    return testgraphs::op(g, name, "Conv", {in, testgraphs::weight(g, name + "/w", {cout, cin, k, k})},
                          {1, cout, size, size}, convAttrs(k));
}

inline TensorId batchNorm(Graph &g, const std::string &name, TensorId in, std::int64_t c, std::int64_t size)
{
    using testgraphs::weight;
    return testgraphs::op(g, name, "BatchNormalization",
                          {in, weight(g, name + "/s", {c}), weight(g, name + "/b", {c}), weight(g, name + "/m", {c}),
                           weight(g, name + "/v", {c})},
                          {1, c, size, size});
}

// PCGC on `device` with the shared cost model, options as text, overrides.
inline Expected<ScheduleRun> schedule(const Graph &g, const Device &device,
                                      const std::map<std::string, std::string> &opts = {},
                                      const Overrides &overrides = {})
{
    static const std::unique_ptr<IScheduler> scheduler = createPcgcScheduler();
    const DeviceCostModel cost(device);
    auto values = OptionValues::resolve(scheduler->info().options, opts);
    if (!values)
        return values.status();
    ScheduleRequest req;
    req.graph = &g;
    req.device = &device;
    req.cost = &cost;
    req.options = *values;
    return runSchedule(*scheduler, req, overrides);
}

inline Expected<ScheduleRun> schedule(const Graph &g, const std::string &deviceId,
                                      const std::map<std::string, std::string> &opts = {},
                                      const Overrides &overrides = {})
{
    return schedule(g, device(deviceId), opts, overrides);
}

// Runs `plan` and the sequential plan on the reference backend; outputs must be bit-equal.
inline void expectSameOutputs(const Graph &g, const ExecutionPlan &plan, std::uint64_t seed)
{
    std::unique_ptr<IBackend> backend = createReferenceBackend();
    auto seq = planutil::baselinePlan(g, "sequential");
    ASSERT_TRUE(seq.isOk()) << seq.status().str();
    const auto inputs = planutil::makeInputs(g, seed);
    auto a = planutil::compileAndRun(*backend, g, *seq, inputs);
    auto b = planutil::compileAndRun(*backend, g, plan, inputs);
    ASSERT_TRUE(a.isOk()) << a.status().str();
    ASSERT_TRUE(b.isOk()) << b.status().str();
    ASSERT_EQ(a->outputs.size(), b->outputs.size());
    for (std::size_t i = 0; i < a->outputs.size(); ++i)
        EXPECT_TRUE(planutil::bitEqual(a->outputs[i], b->outputs[i])) << "output " << a->outputs[i].name;
}

// A step whose title contains titlePart and whose conclusion contains conclusionPart.
inline bool traceHas(const Trace &t, const std::string &titlePart, const std::string &conclusionPart)
{
    return std::any_of(t.steps().begin(), t.steps().end(), [&](const TraceStep &s) {
        return s.title.find(titlePart) != std::string::npos && s.conclusion.find(conclusionPart) != std::string::npos;
    });
}

// The first decision of that role, or null.
inline const DecisionRecord *findRole(const DecisionContext &ctx, const std::string &role)
{
    for (const DecisionRecord &r : ctx.records())
        if (r.role == role)
            return &r;
    return nullptr;
}

} // namespace tessera::pcgctest
