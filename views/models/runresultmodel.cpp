// RunMetricsModel, RunOutputsModel and RunTimeline (see runresultmodel.h).
#include "views/models/runresultmodel.h"

#include "views/models/format.h"
#include "views/models/plansummary.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace tessera::views {

namespace {

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

constexpr std::string_view kOpPrefix = "op_ms/";

bool isOpMetric(const std::string &key)
{
    return key.rfind(kOpPrefix, 0) == 0;
}

// "peak_host_bytes" → "Peak host bytes"; op rows are "Op time: Conv".
QString metricLabel(const std::string &key)
{
    if (isOpMetric(key))
        return QStringLiteral("Op time: ") + QString::fromStdString(key.substr(kOpPrefix.size()));
    if (key == "total_ms")
        return QStringLiteral("Total time");
    QString label = QString::fromStdString(key).replace(QLatin1Char('_'), QLatin1Char(' '));
    if (label.endsWith(QStringLiteral(" ms")))
        label.chop(3);
    if (!label.isEmpty())
        label[0] = label[0].toUpper();
    return label;
}

// Run-wide rows in this order, then any other key alphabetically.
int keyRank(const std::string &key)
{
    static const char *const kOrder[] = {"total_ms", "achieved_gflops", "peak_share",  "achieved_gbps",
                                         "tasks",    "peak_host_bytes", "weight_bytes"};
    for (int i = 0; i < static_cast<int>(std::size(kOrder)); ++i)
        if (key == kOrder[i])
            return i;
    return static_cast<int>(std::size(kOrder));
}

float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0) { // zero or subnormal: mant · 2^-24
        const float v = static_cast<float>(mant) * 0x1p-24f;
        return sign ? -v : v;
    }
    if (exp == 31)
        return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

template <typename T> T load(const HostTensor &t, std::int64_t i)
{
    T v;
    std::memcpy(&v, t.bytes.data() + static_cast<std::size_t>(i) * sizeof(T), sizeof(T));
    return v;
}

// Element i as a double; NaN for dtypes without numbers.
double element(const HostTensor &t, std::int64_t i)
{
    switch (t.dtype) {
    case DType::Float32: return load<float>(t, i);
    case DType::Float64: return load<double>(t, i);
    case DType::Float16: return halfToFloat(load<std::uint16_t>(t, i));
    case DType::BFloat16: return std::bit_cast<float>(static_cast<std::uint32_t>(load<std::uint16_t>(t, i)) << 16);
    case DType::Int8: return load<std::int8_t>(t, i);
    case DType::UInt8:
    case DType::Bool: return load<std::uint8_t>(t, i);
    case DType::Int16: return load<std::int16_t>(t, i);
    case DType::Int32: return load<std::int32_t>(t, i);
    case DType::Int64: return static_cast<double>(load<std::int64_t>(t, i));
    case DType::UInt16: return load<std::uint16_t>(t, i);
    case DType::UInt32: return load<std::uint32_t>(t, i);
    case DType::UInt64: return static_cast<double>(load<std::uint64_t>(t, i));
    case DType::String:
    case DType::Undefined: break;
    }
    return std::nan("");
}

QString formatValue(double v)
{
    return QString::number(v, 'g', 5);
}

} // namespace

QString formatRunMetric(const std::string &key, double value)
{
    if (isOpMetric(key) || endsWith(key, "_ms"))
        return formatMs(value);
    if (endsWith(key, "_bytes"))
        return formatBytes(static_cast<std::int64_t>(value));
    if (endsWith(key, "gflops"))
        return QString::number(value, 'f', value < 10 ? 2 : 1) + QStringLiteral(" GFLOP/s");
    if (endsWith(key, "gbps"))
        return QString::number(value, 'f', value < 10 ? 2 : 1) + QStringLiteral(" GB/s");
    if (endsWith(key, "_share"))
        return QString::number(value * 100, 'f', 1) + QStringLiteral(" %");
    if (value == std::floor(value) && std::fabs(value) < 1e15)
        return QString::number(static_cast<qint64>(value));
    return formatValue(value);
}

