// IOS artifact interop (plugins/ios/iosformat): the four networks' units and
// blocks, the artifact's saved Inception V3 schedules imported into plans,
// export → import round trips, the merge of Fig. 3.1 written in IOS's format,
// and the bad inputs (cyclic, disconnected or unknown configs; schedules that
// break a dependency or name unknown operators).
#include "core/cost/devicecost.h"
#include "core/ir/hierarchy.h"
#include "core/plan/verify.h"
#include "core/sched/session.h"
#include "plugins/ios/ios.h"
#include "plugins/ios/iosimport.h"
#include "plugins/ios/iosnetworks.h"
#include "plugins/ios/iossearch.h"
#include "plugins/sequential/sequential.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <set>

#include "tests/plugins/iostest.h"

using namespace tessera;
using namespace tessera::iostest;

namespace {

std::string readText(const std::string &path)
{
    QFile f(QString::fromStdString(path));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path;
    return f.readAll().toStdString();
}

std::string dataFile(const std::string &name)
{
    return readText(TESSERA_SOURCE_DIR "/tests/plugins/data/" + name);
}

QJsonObject json(const std::string &text)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}
std::string text(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}
std::string text(const QJsonValue &v)
{
    return text(QJsonObject{{"v", v}});
}

// Stages per block of a schedule.
std::vector<int> stagesPerBlock(const IosSchedule &s, std::size_t blocks)
{
    std::vector<int> out(blocks, 0);
    for (const IosStage &st : s.stages)
        ++out[static_cast<std::size_t>(st.block)];
    return out;
}

std::string blockText(const IosUnitSet &units, const IosSchedule &s, int block)
{
    IosSchedule only;
    for (const IosStage &st : s.stages)
        if (st.block == block)
            only.stages.push_back(st);
    return scheduleText(units, only);
}

// Fig. 3.1 (1): two 3×3 convolutions of 128 and 256 kernels reading one value.
std::string fig31Config(int strideB)
{
    const int hb = strideB == 1 ? 28 : 14;
    return R"({"name": "fig31", "input": {"type": "placeholder", "name": "x", "hint_name": "x", "output_shape": [64, 28, 28]},
 "blocks": [{"enter_name": "x", "enter_node": {"type": "placeholder", "name": "x", "hint_name": "x", "output_shape": [64, 28, 28]},
   "inner_nodes": [
    {"type": "conv", "name": "a", "hint_name": "a", "inputs": [[["x", 0, 64]]], "out_channels": 128, "kernel": [3, 3],
     "stride": [1, 1], "padding": [1, 1], "groups": 1, "act": "relu", "output_shape": [128, 28, 28]},
    {"type": "conv", "name": "b", "hint_name": "b", "inputs": [[["x", 0, 64]]], "out_channels": 256, "kernel": [3, 3],
     "stride": [)" +
           std::to_string(strideB) + ", " + std::to_string(strideB) +
           R"(], "padding": [1, 1], "groups": 1, "act": "relu", "output_shape": [256, )" + std::to_string(hb) + ", " +
           std::to_string(hb) + R"(]},
    {"type": "pool", "name": "pa", "hint_name": "pa", "inputs": [[["a", 0, 128]]], "pool_type": "global_avg", "output_shape": [128, 1, 1]},
    {"type": "pool", "name": "pb", "hint_name": "pb", "inputs": [[["b", 0, 256]]], "pool_type": "global_avg", "output_shape": [256, 1, 1]}],
   "exit_node": {"type": "identity", "name": "out", "hint_name": "out", "inputs": [[["pa", 0, 128]], [["pb", 0, 256]]], "output_shape": [384, 1, 1]},
   "stages": null}]})";
}

} // namespace

// ---- units -------------------------------------------------------------------------------

