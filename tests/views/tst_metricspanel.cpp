// The Metrics dock and the run's Gantt (issue 12 item 4): RunCharts on
// hand-made runs (one series per level and unit kind, binning by maximum and
// time-weighted mean, throughput so far ending at the run's throughput),
// UpdateThrottle's bound, the streamed run so far (appendIncrement and
// RunController's ≤ 10 Hz posts), MetricsPanel's empty states and rate limit,
// the Gantt's lane names, zoom, pan and tooltips, Pause / Resume, and a
// simulated run of SqueezeNet on STCP920 drawn while it goes and after it.
// Screenshots: screenshots/metrics-{live,after,small}.png and
// screenshots/gantt-{live,after,zoomed}.png.
#include "app/gui/runcontroller.h"
#include "app/registerbuiltins.h"
#include "core/backend/inputs.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/session.h"
#include "views/models/runcharts.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/metricspanel.h"
#include "views/widgets/runpanel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <chrono>
#include <onnx/onnx_pb.h>
#include <thread>

#include "tests/common/screenshots.h"
#include "tests/common/testsamples.h"

using namespace tessera;
using namespace tessera::views;
using tessera::gui::RunController;

namespace {

using testshots::screenshotPath;

// Forwards to another backend, sleeping `delayMs` after each finished task:
// a simulation that takes long enough to be watched (and paused) mid-run.
class SlowBackend final : public IBackend
{
public:
    SlowBackend(IBackend &inner, int delayMs) : m_inner(inner), m_delayMs(delayMs) {}
    const BackendInfo &info() const override { return m_inner.info(); }
    bool supports(const Graph &g, const Node &n) const override { return m_inner.supports(g, n); }
    Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &g, const ExecutionPlan &plan) override
    {
        return m_inner.compile(g, plan);
    }
    Expected<std::unique_ptr<CompiledPlan>> compileFor(const Graph &g, const ExecutionPlan &plan,
                                                       const CompileContext &context) override
    {
        compiledWithDevice = context.device != nullptr;
        return m_inner.compileFor(g, plan, context);
    }
    Expected<RunResult> run(CompiledPlan &compiled, const std::vector<HostTensor> &inputs,
                            const RunObserver &observer) override
    {
        RunObserver slow = observer;
        slow.taskFinished = [this, &observer](TaskId id, double fraction) {
            std::this_thread::sleep_for(std::chrono::milliseconds(m_delayMs));
            if (observer.taskFinished)
                observer.taskFinished(id, fraction);
        };
        return m_inner.run(compiled, inputs, slow);
    }
    std::atomic<bool> compiledWithDevice{false};

private:
    IBackend &m_inner;
    int m_delayMs;
};

CounterSeries series(std::string name, std::vector<std::pair<double, double>> points)
{
    return {std::move(name), "", std::move(points)};
}

bool saveShot(QWidget &w, const QString &name)
{
    const QImage shot = w.grab().toImage();
    const QString path = screenshotPath(name);
    if (shot.isNull() || !shot.save(path))
        return false;
    qInfo("screenshot: %s", qPrintable(path));
    return true;
}

} // namespace

class TestMetricsPanel : public QObject
{
    Q_OBJECT

    SchedulerRegistry m_schedulers;
    BackendRegistry m_backends;
    Device m_device; // stcp920
    std::shared_ptr<const Graph> m_graph;
    // SqueezeNet on stcp920 by GraphTurbo: instances on cores, DMA between DDR, LLB and L1.
    std::shared_ptr<const ScheduleRun> m_run;

