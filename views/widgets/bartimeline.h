// BarTimeline: rows of labelled bars over one horizontal axis (a Gantt
// chart). Any view that draws intervals per row uses it: a tensor's liveness
// over task positions (one row per tensor), tasks over time (one row per
// compute unit or DMA engine). Bars are filled with their colour; a marked
// bar (a spill, a hidden transfer...) gets a hatched fill and a dark outline.
// A legend of (colour, text) pairs sits above the rows, the axis below them.
// Tool tips show a bar's text; clicking a bar calls barClicked(row, bar).
// The widget holds plain data (no model): callers rebuild rows per plan.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include <functional>
#include <utility>
#include <vector>

namespace tessera::views {

struct TimelineBar {
    double start = 0;
    double end = 0;
    QColor color;
    QString tip;
    bool marked = false;
    int tag = -1; // the caller's id for the bar (a task, a buffer), handed back on clicks
};

struct TimelineRow {
    QString label;
    std::vector<TimelineBar> bars;
};

class BarTimeline final : public QWidget
{
public:
    explicit BarTimeline(QWidget *parent = nullptr);

    // `axis`: the unit of the horizontal axis ("task", "µs"); the axis spans [0, max end].
    void setRows(std::vector<TimelineRow> rows, QString axis, std::vector<std::pair<QColor, QString>> legend = {});
    void clear();
    const std::vector<TimelineRow> &rows() const { return m_rows; }
    double span() const { return m_span; }
    std::function<void(int row, int bar)> barClicked;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *) override;
    void mousePressEvent(QMouseEvent *e) override;
    bool event(QEvent *e) override;

private:
    QRectF barRect(int row, const TimelineBar &b) const;
    std::pair<int, int> barAt(QPointF p) const;
    int labelWidth() const;

    std::vector<TimelineRow> m_rows;
    std::vector<std::pair<QColor, QString>> m_legend;
    QString m_axis;
    double m_span = 1;
};

} // namespace tessera::views
