// Fidelity of the device cost model (issue 10, docs/cost-model.md): every
// scheduler's plan of the four IOS networks, costed by the one model of the
// nvidia-v100 preset, against the IOS artifact's measurements on a V100
// (reference/ios/results_readme.csv, batch 1): each within ±30 %, and in the
// measured order wherever two measurements of a network differ by more than
// 10 %. IOS-Both beats sequential on V100 and A100, as measured.
#include "core/sched/session.h"
#include "plugins/greedy/greedy.h"
#include "plugins/ios/ios.h"
#include "plugins/sequential/sequential.h"

#include <array>
#include <gtest/gtest.h>
#include <set>

#include "tests/plugins/iostest.h"

using namespace tessera;
using namespace tessera::iostest;

namespace {

constexpr const char *kSchedules[] = {"Sequential", "Greedy", "IOS-Merge", "IOS-Parallel", "IOS-Both"};

struct Measured {
    const char *network;
    double ms[5]; // in kSchedules order; results_readme.csv, paper_schedules, batch 1
};
constexpr Measured kMeasured[] = {{"inception_v3", {6.51, 4.62, 5.39, 4.11, 4.03}},
                                  {"randwire", {8.49, 6.27, 8.54, 6.02, 6.02}},
                                  {"nasnet", {22.95, 16.78, 22.94, 16.04, 16.04}},
                                  {"squeezenet", {0.86, 0.98, 0.74, 0.82, 0.73}}};

const Device &a100()
{
    static const Device d = [] {
        auto dev = DeviceRegistry::standard().lookup("nvidia-a100");
        EXPECT_TRUE(dev.isOk()) << dev.status().str();
        return *dev;
    }();
    return d;
}

// The five schedules' estimated latencies (ms) of one network on one device.
std::array<double, 5> estimates(const std::string &network, const Device &device)
{
    const ImportResult &model = iosNetwork(network);
    auto sequential = createSequentialScheduler();
    auto greedy = createGreedyScheduler();
    auto ios = createIosScheduler();
    std::array<double, 5> ms{};
    for (int v = 0; v < 5; ++v) {
        ScheduleSetup setup;
        setup.modelProperties = model.metadata.properties;
        if (v >= 2)
            setup.options = {{"strategy", v == 2 ? "merge" : v == 3 ? "parallel" : "both"}};
        const IScheduler &s = v == 0 ? *sequential : v == 1 ? *greedy : *ios;
        auto run = scheduleGraph(model.graph, device, s, setup);
        EXPECT_TRUE(run.isOk()) << network << " " << kSchedules[v] << ": " << run.status().str();
        ms[static_cast<std::size_t>(v)] = run ? run->result.plan.estimatedLatencyNs() / 1e6 : 0.0;
    }
    return ms;
}

// Cells the calibrated model does not yet meet (docs/cost-model.md "Known
// limits", BENCHMARKS.md). Each is checked to be still outside, so the list
// shrinks as the model improves and never hides a new miss.
const std::set<std::string> kKnownOutside = {};
// Measured orders the model misses (none since depthwise convolutions are
// costed as grouped implicit GEMMs, devicecost.h S2); each listed pair is
// checked to be still misordered.
const std::set<std::string> kKnownMisordered = {};

class CostFidelity : public ::testing::TestWithParam<Measured>
{
};

} // namespace

TEST_P(CostFidelity, WithinThirtyPercentAndInTheMeasuredOrder)
{
    const Measured &m = GetParam();
    const std::array<double, 5> est = estimates(m.network, v100());
    for (int v = 0; v < 5; ++v) {
        const double ratio = est[static_cast<std::size_t>(v)] / m.ms[v];
        const std::string cell = std::string(m.network) + "/" + kSchedules[v];
        const bool within = ratio >= 0.7 && ratio <= 1.3;
        EXPECT_EQ(within, !kKnownOutside.count(cell))
            << cell << ": " << est[static_cast<std::size_t>(v)] << " ms estimated, " << m.ms[v]
            << " ms measured, ratio " << ratio;
    }
    for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 5; ++b)
            if (m.ms[a] > 1.1 * m.ms[b]) {
                const std::string pair = std::string(m.network) + "/" + kSchedules[a] + ">" + kSchedules[b];
                EXPECT_EQ(est[static_cast<std::size_t>(a)] > est[static_cast<std::size_t>(b)],
                          !kKnownMisordered.count(pair))
                    << pair << ": measured " << m.ms[a] << " > " << m.ms[b] << " ms, estimated "
                    << est[static_cast<std::size_t>(a)] << " and " << est[static_cast<std::size_t>(b)] << " ms";
            }
}

TEST_P(CostFidelity, IosBothBeatsSequentialOnV100AndA100)
{
    const Measured &m = GetParam();
    for (const Device *d : {&v100(), &a100()}) {
        const std::array<double, 5> est = estimates(m.network, *d);
        EXPECT_LT(est[4], est[0]) << m.network << " on " << d->id << ": IOS-Both " << est[4] << " ms, sequential "
                                  << est[0] << " ms";
    }
}

INSTANTIATE_TEST_SUITE_P(IosNetworks, CostFidelity, ::testing::ValuesIn(kMeasured),
                         [](const ::testing::TestParamInfo<Measured> &i) { return std::string(i.param.network); });