    std::shared_ptr<const ScheduleRun> schedule(const std::string &algorithm)
    {
        auto scheduler = m_schedulers.get(algorithm);
        if (!scheduler)
            return nullptr;
        auto run = scheduleGraph(*m_graph, m_device, **scheduler, {});
        return run ? std::make_shared<const ScheduleRun>(std::move(*run)) : nullptr;
    }

private slots:
    void initTestCase()
    {
        registerBuiltinSchedulers(m_schedulers);
        registerBuiltinBackends(m_backends);
        QVERIFY(m_backends.find("sim"));
        auto device = DeviceRegistry::standard().lookup("stcp920");
        QVERIFY2(device, device.status().str().c_str());
        m_device = *device;
        auto model = test::buildRegisteredSample("squeezenet");
        QVERIFY2(model, model.status().str().c_str());
        auto imported = importModelFromBytes((*model)->SerializeAsString(), "squeezenet.onnx");
        QVERIFY2(imported, imported.status().str().c_str());
        m_graph = std::make_shared<const Graph>(std::move(imported->graph));
        m_run = schedule("graphturbo");
        QVERIFY(m_run);
        QVERIFY(m_run->result.plan.tasks.size() > 20);
    }

    // --- RunCharts and UpdateThrottle (pure data) --------------------------------------------

    void binningKeepsPeaksAndMeans()
    {
        // 0 until 5, 4 until 15, then 0; two columns of 10 ns each.
        const std::vector<std::pair<double, double>> step{{0, 0}, {5, 4}, {15, 0}};
        const auto max = binStepSeries(step, 20, 2, BinReduce::Max);
        QCOMPARE(max.size(), std::size_t{2}); // one flat run: 4 over both columns
        QCOMPARE(max.front().y(), 4.0);
        QCOMPARE(max.back().x(), 20e-6);
        const auto mean = binStepSeries(step, 20, 2, BinReduce::Mean);
        QCOMPARE(mean.front().y(), 2.0); // (0 × 5 + 4 × 5) / 10
        QCOMPARE(mean.back().y(), 2.0);
        // A column without a change carries the value in force.
        const auto held = binStepSeries({{0, 3}}, 30, 3, BinReduce::Mean);
        QCOMPARE(held.size(), std::size_t{2});
        QCOMPARE(held.back().y(), 3.0);
        // However many points, at most two per column.
        std::vector<std::pair<double, double>> dense;
        for (int i = 0; i < 100000; ++i)
            dense.emplace_back(i, i % 7);
        QVERIFY(binStepSeries(dense, 100000, 50, BinReduce::Max).size() <= 2 * 50 + 2);
        // Negative twins: nothing to bin.
        QVERIFY(binStepSeries({}, 10, 4, BinReduce::Max).empty());
        QVERIFY(binStepSeries(step, 0, 4, BinReduce::Max).empty());
        QVERIFY(binStepSeries(step, 20, 0, BinReduce::Max).empty());
    }

    void chartsHaveOneSeriesPerLevelAndUnitKind()
    {
        RunResult r;
        r.latencyMs = 1e-3;
        r.timeline = {{0, 0, 1000, 0}};
        r.counters = {series("occupancy/L1", {{0, 0}, {100, 512}}), series("occupancy/LLB", {{0, 0}}),
                      series("occupancy/DDR", {{0, 4096}}),         series("utilisation/MME", {{0, 0}, {10, 0.5}}),
                      series("utilisation/Vector", {{0, 1}}),       series("bandwidth/DDR", {{0, 1}})};
        const RunCharts c = buildRunCharts(r, nullptr, &m_device, true);
        QCOMPARE(c.occupancy.size(), std::size_t{3});
        QCOMPARE(c.occupancy[0].name, QStringLiteral("L1"));
        QCOMPARE(c.occupancy[0].peak, 512.0);
        QCOMPARE(c.capacityBytes.size(), std::size_t{3});
        QCOMPARE(c.utilisation.size(), std::size_t{2}); // "bandwidth/DDR" is neither
        QCOMPARE(c.utilisation[1].name, QStringLiteral("Vector"));
        QCOMPARE(c.spanMs, 1e-3);
        // Capacities come from the device for its levels; unknown levels are 0.
        for (std::size_t i = 0; i < c.occupancy.size(); ++i) {
            bool known = false;
            for (const MemoryLevel &l : m_device.levels)
                known = known || l.name == c.occupancy[i].name.toStdString();
            QCOMPARE(c.capacityBytes[i] > 0, known);
        }
        // Negative twin: a run without counters charts no levels and no units.
        RunResult bare;
        bare.timeline = r.timeline;
        const RunCharts none = buildRunCharts(bare, nullptr, nullptr, true);
        QVERIFY(none.occupancy.empty());
        QVERIFY(none.utilisation.empty());
        QVERIFY(!none.throughput.points.empty());
    }

