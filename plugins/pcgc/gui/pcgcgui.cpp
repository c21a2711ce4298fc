#include "plugins/pcgc/gui/pcgcgui.h"

#include "core/backend/backend.h"
#include "core/hw/device.h"
#include "plugins/pcgc/costlearn.h"
#include "plugins/pcgc/learnedcost.h"
#include "plugins/pcgc/projectmodels.h"
#include "views/widgets/planextensions.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#ifdef TESSERA_PCGC_CHARTS
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

namespace tessera {

namespace {

QTreeWidget *makeTree(QWidget *parent, const QStringList &headers, const QString &name)
{
    auto *tree = new QTreeWidget(parent);
    tree->setObjectName(name);
    tree->setHeaderLabels(headers);
    tree->setRootIsDecorated(false);
    tree->setAlternatingRowColors(true);
    tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return tree;
}

QString num(double v)
{
    return QString::number(v, 'g', 4);
}

#ifdef TESSERA_PCGC_CHARTS
// Measured (x) against predicted (y) on log axes: the learned model, the
// analytic model it corrects, and the diagonal where predictions are exact.
void fillScatter(QChartView *view, const QString &title, const QString &unit, double scale,
                 const std::vector<pcgc::ScatterPoint> &points, const pcgc::Accuracy *accuracy)
{
    auto *chart = new QChart();
    chart->setTitle(accuracy ? QStringLiteral("%1: MAPE %2 % (analytic %3 %), R² %4, %5 held-back ops")
                                   .arg(title)
                                   .arg(accuracy->mape * 100, 0, 'f', 2)
                                   .arg(accuracy->analyticMape * 100, 0, 'f', 2)
                                   .arg(accuracy->r2, 0, 'f', 3)
                                   .arg(accuracy->count)
                             : title + QStringLiteral(": no model"));
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto *learned = new QScatterSeries(chart);
    learned->setName(QStringLiteral("learned model"));
    learned->setMarkerSize(7);
    auto *analytic = new QScatterSeries(chart);
    analytic->setName(QStringLiteral("analytic model"));
    analytic->setMarkerSize(5);
    analytic->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    double lo = INFINITY, hi = 0;
    for (const pcgc::ScatterPoint &p : points) {
        if (!(p.measured > 0 && p.predicted > 0 && p.analytic > 0))
            continue;
        learned->append(p.measured * scale, p.predicted * scale);
        analytic->append(p.measured * scale, p.analytic * scale);
        for (double v : {p.measured, p.predicted, p.analytic}) {
            lo = std::min(lo, v * scale);
            hi = std::max(hi, v * scale);
        }
    }
    auto *ideal = new QLineSeries(chart);
    ideal->setName(QStringLiteral("predicted = measured"));
    chart->addSeries(analytic);
    chart->addSeries(learned);
    chart->addSeries(ideal);
    chart->legend()->setVisible(hi > 0);
    if (hi > 0) {
        // Log axes when the points span orders of magnitude (times), else linear (powers).
        const bool logAxes = hi / lo > 20;
        lo = logAxes ? lo / 1.5 : lo - 0.1 * (hi - lo);
        hi = logAxes ? hi * 1.5 : hi + 0.1 * (hi - lo);
        ideal->append(lo, lo);
        ideal->append(hi, hi);
        QAbstractAxis *axes[2];
        for (QAbstractAxis *&a : axes) {
            if (logAxes) {
                auto *l = new QLogValueAxis(chart);
                l->setRange(lo, hi);
                l->setLabelFormat(QStringLiteral("%g"));
                l->setMinorTickCount(-1);
                a = l;
            } else {
                auto *v = new QValueAxis(chart);
                v->setRange(lo, hi);
                v->setLabelFormat(QStringLiteral("%.3g"));
                a = v;
            }
        }
        axes[0]->setTitleText(QStringLiteral("measured (%1)").arg(unit));
        axes[1]->setTitleText(QStringLiteral("predicted (%1)").arg(unit));
        chart->addAxis(axes[0], Qt::AlignBottom);
        chart->addAxis(axes[1], Qt::AlignLeft);
        for (QAbstractSeries *s : std::initializer_list<QAbstractSeries *>{analytic, learned, ideal}) {
            s->attachAxis(axes[0]);
            s->attachAxis(axes[1]);
        }
    }
    QChart *old = view->chart();
    view->setChart(chart);
    delete old;
}
#endif

// The cost-model tab: the learned model the run used, else the device's saved one.
void fillModel(QWidget *view, const views::PlanShown &plan)
{
    auto *summary = view->findChild<QLabel *>(QStringLiteral("pcgcModelSummary"));
    std::string path, fallback;
    bool used = false;
    for (const TraceStep &s : plan.run->trace.steps()) {
        if (s.phase == "cost model" && s.title.rfind("learned: ", 0) == 0) {
            path = s.title.substr(9);
            used = true;
        } else if (s.phase == "cost model") {
            fallback = s.conclusion;
        }
    }
    if (path.empty() && plan.device)
        path = pcgc::defaultModelPath(plan.device->id);
    auto report = path.empty() ? Expected<pcgc::ModelReport>(Status::error(ErrorCode::Usage, "no device"))
                               : pcgc::readModelReport(path);
    QString text;
    if (!report) {
        text = QStringLiteral("No learned cost model at %1: %2\nTrain one with: tessera-cli pcgc-train --device %3")
                   .arg(QString::fromStdString(path), QString::fromStdString(report.status().message()),
                        QString::fromStdString(plan.device ? plan.device->id : std::string("DEVICE")));
    } else {
        const pcgc::TrainingSummary &t = report->summary;
        text = QStringLiteral("%1 model for %2 (%3): %4 ops, %5 measured on %6, %7 pseudo-labelled, %8 held back; "
                              "trained in %9 s")
                   .arg(used ? QStringLiteral("Learned") : QStringLiteral("Saved (not used by this run)"),
                        QString::fromStdString(report->device), QString::fromStdString(path))
                   .arg(t.ops)
                   .arg(t.measured)
                   .arg(QString::fromStdString(t.backend))
                   .arg(t.pseudoLabelled)
                   .arg(t.heldBack)
                   .arg(t.seconds, 0, 'f', 1);
        if (!report->power)
            text += QStringLiteral("\n") + QString::fromStdString(report->powerNote);
    }
    if (!fallback.empty())
        text += QStringLiteral("\nThis run asked for the learned model and used the analytic one: ") +
                QString::fromStdString(fallback);
    summary->setText(text);
#ifdef TESSERA_PCGC_CHARTS
    auto *time = view->findChild<QChartView *>(QStringLiteral("pcgcScatterTime"));
    auto *power = view->findChild<QChartView *>(QStringLiteral("pcgcScatterPower"));
    const std::vector<pcgc::ScatterPoint> none;
    fillScatter(time, QStringLiteral("Time"), QStringLiteral("µs"), 1e-3, report ? report->timePoints : none,
                report ? &report->time : nullptr);
    fillScatter(power, QStringLiteral("Power"), QStringLiteral("W"), 1, report ? report->powerPoints : none,
                report && report->power ? &*report->power : nullptr);
#endif
}

// The Train action of the cost-model tab: Algorithm 1 (costlearn.h) on the
// shown model, measured on the workbench's simulator backend, run on a worker
// thread; progress, Cancel, and finished (the model is saved to the path the
// scheduler reads — the run's model_file or the user's data folder — and the
// scatter shows it) or failed (the reason). The workbench trains on the one
// model shown, so it accepts fewer labels than tessera-cli pcgc-train over its
// four networks (kMinLabels); the accuracy on held-back ops says how good it is.
class Trainer final : public QObject
{
public:
    static constexpr std::int32_t kMinLabels = 8;

