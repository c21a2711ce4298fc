// Item models of the workbench (views/models) on a hand-built graph:
// QAbstractItemModelTester on each model, their content, node search and the
// number formatting they share. Each positive test has a negative twin.
#include "core/sched/scheduler.h"
#include "views/models/diagnosticsmodel.h"
#include "views/models/format.h"
#include "views/models/hierarchymodel.h"
#include "views/models/metrics.h"
#include "views/models/modelsummary.h"
#include "views/models/nodeinspectormodel.h"
#include "views/models/ophistogrammodel.h"
#include "views/models/runcomparisonmodel.h"
#include "views/models/searchmodel.h"
#include "views/models/searchspacemodel.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>

#include <gtest/gtest.h>
#include <memory>

using namespace tessera;
using namespace tessera::views;

namespace {

// QAbstractItemModelTester in Warning mode reports through qWarning; count them.
int g_modelTestWarnings = 0;
QtMessageHandler g_previousHandler = nullptr;
void countingHandler(QtMsgType type, const QMessageLogContext &ctx, const QString &msg)
{
    if (type != QtDebugMsg && type != QtInfoMsg && ctx.category && QByteArray(ctx.category) == "qt.modeltest")
        ++g_modelTestWarnings;
    g_previousHandler(type, ctx, msg);
}

class ModelTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        g_modelTestWarnings = 0;
        g_previousHandler = qInstallMessageHandler(countingHandler);
    }
    void TearDown() override
    {
        qInstallMessageHandler(g_previousHandler);
        EXPECT_EQ(g_modelTestWarnings, 0) << "QAbstractItemModelTester reported problems (see the log)";
    }
    std::unique_ptr<QAbstractItemModelTester> tester(QAbstractItemModel *m)
    {
        return std::make_unique<QAbstractItemModelTester>(m, QAbstractItemModelTester::FailureReportingMode::Warning);
    }
};

std::shared_ptr<TensorData> weights(Shape shape)
{
    auto d = std::make_shared<TensorData>();
    d->dtype = DType::Float32;
    d->shape = shape;
    d->bytes.resize(static_cast<std::size_t>(*numElements(shape)) * 4);
    return d;
}

TensorId addWeight(Graph &g, const std::string &name, Shape shape)
{
    return g.addTensor({.name = name, .shape = shape, .kind = Tensor::Kind::Initializer, .data = weights(shape)});
}

// x → stem/conv → stem/relu → layer1/conv → layer1/add(+stem/relu) → head/pool
// Groups: stem (stage), layer1 (block); head/pool sits directly in the root.
std::shared_ptr<ModelData> smallModel()
{
    auto g = std::make_shared<Graph>();
    g->name = "small";
    const TensorId x = g->addTensor({.name = "x", .shape = {1, 3, 8, 8}, .kind = Tensor::Kind::Input});
    const TensorId w1 = addWeight(*g, "stem.w", {4, 3, 3, 3});
    const TensorId b1 = addWeight(*g, "stem.b", {4});
    const TensorId w2 = addWeight(*g, "layer1.w", {4, 4, 3, 3});
    TensorId t[5];
    for (int i = 0; i < 5; ++i)
        t[i] = g->addTensor({.name = "t" + std::to_string(i), .shape = i == 4 ? Shape{1, 4, 1, 1} : Shape{1, 4, 8, 8}});
    g->inputs = {x};
    g->outputs = {t[4]};
    AttrMap convAttrs{{"kernel_shape", {std::vector<std::int64_t>{3, 3}}},
                      {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}};
    g->addNode({.name = "stem/conv", .opType = "Conv", .attrs = convAttrs, .inputs = {x, w1, b1}, .outputs = {t[0]}});
    g->addNode({.name = "stem/relu", .opType = "Relu", .inputs = {t[0]}, .outputs = {t[1]}});
    g->addNode({.name = "layer1/conv",
                .opType = "Conv",
                .attrs = convAttrs,
                .inputs = {t[1], w2, kInvalidId},
                .outputs = {t[2]}});
    g->addNode({.name = "layer1/add", .opType = "Add", .inputs = {t[2], t[1]}, .outputs = {t[3]}});
    g->addNode({.name = "head/pool", .opType = "GlobalAveragePool", .inputs = {t[3]}, .outputs = {t[4]}});
    EXPECT_TRUE(g->verify().isOk()) << g->verify().str();

    auto data = std::make_shared<ModelData>();
    Hierarchy &h = data->hierarchy;
    h.reset(g->nodeCount());
    const GroupId stem = h.addGroup("stem", Group::Kind::Stage, 0);
    const GroupId layer1 = h.addGroup("layer1", Group::Kind::Block, 0);
    h.assign(0, stem);
    h.assign(1, stem);
    h.assign(2, layer1);
    h.assign(3, layer1);
    h.finalize();
    data->metrics = computeMetrics(*g);
    data->graph = std::move(g);
    data->diagnostics.push_back({Severity::Warning,
                                 ErrorCode::Unsupported,
                                 "op 'Foo' is unknown, imported as opaque",
                                 {"small.onnx", -1, "foo1", ""}});
    data->path = "/models/small.onnx";
    return data;
}

} // namespace

