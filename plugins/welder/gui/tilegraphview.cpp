#include "plugins/welder/gui/tilegraphview.h"

#include "core/ir/analysis.h"
#include "core/plan/tiles.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessera::welder {

namespace {

constexpr double kBoxW = 150, kBoxH = 44, kGapX = 60, kGapY = 36, kMargin = 16, kHeaderH = 60;

QString shapeText(const ops::Region &r)
{
    QStringList parts;
    for (const ops::Interval &i : r)
        parts << QString::number(i.size());
    return parts.isEmpty() ? QStringLiteral("scalar") : parts.join(QLatin1Char('x'));
}

QColor kernelColor(int k)
{
    return QColor::fromHsv((k * 67) % 360, 40, 250);
}

} // namespace

TileGraphView::TileGraphView(QWidget *parent) : QWidget(parent)
{
    setAutoFillBackground(true);
    QPalette p = palette();
    p.setColor(QPalette::Window, Qt::white);
    setPalette(p);
}

QColor TileGraphView::levelColor(const QString &level)
{
    if (level == QLatin1String("REG"))
        return QColor(0x2e, 0x9d, 0x3a);
    if (level == QLatin1String("SMEM") || level == QLatin1String("L1"))
        return QColor(0xe6, 0x7e, 0x00);
    if (level == QLatin1String("LLB"))
        return QColor(0x1f, 0x6f, 0xd1);
    return QColor(0x99, 0x99, 0x99); // not connected: the slowest level
}

QString TileGraphView::nodeLabel(NodeId n) const
{
    auto it = m_boxOf.find(n);
    return it == m_boxOf.end() ? QString() : m_boxes[it->second].tile;
}

QSize TileGraphView::sizeHint() const
{
    return m_size;
}

void TileGraphView::setRun(const Graph &g, const ScheduleRun &run)
{
    m_boxes.clear();
    m_boxOf.clear();
    m_edgeLevel.clear();
    m_levels.clear();
    const ExecutionPlan &plan = run.result.plan;

    // Levels of the edges from the connect decisions.
    std::map<std::string, std::string> chosen;
    for (const DecisionRecord &r : run.decisions.records())
        if (r.role == "welder.connect")
            chosen[r.key] = r.options[static_cast<std::size_t>(r.chosen)].id;
    QString slowest;
    for (NodeId p = 0; p < static_cast<NodeId>(g.nodeCount()); ++p)
        for (NodeId c : g.successors(p)) {
            auto it = chosen.find(decisionKey("welder.connect", {g.node(p).name, g.node(c).name}));
            const QString level = it == chosen.end() ? QString() : QString::fromStdString(it->second);
            m_edgeLevel[{p, c}] = level;
            if (!level.isEmpty() && !m_levels.contains(level))
                m_levels << level;
        }
    m_levelOrder.clear();
    m_selected = kInvalidId;
    for (const DecisionRecord &r : run.decisions.records())
        if (r.role == "welder.connect" && !r.options.empty()) {
            slowest = QString::fromStdString(r.options[0].id);
            for (const DecisionOption &o : r.options)
                m_levelOrder << QString::fromStdString(o.id);
            break;
        }

    // Kernel of each node and the tile its first task shows.
    std::vector<int> kernelOf(g.nodeCount(), -1);
    for (const Kernel &k : plan.kernels)
        for (NodeId n : k.nodes)
            kernelOf[static_cast<std::size_t>(n)] = k.id;
    std::map<NodeId, QString> tiles;
    std::vector<bool> firstSeen(plan.kernels.size(), false);
    for (const Task &t : plan.tasks) {
        if (t.kind != TaskKind::Compute || firstSeen[static_cast<std::size_t>(t.kernel)])
            continue;
        firstSeen[static_cast<std::size_t>(t.kernel)] = true;
        for (const NodeTile &nt : t.tiles)
            tiles[nt.node] = QStringLiteral("out ") + shapeText(nt.region);
        // Nodes inside: the region of their output the task computes, and the level it is held at.
        const Kernel &k = plan.kernels[static_cast<std::size_t>(t.kernel)];
        if (auto regions = taskRegions(g, k, t.tiles); regions && !t.tiles.empty())
            for (NodeId n : k.nodes) {
                const TensorId out = g.node(n).outputs.empty() ? kInvalidId : g.node(n).outputs[0];
                auto it = out == kInvalidId ? regions->computed.end() : regions->computed.find(out);
                if (tiles.count(n) || it == regions->computed.end())
                    continue;
                QString level;
                for (NodeId c : g.successors(n)) {
                    auto e = m_edgeLevel.find({n, c});
                    if (e != m_edgeLevel.end() && std::find(k.nodes.begin(), k.nodes.end(), c) != k.nodes.end())
                        level = e->second;
                }
                tiles[n] = (level.isEmpty() ? QString() : level + QLatin1Char(' ')) + shapeText(it->second);
            }
        if (t.tiles.empty())
            for (NodeId n : plan.kernels[static_cast<std::size_t>(t.kernel)].nodes)
                tiles[n] = QStringLiteral("whole");
    }

    // Layout: column = longest path from the inputs.
    auto order = topologicalOrder(g);
    std::vector<int> depth(g.nodeCount(), 0);
    if (order)
        for (NodeId n : *order)
            for (NodeId p : g.predecessors(n))
                depth[static_cast<std::size_t>(n)] =
                    std::max(depth[static_cast<std::size_t>(n)], depth[static_cast<std::size_t>(p)] + 1);
    std::map<int, int> rows;
    double maxX = 0, maxY = 0;
    if (order)
        for (NodeId n : *order) {
            const int col = depth[static_cast<std::size_t>(n)];
            const int row = rows[col]++;
            Box b;
            b.node = n;
            b.rect = QRectF(kMargin + col * (kBoxW + kGapX), kMargin + kHeaderH + row * (kBoxH + kGapY), kBoxW, kBoxH);
            b.title = QString::fromStdString(g.node(n).name + " · " + g.node(n).opType);
            b.tile = tiles.count(n) ? tiles[n] : QStringLiteral("REG tile");
            b.kernel = kernelOf[static_cast<std::size_t>(n)];
            maxX = std::max(maxX, b.rect.right());
            maxY = std::max(maxY, b.rect.bottom());
            m_boxOf[n] = m_boxes.size();
            m_boxes.push_back(b);
        }
    m_size = QSize(static_cast<int>(std::max(maxX + 2 * kMargin, 520.0)), static_cast<int>(maxY + 2 * kMargin));

    std::map<QString, int> perLevel;
    for (const auto &[e, level] : m_edgeLevel)
        ++perLevel[level.isEmpty() ? QStringLiteral("?") : level];
    QStringList counts;
    for (const auto &[level, n] : perLevel)
        counts << QStringLiteral("%1 %2").arg(level).arg(n);
    const auto &stats = run.result.stats;
    const double traffic = stats.count("global_traffic_bytes") ? stats.at("global_traffic_bytes") : 0.0;
    m_header = QStringLiteral("%1 kernels · edges %2 · traffic at %3 %4 MB · est. %5 µs")
                   .arg(plan.kernels.size())
                   .arg(counts.join(QStringLiteral(", ")))
                   .arg(slowest.isEmpty() ? QStringLiteral("global") : slowest)
                   .arg(traffic / 1e6, 0, 'f', 2)
                   .arg(plan.estimatedLatencyNs() / 1e3, 0, 'f', 1);
    if (!slowest.isEmpty() && !m_levels.contains(slowest))
        m_levels.prepend(slowest);
    resize(m_size);
    updateGeometry();
    update();
}

