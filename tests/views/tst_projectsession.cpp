// Projects and schedule export in the workbench, under the offscreen platform:
// a project created from the window and reopened in a new window restores the
// model, algorithm, device, options, overrides, selected step and view; saves
// happen without an explicit save; undo/redo move the project's history; each
// kind of bad project file is refused with a clear message and leaves both the
// session on screen and the file byte-identical; a read-only project opens with
// a note and saves nothing; File ▸ Export writes schedule documents the schema
// accepts, Perfetto timelines and IOS schedules, and a failed write keeps the
// old file; File ▸ Import ▸ Overrides applies the valid keys as one undo step
// and lists the rejected ones in Diagnostics. Saves
// <build>/screenshots/projectsession.png (the window with a project open, its
// title drawn above it) for people to look at.
#include "app/gui/commandline.h"
#include "app/gui/mainwindow.h"
#include "app/gui/modelloader.h"
#include "app/gui/projectsession.h"
#include "app/gui/recentfiles.h"
#include "app/gui/runcontroller.h"
#include "app/gui/samplecache.h"
#include "app/gui/schedulecontroller.h"
#include "app/gui/scheduleexport.h"
#include "app/gui/unsavedsession.h"
#include "core/io/schedulejson.h"
#include "core/ir/graphhash.h"
#include "core/onnx/modelbuilder.h"
#include "core/store/project.h"
#include "core/support/fileio.h"
#include "plugins/ios/iosformat.h"
#include "samples/builder.h"
#include "views/models/format.h"
#include "views/models/runcomparisonmodel.h"
#include "views/models/steplistmodel.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/diagnosticspanel.h"
#include "views/widgets/graphview.h"
#include "views/widgets/runcomparisonwidget.h"
#include "views/widgets/runpanel.h"
#include "views/widgets/searchexplorer.h"
#include "views/widgets/stepperwidget.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPainter>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <random>
#include <unistd.h>

#include "tests/common/testsamples.h"
#include "tests/common/widgettestmain.h"
#include "tests/io/jsonschema.h"
#include "tests/views/smallmodel.h"

using namespace tessera;
using tessera::gui::MainWindow;
using tessera::gui::ProjectSession;
using tessera::gui::ScheduleExport;

namespace {

constexpr int kTimeoutMs = 60000;

using testmodels::writeSmallModel;

std::string slurp(const QString &path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const QString &path, const std::string &bytes)
{
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    out << bytes;
}

class ProjectSessionTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        QSettings().clear();
        ASSERT_TRUE(m_dir.isValid());
        writeSmallModel(file("small.onnx"));
    }

    QString file(const QString &name) const { return m_dir.filePath(name); }

    static bool load(MainWindow &w, const QString &path)
    {
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        QSignalSpy laidOut(w.graphView(), &GraphView::layoutFinished);
        w.openFile(path);
        return QTest::qWaitFor([&] { return loaded.count() == 1 && laidOut.count() >= 1; }, kTimeoutMs);
    }

    // `w` made non-interactive (and shown when `show`), small.onnx loaded into
    // it and scheduled, and a project of it created at `projectPath`.
    bool startSmallProject(MainWindow &w, const QString &projectPath, bool show = false) const
    {
        w.setInteractive(false);
        if (show)
            w.show();
        return load(w, file("small.onnx")) && scheduled(w) && w.session()->create(projectPath).isOk();
    }

    // Waits until the controller has a result for its current inputs.
    static bool scheduled(MainWindow &w)
    {
        return QTest::qWaitFor(
            [&] {
                auto *c = w.scheduleController();
                return c->lastRun() && !c->isBusy() && c->lastRun()->decisions.overrides() == c->overrides();
            },
            kTimeoutMs);
    }

    // Opens a project and waits for its session to be restored.
    static bool openProject(MainWindow &w, const QString &path, OpenMode mode = OpenMode::ReadWrite)
    {
        QSignalSpy restored(w.session(), &ProjectSession::restored);
        if (mode == OpenMode::ReadWrite)
            w.openFile(path); // as File ▸ Open Recent and drops do
        else if (!w.session()->open(path, mode).isOk())
            return false;
        return QTest::qWaitFor([&] { return restored.count() == 1; }, kTimeoutMs) && scheduled(w);
    }

    static void selectAlgorithm(MainWindow &w, const QString &name)
    {
        const int i = w.algorithmCombo()->findData(name);
        ASSERT_GE(i, 0) << name.toStdString();
        w.algorithmCombo()->setCurrentIndex(i);
    }

    // A decision of the last run with a legal option the scheduler did not prefer.
    static std::pair<std::string, std::string> someOverride(const MainWindow &w, int skip = 0)
    {
        for (const DecisionRecord &d : w.scheduleController()->lastRun()->decisions.records())
            for (std::size_t i = 0; i < d.options.size(); ++i)
                if (static_cast<std::int32_t>(i) != d.preferred && d.options[i].legal() && skip-- == 0)
                    return {d.key, d.options[i].id};
        return {};
    }

    static QSet<QString> expandedGroups(const MainWindow &w)
    {
        QSet<QString> out;
        const Hierarchy &h = w.graphView()->hierarchy();
        for (GroupId g = 1; g < static_cast<GroupId>(h.groups().size()); ++g)
            if (w.graphView()->isExpanded(g))
                out.insert(QString::fromStdString(h.group(g).path));
        return out;
    }

    static QPointF viewCentre(const MainWindow &w)
    {
        return w.graphView()->mapToScene(w.graphView()->viewport()->rect().center());
    }

    // A project made without the window (as tessera-cli would): model, layer-fusion on stcp920.
    Project makeProject(const QString &path, const QString &model)
    {
        ProjectInfo info;
        info.model.path = model.toStdString();
        info.model.structureHash = modelStructureHashOf(model);
        info.setup = {"layer-fusion", "stcp920", {}};
        auto p = Project::create(path.toStdString(), info, true);
        EXPECT_TRUE(p.isOk()) << p.status().str();
        return std::move(*p);
    }

    static std::string modelStructureHashOf(const QString &model);

    QTemporaryDir m_dir;
};

std::string ProjectSessionTest::modelStructureHashOf(const QString &model)
{
    auto loaded = gui::loadModelFile(model);
    EXPECT_TRUE(loaded.isOk());
    return loaded ? modelStructureHash(*(*loaded)->graph) : std::string();
}

// --- create, close, reopen ---------------------------------------------------------

