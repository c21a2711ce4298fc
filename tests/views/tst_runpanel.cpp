// Running a plan from the workbench: RunController compiles and runs a
// layer-fusion plan of a residual chain on the reference backend off the GUI
// thread and its outputs equal a direct IBackend run bit for bit; progress is
// throttled; cancelling ResNet-50 mid-run ends with failed("cancelled") and
// leaves RunPanel usable; a newer run supersedes an older one; no plan, an
// unavailable backend and an op the backend cannot run are messages in the
// panel. RunTimeline's binning and hit testing are checked on data, the
// models under QAbstractItemModelTester. Screenshot: screenshots/runpanel.png.
#include "app/gui/runcontroller.h"
#include "app/registerbuiltins.h"
#include "backends/reference/reference.h"
#include "core/backend/inputs.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/session.h"
#include "samples/catalog.h"
#include "views/models/runresultmodel.h"
#include "views/widgets/runpanel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTest>
#include <QThread>

#include <atomic>
#include <cstring>
#include <onnx/onnx_pb.h>

#include "tests/common/screenshots.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
using namespace tessera::views;
using tessera::gui::RunController;

namespace {

using testshots::screenshotPath;

// A backend that is registered but not present on this machine.
class AbsentBackend final : public IBackend
{
public:
    const BackendInfo &info() const override { return m_info; }
    bool supports(const Graph &, const Node &) const override { return false; }
    Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &, const ExecutionPlan &) override
    {
        return Status::error(ErrorCode::Unavailable, "absent");
    }
    Expected<RunResult> run(CompiledPlan &, const std::vector<HostTensor> &, const RunObserver &) override
    {
        return Status::error(ErrorCode::Unavailable, "absent");
    }

private:
    BackendInfo m_info{"warp", "Warp drive", "a backend nobody has", false, "no warp coil: the test says so"};
};

// Forwards to another backend and records the threads compile and run ran on.
class ThreadProbe final : public IBackend
{
public:
    explicit ThreadProbe(IBackend &inner) : m_inner(inner) {}
    const BackendInfo &info() const override { return m_inner.info(); }
    bool supports(const Graph &g, const Node &n) const override { return m_inner.supports(g, n); }
    Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &g, const ExecutionPlan &plan) override
    {
        compileThread = QThread::currentThread();
        return m_inner.compile(g, plan);
    }
    Expected<RunResult> run(CompiledPlan &compiled, const std::vector<HostTensor> &inputs,
                            const RunObserver &observer) override
    {
        runThread = QThread::currentThread();
        return m_inner.run(compiled, inputs, observer);
    }
    std::atomic<QThread *> compileThread{nullptr}, runThread{nullptr};

private:
    IBackend &m_inner;
};

struct Planned {
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const ScheduleRun> run;
    std::shared_ptr<const ExecutionPlan> plan() const { return {run, &run->result.plan}; }
};

bool sameOutputs(const std::vector<HostTensor> &a, const std::vector<HostTensor> &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || a[i].dtype != b[i].dtype || a[i].shape != b[i].shape || a[i].bytes != b[i].bytes)
            return false;
    return true;
}

std::shared_ptr<const RunResult> resultOf(const QSignalSpy &spy)
{
    return spy.isEmpty() ? nullptr : spy.last().at(0).value<std::shared_ptr<const RunResult>>();
}

// A run panel with the app's RunController answering its requests, as in the workbench.
struct PanelRig {
    RunController controller;
    RunPanel panel{controller.state()};
};

} // namespace

class TestRunPanel : public QObject
{
    Q_OBJECT

    SchedulerRegistry m_schedulers;
    BackendRegistry m_backends;
    Device m_device;
    Planned m_small;  // residual chain, layer fusion
    Planned m_resnet; // ResNet-50 at 128×128, layer fusion

    Expected<Planned> schedule(Graph g, const std::string &algorithm)
    {
        auto scheduler = m_schedulers.get(algorithm);
        if (!scheduler)
            return scheduler.status();
        auto graph = std::make_shared<const Graph>(std::move(g));
        auto run = scheduleGraph(*graph, m_device, **scheduler, {});
        if (!run)
            return run.status();
        return Planned{graph, std::make_shared<const ScheduleRun>(std::move(*run))};
    }

    IBackend *reference() const { return m_backends.find("reference"); }