    Trainer(QWidget *tab, QPushButton *train, QPushButton *cancel, QProgressBar *bar, QLabel *status)
        : QObject(tab), m_tab(tab), m_train(train), m_cancelButton(cancel), m_bar(bar), m_status(status)
    {
        setObjectName(QStringLiteral("pcgcTrainer"));
        connect(train, &QPushButton::clicked, this, &Trainer::start);
        connect(cancel, &QPushButton::clicked, this, &Trainer::cancel);
        setIdle();
    }
    ~Trainer() override
    {
        m_cancelFlag = true;
        if (m_thread.joinable())
            m_thread.join();
    }

    // A project shown for the first time (reopened) gives back the models it
    // keeps: the device's is restored to the path the scheduler reads, unless
    // a good one is there already (projectmodels.h).
    void setPlan(const views::PlanShown &plan)
    {
        m_plan = plan;
        if (plan.project && plan.device && m_restored.insert({plan.project->path(), plan.device->id}).second) {
            auto restored = pcgc::restoreProjectModel(*plan.project, *plan.device, modelPath());
            if (!restored)
                m_status->setText(QStringLiteral("The project's cost model was not restored: ") +
                                  QString::fromStdString(restored.status().message()));
            else if (*restored == pcgc::RestoreOutcome::Restored)
                m_status->setText(QStringLiteral("Restored the project's cost model for %1")
                                      .arg(QString::fromStdString(plan.device->id)));
        }
        setIdle();
    }
    bool running() const { return m_running; }

private:
    IBackend *backend() const { return m_plan.backends ? m_plan.backends->find("sim") : nullptr; }

