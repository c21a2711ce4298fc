// Model summary sections (see modelsummary.h).
#include "views/models/modelsummary.h"

#include "views/models/format.h"

#include <QFileInfo>

namespace tessera::views {

namespace {
PropertyModel::Section tensorSection(const QString &title, const Graph &g, const std::vector<TensorId> &ids)
{
    PropertyModel::Section s{title, {}};
    for (TensorId id : ids) {
        const Tensor &t = g.tensor(id);
        s.rows.push_back({QString::fromStdString(t.name),
                          QStringLiteral("%1  %2").arg(QString::fromLatin1(dtypeName(t.dtype)), formatShape(t.shape)),
                          {}});
    }
    return s;
}
} // namespace

std::vector<PropertyModel::Section> summarySections(const ModelData &data, std::int64_t dagWidth)
{
    const Graph &g = *data.graph;
    std::vector<PropertyModel::Section> sections;

    PropertyModel::Section model{QStringLiteral("Model"), {}};
    if (!data.path.empty()) {
        const QString path = QString::fromStdString(data.path);
        model.rows.push_back({QStringLiteral("File"), QFileInfo(path).fileName(), path});
    }
    if (!g.name.empty())
        model.rows.push_back({QStringLiteral("Graph"), QString::fromStdString(g.name), {}});
    model.rows.push_back({QStringLiteral("Opset"), QString::number(g.opsetVersion), {}});
    for (const auto &[key, value] : data.metadata)
        model.rows.push_back({QString::fromStdString(key), QString::fromStdString(value), {}});
    sections.push_back(std::move(model));

    std::int64_t initializers = 0;
    for (const Tensor &t : g.tensors())
        initializers += t.kind == Tensor::Kind::Initializer;
    PropertyModel::Section counts{QStringLiteral("Structure"), {}};
    counts.rows.push_back({QStringLiteral("Nodes"), QString::number(g.nodeCount()), {}});
    counts.rows.push_back({QStringLiteral("Edges"), QString::number(g.edgeCount()), {}});
    counts.rows.push_back({QStringLiteral("Tensors"), QString::number(g.tensorCount()), {}});
    counts.rows.push_back({QStringLiteral("Initializers"), QString::number(initializers), {}});
    counts.rows.push_back({QStringLiteral("Groups"),
                           QString::number(data.hierarchy.groups().empty() ? 0 : data.hierarchy.groups().size() - 1),
                           {}});
    counts.rows.push_back({QStringLiteral("DAG width"),
                           dagWidth < 0 ? QStringLiteral("computing…") : QString::number(dagWidth),
                           QStringLiteral("most operators that could run at once (maximum antichain)")});
    sections.push_back(std::move(counts));

    const NodeMetrics &t = data.metrics.total;
    PropertyModel::Section totals{QStringLiteral("Totals"), {}};
    totals.rows.push_back({QStringLiteral("FLOPs"), formatFlops(t.flops), QString::number(t.flops, 'f', 0)});
    totals.rows.push_back({QStringLiteral("Params"), formatCount(static_cast<double>(data.metrics.parameters)),
                           QString::number(data.metrics.parameters)});
    totals.rows.push_back({QStringLiteral("Weights"), formatBytes(data.metrics.weightBytes), {}});
    totals.rows.push_back(
        {QStringLiteral("Activations"), formatBytes(t.outputBytes), QStringLiteral("sum of all node outputs")});
    totals.rows.push_back({QStringLiteral("Arithmetic intensity"),
                           formatRatio(t.intensity()) + QStringLiteral(" FLOP/B"),
                           QStringLiteral("total FLOPs / total bytes moved, no reuse")});
    sections.push_back(std::move(totals));

    sections.push_back(tensorSection(QStringLiteral("Inputs"), g, g.inputs));
    sections.push_back(tensorSection(QStringLiteral("Outputs"), g, g.outputs));
    return sections;
}

} // namespace tessera::views
