// The scheduling stepper as a user drives it: ScheduleController runs
// layer-fusion on a residual chain off the GUI thread (superseding and
// cancelling runs), StepperWidget plays the trace back and emits the touched
// nodes, forcing a decision's other option replays the schedule and changes
// the kernel count, undo/redo restore it, rejected and stale overrides are
// reported, and RunComparisonWidget lines a pinned run up against the
// current one. Every model runs under QAbstractItemModelTester; screenshots
// go to <build>/screenshots/stepper.png and runcomparison.png.
#include "app/gui/schedulecontroller.h"
#include "app/registerbuiltins.h"
#include "backends/cpu/cpu.h"
#include "core/hw/deviceregistry.h"
#include "core/ir/analysis.h"
#include "core/sched/planbuilder.h"
#include "core/sched/scheduler.h"
#include "views/models/decisionoptionsmodel.h"
#include "views/models/decisionoverridesmodel.h"
#include "views/models/plansummary.h"
#include "views/models/runcomparisonmodel.h"
#include "views/models/steplistmodel.h"
#include "views/widgets/runcomparisonwidget.h"
#include "views/widgets/stepperwidget.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QThread>
#include <QTreeView>
#include <QUndoStack>

#include <atomic>
#include <cmath>

#include "tests/common/screenshots.h"
#include "tests/common/testgraphs.h"
#include "tests/views/controllertesting.h"

using namespace tessera;
using namespace tessera::views;
using tessera::gui::ScheduleController;

namespace {

// A scheduler for the controller's threading: one decision with an illegal
// option, then `steps` trace steps of `delay_ms` each (checking cancel), then
// one kernel per node. Records the thread it ran on.
std::atomic<QThread *> g_probeThread{nullptr};

class ProbeScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{
            "probe",
            "Probe",
            "test scheduler",
            "",
            {{"steps", OptionSpec::Kind::Int, std::int64_t{3}, "trace steps", 0, 1e6, {}},
             {"delay_ms", OptionSpec::Kind::Int, std::int64_t{0}, "sleep per step", 0, 1e4, {}}},
            {}};
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace) const override
    {
        g_probeThread = QThread::currentThread();
        const Graph &g = *req.graph;
        std::vector<DecisionOption> options{{"a", "option a", 1.0, "cheap", {}},
                                            {"b", "option b", 2.0, "dearer", {}},
                                            {"c", "option c", 0.5, "cheapest", "exceeds the scratchpad"}};
        const auto pick = decisions.decide(decisionKey("probe.pick", {g.node(0).name}), "probe.pick", options, 0);
        trace.add("probe", "pick an option", "picked " + options[static_cast<std::size_t>(pick)].id).touched = {0};
        trace.linkLastDecision(decisions);
        const auto steps = req.options.getInt("steps");
        for (std::int64_t i = 0; i < steps; ++i) {
            if (req.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
            if (const auto delay = req.options.getInt("delay_ms"))
                QThread::msleep(static_cast<unsigned long>(delay));
            trace.add("probe", "step " + std::to_string(i));
            if (req.progress)
                req.progress(double(i + 1) / double(steps));
        }
        auto order = topologicalOrder(g);
        if (!order)
            return order.status();
        PlanBuilder builder(g, *req.cost);
        for (NodeId n : *order)
            builder.addKernel(g.node(n).name, {n});
        return ScheduleResult{builder.finish(), {}};
    }
};

std::shared_ptr<const ScheduleRun> runOf(const QSignalSpy &spy)
{
    return spy.isEmpty() ? nullptr : spy.last().at(0).value<std::shared_ptr<const ScheduleRun>>();
}

// Runs `action` and waits for the controller's next finished run.
template <typename F>
std::shared_ptr<const ScheduleRun> runAfter(ScheduleController &c, F &&action, int timeoutMs = 20000)
{
    QSignalSpy spy(&c, &ScheduleController::finished);
    action();
    if (spy.isEmpty() && !spy.wait(timeoutMs))
        return nullptr;
    return runOf(spy);
}

std::size_t kernels(const std::shared_ptr<const ScheduleRun> &run)
{
    return run ? run->result.plan.kernels.size() : 0;
}

const QString kRelu1Key = QStringLiteral("layer-fusion.fuse:block0/relu1");

using testshots::screenshotPath;

} // namespace

class TestStepper : public QObject
{
    Q_OBJECT

