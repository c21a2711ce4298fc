#include "views/models/stagemodel.h"

#include "core/hw/device.h"
#include "core/ops/ops.h"
#include "core/sched/scheduler.h"
#include "views/models/format.h"

#include <QList>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace tessera::views {

namespace {

using LaneKey = std::pair<int, std::int32_t>; // (StageLane::Kind, id)

LaneKey laneKeyOf(const Binding &b)
{
    using K = StageLane::Kind;
    if (b.stream >= 0)
        return {int(K::Stream), b.stream};
    if (b.core >= 0)
        return {int(K::Core), std::max(0, b.cluster) * 4096 + b.core};
    if (b.cluster >= 0)
        return {int(K::Cluster), b.cluster};
    return {int(K::Unbound), 0};
}

QString laneLabel(const LaneKey &k)
{
    switch (static_cast<StageLane::Kind>(k.first)) {
    case StageLane::Kind::Stream: return QStringLiteral("stream %1").arg(k.second);
    case StageLane::Kind::Core:
        return k.second >= 4096 ? QStringLiteral("core %1.%2").arg(k.second / 4096).arg(k.second % 4096)
                                : QStringLiteral("core %1").arg(k.second);
    case StageLane::Kind::Cluster: return QStringLiteral("cluster %1").arg(k.second);
    case StageLane::Kind::Unbound: break;
    }
    return QStringLiteral("unbound");
}

// S1: the plan must belong to the graph, and its ids and dependencies must be
// what estimatedTimeline() asserts.
Status checkPlan(const Graph &g, const ExecutionPlan &plan)
{
    const auto nodes = static_cast<NodeId>(g.nodeCount());
    for (const Kernel &k : plan.kernels)
        for (NodeId n : k.nodes)
            if (n < 0 || n >= nodes)
                return Status::error(ErrorCode::InvalidInput, "plan kernel '" + k.name + "' names node " +
                                                                  std::to_string(n) + ", the graph has " +
                                                                  std::to_string(nodes) + " nodes");
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
        const Task &t = plan.tasks[i];
        const std::string name = "plan task " + std::to_string(i);
        if (t.id != static_cast<TaskId>(i))
            return Status::error(ErrorCode::InvalidInput, name + " has id " + std::to_string(t.id));
        for (TaskId d : t.deps)
            if (d < 0 || d >= t.id)
                return Status::error(ErrorCode::InvalidInput,
                                     name + " depends on task " + std::to_string(d) + ", which is not earlier");
        if (t.kind != TaskKind::Compute)
            continue;
        if (t.kernel < 0 || t.kernel >= static_cast<KernelId>(plan.kernels.size()))
            return Status::error(ErrorCode::InvalidInput, name + " runs kernel " + std::to_string(t.kernel) +
                                                              ", the plan has " + std::to_string(plan.kernels.size()));
        for (const NodeTile &tile : t.tiles)
            if (tile.node < 0 || tile.node >= nodes)
                return Status::error(ErrorCode::InvalidInput, name + " tiles node " + std::to_string(tile.node) +
                                                                  ", the graph has " + std::to_string(nodes) +
                                                                  " nodes");
    }
    return {};
}

// S2: a measured timeline must time every task exactly once.
Expected<std::vector<TaskTiming>> timingOf(const ExecutionPlan &plan, const std::vector<TaskTiming> *measured)
{
    if (!measured)
        return plan.estimatedTimeline();
    std::vector<TaskTiming> out(plan.tasks.size());
    std::vector<char> seen(plan.tasks.size(), 0);
    for (const TaskTiming &t : *measured) {
        if (t.task < 0 || t.task >= static_cast<TaskId>(plan.tasks.size()))
            return Status::error(ErrorCode::InvalidInput, "timeline: task " + std::to_string(t.task) +
                                                              " is not in the plan (" +
                                                              std::to_string(plan.tasks.size()) + " tasks)");
        if (seen[static_cast<std::size_t>(t.task)]++)
            return Status::error(ErrorCode::InvalidInput,
                                 "timeline: task " + std::to_string(t.task) + " is timed twice");
        if (!(t.endNs >= t.startNs))
            return Status::error(ErrorCode::InvalidInput,
                                 "timeline: task " + std::to_string(t.task) + " ends before it starts");
        out[static_cast<std::size_t>(t.task)] = t;
    }
    if (const auto it = std::find(seen.begin(), seen.end(), 0); it != seen.end())
        return Status::error(ErrorCode::InvalidInput, "timeline: task " + std::to_string(it - seen.begin()) +
                                                          " has no timing (the plan has " +
                                                          std::to_string(plan.tasks.size()) + " tasks)");
    return out;
}

