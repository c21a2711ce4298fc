// Geometry of the DP explorer's table drawing (views/widgets/searchexplorerpainters.h
// paints it): pure layout of one SearchSpace table (core/sched/searchspace.h),
// tested on data like the other layout math in views/models. Qt Core only.
#pragma once

#include "core/sched/searchspace.h"

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <cstdint>
#include <functional>
#include <vector>

namespace tessera::views {

// Geometry of the explorer's drawing (pure; the widget paints it). A table of
// at most `maxStates` states is drawn whole in the style of Fig. 3.4 (2): a row
// of boxes per level, largest state on top, ∅ at the bottom, states ordered in
// their row by the mean position of their predecessors (fewer crossings). A
// transition is a smooth curve through one waypoint per row it crosses, set in
// a gap between that row's boxes, and leaves and enters its boxes at points
// spread along their edges in the order of where it goes. A bigger table draws
// its path only: one column from the start to ∅, stage labels right of it.
// Texts wider than maxTextWidth are elided by the painter.
struct SearchDagMetrics {
    std::function<double(const QString &)> textWidth; // required
    double lineHeight = 16;
    double padX = 10, padY = 5;
    double rowGap = 64; // between rows of boxes
    double colGap = 36; // between boxes of a row
    double margin = 16;
    double maxTextWidth = 300;
};

struct SearchDagLayout {
    struct Box {
        std::int32_t state = -1;
        QRectF rect;
    };
    struct Edge {
        std::int32_t transition = -1;
        std::vector<QPointF> points; // leaves `from`, a waypoint per row crossed, enters `to`
        // The curve: between consecutive points a cubic leaving and arriving vertically.
        static void segment(const QPointF &p, const QPointF &q, QPointF &c1, QPointF &c2);
        QPointF pointAt(double t) const; // t in [0, 1] along the whole curve
    };
    std::vector<Box> boxes;
    std::vector<Edge> edges;
    QSizeF size;
    bool whole = true; // false: only the path is drawn
};

SearchDagLayout layoutSearchDag(const SearchSpace::Table &table, const SearchDagMetrics &metrics, int maxStates = 40);
QString searchStateCostText(const SearchSpace::State &state); // the second line of a box: "cost 12.3 µs"

} // namespace tessera::views