TEST(IosUnits, TheFourNetworksHaveIosUnitsAndBlocks)
{
    const QJsonObject summary = json(readText(TESSERA_SOURCE_DIR "/plugins/ios/networks/model_summary.json"));
    struct Net {
        const char *name, *summaryKey;
        std::size_t units;
    };
    for (const Net &n : {Net{"inception_v3", "inception_v3", 119}, Net{"randwire", "randwire_large", 120},
                         Net{"nasnet", "nasnet_large", 374}, Net{"squeezenet", "squeezenet", 50}}) {
        const IosUnitSet units = iosUnits(n.name);
        EXPECT_EQ(units.source, "metadata");
        EXPECT_EQ(units.units.size(), n.units) << n.name;
        const QJsonArray perBlock = summary.value(n.summaryKey).toObject().value("per_block").toArray();
        ASSERT_EQ(units.blocks.size(), static_cast<std::size_t>(perBlock.size())) << n.name;
        for (qsizetype b = 0; b < perBlock.size(); ++b) {
            const QJsonObject block = perBlock[b].toObject();
            EXPECT_EQ(units.blocks[static_cast<std::size_t>(b)].units.size(),
                      static_cast<std::size_t>(block.value("units").toInteger()))
                << n.name << " block " << b;
            std::vector<std::int32_t> parts;
            for (const QJsonValue p : block.value("parts").toArray())
                parts.push_back(static_cast<std::int32_t>(p.toInteger()));
            EXPECT_EQ(units.blocks[static_cast<std::size_t>(b)].parts, parts) << n.name << " block " << b;
        }
        // The node names say the same, parts aside (they are not in the names).
        auto named = iosUnitsFromNodeNames(iosNetwork(n.name).graph);
        ASSERT_TRUE(named.isOk()) << named.status().str();
        ASSERT_EQ(named->units.size(), units.units.size());
        for (std::size_t u = 0; u < units.units.size(); ++u) {
            EXPECT_EQ(named->units[u].name, units.units[u].name);
            EXPECT_EQ(named->units[u].nodes, units.units[u].nodes);
        }
        EXPECT_EQ(named->blocks.size(), units.blocks.size());
    }
}

// Issue 18: NASNet's one 373-unit block reads in cells — its groups are named
// "cell<C>" from the cells' concatenations, not by unit number; a network of
// small blocks (SqueezeNet) gets no cell scope.
TEST(IosNetworks, NasNetGroupsAreNamedByCell)
{
    const ImportResult &nasnet = iosNetwork("nasnet");
    const Hierarchy h = inferHierarchy(nasnet.graph);
    std::set<std::string> cells;
    for (const Group &g : h.groups())
        if (g.name.rfind("cell", 0) == 0)
            cells.insert(g.name);
    EXPECT_EQ(cells.size(), 22u); // 18 normal + 2 reduction cells + 2 stem cells
    EXPECT_TRUE(cells.count("cell3"));
    EXPECT_NE(nasnet.graph.node(0).name.find("/cell0/"), std::string::npos) << nasnet.graph.node(0).name;

    const ImportResult &squeezenet = iosNetwork("squeezenet");
    for (NodeId n = 0; n < static_cast<NodeId>(squeezenet.graph.nodeCount()); ++n)
        EXPECT_EQ(squeezenet.graph.node(n).name.find("/cell"), std::string::npos) << squeezenet.graph.node(n).name;
}

TEST(IosUnits, PlainGraphsHaveNoIosMetadata)
{
    const Graph empty;
    auto none = iosUnitsFromMetadata(empty, {});
    ASSERT_FALSE(none.isOk());
    EXPECT_EQ(none.status().code(), ErrorCode::Unsupported);
    auto bad = iosUnitsFromMetadata(iosNetwork("squeezenet").graph,
                                    {{kIosUnitsKey, R"({"1": ["nope"]})"}, {kIosBlocksKey, R"([{"units": ["1"]}])"}});
    ASSERT_FALSE(bad.isOk());
    EXPECT_NE(bad.status().message().find("names node 'nope'"), std::string::npos) << bad.status().str();
}

// ---- the artifact's saved schedules ---------------------------------------------------