class FlopCounter
{
public:
    explicit FlopCounter(const Graph &g) : m_graph(g), m_flops(g.nodeCount(), -1.0) {}

    double node(NodeId n)
    {
        double &f = m_flops[static_cast<std::size_t>(n)];
        if (f < 0) {
            const Node &node = m_graph.node(n);
            f = node.opaque ? 0.0 : std::max(0.0, ops::opCost(m_graph, node).flops);
        }
        return f;
    }

    // The share of node n's output `output` that `region` covers (1 for an empty region).
    double share(NodeId n, std::int32_t output, const ops::Region &region) const
    {
        const Node &node = m_graph.node(n);
        const Tensor *t = output >= 0 && static_cast<std::size_t>(output) < node.outputs.size()
                              ? m_graph.output(node, static_cast<std::size_t>(output))
                              : nullptr;
        const std::int64_t all = t ? t->elements() : 0;
        if (region.empty() || all <= 0)
            return 1.0;
        return std::clamp(static_cast<double>(ops::regionElements(region)) / static_cast<double>(all), 0.0, 1.0);
    }

private:
    const Graph &m_graph;
    std::vector<double> m_flops;
};

DType floatDtypeOf(const Graph &g, NodeId n)
{
    const Node &node = g.node(n);
    const Tensor *out = node.outputs.empty() ? nullptr : g.output(node, 0);
    return out && isFloat(out->dtype) ? out->dtype : DType::Float32;
}

} // namespace

std::vector<NodeId> StageLayout::columnNodes(std::int32_t column) const
{
    std::vector<NodeId> out;
    if (column < 0 || static_cast<std::size_t>(column) >= columns.size())
        return out;
    const StageColumn &c = columns[static_cast<std::size_t>(column)];
    std::unordered_set<NodeId> seen;
    for (std::int32_t b = c.firstBox; b < c.firstBox + c.boxCount; ++b)
        for (NodeId n : boxes[static_cast<std::size_t>(b)].nodes)
            if (seen.insert(n).second)
                out.push_back(n);
    return out;
}