TEST_F(ProjectSessionTest, CreateCloseReopenRestoresTheSession)
{
    const QString projectPath = file("session.tessera");
    std::pair<std::string, std::string> override1, override2;
    QString device;
    int step = -1;
    QSet<QString> expanded;
    qreal zoom = 0;
    QPointF centre;
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        ASSERT_TRUE(load(w, file("small.onnx")));
        selectAlgorithm(w, "ios");
        w.deviceCombo()->setCurrentIndex((w.deviceCombo()->currentIndex() + 1) % w.deviceCombo()->count());
        device = w.deviceCombo()->currentData().toString();
        w.precisionCombo()->setCurrentIndex(w.precisionCombo()->findData(QStringLiteral("fp16")));
        EXPECT_EQ(w.scheduleController()->precision(), DType::Float16);
        w.scheduleController()->setOptions({{"r", "2"}, {"strategy", "parallel"}});
        ASSERT_TRUE(scheduled(w));
        override1 = someOverride(w);
        ASSERT_FALSE(override1.first.empty()) << "ios asks decisions on the small resnet";
        w.scheduleController()->setOverride(override1.first, override1.second);
        ASSERT_TRUE(scheduled(w));

        ASSERT_TRUE(w.session()->create(projectPath).isOk());
        EXPECT_TRUE(w.session()->isOpen());
        EXPECT_TRUE(w.windowTitle().startsWith("session — small.onnx")) << w.windowTitle().toStdString();

        // Changes after creating are saved without an explicit save.
        override2 = someOverride(w, 1);
        ASSERT_FALSE(override2.first.empty());
        w.scheduleController()->setOverride(override2.first, override2.second);
        ASSERT_TRUE(scheduled(w));
        step = std::min(3, w.stepper()->stepModel()->rowCount() - 1);
        ASSERT_GT(step, 0);
        w.stepper()->setCurrentStep(step);
        w.graphView()->collapseAll();
        w.graphView()->expandGroup(1);
        ASSERT_TRUE(QTest::qWaitFor([&] { return !w.graphView()->isLayoutPending(); }, kTimeoutMs));
        w.graphView()->zoomIn();
        w.graphView()->zoomIn();
        expanded = expandedGroups(w);
        zoom = w.graphView()->zoomLevel();
        centre = viewCentre(w);

        // On disk while the window is still open: overrides and setup at once, state within the autosave delay.
        QTest::qWait(700);
        auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
        ASSERT_TRUE(disk.isOk()) << disk.status().str();
        const Overrides both{override1, override2};
        EXPECT_EQ(*disk->overrides(), both);
        EXPECT_EQ(disk->setup()->algorithm, "ios");
        EXPECT_EQ(disk->setup()->device, device.toStdString());
        EXPECT_EQ(disk->setup()->precision, DType::Float16);
        EXPECT_EQ(disk->setup()->options, (std::map<std::string, std::string>{{"r", "2"}, {"strategy", "parallel"}}));
        EXPECT_EQ(disk->state("selected_step")->value_or(""), std::to_string(step));
        EXPECT_GE(disk->plans()->size(), 2u) << "the first plan and the one after the second override";
        EXPECT_EQ(disk->plans()->back().algorithm, "ios");
        ASSERT_TRUE(disk->close().isOk());
        w.close();
    }
    QSettings().clear(); // the new window starts from defaults: everything comes from the project

    MainWindow w;
    w.setInteractive(false);
    w.show();
    QSignalSpy errors(&w, &MainWindow::errorReported);
    ASSERT_TRUE(openProject(w, projectPath));
    EXPECT_EQ(errors.count(), 0);
    ASSERT_TRUE(w.modelData());
    EXPECT_EQ(QString::fromStdString(w.modelData()->path), QFileInfo(file("small.onnx")).absoluteFilePath());
    EXPECT_EQ(w.algorithmCombo()->currentData().toString(), "ios");
    EXPECT_EQ(w.scheduleController()->schedulerName(), "ios");
    EXPECT_EQ(w.deviceCombo()->currentData().toString(), device);
    EXPECT_EQ(QString::fromStdString(w.scheduleController()->device()->id), device);
    EXPECT_EQ(w.precisionCombo()->currentData().toString(), QStringLiteral("fp16"));
    EXPECT_EQ(w.scheduleController()->precision(), DType::Float16);
    ASSERT_TRUE(w.scheduleController()->state()->lastRun());
    EXPECT_EQ(w.scheduleController()->state()->lastRun()->result.plan.precision, DType::Float16);
    EXPECT_EQ(w.scheduleController()->options(),
              (std::map<std::string, std::string>{{"r", "2"}, {"strategy", "parallel"}}));
    EXPECT_EQ(w.scheduleController()->overrides(), (Overrides{override1, override2}));
    EXPECT_EQ(w.stepper()->currentStep(), step);
    EXPECT_EQ(expandedGroups(w), expanded);
    EXPECT_NEAR(w.graphView()->zoomLevel(), zoom, 1e-9);
    EXPECT_NEAR(viewCentre(w).x(), centre.x(), 2.0);
    EXPECT_NEAR(viewCentre(w).y(), centre.y(), 2.0);
    EXPECT_TRUE(w.windowTitle().startsWith("session — small.onnx — Tessera")) << w.windowTitle().toStdString();
    EXPECT_EQ(w.recentFiles()->mostRecent(), projectPath);

    // The window with the project open, its title drawn above it (grab() has no window frame).
    w.stepper()->setCurrentStep(step);
    QTest::qWait(300);
    const QImage window = w.grab().toImage();
    QImage shot(window.width(), window.height() + 28, QImage::Format_ARGB32);
    shot.fill(QColor(0xe8, 0xea, 0xed));
    QPainter p(&shot);
    QFont f = w.font();
    f.setBold(true);
    p.setFont(f);
    p.setPen(QColor(0x20, 0x24, 0x2b));
    p.drawText(QRect(0, 0, window.width(), 28), Qt::AlignCenter, w.windowTitle());
    p.drawImage(0, 28, window);
    p.end();
    const QString path = QStringLiteral(TESSERA_BINARY_DIR "/screenshots/projectsession.png");
    QDir().mkpath(QFileInfo(path).absolutePath());
    ASSERT_TRUE(shot.save(path));
}

// Issue 13: the cost box's choice is part of the project's setup (schema v5):
// saved when it changes, and restored on reopening over the window's own
// default (QSettings).
TEST_F(ProjectSessionTest, TheCostSourceIsSavedAndRestored)
{
    const QString projectPath = file("cost.tessera");
    {
        MainWindow w;
        ASSERT_TRUE(startSmallProject(w, projectPath, true));
        const int sim = w.costCombo()->findData(QStringLiteral("sim"));
        ASSERT_GE(sim, 0) << "the simulator times kernels";
        w.costCombo()->setCurrentIndex(sim);
        EXPECT_EQ(w.scheduleController()->costMeter(), QStringLiteral("sim"));
        ASSERT_TRUE(scheduled(w));
        auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
        ASSERT_TRUE(disk.isOk()) << disk.status().str();
        EXPECT_EQ(disk->setup()->cost, kCostMeasured);
        EXPECT_EQ(disk->setup()->meter, "sim");
        ASSERT_TRUE(disk->close().isOk());
        w.close();
    }
    QSettings().clear(); // the new window starts with estimated costs
    MainWindow w;
    w.setInteractive(false);
    w.show();
    ASSERT_EQ(w.costCombo()->currentData().toString(), gui::ScheduleController::kEstimated);
    QSignalSpy errors(&w, &MainWindow::errorReported);
    ASSERT_TRUE(openProject(w, projectPath));
    EXPECT_EQ(errors.count(), 0);
    EXPECT_EQ(w.costCombo()->currentData().toString(), QStringLiteral("sim"));
    EXPECT_EQ(w.scheduleController()->costMeter(), QStringLiteral("sim"));
    EXPECT_EQ(w.scheduleController()->lastMeterReport().backend, QStringLiteral("sim"));

    // Back to estimated costs: saved too.
    w.costCombo()->setCurrentIndex(w.costCombo()->findData(gui::ScheduleController::kEstimated));
    ASSERT_TRUE(scheduled(w));
    ASSERT_TRUE(w.session()->flush().isOk());
    auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
    ASSERT_TRUE(disk.isOk()) << disk.status().str();
    EXPECT_EQ(disk->setup()->cost, kCostEstimated);
    EXPECT_EQ(disk->setup()->meter, "");
}

// Negative twin: a stored meter this build cannot use is not applied (the
// box and the controller stay on estimated costs), a note says so, and the
// file keeps its choice (through other setup changes) until another cost
// source is picked.
TEST_F(ProjectSessionTest, AStoredMeterThatIsNotHereFallsBackToEstimatesWithANote)
{
    const QString projectPath = file("nometer.tessera");
    {
        MainWindow w;
        ASSERT_TRUE(startSmallProject(w, projectPath, true));
        w.close();
    }
    {
        auto p = Project::open(projectPath.toStdString());
        ASSERT_TRUE(p.isOk()) << p.status().str();
        ProjectSetup setup = *p->setup();
        setup.cost = kCostMeasured;
        setup.meter = "no-such-backend";
        ASSERT_TRUE(p->setSetup(setup).isOk());
        ASSERT_TRUE(p->close().isOk());
    }
    QSettings().clear();
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QSignalSpy notices(w.session(), &ProjectSession::notice);
    ASSERT_TRUE(openProject(w, projectPath));
    EXPECT_EQ(w.costCombo()->currentData().toString(), gui::ScheduleController::kEstimated);
    EXPECT_EQ(w.scheduleController()->costMeter(), gui::ScheduleController::kEstimated);
    bool told = false;
    for (const QList<QVariant> &n : notices)
        told = told || n.at(0).toString().contains(QStringLiteral("measured on no-such-backend, which cannot be used"));
    EXPECT_TRUE(told);
    w.precisionCombo()->setCurrentIndex(w.precisionCombo()->findData(QStringLiteral("fp16")));
    ASSERT_TRUE(scheduled(w));
    ASSERT_TRUE(w.session()->flush().isOk());
    {
        auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
        ASSERT_TRUE(disk.isOk()) << disk.status().str();
        EXPECT_EQ(disk->setup()->precision, DType::Float16);
        EXPECT_EQ(disk->setup()->cost, kCostMeasured);
        EXPECT_EQ(disk->setup()->meter, "no-such-backend");
    }
    w.costCombo()->setCurrentIndex(w.costCombo()->findData(QStringLiteral("sim")));
    ASSERT_TRUE(scheduled(w));
    ASSERT_TRUE(w.session()->flush().isOk());
    auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
    ASSERT_TRUE(disk.isOk()) << disk.status().str();
    EXPECT_EQ(disk->setup()->meter, "sim");
}