    static std::unique_ptr<QAbstractItemModelTester> tester(QAbstractItemModel *model)
    {
        return std::make_unique<QAbstractItemModelTester>(model,
                                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
    }

    // Runs the panel's current plan and waits for the result.
    std::shared_ptr<const RunResult> runPanel(RunPanel &panel, int timeoutMs = 60000)
    {
        QSignalSpy finished(&panel, &RunPanel::runFinished);
        if (!panel.run())
            return nullptr;
        if (!finished.wait(timeoutMs))
            return nullptr;
        return resultOf(finished);
    }

private slots:
    void initTestCase()
    {
        registerBuiltinSchedulers(m_schedulers);
        registerReferenceBackend(m_backends); // then the absent one: the picker's rows 0 and 1
        m_backends.add(std::make_unique<AbsentBackend>());
        auto device = DeviceRegistry::standard().lookup("host");
        QVERIFY2(device, device.status().str().c_str());
        m_device = *device;

        auto small = schedule(testgraphs::residualChain(3), "layer-fusion");
        QVERIFY2(small, small.status().str().c_str());
        m_small = *small;

        samples::SampleOptions o;
        o.imageSize = 128;
        auto model = samples::buildSample("resnet50", o);
        QVERIFY2(model, model.status().str().c_str());
        auto imported = importModelFromBytes((*model)->SerializeAsString(), "resnet50.onnx");
        QVERIFY2(imported, imported.status().str().c_str());
        auto resnet = schedule(std::move(imported->graph), "layer-fusion");
        QVERIFY2(resnet, resnet.status().str().c_str());
        m_resnet = *resnet;
        QVERIFY(m_resnet.run->result.plan.tasks.size() > 50);
    }

    // --- RunController ---------------------------------------------------------------------

    void controllerOutputsEqualADirectRun()
    {
        const auto inputs = syntheticInputs(*m_small.graph, 1);
        auto compiled = reference()->compile(*m_small.graph, *m_small.plan());
        QVERIFY2(compiled, compiled.status().str().c_str());
        auto direct = reference()->run(**compiled, inputs);
        QVERIFY2(direct, direct.status().str().c_str());

        ThreadProbe probe(*reference());
        RunController c;
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy progress(&c, &RunController::progress);
        QSignalSpy finished(&c, &RunController::finished);
        QSignalSpy failed(&c, &RunController::failed);
        c.start(&probe, m_small.graph, m_small.plan(), inputs);
        QVERIFY(c.isRunning());
        QCOMPARE(started.count(), 1);
        QVERIFY(finished.wait(20000));
        QVERIFY(failed.isEmpty());
        const auto result = resultOf(finished);
        QVERIFY(result);
        QVERIFY(sameOutputs(result->outputs, direct->outputs));
        QCOMPARE(c.lastResult(), result);
        const int total = static_cast<int>(m_small.run->result.plan.tasks.size());
        QCOMPARE(result->timeline.size(), std::size_t(total));
        // Progress: starts at 0, never exceeds the total, ends with every task done.
        QVERIFY(progress.count() >= 2);
        QCOMPARE(progress.first().at(0).toInt(), 0);
        QCOMPARE(progress.last().at(0).toInt(), total);
        for (const auto &args : progress)
            QVERIFY(args.at(0).toInt() <= args.at(1).toInt() && args.at(1).toInt() == total);
        QCOMPARE(c.tasksDone(), total);
        QVERIFY(!c.isRunning());
        // Compiled and ran on the thread pool, never on the GUI thread.
        QVERIFY(probe.compileThread.load() && probe.runThread.load());
        QVERIFY(probe.compileThread.load() != QThread::currentThread());
        QVERIFY(probe.runThread.load() != QThread::currentThread());
    }

    void controllerRejectsMissingArguments()
    {
        RunController c;
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy failed(&c, &RunController::failed);
        c.start(nullptr, m_small.graph, m_small.plan(), {});
        c.start(reference(), m_small.graph, nullptr, {});
        QCOMPARE(failed.count(), 2);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("no backend selected"));
        QCOMPARE(failed.at(1).at(0).toString(), QStringLiteral("no plan to run: schedule the model first"));
        QVERIFY(started.isEmpty());
        QVERIFY(!c.isRunning());
    }

