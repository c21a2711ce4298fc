// Responsiveness of the workbench, asserted (issue 19, item 4): the real
// MainWindow (offscreen) with a StallWatchdog (50 ms threshold) through
//   opening ResNet-50 (the sample, scheduled by the default algorithm),
//   opening a generated 20,000-node graph (bench/biggraph.h),
//   opening NasNet-A and scheduling it with IOS, replaying an override of one
//   of its decisions and running the plan on the reference backend,
// with no stall over 100 ms; and cancel of the workbench's long tasks (a
// model load, an IOS schedule, a replay, a reference-backend run) taking
// effect within 100 ms, from cancel() to the signal that ends the task, and a
// superseded layout (expand-all, then collapse-all) giving way within 100 ms.
//
// Both bounds are asserted on the program's own part, since on the shared
// build machine (2 cores, load 10-25) wall times mostly measure the other
// processes. A stall: the time the GUI thread computed in it (Stall::cpuMs) is
// always bounded; the stall less the time the thread waited for a core
// (Stall::queuedMs), which also counts the time it was blocked on another
// thread, is bounded when the machine is not overloaded (load average below
// its cores), and printed otherwise — a blocked GUI thread often waits for a
// helper thread that itself waits for a core. A cancel latency: less the
// run-queue wait of the process's threads in it (tests/common/schedstat.h);
// tst_cancellatency bounds the tasks' own CPU time exactly. Negative twin:
// work that computes on the GUI thread for 200 ms is over the bound.
// bench/bench_stalls prints the same scenarios as a table.
#include "app/gui/mainwindow.h"
#include "app/gui/modelloader.h"
#include "app/gui/runcontroller.h"
#include "app/gui/schedulecontroller.h"
#include "app/gui/stallwatchdog.h"
#include "core/support/activity.h"
#include "views/models/workerpool.h"
#include "views/widgets/graphview.h"
#include "views/widgets/runpanel.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <string>
#include <time.h>

#include "bench/biggraph.h"
#include "bench/eventwait.h"
#include "tests/common/sanitizers.h"
#include "tests/common/schedstat.h"
#include "tests/common/widgettestmain.h"

using namespace tessera;
using gui::MainWindow;
using gui::StallWatchdog;

namespace {

using test::spin;
using test::waitUntil;

// 100 ms of the GUI thread's own work; under ASan the same work takes
// longer (tests/common/sanitizers.h).
constexpr double kBoundMs = 100 * test::kInstrumentationSlowdown;

// The one-minute load average (0 where unknown).
double loadAverage()
{
    double load = 0;
    if (FILE *f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load) != 1)
            load = 0;
        std::fclose(f);
    }
    return load;
}

class Responsiveness : public ::testing::Test
{
protected:
    void SetUp() override
    {
        window.setInteractive(false);
        window.resize(1440, 900);
        window.show();
    }

    // Runs `drive` with the watchdog on until `done`; expects no stall of the
    // program's own over the bound.
    void expectNoStall(const std::string &what, const std::function<void()> &drive, const std::function<bool()> &done)
    {
        StallWatchdog dog;
        QElapsedTimer wall;
        const double loadBefore = loadAverage();
        wall.start();
        dog.start();
        drive();
        const bool finished = waitUntil(done);
        spin(200); // paint what finished
        dog.stop();
        const double load = loadAverage();
        std::printf("%-44s wall %6lld ms, longest stall %5.0f ms (less waiting for a core %5.0f ms, computing %5.0f "
                    "ms), %zu over 50 ms, load %.1f\n",
                    what.c_str(), static_cast<long long>(wall.elapsed()), dog.longestStallMs(), dog.longestOwnStallMs(),
                    dog.longestCpuStallMs(), dog.stalls().size(), load);
        ASSERT_TRUE(finished) << what << " did not finish";
        std::string stalls;
        for (const gui::Stall &s : dog.stalls())
            stalls += "\n  " + gui::describeStall(s).toStdString();
        EXPECT_LE(dog.longestCpuStallMs(), kBoundMs) << what << ":" << stalls;
        if (load < QThread::idealThreadCount() && loadBefore < QThread::idealThreadCount()) {
            EXPECT_LE(dog.longestOwnStallMs(), kBoundMs) << what << ":" << stalls;
        }
    }