TEST_F(ProjectSessionTest, ClosingTheWindowFlushesTheAutosaver)
{
    const QString projectPath = file("flush.tessera");
    int step = -1;
    {
        MainWindow w;
        ASSERT_TRUE(startSmallProject(w, projectPath, true));
        step = w.stepper()->stepModel()->rowCount() - 1;
        w.stepper()->setCurrentStep(step);
        w.close(); // at once: well inside the autosave delay
    }
    auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
    ASSERT_TRUE(disk.isOk());
    EXPECT_EQ(disk->state("selected_step")->value_or(""), std::to_string(step));
    EXPECT_TRUE(disk->state("dock_state")->has_value());
    EXPECT_TRUE(disk->state("view")->has_value());
}

TEST_F(ProjectSessionTest, UndoAndRedoMoveTheProjectHistory)
{
    MainWindow w;
    ASSERT_TRUE(startSmallProject(w, file("undo.tessera")));
    const auto a = someOverride(w), b = someOverride(w, 1);
    ASSERT_FALSE(b.first.empty());
    auto *c = w.scheduleController();
    Project &p = *w.session()->project();
    c->setOverride(a.first, a.second);
    c->setOverride(b.first, b.second);
    EXPECT_EQ(*p.overrides(), (Overrides{a, b}));
    auto history = p.overrideHistory();
    ASSERT_EQ(history->steps.size(), 3u) << "created, then one step per override";
    EXPECT_NE(history->steps.back().label.find(b.first), std::string::npos) << "labelled with the undo text";

    c->undoStack()->undo();
    EXPECT_EQ(*p.overrides(), (Overrides{a}));
    EXPECT_EQ(p.overrideHistory()->steps.size(), 3u) << "undo moves the cursor, it adds no step";
    EXPECT_TRUE(p.overrideHistory()->canRedo());
    c->undoStack()->redo();
    EXPECT_EQ(*p.overrides(), (Overrides{a, b}));
    c->undoStack()->setIndex(0); // two undos at once
    EXPECT_EQ(*p.overrides(), Overrides{});
    EXPECT_EQ(p.overrideHistory()->current, p.overrideHistory()->steps.front().step);

    // A new edit after undo drops the redo tail, in the stack and in the file.
    c->setOverride(b.first, b.second);
    EXPECT_EQ(*p.overrides(), (Overrides{b}));
    EXPECT_FALSE(p.overrideHistory()->canRedo());
    EXPECT_EQ(p.overrideHistory()->steps.size(), 2u);

    // Replacing the overrides outright (a new algorithm) is saved at the end of the event.
    selectAlgorithm(w, "greedy");
    QTest::qWait(0);
    QCoreApplication::processEvents();
    EXPECT_EQ(*p.overrides(), Overrides{});
    EXPECT_EQ(p.setup()->algorithm, "greedy") << "setup changes are saved at once";
}

// --- the walk-through --------------------------------------------------------------

// Issue 18, item 8: the whole loop a new user walks, in one window and then a second: open a
// sample, pick IOS on nvidia-v100, step through the trace, override a decision, undo it, force a
// stage in the DP explorer, run on the reference backend, cancel a run, run again, save a project
// and reopen it. Each step asserts what the window shows.
TEST_F(ProjectSessionTest, WalkThroughOfANewUser)
{
    const QString projectPath = file("walk.tessera");
    std::string forcedKey;
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1440, 900);
        w.show();
        auto *c = w.scheduleController();

        // Open a sample; it is scheduled at once.
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        w.openSample(QStringLiteral("squeezenet"));
        ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 1; }, kTimeoutMs));
        ASSERT_TRUE(scheduled(w));
        EXPECT_EQ(w.modelData()->graph->name, "squeezenet");

        // IOS on nvidia-v100.
        w.deviceCombo()->setCurrentIndex(w.deviceCombo()->findData(QStringLiteral("nvidia-v100")));
        selectAlgorithm(w, "ios");
        ASSERT_TRUE(
            QTest::qWaitFor([&] { return c->lastRun() && c->lastRun()->result.plan.algorithm == "ios"; }, kTimeoutMs));
        ASSERT_TRUE(scheduled(w));
        EXPECT_EQ(c->lastRun()->result.plan.device, "nvidia-v100");

        // Step through the trace.
        views::StepperWidget *stepper = w.stepper();
        ASSERT_GT(stepper->stepModel()->rowCount(), 3);
        stepper->first();
        stepper->stepForward();
        stepper->stepForward();
        EXPECT_EQ(stepper->currentStep(), 2);

        // Override a decision: the replay applies it.
        const auto o = someOverride(w);
        ASSERT_FALSE(o.first.empty());
        c->setOverride(o.first, o.second);
        ASSERT_TRUE(scheduled(w));
        const DecisionRecord *d = c->lastRun()->decisions.find(o.first);
        ASSERT_TRUE(d);
        EXPECT_TRUE(d->overridden);
        EXPECT_EQ(d->options[static_cast<std::size_t>(d->chosen)].id, o.second);

        // Undo it: back to the scheduler's own choice.
        c->undoStack()->undo();
        ASSERT_TRUE(scheduled(w));
        EXPECT_TRUE(c->overrides().empty());
        EXPECT_FALSE(c->lastRun()->decisions.find(o.first)->overridden);

        // Force a stage in the DP explorer (recording starts when its dock is shown).
        w.raiseDock(QStringLiteral("explorerDock"));
        ASSERT_TRUE(QTest::qWaitFor(
            [&] { return c->lastRun()->result.searchSpace && !c->isBusy() && w.searchExplorer()->hasSearchSpace(); },
            kTimeoutMs));
        const SearchSpace &space = *c->lastRun()->result.searchSpace;
        int table = -1, forced = -1;
        for (std::size_t t = 0; t < space.tables.size() && forced < 0; ++t) {
            const SearchSpace::Table &tab = space.tables[t];
            if (tab.path.empty())
                continue;
            const std::int32_t choice = tab.states[static_cast<std::size_t>(tab.path.front())].choice;
            for (std::size_t i = 0; i < tab.transitions.size() && forced < 0; ++i)
                if (tab.transitions[i].from == tab.path.front() && static_cast<std::int32_t>(i) != choice &&
                    !tab.transitions[i].decisionKey.empty()) {
                    table = static_cast<int>(t);
                    forced = static_cast<int>(i);
                }
        }
        ASSERT_GE(forced, 0);
        forcedKey =
            space.tables[static_cast<std::size_t>(table)].transitions[static_cast<std::size_t>(forced)].decisionKey;
        w.searchExplorer()->setCurrentTable(table);
        ASSERT_TRUE(w.searchExplorer()->forceTransition(forced));
        ASSERT_TRUE(scheduled(w));
        EXPECT_EQ(c->overrides().count(forcedKey), 1u);
        EXPECT_TRUE(c->lastRun()->decisions.find(forcedKey)->overridden);

        // Run on the reference backend.
        views::RunPanel *panel = w.runPanel();
        QSignalSpy ran(panel, &views::RunPanel::runFinished);
        ASSERT_TRUE(panel->selectBackend(QStringLiteral("reference")));
        ASSERT_TRUE(panel->run());
        ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() == 1; }, 2 * kTimeoutMs))
            << panel->statusText().toStdString();
        ASSERT_TRUE(panel->lastResult());
        EXPECT_EQ(panel->lastResult()->outputs.size(), w.modelData()->graph->outputs.size());

        // Cancel a run: it ends as cancelled and reports no result.
        QSignalSpy failed(w.runController(), &gui::RunController::failed);
        ASSERT_TRUE(panel->run());
        panel->cancel();
        ASSERT_TRUE(
            QTest::qWaitFor([&] { return failed.count() == 1 && !w.runController()->isRunning(); }, kTimeoutMs));
        EXPECT_EQ(failed.front().front().toString(), QStringLiteral("cancelled"));
        EXPECT_EQ(ran.count(), 1);
        EXPECT_TRUE(panel->statusText().contains(QStringLiteral("ancel"))) << panel->statusText().toStdString();

        // Run again.
        ASSERT_TRUE(panel->run());
        ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() == 2; }, 2 * kTimeoutMs))
            << panel->statusText().toStdString();

        // Save a project.
        ASSERT_TRUE(w.session()->create(projectPath).isOk());
        EXPECT_TRUE(w.windowTitle().startsWith(QStringLiteral("walk — squeezenet"))) << w.windowTitle().toStdString();
        w.close();
    }
    QSettings().clear();
    std::size_t plansBefore = 0;
    {
        auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
        ASSERT_TRUE(disk.isOk()) << disk.status().str();
        plansBefore = disk->plans()->size();
        ASSERT_GE(plansBefore, 1u);
        ASSERT_TRUE(disk->close().isOk());
    }

    // Reopen it: the sample, IOS on nvidia-v100 and the forced stage come back.
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QSignalSpy errors(&w, &MainWindow::errorReported);
    ASSERT_TRUE(openProject(w, projectPath));
    EXPECT_EQ(errors.count(), 0);
    EXPECT_EQ(w.modelData()->graph->name, "squeezenet");
    EXPECT_EQ(w.scheduleController()->schedulerName(), "ios");
    EXPECT_EQ(w.deviceCombo()->currentData().toString(), QStringLiteral("nvidia-v100"));
    EXPECT_EQ(w.scheduleController()->overrides().count(forcedKey), 1u);
    EXPECT_TRUE(w.scheduleController()->lastRun()->decisions.find(forcedKey)->overridden);
    // Issue 18: reopening changed nothing, so no new plan is stored (the same plan was the newest).
    ASSERT_TRUE(w.session()->flush().isOk());
    auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
    ASSERT_TRUE(disk.isOk()) << disk.status().str();
    EXPECT_EQ(disk->plans()->size(), plansBefore);
    // Negative twin: a changed plan is stored.
    w.scheduleController()->clearOverrides();
    ASSERT_TRUE(scheduled(w));
    ASSERT_TRUE(w.session()->flush().isOk());
    EXPECT_EQ(disk->plans()->size(), plansBefore + 1);
    ASSERT_TRUE(disk->close().isOk());
}

