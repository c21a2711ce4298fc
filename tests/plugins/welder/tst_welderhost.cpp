// §5.4 "Scale-up with host memory" (Table 7): a tensor larger than the device memory. On a V100
// whose HBM is shrunk to 2 MiB the Fig. 4 Conv → ReLU → MaxPool graph at 384×384 has tensors of
// 4.7 MB; with a host-memory level below the HBM (the device "extended with host memory", §3.3,
// states it: the level's kind is host, its name is free — "SYS" here) Welder
// loads tiles from host memory, connects operators in device memory and stores results back; the
// plan verifies (every HBM buffer fits), computes the sequential plan's outputs, and moves less
// at host memory than the unconnected variant (Table 7's reduced host traffic). Twins: the same
// device without the host level is refused with the tensor named and §5.4 in the message; a
// device with a host level gives Welder four levels, one whose slowest level is merely named
// HOST does not. The simulator backend times the plans (its
// capacity check, simulator.h S5, holds every HBM chunk within the 2 MiB), the connected plan
// faster than the unconnected one.
#include "backends/reference/reference.h"
#include "backends/sim/sim.h"
#include "core/hw/deviceregistry.h"
#include "core/plan/verify.h"
#include "core/sched/session.h"
#include "plugins/sequential/sequential.h"
#include "plugins/welder/memlevels.h"
#include "plugins/welder/welder.h"

#include <cmath>

#include "tests/backends/planutil.h"
#include "tests/plugins/welder/weldertest.h"

using namespace tessera;
using namespace tessera::weldertest;

namespace {

constexpr const char *kHost = "SYS"; // the host level's name: any, its kind says what it is

// The V100 with 2 MiB of HBM (L2 512 KiB, so capacities still grow), with or without host memory
// below it (PCIe 3 ×16: 16 GB/s).
Device smallV100(bool withHost, MemoryKind hostKind = MemoryKind::Host, const char *hostName = kHost)
{
    Device d = device("nvidia-v100");
    d.id = withHost ? "v100-2mib-host" : "v100-2mib";
    for (MemoryLevel &l : d.levels) {
        if (l.name == "L2")
            l.capacityBytes = 512 * 1024;
        if (l.name == "HBM")
            l.capacityBytes = 2 * 1024 * 1024;
    }
    if (withHost) {
        MemoryLevel host;
        host.name = hostName;
        host.kind = hostKind;
        host.scope = MemoryScope::Shared;
        host.capacityBytes = std::int64_t{64} << 30;
        host.bandwidthBytesPerSec = 16e9;
        host.readTransactionBytes = host.writeTransactionBytes = 64;
        host.latencyNs = 1000;
        d.levels.push_back(host);
    }
    EXPECT_TRUE(validateDevice(d).isOk()) << validateDevice(d).str();
    return d;
}

double levelBytes(const ExecutionPlan &plan, const std::string &level)
{
    double bytes = 0;
    for (const Task &t : plan.tasks)
        if (auto it = t.cost.bytesByLevel.find(level); it != t.cost.bytesByLevel.end())
            bytes += double(it->second);
    return bytes;
}

Expected<ScheduleRun> runWelder(const Graph &g, const Device &d, std::map<std::string, std::string> options = {})
{
    static const auto scheduler = createWelderScheduler();
    ScheduleSetup s;
    s.options = std::move(options);
    return scheduleGraph(g, d, *scheduler, s);
}

} // namespace

TEST(WelderSection54, HostLevelMakesDeviceMemoryALevel)
{
    auto levels = welder::memLevels(smallV100(true));
    ASSERT_TRUE(levels.isOk());
    ASSERT_EQ(levels->top(), 3);
    EXPECT_TRUE(levels->host);
    EXPECT_EQ(levels->at(0).name, kHost);
    EXPECT_EQ(levels->at(1).name, "HBM");
    EXPECT_EQ(levels->at(1).capacityBytes, 2 * 1024 * 1024);
    EXPECT_EQ(levels->at(2).name, "SMEM");
    EXPECT_EQ(levels->at(3).name, "REG");
    // Twin: without HOST the HBM is level 0 and L2 the cache in front of it.
    auto plain = welder::memLevels(smallV100(false));
    ASSERT_TRUE(plain.isOk());
    EXPECT_FALSE(plain->host);
    EXPECT_EQ(plain->at(0).name, "HBM");
    EXPECT_EQ(plain->cacheLevel, "L2");
    // Twin: a slowest level named HOST whose kind is not host is a plain (slower) memory.
    auto named = welder::memLevels(smallV100(true, MemoryKind::Memory, "HOST"));
    ASSERT_TRUE(named.isOk());
    EXPECT_FALSE(named->host);
    EXPECT_EQ(named->at(0).name, "HOST");
    EXPECT_EQ(named->at(1).name, "SMEM"); // the HBM is a shared level in between: skipped as the cache
}

