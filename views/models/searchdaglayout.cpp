// The DP explorer's table drawing, laid out (see searchdaglayout.h).
#include "views/models/searchdaglayout.h"

#include "core/support/assert.h"
#include "views/models/plansummary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace tessera::views {

void SearchDagLayout::Edge::segment(const QPointF &p, const QPointF &q, QPointF &c1, QPointF &c2)
{
    const double dy = (q.y() - p.y()) * 0.5;
    c1 = QPointF(p.x(), p.y() + dy);
    c2 = QPointF(q.x(), q.y() - dy);
}

QPointF SearchDagLayout::Edge::pointAt(double t) const
{
    if (points.size() < 2)
        return points.empty() ? QPointF() : points.front();
    const auto segments = static_cast<double>(points.size() - 1);
    const double x = std::clamp(t, 0.0, 1.0) * segments;
    const auto i = std::min(static_cast<std::size_t>(x), points.size() - 2);
    const double u = x - static_cast<double>(i), v = 1 - u;
    QPointF c1, c2;
    segment(points[i], points[i + 1], c1, c2);
    return points[i] * (v * v * v) + c1 * (3 * v * v * u) + c2 * (3 * v * u * u) + points[i + 1] * (u * u * u);
}

QString searchStateCostText(const SearchSpace::State &state)
{
    return QStringLiteral("cost ") + (std::isfinite(state.cost) ? formatDurationNs(state.cost) : QStringLiteral("—"));
}