    std::string modelPath() const
    {
        if (m_plan.run)
            for (const TraceStep &s : m_plan.run->trace.steps())
                if (s.phase == "cost model" && s.title.rfind("learned: ", 0) == 0)
                    return s.title.substr(9);
        return m_plan.device ? pcgc::defaultModelPath(m_plan.device->id) : std::string();
    }

    void setIdle()
    {
        if (m_running)
            return;
        const bool ready = m_plan.graph && m_plan.device && backend() && pcgc::Regressor::available();
        m_train->setEnabled(ready);
        m_cancelButton->setEnabled(false);
        if (!ready)
            m_train->setToolTip(!pcgc::Regressor::available()
                                    ? QString::fromStdString(pcgc::Regressor::unavailableReason())
                                    : QStringLiteral("needs the shown model, its device and the simulator backend"));
        else
            m_train->setToolTip(QStringLiteral("Algorithm 1 on this model's ops, measured on the simulator"));
    }

    void start()
    {
        if (m_running || !m_train->isEnabled())
            return;
        if (m_thread.joinable())
            m_thread.join();
        m_running = true;
        m_cancelFlag = false;
        m_train->setEnabled(false);
        m_cancelButton->setEnabled(true);
        m_bar->setValue(0);
        m_status->setText(QStringLiteral("Training on %1's ops, measured on the simulator…")
                              .arg(QString::fromStdString(m_plan.graph->name)));
        auto graph = m_plan.graph;
        auto device = std::make_shared<const Device>(*m_plan.device);
        IBackend *sim = backend();
        const std::string path = modelPath();
        m_thread = std::thread([this, graph, device, sim, path] {
            pcgc::TrainOptions o;
            o.minLabels = kMinLabels;
            o.cancel = &m_cancelFlag;
            o.progress = [this](double f) {
                QMetaObject::invokeMethod(
                    this, [this, f] { m_bar->setValue(static_cast<int>(f * 100)); }, Qt::QueuedConnection);
            };
            auto model = pcgc::trainCostModel({graph.get()}, *device, *sim, o);
            Status saved = model ? Status::ok() : model.status();
            std::string json;
            if (model) {
                std::error_code ec;
                std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
                saved = (*model)->save(path);
                if (auto j = (*model)->toJson())
                    json = std::move(*j);
            }
            const bool cancelled = !saved.isOk() && saved.code() == ErrorCode::Cancelled;
            const QString text = saved.isOk()
                                     ? QStringLiteral("Finished: saved to %1").arg(QString::fromStdString(path))
                                 : cancelled ? QStringLiteral("Cancelled: ") + QString::fromStdString(saved.message())
                                             : QStringLiteral("Failed: ") + QString::fromStdString(saved.message());
            const bool ok = saved.isOk();
            const std::string deviceId = device->id;
            QMetaObject::invokeMethod(
                this, [this, text, ok, json, deviceId] { finish(text, ok, json, deviceId); }, Qt::QueuedConnection);
        });
    }

