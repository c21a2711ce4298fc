// bench_stalls: how long the workbench's GUI thread stalls (issue 19, item 4).
//
// Drives the real MainWindow (offscreen unless QT_QPA_PLATFORM is set) with a
// StallWatchdog (app/gui/stallwatchdog.h, 50 ms threshold) running through
// each scenario, and reports per scenario the longest stall, the number of
// stalls over 50 ms and what the longest one was blamed on:
//   open ResNet-50 (the sample, scheduled by the default algorithm);
//   open a generated 20,000-node graph (20 stages × 10 blocks × 100 ops);
//   open NasNet-A and schedule it with IOS on nvidia-v100;
//   replay an override of one of its decisions;
//   run the plan on the reference backend;
// then how long cancelling a long task takes (from cancel() to the failed
// signal): an IOS schedule of NasNet-A and a reference-backend run.
// Exit status 1 when a stall exceeds --limit (100 ms) or a cancel takes
// longer than 100 ms. The machine's load is printed with the numbers: on a
// loaded machine a stall is mostly the GUI thread waiting for a core, which
// a profile shows (BENCH_STALLS_TIMES=1 prints each stall's start on the
// monotonic clock, to match `perf record -k CLOCK_MONOTONIC`).
#include "app/gui/mainwindow.h"
#include "app/gui/modelloader.h"
#include "app/gui/runcontroller.h"
#include "app/gui/schedulecontroller.h"
#include "app/gui/stallwatchdog.h"
#include "core/onnx/modelbuilder.h"
#include "views/widgets/graphview.h"
#include "views/widgets/runpanel.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cstdio>
#include <functional>
#include <onnx/onnx_pb.h>
#include <string>
#include <vector>

#include "bench/biggraph.h"
#include "bench/eventwait.h"

using namespace tessera;
using gui::MainWindow;
using gui::StallWatchdog;

namespace {

using test::spin;
using test::waitUntil;

constexpr int kTimeoutMs = 300000;

struct Row {
    std::string scenario;
    double wallMs = 0;
    double longestMs = 0;
    std::size_t stalls = 0;
    std::string blamed;
    bool ok = true;
};

class Bench
{
public:
    explicit Bench(double limitMs) : m_limitMs(limitMs) {}

    // Runs `drive` (which starts work) with the watchdog on, until `done`.
    void scenario(const std::string &name, const std::function<void()> &drive, const std::function<bool()> &done)
    {
        StallWatchdog dog;
        QElapsedTimer wall;
        wall.start();
        dog.start();
        drive();
        const bool finished = waitUntil(done, kTimeoutMs);
        spin(200); // paint what finished
        dog.stop();
        Row r{name, static_cast<double>(wall.elapsed()), dog.longestStallMs(), dog.stalls().size(), "", finished};
        for (const gui::Stall &s : dog.stalls()) {
            if (s.durationMs == r.longestMs)
                r.blamed = gui::describeStall(s).toStdString();
            if (qEnvironmentVariableIsSet("BENCH_STALLS_TIMES")) // to match a profile (perf -k CLOCK_MONOTONIC)
                std::fprintf(stderr, "stall at %.3f s for %.0f ms\n", s.startMs / 1000, s.durationMs);
        }
        if (!finished)
            r.blamed = "did not finish in time";
        m_rows.push_back(r);
    }

    // Starts a task, cancels it 100 ms later and times cancel() → `failedSignal`.
    void cancel(const std::string &name, const std::function<void()> &start, const std::function<void()> &stop,
                const std::function<bool()> &busy, QObject *sender, const char *failedSignal)
    {
        QSignalSpy failed(sender, failedSignal);
        start();
        spin(100); // let it get going
        if (!busy()) {
            m_cancels.push_back({name + " (finished within 100 ms: nothing to cancel)", 0, true});
            return;
        }
        QElapsedTimer t;
        t.start();
        stop();
        const bool ended = waitUntil([&] { return failed.count() >= 1; }, kTimeoutMs);
        m_cancels.push_back({name, static_cast<double>(t.nsecsElapsed()) / 1e6, ended});
    }

