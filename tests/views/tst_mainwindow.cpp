// The workbench main window under the offscreen platform: loading a model off
// the GUI thread fills the docks, selection reaches the inspector, a corrupt or
// missing file reports an error and leaves the previous model on screen,
// cancel drops a load, layout and recent files persist, drops take .onnx only,
// the command line parses. Saves a screenshot of the whole window to
// <build>/screenshots/mainwindow.png for people to look at.
#include "app/gui/commandline.h"
#include "app/gui/mainwindow.h"
#include "app/gui/modelloader.h"
#include "app/gui/recentfiles.h"
#include "app/gui/schedulecontroller.h"
#include "samples/builder.h"
#include "views/models/diagnosticsmodel.h"
#include "views/models/hierarchymodel.h"
#include "views/models/nodeinspectormodel.h"
#include "views/models/ophistogrammodel.h"
#include "views/models/optionsmodel.h"
#include "views/models/planfacets.h"
#include "views/models/propertymodel.h"
#include "views/models/searchspacemodel.h"
#include "views/models/stagemodel.h"
#include "views/models/workerpool.h"
#include "views/widgets/diagnosticspanel.h"
#include "views/widgets/graphview.h"
#include "views/widgets/inspectorwidget.h"
#include "views/widgets/metricspanel.h"
#include "views/widgets/optionseditor.h"
#include "views/widgets/runpanel.h"
#include "views/widgets/searchexplorer.h"
#include "views/widgets/searchpanel.h"
#include "views/widgets/stageview.h"
#include "views/widgets/summarywidget.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QTreeView>
#include <QUrl>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <set>

#include "tests/common/testsamples.h"
#include "tests/common/widgettestmain.h"
#include "tests/views/smallmodel.h"

using namespace tessera;
using tessera::gui::MainWindow;

namespace {

constexpr int kTimeoutMs = 60000;

using testmodels::writeSmallModel;

class MainWindowTest : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        s_dir = new QTemporaryDir;
        ASSERT_TRUE(s_dir->isValid());
        writeSmallModel(s_dir->filePath("small.onnx"));
        QFile bad(s_dir->filePath("bad.onnx"));
        ASSERT_TRUE(bad.open(QIODevice::WriteOnly));
        static constexpr char kNotAModel[] = "\x08\x07this is not a protobuf model\xff\xff\xff\xff";
        bad.write(kNotAModel, sizeof kNotAModel - 1); // the literal's own length, not a guess
    }
    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }
    void SetUp() override { QSettings().clear(); }

    static QString smallPath() { return s_dir->filePath("small.onnx"); }
    static QString badPath() { return s_dir->filePath("bad.onnx"); }

    // Opens the small model and waits for it and its first layout.
    static bool load(MainWindow &w, const QString &path)
    {
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        QSignalSpy laidOut(w.graphView(), &GraphView::layoutFinished);
        w.openFile(path);
        return QTest::qWaitFor([&] { return loaded.count() == 1 && laidOut.count() >= 1; }, kTimeoutMs);
    }

    static NodeId firstNodeOfType(const MainWindow &w, const std::string &op)
    {
        const Graph &g = *w.modelData()->graph;
        for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n)
            if (g.node(n).opType == op)
                return n;
        return kInvalidId;
    }

    static QTemporaryDir *s_dir;
};
QTemporaryDir *MainWindowTest::s_dir = nullptr;