    void controllerReportsAnUnsupportedOp()
    {
        Graph g;
        g.name = "mystery";
        const TensorId x = testgraphs::tensor(g, "x", {1, 4}, Tensor::Kind::Input);
        g.inputs = {x};
        const TensorId r = testgraphs::op(g, "relu", "Relu", {x}, {1, 4});
        g.outputs = {testgraphs::op(g, "frob", "Frobnicate", {r}, {1, 4})};
        g.node(g.findNode("frob")).opaque = true;
        auto planned = schedule(std::move(g), "sequential");
        QVERIFY2(planned, planned.status().str().c_str());
        RunController c;
        QSignalSpy finished(&c, &RunController::finished);
        QSignalSpy failed(&c, &RunController::failed);
        c.start(reference(), planned->graph, planned->plan(), syntheticInputs(*planned->graph));
        QVERIFY(failed.wait(10000));
        QCOMPARE(failed.last().at(0).toString(),
                 QStringLiteral("the reference backend cannot run 1 node: 'frob' (Frobnicate)"));
        QVERIFY(finished.isEmpty());

        // The panel shows it and stays usable.
        PanelRig rig;
        RunPanel &panel = rig.panel;
        panel.setBackends(&m_backends);
        panel.setPlan(planned->graph, planned->run);
        QSignalSpy panelFailed(&rig.controller, &RunController::failed);
        QVERIFY(panel.run());
        QVERIFY(panelFailed.wait(10000));
        QVERIFY2(panel.statusText().startsWith(QStringLiteral("Run failed: the reference backend cannot run 1 node")),
                 qPrintable(panel.statusText()));
        QVERIFY(panel.runButton()->isEnabled());
        QVERIFY(!panel.cancelButton()->isEnabled());
        QVERIFY(!panel.lastResult());
    }

    void controllerThrottlesProgress()
    {
        RunController c;
        c.setProgressInterval(200);
        QSignalSpy progress(&c, &RunController::progress);
        QSignalSpy finished(&c, &RunController::finished);
        QElapsedTimer clock;
        clock.start();
        c.start(reference(), m_resnet.graph, m_resnet.plan(), syntheticInputs(*m_resnet.graph));
        QVERIFY(finished.wait(120000));
        const qint64 ms = clock.elapsed();
        const int total = static_cast<int>(m_resnet.run->result.plan.tasks.size());
        // One report at start, the last task, and at most one per 200 ms in between.
        QVERIFY2(
            progress.count() <= 2 + ms / 200 + 1,
            qPrintable(QStringLiteral("%1 reports in %2 ms for %3 tasks").arg(progress.count()).arg(ms).arg(total)));
        QVERIFY(progress.count() < total);
        QCOMPARE(progress.last().at(0).toInt(), total);
    }

    void newerRunSupersedesOlder()
    {
        RunController c;
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        QSignalSpy failed(&c, &RunController::failed);
        c.start(reference(), m_resnet.graph, m_resnet.plan(), syntheticInputs(*m_resnet.graph));
        const quint64 first = c.generation();
        c.start(reference(), m_small.graph, m_small.plan(), syntheticInputs(*m_small.graph));
        QVERIFY(c.generation() > first);
        QVERIFY(finished.wait(60000));
        QTest::qWait(50);
        QCOMPARE(finished.count(), 1); // the ResNet result was dropped
        QVERIFY(failed.isEmpty());
        QCOMPARE(started.count(), 2);
        const auto result = resultOf(finished);
        QCOMPARE(result->outputs.size(), m_small.graph->outputs.size());
        QCOMPARE(result->outputs[0].shape, (Shape{1, 8, 16, 16}));
        QCOMPARE(c.tasksTotal(), static_cast<int>(m_small.run->result.plan.tasks.size()));
    }

    // --- RunPanel --------------------------------------------------------------------------

