// Schedule documents: round trip, schema validity, and refusal of bad input.
#include "core/cost/devicecost.h"
#include "core/hw/device.h"
#include "core/io/schedulejson.h"
#include "core/ir/graphhash.h"
#include "core/sched/scheduler.h"
#include "plugins/layerfusion/layerfusion.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

#include "tests/common/testgraphs.h"
#include "tests/io/jsonschema.h"

using namespace tessera;

namespace {

Device device()
{
    Device d;
    d.id = "test";
    d.topology = {1, 2, 1};
    d.levels = {{"L1", MemoryScope::PerCore, 1 << 20, 1e12, 32, 32, 1, 0},
                {"DDR", MemoryScope::Shared, 1LL << 32, 1e11, 64, 64, 1, 0}};
    ComputeUnit u;
    u.name = "VEC";
    u.peakOpsPerSec = {{DType::Float32, 1e12}};
    u.opClasses = {OpClass::Gemm, OpClass::Elementwise, OpClass::Reduction, OpClass::Movement, OpClass::Other};
    d.units = {u};
    return d;
}

class ScheduleJson : public ::testing::Test
{
protected:
    void SetUp() override
    {
        graph = testgraphs::residualChain(2);
        DeviceCostModel cost(dev);
        ScheduleRequest r;
        r.graph = &graph;
        r.device = &dev;
        r.cost = &cost;
        r.modelHash = modelStructureHash(graph);
        auto run = runSchedule(*createLayerFusionScheduler(), r,
                               {{"layer-fusion.fuse:block1/add", "separate"}, {"stale:key", "x"}});
        ASSERT_TRUE(run.isOk()) << run.status().str();
        doc.model = "chain.onnx";
        doc.modelHash = r.modelHash;
        doc.algorithm = "layer-fusion";
        doc.device = dev.id;
        doc.options = {{"a", "1"}};
        doc.overrides = run->decisions.overrides();
        doc.overrideReports = run->overrideReports;
        doc.decisions = run->decisions.records();
        doc.trace = run->trace.steps();
        doc.stats = run->result.stats;
        doc.plan = run->result.plan;
        json = scheduleToJson(doc, graph);
        made = std::move(*run);
    }
    Device dev = device();
    ScheduleRun made; // the run `doc` was filled from by hand
    Graph graph;
    ScheduleDocument doc;
    std::string json;
};

QJsonValue schema()
{
    QFile f(QStringLiteral(TESSERA_SOURCE_DIR "/docs/schedule-schema.json"));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

TEST_F(ScheduleJson, RoundTripKeepsPlanDecisionsAndTrace)
{
    auto back = scheduleFromJson(json, graph, "doc.json");
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_EQ(back->plan.kernels.size(), doc.plan.kernels.size());
    ASSERT_EQ(back->plan.tasks.size(), doc.plan.tasks.size());
    for (std::size_t i = 0; i < doc.plan.tasks.size(); ++i) {
        EXPECT_EQ(back->plan.tasks[i].deps, doc.plan.tasks[i].deps);
        EXPECT_EQ(back->plan.tasks[i].kernel, doc.plan.tasks[i].kernel);
        EXPECT_DOUBLE_EQ(back->plan.tasks[i].cost.timeNs, doc.plan.tasks[i].cost.timeNs);
        EXPECT_EQ(back->plan.tasks[i].cost.bytesByLevel, doc.plan.tasks[i].cost.bytesByLevel);
    }
    EXPECT_EQ(back->overrides, doc.overrides);
    ASSERT_EQ(back->decisions.size(), doc.decisions.size());
    EXPECT_EQ(back->decisions[0].key, doc.decisions[0].key);
    ASSERT_EQ(back->trace.size(), doc.trace.size());
    EXPECT_EQ(back->trace[0].touched, doc.trace[0].touched);
    // Writing the read document again gives the same bytes.
    EXPECT_EQ(scheduleToJson(*back, graph).substr(0, 200), json.substr(0, 200));
}

// makeScheduleDocument fills every field from the run and its plan exactly as
// the hand-filled fixture does; the overrides and their reports (one applied,
// one stale) are the run's.
TEST_F(ScheduleJson, MakeScheduleDocumentTakesEveryFieldFromTheRun)
{
    made.result.plan.device = dev.id; // scheduleGraph sets it; runSchedule does not
    const ScheduleDocument d = makeScheduleDocument(made, "chain.onnx", {{"a", "1"}});
    EXPECT_EQ(d.algorithm, "layer-fusion");
    EXPECT_EQ(d.device, "test");
    EXPECT_EQ(d.modelHash, doc.modelHash);
    EXPECT_EQ(d.overrides.size(), 2u);
    ASSERT_EQ(d.overrideReports.size(), 2u);
    EXPECT_EQ(d.searchMs, made.searchMs);
    ScheduleDocument byHand = doc;
    byHand.searchMs = made.searchMs;
    byHand.plan.device = dev.id;
    EXPECT_EQ(scheduleToJson(d, graph), scheduleToJson(byHand, graph));
}

// The twin: a run without overrides gives a document without any, and the
// options are only what the caller passes.
TEST_F(ScheduleJson, MakeScheduleDocumentInventsNothing)
{
    DeviceCostModel cost(dev);
    ScheduleRequest r;
    r.graph = &graph;
    r.device = &dev;
    r.cost = &cost;
    auto plain = runSchedule(*createLayerFusionScheduler(), r);
    ASSERT_TRUE(plain.isOk()) << plain.status().str();
    const ScheduleDocument d = makeScheduleDocument(*plain, "chain.onnx", {});
    EXPECT_TRUE(d.overrides.empty());
    EXPECT_TRUE(d.overrideReports.empty());
    EXPECT_TRUE(d.options.empty());
    EXPECT_EQ(d.device, ""); // not scheduled through scheduleGraph: no device on the plan
    EXPECT_EQ(d.decisions.size(), plain->decisions.records().size());
}

TEST_F(ScheduleJson, ExportValidatesAgainstTheSchema)
{
    const QJsonValue instance = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
    EXPECT_EQ(validateJson(instance, schema()), QString());
}

// The plan's estimated energy sits beside its estimated latency: the sum of
// its tasks' energy. Twin: the schema refuses a negative one.
TEST_F(ScheduleJson, PlanCarriesEstimatedEnergy)
{
    doc.plan.tasks.at(0).cost.energyJ = 0.25;
    doc.plan.tasks.back().cost.energyJ += 0.5;
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(scheduleToJson(doc, graph))).object();
    const QJsonObject plan = o["plan"].toObject();
    ASSERT_TRUE(plan.contains("est_energy_j"));
    EXPECT_DOUBLE_EQ(plan["est_energy_j"].toDouble(), doc.plan.totalCost().energyJ);
    EXPECT_GE(plan["est_energy_j"].toDouble(), 0.75);
    EXPECT_EQ(validateJson(o, schema()), QString());
    QJsonObject bad = o, badPlan = plan;
    badPlan["est_energy_j"] = -1;
    bad["plan"] = badPlan;
    EXPECT_NE(validateJson(bad, schema()), QString());
}

TEST_F(ScheduleJson, SchemaRejectsAnUnknownField)
{
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
    o["surprise"] = 1;
    EXPECT_NE(validateJson(o, schema()), QString());
    QJsonObject bad = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
    bad["format_version"] = 2;
    EXPECT_NE(validateJson(bad, schema()), QString());
}

TEST_F(ScheduleJson, MalformedJsonNamesTheOffset)
{
    auto r = scheduleFromJson("{\"format\": ", graph, "broken.json");
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_EQ(r.status().location().file, "broken.json");
    EXPECT_GE(r.status().location().offset, 0);
}

TEST_F(ScheduleJson, RefusesAPlanForAnotherModel)
{
    Graph other = testgraphs::residualChain(3);
    auto r = scheduleFromJson(json, other, "doc.json");
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("another model"), std::string::npos) << r.status().str();
}