TEST(WelderSection54, InputLargerThanDeviceMemoryGoesThroughHostMemory)
{
    const Graph g = convReluPool(8, 8, 384); // x and the conv output: 4.7 MB each
    const Device d = smallV100(true);
    auto run = runWelder(g, d);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &plan = run->result.plan;
    EXPECT_TRUE(verifyPlan(plan, g, &d).isOk());
    // Whole tensors in host memory; device memory holds tiles that fit it.
    bool hostBuffer = false, hbmBuffer = false;
    for (const Buffer &b : plan.buffers) {
        hostBuffer |= b.level == kHost;
        if (b.level == "HBM") {
            hbmBuffer = true;
            EXPECT_LE(b.bytes, 2 * 1024 * 1024);
        }
    }
    EXPECT_TRUE(hostBuffer);
    EXPECT_TRUE(hbmBuffer);
    EXPECT_EQ(plan.kernels.size(), 1u); // conv, relu and pool connected in device memory or above
    EXPECT_GT(levelBytes(plan, kHost), 0.0);

    // Table 7: connecting at the device memory reduces host traffic against no connection.
    auto none = runWelder(g, d, {{"variant", "none"}});
    ASSERT_TRUE(none.isOk()) << none.status().str();
    EXPECT_EQ(none->result.plan.kernels.size(), 3u);
    EXPECT_LT(levelBytes(plan, kHost), levelBytes(none->result.plan, kHost));
    EXPECT_LT(plan.estimatedLatencyNs(), none->result.plan.estimatedLatencyNs());

    // The tiles compute the graph's function.
    auto seq = scheduleGraph(g, d, *createSequentialScheduler(), {});
    ASSERT_TRUE(seq.isOk()) << seq.status().str();
    auto backend = createReferenceBackend();
    const auto inputs = planutil::makeInputs(g, 5);
    auto a = planutil::compileAndRun(*backend, g, plan, inputs);
    ASSERT_TRUE(a.isOk()) << a.status().str();
    auto b = planutil::compileAndRun(*backend, g, seq->result.plan, inputs);
    ASSERT_TRUE(b.isOk()) << b.status().str();
    ASSERT_EQ(a->outputs.size(), b->outputs.size());
    double worst = 0;
    for (std::int64_t k = 0; k < a->outputs[0].elements(); ++k)
        worst = std::max(worst, std::abs(double(a->outputs[0].f32()[k]) - b->outputs[0].f32()[k]));
    EXPECT_LE(worst, 1e-4);
}

// Twin: no host level, so the 4.7 MB input cannot live in 2 MiB of HBM: refused, the reason named.
TEST(WelderSection54, TooLargeWithoutHostLevelIsRefusedWithTheReason)
{
    const Graph g = convReluPool(8, 8, 384);
    auto run = runWelder(g, smallV100(false));
    ASSERT_FALSE(run.isOk());
    EXPECT_NE(run.status().message().find("more than HBM holds"), std::string::npos) << run.status().str();
    EXPECT_NE(run.status().message().find("§5.4"), std::string::npos) << run.status().str();
    // And the same graph at a size that fits is scheduled on that device.
    EXPECT_TRUE(runWelder(convReluPool(8, 8, 128), smallV100(false)).isOk());
}

// §3.3 lowering on the simulator backend: the tile tasks run on the device model within every
// level's capacity (the V100 as shipped, and the 2 MiB-HBM V100 through host memory); connecting
// is faster than not connecting in simulated time too (Fig. 13), host memory or not.
TEST(WelderSimulated, TilesRunOnTheDeviceModelAndConnectingIsFaster)
{
    auto sim = createSimBackend(nullptr);
    auto simulatedMs = [&](const Graph &g, const Device &d, const char *variant) {
        auto run = runWelder(g, d, {{"variant", variant}});
        EXPECT_TRUE(run.isOk()) << run.status().str();
        if (!run)
            return -1.0;
        CompileContext ctx;
        ctx.device = &d;
        auto compiled = sim->compileFor(g, run->result.plan, ctx);
        EXPECT_TRUE(compiled.isOk()) << compiled.status().str();
        if (!compiled)
            return -1.0;
        auto r = sim->run(**compiled, planutil::makeInputs(g, 3));
        EXPECT_TRUE(r.isOk()) << r.status().str();
        return r ? r->metrics.at("sim_time_ms") : -1.0;
    };
    const Graph small = convReluPool(8, 16, 64);
    const double connected = simulatedMs(small, device("nvidia-v100"), "welder");
    const double none = simulatedMs(small, device("nvidia-v100"), "none");
    EXPECT_GT(connected, 0.0);
    EXPECT_LT(connected, none);
    const Graph large = convReluPool(8, 8, 384);
    const Device host = smallV100(true);
    const double hostConnected = simulatedMs(large, host, "welder");
    const double hostNone = simulatedMs(large, host, "none");
    EXPECT_GT(hostConnected, 0.0);
    EXPECT_LT(hostConnected, hostNone);
}