    void panelWithoutPlanSaysSo()
    {
        PanelRig rig;
        RunPanel &panel = rig.panel;
        panel.setBackends(&m_backends);
        QVERIFY(!panel.runButton()->isEnabled());
        QVERIFY2(panel.statusText().startsWith(QStringLiteral("No plan yet")), qPrintable(panel.statusText()));
        panel.resize(1280, 300);
        QVERIFY(panel.grab().toImage().save(screenshotPath(QStringLiteral("runpanel-noplan.png"))));
        QSignalSpy started(&rig.controller, &RunController::started);
        QVERIFY(!panel.run());
        QVERIFY2(panel.statusText().contains(QStringLiteral("schedule the model first")),
                 qPrintable(panel.statusText()));
        QVERIFY(started.isEmpty());
        // A graph without a schedule is still no plan.
        panel.setPlan(m_small.graph, nullptr);
        QVERIFY(!panel.run());
        QVERIFY(!panel.runButton()->isEnabled());
        // And the plan arriving makes the panel ready.
        panel.setPlan(m_small.graph, m_small.run);
        QVERIFY(panel.runButton()->isEnabled());
        QVERIFY2(panel.statusText().startsWith(QStringLiteral("Ready:")), qPrintable(panel.statusText()));
    }

    void pickerDisablesUnavailableBackends()
    {
        PanelRig rig;
        RunPanel &panel = rig.panel;
        panel.setBackends(&m_backends);
        QComboBox *box = panel.backendBox();
        QCOMPARE(box->count(), 2);
        QCOMPARE(panel.selectedBackend(), QStringLiteral("reference"));
        auto *model = qobject_cast<QStandardItemModel *>(box->model());
        QVERIFY(model);
        QVERIFY(model->item(0)->isEnabled());
        QVERIFY(!model->item(1)->isEnabled());
        QVERIFY(model->item(1)->toolTip().contains(QStringLiteral("no warp coil: the test says so")));
        QVERIFY(!panel.selectBackend(QStringLiteral("warp")));
        QVERIFY(!panel.selectBackend(QStringLiteral("nope")));
        QCOMPARE(panel.selectedBackend(), QStringLiteral("reference"));

        // Only an unavailable backend: nothing to run on, said plainly.
        BackendRegistry onlyAbsent;
        onlyAbsent.add(std::make_unique<AbsentBackend>());
        PanelRig emptyRig;
        RunPanel &empty = emptyRig.panel;
        empty.setBackends(&onlyAbsent);
        empty.setPlan(m_small.graph, m_small.run);
        QVERIFY(!empty.runButton()->isEnabled());
        QVERIFY2(empty.statusText().contains(QStringLiteral("No available backend")), qPrintable(empty.statusText()));
        QVERIFY(!empty.run());
        PanelRig noneRig;
        RunPanel &none = noneRig.panel;
        none.setPlan(m_small.graph, m_small.run);
        QVERIFY2(none.statusText().contains(QStringLiteral("No backends")), qPrintable(none.statusText()));
    }

    void panelRunShowsResults()
    {
        PanelRig rig;
        RunPanel &panel = rig.panel;
        auto t1 = tester(panel.metricsModel());
        auto t2 = tester(panel.outputsModel());
        panel.setBackends(&m_backends);
        panel.setPlan(m_small.graph, m_small.run);
        const auto result = runPanel(panel);
        QVERIFY(result);
        QCOMPARE(panel.lastResult(), result);
        QVERIFY2(panel.statusText().contains(QStringLiteral("measured on Reference (CPU)")),
                 qPrintable(panel.statusText()));
        QVERIFY(panel.statusText().contains(QStringLiteral("estimated for host")));
        // Metrics: run-wide rows first, then op time largest first.
        RunMetricsModel *m = panel.metricsModel();
        QCOMPARE(m->index(0, 0).data(RunMetricsModel::KeyRole).toString(), QStringLiteral("total_ms"));
        QCOMPARE(m->rowCount(), static_cast<int>(result->metrics.size()));
        const int conv = m->rowOfKey(QStringLiteral("op_ms/Conv"));
        QVERIFY(conv > m->rowOfKey(QStringLiteral("weight_bytes")));
        QVERIFY(m->index(conv, RunMetricsModel::ShareColumn).data().toString().endsWith(QStringLiteral(" %")));
        QCOMPARE(m->index(m->rowOfKey(QStringLiteral("tasks")), RunMetricsModel::ValueColumn).data().toString(),
                 QString::number(result->timeline.size()));
        const int peak = m->rowOfKey(QStringLiteral("peak_host_bytes"));
        QVERIFY(m->index(peak, RunMetricsModel::ValueColumn).data().toString().contains(QStringLiteral("iB")));
        QCOMPARE(m->rowOfKey(QStringLiteral("nope")), -1);
        // Outputs: the checksum is the CLI's float sum.
        RunOutputsModel *o = panel.outputsModel();
        QCOMPARE(o->rowCount(), 1);
        double sum = 0;
        for (std::int64_t k = 0; k < result->outputs[0].elements(); ++k)
            sum += result->outputs[0].f32()[k];
        QCOMPARE(o->index(0, RunOutputsModel::SumColumn).data(RunOutputsModel::SumRole).toDouble(), sum);
        QCOMPARE(o->index(0, RunOutputsModel::ShapeColumn).data().toString(), QStringLiteral("1×8×16×16"));
        QVERIFY(o->index(0, RunOutputsModel::ValuesColumn).data().toString().endsWith(QStringLiteral("…")));
        // Timeline: every task once, with a tooltip naming it.
        const RunTimeline &tl = panel.timelineStrip()->timeline();
        QCOMPARE(tl.taskCount(), static_cast<int>(result->timeline.size()));
        // Negative twin of a stale result: a new plan keeps the tables, says so.
        panel.setPlan(m_resnet.graph, m_resnet.run);
        QVERIFY2(panel.statusText().contains(QStringLiteral("earlier plan")), qPrintable(panel.statusText()));
        QCOMPARE(panel.lastResult(), result);
    }