// --- issue 18: how a project references its model -------------------------------------

// A project of a sample stores its name and version, not a path into the cache: it reopens after the
// cache was cleared.
TEST_F(ProjectSessionTest, ASampleProjectNamesTheSampleAndSurvivesAClearedCache)
{
    const QString projectPath = file("sample.tessera");
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        w.openSample(QStringLiteral("squeezenet"));
        ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 1; }, kTimeoutMs));
        ASSERT_TRUE(scheduled(w));
        ASSERT_TRUE(w.session()->create(projectPath).isOk());
        EXPECT_TRUE(w.session()->modelIsSample());
        EXPECT_FALSE(w.embedModelAction()->isEnabled()) << "a sample is rebuilt, not embedded";
        ASSERT_TRUE(w.session()->close().isOk());
    }
    {
        auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
        ASSERT_TRUE(disk.isOk());
        EXPECT_EQ(disk->model()->sample, "squeezenet");
        EXPECT_EQ(disk->model()->sampleVersion, 1);
        EXPECT_TRUE(disk->model()->relativePath.empty());
        EXPECT_TRUE(disk->model()->absolutePath.empty());
    }
    ASSERT_TRUE(QDir(gui::sampleCacheDir()).removeRecursively());
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QSignalSpy errors(&w, &MainWindow::errorReported);
    ASSERT_TRUE(openProject(w, projectPath));
    EXPECT_EQ(errors.count(), 0);
    EXPECT_EQ(w.modelData()->graph->name, "squeezenet");
    EXPECT_TRUE(gui::isCachedSample(QString::fromStdString(w.modelData()->path))) << "rebuilt into the cache";
}

// Projects before schema v3 stored a sample as a path into the cache (even another user's): opening one
// rebuilds the sample and turns the reference into its name.
TEST_F(ProjectSessionTest, AnOldProjectWithACachePathIsMigratedToTheSample)
{
    const QString projectPath = file("old.tessera");
    {
        MainWindow w;
        auto built = gui::materializeSample(w.extensions(), QStringLiteral("squeezenet"));
        ASSERT_TRUE(built.isOk()) << built.status().str();
        Project p = makeProject(projectPath, *built); // a path into the cache, as v2 stored it
        ASSERT_TRUE(p.model()->sample.empty());
        ASSERT_TRUE(p.close().isOk());
    }
    ASSERT_TRUE(QDir(gui::sampleCacheDir()).removeRecursively()); // the cache was cleared since
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QSignalSpy errors(&w, &MainWindow::errorReported);
    QSignalSpy notices(w.session(), &ProjectSession::notice);
    ASSERT_TRUE(openProject(w, projectPath));
    EXPECT_EQ(errors.count(), 0);
    EXPECT_EQ(w.modelData()->graph->name, "squeezenet");
    bool told = false;
    for (const QList<QVariant> &n : notices)
        told = told || n.at(0).toString().contains(QStringLiteral("now refers to the sample squeezenet by name"));
    EXPECT_TRUE(told);
    ASSERT_TRUE(w.session()->flush().isOk());
    auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
    ASSERT_TRUE(disk.isOk());
    EXPECT_EQ(disk->model()->sample, "squeezenet");
    EXPECT_TRUE(disk->model()->absolutePath.empty());
    // The forms an old project may hold: this layout, the first flat one, another user's cache.
    const QStringList names{QStringLiteral("squeezenet"), QStringLiteral("resnet50")};
    EXPECT_EQ(gui::sampleNameOfCachePath(QStringLiteral("/root/.cache/Tessera/Tessera/samples/resnet50.onnx"), names),
              QStringLiteral("resnet50"));
    EXPECT_EQ(
        gui::sampleNameOfCachePath(QStringLiteral("/home/u/.cache/T/T/samples/resnet50-k3x9/resnet50.onnx"), names),
        QStringLiteral("resnet50"));
}