    // Starts a task, cancels it `afterMs` later (it must still run then) and
    // expects `ended` within the bound of the program's own time.
    void expectCancelWithinBound(const std::string &what, const std::function<void()> &start,
                                 const std::function<bool()> &running, const std::function<void()> &cancel,
                                 const std::function<bool()> &ended, int afterMs = 100)
    {
        start();
        spin(afterMs);
        ASSERT_TRUE(running()) << what << " ended before the cancel: nothing to measure";
        const double queued0 = test::queuedNsAllThreads();
        QElapsedTimer t;
        t.start();
        cancel();
        ASSERT_TRUE(waitUntil(ended, 60000)) << what << " did not end after the cancel";
        const double wallMs = static_cast<double>(t.nsecsElapsed()) / 1e6;
        const double queuedMs = std::max(0.0, (test::queuedNsAllThreads() - queued0) / 1e6);
        const double ownMs = std::max(0.0, wallMs - queuedMs);
        std::printf("cancel %-37s wall %6.1f ms, waiting for a core %6.1f ms, own %6.1f ms\n", what.c_str(), wallMs,
                    queuedMs, ownMs);
        EXPECT_LE(ownMs, kBoundMs) << what << ": " << wallMs << " ms, " << queuedMs << " of them waiting for a core";
    }

    // Opens NasNet-A and schedules it with IOS on nvidia-v100.
    void openNasNetWithIos()
    {
        window.deviceCombo()->setCurrentIndex(window.deviceCombo()->findData(QStringLiteral("nvidia-v100")));
        window.algorithmCombo()->setCurrentIndex(window.algorithmCombo()->findData(QStringLiteral("ios")));
        QSignalSpy loaded(&window, &MainWindow::modelLoaded);
        auto *schedule = window.scheduleController();
        expectNoStall(
            "open NasNet-A, schedule with IOS", [&] { window.openSample(QStringLiteral("nasnet-a")); },
            [&] {
                return loaded.count() >= 1 && schedule->lastRun() &&
                       schedule->lastRun()->result.plan.algorithm == "ios" && !schedule->isBusy();
            });
    }

    // An override of the last run's first decision that has a legal alternative.
    std::pair<std::string, std::string> someOverride() const
    {
        if (const auto run = window.scheduleController()->lastRun())
            for (const DecisionRecord &d : run->decisions.records())
                for (std::size_t i = 0; i < d.options.size(); ++i)
                    if (static_cast<std::int32_t>(i) != d.chosen && d.options[i].legal())
                        return {d.key, d.options[i].id};
        return {};
    }

    MainWindow window;
};

TEST_F(Responsiveness, OpeningResNet50DoesNotStall)
{
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    auto *schedule = window.scheduleController();
    expectNoStall(
        "open ResNet-50 (sample, default schedule)", [&] { window.openSample(QStringLiteral("resnet50")); },
        [&] { return loaded.count() >= 1 && schedule->lastRun() && !schedule->isBusy(); });
}

TEST_F(Responsiveness, OpeningA20000NodeGraphDoesNotStall)
{
    QTemporaryDir dir;
    const QString path = dir.filePath("dag-20k.onnx");
    ASSERT_TRUE(test::writeBigGraph(path, 20, 10, 100));
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    QSignalSpy laidOut(window.graphView(), &GraphView::layoutFinished);
    auto *schedule = window.scheduleController();
    expectNoStall(
        "open a 20,000-node graph", [&] { window.openFile(path); },
        [&] { return loaded.count() >= 1 && laidOut.count() >= 1 && !schedule->isBusy(); });
    EXPECT_GE(window.graphView()->graph()->nodeCount(), 20000u);
}