    void cancelMidRunLeavesThePanelUsable()
    {
        PanelRig rig;
        RunPanel &panel = rig.panel;
        panel.setBackends(&m_backends);
        panel.setPlan(m_resnet.graph, m_resnet.run);
        QSignalSpy progress(&rig.controller, &RunController::progress);
        QSignalSpy failed(&rig.controller, &RunController::failed);
        QSignalSpy finished(&panel, &RunPanel::runFinished);
        // Cancel at the first report of a finished task, as a user clicking at once would.
        bool clicked = false;
        connect(&rig.controller, &RunController::progress, &panel, [&](int done, int) {
            if (done == 0 || clicked)
                return;
            clicked = true;
            panel.resize(1280, 420);
            panel.grab().toImage().save(screenshotPath(QStringLiteral("runpanel-running.png")));
            QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
        });
        QVERIFY(panel.run());
        QVERIFY(panel.cancelButton()->isEnabled());
        QVERIFY(!panel.backendBox()->isEnabled());
        QVERIFY(failed.wait(60000));
        QVERIFY(clicked);
        QCOMPARE(failed.last().at(0).toString(), QStringLiteral("cancelled"));
        QVERIFY(finished.isEmpty());
        const int total = static_cast<int>(m_resnet.run->result.plan.tasks.size());
        QVERIFY(rig.controller.tasksDone() < total);
        QVERIFY2(panel.statusText().startsWith(QStringLiteral("Run cancelled after")), qPrintable(panel.statusText()));
        QVERIFY(!panel.cancelButton()->isEnabled());
        QVERIFY(panel.runButton()->isEnabled());
        QVERIFY(panel.backendBox()->isEnabled());
        // Usable again: the next run completes.
        panel.setPlan(m_small.graph, m_small.run);
        QVERIFY(runPanel(panel));
        QVERIFY(panel.statusText().contains(QStringLiteral("measured")));
        // Negative twin: cancel with nothing running changes nothing.
        panel.cancel();
        QTest::qWait(20);
        QCOMPARE(failed.count(), 1);
    }

    void destroyingAPanelMidRunIsSafe()
    {
        auto rig = std::make_unique<PanelRig>();
        RunPanel *panel = &rig->panel;
        panel->setBackends(&m_backends);
        panel->setPlan(m_resnet.graph, m_resnet.run);
        QVERIFY(panel->run());
        QVERIFY(panel->isRunning());
        QElapsedTimer clock;
        clock.start();
        rig.reset(); // the panel, then the controller: cancels and waits for the worker
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        QTest::qWait(20); // no late progress is delivered anywhere
    }

    // --- RunTimeline (pure data) -----------------------------------------------------------