    SchedulerRegistry m_registry;
    Device m_device;
    std::shared_ptr<const Graph> m_graph;
    std::unique_ptr<IBackend> m_cpu = createCpuBackend();

    std::unique_ptr<ScheduleController> makeController(const QString &algorithm = QStringLiteral("layer-fusion"))
    {
        return testviews::makeController(m_registry, m_graph, m_device, algorithm);
    }
    static std::unique_ptr<QAbstractItemModelTester> tester(QAbstractItemModel *model)
    {
        return testviews::modelTester(model);
    }

private slots:
    void initTestCase()
    {
        registerBuiltinSchedulers(m_registry);
        m_registry.add(std::make_unique<ProbeScheduler>());
        auto device = DeviceRegistry::standard().lookup("stcp920");
        QVERIFY2(device, device.status().str().c_str());
        m_device = *device;
        m_graph = std::make_shared<const Graph>(testgraphs::residualChain(3));
    }

    void formats_data()
    {
        QTest::addColumn<QString>("actual");
        QTest::addColumn<QString>("expected");
        QTest::newRow("0 ns") << formatDurationNs(0) << QStringLiteral("0 ns");
        QTest::newRow("ns") << formatDurationNs(950) << QStringLiteral("950 ns");
        QTest::newRow("µs") << formatDurationNs(12340) << QStringLiteral("12.34 µs");
        QTest::newRow("ms") << formatDurationNs(4.56e6) << QStringLiteral("4.560 ms");
        QTest::newRow("s") << formatDurationNs(1.2e9) << QStringLiteral("1.200 s");
        QTest::newRow("no energy") << formatEnergy(0) << QStringLiteral("0 J");
        QTest::newRow("mJ") << formatEnergy(4.56e-3) << QStringLiteral("4.560 mJ");
        QTest::newRow("small ms") << formatMs(0.0421) << QStringLiteral("42.10 µs");
    }
    void formats()
    {
        QFETCH(QString, actual);
        QFETCH(QString, expected);
        QCOMPARE(actual, expected);
    }

    void compareValuesPicksTheBetterSide()
    {
        QCOMPARE(compareValues(1, 2, Better::Lower), -1);
        QCOMPARE(compareValues(1, 2, Better::Higher), 1);
        // Negative twins: no direction, a missing value or a tie decide nothing.
        QCOMPARE(compareValues(1, 2, Better::None), 0);
        QCOMPARE(compareValues(std::nan(""), 2, Better::Lower), 0);
        QCOMPARE(compareValues(3, 3, Better::Lower), 0);
        QCOMPARE(compareValues(1.25e-6, 1.25e-6 * (1 + 1e-12), Better::Lower), 0); // summation noise
        QCOMPARE(compareValues(1.25e-6, 1.26e-6, Better::Lower), -1);
    }

    void controllerRunsOffTheGuiThread()
    {
        g_probeThread = nullptr;
        auto c = makeController(QStringLiteral("probe"));
        QSignalSpy started(c.get(), &ScheduleController::started);
        QSignalSpy progress(c.get(), &ScheduleController::progress);
        QSignalSpy failed(c.get(), &ScheduleController::failed);
        c->setOptions({{"steps", "4"}});
        auto run = runAfter(*c, [] {});
        QVERIFY(run);
        QCOMPARE(started.count(), 1); // the four setters were debounced into one run
        QVERIFY(failed.isEmpty());
        QVERIFY(g_probeThread.load() != nullptr);
        QVERIFY(g_probeThread.load() != QThread::currentThread());
        QCOMPARE(run->trace.size(), std::size_t{5});
        QCOMPARE(c->lastRun(), run);
        QTRY_VERIFY(!progress.isEmpty()); // queued from the worker
        for (const auto &args : progress)
            QVERIFY(args.at(0).toDouble() > 0 && args.at(0).toDouble() <= 1);
    }