TEST_F(MainWindowTest, LoadFillsDocksAndSelectionReachesInspector)
{
    MainWindow w;
    w.setInteractive(false);
    w.show();
    ASSERT_TRUE(load(w, smallPath()));

    const auto model = w.modelData();
    ASSERT_TRUE(model);
    EXPECT_EQ(model->graph->nodeCount(), 16u);
    EXPECT_TRUE(w.windowTitle().startsWith("small.onnx"));
    EXPECT_EQ(w.outlineModel()->rowCount(), 4) << "stem, block0, block1, head";
    EXPECT_EQ(w.summary()->summaryModel()->value("Structure", "Nodes"), "16");
    ASSERT_GT(w.summary()->histogramModel()->rowCount(), 0);
    EXPECT_EQ(w.summary()->histogramModel()->stats().front().opType, "Conv");
    EXPECT_EQ(w.summary()->histogramModel()->stats().front().count, 5);
    QSignalSpy width(w.summary(), &views::SummaryWidget::dagWidthReady);
    ASSERT_TRUE(w.summary()->dagWidth() >= 0 || width.wait(kTimeoutMs));
    EXPECT_EQ(w.summary()->dagWidth(), 1) << "every skip input also feeds its block's first conv: one chain";

    // Selecting in the graph reaches the inspector.
    const NodeId conv = firstNodeOfType(w, "Conv");
    ASSERT_NE(conv, kInvalidId);
    w.graphView()->selectNode(conv);
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.inspector()->model()->currentNode() == conv; }, kTimeoutMs));
    EXPECT_EQ(w.inspector()->model()->value("Node", "Op type"), "Conv");
    EXPECT_EQ(w.inspector()->model()->value("Node", "Name"), QString::fromStdString(model->graph->node(conv).name));
    EXPECT_EQ(w.outlineModel()->nodeAt(w.outline()->currentIndex()), conv) << "the outline follows the selection";

    // Search highlights and steps through matches.
    w.searchPanel()->setQuery("op:Relu");
    EXPECT_EQ(w.searchPanel()->matches().size(), 5u);
    w.searchPanel()->next();
    const NodeId relu = w.searchPanel()->currentMatch();
    ASSERT_NE(relu, kInvalidId);
    EXPECT_EQ(model->graph->node(relu).opType, "Relu");
    EXPECT_EQ(w.inspector()->model()->currentNode(), relu);

    // The whole window, for people to look at.
    w.searchPanel()->setQuery("block1");
    w.graphView()->selectNode(firstNodeOfType(w, "Add"));
    QTest::qWait(300);
    const QString shot = QStringLiteral(TESSERA_BINARY_DIR "/screenshots/mainwindow.png");
    ASSERT_TRUE(w.saveScreenshot(shot));
    QImage image(shot);
    EXPECT_EQ(image.size(), w.size() * w.devicePixelRatio());
}

TEST_F(MainWindowTest, CorruptFileReportsAndKeepsPreviousModel)
{
    MainWindow w;
    w.setInteractive(false);
    w.show();
    ASSERT_TRUE(load(w, smallPath()));
    const auto before = w.modelData();
    const QString title = w.windowTitle();
    const int outlineRows = w.outlineModel()->rowCount();

    QSignalSpy failed(&w, &MainWindow::loadFailed);
    QSignalSpy reported(&w, &MainWindow::errorReported);
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    w.openFile(badPath());
    ASSERT_TRUE(QTest::qWaitFor([&] { return failed.count() == 1; }, kTimeoutMs));
    const auto d = failed.front().front().value<Diagnostic>();
    EXPECT_EQ(d.severity, Severity::Error);
    EXPECT_NE(d.location.file.find("bad.onnx"), std::string::npos) << d.str();
    ASSERT_EQ(reported.count(), 1);
    EXPECT_TRUE(reported.front().at(1).toString().contains("bad.onnx")) << "the message names the file";
    EXPECT_EQ(loaded.count(), 0);
    EXPECT_EQ(w.modelData(), before) << "the previous model stays open";
    EXPECT_EQ(w.windowTitle(), title);
    EXPECT_EQ(w.outlineModel()->rowCount(), outlineRows);
    EXPECT_EQ(w.graphView()->graph(), before->graph);
}

TEST_F(MainWindowTest, MissingFileFailsWithIoError)
{
    MainWindow w;
    w.setInteractive(false);
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openFile(s_dir->filePath("no-such-model.onnx"));
    ASSERT_EQ(failed.count(), 1);
    EXPECT_EQ(failed.front().front().value<Diagnostic>().code, ErrorCode::Io);
    EXPECT_FALSE(w.modelData());
}

TEST_F(MainWindowTest, CancelDropsTheLoad)
{
    MainWindow w;
    w.setInteractive(false);
    ASSERT_TRUE(load(w, smallPath()));
    const auto before = w.modelData();

    QSignalSpy cancelled(w.loader(), &gui::ModelLoader::cancelled);
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    w.loader()->load(smallPath());
    EXPECT_TRUE(w.loader()->isLoading());
    w.loader()->cancel();
    EXPECT_EQ(cancelled.count(), 1);
    EXPECT_FALSE(w.loader()->isLoading());
    views::workerPool()->waitForDone();
    QTest::qWait(50);
    EXPECT_EQ(loaded.count(), 0) << "a cancelled load never replaces the model";
    EXPECT_EQ(w.modelData(), before);
}

