// layoutDot: Graphviz `dot` through libcgraph/libgvc, read back from the
// layout structures (ND_coord, ED_spl, GD_bb) rather than by rendering text.
// Boxes are fixed-size, unlabelled rectangles; edges have no arrowheads so
// their splines end on the box borders (the view draws its own arrows).
// One gvc context for the process; every call holds s_dotMutex. Pins are
// made with invisible edges, never with rank=source/sink subgraphs (see below).
#include "views/models/layout.h"

#include <QByteArray>

#include <algorithm>
#include <cmath>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <mutex>
#include <string>

namespace tessera::layout {
namespace {

std::mutex s_dotMutex;

GVC_t *context()
{
    static GVC_t *gvc = gvContext(); // lives for the process, like the plugin registry inside it
    return gvc;
}

char *cstr(const char *s)
{
    return const_cast<char *>(s);
} // cgraph's API predates const

void set(void *obj, const char *name, const std::string &value)
{
    agsafeset(obj, cstr(name), cstr(value.c_str()), cstr(""));
}

std::string num(double v)
{
    return QByteArray::number(v, 'f', 4).toStdString();
}

double dist2(QPointF a, QPointF b)
{
    const QPointF d = a - b;
    return d.x() * d.x() + d.y() * d.y();
}

} // namespace

Output layoutDot(const Input &in)
{
    Output out;
    out.engine = Engine::Dot;
    const int n = static_cast<int>(in.sizes.size());
    out.boxes.resize(in.sizes.size());
    out.edges.resize(in.edges.size());
    if (n == 0)
        return out;

    std::lock_guard lock(s_dotMutex);
    GVC_t *gvc = context();
    Agraph_t *g = agopen(cstr("level"), Agdirected, nullptr);
    set(g, "rankdir", "TB");
    set(g, "nodesep", num(in.nodeSep / 72.0));
    set(g, "ranksep", num(in.rankSep / 72.0));
    set(g, "splines", "spline");
    set(g, "mclimit", "2");
    agattr(g, AGNODE, cstr("shape"), cstr("box"));
    agattr(g, AGNODE, cstr("fixedsize"), cstr("true"));
    agattr(g, AGNODE, cstr("label"), cstr(""));
    agattr(g, AGNODE, cstr("width"), cstr("1"));
    agattr(g, AGNODE, cstr("height"), cstr("0.5"));
    agattr(g, AGEDGE, cstr("arrowhead"), cstr("none"));
    agattr(g, AGEDGE, cstr("weight"), cstr("1"));

    std::vector<Agnode_t *> nodes(in.sizes.size());
    for (int i = 0; i < n; ++i) {
        const std::string name = "n" + std::to_string(i);
        Agnode_t *v = agnode(g, cstr(name.c_str()), 1);
        const QSizeF s = in.sizes[static_cast<std::size_t>(i)];
        set(v, "width", num(std::max(s.width(), 1.0) / 72.0));
        set(v, "height", num(std::max(s.height(), 1.0) / 72.0));
        nodes[static_cast<std::size_t>(i)] = v;
    }
    std::vector<Agedge_t *> edges(in.edges.size(), nullptr);
    std::vector<int> indeg(in.sizes.size(), 0), outdeg(in.sizes.size(), 0);
    for (std::size_t k = 0; k < in.edges.size(); ++k) {
        const Edge &e = in.edges[k];
        if (e.from == e.to)
            continue;
        const std::string key = "e" + std::to_string(k);
        Agedge_t *ae = agedge(g, nodes[static_cast<std::size_t>(e.from)], nodes[static_cast<std::size_t>(e.to)],
                              cstr(key.c_str()), 1);
        set(ae, "weight", std::to_string(std::max(1, e.weight)));
        edges[k] = ae;
        ++outdeg[static_cast<std::size_t>(e.from)];
        ++indeg[static_cast<std::size_t>(e.to)];
    }
    // Pins: invisible weightless edges from a First box to every source and from
    // every sink to a Last box put them above/below everything. (rank=source/sink
    // subgraphs would do it too, but crash dot 2.43's mincross after a few hundred layouts.)
    for (int p = 0; p < n && !in.pins.empty(); ++p) {
        const Pin pin = in.pins[static_cast<std::size_t>(p)];
        if (pin == Pin::None)
            continue;
        for (int v = 0; v < n; ++v) {
            const auto vi = static_cast<std::size_t>(v);
            if (in.pins[vi] != Pin::None || (pin == Pin::First ? indeg[vi] : outdeg[vi]) > 0)
                continue;
            Agnode_t *a = nodes[static_cast<std::size_t>(pin == Pin::First ? p : v)];
            Agnode_t *b = nodes[static_cast<std::size_t>(pin == Pin::First ? v : p)];
            Agedge_t *ae = agedge(g, a, b, nullptr, 1);
            set(ae, "weight", "0");
            set(ae, "style", "invis");
        }
    }

    if (gvLayout(gvc, g, "dot") != 0) {
        agclose(g);
        out.ok = false;
        return out;
    }

    const boxf bb = GD_bb(g);
    const auto map = [&](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };
    for (int i = 0; i < n; ++i) {
        const QSizeF s = in.sizes[static_cast<std::size_t>(i)];
        const QPointF c = map(ND_coord(nodes[static_cast<std::size_t>(i)]));
        out.boxes[static_cast<std::size_t>(i)] =
            QRectF(c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height());
    }
    for (std::size_t k = 0; k < edges.size(); ++k) {
        const splines *spl = edges[k] ? ED_spl(edges[k]) : nullptr;
        if (!spl || spl->size < 1)
            continue;
        std::vector<QPointF> &path = out.edges[k];
        for (int b = 0; b < spl->size; ++b) {
            const bezier &bz = spl->list[b];
            for (int j = (b == 0 ? 0 : 1); j < bz.size; ++j)
                path.push_back(map(bz.list[j]));
        }
        // dot may hand back-edges over target-first; the contract is source-first.
        const QRectF &src = out.boxes[static_cast<std::size_t>(in.edges[k].from)];
        if (path.size() > 1 && dist2(path.back(), src.center()) < dist2(path.front(), src.center()))
            std::reverse(path.begin(), path.end());
    }
    out.size = QSizeF(bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    gvFreeLayout(gvc, g);
    agclose(g);
    return out;
}

} // namespace tessera::layout