TEST(IosSchedules, SavedInceptionScheduleImportsAndVerifies)
{
    const ImportResult &model = iosNetwork("inception_v3");
    const IosUnitSet units = iosUnits("inception_v3");
    auto schedule = parseIosSchedule(dataFile("inception_v3_bs1.schedule.json"), model.graph, units, "bs1.json");
    ASSERT_TRUE(schedule.isOk()) << schedule.status().str();
    EXPECT_EQ(schedule->stages.size(), 55u);
    EXPECT_EQ(stagesPerBlock(*schedule, units.blocks.size()),
              (std::vector<int>{6, 4, 4, 4, 3, 5, 4, 6, 6, 5, 4, 3, 1}));
    EXPECT_EQ(blockText(units, *schedule, 1), "{8+9+11} ; 12,13 ; 10 | 14,15 ; 16");
    EXPECT_EQ(blockText(units, *schedule, 5), "{41+42+45} ; 43 | 46,47,48 | 50,51 ; 44 ; 49 ; 52");
    EXPECT_EQ(blockText(units, *schedule, 11), "108 | 109 | 112,113 | 116,117 ; 110 | 111 | 114 | 115 ; 118");

    const DeviceCostModel cost(v100());
    auto plan = lowerIosSchedule(model.graph, units, *schedule, cost);
    ASSERT_TRUE(plan.isOk()) << plan.status().str();
    EXPECT_TRUE(verifyPlan(*plan, model.graph, &v100()).isOk());
    int barriers = 0, merges = 0;
    for (const Task &t : plan->tasks)
        barriers += t.kind == TaskKind::Barrier;
    for (const Kernel &k : plan->kernels)
        merges += k.strategy == "merge";
    EXPECT_EQ(barriers, 55);
    EXPECT_EQ(merges, 9);
    // The plan reads back as the same schedule.
    auto back = iosScheduleFromPlan(*plan, model.graph, units);
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_EQ(scheduleText(units, *back), scheduleText(units, *schedule));

    auto bs32 = parseIosSchedule(dataFile("inception_v3_bs32.schedule.json"), model.graph, units, "bs32.json");
    ASSERT_TRUE(bs32.isOk()) << bs32.status().str();
    EXPECT_EQ(stagesPerBlock(*bs32, units.blocks.size()), (std::vector<int>{6, 3, 2, 2, 3, 3, 5, 5, 3, 3, 4, 5, 1}));
    EXPECT_EQ(blockText(units, *bs32, 10), "98 | 101 | 105 ; 97 | 99 | 100 | 102 | 106 ; {103+104} ; 107");
}

TEST(IosSchedules, BrokenSchedulesAreRejected)
{
    const ImportResult &model = iosNetwork("inception_v3");
    const IosUnitSet units = iosUnits("inception_v3");
    const QJsonObject good = json(dataFile("inception_v3_bs1.schedule.json"));
    auto withBlock1 = [&](const std::function<void(QJsonObject &)> &edit) {
        QJsonObject root = good;
        QJsonArray blocks = root.value("blocks").toArray();
        QJsonObject b = blocks[1].toObject();
        edit(b);
        blocks[1] = b;
        root.insert("blocks", blocks);
        return parseIosSchedule(text(root), model.graph, units, "edited.json");
    };

    // A stage order that runs 12 before the merged conv producing its input.
    auto swapped = withBlock1([](QJsonObject &b) {
        QJsonArray stages = b.value("stages").toArray();
        const QJsonValue first = stages[0];
        stages[0] = stages[1];
        stages[1] = first;
        b.insert("stages", stages);
    });
    ASSERT_FALSE(swapped.isOk());
    EXPECT_NE(swapped.status().message().find("unit '12' runs before '11'"), std::string::npos)
        << swapped.status().str();
    EXPECT_EQ(swapped.status().location().file, "edited.json");

    // Two units in different groups of one stage, one reading the other.
    auto crossGroup = withBlock1([](QJsonObject &b) {
        QJsonArray stages = b.value("stages").toArray();
        stages[1] = QJsonArray{QJsonArray{"12"}, QJsonArray{"13"}};
        b.insert("stages", stages);
    });
    ASSERT_FALSE(crossGroup.isOk());
    EXPECT_NE(crossGroup.status().message().find("another group"), std::string::npos) << crossGroup.status().str();

    // An operator the model does not have.
    auto unknown = withBlock1([](QJsonObject &b) {
        QJsonArray inner = b.value("inner_nodes").toArray();
        QJsonObject n = inner[1].toObject();
        n.insert("name", "1200");
        n.insert("hint_name", "1200");
        inner[1] = n;
        b.insert("inner_nodes", inner);
        QJsonArray stages = b.value("stages").toArray();
        stages[1] = QJsonArray{QJsonArray{"1200", "13"}};
        b.insert("stages", stages);
    });
    ASSERT_FALSE(unknown.isOk());
    EXPECT_NE(unknown.status().message().find("node '1200' names no operator of the model"), std::string::npos)
        << unknown.status().str();

    // A unit left out.
    auto missing = withBlock1([](QJsonObject &b) {
        QJsonArray stages = b.value("stages").toArray();
        stages[1] = QJsonArray{QJsonArray{"12"}};
        b.insert("stages", stages);
    });
    ASSERT_FALSE(missing.isOk());
    EXPECT_NE(missing.status().message().find("unit '13' is not in the schedule"), std::string::npos);

    // A merged node sharing its stage.
    auto crowded = withBlock1([](QJsonObject &b) {
        QJsonArray stages = b.value("stages").toArray();
        stages[0] = QJsonArray{QJsonArray{"8"}, QJsonArray{"14"}};
        stages[2] = QJsonArray{QJsonArray{"10"}, QJsonArray{"15"}};
        b.insert("stages", stages);
    });
    ASSERT_FALSE(crowded.isOk());
    EXPECT_NE(crowded.status().message().find("merged node '8' must be alone"), std::string::npos);

    // The graph config itself is not a schedule.
    auto config = parseIosSchedule(*iosNetworkConfig("inception_v3"), model.graph, units, "config.json");
    ASSERT_FALSE(config.isOk());
    EXPECT_NE(config.status().message().find("not a schedule"), std::string::npos);
    EXPECT_FALSE(parseIosSchedule("{\"blocks\": [", model.graph, units, "x.json").isOk());
}

