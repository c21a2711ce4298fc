// Measured costs and per-kernel timings in the workbench (issue 13, items 2
// and 3), on the real MainWindow under the offscreen platform:
//   - the toolbar's cost choice "costs measured (cpu)" schedules the host CPU
//     device with kernels timed on the CPU backend (tasks costed
//     CostKind::Measured, the plan summary says how many), and a replay asks
//     the same meter again: every kernel is a cache hit; its twin, "estimated
//     costs", costs no task by measurement;
//   - the choice survives a restart (QSettings), the default one stays
//     estimated;
//   - a cancel of a measured schedule ends it within 100 ms of the program's
//     own time (as tests/views/tst_responsiveness.cpp measures it);
//   - a run on the CPU backend streams each kernel's measured time to the
//     Run dock's predicted-vs-measured table before the run finishes; its
//     twin, the reference backend (which streams no timeline), fills the
//     table only when the run has finished;
//   - BackendMeter under a set cancel token measures nothing and caches
//     nothing (the next ask measures), its twin without the token measures.
// Saves <build>/screenshots/measuredworkbench.png (1366×768: the toolbar with
// the cost choice, the Run dock's kernel table after a run) for people to
// look at.
#include "app/gui/mainwindow.h"
#include "app/gui/runcontroller.h"
#include "app/gui/schedulecontroller.h"
#include "app/registerbuiltins.h"
#include "core/backend/kernelmeter.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "views/models/kerneltimingmodel.h"
#include "views/models/plansummary.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/graphview.h"
#include "views/widgets/runpanel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <gtest/gtest.h>
#include <memory>
#include <onnx/onnx_pb.h>

#include "tests/common/sanitizers.h"
#include "tests/common/schedstat.h"
#include "tests/common/screenshots.h"
#include "tests/common/widgettestmain.h"
#include "tests/views/smallmodel.h"

using namespace tessera;
using tessera::gui::MainWindow;
using tessera::gui::ScheduleController;

namespace {

constexpr int kTimeoutMs = 120000;
constexpr double kBoundMs = 100 * test::kInstrumentationSlowdown;

int countKind(const ExecutionPlan &plan, CostKind kind)
{
    return static_cast<int>(
        std::count_if(plan.tasks.begin(), plan.tasks.end(), [&](const Task &t) { return t.cost.kind == kind; }));
}

class MeasuredWorkbench : public ::testing::Test
{
protected:
    void SetUp() override
    {
        QSettings().clear();
        ASSERT_TRUE(m_dir.isValid());
        m_model = m_dir.filePath(QStringLiteral("small.onnx"));
        testmodels::writeSmallModel(m_model);
    }

    static bool load(MainWindow &w, const QString &path)
    {
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        QSignalSpy laidOut(w.graphView(), &GraphView::layoutFinished);
        w.openFile(path);
        return QTest::qWaitFor([&] { return loaded.count() == 1 && laidOut.count() >= 1; }, kTimeoutMs);
    }

    // Waits until the controller has a result for its current inputs (or failed).
    static bool settled(MainWindow &w)
    {
        auto *c = w.scheduleController();
        return QTest::qWaitFor([&] { return !c->isBusy(); }, kTimeoutMs);
    }

    static void choose(QComboBox *box, const QString &data)
    {
        const int i = box->findData(data);
        ASSERT_GE(i, 0) << data.toStdString();
        box->setCurrentIndex(i);
    }

    // A window on the host CPU device with the small model loaded and scheduled.
    void openOnHost(MainWindow &w, const QString &cost)
    {
        choose(w.deviceCombo(), QStringLiteral("host"));
        choose(w.costCombo(), cost);
        ASSERT_TRUE(load(w, m_model));
        ASSERT_TRUE(settled(w));
        ASSERT_TRUE(w.scheduleController()->lastRun()) << "no schedule";
    }