Expected<StageLayout> buildStageLayout(const Graph &g, const ExecutionPlan &plan, const Device *device,
                                       const std::vector<TaskTiming> *timeline)
{
    TS_TRY(checkPlan(g, plan));
    auto timing = timingOf(plan, timeline);
    if (!timing)
        return timing.status();

    StageLayout out;
    out.measured = timeline != nullptr;
    out.timing = std::move(*timing);
    const std::size_t taskCount = plan.tasks.size();

    // S3: FLOPs per task, and the dtype most of them are in.
    FlopCounter counter(g);
    std::vector<double> taskFlops(taskCount, 0.0);
    std::map<DType, double> flopsByDtype;
    for (const Task &t : plan.tasks) {
        if (t.kind != TaskKind::Compute)
            continue;
        double &f = taskFlops[static_cast<std::size_t>(t.id)];
        if (t.tiles.empty()) {
            for (NodeId n : plan.kernels[static_cast<std::size_t>(t.kernel)].nodes) {
                const double nf = counter.node(n);
                f += nf;
                flopsByDtype[floatDtypeOf(g, n)] += nf;
            }
        } else {
            for (const NodeTile &tile : t.tiles) {
                const double nf = counter.node(tile.node) * counter.share(tile.node, tile.output, tile.region);
                f += nf;
                flopsByDtype[floatDtypeOf(g, tile.node)] += nf;
            }
        }
    }
    const auto mainDtype = std::max_element(flopsByDtype.begin(), flopsByDtype.end(),
                                            [](const auto &a, const auto &b) { return a.second < b.second; });
    if (mainDtype != flopsByDtype.end() && mainDtype->second > 0)
        out.peakDtype = mainDtype->first;
    if (device) {
        out.peakFlops = device->peakFlops(out.peakDtype);
        if (out.peakFlops <= 0 && out.peakDtype != DType::Float32) {
            out.peakDtype = DType::Float32;
            out.peakFlops = device->peakFlops(DType::Float32);
        }
    }

    // S4: columns in issue order — stage tags, clusters of overlapping unstaged tasks.
    std::vector<std::int32_t> column(taskCount, -1);
    std::vector<StageColumn> cols;
    std::unordered_map<std::int32_t, std::int32_t> colOfStage;
    std::int32_t open = -1, last = -1;
    auto newColumn = [&](std::int32_t stage, const TaskTiming &tt) {
        StageColumn c;
        c.stage = stage;
        c.startNs = tt.startNs;
        c.endNs = tt.endNs;
        cols.push_back(c);
        return static_cast<std::int32_t>(cols.size() - 1);
    };
    for (const Task &t : plan.tasks) {
        const TaskTiming &tt = out.timing[static_cast<std::size_t>(t.id)];
        std::int32_t c = -1;
        if (t.stage >= 0) {
            auto [it, added] = colOfStage.try_emplace(t.stage, -1);
            if (added)
                it->second = newColumn(t.stage, tt);
            c = it->second;
            open = -1;
        } else if (t.kind == TaskKind::Barrier) {
            c = last >= 0 ? last : newColumn(-1, tt);
            open = -1;
        } else if (open >= 0 && tt.startNs < cols[static_cast<std::size_t>(open)].endNs - 1e-6) {
            c = open;
        } else {
            c = open = newColumn(-1, tt);
        }
        StageColumn &col = cols[static_cast<std::size_t>(c)];
        col.startNs = std::min(col.startNs, tt.startNs);
        col.endNs = std::max(col.endNs, tt.endNs);
        if (t.kind == TaskKind::Barrier) {
            col.barrier = t.id;
            col.barrierStartNs = tt.startNs;
        }
        column[static_cast<std::size_t>(t.id)] = c;
        last = c;
        out.totalNs = std::max(out.totalNs, tt.endNs);
    }

    // S5: time order.
    std::vector<std::int32_t> order(cols.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        return cols[static_cast<std::size_t>(a)].startNs < cols[static_cast<std::size_t>(b)].startNs;
    });
    std::vector<std::int32_t> rank(cols.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        rank[static_cast<std::size_t>(order[i])] = static_cast<std::int32_t>(i);
    out.columns.reserve(cols.size());
    for (std::int32_t c : order)
        out.columns.push_back(cols[static_cast<std::size_t>(c)]);
    out.columnOfTask.resize(taskCount);
    for (std::size_t i = 0; i < taskCount; ++i)
        out.columnOfTask[i] = column[i] >= 0 ? rank[static_cast<std::size_t>(column[i])] : -1;

    // S6: lanes of the tasks that draw a box (barriers are column boundaries).
    std::map<LaneKey, std::int32_t> laneIndex;
    for (const Task &t : plan.tasks)
        if (t.kind != TaskKind::Barrier)
            laneIndex.emplace(laneKeyOf(t.binding), 0);
    for (auto &[key, index] : laneIndex) {
        index = static_cast<std::int32_t>(out.lanes.size());
        out.lanes.push_back({static_cast<StageLane::Kind>(key.first), key.second, laneLabel(key)});
    }

    // S7: one box per (column, lane), then bucketed by column in lane order.
    std::vector<StageBox> boxes;
    std::unordered_map<std::int64_t, std::int32_t> boxOf;
    struct OpTypeSum {
        std::string type;
        double flops = 0;
        std::int32_t count = 0;
    };
    std::vector<std::vector<OpTypeSum>> opFlops; // per box
    for (const Task &t : plan.tasks) {
        if (t.kind == TaskKind::Barrier)
            continue;
        const std::int32_t c = out.columnOfTask[static_cast<std::size_t>(t.id)];
        const std::int32_t lane = laneIndex.at(laneKeyOf(t.binding));
        const std::int64_t key = static_cast<std::int64_t>(c) * (std::int64_t(1) << 32) + lane;
        auto [it, added] = boxOf.try_emplace(key, static_cast<std::int32_t>(boxes.size()));
        if (added) {
            StageBox b;
            b.column = c;
            b.lane = lane;
            b.startNs = out.timing[static_cast<std::size_t>(t.id)].startNs;
            b.endNs = out.timing[static_cast<std::size_t>(t.id)].endNs;
            boxes.push_back(std::move(b));
            opFlops.emplace_back();
        }
        StageBox &b = boxes[static_cast<std::size_t>(it->second)];
        b.cost = sumCosts(b.tasks.empty() ? std::vector<const TaskCost *>{&t.cost}
                                          : std::vector<const TaskCost *>{&b.cost, &t.cost});
        auto &types = opFlops[static_cast<std::size_t>(it->second)];
        const TaskTiming &tt = out.timing[static_cast<std::size_t>(t.id)];
        b.startNs = std::min(b.startNs, tt.startNs);
        b.endNs = std::max(b.endNs, tt.endNs);
        b.tasks.push_back(t.id);
        if (t.kind != TaskKind::Compute)
            continue;
        const Kernel &k = plan.kernels[static_cast<std::size_t>(t.kernel)];
        b.compute = true;
        b.merged = b.merged || k.strategy == "merge";
        b.kernels.push_back(k.id);
        b.flops += taskFlops[static_cast<std::size_t>(t.id)];
        auto addNode = [&](NodeId n, double flops) {
            b.nodes.push_back(n);
            const std::string &type = g.node(n).opType;
            auto ty = std::find_if(types.begin(), types.end(), [&](const OpTypeSum &e) { return e.type == type; });
            if (ty == types.end())
                types.push_back({type, flops, 1});
            else {
                ty->flops += flops;
                ++ty->count;
            }
        };
        if (t.tiles.empty())
            for (NodeId n : k.nodes)
                addNode(n, counter.node(n));
        else
            for (const NodeTile &tile : t.tiles)
                addNode(tile.node, counter.node(tile.node) * counter.share(tile.node, tile.output, tile.region));
    }

    // Texts, dominant op types and unique nodes per box.
    std::vector<std::int32_t> stamp(g.nodeCount(), -1);
    constexpr std::size_t kMaxNames = 48;
    for (std::size_t bi = 0; bi < boxes.size(); ++bi) {
        StageBox &b = boxes[bi];
        std::size_t kept = 0;
        for (NodeId n : b.nodes)
            if (stamp[static_cast<std::size_t>(n)] != static_cast<std::int32_t>(bi)) {
                stamp[static_cast<std::size_t>(n)] = static_cast<std::int32_t>(bi);
                b.nodes[kept++] = n;
            }
        b.nodes.resize(kept);
        const auto &types = opFlops[bi];
        const auto best = std::max_element(types.begin(), types.end(),
                                           [](const OpTypeSum &a, const OpTypeSum &c) { return a.flops < c.flops; });
        if (best != types.end()) {
            b.opType = QString::fromStdString(best->type);
            b.opTypeCount = best->count;
        }
        QStringList names;
        if (b.compute) {
            for (std::size_t i = 0; i < b.kernels.size() && i < kMaxNames; ++i)
                names << QString::fromStdString(plan.kernels[static_cast<std::size_t>(b.kernels[i])].name);
            if (b.kernels.size() > kMaxNames)
                names << QStringLiteral("… %1 more").arg(b.kernels.size() - kMaxNames);
        } else {
            for (std::size_t i = 0; i < b.tasks.size() && i < kMaxNames; ++i) {
                const Task &t = plan.tasks[static_cast<std::size_t>(b.tasks[i])];
                names << (t.label.empty() ? QString::fromLatin1(taskKindName(t.kind).data(),
                                                                static_cast<qsizetype>(taskKindName(t.kind).size()))
                                          : QString::fromStdString(t.label));
            }
        }
        b.text = names.join(QStringLiteral(" → "));
    }

    // Bucket by column, lane order inside.
    std::vector<std::int32_t> firstOf(out.columns.size() + 1, 0);
    for (const StageBox &b : boxes)
        ++firstOf[static_cast<std::size_t>(b.column) + 1];
    std::partial_sum(firstOf.begin(), firstOf.end(), firstOf.begin());
    std::vector<std::int32_t> next(firstOf.begin(), firstOf.end() - 1);
    out.boxes.resize(boxes.size());
    for (StageBox &b : boxes)
        out.boxes[static_cast<std::size_t>(next[static_cast<std::size_t>(b.column)]++)] = std::move(b);

    // S8: per-column numbers.
    std::fill(stamp.begin(), stamp.end(), -1);
    for (std::size_t ci = 0; ci < out.columns.size(); ++ci) {
        StageColumn &c = out.columns[ci];
        c.firstBox = firstOf[ci];
        c.boxCount = firstOf[ci + 1] - firstOf[ci];
        const auto first = out.boxes.begin() + c.firstBox;
        std::sort(first, first + c.boxCount, [](const StageBox &a, const StageBox &b) { return a.lane < b.lane; });
        std::vector<const TaskCost *> costs;
        for (auto it = first; it != first + c.boxCount; ++it)
            costs.push_back(&it->cost);
        if (c.barrier >= 0)
            costs.push_back(&plan.tasks[static_cast<std::size_t>(c.barrier)].cost);
        c.cost = sumCosts(costs);
        for (auto it = first; it != first + c.boxCount; ++it) {
            c.flops += it->flops;
            c.groups += it->compute ? 1 : 0;
            c.merged = c.merged || it->merged;
            for (NodeId n : it->nodes)
                if (stamp[static_cast<std::size_t>(n)] != static_cast<std::int32_t>(ci)) {
                    stamp[static_cast<std::size_t>(n)] = static_cast<std::int32_t>(ci);
                    ++c.ops;
                }
        }
        const double latency = c.latencyNs();
        if (out.peakFlops > 0 && latency > 0)
            c.utilisation = c.flops / (latency * 1e-9 * out.peakFlops);
        else if (out.peakFlops > 0 && c.flops <= 0)
            c.utilisation = 0;
    }
    return out;
}

