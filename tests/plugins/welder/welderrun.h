// Fixtures shared by the Welder scheduling tests (tst_welderschedule, tst_welderreplay): one
// scheduler instance run through scheduleGraph on a preset device, the MobileNetV2 sample at 32×32
// imported from ONNX, and the first overridable connection and tile decisions of a run.
// Needs tessera_plugin_welder, tessera_samples, tessera_onnx and onnx_proto linked.
#pragma once

#include "core/onnx/importer.h"
#include "core/sched/session.h"
#include "plugins/welder/welder.h"
#include "samples/catalog.h"

#include <onnx/onnx_pb.h>
#include <string>

#include "tests/plugins/welder/weldertest.h"

namespace tessera::weldertest {

inline Expected<ScheduleRun> welder(const Graph &g, const std::string &dev, const ScheduleSetup &setup = {})
{
    static const auto scheduler = createWelderScheduler();
    return scheduleGraph(g, device(dev), *scheduler, setup);
}

// A sample from samples/catalog.h at `imageSize`, serialised and imported as an ONNX model.
inline Graph importedSample(const std::string &name, int imageSize)
{
    samples::SampleOptions o;
    o.imageSize = imageSize;
    auto model = samples::buildSample(name, o);
    EXPECT_TRUE(model.isOk()) << model.status().str();
    if (!model)
        return {};
    auto imported = importModelFromBytes((*model)->SerializeAsString(), name + ".onnx");
    EXPECT_TRUE(imported.isOk()) << imported.status().str();
    return imported ? std::move(imported->graph) : Graph{};
}

inline Graph mobileNetV2Small()
{
    return importedSample("mobilenetv2", 32);
}

// The first connected edge (forced to its first option, not connected) and the first tile decision
// with a second candidate (forced to it); empty keys when the run has none.
struct ForcedChoices {
    std::string connectKey, connectTo, tileKey, tileTo;
};

inline ForcedChoices overridesOf(const ScheduleRun &run)
{
    ForcedChoices o;
    for (const DecisionRecord &r : run.decisions.records()) {
        if (o.connectKey.empty() && r.role == "welder.connect" && r.chosen != 0) {
            o.connectKey = r.key;
            o.connectTo = r.options[0].id;
        }
        if (o.tileKey.empty() && r.role == "welder.tile" && r.options.size() >= 2) {
            o.tileKey = r.key;
            o.tileTo = r.options[1].id;
        }
    }
    return o;
}

} // namespace tessera::weldertest