    void throughputSoFarEndsAtTheRunsThroughput()
    {
        // Three tasks of equal estimated work ending at 1, 2 and 8 ms; batch 8.
        ExecutionPlan plan;
        for (int i = 0; i < 3; ++i) {
            Task t;
            t.cost.timeNs = 100;
            plan.addTask(t);
        }
        RunResult r;
        r.timeline = {{0, 0, 1e6, 0}, {1, 1e6, 2e6, 0}, {2, 2e6, 8e6, 0}};
        r.latencyMs = 8;
        r.metrics = {{"batch", 8}, {"throughput", 1000}};
        const RunCharts done = buildRunCharts(r, &plan, nullptr, true);
        QCOMPARE(done.throughput.points.size(), std::size_t{3});
        QCOMPARE(done.throughput.points[0].y(), 8 * (1.0 / 3) / 1e-3);
        QCOMPARE(done.throughput.points[2].y(), 1000.0); // 8 items in 8 ms
        QCOMPARE(done.finalThroughput, 1000.0);
        // Streamed part: two of three tasks; no final number yet.
        RunResult part = r;
        part.timeline.pop_back();
        part.latencyMs = 0;
        const RunCharts live = buildRunCharts(part, &plan, nullptr, false);
        QCOMPARE(live.finalThroughput, 0.0);
        QCOMPARE(live.spanMs, 2.0);
        QCOMPARE(live.throughput.points.back().y(), 8 * (2.0 / 3) / 2e-3);
        // Negative twin: work is weighted by the plan's estimates, not task counts.
        plan.tasks[2].cost.timeNs = 800; // the last task is 80 % of the work
        const RunCharts weighted = buildRunCharts(part, &plan, nullptr, false);
        QCOMPARE(weighted.throughput.points.back().y(), 8 * (200.0 / 1000) / 2e-3);
    }

    void throttleBoundsUpdates()
    {
        UpdateThrottle t(100);
        int drawn = 0;
        for (qint64 now = 0; now < 1000; ++now) // 1000 updates in one second
            drawn += t.offer(now) ? 1 : 0;
        QVERIFY2(drawn <= 10, qPrintable(QString::number(drawn)));
        QVERIFY(drawn >= 9);
        QVERIFY(t.hasPending()); // the last data waits for its turn ...
        QVERIFY(t.pendingDelay(999) <= 100);
        t.flushed(1001);
        QVERIFY(!t.hasPending());
        QCOMPARE(t.pendingDelay(1001), qint64{100});
        // Negative twin: updates spaced by the interval all pass.
        UpdateThrottle spaced(100);
        for (qint64 now = 0; now < 1000; now += 100)
            QVERIFY(spaced.offer(now));
        QVERIFY(!spaced.hasPending());
    }

    void incrementsAddUpToTheResult()
    {
        RunResult r;
        appendIncrement(r, {{{0, 0, 5, 0}}, {"MME core 0"}, {series("occupancy/L1", {{0, 0}, {1, 8}})}});
        appendIncrement(r, {{{1, 5, 9, 1}}, {"MME core 0", "DMA to L1"}, {series("occupancy/L1", {{4, 0}})}});
        QCOMPARE(r.timeline.size(), std::size_t{2});
        QCOMPARE(r.laneNames.size(), std::size_t{2});
        QCOMPARE(r.counters.size(), std::size_t{1});
        QCOMPARE(r.counters[0].points.size(), std::size_t{3});
        // Negative twin: an increment with no lane names keeps the known ones; a new series is added.
        appendIncrement(r, {{}, {}, {series("utilisation/MME", {{0, 1}})}});
        QCOMPARE(r.laneNames.size(), std::size_t{2});
        QCOMPARE(r.counters.size(), std::size_t{2});
    }

