// The stage view's data: a schedule drawn as stages (columns, in time order)
// and groups (lanes), with per-stage latency and estimated utilisation — the
// picture of the inter-operator scheduling thesis, Fig. 1.2 (stages between dotted lines, each with
// GFLOPs, TFLOP/s and utilisation) and Fig. 3.1 (a stage of concurrent groups,
// or one merged operator), with §2.3's low-utilisation problem as the number to
// look at. Built from the ExecutionPlan only, so it works for every scheduler.
//
// Columns. A task's `stage` tag picks its column (inter-operator stages, the greedy and
// sequential baselines' steps, GraphTurbo timestamps). Unstaged tasks (-1) are
// clustered in issue order: a task joins the open unstaged column when it
// starts before that column ends (it overlaps), else it opens a new one; a
// staged task or a barrier closes the open cluster. A Barrier task belongs to
// its stage (an unstaged one to the column it closes) and is drawn as the
// column's right boundary. Columns are ordered by start time (ties: issue order).
//
// Lanes are the task's binding: its stream, else its first core, else its
// cluster, else one "unbound" lane (a sequential plan has one lane). Within a
// column, the tasks of one lane form one box (a group: its operators run
// in order); a kernel with strategy "merge" marks its box as merged.
//
// Timing: ExecutionPlan::estimatedTimeline(), or a measured RunResult timeline
// passed in (every task must have exactly one timing). Column latency is
// end − start over its tasks, the barrier included, so for barrier-separated
// stages (inter-operator, greedy) the latencies sum to the plan's latency; stages that
// overlap in time (no barriers) can sum to more.
//
// Utilisation = Σ FLOPs of the column's compute tasks / (latency × peak),
// where peak = Device::peakFlops(dtype): the highest device-wide peak of one
// unit kind for the graph's main float dtype (the dtype with the most FLOPs;
// f32 on V100 = 15.7 TFLOP/s of the CUDA cores). FLOPs come from ops::opCost of
// the kernel's nodes (opaque nodes count 0); a tiled task counts each listed
// node's FLOPs × (tile elements / output elements), an approximation that
// ignores halos; recomputation counts as work done. A merged convolution counts
// its original convolutions' FLOPs, not the zero padding the merge adds. The
// estimated timeline does not model contention between streams, so
// concurrent groups can show more than 100 %: the estimate is then optimistic.
// NaN when the device has no peak for the dtype.
//
// Building is linear in the tasks plus a sort of the columns. Qt Core only.
#pragma once

#include "core/ir/graph.h"
#include "core/plan/plan.h"
#include "core/support/status.h"

#include <QAbstractTableModel>
#include <QString>

#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace tessera {
struct Device;
struct ScheduleRun;
struct DecisionRecord;
} // namespace tessera