    QTemporaryDir m_dir;
    QString m_model;
};

TEST_F(MeasuredWorkbench, MeasuredChoiceTimesKernelsOnTheCpuBackendAndAReplayHitsItsCache)
{
    MainWindow w;
    ASSERT_NO_FATAL_FAILURE(openOnHost(w, ScheduleController::kDefaultMeter));
    auto *c = w.scheduleController();
    EXPECT_EQ(c->meterBackend(), QStringLiteral("cpu")) << "a CPU device measures on the CPU backend";
    EXPECT_EQ(w.costCombo()->currentText(), QStringLiteral("costs measured (cpu)"));
    const ExecutionPlan &plan = c->lastRun()->result.plan;
    EXPECT_GT(countKind(plan, CostKind::Measured), 0);
    const ScheduleController::MeterReport first = c->lastMeterReport();
    EXPECT_EQ(first.backend, QStringLiteral("cpu"));
    EXPECT_GT(first.timed, 0);
    std::printf("measured schedule: %d kernels timed, %d cache hits, %d of %zu tasks measured\n", first.timed,
                first.cacheHits, countKind(plan, CostKind::Measured), plan.tasks.size());

    // The plan summary says so.
    const views::PlanSummary summary = views::summarizeRun(*c->lastRun());
    const views::SummaryRow *row = summary.find(QStringLiteral("timedTasks"));
    ASSERT_NE(row, nullptr);
    EXPECT_TRUE(row->text.endsWith(QStringLiteral(" of %1").arg(plan.tasks.size()))) << row->text.toStdString();

    // A replay asks the same meter: nothing is compiled again.
    c->runNow();
    ASSERT_TRUE(settled(w));
    const ScheduleController::MeterReport again = c->lastMeterReport();
    EXPECT_EQ(again.timed, 0);
    EXPECT_GE(again.cacheHits, first.timed);
    EXPECT_GT(countKind(c->lastRun()->result.plan, CostKind::Measured), 0);

    // A non-CPU device's default meter is the simulator (defaultMeterBackend).
    choose(w.deviceCombo(), QStringLiteral("nvidia-v100"));
    EXPECT_EQ(c->meterBackend(), QStringLiteral("sim"));
    EXPECT_EQ(w.costCombo()->currentText(), QStringLiteral("costs measured (sim)"));
}

TEST_F(MeasuredWorkbench, EstimatedChoiceCostsNoTaskByMeasurement)
{
    MainWindow w;
    ASSERT_NO_FATAL_FAILURE(openOnHost(w, ScheduleController::kEstimated));
    auto *c = w.scheduleController();
    EXPECT_TRUE(c->meterBackend().isEmpty());
    const ExecutionPlan &plan = c->lastRun()->result.plan;
    EXPECT_EQ(countKind(plan, CostKind::Measured), 0);
    EXPECT_EQ(countKind(plan, CostKind::Simulated), 0);
    EXPECT_TRUE(c->lastMeterReport().backend.isEmpty());
    EXPECT_EQ(views::summarizeRun(*c->lastRun()).find(QStringLiteral("timedTasks")), nullptr);
}

TEST_F(MeasuredWorkbench, CostChoiceSurvivesARestart)
{
    {
        MainWindow w;
        EXPECT_EQ(w.costCombo()->currentData().toString(), ScheduleController::kEstimated) << "the default";
        EXPECT_EQ(w.scheduleController()->costMeter(), ScheduleController::kEstimated);
        choose(w.costCombo(), QStringLiteral("cpu"));
        EXPECT_EQ(w.scheduleController()->costMeter(), QStringLiteral("cpu"));
    }
    MainWindow again;
    EXPECT_EQ(again.costCombo()->currentData().toString(), QStringLiteral("cpu"));
    EXPECT_EQ(again.scheduleController()->costMeter(), QStringLiteral("cpu"));
    EXPECT_EQ(again.scheduleController()->meterBackend(), QStringLiteral("cpu"));
}

TEST_F(MeasuredWorkbench, CancellingAMeasuredScheduleTakesEffectWithin100Ms)
{
    // MobileNetV2 on the host CPU with the greedy scheduler (it costs each
    // stage's kernels as it goes and reports progress per stage), first
    // with estimates: no meter is made yet.
    MainWindow w;
    choose(w.deviceCombo(), QStringLiteral("host"));
    choose(w.algorithmCombo(), QStringLiteral("greedy"));
    auto *c = w.scheduleController();
    {
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        w.openSample(QStringLiteral("mobilenetv2")); // enough kernels that timing them takes a while
        ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 1 && !c->isBusy(); }, kTimeoutMs));
        ASSERT_TRUE(c->lastRun());
    }
    c->setAutoRun(false);
    const auto timedSchedule = [&] {
        QElapsedTimer t;
        t.start();
        c->runNow();
        EXPECT_TRUE(settled(w));
        return static_cast<double>(t.nsecsElapsed()) / 1e6;
    };
    const double estimatedMs = timedSchedule(); // the baseline printed below
    // A fresh meter times every kernel. The cancel comes when a fifth of the
    // stages are done: a moment in the work, not in time.
    choose(w.costCombo(), QStringLiteral("cpu"));
    QSignalSpy failed(c, &ScheduleController::failed);
    QSignalSpy finished(c, &ScheduleController::finished);
    double reached = 0;
    QObject::connect(c, &ScheduleController::progress, c, [&](double f) { reached = std::max(reached, f); });
    c->runNow();
    ASSERT_TRUE(QTest::qWaitFor([&] { return reached >= 0.2 || !c->isRunning(); }, kTimeoutMs));
    ASSERT_TRUE(c->isRunning()) << "the measured schedule ended before the cancel: nothing to measure";
    const double queued0 = test::queuedNsAllThreads();
    QElapsedTimer t;
    t.start();
    c->cancel();
    ASSERT_TRUE(QTest::qWaitFor([&] { return failed.count() >= 1 || finished.count() >= 1; }, kTimeoutMs));
    const double wallMs = static_cast<double>(t.nsecsElapsed()) / 1e6;
    const double queuedMs = std::max(0.0, (test::queuedNsAllThreads() - queued0) / 1e6);
    const double ownMs = std::max(0.0, wallMs - queuedMs);
    std::printf("cancel of a measured schedule at %.0f %%: wall %.1f ms, waiting for a core %.1f ms, own %.1f ms\n",
                reached * 100, wallMs, queuedMs, ownMs);
    ASSERT_EQ(failed.count(), 1) << "it finished instead";
    EXPECT_EQ(failed.last().value(0).toString(), QStringLiteral("cancelled"));
    EXPECT_LE(ownMs, kBoundMs);

    // The meter kept what it timed before the cancel and nothing cancelled:
    // the next schedule completes, measured, partly from the cache.
    const double afterMs = timedSchedule();
    ASSERT_TRUE(c->lastRun());
    EXPECT_GT(countKind(c->lastRun()->result.plan, CostKind::Measured), 0);
    EXPECT_GT(c->lastMeterReport().cacheHits, 0);
    const ScheduleController::MeterReport after = c->lastMeterReport();
    const double cachedMs = timedSchedule(); // every kernel from the cache
    EXPECT_EQ(c->lastMeterReport().timed, 0);
    std::printf("MobileNetV2, greedy, host: estimated %.0f ms; measured after the cancel %.0f ms (%d kernels timed, "
                "%d from the cache); measured again %.0f ms (all %d from the cache)\n",
                estimatedMs, afterMs, after.timed, after.cacheHits, cachedMs, c->lastMeterReport().cacheHits);
}