    // --- MetricsPanel ---------------------------------------------------------------------------

    void runWithoutOccupancyShowsEmptyStates()
    {
        WorkbenchState state;
        MetricsPanel panel(&state);
        panel.resize(900, 260);
        QVERIFY(panel.isEmptyState(MetricsPanel::OccupancyChart)); // no run yet
        QVERIFY(panel.summaryText().contains(QStringLiteral("Run a plan")));
        state.beginBackendRun(m_run, QStringLiteral("reference"), 1);
        auto measured = std::make_shared<RunResult>();
        measured->latencyMs = 2;
        measured->timeline = {{0, 0, 2e6, 0}};
        state.finishBackendRun(measured);
        QVERIFY(panel.isEmptyState(MetricsPanel::OccupancyChart));
        QVERIFY(panel.isEmptyState(MetricsPanel::UtilisationChart));
        QVERIFY2(panel.emptyText(MetricsPanel::OccupancyChart).contains(QStringLiteral("reference backend")),
                 qPrintable(panel.emptyText(MetricsPanel::OccupancyChart)));
        QVERIFY(panel.summaryText().contains(QStringLiteral("measured")));
#if TESSERA_CHARTS
        QVERIFY(!panel.isEmptyState(MetricsPanel::ThroughputChart));
        QCOMPARE(panel.seriesCount(MetricsPanel::ThroughputChart), 1);
#endif
        QVERIFY(saveShot(panel, QStringLiteral("metrics-no-occupancy.png")));
        // Negative twin: a run with counters draws one series per level and unit kind.
        state.beginBackendRun(m_run, QStringLiteral("sim"), 1);
        auto simulated = std::make_shared<RunResult>(*measured);
        simulated->metrics = {{"sim_time_ms", 2}};
        simulated->counters = {series("occupancy/L1", {{0, 0}, {1e6, 100}}), series("occupancy/DDR", {{0, 10}}),
                               series("utilisation/MME", {{0, 1}})};
        state.finishBackendRun(simulated);
#if TESSERA_CHARTS
        QVERIFY(!panel.isEmptyState(MetricsPanel::OccupancyChart));
        QCOMPARE(panel.seriesCount(MetricsPanel::OccupancyChart), 2);
        QCOMPARE(panel.seriesCount(MetricsPanel::UtilisationChart), 1);
#endif
        QVERIFY(panel.summaryText().contains(QStringLiteral("simulated")));
    }

    void liveUpdatesAreRateLimited()
    {
        WorkbenchState state;
        MetricsPanel panel(&state);
        panel.resize(900, 260);
        state.beginBackendRun(m_run, QStringLiteral("sim"), 200);
        const int before = panel.refreshCount();
        QElapsedTimer clock;
        clock.start();
        for (int i = 1; i <= 200; ++i) { // a burst far faster than 10 Hz
            auto part = std::make_shared<RunResult>();
            part->timeline.push_back({0, 0, i * 1000.0, 0});
            state.reportBackendRunUpdate(part);
        }
        const qint64 burstMs = clock.elapsed();
        const int duringBurst = panel.refreshCount() - before;
        QVERIFY2(duringBurst <= 1 + burstMs / 100 + 1,
                 qPrintable(QStringLiteral("%1 redraws in %2 ms").arg(duringBurst).arg(burstMs)));
        // The held-back last update is drawn when the interval ends.
        QTRY_COMPARE_WITH_TIMEOUT(panel.charts().spanMs, 200 * 1000.0 / 1e6, 1000);
        QVERIFY(panel.refreshCount() - before <= duringBurst + 1);
        // Negative twin: with no interval every update redraws.
        panel.setRefreshInterval(0);
        const int at = panel.refreshCount();
        for (int i = 0; i < 20; ++i)
            state.reportBackendRunUpdate(std::make_shared<RunResult>());
        QCOMPARE(panel.refreshCount() - at, 20);
        // Updates after the run ended are dropped by the state.
        state.failBackendRun(QStringLiteral("cancelled"));
        const int ended = panel.refreshCount();
        state.reportBackendRunUpdate(std::make_shared<RunResult>());
        QCOMPARE(panel.refreshCount(), ended);
    }

