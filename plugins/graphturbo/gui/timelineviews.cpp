#include "plugins/graphturbo/gui/timelineviews.h"

#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace tessera::graphturbo {

namespace {

QColor levelColor(std::size_t level)
{
    static const QColor kColors[] = {QColor(90, 180, 90), QColor(235, 160, 60), QColor(120, 140, 190),
                                     QColor(170, 170, 170)};
    return kColors[std::min<std::size_t>(level, 3)];
}

QColor stageColor(std::int32_t stage)
{
    if (stage < 0)
        return QColor(150, 150, 150);
    return QColor::fromHsvF(std::fmod(0.08 + 0.618034 * stage, 1.0), 0.55, 0.85);
}

// "sg3#1" from a task label "sg3#1@c0 [..] L1 bind [..]" or "sg3#1 [..]".
std::string instanceOf(const std::string &label)
{
    std::string name = label.substr(0, label.find(' '));
    return name.substr(0, name.find('@'));
}

// Does a buffer belong to cluster 0 (the cluster the paper's figures show)?
bool onClusterZero(const Buffer &b, const Device *device)
{
    if (!device || b.scopeIndex < 0)
        return true;
    const MemoryLevel *l = device->level(b.level);
    if (!l)
        return true;
    switch (l->scope) {
    case MemoryScope::PerCore:
    case MemoryScope::PerUnit: return b.scopeIndex < device->topology.coresPerCluster;
    case MemoryScope::PerCluster: return b.scopeIndex == 0;
    case MemoryScope::Shared: return true;
    }
    return true;
}

QString regionText(const ops::Region &r)
{
    if (r.empty())
        return {};
    QStringList parts;
    for (const ops::Interval &i : r)
        parts << QStringLiteral("%1:%2").arg(i.begin).arg(i.end);
    return QStringLiteral("[") + parts.join(QLatin1Char(',')) + QStringLiteral("]");
}

bool isClusterZero(const Task &t)
{
    return t.binding.cluster <= 0;
}

} // namespace

std::set<std::string> movedOutOfLb(const Trace *trace)
{
    std::set<std::string> out;
    if (!trace)
        return out;
    for (const TraceStep &s : trace->steps()) {
        if (s.phase.rfind("S5", 0) == 0) {
            const auto colon = s.conclusion.find(":out spilled");
            if (colon != std::string::npos)
                out.insert(s.conclusion.substr(0, colon));
        } else if (s.phase.rfind("S4b", 0) == 0 && s.conclusion == "declared in GB") {
            out.insert(s.title.substr(0, s.title.find(' ')));
        }
    }
    return out;
}

