// Colours, fonts and the metric colour scale of the graph view, in one place
// so the view, the minimap and exports agree. Level-of-detail thresholds are
// in scene-to-device scale (1.0 = 100 % zoom).
#pragma once

#include "views/models/layoutnodes.h"

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QString>

#include <cmath>
#include <vector>

class QPainter;

namespace tessera::graphstyle {

inline constexpr qreal kTextLod = 0.38;   // below: no text
inline constexpr qreal kDetailLod = 1.6;  // above: node names inside boxes
inline constexpr qreal kSketchLod = 0.14; // below: straight edges, no arrows, no antialiasing

QColor background();
QColor categoryColor(layout::OpCategory c);
QColor opaqueColor();
QColor edgeColor();
QColor frameFill(int depth);
QColor frameBorder();
QColor highlightColor(); // search results
QColor selectionColor();
QColor textOn(const QColor &fill); // black or white, whichever reads better

QFont titleFont(); // op type, group names
QFont bodyFont();  // shapes, counts
QFont smallFont(); // node names when zoomed in

// A sequential colour scale (perceptually ordered, dark blue → yellow) over
// [min, max], linear or log10; NaN and values outside the log domain are "no value".
class MetricScale
{
public:
    MetricScale() = default;
    MetricScale(const std::vector<double> &values, bool logScale);
    bool valid() const { return m_valid; }
    bool hasValue(double v) const { return std::isfinite(v) && (!m_log || v > 0); }
    QColor color(double v) const; // light grey without a value
    double min() const { return m_min; }
    double max() const { return m_max; }
    bool logScale() const { return m_log; }
    static QColor ramp(double t); // t in [0, 1]

private:
    double m_min = 0, m_max = 1;
    bool m_log = false;
    bool m_valid = false;
};

// The legend box (metric name, gradient, min/max) anchored at bottom-left of `area`.
void drawLegend(QPainter *p, const QRectF &area, const MetricScale &scale, const QString &metric);

// Categories (a plan's kernels, stages, cores …): a qualitative palette of 12
// colours, repeated lighter and darker beyond; neighbouring indices differ in hue.
QColor paletteColor(int category); // category < 0: "none", light grey
// "Mixed": a collapsed group whose nodes fall into several categories.
QColor mixedColor();
// The legend of categories anchored at bottom-left of `area`: the title, then
// one swatch per category (the first `maxRows`, then "… N more").
void drawCategoryLegend(QPainter *p, const QRectF &area, const std::vector<QString> &names, const QString &title,
                        int maxRows = 10);
QString formatValue(double v);

} // namespace tessera::graphstyle