TensorDigest digestTensor(const HostTensor &t, int previewCount)
{
    TensorDigest d;
    const std::int64_t n = t.elements();
    // A tensor whose bytes do not match its type is shown, not trusted.
    if (dtypeSize(t.dtype) == 0 || static_cast<std::int64_t>(t.bytes.size()) < n * std::int64_t(dtypeSize(t.dtype))) {
        d.preview = QStringLiteral("(no values)");
        return d;
    }
    d.sum = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = element(t, i);
        if (!std::isfinite(v)) {
            ++d.nonFinite;
            continue;
        }
        d.sum += v;
    }
    QStringList values;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(n, previewCount); ++i)
        values << formatValue(element(t, i));
    if (n > previewCount)
        values << QStringLiteral("…");
    d.preview = n == 0 ? QStringLiteral("(empty)") : values.join(QStringLiteral(", "));
    return d;
}

// --- RunMetricsModel -------------------------------------------------------------------------

RunMetricsModel::RunMetricsModel(QObject *parent) : QAbstractTableModel(parent) {}

void RunMetricsModel::setResult(std::shared_ptr<const RunResult> result)
{
    beginResetModel();
    m_rows.clear();
    if (result) {
        std::vector<std::pair<std::string, double>> general, ops;
        double opTotal = 0;
        for (const auto &[key, value] : result->metrics) {
            if (isOpMetric(key)) {
                ops.emplace_back(key, value);
                opTotal += value;
            } else {
                general.emplace_back(key, value);
            }
        }
        std::stable_sort(general.begin(), general.end(),
                         [](const auto &a, const auto &b) { return keyRank(a.first) < keyRank(b.first); });
        std::stable_sort(ops.begin(), ops.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
        for (const auto *list : {&general, &ops})
            for (const auto &[key, value] : *list) {
                Row r{QString::fromStdString(key), metricLabel(key), value, formatRunMetric(key, value), std::nan("")};
                if (isOpMetric(key) && opTotal > 0)
                    r.share = value / opTotal;
                m_rows.push_back(std::move(r));
            }
    }
    endResetModel();
}

int RunMetricsModel::rowOfKey(const QString &key) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].key == key)
            return static_cast<int>(i);
    return -1;
}

int RunMetricsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunMetricsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunMetricsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return r.label;
        case ValueColumn: return r.text;
        case ShareColumn:
            return std::isnan(r.share) ? QString() : QString::number(r.share * 100, 'f', 1) + QStringLiteral(" %");
        }
        break;
    case Qt::ToolTipRole: return r.key;
    case Qt::TextAlignmentRole:
        if (index.column() != NameColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case KeyRole: return r.key;
    case ValueRole: return index.column() == ShareColumn ? r.share : r.value;
    }
    return {};
}

QVariant RunMetricsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn: return tr("Metric");
    case ValueColumn: return tr("Value");
    case ShareColumn: return tr("Share");
    }
    return {};
}

// --- RunOutputsModel -------------------------------------------------------------------------

RunOutputsModel::RunOutputsModel(QObject *parent) : QAbstractTableModel(parent) {}

void RunOutputsModel::setResult(std::shared_ptr<const RunResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    m_digests.clear();
    if (m_result)
        for (const HostTensor &t : m_result->outputs)
            m_digests.push_back(digestTensor(t));
    endResetModel();
}

int RunOutputsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_digests.size());
}

int RunOutputsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunOutputsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto row = static_cast<std::size_t>(index.row());
    const HostTensor &t = m_result->outputs[row];
    const TensorDigest &d = m_digests[row];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(t.name);
        case TypeColumn: return QString::fromUtf8(dtypeName(t.dtype).data());
        case ShapeColumn: return formatShape(t.shape);
        case SumColumn:
            if (std::isnan(d.sum))
                return QStringLiteral("—");
            return QString::number(d.sum, 'g', 8) +
                   (d.nonFinite ? QStringLiteral("  (%1 non-finite)").arg(d.nonFinite) : QString());
        case ValuesColumn: return d.preview;
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == SumColumn)
            return tr("Sum of all %1 elements (non-finite ones left out)").arg(t.elements());
        if (index.column() == ValuesColumn)
            return tr("First values in row-major order");
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == SumColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case SumRole:
        if (index.column() == SumColumn)
            return d.sum;
        break;
    }
    return {};
}

QVariant RunOutputsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn: return tr("Output");
    case TypeColumn: return tr("Type");
    case ShapeColumn: return tr("Shape");
    case SumColumn: return tr("Sum");
    case ValuesColumn: return tr("First values");
    }
    return {};
}

// --- RunTimeline -----------------------------------------------------------------------------