TEST_F(ScheduleJson, RefusesUnknownNodesKindsAndFutureVersions)
{
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
    o["model_hash"] = "";
    auto edit = [&](auto fn) {
        QJsonObject c = o;
        fn(c);
        return scheduleFromJson(QJsonDocument(c).toJson().toStdString(), graph, "doc.json");
    };
    auto future = edit([](QJsonObject &c) { c["format_version"] = 99; });
    ASSERT_FALSE(future.isOk());
    EXPECT_NE(future.status().message().find("newer"), std::string::npos);

    auto unknownNode = edit([](QJsonObject &c) {
        QJsonObject plan = c["plan"].toObject();
        QJsonArray kernels = plan["kernels"].toArray();
        QJsonObject k = kernels[0].toObject();
        k["nodes"] = QJsonArray{"ghost"};
        kernels[0] = k;
        plan["kernels"] = kernels;
        c["plan"] = plan;
    });
    ASSERT_FALSE(unknownNode.isOk());
    EXPECT_NE(unknownNode.status().message().find("plan.kernels[0].nodes[0]: unknown node 'ghost'"), std::string::npos)
        << unknownNode.status().str();

    auto badKind = edit([](QJsonObject &c) {
        QJsonObject plan = c["plan"].toObject();
        QJsonArray tasks = plan["tasks"].toArray();
        QJsonObject t = tasks[0].toObject();
        t["kind"] = "teleport";
        tasks[0] = t;
        plan["tasks"] = tasks;
        c["plan"] = plan;
    });
    ASSERT_FALSE(badKind.isOk());
    EXPECT_NE(badKind.status().message().find("unknown task kind 'teleport'"), std::string::npos);

    auto forwardDep = edit([](QJsonObject &c) {
        QJsonObject plan = c["plan"].toObject();
        QJsonArray tasks = plan["tasks"].toArray();
        QJsonObject t = tasks[0].toObject();
        t["deps"] = QJsonArray{5};
        tasks[0] = t;
        plan["tasks"] = tasks;
        c["plan"] = plan;
    });
    ASSERT_FALSE(forwardDep.isOk());
    EXPECT_NE(forwardDep.status().message().find("plan.tasks[0].deps[0]"), std::string::npos);
}

