// layoutLayered: a Sugiyama-style layered layout (Sugiyama, Tagawa, Toda 1981)
// for levels too big for dot. Stages:
//   S1 cycle breaking — edges into First-pinned / out of Last-pinned boxes and
//      DFS back edges are reversed (drawn upward later);
//   S2 layering — longest path from the sources, then every unpinned source is
//      pulled down to just above its highest successor;
//   S3 dummy boxes on every edge spanning more than one layer;
//   S4 ordering — alternating barycentric sweeps (down, up);
//   S5 x coordinates — alternating sweeps; in each layer the boxes move to the
//      barycentre of their neighbours, then the order and minimum gaps are
//      restored by isotonic regression (pool-adjacent-violators), which gives
//      the least-squares positions under those constraints in O(layer size);
//   S6 edges — end points spread along the box borders, cubic curves with
//      vertical tangents through the dummy positions.
// Everything is linear per sweep in boxes plus dummy boxes.
#include "views/models/layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessera::layout {
namespace {

struct Arc {
    int from, to; // in the acyclic orientation
    int edge;     // input edge index
    bool reversed;
    double weight;
};

// S1: returns for each input edge whether it must be reversed.
std::vector<bool> breakCycles(const Input &in)
{
    const std::size_t n = in.sizes.size();
    const auto pin = [&](int v) { return in.pins.empty() ? Pin::None : in.pins[static_cast<std::size_t>(v)]; };
    std::vector<bool> rev(in.edges.size(), false);
    std::vector<std::vector<std::pair<int, int>>> out(n); // (target, edge)
    for (std::size_t k = 0; k < in.edges.size(); ++k) {
        const Edge &e = in.edges[k];
        if (e.from == e.to)
            continue;
        if (pin(e.to) == Pin::First || pin(e.from) == Pin::Last)
            rev[k] = true;
        else
            out[static_cast<std::size_t>(e.from)].push_back({e.to, static_cast<int>(k)});
    }
    enum : char { White, Grey, Black };
    std::vector<char> colour(n, White);
    std::vector<std::pair<int, std::size_t>> stack; // (node, next child)
    for (std::size_t root = 0; root < n; ++root) {
        if (colour[root] != White)
            continue;
        stack.push_back({static_cast<int>(root), 0});
        colour[root] = Grey;
        while (!stack.empty()) {
            auto &[v, next] = stack.back();
            const auto &succ = out[static_cast<std::size_t>(v)];
            if (next == succ.size()) {
                colour[static_cast<std::size_t>(v)] = Black;
                stack.pop_back();
                continue;
            }
            const auto [w, k] = succ[next++];
            if (colour[static_cast<std::size_t>(w)] == Grey)
                rev[static_cast<std::size_t>(k)] = true;
            else if (colour[static_cast<std::size_t>(w)] == White) {
                colour[static_cast<std::size_t>(w)] = Grey;
                stack.push_back({w, 0});
            }
        }
    }
    return rev;
}

// S2: layer per box.
std::vector<int> assignLayers(const Input &in, const std::vector<Arc> &arcs)
{
    const std::size_t n = in.sizes.size();
    const auto pin = [&](std::size_t v) { return in.pins.empty() ? Pin::None : in.pins[v]; };
    std::vector<std::vector<int>> succ(n), pred(n);
    std::vector<int> indeg(n, 0);
    for (const Arc &a : arcs) {
        succ[static_cast<std::size_t>(a.from)].push_back(a.to);
        pred[static_cast<std::size_t>(a.to)].push_back(a.from);
        ++indeg[static_cast<std::size_t>(a.to)];
    }
    const bool hasFirst = std::any_of(in.pins.begin(), in.pins.end(), [](Pin p) { return p == Pin::First; });
    std::vector<int> layer(n, 0), order;
    order.reserve(n);
    for (std::size_t v = 0; v < n; ++v)
        if (indeg[v] == 0)
            order.push_back(static_cast<int>(v));
    for (std::size_t i = 0; i < order.size(); ++i) { // Kahn: order becomes a topological order
        const auto v = static_cast<std::size_t>(order[i]);
        if (hasFirst && pin(v) != Pin::First)
            layer[v] = std::max(layer[v], 1);
        for (int w : succ[v]) {
            auto &lw = layer[static_cast<std::size_t>(w)];
            lw = std::max(lw, layer[v] + 1);
            if (--indeg[static_cast<std::size_t>(w)] == 0)
                order.push_back(w);
        }
    }
    // Pull unpinned sources down next to their consumers, latest first so chains of sources follow.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const auto v = static_cast<std::size_t>(*it);
        if (!pred[v].empty() || succ[v].empty() || pin(v) != Pin::None)
            continue;
        int lowest = INT32_MAX;
        for (int w : succ[v])
            lowest = std::min(lowest, layer[static_cast<std::size_t>(w)]);
        layer[v] = std::max(layer[v], lowest - 1);
    }
    int maxLayer = 0;
    for (std::size_t v = 0; v < n; ++v)
        if (pin(v) != Pin::Last)
            maxLayer = std::max(maxLayer, layer[v]);
    for (std::size_t v = 0; v < n; ++v)
        if (pin(v) == Pin::Last)
            layer[v] = maxLayer + 1;
    return layer;
}