    void timelineMergesNarrowTasksPerPixel()
    {
        // 10 000 back-to-back 1 µs tasks on lane 0 and two wide ones on lane 3.
        std::vector<TaskTiming> timing;
        for (int i = 0; i < 10000; ++i) // every 100th task is a short copy
            timing.push_back({i, i * 1000.0, i * 1000.0 + (i % 100 == 0 ? 500 : 1000), 0});
        timing.push_back({10000, 0, 5e6, 3});
        timing.push_back({10001, 5e6, 10e6, 3});
        ExecutionPlan plan;
        for (int i = 0; i < 10002; ++i) {
            Task t;
            t.kind = i % 100 == 0 ? TaskKind::Copy : TaskKind::Compute;
            plan.addTask(t);
        }
        const RunTimeline tl(timing, &plan);
        QCOMPARE(tl.laneCount(), 2);
        QCOMPARE(tl.laneId(1), 3);
        QCOMPARE(tl.taskCount(), 10002);
        QCOMPARE(tl.spanNs(), 10e6);
        const auto segs = tl.segments(0, 0, tl.spanNs(), 100);
        QVERIFY(segs.size() <= 100);
        int covered = 0;
        for (const auto &s : segs) {
            QVERIFY(s.x0 >= 0 && s.x1 <= 100 && s.x1 > s.x0);
            QCOMPARE(s.kind, TaskKind::Compute); // a short copy never dominates its column
            covered += s.count;
        }
        QCOMPARE(covered, 10000);
        const auto wide = tl.segments(1, 0, tl.spanNs(), 100);
        QCOMPARE(wide.size(), std::size_t{2});
        QCOMPARE(wide[0].x0, 0);
        QCOMPARE(wide[0].x1, 50);
        QCOMPARE(wide[1].x1, 100);
        // A window shows only its tasks.
        const auto window = tl.segments(0, 2e6, 3e6, 1000);
        int inWindow = 0;
        for (const auto &s : window)
            inWindow += s.count;
        QVERIFY(inWindow >= 1000 && inWindow <= 1002);
        // Hit testing: covering task, nearest within tolerance, nothing beyond it.
        QCOMPARE(tl.taskAt(0, 2500.0, 0), 2);
        QCOMPARE(tl.taskAt(1, 7e6, 0), 1);
        QCOMPARE(tl.lane(0)[static_cast<std::size_t>(tl.taskAt(0, 100, 0))].kind, TaskKind::Copy);
        QCOMPARE(tl.taskAt(0, 10.5e6, 1e6), 9999);
        QCOMPARE(tl.taskAt(0, 700, 0), -1); // the gap after the short copy
        QCOMPARE(tl.taskAt(0, 700, 250), 0);
        QCOMPARE(tl.taskAt(0, 12e6, 1e6), -1);
        // Negative twins: bad lanes, empty widths and windows.
        QCOMPARE(tl.taskAt(7, 0, 0), -1);
        QVERIFY(tl.segments(5, 0, 1, 10).empty());
        QVERIFY(tl.segments(0, 0, tl.spanNs(), 0).empty());
        QVERIFY(tl.segments(0, 5, 5, 10).empty());
        // Timings for tasks the plan lacks are Compute; negative times are clamped.
        const RunTimeline odd({{42, -5, -1, 0}}, &plan);
        QCOMPARE(odd.lane(0)[0].startNs, 0.0);
        QCOMPARE(odd.lane(0)[0].endNs, 0.0);
        QVERIFY(RunTimeline({}, nullptr).empty());
    }

    // Issue 18: a task clicked on the run's timeline outlines its nodes in the
    // graph (through the state); a click beside every task outlines nothing.
    void clickingATaskHighlightsItsNodes()
    {
        PanelRig rig;
        RunPanel &panel = rig.panel;
        panel.setBackends(&m_backends);
        panel.setPlan(m_small.graph, m_small.run);
        panel.resize(1000, 400);
        panel.show();
        QVERIFY(runPanel(panel));
        RunTimelineStrip *strip = panel.timelineStrip();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const ExecutionPlan &plan = m_small.run->result.plan;
        QPoint hit(-1, -1);
        for (int x = 0; x < strip->width() && hit.x() < 0; x += 3)
            for (int y = 0; y < strip->height() && hit.x() < 0; y += 3)
                if (strip->entryAt(QPoint(x, y)).first >= 0)
                    hit = QPoint(x, y);
        QVERIFY(hit.x() >= 0);
        const auto [lane, index] = strip->entryAt(hit);
        const TaskId task = strip->timeline().lane(lane)[static_cast<std::size_t>(index)].task;
        const Kernel &kernel =
            plan.kernels[static_cast<std::size_t>(plan.tasks[static_cast<std::size_t>(task)].kernel)];
        QSignalSpy clicked(strip, &RunTimelineStrip::taskClicked);
        QTest::mouseClick(strip, Qt::LeftButton, {}, QPoint(2, 2)); // the legend
        QCOMPARE(clicked.count(), 0);
        QVERIFY(rig.controller.state()->highlighted().empty());
        QTest::mouseClick(strip, Qt::LeftButton, {}, hit);
        QCOMPARE(clicked.count(), 1);
        std::vector<NodeId> shown = rig.controller.state()->highlighted();
        std::vector<NodeId> expected = kernel.nodes;
        std::sort(shown.begin(), shown.end());
        std::sort(expected.begin(), expected.end());
        QVERIFY(!shown.empty());
        QVERIFY(std::includes(expected.begin(), expected.end(), shown.begin(), shown.end()));
    }