    // --- The Gantt ---------------------------------------------------------------------------------

    void ganttNamesLanesZoomsAndPans()
    {
        auto r = std::make_shared<RunResult>();
        r->laneNames = {"MME core 0", "DMA to LLB", "Vector core 0"};
        for (int i = 0; i < 100; ++i)
            r->timeline.push_back({i, i * 1000.0, i * 1000.0 + 900, i % 3});
        RunTimelineStrip strip;
        strip.resize(800, 200);
        strip.show();
        QVERIFY(QTest::qWaitForWindowExposed(&strip));
        strip.setResult(r, nullptr);
        QCOMPARE(strip.timeline().laneCount(), 3);
        QCOMPARE(strip.laneName(1), QStringLiteral("DMA to LLB"));
        QVERIFY(!strip.isZoomed());
        QCOMPARE(strip.window().second, strip.timeline().spanNs());
        strip.zoomAt(400, 4);
        QVERIFY(strip.isZoomed());
        const auto [z0, z1] = strip.window();
        QVERIFY(std::abs((z1 - z0) - strip.timeline().spanNs() / 4) < 1);
        strip.panBy(100);
        QVERIFY(strip.window().first > z0);
        strip.panBy(-100000); // clamped at the start
        QCOMPARE(strip.window().first, 0.0);
        // The wheel zooms in; a drag pans; a double click shows everything.
        QWheelEvent wheel(QPointF(400, 100), strip.mapToGlobal(QPointF(400, 100)), {}, QPoint(0, 120), Qt::NoButton, {},
                          Qt::NoScrollPhase, false);
        const double before = strip.window().second - strip.window().first;
        QApplication::sendEvent(&strip, &wheel);
        QVERIFY(strip.window().second - strip.window().first < before);
        QTest::mouseDClick(&strip, Qt::LeftButton, {}, QPoint(400, 100));
        QVERIFY(!strip.isZoomed());
        // A streamed update keeps a zoomed window; a new result resets it.
        strip.zoomAt(400, 2);
        strip.setResult(r, nullptr, true);
        QVERIFY(strip.isZoomed());
        strip.setResult(r, nullptr);
        QVERIFY(!strip.isZoomed());
        // Negative twin: without lane names, lanes are numbered.
        auto unnamed = std::make_shared<RunResult>(*r);
        unnamed->laneNames.clear();
        strip.setResult(unnamed, nullptr);
        QCOMPARE(strip.laneName(1), QStringLiteral("lane 1"));
        QVERIFY(strip.laneName(7).isEmpty());
    }

    void dragPansWithoutClicking()
    {
        auto r = std::make_shared<RunResult>();
        for (int i = 0; i < 10; ++i)
            r->timeline.push_back({i, i * 1000.0, i * 1000.0 + 1000, 0});
        RunTimelineStrip strip;
        strip.resize(600, 120);
        strip.show();
        QVERIFY(QTest::qWaitForWindowExposed(&strip));
        strip.setResult(r, nullptr);
        strip.zoomAt(300, 4);
        QSignalSpy clicked(&strip, &RunTimelineStrip::taskClicked);
        const double t0 = strip.window().first;
        int y = 0;
        while (y < strip.height() && strip.entryAt(QPoint(300, y)).first < 0)
            ++y;
        QVERIFY(y < strip.height());
        QTest::mousePress(&strip, Qt::LeftButton, {}, QPoint(300, y));
        QMouseEvent move(QEvent::MouseMove, QPointF(200, y), strip.mapToGlobal(QPointF(200, y)), Qt::NoButton,
                         Qt::LeftButton, {});
        QApplication::sendEvent(&strip, &move);
        QTest::mouseRelease(&strip, Qt::LeftButton, {}, QPoint(200, y));
        QVERIFY(strip.window().first > t0); // dragged left: later times
        QCOMPARE(clicked.count(), 0);
        // Negative twin: a click without a drag on a task emits it.
        QTest::mouseClick(&strip, Qt::LeftButton, {}, QPoint(300, y));
        QCOMPARE(clicked.count(), 1);
    }