namespace tessera::views {

struct StageLane {
    enum class Kind : std::uint8_t { Stream, Core, Cluster, Unbound };
    Kind kind = Kind::Unbound;
    std::int32_t id = 0; // stream, core (cluster × 4096 + core) or cluster
    QString label;       // "stream 0", "core 3", "cluster 1", "unbound"
};

// The tasks of one lane within one column.
struct StageBox {
    std::int32_t column = 0;
    std::int32_t lane = 0;         // index into StageLayout::lanes
    std::vector<TaskId> tasks;     // issue order
    std::vector<KernelId> kernels; // of the compute tasks, issue order
    std::vector<NodeId> nodes;     // computed nodes, issue order, unique
    QString text;                  // kernel names joined by " → " (data tasks by kind)
    QString opType;                // the op type with the most FLOPs (colour), "" if none
    std::int32_t opTypeCount = 0;  // nodes of that type in the box
    double startNs = 0, endNs = 0;
    double flops = 0;
    bool merged = false;  // a kernel with strategy "merge"
    bool compute = false; // holds a compute task (else only data movement)
    TaskCost cost;        // its tasks' estimates summed: the parts of its time
};

struct StageColumn {
    std::int32_t stage = -1; // the plan's stage tag, -1 for an unstaged cluster
    double startNs = 0, endNs = 0;
    double flops = 0;
    double utilisation = std::nan("");       // see the header comment
    std::int32_t firstBox = 0, boxCount = 0; // range in StageLayout::boxes, lane order
    std::int32_t groups = 0;                 // lanes with compute
    std::int32_t ops = 0;                    // computed nodes
    TaskId barrier = -1;                     // its barrier task, -1 if none
    double barrierStartNs = 0;
    bool merged = false; // some box is merged
    TaskCost cost;       // its boxes' and its barrier's estimates summed
    double latencyNs() const { return endNs - startNs; }
};

struct StageLayout {
    std::vector<StageColumn> columns;
    std::vector<StageBox> boxes;            // grouped by column
    std::vector<StageLane> lanes;           // streams, then cores, clusters, unbound
    std::vector<TaskTiming> timing;         // by task id
    std::vector<std::int32_t> columnOfTask; // by task id
    double peakFlops = 0;                   // 0: unknown (utilisation NaN)
    DType peakDtype = DType::Float32;
    double totalNs = 0;    // end of the timeline
    bool measured = false; // timing came from a run
    bool empty() const { return columns.empty(); }
    // The distinct nodes of a column (its boxes' nodes in order).
    std::vector<NodeId> columnNodes(std::int32_t column) const;
};

// Errors: a plan that does not belong to the graph (kernel or node ids out of
// range), or a timeline that misses, repeats or invents a task.
Expected<StageLayout> buildStageLayout(const Graph &g, const ExecutionPlan &plan, const Device *device,
                                       const std::vector<TaskTiming> *timeline = nullptr);

// Horizontal geometry: column widths ∝ latency (with a minimum) or equal,
// prefix sums for O(log n) hit tests and the visible range. Pure math.
class StageGeometry
{
public:
    StageGeometry() = default;
    // pxPerNs applies in proportional mode, equalWidth in equal mode; both at zoom 1.
    StageGeometry(const StageLayout &layout, bool equalWidths, double zoom, double pxPerNs, double equalWidth,
                  double minWidth);
    std::size_t count() const { return m_x.empty() ? 0 : m_x.size() - 1; }
    double left(std::size_t column) const { return m_x[column]; }
    double right(std::size_t column) const { return m_x[column + 1]; }
    double width(std::size_t column) const { return m_x[column + 1] - m_x[column]; }
    double totalWidth() const { return m_x.empty() ? 0 : m_x.back(); }
    int columnAt(double x) const; // -1 outside
    // Columns intersecting [x0, x1): [first, last), empty when none.
    std::pair<std::size_t, std::size_t> visible(double x0, double x1) const;
    // x of a time inside a column (linear within the column's span).
    double xOf(const StageColumn &c, std::size_t column, double ns) const;

private:
    std::vector<double> m_x; // count + 1 edges
};

// A run decision that concerns a column: its step touched nodes of the column.
struct StageDecision {
    std::int32_t record = -1; // index into run.decisions.records()
    std::int32_t inside = 0;  // touched nodes in the column
    std::int32_t touched = 0; // touched nodes in all
    const DecisionRecord *decision = nullptr;
};
// Decisions whose trace step touched a node of `column`: those that touched
// only the column first, then by record order; at most `limit`. Decisions
// without a step, or whose step was dropped by the trace limit, are skipped.
std::vector<StageDecision> decisionsForStage(const StageLayout &layout, std::int32_t column, const ScheduleRun &run,
                                             std::size_t nodeCount, std::size_t limit = 24);

// One row per column: stage, groups, ops, FLOPs, latency (ms), utilisation (%).
class StageTableModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        StageColumnIndex,
        GroupsColumn,
        OpsColumn,
        FlopsColumn,
        LatencyColumn,
        UtilisationColumn,
        ColumnCount
    };
    static constexpr int ValueRole = Qt::UserRole + 1; // double: the number behind the text
    static constexpr int NodesRole = Qt::UserRole + 2; // QList<int>: the column's nodes

    explicit StageTableModel(QObject *parent = nullptr);
    void setLayout(std::shared_ptr<const StageLayout> layout, std::shared_ptr<const Graph> graph); // nullptr clears
    const std::shared_ptr<const StageLayout> &stageLayout() const { return m_layout; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const StageLayout> m_layout;
    std::shared_ptr<const Graph> m_graph;
};

QString stageTitle(const StageLayout &layout, std::int32_t column); // "stage 12", or "#3" unstaged
QString formatUtilisation(double u);                                // "61 %", "—" for NaN

} // namespace tessera::views
