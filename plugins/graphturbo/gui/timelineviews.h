// GraphTurbo's two timelines (graphturbo-osdi23 Fig. 12 and Fig. 13), drawn
// with the shared views::BarTimeline and read from the ExecutionPlan alone
// (plus the trace for spill names), so any GraphTurbo plan draws:
//   - tensor liveness (Fig. 12): one bar per tensor slice of cluster 0, from
//     the task that first touches it to the last one (ExecutionPlan::
//     bufferLiveRanges, the verifier's live ranges; a slice spread over
//     cores is one bar), over cluster 0's compute tasks in schedule order,
//     coloured by the level it lives in; slices §4.3 spilled (the trace's
//     "S5" records) or Algo. 4 put in GB (the "S4b" records) are hatched;
//   - instruction overlap (Fig. 13): cluster 0's tasks on the plan's
//     estimated timeline (ExecutionPlan::estimatedTimeline), one row per
//     compute unit and one per kind of data movement (weight promotion,
//     copies, redistributions, concatenations), coloured by sub-graph; a
//     transfer running while a compute task runs (its latency hidden, §4.4)
//     (partly) is hatched, its tip saying how much of it.
#pragma once

#include "core/hw/device.h"
#include "core/plan/plan.h"
#include "core/sched/trace.h"
#include "views/widgets/bartimeline.h"

#include <QWidget>

#include <functional>
#include <set>
#include <string>

class QLabel;

namespace tessera::graphturbo {

// Instance names ("sg3#1") whose output §4.3 spilled or Algo. 4 declared in GB, from a trace.
std::set<std::string> movedOutOfLb(const Trace *trace);

std::vector<views::TimelineRow> livenessRows(const ExecutionPlan &plan, const Device *device,
                                             const std::set<std::string> &spilled);

struct OverlapSummary {
    double transferNs = 0; // data movement on cluster 0
    double hiddenNs = 0;   // of it, while a compute task of cluster 0 ran
};
std::vector<views::TimelineRow> overlapRows(const ExecutionPlan &plan, const Device *device,
                                            OverlapSummary *summary = nullptr);

// A header line over a BarTimeline in a scroll area.
class TimelineDock final : public QWidget
{
public:
    enum class Kind { Liveness, Overlap };
    TimelineDock(Kind kind, QWidget *parent = nullptr);
    // `highlightNodes` (may be empty) gets the nodes of a clicked bar's sub-graph.
    void setPlan(const ExecutionPlan &plan, const Device *device, const Trace *trace,
                 std::function<void(std::vector<NodeId>)> highlightNodes = {});
    void clear();
    views::BarTimeline *timeline() const { return m_timeline; }

private:
    Kind m_kind;
    QLabel *m_header = nullptr;
    views::BarTimeline *m_timeline = nullptr;
};

} // namespace tessera::graphturbo