    void controllerReportsAnUnknownScheduler()
    {
        auto c = makeController(QStringLiteral("nope"));
        QSignalSpy finished(c.get(), &ScheduleController::finished);
        QSignalSpy failed(c.get(), &ScheduleController::failed);
        QVERIFY(failed.wait(5000));
        const QString message = failed.last().at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("unknown algorithm 'nope'")), qPrintable(message));
        QVERIFY(message.contains(QStringLiteral("layer-fusion")));
        QVERIFY(finished.isEmpty());
    }

    void controllerWaitsForItsInputs()
    {
        ScheduleController c(m_registry);
        c.setDebounceInterval(0);
        QSignalSpy started(&c, &ScheduleController::started);
        c.setGraph(m_graph);
        c.setScheduler(QStringLiteral("layer-fusion")); // no device yet
        QVERIFY(!c.isReady());
        QTest::qWait(50);
        QVERIFY(started.isEmpty());
        c.setDevice(m_device);
        QVERIFY(started.wait(5000));
    }

    void newerRequestSupersedesOlder()
    {
        auto c = makeController(QStringLiteral("probe"));
        c->setOptions({{"steps", "200"}, {"delay_ms", "10"}});
        QSignalSpy started(c.get(), &ScheduleController::started);
        QSignalSpy finished(c.get(), &ScheduleController::finished);
        QSignalSpy failed(c.get(), &ScheduleController::failed);
        QVERIFY(started.wait(5000));
        const quint64 before = c->generation();
        const std::string key = decisionKey("probe.pick", {m_graph->node(0).name});
        c->setOverride(key, "b"); // supersedes the 2-second run
        QVERIFY(finished.wait(10000));
        QTest::qWait(50);
        QCOMPARE(finished.count(), 1);
        QVERIFY(failed.isEmpty());
        QVERIFY(c->generation() > before);
        const auto run = runOf(finished);
        const DecisionRecord *rec = run->decisions.find(key);
        QVERIFY(rec);
        QCOMPARE(rec->options[static_cast<std::size_t>(rec->chosen)].id, std::string("b"));
        QVERIFY(rec->overridden);
    }

    void cancelEndsTheRunWithoutAResult()
    {
        auto c = makeController(QStringLiteral("probe"));
        c->setOptions({{"steps", "500"}, {"delay_ms", "10"}});
        QSignalSpy started(c.get(), &ScheduleController::started);
        QSignalSpy finished(c.get(), &ScheduleController::finished);
        QSignalSpy failed(c.get(), &ScheduleController::failed);
        QVERIFY(started.wait(5000));
        QVERIFY(c->isRunning());
        c->cancel();
        QVERIFY(failed.wait(5000));
        QVERIFY2(failed.last().at(0).toString().contains(QStringLiteral("cancel")),
                 qPrintable(failed.last().at(0).toString()));
        QVERIFY(finished.isEmpty());
        QVERIFY(!c->lastRun());
    }

    void stepModelMirrorsTheTrace()
    {
        auto c = makeController();
        StepperWidget stepper(c->state(), c->undoStack());
        auto t1 = tester(stepper.stepModel());
        auto t2 = tester(stepper.optionsModel());
        auto t3 = tester(stepper.overridesModel());
        auto run = runAfter(*c, [] {});
        QVERIFY(run);
        StepListModel *m = stepper.stepModel();
        // 3 fusable followers per block, each a decision, then one "lower" step.
        QCOMPARE(m->rowCount(), static_cast<int>(run->trace.size()));
        QCOMPARE(m->rowCount(), 10);
        QCOMPARE(kernels(run), std::size_t{6});
        const QModelIndex decision = m->index(0, StepListModel::DecisionColumn);
        QCOMPARE(decision.data(StepListModel::DecisionIndexRole).toInt(), 0);
        QCOMPARE(decision.data().toString(), QStringLiteral("◆ fuse"));
        QCOMPARE(m->index(0, StepListModel::PhaseColumn).data().toString(), QStringLiteral("fuse"));
        // Issue 18 item 5: the step's time goes through the one helper (a unit, four figures), not "0.021".
        const QString time = m->index(0, StepListModel::ElapsedColumn).data().toString();
        QCOMPARE(time, formatMs(run->trace.steps()[0].elapsedMs));
        QVERIFY2(time.endsWith(QStringLiteral(" ns")) || time.endsWith(QStringLiteral(" µs")) ||
                     time.endsWith(QStringLiteral(" ms")) || time.endsWith(QStringLiteral(" s")),
                 qPrintable(time));
        QCOMPARE(m->headerData(StepListModel::ElapsedColumn, Qt::Horizontal).toString(), QStringLiteral("Time"));
        const auto touched = m->index(0, 0).data(StepListModel::TouchedNodesRole).value<QList<int>>();
        QCOMPARE(touched, (QList<int>{m_graph->findNode("block0/conv1"), m_graph->findNode("block0/relu1")}));
        QCOMPARE(m->touched(0), run->trace.steps()[0].touched);
        QVERIFY(m->touched(10).empty());
        // Negative twin: the final lowering step asks nothing.
        const QModelIndex lower = m->index(9, StepListModel::DecisionColumn);
        QCOMPARE(lower.data(StepListModel::DecisionIndexRole).toInt(), -1);
        QVERIFY(lower.data().toString().isEmpty());
        QCOMPARE(m->nextDecision(8), -1);
        QCOMPARE(m->previousDecision(9), 8);
        QCOMPARE(m->previousDecision(0), -1);
    }

    void transportMovesAndEmitsTouchedNodes()
    {
        auto c = makeController();
        StepperWidget stepper(c->state(), c->undoStack());
        auto run = runAfter(*c, [] {});
        QVERIFY(run);
        QCOMPARE(stepper.currentStep(), 0);
        QSignalSpy activated(&stepper, &StepperWidget::stepActivated);

        stepper.stepForward();
        QCOMPARE(stepper.currentStep(), 1);
        QCOMPARE(stepper.stepView()->currentIndex().row(), 1);
        QCOMPARE(activated.count(), 1);
        const auto touched = activated.last().at(0).value<std::vector<NodeId>>();
        QCOMPARE(touched, run->trace.steps()[1].touched);
        QCOMPARE(touched, (std::vector<NodeId>{m_graph->findNode("block0/conv2"), m_graph->findNode("block0/add")}));

        stepper.stepBack();
        QCOMPARE(stepper.currentStep(), 0);
        QCOMPARE(activated.count(), 2);
        stepper.stepBack(); // negative twin: already at the start
        QCOMPARE(stepper.currentStep(), 0);
        QCOMPARE(activated.count(), 2);

        stepper.last();
        QCOMPARE(stepper.currentStep(), 9);
        stepper.stepForward(); // and at the end
        QCOMPARE(stepper.currentStep(), 9);
        stepper.nextDecision(); // no decision after the lowering step
        QCOMPARE(stepper.currentStep(), 9);
        stepper.previousDecision();
        QCOMPARE(stepper.currentStep(), 8);
        stepper.first();
        QCOMPARE(stepper.currentStep(), 0);

        // A click in the list moves the stepper too.
        stepper.stepView()->setCurrentIndex(stepper.stepModel()->index(5, 0));
        QCOMPARE(stepper.currentStep(), 5);
        QCOMPARE(activated.last().at(0).value<std::vector<NodeId>>(), run->trace.steps()[5].touched);

        stepper.setPlayInterval(5);
        stepper.play();
        QVERIFY(stepper.isPlaying());
        QTRY_VERIFY_WITH_TIMEOUT(!stepper.isPlaying(), 5000);
        QCOMPARE(stepper.currentStep(), 9);
    }

    void forcingTheOtherOptionReplays()
    {
        auto c = makeController();
        StepperWidget stepper(c->state(), c->undoStack());
        auto t1 = tester(stepper.stepModel());
        auto t2 = tester(stepper.optionsModel());
        auto t3 = tester(stepper.overridesModel());
        auto base = runAfter(*c, [] {});
        QVERIFY(base);
        stepper.setCurrentStep(3); // block1/relu1 follows block1/conv1
        DecisionOptionsModel *opts = stepper.optionsModel();
        QCOMPARE(opts->rowCount(), 2);
        QVERIFY(opts->index(0, 0).data(DecisionOptionsModel::PreferredRole).toBool());
        QCOMPARE(opts->index(0, DecisionOptionsModel::MarkColumn).data().toString(), QStringLiteral("★✓"));
        QCOMPARE(opts->index(1, 0).data(DecisionOptionsModel::OptionIdRole).toString(), QStringLiteral("separate"));
        QCOMPARE(opts->rowOfOption(QStringLiteral("separate")), 1);
        QCOMPARE(opts->rowOfOption(QStringLiteral("merge")), -1);

        auto forced = runAfter(*c, [&] { QVERIFY(stepper.useOption(1)); });
        QVERIFY(forced);
        QCOMPARE(c->overrides().size(), std::size_t{1});
        QCOMPARE(c->overrides().at("layer-fusion.fuse:block1/relu1"), std::string("separate"));
        QCOMPARE(kernels(forced), kernels(base) + 1);
        QCOMPARE(stepper.currentStep(), 3); // the stepper stays where it was
        QVERIFY(opts->index(1, 0).data(DecisionOptionsModel::ChosenRole).toBool());
        QVERIFY(opts->index(1, 0).data(DecisionOptionsModel::OverriddenRole).toBool());
        QCOMPARE(opts->index(1, DecisionOptionsModel::MarkColumn).data().toString(), QStringLiteral("✎"));
        QVERIFY(stepper.stepModel()->index(3, 0).data(StepListModel::OverriddenRole).toBool());
        QCOMPARE(stepper.stepModel()->index(3, StepListModel::DecisionColumn).data().toString(),
                 QStringLiteral("✎ separate"));
        QCOMPARE(stepper.overridesModel()->count(OverrideReport::Outcome::Applied), 1);

        auto undone = runAfter(*c, [&] { c->undoAction()->trigger(); });
        QVERIFY(undone);
        QVERIFY(c->overrides().empty());
        QCOMPARE(kernels(undone), kernels(base));
        QCOMPARE(stepper.overridesModel()->rowCount(), 0);

        auto redone = runAfter(*c, [&] { c->redoAction()->trigger(); });
        QCOMPARE(kernels(redone), kernels(base) + 1);

        // Choosing the scheduler's own option again clears the override.
        auto back = runAfter(*c, [&] { QVERIFY(stepper.useOption(0)); });
        QVERIFY(c->overrides().empty());
        QCOMPARE(kernels(back), kernels(base));
        QCOMPARE(c->undoStack()->count(), 2);
    }

    void doubleClickingAnOptionForcesIt()
    {
        auto c = makeController();
        StepperWidget stepper(c->state(), c->undoStack());
        stepper.resize(1100, 420);
        stepper.show();
        QVERIFY(QTest::qWaitForWindowExposed(&stepper));
        QVERIFY(runAfter(*c, [] {}));
        stepper.setCurrentStep(0);
        QTableView *view = stepper.optionsView();
        QVERIFY(view->isVisible());
        const QPoint at =
            view->visualRect(stepper.optionsModel()->index(1, DecisionOptionsModel::LabelColumn)).center();
        auto run = runAfter(*c, [&] {
            QTest::mousePress(view->viewport(), Qt::LeftButton, {}, at);
            QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
        });
        QVERIFY(run);
        QCOMPARE(c->overrides().at(kRelu1Key.toStdString()), std::string("separate"));
        QCOMPARE(kernels(run), std::size_t{7});
    }

    void optionsThatCannotBeUsed()
    {
        auto c = makeController();
        StepperWidget stepper(c->state(), c->undoStack());
        QVERIFY(runAfter(*c, [] {}));
        const int commands = c->undoStack()->count();
        stepper.setCurrentStep(9); // the lowering step asks no decision
        QCOMPARE(stepper.optionsModel()->rowCount(), 0);
        QVERIFY(!stepper.useOption(0));
        stepper.setCurrentStep(0);
        QVERIFY(!stepper.useOption(7)); // no such option
        QCOMPARE(c->undoStack()->count(), commands);
        QVERIFY(c->overrides().empty());
    }

    void illegalOptionsAreListedButNotUsable()
    {
        auto c = makeController(QStringLiteral("probe"));
        StepperWidget stepper(c->state(), c->undoStack());
        auto t = tester(stepper.optionsModel());
        QVERIFY(runAfter(*c, [] {}));
        DecisionOptionsModel *opts = stepper.optionsModel();
        QCOMPARE(opts->rowCount(), 3);
        QVERIFY(opts->flags(opts->index(1, 0)).testFlag(Qt::ItemIsEnabled));
        QVERIFY(!opts->flags(opts->index(2, 0)).testFlag(Qt::ItemIsEnabled));
        QCOMPARE(opts->index(2, DecisionOptionsModel::StatusColumn).data().toString(),
                 QStringLiteral("illegal: exceeds the scratchpad"));
        QCOMPARE(opts->index(2, DecisionOptionsModel::CostColumn).data().toString(), QStringLiteral("0.50"));
        QVERIFY(!stepper.useOption(2));
        QVERIFY(c->overrides().empty());

        // Forced anyway (e.g. from a saved project): rejected, the preferred option is used.
        const std::string key = decisionKey("probe.pick", {m_graph->node(0).name});
        auto run = runAfter(*c, [&] { c->loadOverrides({{key, "c"}}); });
        QVERIFY(run);
        QCOMPARE(run->decisions.find(key)->chosen, 0);
        QCOMPARE(stepper.overridesModel()->count(OverrideReport::Outcome::Rejected), 1);
        const QString reason =
            stepper.overridesModel()->index(0, DecisionOverridesModel::ReasonColumn).data().toString();
        QVERIFY2(reason.contains(QStringLiteral("is illegal: exceeds the scratchpad")), qPrintable(reason));
        QCOMPARE(c->undoStack()->count(), 0); // loading is not an edit
    }

    void staleAndRejectedOverridesAreReported()
    {
        auto c = makeController();
        StepperWidget stepper(c->state(), c->undoStack());
        auto t = tester(stepper.overridesModel());
        auto base = runAfter(*c, [] {});
        QVERIFY(base);
        c->setOverride("layer-fusion.fuse:no/such/node", "separate");
        auto run = runAfter(*c, [&] { c->setOverride(kRelu1Key.toStdString(), "merge-twice"); });
        QVERIFY(run);
        DecisionOverridesModel *m = stepper.overridesModel();
        QCOMPARE(m->rowCount(), 2);
        QCOMPARE(m->count(OverrideReport::Outcome::Rejected), 1);
        QCOMPARE(m->count(OverrideReport::Outcome::Stale), 1);
        QCOMPARE(m->count(OverrideReport::Outcome::Applied), 0);
        // Rejected ones are reported in ask order, stale ones after the run.
        QCOMPARE(m->index(0, DecisionOverridesModel::OutcomeColumn).data().toString(), QStringLiteral("rejected"));
        QCOMPARE(m->index(0, DecisionOverridesModel::KeyColumn).data().toString(), kRelu1Key);
        QVERIFY(m->index(0, DecisionOverridesModel::ReasonColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("'merge-twice' no longer exists; valid: fuse, separate")));
        QCOMPARE(m->index(1, DecisionOverridesModel::OutcomeColumn).data().toString(), QStringLiteral("stale"));
        QVERIFY(m->index(1, DecisionOverridesModel::ReasonColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("no decision with this key")));
        QCOMPARE(kernels(run), kernels(base)); // neither changed the plan
        QVERIFY(stepper.detailTabs()->tabText(3).contains(QStringLiteral("2 ⚠")));
    }

    void comparisonLinesUpPinnedAndCurrent()
    {
        auto c = makeController();
        RunComparisonWidget compare(c->state());
        auto t = tester(compare.model());
        QVERIFY(!compare.pinCurrent()); // negative twin: nothing to pin yet
        auto base = runAfter(*c, [] {});
        QVERIFY(base);
        RunComparisonModel *m = compare.model();
        QCOMPARE(m->columnCount(), 4);
        const int kernelRow = m->rowOfKey(QStringLiteral("kernels"));
        QVERIFY(kernelRow >= 0);
        QCOMPARE(m->value(kernelRow, 0), 6.0); // current run alone
        QVERIFY(std::isnan(m->value(kernelRow, 1)));
        QCOMPARE(m->index(kernelRow, RunComparisonModel::SecondColumn).data().toString(), QStringLiteral("—"));

        QVERIFY(compare.pinCurrent());
        QCOMPARE(m->headerData(RunComparisonModel::FirstColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Pin 1 · layer-fusion"));
        QCOMPARE(m->headerData(RunComparisonModel::SecondColumn, Qt::Horizontal).toString(), QStringLiteral("Current"));
        QCOMPARE(m->winner(kernelRow), -1); // identical runs: no winner

        QVERIFY(runAfter(*c, [&] { c->setOverride(kRelu1Key.toStdString(), "separate"); }));
        QCOMPARE(m->value(kernelRow, 0), 6.0);
        QCOMPARE(m->value(kernelRow, 1), 7.0);
        QCOMPARE(m->winner(kernelRow), 0);
        QVERIFY(m->index(kernelRow, RunComparisonModel::FirstColumn).data(RunComparisonModel::BetterRole).toBool());
        QVERIFY(!m->index(kernelRow, RunComparisonModel::SecondColumn).data(RunComparisonModel::BetterRole).toBool());
        QCOMPARE(m->index(kernelRow, RunComparisonModel::ChangeColumn).data().toString(), QStringLiteral("+16.7 %"));
        // Traffic rows exist for the levels the plans touch; the statistics row follows the scheduler.
        bool traffic = false;
        for (int r = 0; r < m->rowCount(); ++r)
            traffic |= m->index(r, 0).data(RunComparisonModel::KeyRole).toString().startsWith(QStringLiteral("bytes:"));
        QVERIFY(traffic);
        const int fused = m->rowOfKey(QStringLiteral("stat:fused_ops"));
        QVERIFY(fused >= 0);
        QCOMPARE(m->value(fused, 0) - m->value(fused, 1), 1.0);

        compare.clearPinned();
        QCOMPARE(compare.pinnedCount(), 0);
        QVERIFY(std::isnan(m->value(kernelRow, 1)));
    }

    // Runs `run`'s plan on the CPU backend and reports it to the state as the
    // app's RunController does; the result.
    std::shared_ptr<const RunResult> measureOnCpu(WorkbenchState &state, const std::shared_ptr<const ScheduleRun> &run)
    {
        auto compiled = m_cpu->compile(*m_graph, run->result.plan);
        if (!compiled)
            return nullptr;
        std::vector<HostTensor> inputs;
        for (TensorId id : m_graph->inputs) {
            const Tensor &t = m_graph->tensor(id);
            inputs.push_back(
                {t.name, t.dtype, t.shape, std::vector<std::uint8_t>(static_cast<std::size_t>(t.bytes()))});
        }
        auto result = m_cpu->run(**compiled, inputs);
        if (!result)
            return nullptr;
        auto shared = std::make_shared<const RunResult>(std::move(*result));
        state.beginBackendRun(run, QStringLiteral("cpu"), static_cast<int>(run->result.plan.tasks.size()));
        state.finishBackendRun(shared);
        return shared;
    }

    // Two plans run on the CPU backend: the comparison lines up their measured
    // latencies (and time per engine) beside the estimates, the pin keeping its
    // own measurement. Screenshot: screenshots/comparison-measured.png.
    void comparisonLinesUpMeasuredRuns()
    {
        auto c = makeController();
        RunComparisonWidget compare(c->state());
        auto t = tester(compare.model());
        RunComparisonModel *m = compare.model();
        const QString latencyKey = QStringLiteral("measured:cpu:latency");
        auto fused = runAfter(*c, [] {});
        QVERIFY(fused);
        auto fusedMeasured = measureOnCpu(*c->state(), fused);
        QVERIFY(fusedMeasured);
        QVERIFY(compare.pinCurrent());
        auto separate = runAfter(*c, [&] { c->setOverride(kRelu1Key.toStdString(), "separate"); });
        QVERIFY(separate);
        auto separateMeasured = measureOnCpu(*c->state(), separate);
        QVERIFY(separateMeasured);

        const int latency = m->rowOfKey(latencyKey);
        QVERIFY(latency >= 0);
        QCOMPARE(m->index(latency, 0).data(RunComparisonModel::SectionRole).toInt(),
                 static_cast<int>(SummaryRow::Section::Measured));
        QCOMPARE(m->value(latency, 0), fusedMeasured->latencyMs * 1e6); // the pin: the fused plan's run
        QCOMPARE(m->value(latency, 1), separateMeasured->latencyMs * 1e6);
        QVERIFY(m->winner(latency) == (fusedMeasured->latencyMs < separateMeasured->latencyMs ? 0 : 1));
        QVERIFY(m->rowOfKey(QStringLiteral("measured:cpu:op_ms/onednn")) >= 0);
        // Measured rows come right after the plan's shape, before the estimates.
        QVERIFY(latency < m->rowOfKey(QStringLiteral("latency")));
        compare.resize(720, 620);
        const QString path = testshots::screenshotPath(QStringLiteral("comparison-measured.png"));
        QVERIFY2(compare.grab().toImage().save(path), qPrintable(path));
    }

    // Negative twin: a plan nobody ran has no measured cells; a new schedule
    // does not inherit the last one's run, while the pin keeps its own.
    void comparisonMeasuresOnlyPlansThatRan()
    {
        auto c = makeController();
        RunComparisonWidget compare(c->state());
        RunComparisonModel *m = compare.model();
        auto fused = runAfter(*c, [] {});
        QVERIFY(fused);
        QCOMPARE(m->rowOfKey(QStringLiteral("measured:cpu:latency")), -1);
        QVERIFY(measureOnCpu(*c->state(), fused));
        QVERIFY(compare.pinCurrent());
        QVERIFY(runAfter(*c, [&] { c->setOverride(kRelu1Key.toStdString(), "separate"); }));
        const int latency = m->rowOfKey(QStringLiteral("measured:cpu:latency"));
        QVERIFY(latency >= 0);
        QVERIFY(m->value(latency, 0) > 0);
        QVERIFY(std::isnan(m->value(latency, 1)));
        QCOMPARE(m->index(latency, RunComparisonModel::SecondColumn).data().toString(), QStringLiteral("—"));
        QCOMPARE(m->winner(latency), -1);
    }

    void comparisonUnionsRowsOfDifferentRuns()
    {
        // Sequential has no "fused_ops" statistic: the row stays, one side empty.
        auto perNode = makeController(QStringLiteral("sequential"));
        perNode->setOptions({{"epilogues", "false"}}); // a kernel per node
        auto seq = runAfter(*perNode, [] {});
        auto fusion = runAfter(*makeController(), [] {});
        QVERIFY(seq && fusion);
        RunComparisonModel m;
        auto t = tester(&m);
        m.setRuns(seq, QStringLiteral("sequential"), fusion, QStringLiteral("fusion"));
        const int fused = m.rowOfKey(QStringLiteral("stat:fused_ops"));
        QVERIFY(fused >= 0);
        QVERIFY(std::isnan(m.value(fused, 0)));
        QCOMPARE(m.value(fused, 1), 9.0);
        const int kernelRow = m.rowOfKey(QStringLiteral("kernels"));
        QCOMPARE(m.value(kernelRow, 0), 15.0);
        QCOMPARE(m.winner(kernelRow), 1);
        QCOMPARE(m.index(m.rowOfKey(QStringLiteral("algorithm")), 1).data().toString(), QStringLiteral("sequential"));
        m.setRun(0, nullptr, {}); // one side only
        QVERIFY(m.rowOfKey(QStringLiteral("stat:fused_ops")) >= 0);
        QVERIFY(std::isnan(m.value(m.rowOfKey(QStringLiteral("kernels")), 0)));
        QCOMPARE(m.winner(m.rowOfKey(QStringLiteral("kernels"))), -1);
    }

    void largeTracesStayResponsive()
    {
        auto c = makeController(QStringLiteral("probe"));
        c->setOptions({{"steps", "100000"}});
        StepperWidget stepper(c->state(), c->undoStack());
        stepper.resize(1000, 400);
        stepper.show();
        QVERIFY(QTest::qWaitForWindowExposed(&stepper));
        QElapsedTimer timer;
        QSignalSpy finished(c.get(), &ScheduleController::finished);
        QVERIFY(finished.wait(30000));
        timer.start(); // the stepper's slot already ran; now navigate
        stepper.last();
        stepper.previousDecision();
        stepper.stepForward();
        QCOMPARE(stepper.currentStep(), 1);
        QCOMPARE(stepper.stepModel()->rowCount(), 100001);
        QTest::qWait(1);
        qInfo("100001-step trace: navigation and repaint in %lld ms", static_cast<long long>(timer.elapsed()));
    }

    void screenshots()
    {
        auto c = makeController();
        StepperWidget stepper(c->state(), c->undoStack());
        RunComparisonWidget compare(c->state());
        stepper.resize(1280, 460);
        compare.resize(620, 560);
        stepper.show();
        compare.show();
        QVERIFY(QTest::qWaitForWindowExposed(&stepper));
        QVERIFY(runAfter(*c, [] {}));
        compare.pinCurrent();
        c->setOverride("layer-fusion.fuse:block2/add", "separate");
        QVERIFY(runAfter(*c, [&] { c->setOverride(kRelu1Key.toStdString(), "separate"); }));
        stepper.setCurrentStep(0);
        stepper.optionsView()->setFocus();
        QTest::qWait(50);
        for (auto [widget, name] : {std::pair<QWidget *, QString>{&stepper, QStringLiteral("stepper.png")},
                                    {&compare, QStringLiteral("runcomparison.png")}}) {
            const QImage img = widget->grab().toImage();
            QCOMPARE(img.size(), widget->size() * widget->devicePixelRatio());
            QVERIFY(img.save(screenshotPath(name)));
        }
        // The Overrides tab with one of each outcome.
        c->setOverride("layer-fusion.fuse:block9/relu1", "fuse");
        QVERIFY(runAfter(*c, [&] { c->setOverride("layer-fusion.fuse:block1/add", "split"); }));
        stepper.detailTabs()->setCurrentIndex(3);
        QTest::qWait(50);
        QVERIFY(stepper.grab().save(screenshotPath(QStringLiteral("stepper-overrides.png"))));
    }
};

QTEST_MAIN(TestStepper)
#include "tst_stepper.moc"