// The plan's deployment precision is written and read back; a document
// written before precision existed reads as fp32.
TEST_F(ScheduleJson, PrecisionRoundTripsAndDefaultsToFp32)
{
    ScheduleDocument at16 = doc;
    at16.plan.precision = DType::Int8;
    const std::string text = scheduleToJson(at16, graph);
    auto back = scheduleFromJson(text, graph, "doc.json");
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_EQ(back->plan.precision, DType::Int8);
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
    EXPECT_EQ(validateJson(o, schema()), QString());
    QJsonObject plan = o["plan"].toObject();
    plan.remove("precision");
    o["plan"] = plan;
    auto old = scheduleFromJson(QJsonDocument(o).toJson().toStdString(), graph, "old.json");
    ASSERT_TRUE(old.isOk()) << old.status().str();
    EXPECT_EQ(old->plan.precision, DType::Float32);
}

// Negative twin: a precision no device runs is refused with its path; the schema refuses it too.
TEST_F(ScheduleJson, UnknownPrecisionIsRefused)
{
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
    QJsonObject plan = o["plan"].toObject();
    plan["precision"] = "int4";
    o["plan"] = plan;
    auto r = scheduleFromJson(QJsonDocument(o).toJson().toStdString(), graph, "doc.json");
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("plan.precision: unknown precision 'int4'"), std::string::npos)
        << r.status().str();
    EXPECT_NE(validateJson(o, schema()), QString());
}