TEST(IosSchedules, ExportImportRoundTrips)
{
    const ImportResult &model = iosNetwork("inception_v3");
    const IosUnitSet units = iosUnits("inception_v3");
    const std::string config = *iosNetworkConfig("inception_v3");

    // The artifact's own schedule written back.
    auto saved = parseIosSchedule(dataFile("inception_v3_bs1.schedule.json"), model.graph, units);
    ASSERT_TRUE(saved.isOk());
    auto written = writeIosSchedule(*saved, units, config, "inception_v3_dp_parallel_merge");
    ASSERT_TRUE(written.isOk()) << written.status().str();
    const QJsonObject mine = json(*written), theirs = json(dataFile("inception_v3_bs1.schedule.json"));
    const QJsonArray mb = mine.value("blocks").toArray(), tb = theirs.value("blocks").toArray();
    ASSERT_EQ(mb.size(), tb.size());
    for (qsizetype b = 0; b < mb.size(); ++b) {
        EXPECT_EQ(text(mb[b].toObject().value("stages")), text(tb[b].toObject().value("stages"))) << "block " << b;
        EXPECT_EQ(text(mb[b].toObject().value("exit_node")), text(tb[b].toObject().value("exit_node")))
            << "block " << b;
    }
    const QJsonObject merged = mb[1].toObject().value("inner_nodes").toArray()[0].toObject();
    EXPECT_EQ(text(merged), text(tb[1].toObject().value("inner_nodes").toArray()[0].toObject()));
    EXPECT_EQ(merged.value("hint_name").toString(), "8 9 11");
    EXPECT_EQ(merged.value("out_channels").toInteger(), 176);
    auto again = parseIosSchedule(*written, model.graph, units);
    ASSERT_TRUE(again.isOk()) << again.status().str();
    EXPECT_EQ(scheduleText(units, *again), scheduleText(units, *saved));

    // Tessera's own IOS-Both schedule.
    auto search = scheduleGraph(model.graph, v100(), *createIosScheduler(), {});
    ASSERT_TRUE(search.isOk()) << search.status().str();
    auto ours = iosScheduleFromPlan(search->result.plan, model.graph, units);
    ASSERT_TRUE(ours.isOk()) << ours.status().str();
    auto out = writeIosSchedule(*ours, units, config, "tessera");
    ASSERT_TRUE(out.isOk()) << out.status().str();
    auto back = parseIosSchedule(*out, model.graph, units);
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_EQ(scheduleText(units, *back), scheduleText(units, *ours));

    // Negative twin: the config of another network does not fit.
    auto wrong = writeIosSchedule(*ours, units, *iosNetworkConfig("squeezenet"), "x");
    ASSERT_FALSE(wrong.isOk());
}