// Negative twin: a missing model that is no sample-cache path (and not a registered sample) is refused
// with where it was looked for, and the project file is left as it was.
TEST_F(ProjectSessionTest, AMissingModelThatIsNoSampleIsRefused)
{
    QDir().mkpath(file("models/samples"));
    const QString model = file("models/samples/squeezenet.onnx"); // "samples", but no cache and no version folder
    QFile::copy(file("small.onnx"), model);
    const QString projectPath = file("missing.tessera");
    {
        Project p = makeProject(projectPath, model);
        ASSERT_TRUE(p.close().isOk());
    }
    QFile::remove(model);
    const QByteArray before = [&] {
        QFile f(projectPath);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    MainWindow w;
    w.setInteractive(false);
    QSignalSpy errors(&w, &MainWindow::errorReported);
    EXPECT_FALSE(w.session()->open(projectPath).isOk());
    ASSERT_EQ(errors.count(), 1);
    EXPECT_TRUE(errors.at(0).at(1).toString().contains(QStringLiteral("model not found (looked for")))
        << errors.at(0).at(1).toString().toStdString();
    EXPECT_EQ(gui::sampleNameOfCachePath(model, {QStringLiteral("squeezenet")}), QString());
    EXPECT_EQ(gui::sampleNameOfCachePath(QStringLiteral("/home/u/models/samples/squeezenet-v2/squeezenet.onnx"),
                                         {QStringLiteral("squeezenet")}),
              QString())
        << "a user's own samples folder is no cache";
    QFile f(projectPath);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_EQ(f.readAll(), before);
}

// File ▸ Embed the Model in the Project: the project opens where the model file is gone.
TEST_F(ProjectSessionTest, AnEmbeddedModelOpensWithoutItsFile)
{
    QDir().mkpath(file("m"));
    const QString model = file("m/net.onnx");
    ASSERT_TRUE(QFile::copy(file("small.onnx"), model));
    const QString projectPath = file("embedded.tessera");
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        ASSERT_TRUE(load(w, model));
        ASSERT_TRUE(scheduled(w));
        ASSERT_TRUE(w.session()->create(projectPath).isOk());
        ASSERT_TRUE(w.embedModelAction()->isEnabled());
        EXPECT_FALSE(w.embedModelAction()->isChecked());
        w.embedModelAction()->trigger();
        EXPECT_TRUE(w.session()->modelIsEmbedded());
        ASSERT_TRUE(w.session()->close().isOk());
    }
    ASSERT_TRUE(QDir(file("m")).removeRecursively());
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QSignalSpy errors(&w, &MainWindow::errorReported);
    QSignalSpy notices(w.session(), &ProjectSession::notice);
    ASSERT_TRUE(openProject(w, projectPath));
    EXPECT_EQ(errors.count(), 0);
    EXPECT_TRUE(w.embedModelAction()->isChecked());
    bool told = false;
    for (const QList<QVariant> &n : notices)
        told = told || n.at(0).toString().contains(QStringLiteral("using the copy embedded in the project"));
    EXPECT_TRUE(told);
    // Negative twin: dropping the only intact copy is refused and loses nothing.
    w.embedModelAction()->trigger();
    ASSERT_EQ(errors.count(), 1);
    EXPECT_TRUE(errors.at(0).at(1).toString().contains(QStringLiteral("the embedded copy is the only intact one")))
        << errors.at(0).at(1).toString().toStdString();
    EXPECT_TRUE(w.session()->modelIsEmbedded());
    EXPECT_TRUE(w.embedModelAction()->isChecked());
    ASSERT_TRUE(w.session()->close().isOk());
    auto disk = Project::open(projectPath.toStdString(), OpenMode::ReadOnly);
    ASSERT_TRUE(disk.isOk());
    EXPECT_TRUE(disk->model()->embed);
    EXPECT_EQ(disk->model()->relativePath, "m/net.onnx") << "the reference still names the project's own file";
}

// Issue 18 item 5: Model Summary's file size counts the external weights.
TEST_F(ProjectSessionTest, FileSizeCountsTheExternalWeights)
{
    auto proto = test::buildRegisteredSample("squeezenet");
    ASSERT_TRUE(proto.isOk());
    const QString path = file("ext/squeezenet.onnx");
    QDir().mkpath(file("ext"));
    ASSERT_TRUE(saveModel(**proto, path.toStdString(), /*externalData=*/true).isOk());
    const qint64 model = QFileInfo(path).size(), weights = QFileInfo(path + QStringLiteral(".data")).size();
    ASSERT_GT(weights, model);
    auto loaded = gui::loadModelFile(path);
    ASSERT_TRUE(loaded.isOk());
    std::map<std::string, std::string> rows((*loaded)->metadata.begin(), (*loaded)->metadata.end());
    EXPECT_EQ(rows["File size"], views::formatBytes(model + weights).toStdString());
    EXPECT_EQ(rows["External weights"], views::formatBytes(weights).toStdString());
}

// Negative twin: weights kept inline: the file's size alone, no weights row.
TEST_F(ProjectSessionTest, FileSizeOfAModelWithInlineWeightsIsTheFile)
{
    auto loaded = gui::loadModelFile(file("small.onnx"));
    ASSERT_TRUE(loaded.isOk());
    std::map<std::string, std::string> rows((*loaded)->metadata.begin(), (*loaded)->metadata.end());
    EXPECT_EQ(rows["File size"], views::formatBytes(QFileInfo(file("small.onnx")).size()).toStdString());
    EXPECT_EQ(rows.count("External weights"), 0u);
}

// Issue 18 item 1: the Comparison dock's pins come back with the project.
TEST_F(ProjectSessionTest, PinnedComparisonsComeBackWithTheProject)
{
    const QString projectPath = file("pins.tessera");
    QString title;
    std::size_t pinnedKernels = 0;
    double pinnedLatency = 0;
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        ASSERT_TRUE(load(w, file("small.onnx")));
        selectAlgorithm(w, "ios");
        ASSERT_TRUE(scheduled(w));
        ASSERT_TRUE(w.session()->create(projectPath).isOk());
        ASSERT_TRUE(w.comparison()->pinCurrent());
        title = w.comparison()->pinned().front().title;
        pinnedKernels = w.comparison()->pinned().front().run->result.plan.kernels.size();
        pinnedLatency = w.comparison()->pinned().front().run->result.plan.estimatedLatencyNs();
        const auto [key, option] = someOverride(w);
        ASSERT_FALSE(key.empty());
        w.scheduleController()->setOverride(key, option);
        ASSERT_TRUE(scheduled(w));
        ASSERT_TRUE(w.session()->close().isOk());
    }
    MainWindow w;
    w.setInteractive(false);
    w.show();
    ASSERT_TRUE(openProject(w, projectPath));
    ASSERT_EQ(w.comparison()->pinnedCount(), 1);
    const auto pin = w.comparison()->pinned().front();
    EXPECT_EQ(pin.title, title);
    EXPECT_EQ(pin.run->result.plan.kernels.size(), pinnedKernels);
    EXPECT_DOUBLE_EQ(pin.run->result.plan.estimatedLatencyNs(), pinnedLatency);
    EXPECT_GT(pin.run->decisions.records().size(), 0u) << "decisions asked again from the document";
    EXPECT_GT(w.comparison()->model()->rowCount(QModelIndex()), 0);
}

// Negative twin: a stored pin made for another model is not shown, and the user is told.
TEST_F(ProjectSessionTest, APinOfAnotherModelIsNotRestored)
{
    const QString projectPath = file("stale-pins.tessera");
    {
        Project p = makeProject(projectPath, file("small.onnx"));
        const std::string pins = R"({"serial": 3, "pins": [{"title": "Pin 3 · ios", "schedule":
            {"format_version": 1, "model_hash": "0000000000000000", "algorithm": "ios", "device": "stcp920"}}]})";
        ASSERT_TRUE(p.setState("pinned_runs", pins).isOk());
        ASSERT_TRUE(p.close().isOk());
    }
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QSignalSpy notices(w.session(), &ProjectSession::notice);
    ASSERT_TRUE(openProject(w, projectPath));
    EXPECT_EQ(w.comparison()->pinnedCount(), 0);
    bool told = false;
    for (const QList<QVariant> &n : notices)
        told = told || n.at(0).toString().contains(QStringLiteral("no longer match the model"));
    EXPECT_TRUE(told);
}

// --- bad project files ---------------------------------------------------------------