TEST_F(MainWindowTest, OutlineAndOverlayDriveTheView)
{
    MainWindow w;
    w.setInteractive(false);
    w.show();
    ASSERT_TRUE(load(w, smallPath()));

    const NodeId add = firstNodeOfType(w, "Add");
    w.outline()->setCurrentIndex(w.outlineModel()->indexForNode(add));
    EXPECT_EQ(w.inspector()->model()->currentNode(), add);
    EXPECT_EQ(w.graphView()->selectedNode(), add);

    const QModelIndex group = w.outlineModel()->indexForGroup(w.modelData()->hierarchy.groupOf(add));
    w.outline()->setCurrentIndex(group);
    EXPECT_EQ(w.inspector()->model()->currentNode(), kInvalidId);
    EXPECT_EQ(w.inspector()->model()->value("Group", "Nodes"), "5") << "conv1 relu1 conv2 add relu2";

    EXPECT_FALSE(w.graphView()->hasOverlay());
    w.colourByCombo()->setCurrentIndex(1); // FLOPs
    EXPECT_TRUE(w.graphView()->hasOverlay());
    w.colourByCombo()->setCurrentIndex(0); // op type
    EXPECT_FALSE(w.graphView()->hasOverlay());
}

TEST_F(MainWindowTest, LayoutPersists)
{
    {
        MainWindow w;
        w.show();
        EXPECT_TRUE(w.findChild<QDockWidget *>("diagnosticsDock")->isVisible()) << "every dock shows by default";
        w.findChild<QDockWidget *>("diagnosticsDock")->hide();
        w.close();
    }
    MainWindow again;
    again.show();
    EXPECT_FALSE(again.findChild<QDockWidget *>("diagnosticsDock")->isVisible());
    EXPECT_TRUE(again.findChild<QDockWidget *>("outlineDock")->isVisible());
}

// What makes a layout unusable: a dock on screen smaller than a table needs, a
// dock tab whose title does not fit, a graph view too small to read.
static QStringList layoutProblems(MainWindow &w)
{
    QStringList problems;
    for (QDockWidget *dock : w.findChildren<QDockWidget *>()) {
        const QWidget *content = dock->widget();
        if (!dock->isVisible() || dock->isFloating() || !content || content->visibleRegion().isEmpty())
            continue; // closed, or a tab behind another
        if (content->width() < 240 || content->height() < 90)
            problems << QStringLiteral("dock '%1' is %2×%3")
                            .arg(dock->windowTitle())
                            .arg(content->width())
                            .arg(content->height());
    }
    for (QTabBar *bar : w.findChildren<QTabBar *>(QString(), Qt::FindDirectChildrenOnly)) {
        if (!bar->isVisible())
            continue;
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabRect(i).width() < bar->fontMetrics().horizontalAdvance(bar->tabText(i)))
                problems << QStringLiteral("tab '%1' is clipped").arg(bar->tabText(i));
    }
    if (w.graphView()->width() < 480 || w.graphView()->height() < 280)
        problems << QStringLiteral("graph view is %1×%2").arg(w.graphView()->width()).arg(w.graphView()->height());
    return problems;
}

// Issue 18: the first-start layout leaves every dock usable at 1366×768 and
// 1920×1080. Screenshots: screenshots/layout-1366x768.png, layout-1920x1080.png.
TEST_F(MainWindowTest, DefaultLayoutFitsSmallAndLargeScreens)
{
    for (const QSize screen : {QSize(1366, 768), QSize(1920, 1080)}) {
        const QString name = QStringLiteral("%1x%2").arg(screen.width()).arg(screen.height());
        SCOPED_TRACE(name.toStdString());
        MainWindow w;
        w.setInteractive(false);
        w.applyDefaultLayout(screen);
        w.show();
        w.openSample(QStringLiteral("squeezenet"));
        auto *controller = w.scheduleController();
        ASSERT_TRUE(QTest::qWaitFor([&] { return controller->lastRun() && !controller->isBusy(); }, kTimeoutMs));
        QTest::qWait(300);
        EXPECT_EQ(w.size(), screen);
        const QStringList problems = layoutProblems(w);
        EXPECT_TRUE(problems.isEmpty()) << problems.join(QStringLiteral("; ")).toStdString();
        ASSERT_TRUE(w.saveScreenshot(QStringLiteral(TESSERA_BINARY_DIR "/screenshots/layout-%1.png").arg(name)));
    }
}