    // --- A simulated run, live and finished ----------------------------------------------------

    void simRunDrawsLiveAndAfter()
    {
        IBackend *sim = m_backends.find("sim");
        SlowBackend slow(*sim, 4);
        RunController controller;
        WorkbenchState *state = controller.state();
        state->setDevice(m_device);
        RunPanel runPanel(state);
        runPanel.setBackends(&m_backends);
        QVERIFY(runPanel.selectBackend(QStringLiteral("sim")));
        runPanel.setPlan(m_graph, m_run);
        MetricsPanel metrics(state);
        runPanel.resize(1300, 420);
        metrics.resize(1300, 300);
        runPanel.show();
        metrics.show();
        QVERIFY(QTest::qWaitForWindowExposed(&metrics));

        QSignalSpy updated(state, &WorkbenchState::backendRunUpdated);
        QSignalSpy finished(state, &WorkbenchState::backendRunFinished);
        QSignalSpy paused(state, &WorkbenchState::backendRunPausedChanged);
        QElapsedTimer clock;
        clock.start();
        state->requestBackendRun({&slow, m_graph, m_run});
        // Wait until a good part has streamed, then pause to look at it.
        const int total = static_cast<int>(m_run->result.plan.tasks.size());
        QVERIFY(QTest::qWaitFor([&] { return state->tasksDone() >= total / 3 || !finished.isEmpty(); }, 60000));
        QVERIFY2(finished.isEmpty(), "the slowed run ended before it could be paused");
        QVERIFY(runPanel.pauseButton()->isEnabled());
        QTest::mouseClick(runPanel.pauseButton(), Qt::LeftButton);
        QVERIFY(state->isBackendRunPaused());
        QCOMPARE(paused.count(), 1);
        QCOMPARE(runPanel.pauseButton()->text(), QStringLiteral("Resume"));
        QTest::qWait(300); // the worker holds; the held-back update is drawn
        const int doneWhilePaused = state->tasksDone();
        QTest::qWait(200);
        QVERIFY2(state->tasksDone() <= doneWhilePaused + 1, "the run went on while paused");
        // Streamed at ≤ 10 Hz (RunController::updateInterval()).
        QVERIFY(!updated.isEmpty());
        QVERIFY2(updated.count() <= 1 + clock.elapsed() / controller.updateInterval(),
                 qPrintable(QStringLiteral("%1 updates in %2 ms").arg(updated.count()).arg(clock.elapsed())));
        QCOMPARE(updated.count(), controller.updatesPosted());
        QVERIFY(runPanel.timelineStrip()->timeline().taskCount() > 0);
        QVERIFY(metrics.summaryText().startsWith(QStringLiteral("Paused")));
#if TESSERA_CHARTS
        QVERIFY(!metrics.isEmptyState(MetricsPanel::OccupancyChart));
        QVERIFY(!metrics.isEmptyState(MetricsPanel::UtilisationChart));
#endif
        QVERIFY(saveShot(metrics, QStringLiteral("metrics-live.png")));
        QVERIFY(saveShot(runPanel, QStringLiteral("gantt-live.png")));
        // Resume; the run finishes.
        QTest::mouseClick(runPanel.pauseButton(), Qt::LeftButton);
        QVERIFY(!state->isBackendRunPaused());
        QVERIFY(finished.wait(120000) || !finished.isEmpty());
        QVERIFY(slow.compiledWithDevice.load());
        const auto result = state->lastResult();
        QVERIFY(result);
        QTest::qWait(50);

        // Metrics: one series per level and per unit kind the run reported.
        int levels = 0, units = 0;
        for (const CounterSeries &c : result->counters) {
            levels += c.name.starts_with("occupancy/") ? 1 : 0;
            units += c.name.starts_with("utilisation/") ? 1 : 0;
        }
        QCOMPARE(levels, static_cast<int>(m_device.levels.size()));
        QVERIFY(units >= 1);
        QCOMPARE(static_cast<int>(metrics.charts().occupancy.size()), levels);
        QCOMPARE(static_cast<int>(metrics.charts().utilisation.size()), units);
#if TESSERA_CHARTS
        QCOMPARE(metrics.seriesCount(MetricsPanel::OccupancyChart), levels);
        QCOMPARE(metrics.seriesCount(MetricsPanel::UtilisationChart), units);
#endif
        QCOMPARE(metrics.charts().finalThroughput, result->metrics.at("throughput"));
        QVERIFY(std::abs(metrics.charts().throughput.points.back().y() - result->metrics.at("throughput")) <
                1e-6 * result->metrics.at("throughput"));
        QVERIFY2(metrics.summaryText().contains(QStringLiteral("simulated")), qPrintable(metrics.summaryText()));
        QVERIFY2(runPanel.statusText().contains(QStringLiteral("simulated on Simulator")),
                 qPrintable(runPanel.statusText()));
        QVERIFY(saveShot(metrics, QStringLiteral("metrics-after.png")));

        // The Gantt: every task, lanes named as the simulator reports them
        // (compute units and DMA engines).
        RunTimelineStrip *gantt = runPanel.timelineStrip();
        QCOMPARE(gantt->timeline().taskCount(), total);
        bool dma = false, unit = false;
        for (int l = 0; l < gantt->timeline().laneCount(); ++l) {
            const QString name = gantt->laneName(l);
            QCOMPARE(name.toStdString(), result->laneNames.at(static_cast<std::size_t>(gantt->timeline().laneId(l))));
            dma = dma || name.startsWith(QStringLiteral("DMA"));
            unit = unit || name.contains(QStringLiteral("core"));
        }
        QVERIFY(dma);
        QVERIFY(unit);
        QVERIFY(saveShot(runPanel, QStringLiteral("gantt-after.png")));
        // Hover: the task, its kernel and its nodes; click: the nodes are selected.
        QPoint hit(-1, -1);
        for (int x = gantt->width() / 3; x < gantt->width() && hit.x() < 0; x += 2)
            for (int y = 0; y < gantt->height() && hit.x() < 0; y += 2)
                if (gantt->entryAt(QPoint(x, y)).first >= 0 &&
                    gantt->toolTipAt(QPoint(x, y)).contains(QStringLiteral("nodes:")))
                    hit = QPoint(x, y);
        QVERIFY(hit.x() >= 0);
        const QString tip = gantt->toolTipAt(hit);
        QVERIFY2(tip.contains(QStringLiteral("kernel:")), qPrintable(tip));
        QTest::mouseClick(gantt, Qt::LeftButton, {}, hit);
        QVERIFY(!state->highlighted().empty());
        QCOMPARE(state->selectedNode(), state->highlighted().front());
        gantt->zoomAt(hit.x(), 8);
        QVERIFY(saveShot(runPanel, QStringLiteral("gantt-zoomed.png")));

        // Small: the bottom dock of a 1366×768 screen.
        metrics.resize(1340, 220);
        QTest::qWait(50);
        metrics.showRun(result, true);
        QVERIFY(saveShot(metrics, QStringLiteral("metrics-small.png")));

        // A run restored from a project is drawn from its stored metrics.
        MetricsPanel restored(state);
        restored.resize(1300, 300);
        QCOMPARE(static_cast<int>(restored.charts().occupancy.size()), levels); // made after the run: shows it
        restored.showRun(nullptr, false);
        QVERIFY(restored.charts().occupancy.empty());
        state->restoreBackendRun(m_run, QStringLiteral("sim"), result, QStringLiteral("yesterday"));
        QCOMPARE(restored.charts().occupancy.size(), metrics.charts().occupancy.size());
        QCOMPARE(restored.charts().finalThroughput, metrics.charts().finalThroughput);
    }

