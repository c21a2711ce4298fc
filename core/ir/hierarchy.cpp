// Hierarchy inference (hierarchy.h): stages ⊃ blocks ⊃ layers over a graph.
//
// GraphTurbo (§3, Fig. 2) schedules by the model's own stage/block/layer
// structure and inter-operator scheduling (thesis §3.3.1) optimises "each block separately"; both need the
// blocks. Names carry them when the exporter kept module scopes; otherwise
// the structure does.
//
//   S1  topological order (Kahn, min id first) and node positions;
//   S2  a trie of name scopes (scopes.h), nodes attached to their deepest scope,
//       children in order of first appearance;
//   S3  simplify: scopes with fewer than minGroupSize nodes dissolve into their
//       parent; a scope holding exactly one child scope and no node of its own
//       absorbs that child (the child adds nothing);
//   S4  structural fallback for every group left with more than maxGroupSize
//       direct nodes: cut the group's topological order where every edge
//       crossing the cut leaves one single node (single-entry/single-exit
//       regions: residual blocks, inception modules), pack consecutive
//       regions into chunks of at most maxGroupSize nodes (a bigger region is
//       split in order), then pack chunks into parents of at most
//       maxGroupSize children, level by level, until at most that many remain;
//   S5  any group, named or not, with more than maxGroupSize children gets
//       the same packing of its children (a flat model with one scope per
//       layer), so every level of the tree stays small enough to show;
//   S6  emit groups in preorder, children by first topological position; kind
//       by depth (1 Stage, 2 Block, deeper Layer).
//
// Paths are built from scope names and, for structural groups, from the names
// of their first and last member ("n0..n62"), so they are stable across
// imports. O(n·depth + E·log) time; 20,000 nodes take 3–30 ms.
#include "core/ir/hierarchy.h"

#include "core/ir/adjacency.h"
#include "core/ir/scopes.h"
#include "core/support/assert.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace tessera {

// --- Hierarchy ---------------------------------------------------------------

void Hierarchy::reset(std::size_t nodeCount)
{
    m_groups.assign(1, Group{.name = {}, .path = {}, .kind = Group::Kind::Root});
    m_groupOf.assign(nodeCount, 0);
}

GroupId Hierarchy::addGroup(std::string name, Group::Kind kind, GroupId parent)
{
    TS_ASSERT(parent >= 0 && static_cast<std::size_t>(parent) < m_groups.size());
    const auto id = static_cast<GroupId>(m_groups.size());
    const std::string &parentPath = group(parent).path;
    Group g{.name = std::move(name), .kind = kind, .parent = parent};
    g.path = parentPath.empty() ? g.name : parentPath + '/' + g.name;
    m_groups.push_back(std::move(g));
    m_groups[static_cast<std::size_t>(parent)].children.push_back(id);
    return id;
}

void Hierarchy::assign(NodeId n, GroupId g)
{
    TS_ASSERT(n >= 0 && static_cast<std::size_t>(n) < m_groupOf.size());
    TS_ASSERT(g >= 0 && static_cast<std::size_t>(g) < m_groups.size());
    m_groupOf[static_cast<std::size_t>(n)] = g;
}

void Hierarchy::finalize()
{
    for (Group &g : m_groups) {
        g.nodes.clear();
        g.totalNodes = 0;
    }
    for (std::size_t n = 0; n < m_groupOf.size(); ++n)
        m_groups[static_cast<std::size_t>(m_groupOf[n])].nodes.push_back(static_cast<NodeId>(n));
    // Children always come after their parent, so one backward sweep sums up.
    for (std::size_t i = m_groups.size(); i-- > 0;) {
        Group &g = m_groups[i];
        g.totalNodes += static_cast<std::int64_t>(g.nodes.size());
        if (g.parent >= 0)
            m_groups[static_cast<std::size_t>(g.parent)].totalNodes += g.totalNodes;
    }
}