// Least-squares positions x under x[i+1] - x[i] >= gap[i], closest to want[] (weights w).
void isotonic(std::vector<double> &x, const std::vector<double> &want, const std::vector<double> &gap,
              const std::vector<double> &w)
{
    const std::size_t m = want.size();
    if (m == 0)
        return;
    std::vector<double> offset(m, 0);
    for (std::size_t i = 1; i < m; ++i)
        offset[i] = offset[i - 1] + gap[i - 1];
    struct Block {
        double sum, weight;
        std::size_t count;
    };
    std::vector<Block> blocks;
    for (std::size_t i = 0; i < m; ++i) {
        blocks.push_back({(want[i] - offset[i]) * w[i], w[i], 1});
        while (blocks.size() > 1) {
            const Block &b = blocks.back(), &a = blocks[blocks.size() - 2];
            if (a.sum / a.weight <= b.sum / b.weight)
                break;
            const Block merged{a.sum + b.sum, a.weight + b.weight, a.count + b.count};
            blocks.pop_back();
            blocks.back() = merged;
        }
    }
    std::size_t i = 0;
    for (const Block &b : blocks)
        for (std::size_t k = 0; k < b.count; ++k, ++i)
            x[i] = b.sum / b.weight + offset[i];
}

} // namespace

Output layoutLayered(const Input &in)
{
    Output out;
    out.engine = Engine::Layered;
    const std::size_t n = in.sizes.size();
    out.boxes.resize(n);
    out.edges.resize(in.edges.size());
    if (n == 0)
        return out;

    // S1
    const std::vector<bool> rev = breakCycles(in);
    std::vector<Arc> arcs;
    arcs.reserve(in.edges.size());
    for (std::size_t k = 0; k < in.edges.size(); ++k) {
        const Edge &e = in.edges[k];
        if (e.from == e.to)
            continue;
        const double w = std::max(1, e.weight);
        arcs.push_back(rev[k] ? Arc{e.to, e.from, static_cast<int>(k), true, w}
                              : Arc{e.from, e.to, static_cast<int>(k), false, w});
    }

    // S2
    std::vector<int> layer = assignLayers(in, arcs);
    const int layers = 1 + *std::max_element(layer.begin(), layer.end());

    // S3: vertices 0..n-1 are boxes, n.. are dummies. Each arc becomes a chain.
    std::vector<double> width(n);
    for (std::size_t v = 0; v < n; ++v)
        width[v] = in.sizes[v].width();
    std::vector<std::vector<int>> chain(arcs.size());                // vertices from top to bottom
    std::vector<std::vector<std::pair<int, double>>> up(n), down(n); // (neighbour, weight)
    const auto addVertex = [&](int l) {
        layer.push_back(l);
        width.push_back(0);
        up.emplace_back();
        down.emplace_back();
        return static_cast<int>(layer.size() - 1);
    };
    for (std::size_t a = 0; a < arcs.size(); ++a) {
        const Arc &arc = arcs[a];
        auto &c = chain[a];
        c.push_back(arc.from);
        for (int l = layer[static_cast<std::size_t>(arc.from)] + 1; l < layer[static_cast<std::size_t>(arc.to)]; ++l)
            c.push_back(addVertex(l));
        c.push_back(arc.to);
        for (std::size_t i = 0; i + 1 < c.size(); ++i) {
            down[static_cast<std::size_t>(c[i])].push_back({c[i + 1], arc.weight});
            up[static_cast<std::size_t>(c[i + 1])].push_back({c[i], arc.weight});
        }
    }
    const std::size_t total = layer.size();

    // S4: initial order = DFS discovery from the top layer keeps chains together.
    std::vector<std::vector<int>> rows(static_cast<std::size_t>(layers));
    {
        std::vector<char> seen(total, 0);
        std::vector<int> stack;
        std::vector<int> byLayer(total);
        std::iota(byLayer.begin(), byLayer.end(), 0);
        std::stable_sort(byLayer.begin(), byLayer.end(), [&](int a, int b) {
            return layer[static_cast<std::size_t>(a)] < layer[static_cast<std::size_t>(b)];
        });
        for (int root : byLayer) {
            if (seen[static_cast<std::size_t>(root)])
                continue;
            stack.push_back(root);
            while (!stack.empty()) {
                const int v = stack.back();
                stack.pop_back();
                if (seen[static_cast<std::size_t>(v)])
                    continue;
                seen[static_cast<std::size_t>(v)] = 1;
                rows[static_cast<std::size_t>(layer[static_cast<std::size_t>(v)])].push_back(v);
                const auto &ds = down[static_cast<std::size_t>(v)];
                for (auto it = ds.rbegin(); it != ds.rend(); ++it)
                    if (!seen[static_cast<std::size_t>(it->first)])
                        stack.push_back(it->first);
            }
        }
    }
    std::vector<double> pos(total); // index within its row
    const auto renumber = [&](std::vector<int> &row) {
        for (std::size_t i = 0; i < row.size(); ++i)
            pos[static_cast<std::size_t>(row[i])] = static_cast<double>(i);
    };
    for (auto &row : rows)
        renumber(row);
    const auto sweep = [&](bool downward, std::vector<double> &key, const std::vector<double> &coord) {
        const auto &nbrs = downward ? up : down;
        const int begin = downward ? 1 : layers - 2, end = downward ? layers : -1, step = downward ? 1 : -1;
        for (int l = begin; l != end; l += step) {
            auto &row = rows[static_cast<std::size_t>(l)];
            for (int v : row) {
                double s = 0, w = 0;
                for (const auto &[u, wt] : nbrs[static_cast<std::size_t>(v)]) {
                    s += coord[static_cast<std::size_t>(u)] * wt;
                    w += wt;
                }
                key[static_cast<std::size_t>(v)] = w > 0 ? s / w : coord[static_cast<std::size_t>(v)];
            }
            std::stable_sort(row.begin(), row.end(), [&](int a, int b) {
                return key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)];
            });
            renumber(row);
        }
    };
    {
        std::vector<double> key(total);
        for (int it = 0; it < 8; ++it)
            sweep(it % 2 == 0, key, pos);
        sweep(true, key, pos);
    }

    // S5: x = centre of each vertex.
    const double dummySep = std::max(4.0, in.nodeSep / 3);
    std::vector<double> x(total);
    const auto gapBetween = [&](int a, int b) {
        const bool dummy = static_cast<std::size_t>(a) >= n || static_cast<std::size_t>(b) >= n;
        return (width[static_cast<std::size_t>(a)] + width[static_cast<std::size_t>(b)]) / 2 +
               (dummy ? dummySep : in.nodeSep);
    };
    for (const auto &row : rows) {
        double cursor = 0;
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i > 0)
                cursor += gapBetween(row[i - 1], row[i]);
            x[static_cast<std::size_t>(row[i])] = cursor;
        }
    }
    {
        std::vector<double> want, gap, w, rx;
        for (int it = 0; it < 8; ++it) {
            const bool downward = it % 2 == 0;
            const auto &nbrs = downward ? up : down;
            const int begin = downward ? 1 : layers - 2, end = downward ? layers : -1, step = downward ? 1 : -1;
            for (int l = begin; l != end; l += step) {
                const auto &row = rows[static_cast<std::size_t>(l)];
                const std::size_t m = row.size();
                want.assign(m, 0);
                gap.assign(m, 0);
                w.assign(m, 1);
                rx.assign(m, 0);
                for (std::size_t i = 0; i < m; ++i) {
                    const auto v = static_cast<std::size_t>(row[i]);
                    double s = 0, sw = 0;
                    for (const auto &[u, wt] : nbrs[v]) {
                        s += x[static_cast<std::size_t>(u)] * wt;
                        sw += wt;
                    }
                    want[i] = sw > 0 ? s / sw : x[v];
                    w[i] = v >= n ? 2.0 : 1.0 + sw; // dummies and well-connected boxes hold their line
                    if (i + 1 < m)
                        gap[i] = gapBetween(row[i], row[i + 1]);
                }
                isotonic(rx, want, gap, w);
                for (std::size_t i = 0; i < m; ++i)
                    x[static_cast<std::size_t>(row[i])] = rx[i];
            }
        }
    }
    double minX = 0, maxX = 0;
    bool any = false;
    for (std::size_t v = 0; v < total; ++v) {
        const double l = x[v] - width[v] / 2, r = x[v] + width[v] / 2;
        minX = any ? std::min(minX, l) : l;
        maxX = any ? std::max(maxX, r) : r;
        any = true;
    }

    // y per layer: rows as tall as their tallest box.
    std::vector<double> rowTop(static_cast<std::size_t>(layers)), rowHeight(static_cast<std::size_t>(layers), 0);
    for (std::size_t v = 0; v < n; ++v)
        rowHeight[static_cast<std::size_t>(layer[v])] =
            std::max(rowHeight[static_cast<std::size_t>(layer[v])], in.sizes[v].height());
    double y = 0;
    for (int l = 0; l < layers; ++l) {
        rowTop[static_cast<std::size_t>(l)] = y;
        y += rowHeight[static_cast<std::size_t>(l)] + in.rankSep;
    }
    const auto centre = [&](int v) {
        const auto l = static_cast<std::size_t>(layer[static_cast<std::size_t>(v)]);
        return QPointF(x[static_cast<std::size_t>(v)] - minX, rowTop[l] + rowHeight[l] / 2);
    };
    for (std::size_t v = 0; v < n; ++v) {
        const QSizeF s = in.sizes[v];
        const QPointF c = centre(static_cast<int>(v));
        out.boxes[v] = QRectF(c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height());
    }
    out.size = QSizeF(maxX - minX, std::max(0.0, y - in.rankSep));

    // S6: spread end points along the borders in the order of where the edge goes next.
    std::vector<std::vector<std::pair<double, std::size_t>>> outPorts(n), inPorts(n); // (next x, arc)
    for (std::size_t a = 0; a < arcs.size(); ++a) {
        const auto &c = chain[a];
        outPorts[static_cast<std::size_t>(c.front())].push_back({centre(c[1]).x(), a});
        inPorts[static_cast<std::size_t>(c.back())].push_back({centre(c[c.size() - 2]).x(), a});
    }
    std::vector<double> startX(arcs.size()), endX(arcs.size());
    const auto spread = [&](std::vector<std::vector<std::pair<double, std::size_t>>> &ports, std::vector<double> &at) {
        for (std::size_t v = 0; v < n; ++v) {
            auto &p = ports[v];
            std::sort(p.begin(), p.end());
            const QRectF &b = out.boxes[v];
            const double span = std::min(b.width() * 0.6, 10.0 * static_cast<double>(p.size() - (p.empty() ? 0 : 1)));
            for (std::size_t i = 0; i < p.size(); ++i)
                at[p[i].second] =
                    b.center().x() +
                    (p.size() > 1 ? span * (static_cast<double>(i) / static_cast<double>(p.size() - 1) - 0.5) : 0.0);
        }
    };
    spread(outPorts, startX);
    spread(inPorts, endX);
    for (std::size_t a = 0; a < arcs.size(); ++a) {
        const auto &c = chain[a];
        std::vector<QPointF> pts;
        pts.reserve(c.size());
        pts.push_back(QPointF(startX[a], out.boxes[static_cast<std::size_t>(c.front())].bottom()));
        for (std::size_t i = 1; i + 1 < c.size(); ++i)
            pts.push_back(centre(c[i]));
        pts.push_back(QPointF(endX[a], out.boxes[static_cast<std::size_t>(c.back())].top()));
        if (arcs[a].reversed)
            std::reverse(pts.begin(), pts.end());
        auto &path = out.edges[static_cast<std::size_t>(arcs[a].edge)];
        path.reserve(pts.size() * 3 - 2);
        path.push_back(pts[0]);
        for (std::size_t i = 1; i < pts.size(); ++i) {
            const QPointF p = pts[i - 1], q = pts[i];
            const double dy = (q.y() - p.y()) / 2;
            path.push_back(QPointF(p.x(), p.y() + dy));
            path.push_back(QPointF(q.x(), q.y() - dy));
            path.push_back(q);
        }
    }
    return out;
}

} // namespace tessera::layout