    void cancel()
    {
        m_cancelFlag = true;
        m_cancelButton->setEnabled(false);
        m_status->setText(QStringLiteral("Cancelling…"));
    }

    void finish(const QString &text, bool ok, const std::string &json, const std::string &deviceId);

    QWidget *m_tab;
    QPushButton *m_train, *m_cancelButton;
    QProgressBar *m_bar;
    QLabel *m_status;
    views::PlanShown m_plan;
    std::atomic<bool> m_cancelFlag{false};
    bool m_running = false;
    std::thread m_thread;
    std::set<std::pair<std::string, std::string>> m_restored; // (project, device) restored once
};

void Trainer::finish(const QString &text, bool ok, const std::string &json, const std::string &deviceId)
{
    if (m_thread.joinable())
        m_thread.join();
    m_running = false;
    if (ok)
        m_bar->setValue(100);
    QString shown = text;
    // The project keeps the model too (reopened elsewhere, it comes back).
    if (ok && m_plan.project && !json.empty()) {
        const Status kept = m_plan.project->setPluginData(pcgc::kProjectPlugin, pcgc::projectModelKey(deviceId), json);
        shown += kept.isOk() ? QStringLiteral(" and to the project")
                             : QStringLiteral("; not kept in the project: ") + QString::fromStdString(kept.message());
    }
    m_status->setText(shown);
    setIdle();
    if (ok && m_plan.run)
        fillModel(m_tab, m_plan); // the scatter of the model just trained
}

QWidget *makeModelTab(QWidget *parent)
{
    auto *tab = new QWidget(parent);
    tab->setObjectName(QStringLiteral("pcgcCostModel"));
    auto *layout = new QVBoxLayout(tab);
    auto *summary = new QLabel(tab);
    summary->setObjectName(QStringLiteral("pcgcModelSummary"));
    summary->setWordWrap(true);
    summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary);
    auto *row = new QHBoxLayout();
    auto *train = new QPushButton(QStringLiteral("Train"), tab);
    train->setObjectName(QStringLiteral("pcgcTrain"));
    auto *cancel = new QPushButton(QStringLiteral("Cancel"), tab);
    cancel->setObjectName(QStringLiteral("pcgcTrainCancel"));
    auto *bar = new QProgressBar(tab);
    bar->setObjectName(QStringLiteral("pcgcTrainProgress"));
    bar->setRange(0, 100);
    auto *status = new QLabel(tab);
    status->setObjectName(QStringLiteral("pcgcTrainStatus"));
    status->setWordWrap(true);
    row->addWidget(train);
    row->addWidget(cancel);
    row->addWidget(bar);
    row->addWidget(status, 1);
    layout->addLayout(row);
    new Trainer(tab, train, cancel, bar, status);
#ifdef TESSERA_PCGC_CHARTS
    auto *charts = new QHBoxLayout();
    for (const char *name : {"pcgcScatterTime", "pcgcScatterPower"}) {
        auto *chart = new QChartView(tab);
        chart->setObjectName(QString::fromLatin1(name));
        chart->setRenderHint(QPainter::Antialiasing);
        charts->addWidget(chart);
    }
    layout->addLayout(charts, 1);
#else
    auto *note = new QLabel(QStringLiteral("(built without Qt Charts: no scatter)"), tab);
    layout->addWidget(note);
#endif
    return tab;
}

// The nodes a row concerns (its trace step's touched nodes), for highlighting.
constexpr int kNodesRole = Qt::UserRole + 1;

void setNodes(QTreeWidgetItem *item, const std::vector<NodeId> &nodes)
{
    QVariantList list;
    for (NodeId n : nodes)
        list.append(QVariant::fromValue(static_cast<qint64>(n)));
    item->setData(0, kNodesRole, list);
}

// Selecting a row outlines its ops in the graph view (PlanShown::highlightNodes).
void linkToGraph(QTreeWidget *tree, const views::PlanShown &plan)
{
    QObject::disconnect(tree, &QTreeWidget::currentItemChanged, nullptr, nullptr);
    if (!plan.highlightNodes)
        return;
    QObject::connect(tree, &QTreeWidget::currentItemChanged, tree,
                     [highlight = plan.highlightNodes](QTreeWidgetItem *item, QTreeWidgetItem *) {
                         if (!item)
                             return;
                         std::vector<NodeId> nodes;
                         for (const QVariant &v : item->data(0, kNodesRole).toList())
                             nodes.push_back(static_cast<NodeId>(v.toLongLong()));
                         if (!nodes.empty())
                             highlight(std::move(nodes));
                     });
}

// The fusion records as a tree (§3.3 "record every fusion"): each fusion's
// item has the two groups it merged as children, down to single ops; the
// top-level items are the sub-graphs static fusion left, with what the
// re-cutting (§3.6) did to each. Rebuilt from the trace: a fusion step's
// touched nodes are the merged group.
void fillRecords(QTreeWidget *tree, const Graph &g, const Trace &trace)
{
    tree->clear();
    std::map<NodeId, QTreeWidgetItem *> current; // node → the newest item holding it
    std::map<QTreeWidgetItem *, std::vector<NodeId>> nodesOf;
    const auto leaf = [&](NodeId n) {
        auto *item = new QTreeWidgetItem(
            QStringList{QString::fromStdString(g.node(n).name + " (" + g.node(n).opType + ")"), QString(), QString()});
        setNodes(item, {n});
        nodesOf[item] = {n};
        return item;
    };
    std::vector<QTreeWidgetItem *> order; // items in creation order (roots are those without a parent)
    for (const TraceStep &s : trace.steps()) {
        if (s.phase != "static fusion" || s.conclusion.find(": fused") == std::string::npos)
            continue;
        std::vector<QTreeWidgetItem *> parts;
        for (NodeId n : s.touched) {
            auto it = current.find(n);
            QTreeWidgetItem *part = it != current.end() ? it->second : nullptr;
            if (!part) {
                part = leaf(n);
                current[n] = part;
                order.push_back(part);
            }
            if (std::find(parts.begin(), parts.end(), part) == parts.end())
                parts.push_back(part);
        }
        const std::string rule = s.conclusion.substr(5, s.conclusion.find(' ', 5) - 5); // "rule S1 fires: ..."
        const bool stable = s.conclusion.find("(stable)") != std::string::npos;
        auto *item = new QTreeWidgetItem(
            QStringList{QString::fromStdString(s.title), QString::fromStdString(rule),
                        stable ? QStringLiteral("stable: never split") : QStringLiteral("split point")});
        for (QTreeWidgetItem *part : parts)
            item->addChild(part);
        setNodes(item, s.touched);
        item->setData(0, Qt::UserRole, s.index);
        nodesOf[item] = s.touched;
        for (NodeId n : s.touched)
            current[n] = item;
        order.push_back(item);
    }
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n)
        if (!current.count(n)) // never fused: a sub-graph of its own
            order.push_back(leaf(n));
    std::vector<QTreeWidgetItem *> roots;
    for (QTreeWidgetItem *item : order)
        if (!item->parent())
            roots.push_back(item);
    const auto first = [&](QTreeWidgetItem *item) {
        const std::vector<NodeId> &nodes = nodesOf[item];
        return *std::min_element(nodes.begin(), nodes.end());
    };
    std::stable_sort(roots.begin(), roots.end(), [&](auto *a, auto *b) { return first(a) < first(b); });
    for (QTreeWidgetItem *item : roots)
        tree->addTopLevelItem(item);
    // What the re-cutting did to each sub-graph it judged (touched = the group).
    for (const TraceStep &s : trace.steps()) {
        if (s.phase != "re-cut" || s.decision < 0)
            continue;
        std::vector<NodeId> want = s.touched;
        std::sort(want.begin(), want.end());
        for (auto &[item, nodes] : nodesOf) {
            std::vector<NodeId> have = nodes;
            std::sort(have.begin(), have.end());
            if (have == want && item->data(3, Qt::DisplayRole).toString().isEmpty())
                item->setText(3, QString::fromStdString(s.conclusion));
        }
    }
    tree->expandAll();
}