// --- HierarchyModel ----------------------------------------------------------

TEST_F(ModelTest, HierarchyModelTree)
{
    const auto data = smallModel();
    HierarchyModel m;
    auto t = tester(&m);
    m.setModelData(data);

    ASSERT_EQ(m.rowCount(), 3); // stem, layer1, then the root's own node
    EXPECT_EQ(m.index(0, 0).data().toString(), "stem");
    EXPECT_EQ(m.index(0, HierarchyModel::KindColumn).data().toString(), "stage");
    EXPECT_EQ(m.index(0, HierarchyModel::NodesColumn).data().toString(), "2");
    EXPECT_EQ(m.index(2, 0).data().toString(), "head/pool");
    EXPECT_EQ(m.index(2, HierarchyModel::KindColumn).data().toString(), "GlobalAveragePool");
    EXPECT_EQ(m.rowCount(m.index(2, 0)), 0);

    const QModelIndex layer1 = m.indexForGroup(2);
    ASSERT_EQ(m.rowCount(layer1), 2);
    const QModelIndex add = m.index(1, 0, layer1);
    EXPECT_EQ(add.data().toString(), "add") << "the group's path is not repeated";
    EXPECT_EQ(add.data(Qt::ToolTipRole).toString(), "layer1/add");
    EXPECT_EQ(m.nodeAt(add), 3);
    EXPECT_EQ(m.groupAt(add), -1);
    EXPECT_EQ(m.indexForNode(3), add);
    EXPECT_EQ(m.parent(add), layer1);
    EXPECT_EQ(m.groupAt(layer1), 2);
    EXPECT_EQ(add.data(HierarchyModel::NodeIdRole).toInt(), 3);

    m.setModelData(nullptr); // the tester checks the reset too
    EXPECT_EQ(m.rowCount(), 0);
}

TEST_F(ModelTest, HierarchyModelRowsFollowGraphOrder)
{
    // stem/conv moved to the root: it comes first, before the groups, not after them.
    auto data = smallModel();
    data->hierarchy.assign(0, 0);
    data->hierarchy.finalize();
    HierarchyModel m;
    auto t = tester(&m);
    m.setModelData(data);
    ASSERT_EQ(m.rowCount(), 4);
    EXPECT_EQ(m.nodeAt(m.index(0, 0)), 0);
    EXPECT_EQ(m.groupAt(m.index(1, 0)), 1);
    EXPECT_EQ(m.groupAt(m.index(2, 0)), 2);
    EXPECT_EQ(m.nodeAt(m.index(3, 0)), 4);
    EXPECT_EQ(m.indexForNode(0).row(), 0);
    EXPECT_EQ(m.indexForGroup(1).row(), 1);
    EXPECT_EQ(m.rowCount(m.indexForGroup(1)), 1);
}

TEST_F(ModelTest, HierarchyModelEmptyAndRoot)
{
    HierarchyModel m;
    auto t = tester(&m);
    EXPECT_EQ(m.rowCount(), 0);
    EXPECT_FALSE(m.indexForNode(0).isValid());

    m.setModelData(smallModel());
    EXPECT_FALSE(m.indexForGroup(0).isValid()) << "the root group has no row";
    EXPECT_FALSE(m.indexForNode(99).isValid());
    EXPECT_EQ(m.nodeAt(m.indexForGroup(1)), kInvalidId);
}

// --- NodeInspectorModel ------------------------------------------------------

