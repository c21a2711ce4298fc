// bench_ios: IOS search time and peak memory on the four IOS networks with the
// analytic V100 stage latency model (issue 4's targets: Inception V3 r=3 s=8
// under 1 s and unpruned under 10 s; RandWire and NasNet r=3 s=8 under 30 s
// each with bounded memory). Import time is reported apart from the search;
// search time as wall and as process CPU time (the build machine is shared);
// memory as the process's peak resident set (VmHWM, the imports dominate it)
// and the largest part's dp table with its stage latency cache.
// Needs tessera_plugin_ios and tessera_samples linked.
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "core/sched/session.h"
#include "plugins/greedy/greedy.h"
#include "plugins/ios/ios.h"
#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosimport.h"
#include "plugins/ios/iossearch.h"
#include "plugins/ios/stagelatency.h"
#include "plugins/sequential/sequential.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// A field of /proc/self/status in kB: "VmHWM" (peak resident set), "VmRSS".
long statusKb(const char *field)
{
    std::ifstream status("/proc/self/status");
    const std::string key = std::string(field) + ":";
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(key, 0) == 0)
            return std::stol(line.substr(key.size()));
    return -1;
}

// The fidelity table (issue 10): every scheduler's plan of the four IOS
// networks, costed by the device cost model, against the artifact's V100
// measurements (reference/ios/results_readme.csv, batch 1, ms); then IOS-Both
// against sequential on the A100.
int fidelity()
{
    using namespace tessera;
    struct Row {
        const char *network;
        double ms[5]; // Sequential, Greedy, IOS-Merge, IOS-Parallel, IOS-Both
    };
    const Row rows[] = {{"inception_v3", {6.51, 4.62, 5.39, 4.11, 4.03}},
                        {"randwire", {8.49, 6.27, 8.54, 6.02, 6.02}},
                        {"nasnet", {22.95, 16.78, 22.94, 16.04, 16.04}},
                        {"squeezenet", {0.86, 0.98, 0.74, 0.82, 0.73}}};
    const char *names[] = {"Sequential", "Greedy", "IOS-Merge", "IOS-Parallel", "IOS-Both"};
    auto sequential = createSequentialScheduler();
    auto greedy = createGreedyScheduler();
    auto ios = createIosScheduler();
    std::printf("| network | device |");
    for (const char *n : names)
        std::printf(" %s |", n);
    std::printf("\n| --- | --- |%s\n", " ---: | ---: | ---: | ---: | ---: |");
    for (const char *deviceId : {"nvidia-v100", "nvidia-a100"}) {
        auto device = DeviceRegistry::standard().lookup(deviceId);
        if (!device) {
            std::fprintf(stderr, "%s\n", device.status().str().c_str());
            return 1;
        }
        for (const Row &row : rows) {
            auto model = importIosNetwork(row.network);
            if (!model) {
                std::fprintf(stderr, "%s\n", model.status().str().c_str());
                return 1;
            }
            std::printf("| %s | %s |", row.network, deviceId);
            for (int v = 0; v < 5; ++v) {
                ScheduleSetup setup;
                setup.modelProperties = model->metadata.properties;
                const IScheduler *scheduler = v == 0 ? sequential.get() : v == 1 ? greedy.get() : ios.get();
                if (v >= 2)
                    setup.options = {{"strategy", v == 2 ? "merge" : v == 3 ? "parallel" : "both"}};
                auto run = scheduleGraph(model->graph, *device, *scheduler, setup);
                if (!run) {
                    std::printf(" %s |", run.status().str().c_str());
                    continue;
                }
                const double ms = run->result.plan.estimatedLatencyNs() / 1e6;
                if (std::string(deviceId) == "nvidia-v100")
                    std::printf(" %.2f / %.2f = %.2f |", ms, row.ms[v], ms / row.ms[v]);
                else
                    std::printf(" %.2f |", ms);
            }
            std::printf("\n");
        }
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    using namespace tessera;
    if (argc > 1 && std::string(argv[1]) == "--fidelity")
        return fidelity();
    auto device = DeviceRegistry::standard().lookup("nvidia-v100");
    if (!device) {
        std::fprintf(stderr, "%s\n", device.status().str().c_str());
        return 1;
    }
    struct Case {
        const char *network;
        int r, s;
        double targetMs;
    };
    const Case cases[] = {{"inception_v3", 3, 8, 1000}, {"inception_v3", 64, 64, 10000}, {"squeezenet", 3, 8, 1000},
                          {"randwire", 3, 8, 30000},    {"nasnet", 3, 8, 30000},         {"randwire", 64, 64, 0},
                          {"nasnet", 64, 64, 0}};
    std::printf("%-13s %7s %9s %9s %9s %10s %12s %6s %7s %11s %7s %9s %s\n", "network", "r,s", "import_ms", "search_ms",
                "cpu_ms", "states", "transitions", "parts", "stages", "latency_ms", "peak_MB", "table_MB", "target");
    for (const Case &c : cases) {
        const auto t0 = Clock::now();
        auto model = importIosNetwork(c.network);
        if (!model) {
            std::fprintf(stderr, "%s\n", model.status().str().c_str());
            return 1;
        }
        auto units = iosUnitsOf(*model);
        if (!units) {
            std::fprintf(stderr, "%s\n", units.status().str().c_str());
            return 1;
        }
        const double importMs = msSince(t0);
        const auto t1 = Clock::now();
        const std::clock_t c1 = std::clock();
        const DeviceCostModel cost(*device);
        const ModelStageLatency latency(model->graph, *units, cost);
        IosSearchOptions options;
        options.maxGroupSize = c.r;
        options.maxGroups = c.s;
        auto result = iosSearch(model->graph, *units, latency, options);
        const double searchMs = msSince(t1);
        const double cpuMs = 1000.0 * double(std::clock() - c1) / CLOCKS_PER_SEC;
        if (!result) {
            std::printf("%-13s %3d,%-3d  %s\n", c.network, c.r, c.s, result.status().str().c_str());
            continue;
        }
        std::int64_t states = 0, transitions = 0, tableBytes = 0;
        for (const IosPartStats &p : result->parts) {
            states += p.states;
            transitions += p.transitions;
            tableBytes = std::max(tableBytes, p.tableBytes);
        }
        std::printf("%-13s %3d,%-3d %9.1f %9.1f %9.1f %10lld %12lld %6zu %7zu %11.4f %7.1f %9.1f %s\n", c.network, c.r,
                    c.s, importMs, searchMs, cpuMs, static_cast<long long>(states), static_cast<long long>(transitions),
                    result->parts.size(), result->schedule.stages.size(), result->optimumNs / 1e6,
                    double(statusKb("VmHWM")) / 1024.0, double(tableBytes) / (1 << 20),
                    c.targetMs <= 0          ? "-"
                    : searchMs <= c.targetMs ? "ok"
                                             : "SLOW");
    }

    // The analytic stage latency against the artifact's V100 measurements
    // (reference/ios/results_readme.csv, batch 1, ms). Sequential is the DP
    // with r = s = 1 (one unit per stage).
    struct Measured {
        const char *network;
        const char *variant;
        bool merge, parallel;
        int r, s;
        double ms;
    };
    const Measured measured[] = {
        {"inception_v3", "Sequential", false, true, 1, 1, 6.51},
        {"inception_v3", "IOS-Merge", true, false, 3, 8, 5.39},
        {"inception_v3", "IOS-Parallel", false, true, 3, 8, 4.11},
        {"inception_v3", "IOS-Both", true, true, 3, 8, 4.03},
        {"randwire", "Sequential", false, true, 1, 1, 8.49},
        {"randwire", "IOS-Parallel", false, true, 3, 8, 6.02},
        {"nasnet", "Sequential", false, true, 1, 1, 22.95},
        {"nasnet", "IOS-Parallel", false, true, 3, 8, 16.04},
        {"squeezenet", "Sequential", false, true, 1, 1, 0.86},
        {"squeezenet", "IOS-Merge", true, false, 3, 8, 0.74},
        {"squeezenet", "IOS-Parallel", false, true, 3, 8, 0.82},
        {"squeezenet", "IOS-Both", true, true, 3, 8, 0.73},
    };
    std::printf("\n%-13s %-13s %11s %11s %7s\n", "network", "variant", "analytic_ms", "measured_ms", "ratio");
    for (const Measured &m : measured) {
        auto model = importIosNetwork(m.network);
        auto units = model ? iosUnitsOf(*model) : Expected<IosUnitSet>(model.status());
        if (!units) {
            std::fprintf(stderr, "%s\n", units.status().str().c_str());
            return 1;
        }
        const DeviceCostModel cost(*device);
        const ModelStageLatency latency(model->graph, *units, cost);
        IosSearchOptions options;
        options.merge = m.merge;
        options.parallel = m.parallel;
        options.maxGroupSize = m.r;
        options.maxGroups = m.s;
        auto result = iosSearch(model->graph, *units, latency, options);
        if (!result) {
            std::printf("%-13s %-13s %s\n", m.network, m.variant, result.status().str().c_str());
            continue;
        }
        const double ms = result->optimumNs / 1e6;
        std::printf("%-13s %-13s %11.2f %11.2f %7.2f\n", m.network, m.variant, ms, m.ms, ms / m.ms);
    }

    // The DP explorer's price: the whole scheduler (r=3, s=8) without and with
    // the search space recorded (default SearchSpaceRequest limits).
    std::printf("\n%-13s %13s %13s %9s %12s %10s\n", "network", "schedule_ms", "explorer_ms", "tables", "transitions",
                "space_MB");
    auto scheduler = createIosScheduler();
    for (const char *network : {"inception_v3", "squeezenet", "randwire", "nasnet"}) {
        auto model = importIosNetwork(network);
        if (!model) {
            std::fprintf(stderr, "%s\n", model.status().str().c_str());
            return 1;
        }
        ScheduleSetup setup;
        setup.modelProperties = model->metadata.properties;
        auto t0 = Clock::now();
        auto plain = scheduleGraph(model->graph, *device, *scheduler, setup);
        const double plainMs = msSince(t0);
        setup.searchSpace = SearchSpaceRequest{};
        t0 = Clock::now();
        auto explored = scheduleGraph(model->graph, *device, *scheduler, setup);
        const double exploredMs = msSince(t0);
        if (!plain || !explored || !explored->result.searchSpace) {
            std::printf("%-13s failed\n", network);
            continue;
        }
        std::size_t transitions = 0;
        double bytes = 0;
        for (const SearchSpace::Table &t : explored->result.searchSpace->tables) {
            transitions += t.transitions.size();
            bytes += double(t.states.size() * sizeof(SearchSpace::State) +
                            t.transitions.size() * sizeof(SearchSpace::Transition));
            for (const SearchSpace::State &st : t.states)
                bytes += double(st.label.size() + st.nodes.size() * sizeof(NodeId));
            for (const SearchSpace::Transition &tr : t.transitions)
                bytes += double(tr.label.size() + tr.decisionKey.size() + tr.optionId.size() +
                                tr.nodes.size() * sizeof(NodeId));
        }
        std::printf("%-13s %13.1f %13.1f %9zu %12zu %10.1f\n", network, plainMs, exploredMs,
                    explored->result.searchSpace->tables.size(), transitions, bytes / (1 << 20));
    }
    return 0;
}