void fill(QWidget *view, const views::PlanShown &plan)
{
    fillModel(view, plan);
    if (auto *trainer = view->findChild<QObject *>(QStringLiteral("pcgcTrainer")))
        static_cast<Trainer *>(trainer)->setPlan(plan);
    auto *rules = view->findChild<QTreeWidget *>(QStringLiteral("pcgcRuleFirings"));
    auto *recut = view->findChild<QTreeWidget *>(QStringLiteral("pcgcRecut"));
    auto *records = view->findChild<QTreeWidget *>(QStringLiteral("pcgcFusionRecords"));
    rules->clear();
    recut->clear();
    for (const TraceStep &s : plan.run->trace.steps()) {
        if (s.phase == "static fusion" && s.title.rfind("pass ", 0) != 0) {
            auto *item =
                new QTreeWidgetItem(rules, {QString::fromStdString(s.title), QString::fromStdString(s.conclusion),
                                            QString::fromStdString(s.why)});
            item->setData(0, Qt::UserRole, s.index);
            setNodes(item, s.touched);
        } else if (s.phase == "re-cut" && s.decision >= 0) {
            std::map<std::string, double> n(s.numbers.begin(), s.numbers.end());
            auto *item = new QTreeWidgetItem(
                recut, {QString::fromStdString(s.title), QString::fromStdString(s.conclusion),
                        num(n["time_before_ns"] / 1e3), num(n["time_after_ns"] / 1e3), num(n["energy_before_j"] * 1e3),
                        num(n["energy_after_j"] * 1e3), QString::fromStdString(s.why)});
            item->setData(0, Qt::UserRole, s.index);
            setNodes(item, s.touched);
        }
    }
    fillRecords(records, *plan.graph, plan.run->trace);
    for (QTreeWidget *tree : {rules, recut, records})
        linkToGraph(tree, plan);
}

} // namespace