// ---------------------------------------------------------------------------

StageGeometry::StageGeometry(const StageLayout &layout, bool equalWidths, double zoom, double pxPerNs,
                             double equalWidth, double minWidth)
{
    m_x.reserve(layout.columns.size() + 1);
    m_x.push_back(0);
    for (const StageColumn &c : layout.columns) {
        const double w = equalWidths ? equalWidth * zoom : std::max(minWidth, c.latencyNs() * pxPerNs * zoom);
        m_x.push_back(m_x.back() + w);
    }
}

int StageGeometry::columnAt(double x) const
{
    if (count() == 0 || x < 0 || x >= m_x.back())
        return -1;
    const auto it = std::upper_bound(m_x.begin(), m_x.end(), x);
    return static_cast<int>(it - m_x.begin()) - 1;
}

std::pair<std::size_t, std::size_t> StageGeometry::visible(double x0, double x1) const
{
    if (count() == 0 || x1 <= x0 || x1 <= 0 || x0 >= m_x.back())
        return {0, 0};
    const auto first = std::upper_bound(m_x.begin(), m_x.end(), std::max(0.0, x0)) - m_x.begin() - 1;
    const auto last = std::lower_bound(m_x.begin(), m_x.end(), x1) - m_x.begin();
    return {static_cast<std::size_t>(first), std::min(static_cast<std::size_t>(last), count())};
}

