// MetricsPanel: the workbench's Metrics dock — live charts of a backend run
// (issue 12 item 4, graphturbo-osdi23 Fig. 16/17 style):
//   - throughput so far (items per second, RunCharts::throughput);
//   - occupancy of each memory level over simulated time, as a share of the
//     level's capacity on the device (bytes when the device is unknown);
//   - utilisation of each compute-unit kind over simulated time (% busy);
// above them one line with the run's headline numbers (simulated time,
// throughput, energy, average power, peak occupancy).
//
// It follows a WorkbenchState: a run's streamed part (backendRunUpdated) is
// drawn while the run goes, at most once per refreshInterval() (100 ms,
// ≤ 10 Hz, UpdateThrottle: the latest data is drawn when the interval ends);
// a finished run (backendRunFinished) and a run restored from a project
// (backendRunRestored) are drawn at once from their stored metrics. A chart
// whose data the run lacks (the reference backend reports no occupancy) shows
// a sentence saying so instead of empty axes. Views draw: the panel asks for
// nothing. Without Qt Charts in the build the charts are that sentence too.
#pragma once

#include "views/models/runcharts.h"

#include <QWidget>

#include <memory>

class QLabel;
class QStackedWidget;
class QTimer;

namespace tessera::views {

class WorkbenchState;

class MetricsPanel final : public QWidget
{
    Q_OBJECT
public:
    enum Chart { ThroughputChart, OccupancyChart, UtilisationChart, ChartCount };

    explicit MetricsPanel(WorkbenchState *state, QWidget *parent = nullptr);
    ~MetricsPanel() override;

    // Draws `result` at once (a null result clears the panel); `finished`: the
    // whole run rather than its streamed part. The state's signals call it.
    void showRun(std::shared_ptr<const RunResult> result, bool finished);

    void setRefreshInterval(int ms);
    int refreshInterval() const;
    int refreshCount() const { return m_refreshes; } // redraws since construction
    const RunCharts &charts() const { return m_charts; }
    bool isEmptyState(Chart chart) const;    // the chart shows its sentence, not axes
    QString emptyText(Chart chart) const;    // that sentence (empty when it shows axes)
    QString summaryText() const;             // the headline line, as plain text
    int seriesCount(Chart chart) const;      // line series drawn in the chart
    QWidget *chartWidget(Chart chart) const; // the chart's page (for screenshots)

private:
    void onUpdated(std::shared_ptr<const RunResult> soFar);
    void refresh();
    void drawChart(Chart chart);
    void setSummary();
    const ExecutionPlan *plan() const;
    const Device *device() const;

    WorkbenchState *m_state;
    QLabel *m_summary;
    QStackedWidget *m_pages[ChartCount];
    QLabel *m_empty[ChartCount];
    QWidget *m_views[ChartCount] = {}; // QChartView, or null without Qt Charts
    QTimer *m_flush;
    UpdateThrottle m_throttle;
    std::shared_ptr<const RunResult> m_result;
    bool m_finished = false;
    RunCharts m_charts;
    int m_refreshes = 0;
    int m_series[ChartCount] = {};
};

} // namespace tessera::views
