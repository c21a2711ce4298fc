// Fixtures shared by the IOS tests: one-unit-per-node unit sets, a table-driven
// stage latency model, the V100 preset and the IOS networks imported once.
#pragma once

#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "core/ir/analysis.h"
#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosimport.h"
#include "plugins/ios/stagelatency.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <string>

namespace tessera::iostest {

// Every node its own unit, one block, node order.
inline IosUnitSet unitsPerNode(const Graph &g)
{
    IosUnitSet set;
    set.source = "test";
    IosBlock block{"block0", {}, {}};
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n) {
        block.units.push_back(static_cast<std::int32_t>(set.units.size()));
        set.units.push_back({g.node(n).name, {n}});
    }
    set.blocks = {block};
    const Status s = finalizeIosUnits(g, set);
    EXPECT_TRUE(s.isOk()) << s.str();
    return set;
}

// Concurrent: max over groups of Σ unit cost + gap per extra unit in a group;
// Merge: the largest unit; every stage adds syncNs.
class TableLatency final : public StageLatencyModel
{
public:
    std::vector<double> unitNs;
    double syncNs = 1;
    double gapNs = 0;

    std::string name() const override { return "table"; }
    double stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const override
    {
        double stage = 0;
        for (const auto &g : groups) {
            double sum = 0;
            for (std::int32_t u : g)
                sum = strategy == IosStrategy::Merge ? std::max(sum, unitNs[static_cast<std::size_t>(u)])
                                                     : sum + unitNs[static_cast<std::size_t>(u)];
            if (strategy == IosStrategy::Concurrent)
                sum += gapNs * static_cast<double>(g.size() - 1);
            stage = std::max(stage, sum);
        }
        return stage + syncNs;
    }
};

inline const Device &v100()
{
    static const Device d = [] {
        auto dev = DeviceRegistry::standard().lookup("nvidia-v100");
        EXPECT_TRUE(dev.isOk()) << dev.status().str();
        return *dev;
    }();
    return d;
}

// The V100's cost model: every scheduler's and every stage's estimate.
inline const DeviceCostModel &v100Cost()
{
    static const DeviceCostModel m(v100());
    return m;
}

// The four IOS networks, imported once per test binary.
inline const ImportResult &iosNetwork(const std::string &name)
{
    static std::map<std::string, std::unique_ptr<ImportResult>> cache;
    auto &slot = cache[name];
    if (!slot) {
        auto model = importIosNetwork(name);
        EXPECT_TRUE(model.isOk()) << model.status().str();
        slot = std::make_unique<ImportResult>(std::move(*model));
    }
    return *slot;
}

inline IosUnitSet iosUnits(const std::string &name)
{
    auto units = iosUnitsOf(iosNetwork(name));
    EXPECT_TRUE(units.isOk()) << units.status().str();
    return *units;
}

inline std::string unitNames(const IosUnitSet &set, const std::vector<std::int32_t> &units)
{
    std::string out;
    for (std::int32_t u : units)
        out += (out.empty() ? "" : ",") + set.units[static_cast<std::size_t>(u)].name;
    return out;
}

// "a | b,c ; d" — stages separated by ';', groups by '|', merges as "{a+b}".
inline std::string scheduleText(const IosUnitSet &set, const IosSchedule &schedule)
{
    std::string out;
    for (const IosStage &s : schedule.stages) {
        out += out.empty() ? "" : " ; ";
        if (s.strategy == IosStrategy::Merge && s.groups[0].size() > 1) {
            std::string m = unitNames(set, s.groups[0]);
            std::replace(m.begin(), m.end(), ',', '+');
            out += "{" + m + "}";
            continue;
        }
        for (std::size_t g = 0; g < s.groups.size(); ++g)
            out += (g ? " | " : "") + unitNames(set, s.groups[g]);
    }
    return out;
}

} // namespace tessera::iostest