TEST(IosSchedules, PlansThatSplitUnitsAreNotIosSchedules)
{
    const ImportResult &model = iosNetwork("squeezenet");
    const IosUnitSet units = iosUnits("squeezenet");
    ScheduleSetup perNode;
    perNode.options = {{"epilogues", "false"}};
    auto sequential = scheduleGraph(model.graph, v100(), *createSequentialScheduler(), perNode);
    ASSERT_TRUE(sequential.isOk());
    auto s = iosScheduleFromPlan(sequential->result.plan, model.graph, units);
    ASSERT_FALSE(s.isOk()); // conv and relu of a unit are separate stages
    EXPECT_NE(s.status().message().find("split over stages or groups"), std::string::npos) << s.status().str();

    // Negative twin: with their epilogues (the default) the sequential plan's
    // operators are the artifact's units — its sequential schedule.
    auto units1 = scheduleGraph(model.graph, v100(), *createSequentialScheduler(), {});
    ASSERT_TRUE(units1.isOk());
    auto ios = iosScheduleFromPlan(units1->result.plan, model.graph, units);
    ASSERT_TRUE(ios.isOk()) << ios.status().str();
    for (const IosStage &stage : ios->stages)
        EXPECT_EQ(stage.groups.size(), 1u); // one stream throughout
}

// ---- Fig. 3.1: operator merge -----------------------------------------------------------------

TEST(IosMerge, Fig31TwoConvsBecomeOneOf384)
{
    auto model = importIosConfig(fig31Config(1), "fig31.json");
    ASSERT_TRUE(model.isOk()) << model.status().str();
    auto units = iosUnitsOf(*model);
    ASSERT_TRUE(units.isOk());
    const ModelStageLatency lat(model->graph, *units, v100Cost());
    IosSearchOptions merge;
    merge.parallel = false;
    auto r = iosSearch(model->graph, *units, lat, merge);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    ASSERT_EQ(r->schedule.stages.size(), 4u); // {a+b}, then pa, pb, out one by one
    EXPECT_EQ(scheduleText(*units, r->schedule).substr(0, 8), "{a+b} ; ");

    auto written = writeIosSchedule(r->schedule, *units, fig31Config(1), "fig31_merge");
    ASSERT_TRUE(written.isOk()) << written.status().str();
    const QJsonObject block = json(*written).value("blocks").toArray()[0].toObject();
    const QJsonObject conv = block.value("inner_nodes").toArray()[0].toObject();
    EXPECT_EQ(conv.value("name").toString(), "a");
    EXPECT_EQ(conv.value("hint_name").toString(), "a b");
    EXPECT_EQ(conv.value("out_channels").toInteger(), 384);
    EXPECT_EQ(conv.value("kernel").toArray(), (QJsonArray{3, 3}));
    EXPECT_EQ(conv.value("output_shape").toArray(), (QJsonArray{384, 28, 28}));
    // pb reads b's channels of the merged output: the split.
    QJsonObject pb;
    for (const QJsonValue n : block.value("inner_nodes").toArray())
        if (n.toObject().value("name").toString() == "pb")
            pb = n.toObject();
    EXPECT_EQ(pb.value("inputs").toArray(), (QJsonArray{QJsonArray{QJsonArray{"a", 128, 384}}}));

    const DeviceCostModel cost(v100());
    auto plan = lowerIosSchedule(model->graph, *units, r->schedule, cost);
    ASSERT_TRUE(plan.isOk());
    EXPECT_EQ(plan->kernels[0].strategy, "merge");
    EXPECT_EQ(plan->kernels[0].nodes.size(), 4u); // two Conv + Relu pairs
    EXPECT_TRUE(verifyPlan(*plan, model->graph, &v100()).isOk());
}