TEST_F(Responsiveness, NasNetAScheduleReplayAndReferenceRunDoNotStall)
{
    openNasNetWithIos();
    auto *schedule = window.scheduleController();
    const auto [key, option] = someOverride();
    ASSERT_FALSE(key.empty()) << "no decision of NasNet-A's IOS schedule has an alternative";
    QSignalSpy replayed(schedule, &gui::ScheduleController::finished);
    expectNoStall(
        "replay an override (NasNet-A, IOS)", [&, k = key, o = option] { schedule->setOverride(k, o); },
        [&] { return replayed.count() >= 1 && !schedule->isBusy(); });
    EXPECT_TRUE(schedule->lastRun()->decisions.overrides().count(key));

    QSignalSpy ran(window.runPanel(), &views::RunPanel::runFinished);
    ASSERT_TRUE(window.runPanel()->selectBackend(QStringLiteral("reference")));
    expectNoStall(
        "run NasNet-A's plan on the reference backend", [&] { ASSERT_TRUE(window.runPanel()->run()); },
        [&] { return ran.count() >= 1; });
}

// Twin of the stall tests: 200 ms of computing on the GUI thread is a stall
// over the bound, and counted as the program's own computing.
TEST_F(Responsiveness, BlockingTheGuiThreadIsOverTheBound)
{
    StallWatchdog dog;
    dog.start();
    spin(30);
    QTimer::singleShot(0, &window, [] {
        const ActivityScope busy("busy work");
        // Twice the bound of the thread's own computing (its CPU clock), however loaded the machine.
        const auto cpuMs = [] {
            timespec ts{};
            ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
        };
        const double until = cpuMs() + 2 * kBoundMs;
        volatile double x = 0;
        while (cpuMs() < until)
            x = x + 1;
    });
    const auto busy = [&] {
        return std::find_if(dog.stalls().begin(), dog.stalls().end(), [](const gui::Stall &st) {
            return std::find(st.activities.begin(), st.activities.end(), "busy work") != st.activities.end();
        });
    };
    ASSERT_TRUE(waitUntil([&] { return busy() != dog.stalls().end(); }, 10000));
    dog.stop();
    const gui::Stall &stall = *busy();
    EXPECT_GT(stall.durationMs, kBoundMs) << gui::describeStall(stall).toStdString();
    EXPECT_GT(stall.cpuMs, kBoundMs) << gui::describeStall(stall).toStdString();
    EXPECT_GT(dog.longestCpuStallMs(), kBoundMs);
}

TEST_F(Responsiveness, CancellingAModelLoadTakesEffectAtOnce)
{
    gui::ModelLoader *loader = window.loader();
    QSignalSpy cancelled(loader, &gui::ModelLoader::cancelled);
    expectCancelWithinBound(
        "load NasNet-A", [&] { window.openSample(QStringLiteral("nasnet-a")); }, [&] { return loader->isLoading(); },
        [&] { loader->cancel(); }, [&] { return cancelled.count() >= 1 && !loader->isLoading(); }, 20);
    // The abandoned job's token is set: the sample builder stops at its next
    // layer, the importer at its next node or step. Bounded like a cancel: the
    // worker is free within 100 ms less the run-queue wait of all threads.
    const double queued0 = test::queuedNsAllThreads();
    QElapsedTimer t;
    t.start();
    ASSERT_TRUE(waitUntil([] { return views::workerPool()->activeThreadCount() == 0; }, 120000));
    const double wallMs = static_cast<double>(t.nsecsElapsed()) / 1e6;
    const double ownMs = std::max(0.0, wallMs - std::max(0.0, (test::queuedNsAllThreads() - queued0) / 1e6));
    std::printf("the abandoned load kept a worker for %.1f ms after the cancel (own %.1f ms)\n", wallMs, ownMs);
    EXPECT_LE(ownMs, kBoundMs) << "the abandoned load kept a worker for " << wallMs << " ms";
    spin(50);
    EXPECT_FALSE(window.scheduleController()->lastRun()); // the workbench stays on no model
    EXPECT_EQ(cancelled.count(), 1);
}