namespace {

QSizeF boxSize(const SearchSpace::State &s, const SearchDagMetrics &m)
{
    const double w = std::max(m.textWidth(QString::fromStdString(s.label)), m.textWidth(searchStateCostText(s)));
    return {std::min(w, m.maxTextWidth) + 2 * m.padX, 2 * m.lineHeight + 2 * m.padY};
}

// Spreads the ends of a box's edges along one of its sides, ordered by where they go.
void spread(std::vector<std::pair<double, QPointF *>> &ends, const QRectF &box)
{
    std::stable_sort(ends.begin(), ends.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    const double n = static_cast<double>(ends.size());
    const double span = std::min(box.width() * 0.7, 14.0 * n);
    for (std::size_t k = 0; k < ends.size(); ++k)
        ends[k].second->setX(box.center().x() + (n > 1 ? span * (static_cast<double>(k) / (n - 1) - 0.5) : 0));
}

} // namespace

SearchDagLayout layoutSearchDag(const SearchSpace::Table &t, const SearchDagMetrics &m, int maxStates)
{
    TS_ASSERT(m.textWidth);
    SearchDagLayout out;
    const auto n = t.states.size();
    if (n == 0)
        return out;
    std::vector<int> boxOfState(n, -1);

    if (static_cast<int>(n) > maxStates) { // the path only, one column, labels on the right
        out.whole = false;
        const double gap = m.rowGap * 0.6;
        double y = m.margin, width = 0;
        for (std::int32_t s : t.path) {
            const QSizeF sz = boxSize(t.states[static_cast<std::size_t>(s)], m);
            boxOfState[static_cast<std::size_t>(s)] = static_cast<int>(out.boxes.size());
            out.boxes.push_back({s, QRectF(QPointF(0, y), sz)});
            y += sz.height() + gap;
            width = std::max(width, sz.width());
        }
        double labels = 0;
        for (std::size_t k = 0; k + 1 < t.path.size(); ++k)
            if (const std::int32_t c = t.states[static_cast<std::size_t>(t.path[k])].choice; c >= 0)
                labels =
                    std::max(labels, std::min(m.maxTextWidth, m.textWidth(QString::fromStdString(
                                                                  t.transitions[static_cast<std::size_t>(c)].label))));
        const double cx = m.margin + width / 2;
        for (auto &b : out.boxes)
            b.rect.moveLeft(cx - b.rect.width() / 2);
        for (std::size_t k = 0; k + 1 < t.path.size(); ++k) {
            const std::int32_t c = t.states[static_cast<std::size_t>(t.path[k])].choice;
            if (c < 0)
                continue;
            SearchDagLayout::Edge e;
            e.transition = c;
            e.points = {QPointF(cx, out.boxes[k].rect.bottom()), QPointF(cx, out.boxes[k + 1].rect.top())};
            out.edges.push_back(std::move(e));
        }
        // Room for a label and its cost right of the column (the painter adds the cost).
        out.size = QSizeF(std::max(2 * cx, cx + 12 + labels + m.textWidth(QStringLiteral("  999.9 µs")) + m.margin),
                          y - gap + m.margin);
        return out;
    }

    // Rows by size, largest first.
    std::vector<std::int32_t> sizes;
    for (const auto &s : t.states)
        sizes.push_back(s.size);
    std::sort(sizes.begin(), sizes.end(), std::greater<>());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    std::vector<std::vector<std::int32_t>> rows(sizes.size());
    std::vector<int> rowOf(n, 0);
    for (std::size_t s = 0; s < n; ++s) {
        const auto r = std::lower_bound(sizes.begin(), sizes.end(), t.states[s].size, std::greater<>()) - sizes.begin();
        rows[static_cast<std::size_t>(r)].push_back(static_cast<std::int32_t>(s));
        rowOf[s] = static_cast<int>(r);
    }
    // Order within a row by the mean x (slot) of the predecessors placed above.
    std::vector<std::vector<std::int32_t>> preds(n);
    for (const auto &tr : t.transitions)
        preds[static_cast<std::size_t>(tr.to)].push_back(tr.from);
    std::vector<double> slot(n, 0), rowWidth(rows.size(), 0);
    double widest = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        auto &row = rows[r];
        std::vector<double> key(n, 0);
        for (std::int32_t s : row) {
            const auto &p = preds[static_cast<std::size_t>(s)];
            double sum = 0;
            for (std::int32_t q : p)
                sum += slot[static_cast<std::size_t>(q)];
            key[static_cast<std::size_t>(s)] = p.empty() ? 0 : sum / static_cast<double>(p.size());
        }
        std::stable_sort(row.begin(), row.end(), [&](std::int32_t a, std::int32_t b) {
            return key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)];
        });
        double w = 0;
        for (std::int32_t s : row)
            w += boxSize(t.states[static_cast<std::size_t>(s)], m).width() + m.colGap;
        rowWidth[r] = w - m.colGap;
        widest = std::max(widest, rowWidth[r]);
        double x = -rowWidth[r] / 2; // centres on a common axis, so the next row can use them as keys
        for (std::int32_t s : row) {
            const double bw = boxSize(t.states[static_cast<std::size_t>(s)], m).width();
            slot[static_cast<std::size_t>(s)] = x + bw / 2;
            x += bw + m.colGap;
        }
    }
    const double boxH = 2 * m.lineHeight + 2 * m.padY;
    const double side = m.colGap * 2; // room for curves passing a row on its outside
    const double cx = m.margin + side + widest / 2;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const double y = m.margin + static_cast<double>(r) * (boxH + m.rowGap);
        for (std::int32_t s : rows[r]) {
            const QSizeF sz = boxSize(t.states[static_cast<std::size_t>(s)], m);
            boxOfState[static_cast<std::size_t>(s)] = static_cast<int>(out.boxes.size());
            out.boxes.push_back({s, QRectF(QPointF(cx + slot[static_cast<std::size_t>(s)] - sz.width() / 2, y), sz)});
        }
    }
    auto rectOf = [&](std::int32_t s) -> const QRectF & {
        return out.boxes[static_cast<std::size_t>(boxOfState[static_cast<std::size_t>(s)])].rect;
    };

    // Edges: a waypoint in a free gap of every row crossed; curves sharing a gap fan out a little.
    std::map<std::pair<int, long>, int> gapUse;
    for (std::size_t i = 0; i < t.transitions.size(); ++i) {
        const auto &tr = t.transitions[i];
        const QRectF &a = rectOf(tr.from), &b = rectOf(tr.to);
        SearchDagLayout::Edge e;
        e.transition = static_cast<std::int32_t>(i);
        const QPointF start(a.center().x(), a.bottom()), end(b.center().x(), b.top());
        e.points.push_back(start);
        for (int r = rowOf[static_cast<std::size_t>(tr.from)] + 1; r < rowOf[static_cast<std::size_t>(tr.to)]; ++r) {
            const double y = m.margin + r * (boxH + m.rowGap) + boxH / 2;
            const double f = (y - start.y()) / (end.y() - start.y());
            double x = start.x() + f * (end.x() - start.x());
            const double pad = 10;
            for (int pass = 0; pass < 2; ++pass) // a nudge can land in the neighbour: check twice
                for (std::int32_t s : rows[static_cast<std::size_t>(r)]) {
                    const QRectF &box = rectOf(s);
                    if (x > box.left() - pad && x < box.right() + pad)
                        x = x - box.center().x() < 0 ? box.left() - pad : box.right() + pad;
                }
            const int use = gapUse[{r, std::lround(x)}]++;
            x += (use % 2 ? -1 : 1) * 6.0 * ((use + 1) / 2);
            e.points.emplace_back(x, y);
        }
        e.points.push_back(end);
        out.edges.push_back(std::move(e));
    }
    // Spread where edges leave and enter boxes.
    std::vector<std::vector<std::pair<double, QPointF *>>> leaving(out.boxes.size()), entering(out.boxes.size());
    for (auto &e : out.edges) {
        const auto &tr = t.transitions[static_cast<std::size_t>(e.transition)];
        leaving[static_cast<std::size_t>(boxOfState[static_cast<std::size_t>(tr.from)])].push_back(
            {e.points[1].x(), &e.points.front()});
        entering[static_cast<std::size_t>(boxOfState[static_cast<std::size_t>(tr.to)])].push_back(
            {e.points[e.points.size() - 2].x(), &e.points.back()});
    }
    for (std::size_t b = 0; b < out.boxes.size(); ++b) {
        spread(leaving[b], out.boxes[b].rect);
        spread(entering[b], out.boxes[b].rect);
    }
    out.size = QSizeF(2 * cx, m.margin * 2 + static_cast<double>(rows.size()) * (boxH + m.rowGap) - m.rowGap);
    return out;
}

} // namespace tessera::views
