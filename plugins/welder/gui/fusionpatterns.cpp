#include "plugins/welder/gui/fusionpatterns.h"

#include <QHeaderView>

#include <algorithm>
#include <map>
#include <set>

namespace tessera::welder {

std::vector<FusionPattern> fusionPatterns(const Graph &g, const ExecutionPlan &plan)
{
    std::map<std::string, FusionPattern> byOps;
    std::map<std::string, std::set<std::string>> strategies;
    for (const Kernel &k : plan.kernels) {
        if (k.nodes.size() < 2)
            continue;
        std::string ops;
        for (NodeId n : k.nodes)
            ops += (ops.empty() ? "" : " ") + g.node(n).opType;
        FusionPattern &p = byOps[ops];
        p.ops = ops;
        p.opCount = static_cast<int>(k.nodes.size());
        ++p.occurrences;
        strategies[ops].insert(k.strategy);
    }
    std::vector<FusionPattern> out;
    for (auto &[ops, p] : byOps) {
        for (const std::string &s : strategies[ops])
            p.levels += (p.levels.empty() ? "" : ", ") + s;
        out.push_back(p);
    }
    std::stable_sort(out.begin(), out.end(), [](const FusionPattern &a, const FusionPattern &b) {
        if (a.occurrences != b.occurrences)
            return a.occurrences > b.occurrences;
        if (a.opCount != b.opCount)
            return a.opCount > b.opCount;
        return a.ops < b.ops;
    });
    return out;
}

FusionPatternView::FusionPatternView(QWidget *parent) : QTableWidget(parent)
{
    setColumnCount(4);
    setHorizontalHeaderLabels({QStringLiteral("Fused operators"), QStringLiteral("# Ops"), QStringLiteral("Kernels"),
                               QStringLiteral("Connected at")});
    horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    verticalHeader()->hide();
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setWordWrap(true);
}

void FusionPatternView::setPlan(const Graph &g, const ExecutionPlan &plan)
{
    const auto patterns = fusionPatterns(g, plan);
    setRowCount(static_cast<int>(patterns.size()));
    for (int r = 0; r < rowCount(); ++r) {
        const FusionPattern &p = patterns[static_cast<std::size_t>(r)];
        setItem(r, 0, new QTableWidgetItem(QString::fromStdString(p.ops)));
        setItem(r, 1, new QTableWidgetItem(QString::number(p.opCount)));
        setItem(r, 2, new QTableWidgetItem(QString::number(p.occurrences)));
        setItem(r, 3, new QTableWidgetItem(QString::fromStdString(p.levels)));
    }
    resizeColumnsToContents();
    horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    resizeRowsToContents();
}

} // namespace tessera::welder
