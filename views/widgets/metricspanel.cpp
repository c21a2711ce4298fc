// MetricsPanel (see metricspanel.h).
#include "views/widgets/metricspanel.h"

#include "core/sched/scheduler.h"
#include "views/models/format.h"
#include "views/models/plansummary.h"
#include "views/models/workbenchstate.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QVBoxLayout>

#if TESSERA_CHARTS
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>
#endif

#include <algorithm>
#include <cmath>
#include <iterator>

namespace tessera::views {

namespace {

// Series colours, in the counters' order (levels fast → slow, unit kinds).
QColor seriesColor(int i)
{
    static const QColor colors[] = {{0x3b, 0x82, 0xf6}, {0xf5, 0x9e, 0x0b}, {0x10, 0xb9, 0x81}, {0xef, 0x44, 0x44},
                                    {0x8b, 0x5c, 0xf6}, {0x14, 0xb8, 0xa6}, {0xec, 0x48, 0x99}, {0x64, 0x74, 0x8b}};
    return colors[static_cast<std::size_t>(i) % std::size(colors)];
}

QString chartTitle(MetricsPanel::Chart chart)
{
    switch (chart) {
    case MetricsPanel::ThroughputChart: return MetricsPanel::tr("Throughput so far");
    case MetricsPanel::OccupancyChart: return MetricsPanel::tr("Occupancy per memory level");
    case MetricsPanel::UtilisationChart: return MetricsPanel::tr("Utilisation per unit kind");
    case MetricsPanel::ChartCount: break;
    }
    return {};
}

// A byte scale for an axis: (divisor, unit) so the peak reads as 1..1023.
std::pair<double, QString> byteScale(double peak)
{
    if (peak >= 1024.0 * 1024 * 1024)
        return {1024.0 * 1024 * 1024, QStringLiteral("GiB")};
    if (peak >= 1024.0 * 1024)
        return {1024.0 * 1024, QStringLiteral("MiB")};
    if (peak >= 1024.0)
        return {1024.0, QStringLiteral("KiB")};
    return {1.0, QStringLiteral("B")};
}

// A round upper bound for an axis: 1, 2 or 5 × 10^k at or above `v`.
double niceCeil(double v)
{
    if (!(v > 0))
        return 1;
    const double mag = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (v <= m * mag * (1 + 1e-9))
            return m * mag;
    return 10 * mag;
}

// The largest tick step of 1, 2 or 5 × 10^k giving at least `wanted` steps over `span`.
double tickStep(double span, int wanted)
{
    if (!(span > 0) || wanted <= 0)
        return 1;
    const double raw = span / wanted;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {5.0, 2.0, 1.0})
        if (m * mag <= raw * (1 + 1e-9))
            return m * mag;
    return mag;
}

// Labels with as many decimals as the step needs ("%.0f" for 500, "%.2f" for 0.05).
QString labelFormat(double step)
{
    const int decimals = step >= 1 ? 0 : std::min(6, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
    return QStringLiteral("%.%1f").arg(decimals);
}

QString metricText(const std::map<std::string, double> &metrics, const char *key)
{
    auto it = metrics.find(key);
    return it == metrics.end() ? QString() : QString::number(it->second, 'g', 3);
}

} // namespace

MetricsPanel::MetricsPanel(WorkbenchState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_summary(new QLabel(this)), m_flush(new QTimer(this))
{
    setObjectName(QStringLiteral("metricsPanel"));
    m_summary->setObjectName(QStringLiteral("metricsSummary"));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true); // a narrow dock wraps the line rather than growing
    m_flush->setSingleShot(true);
    connect(m_flush, &QTimer::timeout, this, [this] {
        m_throttle.flushed(QDateTime::currentMSecsSinceEpoch());
        refresh();
    });

    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(6);
    for (int c = 0; c < ChartCount; ++c) {
        m_pages[c] = new QStackedWidget(this);
        m_pages[c]->setMinimumSize(160, 120);
        m_empty[c] = new QLabel(m_pages[c]);
        m_empty[c]->setAlignment(Qt::AlignCenter);
        m_empty[c]->setWordWrap(true);
        m_empty[c]->setMargin(8);
        m_empty[c]->setFrameShape(QFrame::StyledPanel);
        QPalette pal = m_empty[c]->palette();
        QColor faint = pal.color(QPalette::Text);
        faint.setAlpha(140);
        pal.setColor(QPalette::WindowText, faint);
        m_empty[c]->setPalette(pal);
        m_pages[c]->addWidget(m_empty[c]);
#if TESSERA_CHARTS
        auto *view = new QChartView(m_pages[c]);
        view->setRenderHint(QPainter::Antialiasing);
        view->setObjectName(QStringLiteral("metricsChart%1").arg(c));
        m_views[c] = view;
        m_pages[c]->addWidget(view);
#endif
        row->addWidget(m_pages[c], 1);
    }
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    layout->addWidget(m_summary);
    layout->addLayout(row, 1);

    Q_ASSERT(state);
    connect(m_state, &WorkbenchState::backendRunStarted, this, [this] {
        m_throttle.reset();
        m_flush->stop();
        showRun(nullptr, false);
        setSummary(); // "running"
    });
    connect(m_state, &WorkbenchState::backendRunUpdated, this, &MetricsPanel::onUpdated);
    connect(m_state, &WorkbenchState::backendRunPausedChanged, this, &MetricsPanel::setSummary);
    connect(m_state, &WorkbenchState::backendRunFinished, this,
            [this](std::shared_ptr<const RunResult> result) { showRun(std::move(result), true); });
    connect(m_state, &WorkbenchState::backendRunRestored, this,
            [this](std::shared_ptr<const RunResult> result, const QString &) { showRun(std::move(result), true); });
    connect(m_state, &WorkbenchState::backendRunFailed, this, [this] {
        m_flush->stop();
        setSummary();
    });
    // A panel made while a run streams, or after one, starts from what the state holds.
    if (m_state->isBackendRunning())
        showRun(m_state->backendRunSoFar(), false);
    else
        showRun(m_state->lastResult(), m_state->lastResult() != nullptr);
}

MetricsPanel::~MetricsPanel() = default;

void MetricsPanel::setRefreshInterval(int ms)
{
    m_throttle = UpdateThrottle(ms);
}

int MetricsPanel::refreshInterval() const
{
    return static_cast<int>(m_throttle.intervalMs());
}

void MetricsPanel::onUpdated(std::shared_ptr<const RunResult> soFar)
{
    m_result = std::move(soFar);
    m_finished = false;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (m_throttle.offer(now)) {
        m_flush->stop();
        refresh();
    } else if (!m_flush->isActive()) {
        m_flush->start(static_cast<int>(m_throttle.pendingDelay(now)));
    }
}

void MetricsPanel::showRun(std::shared_ptr<const RunResult> result, bool finished)
{
    m_flush->stop();
    m_result = std::move(result);
    m_finished = finished && m_result;
    refresh();
}

const ExecutionPlan *MetricsPanel::plan() const
{
    const std::shared_ptr<const ScheduleRun> schedule = m_state->backendRunSchedule();
    return schedule ? &schedule->result.plan : nullptr;
}

const Device *MetricsPanel::device() const
{
    const Device *d = m_state->device();
    const ExecutionPlan *p = plan();
    return d && p && d->id == p->device ? d : nullptr;
}

void MetricsPanel::refresh()
{
    ++m_refreshes;
    // Two columns of bins per pixel at most; the charts share the row.
    const int columns = std::clamp(width() / (2 * ChartCount), 60, 400);
    m_charts = m_result ? buildRunCharts(*m_result, plan(), device(), m_finished, columns) : RunCharts();
    for (int c = 0; c < ChartCount; ++c)
        drawChart(static_cast<Chart>(c));
    setSummary();
}

void MetricsPanel::setSummary()
{
    const bool running = m_state->isBackendRunning();
    QString text;
    if (!m_result && !running) {
        text = tr("Run a plan in the Run dock to chart its throughput, memory occupancy and unit utilisation here.");
    } else if (!m_finished) {
        const QString simulated = m_result && m_charts.spanMs > 0
                                      ? tr(" · <b>%1</b> simulated so far").arg(formatMs(m_charts.spanMs))
                                      : QString();
        text = tr("%1 · %2 of %3 tasks%4")
                   .arg(m_state->isBackendRunPaused() ? tr("<b>Paused</b>") : tr("<b>Running</b>"))
                   .arg(m_state->tasksDone())
                   .arg(m_state->tasksTotal())
                   .arg(simulated);
        if (!running)
            text = tr("The run ended before finishing; the charts show what it reported.");
    } else {
        const RunResult &r = *m_result;
        const bool simulated = r.metrics.count("sim_time_ms") > 0;
        text = tr("<b>%1</b> %2 · <b>%3 items/s</b> (batch %4)")
                   .arg(formatMs(r.latencyMs), simulated ? tr("simulated") : tr("measured"),
                        formatCount(m_charts.finalThroughput))
                   .arg(m_charts.batch);
        if (const QString e = metricText(r.metrics, "energy_j"); !e.isEmpty())
            text += tr(" · %1 J").arg(e);
        if (const QString p = metricText(r.metrics, "avg_power_w"); !p.isEmpty())
            text += tr(" · %1 W average").arg(p);
    }
    m_summary->setText(text);
    m_summary->setToolTip(QTextDocumentFragment::fromHtml(text).toPlainText());
}

QString MetricsPanel::summaryText() const
{
    return m_summary->toolTip();
}

bool MetricsPanel::isEmptyState(Chart chart) const
{
    return m_pages[chart]->currentWidget() == m_empty[chart];
}

QString MetricsPanel::emptyText(Chart chart) const
{
    return isEmptyState(chart) ? m_empty[chart]->text() : QString();
}

int MetricsPanel::seriesCount(Chart chart) const
{
    return isEmptyState(chart) ? 0 : m_series[chart];
}

QWidget *MetricsPanel::chartWidget(Chart chart) const
{
    return m_pages[chart];
}

void MetricsPanel::drawChart(Chart chart)
{
    const QString backend = m_state->backendRunBackend();
    QString empty;
    if (!m_result) {
        empty = m_state->isBackendRunning() ? tr("%1\n\nWaiting for the run's first report…").arg(chartTitle(chart))
                                            : tr("%1\n\nNo run yet.").arg(chartTitle(chart));
    } else if (chart == ThroughputChart && m_charts.throughput.points.empty()) {
        empty = tr("%1\n\nNo task has finished yet.").arg(chartTitle(chart));
    } else if (chart == OccupancyChart && m_charts.occupancy.empty()) {
        empty = tr("%1\n\nThe %2 backend reports no occupancy timeline; the simulator (sim) does.")
                    .arg(chartTitle(chart), backend);
    } else if (chart == UtilisationChart && m_charts.utilisation.empty()) {
        empty = tr("%1\n\nThe %2 backend reports no utilisation timeline; the simulator (sim) does.")
                    .arg(chartTitle(chart), backend);
    }
#if !TESSERA_CHARTS
    if (empty.isEmpty())
        empty = tr("%1\n\nThis build has no Qt Charts.").arg(chartTitle(chart));
#endif
    m_series[chart] = 0;
    if (!empty.isEmpty()) {
        m_empty[chart]->setText(empty);
        m_pages[chart]->setCurrentWidget(m_empty[chart]);
        return;
    }
#if TESSERA_CHARTS
    auto *view = static_cast<QChartView *>(m_views[chart]);
    auto *qchart = new QChart();
    const QPalette pal = palette();
    qchart->setBackgroundBrush(pal.base());
    qchart->setBackgroundRoundness(0);
    qchart->setMargins(QMargins(2, 2, 2, 2));
    qchart->layout()->setContentsMargins(0, 0, 0, 0);
    QFont small = font();
    small.setPointSizeF(std::max(7.0, font().pointSizeF() * 0.85));
    QFont bold = font();
    bold.setBold(true);
    qchart->setTitleFont(bold);
    qchart->setTitleBrush(pal.text());
    qchart->legend()->setFont(small);
    qchart->legend()->setLabelColor(pal.color(QPalette::Text));
    qchart->legend()->setAlignment(Qt::AlignRight);
    qchart->setAnimationOptions(QChart::NoAnimation);

    std::vector<const RunChartSeries *> series;
    QString yTitle;
    double scale = 1, yMax = 1;
    bool share = false; // occupancy as a share of each level's capacity
    QString title = chartTitle(chart);
    if (chart == ThroughputChart) {
        series.push_back(&m_charts.throughput);
        yTitle = tr("items/s");
        yMax = niceCeil(m_charts.throughput.peak * 1.05);
        if (m_finished)
            title += tr(": %1 items/s").arg(formatCount(m_charts.finalThroughput));
        qchart->legend()->hide();
    } else if (chart == OccupancyChart) {
        bool known = true;
        double peak = 0;
        for (std::size_t i = 0; i < m_charts.occupancy.size(); ++i) {
            series.push_back(&m_charts.occupancy[i]);
            known = known && m_charts.capacityBytes[i] > 0;
            peak = std::max(peak, m_charts.occupancy[i].peak);
        }
        if (known) {
            // Share of each level's capacity, the axis up to the fullest level (DRAM
            // holding megabytes of gigabytes still shows).
            double fullest = 0;
            for (std::size_t i = 0; i < m_charts.occupancy.size(); ++i)
                fullest = std::max(fullest,
                                   100.0 * m_charts.occupancy[i].peak / static_cast<double>(m_charts.capacityBytes[i]));
            yTitle = tr("% of capacity");
            yMax = std::min(100.0, niceCeil(fullest * 1.05));
            share = true;
        } else {
            const auto [div, unit] = byteScale(peak);
            scale = 1 / div;
            yTitle = unit;
            yMax = niceCeil(peak * scale * 1.05);
        }
    } else {
        for (const RunChartSeries &s : m_charts.utilisation)
            series.push_back(&s);
        yTitle = tr("% busy");
        yMax = 100;
        scale = 100;
    }
    qchart->setTitle(title);

    auto *x = new QValueAxis(qchart);
    const double span = std::max(1e-6, m_charts.spanMs);
    x->setRange(0, span);
    const bool simulated = m_result->metrics.count("sim_time_ms") > 0;
    x->setTitleText(!m_finished && m_state->isBackendRunning() ? tr("ms so far")
                    : simulated                                ? tr("simulated ms")
                                                               : tr("ms"));
    auto *y = new QValueAxis(qchart);
    y->setRange(0, yMax);
    y->setTitleText(yTitle);
    // Round ticks from 0: about one per 90 pixels across, four to ten up.
    const double xStep = tickStep(span, std::max(2, view->width() / 90));
    const double yStep = tickStep(yMax, 4);
    for (auto [axis, step] : {std::pair{x, xStep}, std::pair{y, yStep}}) {
        axis->setLabelsFont(small);
        axis->setTitleFont(small);
        axis->setLabelsColor(pal.color(QPalette::Text));
        axis->setTitleBrush(pal.text());
        axis->setTickType(QValueAxis::TicksDynamic);
        axis->setTickAnchor(0);
        axis->setTickInterval(step);
        axis->setLabelFormat(labelFormat(step));
        axis->setGridLineColor(pal.color(QPalette::Midlight));
    }
    qchart->addAxis(x, Qt::AlignBottom);
    qchart->addAxis(y, Qt::AlignLeft);
    for (std::size_t i = 0; i < series.size(); ++i) {
        const RunChartSeries &s = *series[i];
        auto *line = new QLineSeries(qchart);
        double k = scale;
        QString name = s.name;
        if (chart == OccupancyChart && share) {
            k = 100.0 / static_cast<double>(m_charts.capacityBytes[i]);
            name += tr(" (peak %1)").arg(formatBytes(static_cast<std::int64_t>(s.peak)));
        }
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(s.points.size()));
        for (const QPointF &p : s.points)
            points.append(QPointF(p.x(), p.y() * k));
        line->replace(points);
        line->setPointsVisible(points.size() < 3); // a lone point still shows
        line->setName(name);
        QPen pen(seriesColor(static_cast<int>(i)));
        pen.setWidthF(1.5);
        line->setPen(pen);
        qchart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
    }
    m_series[chart] = static_cast<int>(series.size());
    QChart *old = view->chart();
    view->setChart(qchart);
    delete old;
    m_pages[chart]->setCurrentWidget(view);
#endif
}

} // namespace tessera::views