    // BrickDL binds bricks to every core: dozens of lanes still fit the strip
    // (thinner lanes, every k-th named). Screenshot: screenshots/gantt-many-lanes.png.
    void ganttWithManyLanes()
    {
        const auto brick = schedule("brickdl");
        QVERIFY(brick);
        IBackend *sim = m_backends.find("sim");
        CompileContext context{&m_device, {}};
        auto compiled = sim->compileFor(*m_graph, brick->result.plan, context);
        QVERIFY2(compiled, compiled.status().str().c_str());
        auto result = sim->run(**compiled, syntheticInputs(*m_graph, 1));
        QVERIFY2(result, result.status().str().c_str());
        RunTimelineStrip strip;
        strip.setGraph(m_graph);
        strip.resize(1300, 300);
        strip.setResult(std::make_shared<const RunResult>(std::move(*result)),
                        std::shared_ptr<const ExecutionPlan>(brick, &brick->result.plan));
        QVERIFY(strip.timeline().laneCount() > 32);
        QVERIFY(strip.minimumSizeHint().height() <= 120);
        strip.show();
        QVERIFY(QTest::qWaitForWindowExposed(&strip));
        // Every lane can be hovered: the lowest one too.
        int lowest = -1;
        for (int y = 0; y < strip.height(); ++y)
            for (int x = 0; x < strip.width(); x += 4)
                if (const int lane = strip.entryAt(QPoint(x, y)).first; lane > lowest)
                    lowest = lane;
        QCOMPARE(lowest, strip.timeline().laneCount() - 1);
        QVERIFY(saveShot(strip, QStringLiteral("gantt-many-lanes.png")));
    }