// The twin: a dock squeezed to a sliver is reported by name.
TEST_F(MainWindowTest, ASqueezedDockIsReported)
{
    MainWindow w;
    w.applyDefaultLayout(QSize(1366, 768));
    w.show();
    auto *outline = w.findChild<QDockWidget *>(QStringLiteral("outlineDock"));
    auto *search = w.findChild<QDockWidget *>(QStringLiteral("searchDock"));
    w.resizeDocks({outline, search}, {40, 600}, Qt::Vertical);
    QTest::qWait(100);
    const QStringList problems = layoutProblems(w);
    EXPECT_TRUE(problems.join(QStringLiteral("; ")).contains(QStringLiteral("dock 'Outline'")))
        << problems.join(QStringLiteral("; ")).toStdString();
}

TEST_F(MainWindowTest, RecentFilesPruneMissing)
{
    QMenu menu;
    gui::RecentFiles recent(&menu);
    QSignalSpy pruned(&recent, &gui::RecentFiles::pruned);
    recent.add(smallPath());
    recent.add(badPath());
    recent.add(smallPath()); // moves to the front, no duplicate
    EXPECT_EQ(recent.files(), (QStringList{smallPath(), badPath()}));
    EXPECT_EQ(pruned.count(), 0) << "nothing is missing yet";

    recent.add(s_dir->filePath("gone.onnx"));
    EXPECT_EQ(recent.files(), (QStringList{smallPath(), badPath()}));
    ASSERT_EQ(pruned.count(), 1);
    EXPECT_EQ(pruned.front().front().toStringList(), QStringList{s_dir->filePath("gone.onnx")});

    for (int i = 0; i < 12; ++i) {
        const QString p = s_dir->filePath(QStringLiteral("m%1.onnx").arg(i));
        QFile f(p);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        recent.add(p);
    }
    EXPECT_EQ(recent.files().size(), gui::RecentFiles::kMaxEntries);
    EXPECT_EQ(recent.mostRecent(), s_dir->filePath("m11.onnx"));
}

TEST_F(MainWindowTest, DropAcceptsOnnxFilesOnly)
{
    MainWindow w;
    w.setInteractive(false);
    const auto dragEnter = [&w](const QString &path) {
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent e(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &e);
        return e.isAccepted();
    };
    EXPECT_TRUE(dragEnter(smallPath()));
    EXPECT_FALSE(dragEnter(s_dir->filePath("notes.txt")));
}

// The samples tessera registers; the command line takes them as data.
const QStringList kSampleNames = [] {
    QStringList names;
    for (const std::string &n : test::registeredSampleNames())
        names << QString::fromStdString(n);
    return names;
}();

TEST(CommandLine, Parses)
{
    auto cl =
        gui::parseCommandLine({"tessera", "model.onnx", "--screenshot", "out.png", "--quit-after-load"}, kSampleNames);
    ASSERT_TRUE(cl.isOk()) << cl.status().str();
    EXPECT_EQ(cl->model, "model.onnx");
    EXPECT_EQ(cl->screenshot, "out.png");
    EXPECT_TRUE(cl->quitAfterLoad);
    EXPECT_TRUE(cl->sample.isEmpty());

    cl = gui::parseCommandLine({"tessera", "--sample", "resnet50"}, kSampleNames);
    ASSERT_TRUE(cl.isOk()) << cl.status().str();
    EXPECT_EQ(cl->sample, "resnet50");
    EXPECT_TRUE(cl->model.isEmpty());

    cl = gui::parseCommandLine({"tessera", "--help"}, kSampleNames);
    ASSERT_TRUE(cl.isOk());
    EXPECT_TRUE(cl->exitText.contains("--sample"));
}

TEST(CommandLine, Rejects)
{
    const auto fails = [](const QStringList &args, const char *needle) {
        auto cl = gui::parseCommandLine(args, kSampleNames);
        EXPECT_FALSE(cl.isOk()) << args.join(' ').toStdString();
        if (!cl.isOk()) {
            EXPECT_EQ(cl.status().code(), ErrorCode::Usage);
            EXPECT_NE(cl.status().message().find(needle), std::string::npos) << cl.status().message();
        }
    };
    fails({"tessera", "a.onnx", "--sample", "resnet50"}, "not both");
    fails({"tessera", "--sample", "resnet51"}, "known: resnet50");
    fails({"tessera", "a.onnx", "b.onnx"}, "at most one model");
    fails({"tessera", "--no-such-flag"}, "no-such-flag");
}

