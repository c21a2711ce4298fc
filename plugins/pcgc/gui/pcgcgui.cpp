#include "plugins/pcgc/gui/pcgcgui.h"

#include "views/widgets/planextensions.h"

#include <QHeaderView>
#include <QTabWidget>
#include <QTreeWidget>

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

void fill(QWidget *view, const views::PlanShown &plan)
{
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
             return tabs;
         },
         fill});
}

} // namespace tessera