TEST_F(ModelTest, InspectorShowsNode)
{
    const auto data = smallModel();
    NodeInspectorModel m;
    auto t = tester(&m);
    m.showNode(data, 0);

    EXPECT_EQ(m.title(), "stem/conv (Conv)");
    EXPECT_EQ(m.value("Node", "Op type"), "Conv");
    EXPECT_EQ(m.value("Node", "Domain"), "ai.onnx");
    EXPECT_EQ(m.value("Node", "Group"), "stem");
    EXPECT_EQ(m.value("Attributes", "kernel_shape"), "[3, 3]");
    EXPECT_EQ(m.value("Inputs", "x"), QString::fromUtf8("f32  1×3×8×8  768 B  (graph input)"));
    EXPECT_EQ(m.value("Inputs", "stem.w"), QString::fromUtf8("f32  4×3×3×3  432 B  (weight)"));
    EXPECT_EQ(m.value("Outputs", "t0"), QString::fromUtf8("f32  1×4×8×8  1.00 KiB"));
    EXPECT_EQ(m.value("Cost", "Params"), "112");
    EXPECT_EQ(m.value("Cost", "Output size"), "1.00 KiB");
    EXPECT_EQ(m.currentNode(), 0);
}

TEST_F(ModelTest, InspectorNodeWithoutAttributesOrSelection)
{
    const auto data = smallModel();
    NodeInspectorModel m;
    auto t = tester(&m);
    m.showNode(data, 1); // Relu: no attributes section, no params
    for (const auto &s : m.sections())
        EXPECT_NE(s.title, "Attributes");
    EXPECT_EQ(m.value("Cost", "Params"), "0");

    m.showNode(data, 2); // an omitted optional input shows as such
    EXPECT_EQ(m.value("Inputs", "#2"), "(omitted)");

    m.clearSelection();
    EXPECT_EQ(m.rowCount(), 0);
    EXPECT_TRUE(m.title().isEmpty());
    EXPECT_EQ(m.currentNode(), kInvalidId);
}

TEST_F(ModelTest, InspectorShowsGroupTotals)
{
    const auto data = smallModel();
    NodeInspectorModel m;
    auto t = tester(&m);
    m.showGroup(data, 2);
    EXPECT_EQ(m.title(), "layer1 (2 nodes)");
    EXPECT_EQ(m.value("Group", "Kind"), "Block");
    EXPECT_EQ(m.value("Group", "Nodes"), "2");
    EXPECT_EQ(m.value("Totals", "Params"), "144");
    EXPECT_EQ(m.value("Operators", "Conv"), "1");
    EXPECT_EQ(m.value("Operators", "Add"), "1");
    EXPECT_TRUE(m.value("Operators", "Relu").isEmpty()) << "stem's Relu is not in layer1";
    EXPECT_EQ(m.currentGroup(), 2);
    EXPECT_EQ(m.currentNode(), kInvalidId);
}

// --- OpHistogramModel ----------------------------------------------------------

TEST_F(ModelTest, OpHistogramSortedByCount)
{
    const auto data = smallModel();
    OpHistogramModel m;
    auto t = tester(&m);
    m.setModelData(data.get());
    ASSERT_EQ(m.rowCount(), 4);
    // Conv ×2 first, then ties in name order.
    EXPECT_EQ(m.index(0, OpHistogramModel::OpColumn).data().toString(), "Conv");
    EXPECT_EQ(m.index(0, OpHistogramModel::CountColumn).data().toInt(), 2);
    EXPECT_EQ(m.index(1, OpHistogramModel::OpColumn).data().toString(), "Add");
    EXPECT_EQ(m.index(2, OpHistogramModel::OpColumn).data().toString(), "GlobalAveragePool");
    EXPECT_EQ(m.index(3, OpHistogramModel::OpColumn).data().toString(), "Relu");
    int total = 0;
    for (const OpStat &s : m.stats())
        total += s.count;
    EXPECT_EQ(total, 5);
}

TEST_F(ModelTest, OpHistogramEmpty)
{
    OpHistogramModel m;
    auto t = tester(&m);
    const auto data = smallModel();
    m.setModelData(data.get());
    m.setModelData(nullptr);
    EXPECT_EQ(m.rowCount(), 0);
    EXPECT_TRUE(m.stats().empty());
}

// --- search ------------------------------------------------------------------

TEST_F(ModelTest, SearchMatchesNamesAndOpTypes)
{
    const auto data = smallModel();
    const Graph &g = *data->graph;
    EXPECT_EQ(searchNodes(g, "Conv"), (std::vector<NodeId>{0, 2}));
    EXPECT_EQ(searchNodes(g, "op:conv"), (std::vector<NodeId>{0, 2}));
    EXPECT_EQ(searchNodes(g, "layer1"), (std::vector<NodeId>{2, 3}));
    EXPECT_EQ(searchNodes(g, "  layer1   op:Add "), (std::vector<NodeId>{3}));
    EXPECT_EQ(searchNodes(g, "STEM"), (std::vector<NodeId>{0, 1}));
    EXPECT_EQ(searchNodes(g, "pool"), (std::vector<NodeId>{4}));

    SearchModel m;
    auto t = tester(&m);
    m.setModelData(data);
    m.setQuery("conv");
    ASSERT_EQ(m.rowCount(), 2);
    EXPECT_EQ(m.index(1, SearchModel::NameColumn).data().toString(), "layer1/conv");
    EXPECT_EQ(m.index(1, SearchModel::OpColumn).data().toString(), "Conv");
    EXPECT_EQ(m.nodeAt(1), 2);
    EXPECT_EQ(m.rowOf(2), 1);
}