// The window builds its device registry once: picking a device looks it up
// there, not in a registry rebuilt from the files (whose user device is gone by
// then). The twin: a device file that appears later is not offered.
TEST(MainWindowDevices, PickerUsesTheRegistryBuiltAtStart)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString user = dir.filePath(QStringLiteral("lab.json"));
    ASSERT_TRUE(QFile::copy(QStringLiteral(TESSERA_TEST_DATA "/hw/data/user/good.json"), user));
    qputenv("TESSERA_DEVICE_PATH", dir.path().toUtf8());
    MainWindow w;
    qunsetenv("TESSERA_DEVICE_PATH");
    ASSERT_TRUE(QFile::remove(user));
    QFile late(dir.filePath(QStringLiteral("late.json")));
    QFile good(QStringLiteral(TESSERA_TEST_DATA "/hw/data/user/good.json"));
    ASSERT_TRUE(good.open(QIODevice::ReadOnly) && late.open(QIODevice::WriteOnly));
    late.write(good.readAll().replace("lab-npu", "late-npu"));
    late.close();
    qputenv("TESSERA_DEVICE_PATH", dir.path().toUtf8());

    const int lab = w.deviceCombo()->findData(QStringLiteral("lab-npu"));
    ASSERT_GE(lab, 0);
    w.deviceCombo()->setCurrentIndex(lab);
    ASSERT_NE(w.scheduleController()->device(), nullptr);
    EXPECT_EQ(w.scheduleController()->device()->id, "lab-npu");
    EXPECT_EQ(w.deviceCombo()->findData(QStringLiteral("late-npu")), -1);
    qunsetenv("TESSERA_DEVICE_PATH");
}

} // namespace

int main(int argc, char **argv)
{
    return tessera::test::runWidgetTests(argc, argv, "tst_mainwindow");
}

// The IOS tests' start: SqueezeNet from the samples, scheduled with IOS on the
// V100 preset in a 1600×1000 window.
static bool scheduleSqueezeNetWithIos(MainWindow &w)
{
    w.setInteractive(false);
    w.resize(1600, 1000);
    w.show();
    w.deviceCombo()->setCurrentIndex(w.deviceCombo()->findData(QStringLiteral("nvidia-v100")));
    w.algorithmCombo()->setCurrentIndex(w.algorithmCombo()->findData(QStringLiteral("ios")));
    w.openSample(QStringLiteral("squeezenet"));
    auto *controller = w.scheduleController();
    return QTest::qWaitFor(
        [&] { return controller->lastRun() && controller->schedulerName() == "ios" && !controller->isBusy(); },
        kTimeoutMs);
}

// The whole loop in the workbench: schedule with IOS, see the stages, run the
// plan on the reference backend, see the measured timeline. Screenshots:
// screenshots/workbench-stages.png and screenshots/workbench-run.png.
TEST_F(MainWindowTest, ScheduleShowsStagesAndRunsOnTheReferenceBackend)
{
    MainWindow w;
    ASSERT_TRUE(scheduleSqueezeNetWithIos(w));
    auto *controller = w.scheduleController();
    const auto run = controller->lastRun();
    ASSERT_EQ(run->result.plan.algorithm, "ios");

    // Stages: one column per IOS stage of the plan.
    std::set<std::int32_t> stages;
    for (const Task &t : run->result.plan.tasks)
        if (t.stage >= 0)
            stages.insert(t.stage);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return w.stageView()->stageLayout() && w.stageView()->stageLayout()->columns.size() == stages.size(); },
        kTimeoutMs));
    w.raiseDock(QStringLiteral("stageDock"));
    QTest::qWait(300);
    ASSERT_TRUE(w.saveScreenshot(QStringLiteral(TESSERA_BINARY_DIR "/screenshots/workbench-stages.png")));

    // Run the plan on the reference backend from the run panel.
    QSignalSpy ran(w.runPanel(), &views::RunPanel::runFinished);
    ASSERT_TRUE(w.runPanel()->selectBackend(QStringLiteral("reference")));
    ASSERT_TRUE(w.runPanel()->run());
    ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() == 1; }, 2 * kTimeoutMs))
        << w.runPanel()->statusText().toStdString();
    const auto result = w.runPanel()->lastResult();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->outputs.size(), w.modelData()->graph->outputs.size());
    EXPECT_GT(result->latencyMs, 0);
    w.raiseDock(QStringLiteral("runDock"));
    QTest::qWait(300);
    ASSERT_TRUE(w.saveScreenshot(QStringLiteral(TESSERA_BINARY_DIR "/screenshots/workbench-run.png")));
}