TEST(IosMerge, DifferentStridesDoNotMerge)
{
    auto model = importIosConfig(fig31Config(2), "fig31s2.json");
    ASSERT_TRUE(model.isOk()) << model.status().str();
    auto units = iosUnitsOf(*model);
    ASSERT_TRUE(units.isOk());
    const ModelStageLatency lat(model->graph, *units, v100Cost());
    IosSearchOptions merge;
    merge.parallel = false;
    auto r = iosSearch(model->graph, *units, lat, merge);
    ASSERT_TRUE(r.isOk());
    for (const IosStage &s : r->schedule.stages)
        EXPECT_EQ(s.groups[0].size(), 1u);
    // Forcing it through a schedule is refused by the merge rule (units a, b, pa, pb, out).
    IosSchedule forced;
    forced.stages.push_back({IosStrategy::Merge, {{0, 1}}, 0, 0});
    for (std::int32_t u : {2, 3, 4})
        forced.stages.push_back({IosStrategy::Concurrent, {{u}}, 0, 0});
    const Status s = checkIosSchedule(model->graph, *units, forced);
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("cannot merge 'a' and 'b'"), std::string::npos) << s.str();
}

// ---- bad graph configs ---------------------------------------------------------------------------

TEST(IosConfigs, CyclicDisconnectedAndUnknownConfigsAreRejected)
{
    ASSERT_TRUE(importIosConfig(fig31Config(1), "ok.json").isOk());
    auto edited = [](std::string config, const std::string &from, const std::string &to) {
        const auto at = config.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return at == std::string::npos ? config : config.replace(at, from.size(), to);
    };

    auto c = importIosConfig(
        edited(fig31Config(1), R"([[["x", 0, 64]]], "out_channels": 128)", R"([[["pa", 0, 64]]], "out_channels": 128)"),
        "cyclic.json");
    ASSERT_FALSE(c.isOk());
    EXPECT_NE(c.status().message().find("a -> pa -> a"), std::string::npos) << c.status().str();

    auto u = importIosConfig(
        edited(fig31Config(1), R"("type": "pool", "name": "pa")", R"("type": "fft", "name": "pa")"), "unknown.json");
    ASSERT_FALSE(u.isOk());
    EXPECT_EQ(u.status().code(), ErrorCode::Unsupported);
    EXPECT_NE(u.status().message().find("unknown unit type 'fft'"), std::string::npos) << u.status().str();

    auto d =
        importIosConfig(edited(fig31Config(1), R"([[["pa", 0, 128]], [["pb", 0, 256]]], "output_shape": [384, 1, 1])",
                               R"([[["pb", 0, 256]]], "output_shape": [256, 1, 1])"),
                        "disconnected.json");
    ASSERT_FALSE(d.isOk());
    EXPECT_NE(d.status().message().find("unit 'pa' is disconnected"), std::string::npos) << d.status().str();
    EXPECT_EQ(d.status().location().file, "disconnected.json");
}

// NasNet's per-cell parts live in the artifact's Python, not in its config: a
// NasNet config read from a file gets them from the artifact's model summary,
// exactly as the embedded network does; a config that only borrows the name
// (different blocks) gets none.
TEST(IosImport, KnownNetworkConfigsGetTheArtifactsParts)
{
    auto config = iosNetworkConfig("nasnet");
    ASSERT_TRUE(config.isOk());
    auto fromFile = importIosConfig(*config, "nasnet_large.ios.json");
    ASSERT_TRUE(fromFile.isOk()) << fromFile.status().str();
    const ImportResult &embedded = iostest::iosNetwork("nasnet");
    EXPECT_EQ(fromFile->metadata.properties.at(kIosBlocksKey), embedded.metadata.properties.at(kIosBlocksKey));
    EXPECT_NE(fromFile->metadata.properties.at(kIosBlocksKey).find("\"parts\""), std::string::npos);

    auto squeeze = iosNetworkConfig("squeezenet");
    ASSERT_TRUE(squeeze.isOk());
    std::string renamed = *squeeze;
    const auto at = renamed.find("\"squeezenet\"");
    ASSERT_NE(at, std::string::npos);
    renamed.replace(at, std::string("\"squeezenet\"").size(), "\"nasnet_large\"");
    auto impostor = importIosConfig(renamed, "impostor.json");
    ASSERT_TRUE(impostor.isOk()) << impostor.status().str();
    EXPECT_EQ(impostor->metadata.properties.at(kIosBlocksKey).find("\"parts\""), std::string::npos);
}