void registerPcgcPluginViews(views::PlanExtensions &extensions)
{
    extensions.addDock(
        {QStringLiteral("pcgcDock"),
         QStringLiteral("PCGC Fusion and Re-cutting"),
         {"pcgc"},
         [](QWidget *parent) -> QWidget * {
             auto *tabs = new QTabWidget(parent);
             tabs->addTab(makeTree(tabs,
                                   {QStringLiteral("Groups"), QStringLiteral("Rule / outcome"), QStringLiteral("Why")},
                                   QStringLiteral("pcgcRuleFirings")),
                          QStringLiteral("Rule firings"));
             auto *records = makeTree(tabs,
                                      {QStringLiteral("Fused group / op"), QStringLiteral("Rule"),
                                       QStringLiteral("Record"), QStringLiteral("Re-cutting")},
                                      QStringLiteral("pcgcFusionRecords"));
             records->setRootIsDecorated(true);
             tabs->addTab(records, QStringLiteral("Fusion records"));
             tabs->addTab(
                 makeTree(tabs,
                          {QStringLiteral("Sub-graph"), QStringLiteral("Choice"), QStringLiteral("Time before (µs)"),
                           QStringLiteral("Time after (µs)"), QStringLiteral("Energy before (mJ)"),
                           QStringLiteral("Energy after (mJ)"), QStringLiteral("Why")},
                          QStringLiteral("pcgcRecut")),
                 QStringLiteral("Re-cutting"));
             tabs->addTab(makeModelTab(tabs), QStringLiteral("Cost model"));
             return tabs;
         },
         fill});
}

} // namespace tessera
