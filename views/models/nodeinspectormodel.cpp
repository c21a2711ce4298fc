// NodeInspectorModel (see nodeinspectormodel.h).
#include "views/models/nodeinspectormodel.h"

#include "views/models/format.h"

#include <algorithm>
#include <map>

namespace tessera::views {

namespace {
QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

PropertyModel::Row tensorRow(const Graph &g, TensorId id, std::size_t slot)
{
    if (id == kInvalidId)
        return {QStringLiteral("#%1").arg(slot), QStringLiteral("(omitted)"), {}};
    const Tensor &t = g.tensor(id);
    QString value = QStringLiteral("%1  %2  %3")
                        .arg(QString::fromLatin1(dtypeName(t.dtype)), formatShape(t.shape), formatBytes(t.bytes()));
    if (t.kind == Tensor::Kind::Initializer)
        value += QStringLiteral("  (weight)");
    else if (t.kind == Tensor::Kind::Input)
        value += QStringLiteral("  (graph input)");
    return {qs(t.name), value, {}};
}

QString kindTitle(Group::Kind kind)
{
    switch (kind) {
    case Group::Kind::Root: return QStringLiteral("Model");
    case Group::Kind::Stage: return QStringLiteral("Stage");
    case Group::Kind::Block: return QStringLiteral("Block");
    case Group::Kind::Layer: return QStringLiteral("Layer");
    }
    return {};
}
} // namespace

std::vector<PropertyModel::Row> costRows(const NodeMetrics &m)
{
    return {
        {QStringLiteral("FLOPs"), formatFlops(m.flops), QString::number(m.flops, 'f', 0)},
        {QStringLiteral("Bytes read"), formatBytes(m.bytesRead), QString::number(m.bytesRead)},
        {QStringLiteral("Bytes written"), formatBytes(m.bytesWritten), QString::number(m.bytesWritten)},
        {QStringLiteral("Arithmetic intensity"), formatRatio(m.intensity()) + QStringLiteral(" FLOP/B"), {}},
        {QStringLiteral("Params"), formatCount(static_cast<double>(m.params)), QString::number(m.params)},
        {QStringLiteral("Output size"), formatBytes(m.outputBytes), QString::number(m.outputBytes)},
    };
}

NodeInspectorModel::NodeInspectorModel(QObject *parent) : PropertyModel(parent) {}

void NodeInspectorModel::showNode(std::shared_ptr<const ModelData> data, NodeId id)
{
    const Graph &g = *data->graph;
    const Node &n = g.node(id);
    std::vector<Section> sections;

    Section node{QStringLiteral("Node"), {}};
    node.rows.push_back({QStringLiteral("Name"), qs(n.name), {}});
    node.rows.push_back({QStringLiteral("Op type"), qs(n.opType), {}});
    node.rows.push_back({QStringLiteral("Domain"), n.domain.empty() ? QStringLiteral("ai.onnx") : qs(n.domain), {}});
    const GroupId grp = data->hierarchy.groupOf(id);
    if (grp > 0)
        node.rows.push_back({QStringLiteral("Group"), qs(data->hierarchy.group(grp).path), {}});
    if (n.opaque)
        node.rows.push_back({QStringLiteral("Opaque"), QStringLiteral("yes: unknown to Tessera, never fused"), {}});
    sections.push_back(std::move(node));

    if (!n.attrs.empty()) {
        Section attrs{QStringLiteral("Attributes"), {}};
        for (const auto &[key, attr] : n.attrs)
            attrs.rows.push_back({qs(key), qs(attr.str()), {}});
        sections.push_back(std::move(attrs));
    }
    Section inputs{QStringLiteral("Inputs"), {}};
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
        inputs.rows.push_back(tensorRow(g, n.inputs[i], i));
    sections.push_back(std::move(inputs));
    Section outputs{QStringLiteral("Outputs"), {}};
    for (std::size_t i = 0; i < n.outputs.size(); ++i)
        outputs.rows.push_back(tensorRow(g, n.outputs[i], i));
    sections.push_back(std::move(outputs));
    sections.push_back({QStringLiteral("Cost"), costRows(data->metrics.nodes[static_cast<std::size_t>(id)])});

    m_title = QStringLiteral("%1 (%2)").arg(qs(n.name), qs(n.opType));
    m_node = id;
    m_group = -1;
    m_data = std::move(data);
    setSections(std::move(sections));
}

void NodeInspectorModel::showGroup(std::shared_ptr<const ModelData> data, GroupId id)
{
    const Graph &g = *data->graph;
    const Group &grp = data->hierarchy.group(id);
    const std::vector<NodeId> nodes = data->hierarchy.nodesUnder(id);
    std::vector<Section> sections;

    Section group{QStringLiteral("Group"), {}};
    group.rows.push_back({QStringLiteral("Name"), qs(grp.name), {}});
    if (!grp.path.empty())
        group.rows.push_back({QStringLiteral("Path"), qs(grp.path), {}});
    group.rows.push_back({QStringLiteral("Kind"), kindTitle(grp.kind), {}});
    group.rows.push_back({QStringLiteral("Nodes"), QString::number(nodes.size()), {}});
    if (!grp.children.empty())
        group.rows.push_back({QStringLiteral("Sub-groups"), QString::number(grp.children.size()), {}});
    sections.push_back(std::move(group));
    sections.push_back({QStringLiteral("Totals"), costRows(sumMetrics(data->metrics, nodes))});

    std::map<std::string, int> counts;
    for (NodeId n : nodes)
        ++counts[g.node(n).opType];
    std::vector<std::pair<std::string, int>> ops(counts.begin(), counts.end());
    std::stable_sort(ops.begin(), ops.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    Section opsSection{QStringLiteral("Operators"), {}};
    for (const auto &[op, count] : ops)
        opsSection.rows.push_back({qs(op), QString::number(count), {}});
    sections.push_back(std::move(opsSection));

    m_title = QStringLiteral("%1 (%2 nodes)").arg(qs(grp.name)).arg(nodes.size());
    m_node = kInvalidId;
    m_group = id;
    m_data = std::move(data);
    setSections(std::move(sections));
}

void NodeInspectorModel::clearSelection()
{
    m_title.clear();
    m_node = kInvalidId;
    m_group = -1;
    m_data.reset();
    clear();
}

} // namespace tessera::views