TEST_F(ModelTest, SearchWithoutMatch)
{
    const auto data = smallModel();
    const Graph &g = *data->graph;
    EXPECT_TRUE(searchNodes(g, "Softmax").empty());
    EXPECT_TRUE(searchNodes(g, "op:stem").empty()) << "op: matches op types only";
    EXPECT_TRUE(searchNodes(g, "op:").empty());
    EXPECT_TRUE(searchNodes(g, "   ").empty());
    EXPECT_TRUE(searchNodes(g, "layer1 op:Relu").empty()) << "all terms must match";

    SearchModel m;
    auto t = tester(&m);
    m.setModelData(data);
    m.setQuery("conv");
    m.setQuery("nothing-like-this");
    EXPECT_EQ(m.rowCount(), 0);
    EXPECT_EQ(m.nodeAt(0), kInvalidId);
    EXPECT_EQ(m.rowOf(0), -1);
}

// --- diagnostics, summary, metrics, formatting ---------------------------------

TEST_F(ModelTest, DiagnosticsModelRows)
{
    DiagnosticsModel m;
    auto t = tester(&m);
    m.setDiagnostics(smallModel()->diagnostics);
    ASSERT_EQ(m.rowCount(), 1);
    EXPECT_EQ(m.index(0, DiagnosticsModel::SeverityColumn).data().toString(), "warning");
    EXPECT_EQ(m.index(0, DiagnosticsModel::LocationColumn).data().toString(), "node 'foo1'");
    EXPECT_EQ(m.index(0, 0).data(DiagnosticsModel::NodeNameRole).toString(), "foo1");
    EXPECT_EQ(m.count(Severity::Warning), 1);
    EXPECT_EQ(m.count(Severity::Error), 0);
}

TEST_F(ModelTest, DiagnosticsModelEmpty)
{
    DiagnosticsModel m;
    auto t = tester(&m);
    m.setDiagnostics({});
    EXPECT_EQ(m.rowCount(), 0);
    EXPECT_EQ(m.count(Severity::Warning), 0);
}

TEST_F(ModelTest, SummarySections)
{
    const auto data = smallModel();
    PropertyModel m;
    auto t = tester(&m);
    m.setSections(summarySections(*data, 2));
    EXPECT_EQ(m.value("Model", "File"), "small.onnx");
    EXPECT_EQ(m.value("Structure", "Nodes"), "5");
    EXPECT_EQ(m.value("Structure", "Groups"), "2");
    EXPECT_EQ(m.value("Structure", "DAG width"), "2");
    EXPECT_EQ(m.value("Totals", "Params"), "256");
    EXPECT_EQ(m.value("Inputs", "x"), QString::fromUtf8("f32  1×3×8×8"));
    EXPECT_EQ(m.value("Outputs", "t4"), QString::fromUtf8("f32  1×4×1×1"));
}

TEST_F(ModelTest, SummaryWidthPending)
{
    const auto data = smallModel();
    PropertyModel m;
    m.setSections(summarySections(*data, -1));
    EXPECT_EQ(m.value("Structure", "DAG width"), QString::fromUtf8("computing…"));
    EXPECT_TRUE(m.value("Structure", "No such row").isEmpty());
}

TEST(Metrics, ParamsAndOutputs)
{
    const auto data = smallModel();
    const GraphMetrics &m = data->metrics;
    ASSERT_EQ(m.nodes.size(), 5u);
    EXPECT_EQ(m.nodes[0].params, 4 * 3 * 3 * 3 + 4);
    EXPECT_EQ(m.nodes[2].params, 4 * 4 * 3 * 3);
    EXPECT_EQ(m.nodes[3].params, 0);
    EXPECT_EQ(m.nodes[0].outputBytes, 4 * 8 * 8 * 4);
    EXPECT_EQ(m.parameters, 112 + 144);
    EXPECT_EQ(m.weightBytes, (112 + 144) * 4);
    double flops = 0;
    for (const NodeMetrics &n : m.nodes)
        flops += n.flops;
    EXPECT_DOUBLE_EQ(m.total.flops, flops);
    EXPECT_EQ(metricValues(m, Metric::Params), (std::vector<double>{112, 0, 144, 0, 0}));
    const NodeMetrics sum = sumMetrics(m, {0, 2});
    EXPECT_EQ(sum.params, 256);
}