double StageGeometry::xOf(const StageColumn &c, std::size_t column, double ns) const
{
    const double span = c.latencyNs();
    const double f = span > 0 ? std::clamp((ns - c.startNs) / span, 0.0, 1.0) : 0.0;
    return left(column) + f * width(column);
}

// ---------------------------------------------------------------------------

std::vector<StageDecision> decisionsForStage(const StageLayout &layout, std::int32_t column, const ScheduleRun &run,
                                             std::size_t nodeCount, std::size_t limit)
{
    std::vector<StageDecision> out;
    if (column < 0 || static_cast<std::size_t>(column) >= layout.columns.size())
        return out;
    std::vector<char> in(nodeCount, 0);
    for (NodeId n : layout.columnNodes(column))
        if (n >= 0 && static_cast<std::size_t>(n) < nodeCount)
            in[static_cast<std::size_t>(n)] = 1;
    const auto &records = run.decisions.records();
    const auto &steps = run.trace.steps();
    for (std::size_t i = 0; i < records.size(); ++i) {
        const DecisionRecord &r = records[i];
        if (r.step < 0 || static_cast<std::size_t>(r.step) >= steps.size())
            continue;
        StageDecision d;
        d.record = static_cast<std::int32_t>(i);
        d.decision = &r;
        for (NodeId n : steps[static_cast<std::size_t>(r.step)].touched) {
            ++d.touched;
            d.inside += n >= 0 && static_cast<std::size_t>(n) < nodeCount && in[static_cast<std::size_t>(n)];
        }
        if (d.inside > 0)
            out.push_back(d);
    }
    std::stable_sort(out.begin(), out.end(), [](const StageDecision &a, const StageDecision &b) {
        return (a.inside == a.touched) > (b.inside == b.touched);
    });
    if (out.size() > limit)
        out.resize(limit);
    return out;
}