RunTimeline::RunTimeline(const std::vector<TaskTiming> &timeline, const ExecutionPlan *plan)
{
    std::vector<std::int32_t> ids;
    for (const TaskTiming &t : timeline)
        ids.push_back(t.lane);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    m_lanes.resize(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
        m_lanes[i].id = ids[i];
    for (const TaskTiming &t : timeline) {
        TimelineTask task;
        task.startNs = std::max(0.0, t.startNs);
        task.endNs = std::max(task.startNs, t.endNs);
        task.task = t.task;
        if (plan && t.task >= 0 && static_cast<std::size_t>(t.task) < plan->tasks.size())
            task.kind = plan->tasks[static_cast<std::size_t>(t.task)].kind;
        const auto lane = static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), t.lane) - ids.begin());
        m_lanes[lane].tasks.push_back(task);
        m_lanes[lane].maxDurationNs = std::max(m_lanes[lane].maxDurationNs, task.endNs - task.startNs);
        m_spanNs = std::max(m_spanNs, task.endNs);
        ++m_taskCount;
    }
    for (Lane &l : m_lanes)
        std::stable_sort(l.tasks.begin(), l.tasks.end(),
                         [](const TimelineTask &a, const TimelineTask &b) { return a.startNs < b.startNs; });
}

std::size_t RunTimeline::firstEndingAfter(const Lane &lane, double ns) const
{
    // No task starting before ns - maxDuration can reach ns.
    const double from = ns - lane.maxDurationNs;
    return static_cast<std::size_t>(std::lower_bound(lane.tasks.begin(), lane.tasks.end(), from,
                                                     [](const TimelineTask &t, double v) { return t.startNs < v; }) -
                                    lane.tasks.begin());
}

std::vector<RunTimeline::Segment> RunTimeline::segments(int laneIndex, double t0, double t1, int pixels) const
{
    std::vector<Segment> out;
    if (laneIndex < 0 || laneIndex >= laneCount() || pixels <= 0 || !(t1 > t0))
        return out;
    const Lane &lane = m_lanes[static_cast<std::size_t>(laneIndex)];
    const double scale = pixels / (t1 - t0);
    bool mergeOpen = false; // the last segment is a one-pixel column narrow tasks may join
    double mergedLongest = 0;
    for (std::size_t i = firstEndingAfter(lane, t0); i < lane.tasks.size(); ++i) {
        const TimelineTask &t = lane.tasks[i];
        if (t.startNs >= t1)
            break;
        if (t.endNs < t0)
            continue;
        const double duration = t.endNs - t.startNs;
        const int x0 = std::clamp(static_cast<int>(std::floor((t.startNs - t0) * scale)), 0, pixels - 1);
        if (duration * scale >= 1.5) { // wide: its own segment, ends rounded to the nearest column
            const int start = std::clamp(static_cast<int>(std::lround((t.startNs - t0) * scale)), 0, pixels - 1);
            const int end = std::clamp(static_cast<int>(std::lround((t.endNs - t0) * scale)), start + 1, pixels);
            out.push_back({start, end, t.kind, static_cast<int>(i), 1});
            mergeOpen = false;
            continue;
        }
        if (mergeOpen && out.back().x0 == x0) {
            Segment &s = out.back();
            ++s.count;
            if (duration > mergedLongest) { // the column shows its longest task
                mergedLongest = duration;
                s.kind = t.kind;
                s.index = static_cast<int>(i);
            }
            continue;
        }
        out.push_back({x0, x0 + 1, t.kind, static_cast<int>(i), 1});
        mergeOpen = true;
        mergedLongest = duration;
    }
    return out;
}

int RunTimeline::taskAt(int laneIndex, double ns, double toleranceNs) const
{
    if (laneIndex < 0 || laneIndex >= laneCount())
        return -1;
    const Lane &lane = m_lanes[static_cast<std::size_t>(laneIndex)];
    int best = -1;
    double bestDistance = 0;
    for (std::size_t i = firstEndingAfter(lane, ns - toleranceNs); i < lane.tasks.size(); ++i) {
        const TimelineTask &t = lane.tasks[i];
        if (t.startNs > ns + toleranceNs)
            break;
        const double distance = ns < t.startNs ? t.startNs - ns : ns > t.endNs ? ns - t.endNs : 0;
        // The nearest task wins; among covering ones the latest-starting (drawn on top).
        if (distance <= toleranceNs && (best < 0 || distance < bestDistance || distance == 0)) {
            best = static_cast<int>(i);
            bestDistance = distance;
        }
    }
    return best;
}

} // namespace tessera::views