// A layout superseded while it runs (expand-all of the 20,000-node graph,
// then collapse-all) stops at its next level, and the new one is shown.
TEST_F(Responsiveness, ASupersededLayoutStopsWithin100Ms)
{
    QTemporaryDir dir;
    const QString path = dir.filePath("dag-20k.onnx");
    ASSERT_TRUE(test::writeBigGraph(path, 20, 10, 100));
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    QSignalSpy laidOut(window.graphView(), &GraphView::layoutFinished);
    window.openFile(path);
    ASSERT_TRUE(waitUntil(
        [&] { return loaded.count() >= 1 && laidOut.count() >= 1 && !window.scheduleController()->isBusy(); }));
    spin(200);
    QSignalSpy started(window.graphView(), &GraphView::layoutStarted);
    QSignalSpy finished(window.graphView(), &GraphView::layoutFinished);
    expectCancelWithinBound(
        "expand-all layout (20,000 nodes), superseded", [&] { window.graphView()->expandAll(); },
        [&] { return started.count() >= 1 && finished.count() == 0; }, [&] { window.graphView()->collapseAll(); },
        [&] { return finished.count() >= 1; }, 1); // at once: an idle machine lays it out within 50 ms
}

TEST_F(Responsiveness, CancellingAScheduleAReplayAndAReferenceRunTakesEffectWithin100Ms)
{
    openNasNetWithIos();
    auto *schedule = window.scheduleController();
    {
        QSignalSpy failed(schedule, &gui::ScheduleController::failed);
        expectCancelWithinBound(
            "IOS schedule of NasNet-A",
            [&] {
                schedule->clearOverrides();
                schedule->runNow();
            },
            [&] { return schedule->isRunning(); }, [&] { schedule->cancel(); }, [&] { return failed.count() >= 1; });
        ASSERT_TRUE(waitUntil([&] { return !schedule->isBusy(); }));
    }
    schedule->runNow(); // a complete schedule again, to take an override of
    ASSERT_TRUE(waitUntil([&] { return !schedule->isBusy() && schedule->lastRun(); }));
    const auto [key, option] = someOverride();
    ASSERT_FALSE(key.empty());
    {
        QSignalSpy failed(schedule, &gui::ScheduleController::failed);
        expectCancelWithinBound(
            "replay of an override (NasNet-A, IOS)",
            [&, k = key, o = option] {
                schedule->setOverride(k, o);
                schedule->runNow();
            },
            [&] { return schedule->isRunning(); }, [&] { schedule->cancel(); }, [&] { return failed.count() >= 1; });
        ASSERT_TRUE(waitUntil([&] { return !schedule->isBusy(); }));
    }
    schedule->clearOverrides();
    schedule->runNow();
    ASSERT_TRUE(waitUntil([&] { return !schedule->isBusy() && schedule->lastRun(); }));
    ASSERT_TRUE(window.runPanel()->selectBackend(QStringLiteral("reference")));
    for (const int afterMs : {100, 600}) {
        QSignalSpy failed(window.runController(), &gui::RunController::failed);
        expectCancelWithinBound(
            "reference run of NasNet-A after " + std::to_string(afterMs) + " ms",
            [&] { ASSERT_TRUE(window.runPanel()->run()); }, [&] { return window.runController()->isRunning(); },
            [&] { window.runPanel()->cancel(); }, [&] { return failed.count() >= 1; }, afterMs);
        ASSERT_TRUE(waitUntil([&] { return !window.runController()->isRunning(); }));
    }
}

} // namespace

int main(int argc, char **argv)
{
    return tessera::test::runWidgetTests(argc, argv, "tst_responsiveness");
}