std::vector<NodeId> Hierarchy::nodesUnder(GroupId id) const
{
    std::vector<NodeId> out;
    std::vector<GroupId> todo{id};
    while (!todo.empty()) {
        const Group &g = group(todo.back());
        todo.pop_back();
        out.insert(out.end(), g.nodes.begin(), g.nodes.end());
        todo.insert(todo.end(), g.children.begin(), g.children.end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<GroupId> Hierarchy::ancestry(GroupId id) const
{
    std::vector<GroupId> chain;
    for (GroupId g = id; g >= 0; g = group(g).parent)
        chain.push_back(g);
    std::reverse(chain.begin(), chain.end());
    return chain;
}

// --- inference ---------------------------------------------------------------

namespace {

// A group being planned: a name scope or a structural chunk. A chunk's label
// is the range "from..to" of the first and last thing it holds.
struct Scope {
    std::string from, to;
    std::string label() const { return from == to ? from : from + ".." + to; }
    std::vector<std::int32_t> kids; // indices into Planner::m_scopes
    std::vector<NodeId> direct;     // nodes directly in this scope
    std::int64_t total = 0;         // nodes under it
    std::int32_t first = 0;         // smallest topological position under it
};

class Planner
{
public:
    Planner(const Graph &g, const HierarchyOptions &opts)
        : m_g(g), m_adj(g), m_cap(std::max<std::size_t>(opts.maxGroupSize, 2)),
          m_minSize(static_cast<std::int64_t>(opts.minGroupSize))
    {
        // S1: a cyclic graph is not valid, but a hierarchy for it costs nothing:
        // nodes Kahn cannot order follow in id order.
        m_order = kahnOrder(m_adj);
        m_pos.assign(g.nodeCount(), -1);
        for (std::size_t p = 0; p < m_order.size(); ++p)
            m_pos[static_cast<std::size_t>(m_order[p])] = static_cast<std::int32_t>(p);
        for (std::size_t v = 0; v < g.nodeCount(); ++v)
            if (m_pos[v] < 0) {
                m_pos[v] = static_cast<std::int32_t>(m_order.size());
                m_order.push_back(static_cast<NodeId>(v));
            }
        m_local.assign(g.nodeCount(), -1);
    }

    Hierarchy run()
    {
        buildTrie();
        dissolveTiny(0);
        absorbSingleChildren(0);
        splitLargeGroups();
        computeFirst(0);
        boundChildren();
        Hierarchy h;
        h.reset(m_g.nodeCount());
        emit(h, 0, 0, 0);
        h.finalize();
        return h;
    }

private:
    // S2
    void buildTrie()
    {
        struct Key {
            std::int32_t parent;
            std::string_view label;
            bool operator==(const Key &) const = default;
        };
        struct KeyHash {
            std::size_t operator()(const Key &k) const
            {
                return std::hash<std::string_view>{}(k.label) * 31 + static_cast<std::size_t>(k.parent);
            }
        };
        std::unordered_map<Key, std::int32_t, KeyHash> child;
        m_scopes.assign(1, Scope{});
        for (NodeId v : m_order) {
            std::int32_t s = 0;
            for (std::string_view token : nameScopes(m_g.node(v).name)) {
                auto [it, added] = child.try_emplace(Key{s, token}, static_cast<std::int32_t>(m_scopes.size()));
                if (added) {
                    m_scopes.push_back(Scope{.from = std::string(token), .to = std::string(token)});
                    m_scopes[static_cast<std::size_t>(s)].kids.push_back(it->second);
                }
                s = it->second;
            }
            m_scopes[static_cast<std::size_t>(s)].direct.push_back(v);
        }
    }

    Scope &scope(std::int32_t s) { return m_scopes[static_cast<std::size_t>(s)]; }

    // S3, bottom-up. A tiny scope's descendants are tiny too and were already
    // dissolved into it, so it only has direct nodes left to hand up.
    void dissolveTiny(std::int32_t s)
    {
        std::vector<std::int32_t> kept;
        std::int64_t total = static_cast<std::int64_t>(scope(s).direct.size());
        for (std::int32_t k : std::vector<std::int32_t>(scope(s).kids)) {
            dissolveTiny(k);
            if (scope(k).total < m_minSize) {
                std::vector<NodeId> &direct = scope(s).direct;
                direct.insert(direct.end(), scope(k).direct.begin(), scope(k).direct.end());
                scope(k).direct.clear();
            } else
                kept.push_back(k);
            total += scope(k).total;
        }
        scope(s).kids = std::move(kept);
        scope(s).total = total;
        sortByPosition(scope(s).direct);
    }

    void absorbSingleChildren(std::int32_t s)
    {
        while (scope(s).direct.empty() && scope(s).kids.size() == 1) {
            Scope only = std::move(scope(scope(s).kids.front()));
            scope(s).kids = std::move(only.kids);
            scope(s).direct = std::move(only.direct);
        }
        for (std::int32_t k : scope(s).kids)
            absorbSingleChildren(k);
    }

    // S4, over the scopes still in the tree (structural ones are within bounds).
    void splitLargeGroups()
    {
        std::vector<std::int32_t> todo{0};
        while (!todo.empty()) {
            const std::int32_t s = todo.back();
            todo.pop_back();
            todo.insert(todo.end(), scope(s).kids.begin(), scope(s).kids.end());
            if (scope(s).direct.size() > m_cap) {
                const std::vector<NodeId> direct = std::exchange(scope(s).direct, {});
                const std::vector<std::int32_t> tops = structuralGroups(direct); // grows m_scopes
                scope(s).kids.insert(scope(s).kids.end(), tops.begin(), tops.end());
            }
        }
    }

    // Nodes (in topological order) -> top-level structural scopes over them.
    std::vector<std::int32_t> structuralGroups(const std::vector<NodeId> &nodes)
    {
        const std::size_t m = nodes.size();
        for (std::size_t i = 0; i < m; ++i)
            m_local[static_cast<std::size_t>(nodes[i])] = static_cast<std::int32_t>(i);

        // Cut before position p is clean when at most one node i < p has an
        // edge to some j >= p: sources cover the positions (i, lastSucc(i)].
        std::vector<std::int32_t> cover(m + 1, 0);
        for (std::size_t i = 0; i < m; ++i) {
            std::int32_t last = static_cast<std::int32_t>(i);
            for (NodeId s : m_adj.successors(nodes[i]))
                last = std::max(last, m_local[static_cast<std::size_t>(s)]);
            ++cover[i + 1];
            --cover[static_cast<std::size_t>(last) + 1];
        }
        // Regions between clean cuts; a region above the cap is split evenly.
        std::vector<std::size_t> regionStart;
        std::int32_t crossing = 0;
        for (std::size_t p = 0; p < m; ++p) {
            crossing += cover[p];
            if (p == 0 || crossing <= 1)
                regionStart.push_back(p);
        }
        regionStart.push_back(m);
        std::vector<std::size_t> unitStart;
        for (std::size_t r = 0; r + 1 < regionStart.size(); ++r) {
            const std::size_t size = regionStart[r + 1] - regionStart[r];
            const std::size_t pieces = (size + m_cap - 1) / m_cap;
            for (std::size_t k = 0; k < pieces; ++k)
                unitStart.push_back(regionStart[r] + k * size / pieces);
        }
        unitStart.push_back(m);
        for (NodeId v : nodes)
            m_local[static_cast<std::size_t>(v)] = -1;

        // Leaf chunks: consecutive units up to the cap.
        std::vector<std::size_t> unitSize;
        for (std::size_t u = 0; u + 1 < unitStart.size(); ++u)
            unitSize.push_back(unitStart[u + 1] - unitStart[u]);
        std::vector<std::int32_t> level;
        const std::vector<std::size_t> runs = packRuns(unitSize);
        for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
            const std::size_t begin = unitStart[runs[r]], end = unitStart[runs[r + 1]];
            Scope chunk{.from = shortName(nodes[begin]), .to = shortName(nodes[end - 1])};
            chunk.direct.assign(nodes.begin() + std::ptrdiff_t(begin), nodes.begin() + std::ptrdiff_t(end));
            chunk.total = static_cast<std::int64_t>(end - begin);
            level.push_back(addScope(std::move(chunk)));
        }
        return packLevels(std::move(level));
    }

    // Consecutive groups into parents of at most m_cap children, level by
    // level, until at most m_cap remain.
    std::vector<std::int32_t> packLevels(std::vector<std::int32_t> level)
    {
        while (level.size() > m_cap) {
            std::vector<std::int32_t> upper;
            const std::vector<std::size_t> runs = packRuns(std::vector<std::size_t>(level.size(), 1));
            for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
                Scope parent{
                    .kids = {level.begin() + std::ptrdiff_t(runs[r]), level.begin() + std::ptrdiff_t(runs[r + 1])}};
                parent.from = scope(parent.kids.front()).from;
                parent.to = scope(parent.kids.back()).to;
                parent.first = scope(parent.kids.front()).first;
                for (std::int32_t k : parent.kids)
                    parent.total += scope(k).total;
                upper.push_back(addScope(std::move(parent)));
            }
            level = std::move(upper);
        }
        return level;
    }

    // S5
    void boundChildren()
    {
        std::vector<std::int32_t> todo{0};
        while (!todo.empty()) {
            const std::int32_t s = todo.back();
            todo.pop_back();
            todo.insert(todo.end(), scope(s).kids.begin(), scope(s).kids.end());
            if (scope(s).kids.size() > m_cap) {
                std::vector<std::int32_t> kids = std::exchange(scope(s).kids, {});
                std::stable_sort(kids.begin(), kids.end(),
                                 [&](std::int32_t a, std::int32_t b) { return scope(a).first < scope(b).first; });
                std::vector<std::int32_t> packed = packLevels(std::move(kids)); // grows m_scopes
                scope(s).kids = std::move(packed);
            }
        }
    }

    // Splits items into consecutive runs, each summing to at most m_cap and
    // about equally full. Returns run starts plus a final end index.
    std::vector<std::size_t> packRuns(const std::vector<std::size_t> &sizes) const
    {
        std::size_t total = 0;
        for (std::size_t s : sizes)
            total += s;
        const std::size_t runs = std::max<std::size_t>(1, (total + m_cap - 1) / m_cap);
        const std::size_t target = (total + runs - 1) / runs;
        std::vector<std::size_t> starts;
        std::size_t fill = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            if (i == 0 || fill + sizes[i] > m_cap || fill >= target) {
                starts.push_back(i);
                fill = 0;
            }
            fill += sizes[i];
        }
        starts.push_back(sizes.size());
        return starts;
    }

    std::int32_t addScope(Scope s)
    {
        m_scopes.push_back(std::move(s));
        return static_cast<std::int32_t>(m_scopes.size() - 1);
    }

    // The last '/' component of a node name, clipped: "relu_1" for "/layer1/layer1.0/relu_1/Relu".
    std::string shortName(NodeId v) const
    {
        std::string_view name = m_g.node(v).name;
        if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos)
            name.remove_prefix(slash + 1);
        if (name.empty())
            return "#" + std::to_string(v);
        std::size_t len = std::min<std::size_t>(name.size(), 24);
        while (len < name.size() && (static_cast<unsigned char>(name[len]) & 0xC0) == 0x80)
            --len; // do not cut a UTF-8 sequence
        return std::string(name.substr(0, len));
    }

    void sortByPosition(std::vector<NodeId> &nodes) const
    {
        std::sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
            return m_pos[static_cast<std::size_t>(a)] < m_pos[static_cast<std::size_t>(b)];
        });
    }

    std::int32_t computeFirst(std::int32_t s)
    {
        std::int32_t first = scope(s).direct.empty() ? static_cast<std::int32_t>(m_order.size())
                                                     : m_pos[static_cast<std::size_t>(scope(s).direct.front())];
        for (std::int32_t k : scope(s).kids)
            first = std::min(first, computeFirst(k));
        return scope(s).first = first;
    }

    // S6
    void emit(Hierarchy &h, std::int32_t s, GroupId id, int depth)
    {
        for (NodeId v : scope(s).direct)
            h.assign(v, id);
        std::vector<std::int32_t> kids = scope(s).kids;
        std::stable_sort(kids.begin(), kids.end(),
                         [&](std::int32_t a, std::int32_t b) { return scope(a).first < scope(b).first; });
        const Group::Kind kind = depth == 0 ? Group::Kind::Stage : depth == 1 ? Group::Kind::Block : Group::Kind::Layer;
        std::set<std::string, std::less<>> used;
        for (std::int32_t k : kids) {
            std::string label = scope(k).label();
            for (int n = 2; used.count(label); ++n)
                label = scope(k).label() + '#' + std::to_string(n);
            used.insert(label);
            emit(h, k, h.addGroup(std::move(label), kind, id), depth + 1);
        }
    }

    const Graph &m_g;
    const Adjacency m_adj;
    const std::size_t m_cap;
    const std::int64_t m_minSize;
    std::vector<NodeId> m_order;
    std::vector<std::int32_t> m_pos;   // topological position of every node
    std::vector<std::int32_t> m_local; // scratch: position within the nodes being split
    std::vector<Scope> m_scopes;       // 0 is the root
};

} // namespace

Hierarchy inferHierarchy(const Graph &g, const HierarchyOptions &opts)
{
    return Planner(g, opts).run();
}

} // namespace tessera
