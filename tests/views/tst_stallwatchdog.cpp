// The GUI stall watchdog (app/gui/stallwatchdog.h) and the activity log it
// blames (core/support/activity.h). Attribution is checked with explicit beat
// times; one test blocks the real event loop and one loads a model in the
// workbench and finds its work named. How long the workbench's own stalls are
// is measured by bench/bench_stalls, not asserted here.
#include "app/gui/mainwindow.h"
#include "app/gui/stallwatchdog.h"
#include "core/support/activity.h"
#include "views/widgets/graphview.h"

#include <QApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "tests/common/widgettestmain.h"
#include "tests/views/smallmodel.h"

using namespace tessera;
using gui::Stall;
using gui::StallWatchdog;

namespace {

bool blames(const Stall &s, const std::string &label)
{
    return std::find(s.activities.begin(), s.activities.end(), label) != s.activities.end();
}

class StallWatchdogTest : public ::testing::Test
{
protected:
    void SetUp() override { clearRecentActivities(); }
};

TEST_F(StallWatchdogTest, RegularBeatsAreNoStall)
{
    StallWatchdog w(nullptr, 50, 10);
    for (double t = 1000; t <= 2000; t += 10)
        w.beat(t);
    w.beat(2060); // a gap of 60 ms: blocked 50, not more than the threshold
    EXPECT_TRUE(w.stalls().empty());
    EXPECT_EQ(w.longestStallMs(), 0);
}

TEST_F(StallWatchdogTest, ALongGapIsAStallBlamedOnTheWorkThatOverlappedIt)
{
    StallWatchdog w(nullptr, 50, 10);
    recordActivity("before the gap", 900, 995);
    recordActivity("layout", 1005, 1120);
    recordActivity("after the gap", 1200, 1210);
    QSignalSpy stalled(&w, &StallWatchdog::stalled);
    w.beat(1000);
    w.beat(1130); // blocked 120 ms
    ASSERT_EQ(w.stalls().size(), 1u);
    EXPECT_EQ(stalled.count(), 1);
    const Stall &s = w.stalls().front();
    EXPECT_DOUBLE_EQ(s.startMs, 1000);
    EXPECT_DOUBLE_EQ(s.durationMs, 120);
    EXPECT_EQ(s.activities, (std::vector<std::string>{"layout"}));
    EXPECT_FALSE(blames(s, "before the gap"));
    EXPECT_FALSE(blames(s, "after the gap"));
    EXPECT_EQ(gui::describeStall(s), QStringLiteral("120 ms in layout"));
}

// Time the thread waited for a core is the machine's, not the program's: a
// stall keeps its whole length, and its own part excludes the wait.
TEST_F(StallWatchdogTest, WaitingForACoreIsSeparatedFromTheProgramsOwnStall)
{
    StallWatchdog w(nullptr, 50, 10);
    w.beat(1000, {500, 40});
    w.beat(1250, {530, 190}); // blocked 240 ms: 150 of them on a run queue, 30 on a core
    ASSERT_EQ(w.stalls().size(), 1u);
    EXPECT_DOUBLE_EQ(w.stalls().front().durationMs, 240);
    EXPECT_DOUBLE_EQ(w.stalls().front().queuedMs, 150);
    EXPECT_DOUBLE_EQ(w.longestStallMs(), 240);
    EXPECT_DOUBLE_EQ(w.longestOwnStallMs(), 90);
    EXPECT_DOUBLE_EQ(w.longestCpuStallMs(), 30); // the other 60 ms it was blocked
    EXPECT_EQ(gui::describeStall(w.stalls().front()),
              QStringLiteral("240 ms in unnamed work, 150 ms of it waiting for a core"));
}

// Twin: a gap the thread spent computing is all its own.
TEST_F(StallWatchdogTest, AStallWithoutWaitingIsAllTheProgramsOwn)
{
    StallWatchdog w(nullptr, 50, 10);
    w.beat(1000, {500, 40});
    w.beat(1250, {739.5, 40.5});
    ASSERT_EQ(w.stalls().size(), 1u);
    EXPECT_DOUBLE_EQ(w.longestOwnStallMs(), 239.5);
    EXPECT_DOUBLE_EQ(w.longestCpuStallMs(), 239.5);
    EXPECT_EQ(gui::describeStall(w.stalls().front()), QStringLiteral("240 ms in unnamed work"));
    EXPECT_GE(StallWatchdog::threadTimes().queuedMs, 0.0);
    EXPECT_GT(StallWatchdog::threadTimes().cpuMs, 0.0); // this test has computed something
}

TEST_F(StallWatchdogTest, TheEventHeldLongestInTheGapIsNamedFirst)
{
    StallWatchdog w(nullptr, 50, 10);
    w.noteEvent(990, "Timer → before");
    w.beat(1000);
    w.noteEvent(1001, "MouseMove → quick");
    w.noteEvent(1002, "Paint → slow view");
    w.noteEvent(1190, "MouseMove → quick");
    w.beat(1200);
    ASSERT_EQ(w.stalls().size(), 1u);
    EXPECT_EQ(w.stalls().front().events, (std::vector<std::string>{"Paint → slow view", "MouseMove → quick"}));
    EXPECT_EQ(gui::describeStall(w.stalls().front()),
              QStringLiteral("190 ms in unnamed work (events: Paint → slow view, MouseMove → quick)"));
}

TEST_F(StallWatchdogTest, UnnamedWorkIsSaidToBeUnnamed)
{
    StallWatchdog w(nullptr, 50, 10);
    w.beat(0);
    w.beat(500);
    ASSERT_EQ(w.stalls().size(), 1u);
    EXPECT_TRUE(w.stalls().front().activities.empty());
    EXPECT_EQ(gui::describeStall(w.stalls().front()), QStringLiteral("490 ms in unnamed work"));
}

TEST_F(StallWatchdogTest, RunningScopesAreBlamedOutermostFirst)
{
    StallWatchdog w(nullptr, 50, 10);
    const double t0 = activityClockMs();
    w.beat(t0);
    const ActivityScope outer("show schedule");
    const ActivityScope inner("stage view: relayout");
    w.beat(t0 + 1000);
    ASSERT_EQ(w.stalls().size(), 1u);
    EXPECT_EQ(w.stalls().front().activities, (std::vector<std::string>{"show schedule", "stage view: relayout"}));
}

TEST_F(StallWatchdogTest, ActivityLogKeepsOnlyRecentSpansPerThread)
{
    for (std::size_t i = 0; i < kRecentActivities + 10; ++i)
        recordActivity("span " + std::to_string(i), static_cast<double>(i), static_cast<double>(i) + 0.5);
    const auto all = activitiesDuring(0, 1e9);
    ASSERT_EQ(all.size(), kRecentActivities);
    EXPECT_EQ(all.front().label, "span 10");
    // Another thread has a log of its own.
    std::size_t seenThere = 99;
    QThread *t = QThread::create([&] { seenThere = activitiesDuring(0, 1e9).size(); });
    t->start();
    t->wait();
    delete t;
    EXPECT_EQ(seenThere, 0u);
}

// The real loop: work blocking the GUI thread for 150 ms is caught and named.
TEST_F(StallWatchdogTest, BlockingTheEventLoopIsCaught)
{
    StallWatchdog w;
    w.start();
    QTest::qWait(30);
    QObject context;
    context.setObjectName(QStringLiteral("busy context"));
    QTimer::singleShot(0, &context, [] {
        const ActivityScope busy("busy work");
        QThread::msleep(150);
    });
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.stalls().empty(); }, 5000));
    const auto it =
        std::find_if(w.stalls().begin(), w.stalls().end(), [](const Stall &s) { return blames(s, "busy work"); });
    ASSERT_NE(it, w.stalls().end()) << gui::describeStall(w.stalls().front()).toStdString();
    EXPECT_GE(it->durationMs, 100);
    ASSERT_FALSE(it->events.empty());
    EXPECT_EQ(it->events.front(), "MetaCall → QObject 'busy context'") << gui::describeStall(*it).toStdString();
    EXPECT_GE(w.longestStallMs(), 100);
    w.stop();
    EXPECT_FALSE(w.isRunning());
}

// The workbench names its GUI-thread work: loading a model shows it, sets the
// graph and applies a layout, each inside its activity.
TEST_F(StallWatchdogTest, WorkbenchWorkIsNamed)
{
    QTemporaryDir dir;
    const QString path = dir.filePath("small.onnx");
    testmodels::writeSmallModel(path);
    const double t0 = activityClockMs();
    gui::MainWindow window;
    window.setInteractive(false);
    window.show();
    QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
    QSignalSpy laidOut(window.graphView(), &GraphView::layoutFinished);
    window.openFile(path);
    ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 1 && laidOut.count() >= 1; }, 60000));
    std::vector<std::string> labels;
    for (const ActivitySpan &s : activitiesDuring(t0, activityClockMs()))
        labels.push_back(s.label);
    for (const char *expected : {"workbench: show model", "graph view: set graph", "graph view: apply layout"})
        EXPECT_NE(std::find(labels.begin(), labels.end(), expected), labels.end()) << expected;
}

} // namespace

int main(int argc, char **argv)
{
    return tessera::test::runWidgetTests(argc, argv, "tst_stallwatchdog");
}