TEST(Metrics, EmptyAndZero)
{
    EXPECT_EQ(NodeMetrics{}.intensity(), 0.0) << "no bytes moved: no intensity, not a division by zero";
    EXPECT_TRUE(computeMetrics(Graph{}).nodes.empty());
    EXPECT_EQ(sumMetrics(smallModel()->metrics, {}).params, 0);
}

TEST(Format, Numbers)
{
    EXPECT_EQ(formatCount(950), "950");
    EXPECT_EQ(formatCount(25'557'032), "25.6 M");
    EXPECT_EQ(formatFlops(8.21e9), "8.21 GFLOP");
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBytes(1024), "1.00 KiB");
    EXPECT_EQ(formatBytes(802816), "784 KiB");
    EXPECT_EQ(formatBytes(1023 * 1024 + 1000), "1.00 MiB") << "999.x KiB rounds up into the next prefix";
    EXPECT_EQ(formatShape({1, 3, 224, 224}), QString::fromUtf8("1×3×224×224"));
    EXPECT_EQ(formatRatio(12.44), "12.4");
}

// Issue 18 item 5: the DP explorer's schedule counts go through the one helper (they printed "2.56e+07").
TEST(Format, SearchCountsUseTheOneHelper)
{
    EXPECT_EQ(searchCountText(25'557'032), "25.6 M");
    EXPECT_EQ(searchCountText(2.194619767e24), "2.19 Y");
    EXPECT_EQ(searchCountText(7.85e27), formatCount(7.85e27));
}

// Negative twin: small counts stay plain integers; nothing is written in 'g' notation below the last prefix.
TEST(Format, SmallSearchCountsArePlain)
{
    EXPECT_EQ(searchCountText(950), "950");
    for (double v : {1e6, 3.3e9, 4.1e15, 9.99e23})
        EXPECT_FALSE(searchCountText(v).contains(QLatin1Char('e'))) << searchCountText(v).toStdString();
}

TEST(Format, Edges)
{
    EXPECT_EQ(formatCount(0), "0");
    EXPECT_EQ(formatFlops(0), "0 FLOP");
    EXPECT_EQ(formatBytes(-2048), "-2.00 KiB");
    EXPECT_EQ(formatShape({}), "scalar");
    EXPECT_EQ(formatRatio(0), "0");
}

// Run Comparison: the estimated energy is the row right after the estimated
// latency, and the run with less energy wins it even when it is slower.
// Twin: a plan whose tasks carry no energy (a device without a power model)
// shows 0 J there.
TEST_F(ModelTest, RunComparisonShowsEnergyBesideTime)
{
    const auto run = [](double timeNs, double energyJ) {
        auto r = std::make_shared<ScheduleRun>();
        Task t;
        t.id = 0;
        t.cost.timeNs = t.cost.computeNs = timeNs;
        t.cost.energyJ = energyJ;
        r->result.plan.algorithm = "a";
        r->result.plan.tasks.push_back(t);
        return r;
    };
    RunComparisonModel m;
    auto t = tester(&m);
    m.setRuns(run(2e6, 0.25), QStringLiteral("first"), run(1e6, 0.5), QStringLiteral("second"));
    const int latency = m.rowOfKey(QStringLiteral("latency"));
    const int energy = m.rowOfKey(QStringLiteral("energy"));
    ASSERT_GE(latency, 0);
    EXPECT_EQ(energy, latency + 1);
    EXPECT_DOUBLE_EQ(m.value(energy, 0), 0.25);
    EXPECT_EQ(m.index(energy, RunComparisonModel::FirstColumn).data().toString(), formatEnergy(0.25));
    EXPECT_EQ(m.winner(energy), 0);  // less energy
    EXPECT_EQ(m.winner(latency), 1); // less time
    m.setRuns(run(1e6, 0), QStringLiteral("no power model"), run(1e6, 0.5), QStringLiteral("second"));
    EXPECT_DOUBLE_EQ(m.value(m.rowOfKey(QStringLiteral("energy")), 0), 0.0);
    EXPECT_EQ(m.winner(m.rowOfKey(QStringLiteral("energy"))), 0);
}