TEST(Overrides, PlainObjectAndDocumentForms)
{
    auto plain = overridesFromJson(R"({"k1": "a", "k2": "b"})");
    ASSERT_TRUE(plain.isOk());
    EXPECT_EQ(plain->at("k2"), "b");
    auto back = overridesFromJson(overridesToJson(*plain));
    ASSERT_TRUE(back.isOk());
    EXPECT_EQ(*back, *plain);
    EXPECT_FALSE(overridesFromJson(R"({"k1": 3})").isOk());
    EXPECT_FALSE(overridesFromJson("[1,2]").isOk());
}

TEST_F(ScheduleJson, PerfettoTraceHasOneEventPerTask)
{
    const QJsonObject t =
        QJsonDocument::fromJson(QByteArray::fromStdString(perfettoTraceJson(doc.plan, graph))).object();
    ASSERT_TRUE(t.contains("traceEvents"));
    int complete = 0;
    for (const auto &e : t["traceEvents"].toArray())
        complete += e.toObject()["ph"].toString() == "X";
    EXPECT_EQ(complete, static_cast<int>(doc.plan.tasks.size()));
}

// A run's trace reads back as the run: timeline, lane names, counter series.
TEST_F(ScheduleJson, RunTraceReadsBackAsTheRun)
{
    RunResult run;
    run.latencyMs = 1.5;
    for (std::size_t t = 0; t < doc.plan.tasks.size(); ++t)
        run.timeline.push_back({static_cast<TaskId>(t), 1000.0 * static_cast<double>(t),
                                1000.0 * static_cast<double>(t) + 750.0, static_cast<std::int32_t>(t % 2)});
    run.laneNames = {"MME c0", "DMA DDR"};
    run.counters.push_back({"occupancy/LB", "bytes", {{0, 10}, {2000, 40}}});
    const auto back = runFromPerfettoTraceJson(perfettoTraceJson(doc.plan, graph, &run), doc.plan.tasks.size());
    ASSERT_TRUE(back.isOk()) << back.status().str();
    ASSERT_EQ(back->timeline.size(), run.timeline.size());
    for (std::size_t i = 0; i < run.timeline.size(); ++i) {
        EXPECT_EQ(back->timeline[i].task, run.timeline[i].task);
        EXPECT_DOUBLE_EQ(back->timeline[i].startNs, run.timeline[i].startNs);
        EXPECT_DOUBLE_EQ(back->timeline[i].endNs, run.timeline[i].endNs);
        EXPECT_EQ(back->timeline[i].lane, run.timeline[i].lane);
    }
    EXPECT_EQ(back->laneNames, run.laneNames);
    ASSERT_EQ(back->counters.size(), 1u);
    EXPECT_EQ(back->counters[0].unit, "bytes");
    EXPECT_EQ(back->counters[0].points, run.counters[0].points);
}

// The twin: a trace of another plan (a task it does not have), or no trace, is refused.
TEST_F(ScheduleJson, RunTraceOfAnotherPlanIsRefused)
{
    RunResult run;
    run.timeline.push_back({static_cast<TaskId>(doc.plan.tasks.size()), 0, 10, 0});
    ExecutionPlan bigger = doc.plan;
    bigger.tasks.push_back(bigger.tasks.back());
    bigger.tasks.back().id = static_cast<TaskId>(doc.plan.tasks.size());
    const auto wrong = runFromPerfettoTraceJson(perfettoTraceJson(bigger, graph, &run), doc.plan.tasks.size(), "t");
    ASSERT_FALSE(wrong.isOk());
    EXPECT_NE(wrong.status().message().find("is not one of the plan's"), std::string::npos) << wrong.status().str();
    EXPECT_FALSE(runFromPerfettoTraceJson("{\"traceEvents\": 3}", 1).isOk());
    EXPECT_FALSE(runFromPerfettoTraceJson("not json", 1).isOk());
}