    // Cancel reaches a paused run: the worker stops waiting and the run ends
    // "cancelled" at once; the Pause button is back to "Pause".
    void cancellingAPausedRun()
    {
        SlowBackend slow(*m_backends.find("sim"), 4);
        RunController controller;
        WorkbenchState *state = controller.state();
        RunPanel panel(state);
        panel.setBackends(&m_backends);
        QSignalSpy failed(state, &WorkbenchState::backendRunFailed);
        state->requestBackendRun({&slow, m_graph, m_run});
        QVERIFY(QTest::qWaitFor([&] { return state->tasksDone() > 0; }, 60000));
        state->requestPauseBackendRun(true);
        QVERIFY(state->isBackendRunPaused());
        QTest::qWait(50);
        QVERIFY(controller.isRunning());
        QElapsedTimer clock;
        clock.start();
        state->requestCancelBackendRun();
        QVERIFY(failed.wait(5000));
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(failed.last().at(0).toString(), QStringLiteral("cancelled"));
        QVERIFY(!state->isBackendRunPaused());
        QCOMPARE(panel.pauseButton()->text(), QStringLiteral("Pause"));
        QVERIFY(!panel.pauseButton()->isEnabled());
    }

    void measuredBackendsCannotPause()
    {
        RunController controller;
        WorkbenchState *state = controller.state();
        RunPanel panel(state);
        panel.setBackends(&m_backends);
        QVERIFY(panel.selectBackend(QStringLiteral("reference")));
        IBackend *reference = m_backends.find("reference");
        QVERIFY(!RunController::canPause(*reference));
        QVERIFY(RunController::canPause(*m_backends.find("sim")));
        // A slowed reference run: Pause stays disabled and a request changes nothing.
        SlowBackend slow(*reference, 5);
        QSignalSpy finished(state, &WorkbenchState::backendRunFinished);
        state->requestBackendRun({&slow, m_graph, m_run});
        QVERIFY(state->isBackendRunning());
        QVERIFY(!panel.pauseButton()->isEnabled());
        state->requestPauseBackendRun(true);
        QVERIFY(!state->isBackendRunPaused());
        QVERIFY(!controller.isPaused());
        state->requestCancelBackendRun();
        QTRY_VERIFY_WITH_TIMEOUT(!state->isBackendRunning(), 60000);
    }
};

QTEST_MAIN(TestMetricsPanel)
#include "tst_metricspanel.moc"