    int report() const
    {
        double load[3] = {0, 0, 0};
        if (QFile f(QStringLiteral("/proc/loadavg")); f.open(QIODevice::ReadOnly))
            std::sscanf(f.readAll().constData(), "%lf %lf %lf", &load[0], &load[1], &load[2]);
        std::printf("load average at the end: %.2f %.2f %.2f\n\n", load[0], load[1], load[2]);
        std::printf("| scenario | wall | longest stall | stalls > 50 ms | longest blamed on |\n");
        std::printf("| --- | ---: | ---: | ---: | --- |\n");
        int status = 0;
        for (const Row &r : m_rows) {
            const bool over = r.longestMs > m_limitMs || !r.ok;
            status |= over;
            std::printf("| %s | %.0f ms | %s%.0f ms%s | %zu | %s |\n", r.scenario.c_str(), r.wallMs, over ? "**" : "",
                        r.longestMs, over ? "**" : "", r.stalls, r.blamed.empty() ? "–" : r.blamed.c_str());
        }
        std::printf("\n| cancel | cancel → failed signal |\n| --- | ---: |\n");
        for (const auto &c : m_cancels) {
            const bool over = c.ms > 100 || !c.ended;
            status |= over;
            std::printf("| %s | %s%.1f ms%s |\n", c.name.c_str(), over ? "**" : "", c.ms, over ? "**" : "");
        }
        return status;
    }

private:
    struct Cancel {
        std::string name;
        double ms;
        bool ended;
    };
    double m_limitMs;
    std::vector<Row> m_rows;
    std::vector<Cancel> m_cancels;
};

} // namespace

int main(int argc, char **argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir home;
    qputenv("XDG_CACHE_HOME", home.filePath("cache").toUtf8());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TesseraBench"));
    QApplication::setApplicationName(QStringLiteral("bench_stalls"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, home.filePath("settings"));
    double limitMs = 100;
    for (int i = 1; i + 1 < argc; ++i)
        if (QByteArray(argv[i]) == "--limit")
            limitMs = QByteArray(argv[i + 1]).toDouble();

    const QString bigPath = home.filePath("dag-20k.onnx");
    if (!test::writeBigGraph(bigPath, 20, 10, 100))
        return 2;

    MainWindow w;
    w.setInteractive(false);
    w.resize(1440, 900);
    w.show();
    auto *schedule = w.scheduleController();
    Bench bench(limitMs);

    {
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        bench.scenario(
            "open ResNet-50 (sample, default schedule)", [&] { w.openSample(QStringLiteral("resnet50")); },
            [&] { return loaded.count() >= 1 && schedule->lastRun() && !schedule->isBusy(); });
    }
    {
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        QSignalSpy laidOut(w.graphView(), &GraphView::layoutFinished);
        bench.scenario(
            "open a 20,000-node graph", [&] { w.openFile(bigPath); },
            [&] { return loaded.count() >= 1 && laidOut.count() >= 1 && !schedule->isBusy(); });
    }
    w.deviceCombo()->setCurrentIndex(w.deviceCombo()->findData(QStringLiteral("nvidia-v100")));
    w.algorithmCombo()->setCurrentIndex(w.algorithmCombo()->findData(QStringLiteral("ios")));
    {
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        bench.scenario(
            "open NasNet-A, schedule with IOS", [&] { w.openSample(QStringLiteral("nasnet-a")); },
            [&] {
                return loaded.count() >= 1 && schedule->lastRun() &&
                       schedule->lastRun()->result.plan.algorithm == "ios" && !schedule->isBusy();
            });
    }
    // An override of the first decision with a legal alternative.
    std::string key, option;
    if (const auto run = schedule->lastRun())
        for (const DecisionRecord &d : run->decisions.records()) {
            for (std::size_t i = 0; i < d.options.size() && key.empty(); ++i)
                if (static_cast<std::int32_t>(i) != d.chosen && d.options[i].legal()) {
                    key = d.key;
                    option = d.options[i].id;
                }
            if (!key.empty())
                break;
        }
    if (!key.empty()) {
        QSignalSpy replayed(schedule, &gui::ScheduleController::finished);
        bench.scenario(
            "replay an override (NasNet-A, IOS)", [&] { schedule->setOverride(key, option); },
            [&] { return replayed.count() >= 1 && !schedule->isBusy(); });
    }
    {
        QSignalSpy ran(w.runPanel(), &views::RunPanel::runFinished);
        w.runPanel()->selectBackend(QStringLiteral("reference"));
        bench.scenario(
            "run NasNet-A's plan on the reference backend", [&] { w.runPanel()->run(); },
            [&] { return ran.count() >= 1; });
    }
    bench.cancel(
        "IOS schedule of NasNet-A",
        [&] {
            schedule->clearOverrides();
            schedule->runNow();
        },
        [&] { schedule->cancel(); }, [&] { return schedule->isRunning(); }, schedule, SIGNAL(failed(QString)));
    waitUntil([&] { return !schedule->isBusy(); }, kTimeoutMs);
    schedule->runNow();
    waitUntil([&] { return !schedule->isBusy(); }, kTimeoutMs);
    bench.cancel(
        "reference-backend run of NasNet-A", [&] { w.runPanel()->run(); }, [&] { w.runPanel()->cancel(); },
        [&] { return w.runController()->isRunning(); }, w.runController(), SIGNAL(failed(QString)));
    return bench.report();
}