TEST_F(ProjectSessionTest, BadProjectsLeaveTheSessionAndTheFileUntouched)
{
    // A good project on screen.
    {
        Project good = makeProject(file("good.tessera"), file("small.onnx"));
    }
    MainWindow w;
    w.setInteractive(false);
    w.show();
    ASSERT_TRUE(openProject(w, file("good.tessera")));
    const auto model = w.modelData();
    const QString title = w.windowTitle();
    const Overrides overrides = w.scheduleController()->overrides();

    // A second valid project to damage in various ways.
    {
        Project p = makeProject(file("template.tessera"), file("small.onnx"));
        ASSERT_TRUE(p.addPlan(std::string(20000, ' ') + "{}", {}).isOk()); // a few pages
        ASSERT_TRUE(p.close().isOk());
    }
    const std::string whole = slurp(file("template.tessera"));
    ASSERT_GT(whole.size(), 3u * 4096);

    struct Case {
        const char *name;
        std::function<void(const QString &)> make;
        const char *expected;
    };
    std::vector<Case> cases = {
        {"text", [](const QString &f) { spit(f, "this is not a project\n"); },
         "not a tessera project (not an SQLite database)"},
        {"empty", [](const QString &f) { spit(f, ""); }, "not a tessera project (empty file)"},
        {"truncated", [&](const QString &f) { spit(f, whole.substr(0, whole.size() / 2)); }, "project file is corrupt"},
        {"corrupt",
         [&](const QString &f) {
             std::string bytes = whole;
             std::mt19937 rng(11);
             for (std::size_t i = 4096; i < 3 * 4096; ++i)
                 bytes[i] = static_cast<char>(rng());
             spit(f, bytes);
         },
         "corrupt"},
        {"newer",
         [&](const QString &f) {
             std::string bytes = whole;
             bytes[60] = 0, bytes[61] = 0, bytes[62] = 0, bytes[63] = 99; // PRAGMA user_version = 99
             spit(f, bytes);
         },
         "project was saved by a newer Tessera (schema v99"},
        {"missing-model",
         [&](const QString &f) {
             QFile::copy(file("small.onnx"), file("gone.onnx"));
             {
                 Project p = makeProject(f, file("gone.onnx"));
             }
             QFile::remove(file("gone.onnx"));
         },
         "model not found"},
        {"unknown-algorithm",
         [&](const QString &f) {
             Project p = makeProject(f, file("small.onnx"));
             ASSERT_TRUE(p.setSetup({"no-such-algo", "stcp920", {}}).isOk());
         },
         "unknown algorithm 'no-such-algo'; known: "},
        {"unknown-device",
         [&](const QString &f) {
             Project p = makeProject(f, file("small.onnx"));
             ASSERT_TRUE(p.setSetup({"greedy", "no-such-device", {}}).isOk());
         },
         "no-such-device"},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.name);
        const QString path = file(QStringLiteral("%1.tessera").arg(c.name));
        c.make(path);
        const std::string before = slurp(path);
        QSignalSpy errors(&w, &MainWindow::errorReported);
        const Status s = w.session()->open(path);
        EXPECT_FALSE(s.isOk());
        EXPECT_NE(s.message().find(c.expected), std::string::npos) << s.str();
        ASSERT_EQ(errors.count(), 1);
        EXPECT_EQ(errors.front().at(0).toString(), "Could not open project");
        EXPECT_TRUE(errors.front().at(1).toString().contains(QFileInfo(path).fileName()))
            << errors.front().at(1).toString().toStdString();
        EXPECT_EQ(slurp(path), before) << "the file is byte-identical";
        EXPECT_EQ(w.session()->path(), file("good.tessera"));
        EXPECT_EQ(w.modelData(), model);
        EXPECT_EQ(w.windowTitle(), title);
        EXPECT_EQ(w.scheduleController()->overrides(), overrides);
    }

    // Locked: another Tessera is writing it.
    {
        {
            Project p = makeProject(file("locked.tessera"), file("small.onnx"));
        }
        const std::string before = slurp(file("locked.tessera"));
        auto other = Project::open(file("locked.tessera").toStdString());
        ASSERT_TRUE(other.isOk());
        w.session()->setBusyTimeout(200);
        Status s;
        ASSERT_TRUE(other
                        ->transaction([&] {
                            s = w.session()->open(file("locked.tessera"));
                            return Status::ok();
                        })
                        .isOk());
        EXPECT_TRUE(s.message().starts_with("project is locked by another Tessera")) << s.str();
        ASSERT_TRUE(other->close().isOk());
        EXPECT_EQ(slurp(file("locked.tessera")), before);
        EXPECT_EQ(w.session()->path(), file("good.tessera"));
        EXPECT_EQ(w.modelData(), model);
    }

    // The model's structure changed since: refused once the model is read, off the GUI thread.
    {
        QFile::copy(file("small.onnx"), file("changing.onnx"));
        {
            Project p = makeProject(file("changed.tessera"), file("changing.onnx"));
        }
        writeSmallModel(file("changing.onnx"), 8);
        const std::string before = slurp(file("changed.tessera"));
        QSignalSpy errors(&w, &MainWindow::errorReported);
        ASSERT_TRUE(w.session()->open(file("changed.tessera")).isOk()) << "the file itself is fine";
        EXPECT_TRUE(w.session()->isOpening());
        ASSERT_TRUE(QTest::qWaitFor([&] { return errors.count() == 1; }, kTimeoutMs));
        const QString message = errors.front().at(1).toString();
        EXPECT_TRUE(message.contains("model changed since the project was saved")) << message.toStdString();
        EXPECT_TRUE(message.contains("changed.tessera")) << message.toStdString();
        EXPECT_FALSE(w.session()->isOpening());
        EXPECT_EQ(slurp(file("changed.tessera")), before);
        EXPECT_EQ(w.session()->path(), file("good.tessera"));
        EXPECT_EQ(w.modelData(), model);
        EXPECT_EQ(w.windowTitle(), title);
    }

    // Nothing above reached the good project: it still saves.
    const auto o = someOverride(w);
    w.scheduleController()->setOverride(o.first, o.second);
    EXPECT_EQ(*w.session()->project()->overrides(), (Overrides{o}));
}

TEST_F(ProjectSessionTest, ReadOnlyProjectOpensWithANoteAndSavesNothing)
{
    {
        Project p = makeProject(file("ro.tessera"), file("small.onnx"));
    }
    const std::string before = slurp(file("ro.tessera"));
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QSignalSpy notices(w.session(), &ProjectSession::notice);
    ASSERT_TRUE(openProject(w, file("ro.tessera"), OpenMode::ReadOnly));
    EXPECT_TRUE(w.session()->isReadOnly());
    EXPECT_TRUE(w.windowTitle().startsWith("ro [read-only] — small.onnx")) << w.windowTitle().toStdString();
    ASSERT_GE(notices.count(), 1);
    EXPECT_TRUE(notices.back().front().toString().contains("read-only"));
    EXPECT_TRUE(w.statusBar()->currentMessage().contains("read-only")) << w.statusBar()->currentMessage().toStdString();
    bool labelled = false;
    for (QLabel *l : w.statusBar()->findChildren<QLabel *>())
        labelled = labelled || (l->isVisible() && l->text().contains("read-only"));
    EXPECT_TRUE(labelled) << "the status bar says the project is read-only";

    const auto o = someOverride(w);
    w.scheduleController()->setOverride(o.first, o.second);
    w.stepper()->setCurrentStep(2);
    ASSERT_TRUE(scheduled(w));
    EXPECT_FALSE(w.session()->recordRun({}, "{}").isOk());
    w.close();
    EXPECT_EQ(slurp(file("ro.tessera")), before);

    // A file the user may not write falls back to read-only by itself (not as root: root may write anything).
    if (::geteuid() != 0) {
        QFile::setPermissions(file("ro.tessera"), QFile::ReadOwner);
        MainWindow again;
        again.setInteractive(false);
        ASSERT_TRUE(openProject(again, file("ro.tessera")));
        EXPECT_TRUE(again.session()->isReadOnly());
    }
}

TEST_F(ProjectSessionTest, RecordRunStoresARunOfTheLastPlan)
{
    MainWindow w;
    w.setInteractive(false);
    ASSERT_TRUE(load(w, file("small.onnx")));
    ASSERT_TRUE(scheduled(w));
    EXPECT_FALSE(w.session()->recordRun({}, "{}").isOk()) << "no project";
    ASSERT_TRUE(w.session()->create(file("runs.tessera")).isOk());
    RunRecord run;
    run.backend = "reference";
    run.latencyMs = 1.5;
    run.metrics = {{"kernels", 9}};
    auto id = w.session()->recordRun(run, R"({"traceEvents": []})");
    ASSERT_TRUE(id.isOk()) << id.status().str();
    const std::int64_t plan = w.session()->lastPlanId();
    ASSERT_GT(plan, 0);
    auto runs = w.session()->project()->runs(plan);
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(runs->front().backend, "reference");
    EXPECT_EQ(*w.session()->project()->runTimeline(*id), R"({"traceEvents": []})");

    // Save As copies plans, runs, state and plugin data, and the copy becomes the open project.
    ASSERT_TRUE(w.session()->project()->setPluginData("pcgc", "cost-model/x", std::string("\0model", 6)).isOk());
    ASSERT_TRUE(w.session()->saveAs(file("copy.tessera")).isOk());
    EXPECT_EQ(w.session()->path(), file("copy.tessera"));
    auto plans = w.session()->project()->plans();
    ASSERT_FALSE(plans->empty());
    EXPECT_EQ(w.session()->project()->runs(plans->back().id)->size(), 1u);
    EXPECT_EQ(w.session()->project()->pluginData("pcgc", "cost-model/x")->value_or(""), std::string("\0model", 6));
    EXPECT_FALSE(w.session()->project()->pluginData("pcgc", "cost-model/y")->has_value());
    EXPECT_FALSE(w.session()->saveAs(file("copy.tessera")).isOk()) << "not over the open project itself";
}

