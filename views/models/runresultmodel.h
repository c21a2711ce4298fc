// What the run panel shows of one backend run (core/backend/backend.h
// RunResult), as Qt-Core-only pieces:
//   - RunMetricsModel: the backend's metrics as a table — run-wide numbers
//     first (total, tasks, memory), then time per op type, largest first, with
//     its share of all op time. Units follow the key: "*_ms" and "op_ms/*" are
//     milliseconds, "*_bytes" bytes, anything else a count;
//   - RunOutputsModel: one row per graph output — name, dtype, shape, the sum
//     of its values (the checksum tessera-cli run prints) and the first values;
//   - RunTimeline: the measured timeline per lane, sorted, with the pixel
//     binning the timeline strip paints (tasks under 1.5 pixels merge into
//     one column coloured by the longest of them) and hit testing for
//     tooltips; O(log n + visible tasks) per query, so thousands of tasks
//     paint at once.
// Both models are checked with QAbstractItemModelTester.
#pragma once

#include "core/backend/backend.h"

#include <QAbstractTableModel>
#include <QString>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace tessera::views {

// A backend metric's value as text, by the key's unit convention:
// "total_ms" 12.3 → "12.3 ms", "peak_host_bytes" → "784 KiB", "…gflops" →
// "41.2 GFLOP/s", "…gbps" → "3.10 GB/s", "…_share" 0.125 → "12.5 %",
// "tasks" → "42".
QString formatRunMetric(const std::string &key, double value);

// A tensor's checksum and a preview of its values.
struct TensorDigest {
    double sum = std::nan("");  // NaN for dtypes without numbers (string, undefined)
    std::int64_t nonFinite = 0; // NaN or infinite elements (floating types)
    QString preview;            // "0.125, -1.5, 3, 0.25, …"
};
TensorDigest digestTensor(const HostTensor &t, int previewCount = 4);

class RunMetricsModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, ValueColumn, ShareColumn, ColumnCount };
    static constexpr int KeyRole = Qt::UserRole + 1;   // QString, the backend's metric key
    static constexpr int ValueRole = Qt::UserRole + 2; // double, the raw value

    explicit RunMetricsModel(QObject *parent = nullptr);

    // A null result empties the table.
    void setResult(std::shared_ptr<const RunResult> result);
    int rowOfKey(const QString &key) const; // -1 if absent

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString key;
        QString label;
        double value = 0;
        QString text;
        double share = std::nan(""); // of all op time, op rows only
    };
    std::vector<Row> m_rows;
};

class RunOutputsModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, TypeColumn, ShapeColumn, SumColumn, ValuesColumn, ColumnCount };
    static constexpr int SumRole = Qt::UserRole + 1; // double, SumColumn

    explicit RunOutputsModel(QObject *parent = nullptr);

    void setResult(std::shared_ptr<const RunResult> result);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const RunResult> m_result;
    std::vector<TensorDigest> m_digests;
};

// One measured task on a lane.
struct TimelineTask {
    double startNs = 0;
    double endNs = 0;
    TaskId task = 0;
    TaskKind kind = TaskKind::Compute;
};

class RunTimeline
{
public:
    // A column range [x0, x1) of the strip: one task (`count` 1, `index` its
    // position in lane()) or several merged narrow ones (`index` the longest).
    struct Segment {
        int x0 = 0;
        int x1 = 0;
        TaskKind kind = TaskKind::Compute;
        int index = 0;
        int count = 1;
    };

    RunTimeline() = default;
    // Kinds come from `plan` when given and the task id is one of its tasks,
    // else Compute. Timings with negative or inverted times are clamped.
    RunTimeline(const std::vector<TaskTiming> &timeline, const ExecutionPlan *plan);

    bool empty() const { return m_lanes.empty(); }
    int laneCount() const { return static_cast<int>(m_lanes.size()); }
    int taskCount() const { return m_taskCount; }
    double spanNs() const { return m_spanNs; } // the latest end; the strip starts at 0
    const std::vector<TimelineTask> &lane(int lane) const { return m_lanes[static_cast<std::size_t>(lane)].tasks; }
    // The backend's lane number of row `lane` (rows are the distinct lanes, ascending).
    std::int32_t laneId(int lane) const { return m_lanes[static_cast<std::size_t>(lane)].id; }

    // Segments of `lane` over the time window [t0, t1) drawn `pixels` wide,
    // left to right. Every visible task is covered by exactly one segment.
    std::vector<Segment> segments(int lane, double t0, double t1, int pixels) const;
    // The task of `lane` covering `ns`, or the nearest one within
    // `toleranceNs`; -1 if none. Returns the index into lane().
    int taskAt(int lane, double ns, double toleranceNs) const;

private:
    struct Lane {
        std::int32_t id = 0;
        std::vector<TimelineTask> tasks; // by start
        double maxDurationNs = 0;
    };
    // First task that may end at or after `ns`.
    std::size_t firstEndingAfter(const Lane &lane, double ns) const;

    std::vector<Lane> m_lanes;
    double m_spanNs = 0;
    int m_taskCount = 0;
};

} // namespace tessera::views

Q_DECLARE_METATYPE(std::shared_ptr<const tessera::RunResult>)