    void stripPaintsThousandsOfTasksQuickly()
    {
        auto result = std::make_shared<RunResult>();
        for (int i = 0; i < 20000; ++i)
            result->timeline.push_back({i, i * 100.0, i * 100.0 + 90, i % 4});
        RunTimelineStrip strip;
        strip.resize(1200, strip.sizeHint().height());
        strip.setResult(result, nullptr);
        for (int i = 0; i < 5; ++i)
            strip.grab();
        QVERIFY(strip.toolTipAt(QPoint(strip.width() / 2, strip.height() / 2)).contains(QStringLiteral("task ")));
        QVERIFY(strip.toolTipAt(QPoint(2, 2)).isEmpty()); // the legend, not a task
        strip.setResult(nullptr, nullptr);
        QVERIFY(strip.toolTipAt(QPoint(strip.width() / 2, strip.height() / 2)).isEmpty());
    }

    void digestsAndMetricFormats()
    {
        QCOMPARE(formatRunMetric("total_ms", 12.34), QStringLiteral("12.34 ms"));
        QCOMPARE(formatRunMetric("op_ms/Conv", 0.5), QStringLiteral("500.0 µs"));
        QCOMPARE(formatRunMetric("peak_host_bytes", 2048), QStringLiteral("2.00 KiB"));
        QCOMPARE(formatRunMetric("tasks", 42), QStringLiteral("42"));
        HostTensor ids{"ids", DType::Int64, {3}, std::vector<std::uint8_t>(24)};
        const std::int64_t v[] = {7, -1, 40};
        std::memcpy(ids.bytes.data(), v, 24);
        const TensorDigest d = digestTensor(ids, 2);
        QCOMPARE(d.sum, 46.0);
        QCOMPARE(d.preview, QStringLiteral("7, -1, …"));
        HostTensor nan{"n", DType::Float32, {2}, std::vector<std::uint8_t>(8)};
        nan.f32()[0] = std::nanf("");
        nan.f32()[1] = 2;
        QCOMPARE(digestTensor(nan).nonFinite, std::int64_t{1});
        QCOMPARE(digestTensor(nan).sum, 2.0);
        // Negative twins: bytes that do not match the type, and a string tensor.
        HostTensor shortT{"s", DType::Float32, {4}, std::vector<std::uint8_t>(8)};
        QVERIFY(std::isnan(digestTensor(shortT).sum));
        QCOMPARE(digestTensor(shortT).preview, QStringLiteral("(no values)"));
        HostTensor str{"str", DType::String, {1}, {}};
        QVERIFY(std::isnan(digestTensor(str).sum));
    }

    // --- Screenshot ------------------------------------------------------------------------

    void screenshotAfterARun()
    {
        PanelRig rig;
        RunPanel &panel = rig.panel;
        panel.setBackends(&m_backends);
        panel.setPlan(m_resnet.graph, m_resnet.run);
        panel.resize(1280, 420);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(runPanel(panel, 120000));
        QTest::qWait(50);
        const QImage shot = panel.grab().toImage();
        QVERIFY(!shot.isNull());
        const QString path = screenshotPath(QStringLiteral("runpanel.png"));
        QVERIFY2(shot.save(path), qPrintable(path));
        qInfo("screenshot: %s", qPrintable(path));
    }
};

QTEST_MAIN(TestRunPanel)
#include "tst_runpanel.moc"