std::vector<views::TimelineRow> livenessRows(const ExecutionPlan &plan, const Device *device,
                                             const std::set<std::string> &spilled)
{
    // Position of every task among cluster 0's compute tasks.
    std::vector<int> pos(plan.tasks.size(), 0);
    int computeTasks = 0;
    for (const Task &t : plan.tasks) {
        pos[static_cast<std::size_t>(t.id)] = computeTasks;
        if (t.kind == TaskKind::Compute && isClusterZero(t))
            ++computeTasks;
    }
    // The compute task writing each buffer (names the row).
    std::vector<TaskId> writer(plan.buffers.size(), -1);
    for (const Task &t : plan.tasks)
        if (t.kind == TaskKind::Compute)
            for (BufferId b : t.writes)
                if (writer[static_cast<std::size_t>(b)] < 0)
                    writer[static_cast<std::size_t>(b)] = t.id;
    const auto live = plan.bufferLiveRanges();
    struct Slice {
        std::string level;
        int first = 0, last = 0;
        std::int64_t bytes = 0;
        TaskId writer = -1;
        QString label;
    };
    std::map<std::pair<TensorId, std::string>, Slice> slices; // (tensor, region and writer) -> slice
    std::vector<std::pair<TensorId, std::string>> order;
    for (const Buffer &b : plan.buffers) {
        const auto [first, last] = live[static_cast<std::size_t>(b.id)];
        if (b.tensor == kInvalidId || first < 0 || !onClusterZero(b, device))
            continue;
        const QString region = regionText(b.region);
        const TaskId w = writer[static_cast<std::size_t>(b.id)];
        if (w >= 0 && !isClusterZero(plan.tasks[static_cast<std::size_t>(w)]))
            continue;
        const auto key = std::make_pair(b.tensor, region.toStdString() + "#" + std::to_string(w));
        auto [it, inserted] = slices.try_emplace(key);
        Slice &s = it->second;
        if (inserted) {
            s.level = b.level;
            s.first = pos[static_cast<std::size_t>(first)];
            s.last = pos[static_cast<std::size_t>(last)];
            s.writer = w;
            s.label = w >= 0 ? QString::fromStdString(instanceOf(plan.tasks[static_cast<std::size_t>(w)].label)) +
                                   QStringLiteral(" out")
                             : QStringLiteral("input ") + region;
            order.push_back(key);
        }
        s.first = std::min(s.first, pos[static_cast<std::size_t>(first)]);
        s.last = std::max(s.last, pos[static_cast<std::size_t>(last)]);
        s.bytes += b.bytes;
    }
    std::vector<views::TimelineRow> rows;
    for (const auto &key : order) {
        const Slice &s = slices[key];
        std::size_t level = 0;
        if (device)
            level = static_cast<std::size_t>(std::max(0, device->levelIndex(s.level)));
        const std::string inst = s.writer >= 0 ? instanceOf(plan.tasks[static_cast<std::size_t>(s.writer)].label) : "";
        const bool moved = !inst.empty() && spilled.count(inst);
        views::TimelineBar bar;
        bar.start = s.first;
        bar.end = s.last + 1;
        bar.color = levelColor(level);
        bar.marked = moved;
        bar.tag = s.writer;
        bar.tip = QStringLiteral("%1: %2 B in %3, live over compute tasks %4-%5%6")
                      .arg(s.label)
                      .arg(s.bytes)
                      .arg(QString::fromStdString(s.level))
                      .arg(s.first + 1)
                      .arg(s.last + 1)
                      .arg(moved ? QStringLiteral(" (moved out of LB: spilled or GB scope)") : QString());
        rows.push_back({s.label, {bar}});
    }
    return rows;
}

std::vector<views::TimelineRow> overlapRows(const ExecutionPlan &plan, const Device *device, OverlapSummary *summary)
{
    const auto timeline = plan.estimatedTimeline();
    std::map<std::string, std::size_t> rowOf;
    std::vector<views::TimelineRow> rows;
    auto row = [&](const std::string &name) -> views::TimelineRow & {
        auto [it, inserted] = rowOf.try_emplace(name, rows.size());
        if (inserted)
            rows.push_back({QString::fromStdString(name), {}});
        return rows[it->second];
    };
    // The unit a compute task's row is named by: its bound unit, else the unit of its queue
    // (GraphTurbo's streams are cluster × units + unit), else one "compute" row.
    auto unitName = [&](const Task &t) -> std::string {
        if (!device || device->units.empty())
            return "compute";
        const auto n = static_cast<std::int32_t>(device->units.size());
        if (t.binding.unit >= 0 && t.binding.unit < n)
            return device->units[static_cast<std::size_t>(t.binding.unit)].name;
        if (t.binding.stream >= 0)
            return device->units[static_cast<std::size_t>(t.binding.stream % n)].name + " queue";
        return "compute";
    };
    // Compute rows first.
    for (const Task &t : plan.tasks)
        if (t.kind == TaskKind::Compute && isClusterZero(t))
            row(unitName(t));
    std::vector<std::pair<double, double>> busy; // compute intervals of cluster 0
    for (const Task &t : plan.tasks)
        if (t.kind == TaskKind::Compute && isClusterZero(t)) {
            const TaskTiming &tt = timeline[static_cast<std::size_t>(t.id)];
            busy.push_back({tt.startNs, tt.endNs});
        }
    std::sort(busy.begin(), busy.end());
    // Time of [a, b) covered by compute.
    auto covered = [&](double a, double b) {
        double sum = 0, reach = a;
        for (const auto &[s, e] : busy) {
            if (s >= b)
                break;
            const double lo = std::max(s, reach), hi = std::min(e, b);
            if (hi > lo) {
                sum += hi - lo;
                reach = hi;
            }
        }
        return sum;
    };
    OverlapSummary sum;
    for (const Task &t : plan.tasks) {
        if (!isClusterZero(t) || t.kind == TaskKind::Barrier)
            continue;
        const TaskTiming &tt = timeline[static_cast<std::size_t>(t.id)];
        std::string name;
        bool transfer = true;
        switch (t.kind) {
        case TaskKind::Compute:
            transfer = false;
            name = unitName(t);
            break;
        case TaskKind::Copy: name = t.label.rfind("promote", 0) == 0 ? "DMA weights" : "DMA copies"; break;
        case TaskKind::Redistribute: name = "core exchange"; break;
        case TaskKind::Concat: name = "concat"; break;
        default: name = std::string(taskKindName(t.kind)); break;
        }
        views::TimelineBar bar;
        bar.start = tt.startNs / 1000.0;
        bar.end = std::max(tt.endNs, tt.startNs + 1.0) / 1000.0;
        bar.color = stageColor(t.stage);
        bar.tag = t.id;
        if (transfer && tt.endNs > tt.startNs) {
            const double hidden = covered(tt.startNs, tt.endNs);
            sum.transferNs += tt.endNs - tt.startNs;
            sum.hiddenNs += hidden;
            bar.marked = hidden > 0;
            bar.tip = QStringLiteral(", %1 % behind compute").arg(std::lround(100 * hidden / (tt.endNs - tt.startNs)));
        }
        bar.tip = QStringLiteral("%1\n%2-%3 µs%4")
                      .arg(QString::fromStdString(t.label))
                      .arg(tt.startNs / 1000.0, 0, 'f', 2)
                      .arg(tt.endNs / 1000.0, 0, 'f', 2)
                      .arg(bar.tip);
        row(name).bars.push_back(bar);
    }
    if (summary)
        *summary = sum;
    return rows;
}