std::vector<std::vector<NodeId>> TileGraphView::groups(int level) const
{
    // Union-find over the drawn nodes, joining edges connected above `level`.
    std::map<NodeId, NodeId> parent;
    for (const Box &b : m_boxes)
        parent[b.node] = b.node;
    std::function<NodeId(NodeId)> find = [&](NodeId n) { return parent[n] == n ? n : parent[n] = find(parent[n]); };
    for (const auto &[e, name] : m_edgeLevel) {
        const int l = static_cast<int>(m_levelOrder.indexOf(name));
        if (l > level && parent.count(e.first) && parent.count(e.second))
            parent[find(e.first)] = find(e.second);
    }
    std::map<NodeId, std::vector<NodeId>> byRoot;
    for (const Box &b : m_boxes) // topological order
        byRoot[find(b.node)].push_back(b.node);
    std::vector<std::vector<NodeId>> out;
    for (auto &[root, members] : byRoot)
        out.push_back(std::move(members));
    std::sort(out.begin(), out.end(),
              [&](const auto &a, const auto &b) { return m_boxOf.at(a.front()) < m_boxOf.at(b.front()); });
    return out;
}

void TileGraphView::setGroupDepth(int depth)
{
    m_depth = depth;
    update();
}

NodeId TileGraphView::nodeAt(const QPointF &pos) const
{
    for (const Box &b : m_boxes)
        if (b.rect.contains(pos))
            return b.node;
    return kInvalidId;
}

QRectF TileGraphView::nodeRect(NodeId n) const
{
    auto it = m_boxOf.find(n);
    return it == m_boxOf.end() ? QRectF() : m_boxes[it->second].rect;
}

void TileGraphView::mousePressEvent(QMouseEvent *event)
{
    m_selected = nodeAt(event->position());
    if (m_selected != kInvalidId && m_select)
        m_select(m_selected);
    update();
}