// Issue 12 item 4: a simulated run in the workbench at 1366×768 — the Metrics
// dock charts each memory level and unit kind, the Run dock's Gantt names the
// simulator's lanes. Screenshots: screenshots/workbench-metrics.png and
// workbench-gantt.png.
TEST_F(MainWindowTest, SimulatedRunFillsTheMetricsDockAtASmallScreen)
{
    MainWindow w;
    w.setInteractive(false);
    w.applyDefaultLayout(QSize(1366, 768));
    w.show();
    w.deviceCombo()->setCurrentIndex(w.deviceCombo()->findData(QStringLiteral("stcp920")));
    w.algorithmCombo()->setCurrentIndex(w.algorithmCombo()->findData(QStringLiteral("graphturbo")));
    w.openSample(QStringLiteral("squeezenet"));
    auto *controller = w.scheduleController();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return controller->lastRun() && controller->schedulerName() == "graphturbo" && !controller->isBusy(); },
        kTimeoutMs));
    ASSERT_EQ(controller->lastRun()->result.plan.device, "stcp920");
    QSignalSpy ran(w.runPanel(), &views::RunPanel::runFinished);
    ASSERT_TRUE(w.runPanel()->selectBackend(QStringLiteral("sim")));
    ASSERT_TRUE(w.runPanel()->run());
    ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() == 1; }, 2 * kTimeoutMs))
        << w.runPanel()->statusText().toStdString();
    const auto result = w.runPanel()->lastResult();
    ASSERT_TRUE(result);
    views::MetricsPanel *metrics = w.metricsPanel();
    ASSERT_TRUE(metrics);
    EXPECT_EQ(metrics->charts().occupancy.size(), w.state()->device()->levels.size());
    EXPECT_FALSE(metrics->charts().utilisation.empty());
    EXPECT_FALSE(metrics->isEmptyState(views::MetricsPanel::ThroughputChart));
    w.raiseDock(QStringLiteral("metricsDock"));
    QTest::qWait(300);
    const QStringList problems = layoutProblems(w);
    EXPECT_TRUE(problems.isEmpty()) << problems.join(QStringLiteral("; ")).toStdString();
    EXPECT_GE(metrics->chartWidget(views::MetricsPanel::OccupancyChart)->height(), 120);
    ASSERT_TRUE(w.saveScreenshot(QStringLiteral(TESSERA_BINARY_DIR "/screenshots/workbench-metrics.png")));
    w.raiseDock(QStringLiteral("runDock"));
    QTest::qWait(300);
    EXPECT_GT(w.runPanel()->timelineStrip()->timeline().laneCount(), 1);
    ASSERT_TRUE(w.saveScreenshot(QStringLiteral(TESSERA_BINARY_DIR "/screenshots/workbench-gantt.png")));
}

// Issue 18: the plan on the graph. Colouring by a plan facet shows one
// category per IOS stage and follows a re-schedule; without a schedule the
// graph keeps its op-type colours. Screenshot: screenshots/workbench-plan-stages.png.
TEST_F(MainWindowTest, ColourByThePlansStages)
{
    MainWindow w;
    ASSERT_TRUE(scheduleSqueezeNetWithIos(w));
    const auto run = w.scheduleController()->lastRun();
    std::set<std::int32_t> stages;
    for (const Task &t : run->result.plan.tasks)
        if (t.kind == TaskKind::Compute && t.stage >= 0)
            stages.insert(t.stage);
    QComboBox *combo = w.colourByCombo();
    const int stageItem = combo->findText(QStringLiteral("plan: stage"));
    ASSERT_GE(stageItem, 0);
    combo->setCurrentIndex(stageItem);
    ASSERT_TRUE(w.graphView()->hasCategories());
    // Every node the plan computes is coloured; stage sets only add categories.
    const views::NodeCategories c =
        views::planCategories(*w.modelData()->graph, run->result.plan, views::PlanFacet::Stage);
    EXPECT_GE(c.names.size(), stages.size());
    EXPECT_TRUE(std::none_of(c.perNode.begin(), c.perNode.end(), [](int i) { return i < 0; }));
    w.graphView()->fitAll();
    QTest::qWait(300);
    ASSERT_TRUE(w.saveScreenshot(QStringLiteral(TESSERA_BINARY_DIR "/screenshots/workbench-plan-stages.png")));

    combo->setCurrentIndex(combo->findText(QStringLiteral("plan: kernel")));
    EXPECT_TRUE(w.graphView()->hasCategories());
    combo->setCurrentIndex(0); // the negative twin: op type has no categories
    EXPECT_FALSE(w.graphView()->hasCategories());
    EXPECT_FALSE(w.graphView()->hasOverlay());
}