// Issue 18: reopening a project shows the newest run of the plan on show —
// latency, metrics and timeline as measured — in the Run dock.
TEST_F(ProjectSessionTest, ReopeningShowsTheStoredRunOfThePlan)
{
    const QString projectPath = file("rerun.tessera");
    double latencyMs = 0;
    std::size_t timelineSize = 0;
    {
        MainWindow w;
        ASSERT_TRUE(startSmallProject(w, projectPath));
        views::RunPanel *panel = w.runPanel();
        QSignalSpy ran(panel, &views::RunPanel::runFinished);
        ASSERT_TRUE(panel->selectBackend(QStringLiteral("reference")));
        ASSERT_TRUE(panel->run());
        ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() == 1; }, kTimeoutMs)) << panel->statusText().toStdString();
        latencyMs = panel->lastResult()->latencyMs;
        timelineSize = panel->lastResult()->timeline.size();
        ASSERT_GT(timelineSize, 0u);
        ASSERT_TRUE(QTest::qWaitFor(
            [&] { return w.session()->project()->runs(w.session()->lastPlanId())->size() == 1; }, kTimeoutMs));
        w.close();
    }
    QSettings().clear();
    MainWindow w;
    w.setInteractive(false);
    ASSERT_TRUE(openProject(w, projectPath));
    const auto shown = w.runPanel()->lastResult();
    ASSERT_TRUE(shown) << w.runPanel()->statusText().toStdString();
    EXPECT_DOUBLE_EQ(shown->latencyMs, latencyMs);
    EXPECT_EQ(shown->timeline.size(), timelineSize);
    EXPECT_TRUE(shown->outputs.empty()) << "outputs are not stored";
    EXPECT_TRUE(w.state()->lastResultRestored());
    EXPECT_TRUE(w.state()->resultIsCurrent());
    EXPECT_TRUE(w.runPanel()->statusText().contains(QStringLiteral("Stored in the project")))
        << w.runPanel()->statusText().toStdString();
    w.applyDefaultLayout(QSize(1366, 768));
    w.show();
    w.raiseDock(QStringLiteral("runDock"));
    QTest::qWait(300);
    ASSERT_TRUE(w.saveScreenshot(QStringLiteral(TESSERA_BINARY_DIR "/screenshots/workbench-run-restored.png")));
}

// The twin: a run of an earlier plan is not shown with a changed one.
TEST_F(ProjectSessionTest, AStoredRunOfAnEarlierPlanIsNotShown)
{
    const QString projectPath = file("rerun-changed.tessera");
    {
        MainWindow w;
        ASSERT_TRUE(startSmallProject(w, projectPath));
        QSignalSpy ran(w.runPanel(), &views::RunPanel::runFinished);
        ASSERT_TRUE(w.runPanel()->selectBackend(QStringLiteral("reference")));
        ASSERT_TRUE(w.runPanel()->run());
        ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() == 1; }, kTimeoutMs));
        const auto o = someOverride(w);
        ASSERT_FALSE(o.first.empty());
        w.scheduleController()->setOverride(o.first, o.second);
        ASSERT_TRUE(scheduled(w));
        ASSERT_TRUE(w.session()->flush().isOk());
        w.close();
    }
    QSettings().clear();
    MainWindow w;
    w.setInteractive(false);
    ASSERT_TRUE(openProject(w, projectPath));
    EXPECT_FALSE(w.runPanel()->lastResult());
    EXPECT_FALSE(w.state()->lastResultRestored());
}

// Issue 19: overrides made without a project are kept on disk at every
// change, come back in a new window, and leave the disk once a project holds them.
TEST_F(ProjectSessionTest, UnsavedOverridesSurviveTheWindowAndComeBack)
{
    gui::discardUnsavedSession();
    Overrides made;
    {
        MainWindow w;
        w.setInteractive(false);
        ASSERT_TRUE(load(w, file("small.onnx")));
        ASSERT_TRUE(scheduled(w));
        auto stored = gui::loadUnsavedSession();
        ASSERT_TRUE(stored.isOk());
        EXPECT_FALSE(*stored) << "no overrides, nothing stored";
        const auto o = someOverride(w);
        ASSERT_FALSE(o.first.empty());
        w.scheduleController()->setOverride(o.first, o.second);
        ASSERT_TRUE(scheduled(w));
        made = w.scheduleController()->overrides();
        stored = gui::loadUnsavedSession();
        ASSERT_TRUE(stored.isOk() && *stored) << "stored at the change";
        EXPECT_EQ((*stored)->overrides, made);
        EXPECT_EQ((*stored)->model, file("small.onnx"));
        EXPECT_EQ((*stored)->algorithm, w.scheduleController()->schedulerName());
    } // gone without a save (as a crash would leave it)

    auto stored = gui::loadUnsavedSession();
    ASSERT_TRUE(stored.isOk() && *stored);
    MainWindow w;
    w.setInteractive(false);
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    w.restoreUnsavedSession(**stored);
    ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 1; }, kTimeoutMs));
    ASSERT_TRUE(scheduled(w));
    EXPECT_EQ(w.scheduleController()->overrides(), made);
    EXPECT_TRUE(w.scheduleController()->lastRun()->decisions.find(made.begin()->first)->overridden);

    // A project now holds them: the unsaved copy goes.
    ASSERT_TRUE(w.session()->create(file("holds.tessera")).isOk());
    stored = gui::loadUnsavedSession();
    ASSERT_TRUE(stored.isOk());
    EXPECT_FALSE(*stored);
}

// The twins: clearing the overrides removes the file; a broken file is
// refused with its reason and moved aside, not deleted.
TEST_F(ProjectSessionTest, UnsavedSessionClearedOrBrokenIsNotRestored)
{
    gui::discardUnsavedSession();
    {
        MainWindow w;
        w.setInteractive(false);
        ASSERT_TRUE(load(w, file("small.onnx")));
        ASSERT_TRUE(scheduled(w));
        const auto o = someOverride(w);
        w.scheduleController()->setOverride(o.first, o.second);
        ASSERT_TRUE(scheduled(w));
        ASSERT_TRUE(QFile::exists(gui::unsavedSessionPath()));
        w.scheduleController()->clearOverrides();
        ASSERT_TRUE(scheduled(w));
        EXPECT_FALSE(QFile::exists(gui::unsavedSessionPath()));
    }
    const QString path = gui::unsavedSessionPath();
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("{\"format_version\": 1, \"model\": \"m.onnx\"");
    f.close();
    auto broken = gui::loadUnsavedSession();
    ASSERT_FALSE(broken.isOk());
    EXPECT_NE(broken.status().message().find(".broken"), std::string::npos) << broken.status().str();
    EXPECT_FALSE(QFile::exists(path));
    EXPECT_TRUE(QFile::exists(path + ".broken"));
    QFile::remove(path + ".broken");
}

// --- export and import ------------------------------------------------------------------

QJsonValue scheduleSchema()
{
    QFile f(QStringLiteral(TESSERA_SOURCE_DIR "/docs/schedule-schema.json"));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return QJsonDocument::fromJson(f.readAll()).object();
}

