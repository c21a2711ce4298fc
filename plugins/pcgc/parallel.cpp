#include "plugins/pcgc/parallel.h"

#include "plugins/pcgc/lowering.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace tessera::pcgc {

namespace {

std::string fmt(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

} // namespace

std::int32_t virtualUnits(const Device &device, OpClass opClass, DType dtype)
{
    auto count = [&](bool needClass) {
        std::int32_t n = 0;
        for (const ComputeUnit &u : device.units) {
            auto peak = u.peakOpsPerSec.find(dtype);
            if (peak == u.peakOpsPerSec.end() || !(peak->second > 0) || (needClass && !u.supports(opClass)))
                continue;
            n += (u.cores > 0 ? u.cores : device.totalCores()) * u.countPerCore;
        }
        return n;
    };
    const std::int32_t n = count(true);
    return n > 0 ? n : count(false);
}

ParallelPlan planParallel(const Graph &g, const Device &device, const CostModel &cost, const Partition &partition,
                          bool allowParallel, DecisionContext &decisions, Trace &trace)
{
    std::vector<std::vector<NodeId>> groups;
    for (const FusedGroup &grp : partition.groups)
        groups.push_back(grp.nodes);
    const std::vector<std::int32_t> rank = nodeRanks(g);
    const std::vector<std::size_t> order = groupOrder(g, groups, rank);
    std::vector<std::int64_t> groupOf(g.nodeCount(), -1);
    for (std::size_t i = 0; i < groups.size(); ++i)
        for (NodeId n : groups[i])
            groupOf[static_cast<std::size_t>(n)] = static_cast<std::int64_t>(i);
    std::vector<std::int32_t> wave(groups.size(), 0);
    std::int32_t waves = 0;
    for (std::size_t i : order) {
        for (NodeId n : groups[i])
            for (NodeId p : g.predecessors(n)) {
                const std::int64_t j = groupOf[static_cast<std::size_t>(p)];
                if (j >= 0 && static_cast<std::size_t>(j) != i)
                    wave[i] = std::max(wave[i], wave[static_cast<std::size_t>(j)] + 1);
            }
        waves = std::max(waves, wave[i] + 1);
    }
    std::vector<std::vector<std::size_t>> members(static_cast<std::size_t>(waves));
    for (std::size_t i : order)
        members[static_cast<std::size_t>(wave[i])].push_back(i);

    // Every wave serial first; each wave of independent sub-graphs is then
    // judged in order against the plan as decided so far.
    ParallelPlan plan;
    for (const auto &m : members)
        plan.waves.push_back({{m}});
    double current = lowerPartition(g, cost, partition, plan).estimatedLatencyNs();
    for (std::int32_t w = 0; w < waves; ++w) {
        const std::vector<std::size_t> &m = members[static_cast<std::size_t>(w)];
        if (m.size() < 2)
            continue;
        OpClass heaviest = OpClass::Other;
        DType dtype = DType::Float32;
        bool first = true;
        std::vector<KernelEstimate> estimates;
        for (std::size_t i : m) {
            for (NodeId n : groups[i]) {
                const Node &node = g.node(n);
                const OpClass c = opClassOf(node.opType);
                if (first || opClassWeight(c) > opClassWeight(heaviest)) {
                    heaviest = c;
                    if (!node.outputs.empty() && node.outputs.front() != kInvalidId)
                        dtype = g.tensor(node.outputs.front()).dtype;
                    first = false;
                }
            }
            estimates.push_back(cost.estimateKernel(g, groups[i], {}));
        }
        const std::int32_t units = virtualUnits(device, heaviest, dtype);
        const std::size_t s = std::min<std::size_t>(m.size(), static_cast<std::size_t>(std::max(1, units)));
        // Longest first onto the least-loaded stream.
        std::vector<std::size_t> byTime(m.size());
        std::iota(byTime.begin(), byTime.end(), 0);
        std::stable_sort(byTime.begin(), byTime.end(), [&](std::size_t a, std::size_t b) {
            return estimates[a].cost.timeNs > estimates[b].cost.timeNs;
        });
        std::vector<std::vector<std::size_t>> streams(s);
        std::vector<double> load(s, 0);
        for (std::size_t k : byTime) {
            const std::size_t to = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
            streams[to].push_back(k);
            load[to] += estimates[k].cost.timeNs;
        }
        for (auto &st : streams)
            std::sort(st.begin(), st.end()); // issue in dependence order within a stream
        std::vector<std::vector<const KernelEstimate *>> serialStreams(1), parallelStreams(s);
        for (std::size_t k = 0; k < m.size(); ++k)
            serialStreams[0].push_back(&estimates[k]);
        for (std::size_t j = 0; j < s; ++j)
            for (std::size_t k : streams[j])
                parallelStreams[j].push_back(&estimates[k]);
        const double serialNs = cost.stageSpanNs(serialStreams);
        const double parallelNs = s > 1 ? cost.stageSpanNs(parallelStreams) + cost.barrierAfterNs(s) : serialNs;
        Wave parallelWave;
        for (const auto &st : streams) {
            parallelWave.streams.emplace_back();
            for (std::size_t k : st)
                parallelWave.streams.back().push_back(m[k]);
        }
        const std::string illegal = !allowParallel ? "parallel processing is off (option parallel=0)"
                                    : s < 2 ? "one virtual " + std::string(opClassName(heaviest)) + " unit: serial only"
                                            : std::string();
        ParallelPlan trial = plan;
        double planParallelNs = current;
        if (illegal.empty()) {
            trial.waves[static_cast<std::size_t>(w)] = parallelWave;
            planParallelNs = lowerPartition(g, cost, partition, trial).estimatedLatencyNs();
        }

        std::vector<NodeId> touched;
        for (std::size_t i : m)
            touched.insert(touched.end(), groups[i].begin(), groups[i].end());
        std::vector<DecisionOption> options{
            {"serial",
             "serial (one stream)",
             current,
             "wave span " + fmt(serialNs) + " ns; plan " + fmt(current) + " ns",
             {}},
            {"parallel", "parallel on " + std::to_string(s) + " streams", planParallelNs,
             "wave span " + fmt(parallelNs) + " ns with the barrier; plan " + fmt(planParallelNs) + " ns; " +
                 std::to_string(units) + " virtual " + std::string(opClassName(heaviest)) + " units",
             illegal}};
        const std::int32_t preferred = options[1].legal() && planParallelNs < current ? 1 : 0;
        std::vector<std::string> names;
        for (std::size_t i : m)
            names.push_back(groupLabel(g, groups[i]));
        const std::int32_t pick =
            decisions.decide(decisionKey("pcgc.parallel", names), "pcgc.parallel", options, preferred);
        auto &step = trace.add(
            "parallel", "wave " + std::to_string(w + 1) + ": " + std::to_string(m.size()) + " independent sub-graphs",
            pick == 1 ? "parallel on " + std::to_string(s) + " streams" : "serial",
            std::to_string(units) + " virtual " + std::string(opClassName(heaviest)) + " units; span serial " +
                fmt(serialNs) + " ns, parallel " + fmt(parallelNs) + " ns (§3.4, Example 4)");
        step.touched = touched;
        step.numbers = {{"units", double(units)},    {"streams", double(pick == 1 ? s : 1)},
                        {"serial_ns", serialNs},     {"parallel_ns", parallelNs},
                        {"plan_serial_ns", current}, {"plan_parallel_ns", planParallelNs}};
        trace.linkLastDecision(decisions);
        if (pick == 1) {
            plan = std::move(trial);
            plan.waves[static_cast<std::size_t>(w)] = parallelWave;
            current = planParallelNs;
            ++plan.parallelWaves;
        }
    }
    return plan;
}

} // namespace tessera::pcgc