// The DP explorer in the workbench: showing it makes IOS record its search
// space; forcing another transition of the start state replays with that
// override. Screenshot: screenshots/workbench-explorer.png.
TEST_F(MainWindowTest, ExplorerShowsTheSearchAndForcesAStage)
{
    MainWindow w;
    ASSERT_TRUE(scheduleSqueezeNetWithIos(w));
    auto *controller = w.scheduleController();
    EXPECT_FALSE(controller->lastRun()->result.searchSpace) << "nothing recorded until the explorer is shown";

    w.raiseDock(QStringLiteral("explorerDock"));
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return controller->lastRun()->result.searchSpace && !controller->isBusy() &&
                   w.searchExplorer()->hasSearchSpace();
        },
        kTimeoutMs));
    const SearchSpace &space = *controller->lastRun()->result.searchSpace;
    ASSERT_FALSE(space.tables.empty());

    // Force the first legal non-chosen transition of a table's start state.
    int table = -1, forced = -1;
    for (std::size_t t = 0; t < space.tables.size() && forced < 0; ++t) {
        const SearchSpace::Table &tab = space.tables[t];
        if (tab.path.empty())
            continue;
        const SearchSpace::State &start = tab.states[static_cast<std::size_t>(tab.path.front())];
        for (std::size_t i = 0; i < tab.transitions.size(); ++i)
            if (tab.transitions[i].from == tab.path.front() && static_cast<std::int32_t>(i) != start.choice &&
                !tab.transitions[i].decisionKey.empty() && tab.transitions[i].totalCost > start.cost * 1.0001) {
                table = static_cast<int>(t);
                forced = static_cast<int>(i);
                break;
            }
    }
    ASSERT_GE(forced, 0) << "squeezenet has a block with a choice at its start";
    const std::string key =
        space.tables[static_cast<std::size_t>(table)].transitions[static_cast<std::size_t>(forced)].decisionKey;
    const double forcedCost =
        space.tables[static_cast<std::size_t>(table)].transitions[static_cast<std::size_t>(forced)].totalCost;
    {
        const auto &ix = w.searchExplorer()->model()->tableIndex(table);
        EXPECT_FALSE(ix.forced()) << "before the force the path is the optimum";
        EXPECT_DOUBLE_EQ(ix.pathCost, ix.optimum);
    }
    w.searchExplorer()->setCurrentTable(table);
    QSignalSpy replayed(controller, &gui::ScheduleController::finished);
    ASSERT_TRUE(w.searchExplorer()->forceTransition(forced));
    EXPECT_EQ(controller->overrides().count(key), 1u);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return replayed.count() >= 1 && !controller->isBusy() &&
                   controller->lastRun()->decisions.overrides().count(key);
        },
        kTimeoutMs));
    const auto &reports = controller->lastRun()->overrideReports;
    ASSERT_FALSE(reports.empty());
    for (const OverrideReport &r : reports)
        EXPECT_EQ(r.outcome, OverrideReport::Outcome::Applied) << r.key << ": " << r.reason;
    // Issue 18: after the force the table row and the status give the forced path's cost, the
    // un-forced optimum only as the reference.
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.searchExplorer()->hasSearchSpace(); }, kTimeoutMs));
    const auto &ix = w.searchExplorer()->model()->tableIndex(table);
    EXPECT_TRUE(ix.forced());
    EXPECT_NEAR(ix.pathCost, forcedCost, 1e-6 * forcedCost);
    EXPECT_LT(ix.optimum, ix.pathCost);
    const QString rowCost =
        w.searchExplorer()->model()->index(table, views::SearchSpaceModel::CostColumn).data().toString();
    EXPECT_TRUE(rowCost.endsWith(QStringLiteral("(forced)"))) << rowCost.toStdString();
    const auto &forcedSpace = *controller->lastRun()->result.searchSpace;
    const auto &tab = forcedSpace.tables[static_cast<std::size_t>(table)];
    const QModelIndex start = w.searchExplorer()->model()->stateIndex(table, tab.path.front());
    const QString startDelta = start.siblingAtColumn(views::SearchSpaceModel::DeltaColumn).data().toString();
    EXPECT_TRUE(startDelta.startsWith(QLatin1Char('+'))) << startDelta.toStdString();
    EXPECT_EQ(start.siblingAtColumn(views::SearchSpaceModel::KindColumn).data().toString(),
              QStringLiteral("forced path"));
    QTest::qWait(300);
    ASSERT_TRUE(w.saveScreenshot(QStringLiteral(TESSERA_BINARY_DIR "/screenshots/workbench-explorer.png")));
}