TEST_F(ProjectSessionTest, ExportWritesDocumentsTheSchemaAccepts)
{
    MainWindow w;
    w.setInteractive(false);
    ASSERT_TRUE(load(w, file("small.onnx")));
    ASSERT_TRUE(scheduled(w));
    const auto o = someOverride(w);
    w.scheduleController()->setOverride(o.first, o.second);
    ASSERT_TRUE(scheduled(w));
    ASSERT_NE(w.exportFormatAction("ios"), nullptr) << "the ios plugin's schedule format is listed";
    EXPECT_FALSE(w.exportFormatAction("ios")->isEnabled()) << "layer-fusion made the last schedule";

    const QString schedule = file("out/schedule.json");
    QDir().mkpath(file("out"));
    ASSERT_TRUE(w.exportSchedule(ScheduleExport::Schedule, schedule).isOk());
    const std::string text = slurp(schedule);
    auto doc = scheduleFromJson(text, *w.modelData()->graph, "schedule.json");
    ASSERT_TRUE(doc.isOk()) << doc.status().str();
    EXPECT_EQ(doc->overrides, (Overrides{o}));
    EXPECT_EQ(doc->model, "../small.onnx") << "relative to the exported file";
    EXPECT_EQ(validateJson(QJsonDocument::fromJson(QByteArray::fromStdString(text)).object(), scheduleSchema()),
              QString());

    const QString trace = file("out/trace.json");
    ASSERT_TRUE(w.exportSchedule(ScheduleExport::Timeline, trace).isOk());
    const QJsonObject events = QJsonDocument::fromJson(QByteArray::fromStdString(slurp(trace))).object();
    EXPECT_GT(events.value("traceEvents").toArray().size(), 0);

    // Negative twins: not an ios schedule; a failed write keeps the old file.
    QSignalSpy errors(&w, &MainWindow::errorReported);
    Status ios = w.exportSchedule(QStringLiteral("ios"), file("out/ios.json"));
    EXPECT_FALSE(ios.isOk());
    EXPECT_NE(ios.message().find("not ios"), std::string::npos) << ios.str();
    EXPECT_FALSE(QFile::exists(file("out/ios.json")));
    const std::string old = slurp(schedule);
    QDir().mkpath(schedule + QStringLiteral(".tmp-%1").arg(::getpid())); // the temporary file cannot be made
    Status blocked = w.exportSchedule(ScheduleExport::Schedule, schedule);
    EXPECT_FALSE(blocked.isOk());
    EXPECT_EQ(slurp(schedule), old);
    EXPECT_EQ(errors.count(), 2);
    EXPECT_EQ(errors.back().at(0).toString(), "Export failed");
}

TEST_F(ProjectSessionTest, ExportsAnIosScheduleOfAnIosSample)
{
    MainWindow w;
    w.setInteractive(false);
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    w.openSample("squeezenet");
    ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 1; }, kTimeoutMs));
    selectAlgorithm(w, "ios");
    ASSERT_TRUE(scheduled(w));
    EXPECT_TRUE(w.exportFormatAction("ios")->isEnabled());
    const QString out = file("squeezenet_ios.json");
    ASSERT_TRUE(w.exportSchedule(QStringLiteral("ios"), out).isOk());
    const Graph &g = *w.modelData()->graph;
    auto units = iosUnitsFromMetadata(g, w.modelData()->properties);
    ASSERT_TRUE(units.isOk()) << units.status().str();
    auto back = parseIosSchedule(slurp(out), g, *units, "squeezenet_ios.json");
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_FALSE(back->stages.empty());
}

TEST_F(ProjectSessionTest, ImportOverridesAppliesValidKeysAndListsRejectedOnes)
{
    MainWindow w;
    ASSERT_TRUE(startSmallProject(w, file("import.tessera")));
    const auto a = someOverride(w), b = someOverride(w, 1);
    ASSERT_FALSE(b.first.empty());
    const QJsonObject json{{QString::fromStdString(a.first), QString::fromStdString(a.second)},
                           {QString::fromStdString(b.first), QString::fromStdString(b.second)},
                           {"fuse:no|such|nodes", "fuse"},
                           {QString::fromStdString(a.first + "x"), "fuse"}};
    spit(file("overrides.json"), QJsonDocument(json).toJson().toStdString());
    const int diagnosticsBefore = w.diagnostics()->count();
    const int undoBefore = w.scheduleController()->undoStack()->count();
    ASSERT_TRUE(w.importOverrides(file("overrides.json")).isOk());
    EXPECT_EQ(w.scheduleController()->overrides(), (Overrides{a, b}));
    EXPECT_EQ(w.scheduleController()->undoStack()->count(), undoBefore + 1) << "one undo step";
    EXPECT_EQ(w.diagnostics()->count(), diagnosticsBefore + 2) << "the two unknown keys";
    EXPECT_EQ(*w.session()->project()->overrides(), (Overrides{a, b})) << "saved as one project step";
    w.scheduleController()->undoStack()->undo();
    EXPECT_EQ(w.scheduleController()->overrides(), Overrides{});

    // A wrong option of a real decision is rejected with the valid ones listed.
    auto checked =
        gui::importOverrides(R"({")" + a.first + R"(": "bogus"})", "o.json", *w.scheduleController()->lastRun());
    ASSERT_TRUE(checked.isOk());
    ASSERT_EQ(checked->rejected.size(), 1u);
    EXPECT_NE(checked->rejected[0].message.find("no option 'bogus' (valid: "), std::string::npos)
        << checked->rejected[0].message;

    // Negative twin: malformed JSON changes nothing.
    spit(file("broken.json"), "{\"a\": ");
    QSignalSpy errors(&w, &MainWindow::errorReported);
    EXPECT_FALSE(w.importOverrides(file("broken.json")).isOk());
    ASSERT_EQ(errors.count(), 1);
    EXPECT_TRUE(errors.front().at(1).toString().contains("broken.json"));
    EXPECT_EQ(w.scheduleController()->overrides(), Overrides{});
}

// --- command line --------------------------------------------------------------------

// Issue 18 item 7: dialogs start in the folder last used, else the model's (not the home folder).
TEST(DialogFolder, StartsInTheLastUsedThenTheModelsFolder)
{
    QTemporaryDir last, models;
    ASSERT_TRUE(last.isValid() && models.isValid());
    const QString model = models.filePath(QStringLiteral("net.onnx"));
    EXPECT_EQ(gui::dialogFolder(last.path(), model), last.path());
    EXPECT_EQ(gui::dialogFolder(QString(), model), QFileInfo(model).absolutePath());
}

// Negative twin: a last folder that is gone, and a sample in the cache, do not count.
TEST(DialogFolder, AGoneFolderOrACachedSampleFallsBack)
{
    QTemporaryDir models;
    const QString model = models.filePath(QStringLiteral("net.onnx"));
    EXPECT_EQ(gui::dialogFolder(QStringLiteral("/no/such/folder"), model), QFileInfo(model).absolutePath());
    const QString sample = gui::sampleCacheDir() + QStringLiteral("/squeezenet-abc/squeezenet.onnx");
    EXPECT_EQ(gui::dialogFolder(QString(), sample), QDir::homePath());
    EXPECT_EQ(gui::dialogFolder(QString(), QString()), QDir::homePath());
}

// The samples tessera registers; the command line takes them as data.
const QStringList kSampleNames = [] {
    QStringList names;
    for (const std::string &n : test::registeredSampleNames())
        names << QString::fromStdString(n);
    return names;
}();

TEST(CommandLine, ProjectOption)
{
    auto cl = gui::parseCommandLine({"tessera", "--project", "p.tessera", "--quit-after-load"}, kSampleNames);
    ASSERT_TRUE(cl.isOk()) << cl.status().str();
    EXPECT_EQ(cl->project, "p.tessera");
    EXPECT_TRUE(cl->model.isEmpty());

    for (const QStringList &args : {QStringList{"tessera", "--project", "p.tessera", "m.onnx"},
                                    QStringList{"tessera", "--project", "p.tessera", "--sample", "resnet50"}}) {
        auto bad = gui::parseCommandLine(args, kSampleNames);
        ASSERT_FALSE(bad.isOk());
        EXPECT_EQ(bad.status().code(), ErrorCode::Usage);
        EXPECT_NE(bad.status().message().find("--project opens its own model"), std::string::npos);
    }
}

} // namespace

int main(int argc, char **argv)
{
    return tessera::test::runWidgetTests(argc, argv, "tst_projectsession");
}
