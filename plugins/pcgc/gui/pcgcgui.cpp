#include "plugins/pcgc/gui/pcgcgui.h"

#include "plugins/pcgc/learnedcost.h"
#include "views/widgets/planextensions.h"

#include <QHeaderView>
#include <QLabel>
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
#include <cmath>
#include <map>

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

void fill(QWidget *view, const views::PlanShown &plan)
{
    fillModel(view, plan);
    auto *rules = view->findChild<QTreeWidget *>(QStringLiteral("pcgcRuleFirings"));
    auto *recut = view->findChild<QTreeWidget *>(QStringLiteral("pcgcRecut"));
    rules->clear();
    recut->clear();
    for (const TraceStep &s : plan.run->trace.steps()) {
        if (s.phase == "static fusion" && s.title.rfind("pass ", 0) != 0) {
            auto *item =
                new QTreeWidgetItem(rules, {QString::fromStdString(s.title), QString::fromStdString(s.conclusion),
                                            QString::fromStdString(s.why)});
            item->setData(0, Qt::UserRole, s.index);
        } else if (s.phase == "re-cut" && s.decision >= 0) {
            std::map<std::string, double> n(s.numbers.begin(), s.numbers.end());
            auto *item =
                new QTreeWidgetItem(recut, {QString::fromStdString(s.title), QString::fromStdString(s.conclusion),
                                            num(n["time_before_ns"] / 1e3), num(n["time_after_ns"] / 1e3),
                                            num(n["energy_before_j"] * 1e3), num(n["energy_after_j"] * 1e3)});
            item->setData(0, Qt::UserRole, s.index);
        }
    }
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
             tabs->addTab(makeTree(tabs,
                                   {QStringLiteral("Sub-graph"), QStringLiteral("Choice"),
                                    QStringLiteral("Time before (µs)"), QStringLiteral("Time after (µs)"),
                                    QStringLiteral("Energy before (mJ)"), QStringLiteral("Energy after (mJ)")},
                                   QStringLiteral("pcgcRecut")),
                          QStringLiteral("Re-cutting"));
             tabs->addTab(makeModelTab(tabs), QStringLiteral("Cost model"));
             return tabs;
         },
         fill});
}

} // namespace tessera
