// Flat graph layout as plain data: boxes with sizes and directed edges in,
// box positions and edge curves out. Two engines:
//   layoutDot     — Graphviz `dot` (network-simplex ranking, crossing
//                   minimisation, spline routing). Best look, but superlinear:
//                   ~1.5 s at 2,000 boxes, so callers keep it to small levels.
//   layoutLayered — our own Sugiyama-style layout in O((V+E')·sweeps), E'
//                   counting dummy segments: longest-path layering, dummy
//                   nodes on long edges, barycentric ordering sweeps, then
//                   barycentric coordinate relaxation. Milliseconds at 5,000 boxes.
// layoutAuto picks dot up to `dotLimit` boxes. Top-to-bottom, y grows down,
// units are scene units (points). Cycles are allowed (back edges are reversed
// for ranking and drawn upward). Graphviz headers stay in layoutdot.cpp, and
// dot calls are serialised by a process-wide mutex (gvc is not thread-safe).
#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <cstdint>
#include <vector>

namespace tessera::layout {

struct Edge {
    int from = 0;
    int to = 0;
    int weight = 1; // aggregated edge count: heavier edges are kept shorter and straighter
};

// A box pinned to the first or last rank (a group's input/output port).
enum class Pin : std::uint8_t { None, First, Last };

struct Input {
    std::vector<QSizeF> sizes; // one per box
    std::vector<Pin> pins;     // empty, or one per box
    std::vector<Edge> edges;
    double nodeSep = 18; // horizontal gap between boxes
    double rankSep = 26; // vertical gap between ranks
};

enum class Engine : std::uint8_t { Dot, Layered };

struct Output {
    std::vector<QRectF> boxes; // one per input box; top-left at >= (0,0)
    // One curve per input edge, as cubic Bézier control points P0 (C1 C2 P)*,
    // from the source box border to the target box border. Empty for self-loops.
    std::vector<std::vector<QPointF>> edges;
    QSizeF size; // bounding size of everything above
    Engine engine = Engine::Layered;
    bool ok = true; // false if dot failed (the caller may fall back)
};

Output layoutDot(const Input &in);
Output layoutLayered(const Input &in);

inline constexpr int kDefaultDotLimit = 300;
// dot for up to dotLimit boxes, layered beyond (or if dot fails).
Output layoutAuto(const Input &in, int dotLimit = kDefaultDotLimit);

// Point at parameter t of one cubic segment; used by the view for arrowheads.
QPointF bezierPoint(QPointF p0, QPointF c1, QPointF c2, QPointF p1, double t);

} // namespace tessera::layout