void TileGraphView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    // Fig. 5 grouping: halos of the sub-graphs at levels 0..depth, lower levels wider and behind.
    struct GroupLabel {
        QPointF at;
        int level;
        QColor colour;
    };
    std::vector<GroupLabel> labels;
    for (int l = 0; l <= m_depth && l + 1 < m_levelOrder.size(); ++l) {
        const double margin = 16.0 - 6.0 * l;
        int index = 0;
        for (const std::vector<NodeId> &group : groups(l)) {
            ++index;
            if (group.size() < 2)
                continue;
            QColor c = QColor::fromHsv((index * 67 + l * 140) % 360, 90 - 20 * l, 235 - 15 * l);
            p.setPen(Qt::NoPen);
            p.setBrush(c);
            for (NodeId n : group)
                p.drawRoundedRect(nodeRect(n).adjusted(-margin, -margin, margin, margin), 9, 9);
            QPen band(c, kBoxH + 2 * margin, Qt::SolidLine, Qt::RoundCap);
            p.setPen(band);
            for (const auto &[e, name] : m_edgeLevel)
                if (m_levelOrder.indexOf(name) > l && std::find(group.begin(), group.end(), e.first) != group.end())
                    p.drawLine(nodeRect(e.first).center(), nodeRect(e.second).center());
            labels.push_back({nodeRect(group.front()).bottomLeft() + QPointF(2 + 20 * l, margin - 1), l, c});
        }
    }
    // The level labels on top of every halo (a lower level's label reaches into the next level's halo).
    QFont small = p.font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    small.setBold(true);
    p.setFont(small);
    for (const GroupLabel &label : labels) {
        p.setPen(label.colour.darker(170));
        p.drawText(label.at, QStringLiteral("L%1").arg(label.level));
    }
    p.setFont(font());
    p.setPen(Qt::black);
    p.drawText(QPointF(kMargin, kMargin + 12), m_header);
    // Legend.
    double x = kMargin;
    for (const QString &level : m_levels) {
        QPen pen(levelColor(level), 3);
        if (levelColor(level) == levelColor(QString()))
            pen.setStyle(Qt::DashLine);
        p.setPen(pen);
        p.drawLine(QPointF(x, kMargin + 30), QPointF(x + 28, kMargin + 30));
        p.setPen(Qt::black);
        const QString text = level + (levelColor(level) == levelColor(QString()) ? QStringLiteral(" (not connected)")
                                                                                 : QStringLiteral(" connected"));
        p.drawText(QPointF(x + 34, kMargin + 34), text);
        x += 48 + p.fontMetrics().horizontalAdvance(text);
    }
    // Edges.
    for (const auto &[e, level] : m_edgeLevel) {
        auto a = m_boxOf.find(e.first), b = m_boxOf.find(e.second);
        if (a == m_boxOf.end() || b == m_boxOf.end())
            continue;
        const QRectF &ra = m_boxes[a->second].rect, &rb = m_boxes[b->second].rect;
        const QPointF from(ra.right(), ra.center().y()), to(rb.left(), rb.center().y());
        QPainterPath path(from);
        const double dx = std::max(20.0, (to.x() - from.x()) / 2);
        if (to.x() - from.x() > kGapX + 1 && std::abs(to.y() - from.y()) < 1) {
            // Skips a column on the same row: arc over the boxes in between.
            const double top = ra.top() - kGapY / 2;
            path = QPainterPath(QPointF(ra.center().x(), ra.top()));
            path.cubicTo(QPointF(ra.center().x(), top - 6), QPointF(rb.center().x(), top - 6),
                         QPointF(rb.center().x(), rb.top()));
        } else {
            path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
        }
        QPen pen(levelColor(level), level.isEmpty() || levelColor(level) == levelColor(QString()) ? 1.5 : 3);
        if (levelColor(level) == levelColor(QString()))
            pen.setStyle(Qt::DashLine);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setBrush(pen.color());
        p.setPen(Qt::NoPen);
        p.drawEllipse(path.currentPosition(), 3, 3);
    }
    // Nodes.
    for (const Box &b : m_boxes) {
        p.setBrush(kernelColor(b.kernel));
        p.setPen(QPen(QColor(0x55, 0x55, 0x55), 1));
        p.drawRoundedRect(b.rect, 5, 5);
        p.setPen(Qt::black);
        const QRectF inner = b.rect.adjusted(5, 3, -5, -3);
        const QString title = p.fontMetrics().elidedText(b.title, Qt::ElideRight, static_cast<int>(inner.width()));
        p.drawText(inner, Qt::AlignLeft | Qt::AlignTop, title);
        p.setPen(QColor(0x33, 0x33, 0x99));
        p.drawText(inner, Qt::AlignLeft | Qt::AlignBottom, QStringLiteral("k%1 · %2").arg(b.kernel).arg(b.tile));
        if (b.node == m_selected) {
            p.setPen(QPen(QColor(0x1f, 0x4e, 0xd8), 3));
            p.setBrush(Qt::NoBrush);
            p.drawRoundedRect(b.rect.adjusted(-2, -2, 2, 2), 6, 6);
        }
    }
}

} // namespace tessera::welder