// Rows of the Run dock's kernel table inserted while the run was still going
// and in all, for a run of the current plan on `backend`.
std::pair<int, int> runAndCountStreamedRows(MainWindow &w, const QString &backend)
{
    views::RunPanel *panel = w.runPanel();
    EXPECT_TRUE(panel->selectBackend(backend));
    views::KernelTimingModel *model = panel->kernelTimingModel();
    int whileRunning = 0;
    const QMetaObject::Connection c =
        QObject::connect(model, &QAbstractItemModel::rowsInserted, [&](const QModelIndex &, int first, int last) {
            if (w.scheduleController()->state()->isBackendRunning())
                whileRunning += last - first + 1;
        });
    QSignalSpy finished(panel, &views::RunPanel::runFinished);
    EXPECT_TRUE(panel->run());
    EXPECT_TRUE(QTest::qWaitFor([&] { return finished.count() == 1; }, kTimeoutMs)) << backend.toStdString();
    QObject::disconnect(c);
    return {whileRunning, model->rowCount()};
}

TEST_F(MeasuredWorkbench, CpuRunStreamsPerKernelTimesBeforeItFinishes)
{
    MainWindow w;
    ASSERT_NO_FATAL_FAILURE(openOnHost(w, ScheduleController::kEstimated));
    QAbstractItemModelTester tester(w.runPanel()->kernelTimingModel(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    const ExecutionPlan &plan = w.scheduleController()->lastRun()->result.plan;
    const int kernels = countKind(plan, CostKind::Estimated);
    ASSERT_GE(plan.kernels.size(), 3u) << "a run with several kernels";
    const auto [streamed, rows] = runAndCountStreamedRows(w, QStringLiteral("cpu"));
    std::printf("cpu run: %d of %d rows streamed before the run finished (%zu kernels)\n", streamed, rows,
                plan.kernels.size());
    EXPECT_GT(streamed, 0);
    EXPECT_GT(rows, 0);
    EXPECT_LE(rows, kernels);
    views::KernelTimingModel *model = w.runPanel()->kernelTimingModel();
    for (int r = 0; r < model->rowCount(); ++r) {
        const double predicted = model->index(r, views::KernelTimingModel::PredictedColumn)
                                     .data(views::KernelTimingModel::ValueRole)
                                     .toDouble();
        const double measured = model->index(r, views::KernelTimingModel::MeasuredColumn)
                                    .data(views::KernelTimingModel::ValueRole)
                                    .toDouble();
        EXPECT_GT(predicted, 0) << r;
        EXPECT_GE(measured, 0) << r;
        EXPECT_EQ(model->index(r, views::KernelTimingModel::RunsColumn).data().toInt(), 1);
    }
    // A second run of the same plan: the same rows, medians over two runs.
    const auto [streamed2, rows2] = runAndCountStreamedRows(w, QStringLiteral("cpu"));
    EXPECT_EQ(streamed2, 0) << "the rows stay; a new run updates them in place";
    EXPECT_EQ(rows2, rows);
    EXPECT_EQ(model->committedRuns(), 2);
    EXPECT_EQ(model->index(0, views::KernelTimingModel::RunsColumn).data().toInt(), 2);
}

TEST_F(MeasuredWorkbench, ReferenceRunFillsTheKernelTableOnlyWhenFinished)
{
    MainWindow w;
    ASSERT_NO_FATAL_FAILURE(openOnHost(w, ScheduleController::kEstimated));
    const auto [streamed, rows] = runAndCountStreamedRows(w, QStringLiteral("reference"));
    EXPECT_EQ(streamed, 0) << "the reference backend streams no timeline";
    EXPECT_GT(rows, 0);
}

// The table's bookkeeping on a made-up plan: rows in finishing order, the
// median over committed runs, a dropped (cancelled) run's spans forgotten.
TEST(KernelTimingModel, MedianOverCommittedRunsAndDroppedRunsForgotten)
{
    auto plan = std::make_shared<ExecutionPlan>();
    for (int i = 0; i < 3; ++i) {
        Task t;
        t.id = i;
        t.kind = i == 1 ? TaskKind::Copy : TaskKind::Compute;
        t.cost.timeNs = 100;
        t.label = "k" + std::to_string(i);
        plan->tasks.push_back(t);
    }
    views::KernelTimingModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setPlan(plan);
    const auto run = [](std::vector<TaskTiming> timeline) {
        RunResult r;
        r.timeline = std::move(timeline);
        return r;
    };
    const auto measured = [&](int row) {
        return model.index(row, views::KernelTimingModel::MeasuredColumn).data(views::KernelTimingModel::ValueRole);
    };
    model.setRun(run({{2, 0, 50, 0}}));
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.index(0, 0).data().toString(), QStringLiteral("k2")) << "in finishing order";
    model.setRun(run({{2, 0, 50, 0}, {1, 50, 60, 0}, {0, 60, 260, 0}})); // the copy has no row
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(model.rowOfTask(0), 1);
    EXPECT_EQ(model.rowOfTask(1), -1);
    model.commitRun();
    model.setRun(run({{2, 0, 150, 0}, {0, 150, 250, 0}}));
    model.commitRun();
    model.setRun(run({{2, 0, 100, 0}}));
    model.commitRun();
    EXPECT_EQ(model.committedRuns(), 3);
    EXPECT_DOUBLE_EQ(measured(0).toDouble(), 100); // median of 50, 150, 100
    EXPECT_DOUBLE_EQ(measured(1).toDouble(), 150); // median of 200, 100
    EXPECT_DOUBLE_EQ(
        model.index(1, views::KernelTimingModel::RatioColumn).data(views::KernelTimingModel::ValueRole).toDouble(),
        1.5);
    // A cancelled run's spans count while it streams and are forgotten when dropped.
    model.setRun(run({{2, 0, 10000, 0}, {0, 0, 10000, 0}}));
    model.setRun(run({{2, 0, 10000, 0}, {0, 0, 10000, 0}}));
    EXPECT_DOUBLE_EQ(measured(0).toDouble(), 125); // 50, 100, 150, 10000
    model.dropRun();
    EXPECT_EQ(model.rowCount(), 2);
    EXPECT_DOUBLE_EQ(measured(0).toDouble(), 100);
    EXPECT_EQ(model.committedRuns(), 3);
    // Another plan: no rows, no samples.
    model.setPlan(std::make_shared<ExecutionPlan>(*plan));
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_EQ(model.committedRuns(), 0);
}

TEST_F(MeasuredWorkbench, BackendMeterUnderACancelMeasuresNothingAndCachesNothing)
{
    BackendRegistry backends;
    registerBuiltinBackends(backends);
    IBackend *cpu = backends.find("cpu");
    ASSERT_NE(cpu, nullptr);
    const DeviceRegistry devices = DeviceRegistry::standard();
    const Device *host = devices.find("host");
    ASSERT_NE(host, nullptr);
    auto model = importModel(m_model.toStdString());
    ASSERT_TRUE(model.isOk()) << model.status().str();
    const Graph *graph = &model->graph;
    BackendMeter meter(*cpu, *host);
    std::atomic<bool> cancel{true};
    meter.setCancel(&cancel);
    auto cancelled = meter.kernelNs(*graph, {0});
    ASSERT_FALSE(cancelled.isOk());
    EXPECT_EQ(cancelled.status().code(), ErrorCode::Cancelled);
    EXPECT_EQ(meter.measured(), 0);
    // Twin: the token cleared, the same kernel is measured (not a cached error).
    cancel = false;
    auto timed = meter.kernelNs(*graph, {0});
    ASSERT_TRUE(timed.isOk()) << timed.status().str();
    EXPECT_GT(*timed, 0);
    EXPECT_EQ(meter.measured(), 1);
    EXPECT_EQ(meter.cacheHits(), 0);
}

TEST_F(MeasuredWorkbench, Screenshot)
{
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    ASSERT_NO_FATAL_FAILURE(openOnHost(w, ScheduleController::kDefaultMeter));
    if (auto *dock = w.findChild<QDockWidget *>(QStringLiteral("runDock"))) {
        dock->show();
        dock->raise();
    }
    runAndCountStreamedRows(w, QStringLiteral("cpu"));
    QTest::qWait(200); // the queued column fits
    // The cost choice is on screen whole (not in a toolbar's overflow menu).
    for (QWidget *picker : {static_cast<QWidget *>(w.algorithmCombo()), static_cast<QWidget *>(w.deviceCombo()),
                            static_cast<QWidget *>(w.precisionCombo()), static_cast<QWidget *>(w.costCombo())}) {
        EXPECT_TRUE(picker->isVisible());
        EXPECT_LE(picker->mapTo(&w, QPoint(picker->width(), 0)).x(), w.width());
    }
    const QString path = testshots::screenshotPath(QStringLiteral("measuredworkbench.png"));
    ASSERT_TRUE(w.grab().toImage().save(path));
    std::printf("screenshot: %s\n", qPrintable(path));
}

} // namespace

int main(int argc, char **argv)
{
    return tessera::test::runWidgetTests(argc, argv, "tst_measuredworkbench");
}