// ---------------------------------------------------------------------------

QString stageTitle(const StageLayout &layout, std::int32_t column)
{
    if (column < 0 || static_cast<std::size_t>(column) >= layout.columns.size())
        return {};
    const StageColumn &c = layout.columns[static_cast<std::size_t>(column)];
    return c.stage >= 0 ? QStringLiteral("stage %1").arg(c.stage) : QStringLiteral("#%1").arg(column);
}

QString formatUtilisation(double u)
{
    if (!std::isfinite(u))
        return QStringLiteral("—");
    const double pct = u * 100;
    return QStringLiteral("%1 %").arg(pct, 0, 'f', pct < 10 ? 1 : 0);
}

StageTableModel::StageTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void StageTableModel::setLayout(std::shared_ptr<const StageLayout> layout, std::shared_ptr<const Graph> graph)
{
    beginResetModel();
    m_layout = std::move(layout);
    m_graph = m_layout ? std::move(graph) : nullptr;
    endResetModel();
}

int StageTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_layout ? 0 : static_cast<int>(m_layout->columns.size());
}

int StageTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StageTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_layout)
        return {};
    const auto row = index.row();
    const StageColumn &c = m_layout->columns[static_cast<std::size_t>(row)];
    if (role == NodesRole) {
        QList<int> nodes;
        for (NodeId n : m_layout->columnNodes(row))
            nodes << n;
        return QVariant::fromValue(nodes);
    }
    if (role == ValueRole) {
        switch (index.column()) {
        case StageColumnIndex: return c.stage >= 0 ? c.stage : row;
        case GroupsColumn: return c.groups;
        case OpsColumn: return c.ops;
        case FlopsColumn: return c.flops;
        case LatencyColumn: return c.latencyNs() / 1e6;
        case UtilisationColumn: return c.utilisation * 100;
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == StageColumnIndex ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == OpsColumn && m_graph) {
        QStringList names;
        const auto nodes = m_layout->columnNodes(row);
        for (std::size_t i = 0; i < nodes.size() && i < 24; ++i)
            names << QString::fromStdString(m_graph->node(nodes[i]).name);
        if (nodes.size() > 24)
            names << QStringLiteral("… %1 more").arg(nodes.size() - 24);
        return names.join(QLatin1Char('\n'));
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case StageColumnIndex: return stageTitle(*m_layout, row) + (c.merged ? QStringLiteral(" (merged)") : QString());
    case GroupsColumn: return c.groups;
    case OpsColumn: return c.ops;
    case FlopsColumn: return formatFlops(c.flops);
    case LatencyColumn: return QString::number(c.latencyNs() / 1e6, 'f', 4);
    case UtilisationColumn: return formatUtilisation(c.utilisation);
    default: return {};
    }
}

QVariant StageTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StageColumnIndex: return tr("Stage");
    case GroupsColumn: return tr("Groups");
    case OpsColumn: return tr("Ops");
    case FlopsColumn: return tr("FLOPs");
    case LatencyColumn: return tr("Latency (ms)");
    case UtilisationColumn: return tr("Utilisation");
    default: return {};
    }
}

} // namespace tessera::views