// The Algorithm dock edits the scheduler's typed options: an edit replays the
// schedule with it; switching the algorithm clears them (they belong to one
// scheduler). Screenshot: screenshots/workbench-options.png.
TEST_F(MainWindowTest, AlgorithmDockEditsOptionsAndReplays)
{
    MainWindow w;
    ASSERT_TRUE(scheduleSqueezeNetWithIos(w));
    auto *controller = w.scheduleController();
    const double transitions = controller->lastRun()->result.stats.at("transitions");

    QSignalSpy replayed(controller, &gui::ScheduleController::finished);
    ASSERT_TRUE(w.optionsEditor()->model()->setOptionText("r", "1"));
    EXPECT_EQ(controller->options(), (std::map<std::string, std::string>{{"r", "1"}}));
    ASSERT_TRUE(QTest::qWaitFor([&] { return replayed.count() >= 1 && !controller->isBusy(); }, kTimeoutMs));
    EXPECT_LT(controller->lastRun()->result.stats.at("transitions"), transitions);

    EXPECT_FALSE(w.optionsEditor()->model()->setOptionText("s", "0")) << "out of range";
    EXPECT_EQ(controller->options().count("s"), 0u);

    w.raiseDock(QStringLiteral("optionsDock"));
    QTest::qWait(300);
    ASSERT_TRUE(w.saveScreenshot(QStringLiteral(TESSERA_BINARY_DIR "/screenshots/workbench-options.png")));

    w.algorithmCombo()->setCurrentIndex(w.algorithmCombo()->findData(QStringLiteral("greedy")));
    EXPECT_TRUE(controller->options().empty());
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return controller->lastRun()->result.plan.algorithm == "greedy" && !controller->isBusy(); }, kTimeoutMs));
}

// Scheduler plugins in the workbench: a plugin's algorithm is offered in the
// toolbar; a refused plugin is listed in the Diagnostics dock, before and
// after a model loads.
TEST_F(MainWindowTest, PluginAlgorithmsAreOfferedAndMisfitsListed)
{
    QTemporaryDir plugins;
    ASSERT_TRUE(plugins.isValid());
    ASSERT_TRUE(QFile::copy(QStringLiteral(EXAMPLE_PLUGIN), plugins.filePath("libexample.so")));
    ASSERT_TRUE(QFile::copy(QStringLiteral(BAD_ABI_PLUGIN), plugins.filePath("libbad.so")));
    qputenv("TESSERA_PLUGIN_PATH", plugins.path().toLocal8Bit());
    MainWindow w;
    qunsetenv("TESSERA_PLUGIN_PATH");
    w.setInteractive(false);
    w.show();

    EXPECT_GE(w.algorithmCombo()->findData(QStringLiteral("example-chain")), 0);
    EXPECT_LT(w.algorithmCombo()->findData(QStringLiteral("nope")), 0);
    ASSERT_EQ(w.diagnostics()->count(), 1);
    EXPECT_NE(w.diagnostics()->model()->data(w.diagnostics()->model()->index(0, 0)).toString().size(), 0);

    ASSERT_TRUE(load(w, smallPath()));
    EXPECT_EQ(w.diagnostics()->count(), 1 + static_cast<int>(w.modelData()->diagnostics.size()));
    w.algorithmCombo()->setCurrentIndex(w.algorithmCombo()->findData(QStringLiteral("example-chain")));
    auto *controller = w.scheduleController();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return controller->lastRun() && controller->lastRun()->result.plan.algorithm == "example-chain" &&
                   !controller->isBusy();
        },
        kTimeoutMs));
    EXPECT_EQ(controller->lastRun()->result.plan.kernels.size(), w.modelData()->graph->nodeCount());
}