TimelineDock::TimelineDock(Kind kind, QWidget *parent) : QWidget(parent), m_kind(kind)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_header = new QLabel(this);
    m_header->setContentsMargins(6, 4, 6, 2);
    m_header->setWordWrap(true);
    layout->addWidget(m_header);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    m_timeline = new views::BarTimeline(scroll);
    scroll->setWidget(m_timeline);
    layout->addWidget(scroll, 1);
    clear();
}

void TimelineDock::clear()
{
    m_timeline->clear();
    m_header->setText(QStringLiteral("no plan"));
}

void TimelineDock::setPlan(const ExecutionPlan &plan, const Device *device, const Trace *trace,
                           std::function<void(std::vector<NodeId>)> highlightNodes)
{
    // Clicking a bar selects the nodes of its task's sub-graph (for data movement: the sub-graph
    // it feeds, the plan's stage).
    m_timeline->barClicked = [this, plan, highlightNodes](int row, int bar) {
        if (!highlightNodes)
            return;
        const auto &rows = m_timeline->rows();
        const int tag = rows[static_cast<std::size_t>(row)].bars[static_cast<std::size_t>(bar)].tag;
        if (tag < 0 || static_cast<std::size_t>(tag) >= plan.tasks.size())
            return;
        const Task &t = plan.tasks[static_cast<std::size_t>(tag)];
        const KernelId k = t.kind == TaskKind::Compute ? t.kernel : t.stage;
        if (k >= 0 && static_cast<std::size_t>(k) < plan.kernels.size())
            highlightNodes(plan.kernels[static_cast<std::size_t>(k)].nodes);
    };
    std::vector<std::pair<QColor, QString>> legend;
    if (m_kind == Kind::Liveness) {
        auto rows = livenessRows(plan, device, movedOutOfLb(trace));
        if (device)
            for (std::size_t l = 0; l < device->levels.size(); ++l)
                legend.push_back({levelColor(l), QString::fromStdString(device->levels[l].name)});
        legend.push_back({QColor(60, 60, 60), QStringLiteral("hatched: spilled / GB scope")});
        m_header->setText(QStringLiteral("Tensor liveness across computation tasks (Fig. 12): %1 tensor slices of "
                                         "cluster 0, from producer to last consumer")
                              .arg(rows.size()));
        m_timeline->setRows(std::move(rows), QStringLiteral("compute task"), std::move(legend));
    } else {
        OverlapSummary sum;
        auto rows = overlapRows(plan, device, &sum);
        legend.push_back({QColor(60, 60, 60), QStringLiteral("hatched: transfer behind compute")});
        m_header->setText(QStringLiteral("Instruction overlap on cluster 0 (Fig. 13, estimated timeline): %1 µs of "
                                         "data movement, %2 µs of it behind compute")
                              .arg(sum.transferNs / 1000.0, 0, 'f', 1)
                              .arg(sum.hiddenNs / 1000.0, 0, 'f', 1));
        m_timeline->setRows(std::move(rows), QStringLiteral("µs"), std::move(legend));
    }
}

} // namespace tessera::graphturbo
