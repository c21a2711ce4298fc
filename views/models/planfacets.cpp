// Plan facets as node categories (see planfacets.h).
#include "views/models/planfacets.h"

#include <QStringList>

#include <algorithm>
#include <map>
#include <set>

namespace tessera::views {

namespace {

// "3", "0–3" or "2, 5, 9": a sorted set of indices, runs collapsed.
QString indexSet(const std::set<int> &values)
{
    QStringList parts;
    for (auto it = values.begin(); it != values.end();) {
        int first = *it, last = first;
        while (++it != values.end() && *it == last + 1)
            last = *it;
        parts << (last == first       ? QString::number(first)
                  : last == first + 1 ? QStringLiteral("%1, %2").arg(first).arg(last)
                                      : QStringLiteral("%1–%2").arg(first).arg(last));
    }
    return parts.join(QStringLiteral(", "));
}

// "stage 3", "stages 2, 5"; `none` when every value is -1.
QString labelOf(const std::set<int> &values, const QString &one, const QString &many, const QString &none)
{
    std::set<int> bound;
    for (int v : values)
        if (v >= 0)
            bound.insert(v);
    if (bound.empty())
        return none;
    return (bound.size() == 1 ? one : many) + QLatin1Char(' ') + indexSet(bound);
}

QString bindingLabel(const Binding &b)
{
    QStringList parts;
    if (b.cluster >= 0)
        parts << QStringLiteral("cluster %1").arg(b.cluster);
    if (b.core >= 0)
        parts << (b.coreCount > 1 ? QStringLiteral("cores %1–%2").arg(b.core).arg(b.core + b.coreCount - 1)
                                  : QStringLiteral("core %1").arg(b.core));
    if (b.unit >= 0)
        parts << QStringLiteral("unit %1").arg(b.unit);
    if (b.stream >= 0)
        parts << QStringLiteral("stream %1").arg(b.stream);
    return parts.isEmpty() ? QStringLiteral("unbound") : parts.join(QStringLiteral(" · "));
}

} // namespace

QString planFacetName(PlanFacet facet)
{
    switch (facet) {
    case PlanFacet::Kernel: return QStringLiteral("kernel");
    case PlanFacet::Stage: return QStringLiteral("stage");
    case PlanFacet::Stream: return QStringLiteral("stream");
    case PlanFacet::Binding: return QStringLiteral("binding");
    case PlanFacet::MemoryLevel: return QStringLiteral("memory level");
    }
    return {};
}

std::vector<NodeId> NodeCategories::nodesOf(int category) const
{
    std::vector<NodeId> out;
    for (std::size_t n = 0; n < perNode.size(); ++n)
        if (perNode[n] == category && category >= 0)
            out.push_back(static_cast<NodeId>(n));
    return out;
}

NodeCategories planCategories(const Graph &graph, const ExecutionPlan &plan, PlanFacet facet)
{
    const std::size_t nodeCount = graph.nodeCount();
    // The kernel of every node (the first that lists it).
    std::vector<KernelId> kernelOf(nodeCount, -1);
    for (const Kernel &k : plan.kernels)
        for (NodeId n : k.nodes)
            if (n >= 0 && static_cast<std::size_t>(n) < nodeCount && kernelOf[static_cast<std::size_t>(n)] < 0)
                kernelOf[static_cast<std::size_t>(n)] = k.id;

    // Per kernel, the label of its compute tasks under `facet`.
    std::map<KernelId, QString> kernelLabel;
    if (facet == PlanFacet::Kernel) {
        for (const Kernel &k : plan.kernels)
            kernelLabel[k.id] = QString::fromStdString(k.name);
    } else if (facet != PlanFacet::MemoryLevel) {
        std::map<KernelId, std::vector<const Task *>> tasksOf;
        for (const Task &t : plan.tasks)
            if (t.kind == TaskKind::Compute && t.kernel >= 0)
                tasksOf[t.kernel].push_back(&t);
        for (const auto &[kernel, tasks] : tasksOf) {
            std::set<int> values;
            std::set<QString> bindings;
            for (const Task *t : tasks) {
                values.insert(facet == PlanFacet::Stage ? t->stage : t->binding.stream);
                bindings.insert(bindingLabel(t->binding));
            }
            if (facet == PlanFacet::Stage)
                kernelLabel[kernel] =
                    labelOf(values, QStringLiteral("stage"), QStringLiteral("stages"), QStringLiteral("no stage"));
            else if (facet == PlanFacet::Stream)
                kernelLabel[kernel] =
                    labelOf(values, QStringLiteral("stream"), QStringLiteral("streams"), QStringLiteral("unbound"));
            else
                kernelLabel[kernel] =
                    bindings.size() == 1 ? *bindings.begin() : QStringLiteral("%1 bindings").arg(bindings.size());
        }
    }

    // Per tensor, the levels of the buffers that hold it, in plan order.
    std::map<TensorId, QStringList> levelsOf;
    if (facet == PlanFacet::MemoryLevel)
        for (const Buffer &b : plan.buffers) {
            if (b.tensor == kInvalidId)
                continue;
            const QString level = b.level.empty() ? QStringLiteral("default") : QString::fromStdString(b.level);
            QStringList &levels = levelsOf[b.tensor];
            if (!levels.contains(level))
                levels << level;
        }

    NodeCategories out;
    out.perNode.assign(nodeCount, -1);
    std::map<QString, int> index;
    for (std::size_t n = 0; n < nodeCount; ++n) {
        const KernelId k = kernelOf[n];
        if (k < 0)
            continue;
        QString label;
        if (facet == PlanFacet::MemoryLevel) {
            const Node &node = graph.node(static_cast<NodeId>(n));
            auto it = node.outputs.empty() ? levelsOf.end() : levelsOf.find(node.outputs.front());
            label = it == levelsOf.end() ? QStringLiteral("no buffer") : it->second.join(QStringLiteral(" + "));
        } else {
            auto it = kernelLabel.find(k);
            label = it == kernelLabel.end() ? QStringLiteral("no task") : it->second;
        }
        auto [pos, added] = index.emplace(label, static_cast<int>(out.names.size()));
        if (added)
            out.names.push_back(label);
        out.perNode[n] = pos->second;
    }
    return out;
}

} // namespace tessera::views
