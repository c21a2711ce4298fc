// Nested, cached layout of a graph through its Hierarchy.
//
// A Level is the layout of one expanded group's direct items only: its own
// nodes, its child groups (a collapsed child is one box; an expanded child is a
// box the size of its own Level plus a frame) and, for groups other than the
// root, an input and an output port standing for everything outside. Graph
// edges are aggregated between the items of the level; an edge leaving the
// group ends at the output port and is drawn on by the parent level.
//
// A Level depends only on the expansion state of the groups reachable through
// expanded children, so LevelCache keys it by (group, expanded descendants) —
// collapsing and re-expanding a group, or expanding a group, re-lays out only
// that group and its ancestors. compose() walks the expanded tree bottom-up,
// takes Levels from the cache or lays them out (dot up to `dotLimit` items,
// the layered fallback beyond: layout.h) and places them in scene coordinates.
// dot costs ~30 ms per 50-item level, so when the levels a compose must lay
// out hold more than `dotBudget` items together (expand-all on 20,000 nodes),
// all of them use the layered layout: one consistent look, and seconds saved.
// Thread-safe: compose() may run on a worker while the GUI thread reads an
// older Composition; Levels are immutable once cached.
#pragma once

#include "core/ir/graph.h"
#include "core/ir/hierarchy.h"
#include "views/models/layout.h"

#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tessera::layout {

struct LevelItem {
    enum class Kind : std::uint8_t { Node, Group, InPort, OutPort };
    Kind kind = Kind::Node;
    std::int32_t id = -1;  // NodeId or GroupId; -1 for ports
    QRectF rect;           // level-local: (0,0) is the top-left of the level's content
    bool expanded = false; // Group: drawn as a frame holding its own Level
};

struct LevelEdge {
    int from = 0; // item indices
    int to = 0;
    int count = 1;             // graph edges (tensor uses) aggregated into this one
    std::vector<QPointF> path; // level-local cubic Bézier control points (layout.h)
};

struct Level {
    GroupId group = 0;
    std::vector<LevelItem> items;
    std::vector<LevelEdge> edges;
    QSizeF size; // content size
    Engine engine = Engine::Dot;
    double ms = 0;                    // time taken by the layout engine
    int nodeItems = 0;                // items[0, nodeItems) are the direct nodes, ascending
    int itemOfNode(NodeId n) const;   // -1 if n is not a direct item here
    int itemOfGroup(GroupId g) const; // -1 if g is not a direct child here
};

// Frame geometry of an expanded group around its content.
QSizeF frameSize(QSizeF content);
QPointF contentOffset(); // content's top-left relative to the frame's

struct PlacedLevel {
    std::shared_ptr<const Level> level;
    QPointF origin;  // scene position of the content's top-left
    QRectF frame;    // scene rect of the group's frame; empty for the root
    int parent = -1; // index of the parent PlacedLevel, -1 for the root
    int depth = 0;
};

struct Composition {
    std::vector<PlacedLevel> levels; // parents before children; levels[0] is the root
    QRectF bounds;                   // everything, in scene coordinates
    int levelsLaidOut = 0;           // cache misses during this compose
    int levelsReused = 0;            // cache hits during this compose
    double ms = 0;
};

class LevelCache
{
public:
    using Key = std::pair<GroupId, std::vector<GroupId>>;    // group, expanded groups inside it
    std::shared_ptr<const Level> find(const Key &key) const; // counts a hit or a miss
    bool contains(const Key &key) const;                     // counts nothing
    void insert(Key key, std::shared_ptr<const Level> level);
    void clear();
    std::size_t size() const;
    std::size_t hits() const;
    std::size_t misses() const;

private:
    mutable std::mutex m_mutex;
    std::map<Key, std::shared_ptr<const Level>> m_levels;
    mutable std::size_t m_hits = 0;
    mutable std::size_t m_misses = 0;
};

inline constexpr int kDefaultDotBudget = 2500;

// Expansion state: one flag per group; the root is always treated as expanded.
using Expansion = std::vector<char>;

class NestedLayout
{
public:
    NestedLayout(std::shared_ptr<const Graph> graph, std::shared_ptr<const Hierarchy> hierarchy);

    const Graph &graph() const { return *m_graph; }
    const Hierarchy &hierarchy() const { return *m_hierarchy; }

    Composition compose(const Expansion &expanded, LevelCache &cache, int dotLimit = kDefaultDotLimit,
                        int dotBudget = kDefaultDotBudget) const;
    // The same, checking `cancel` before laying out each level (a level is one
    // dot or layered call; an expand-all of 20,000 nodes is hundreds of them):
    // once it is set, returns an empty Composition (no levels). The levels
    // finished before are cached.
    Composition compose(const Expansion &expanded, LevelCache &cache, int dotLimit, int dotBudget,
                        const std::atomic<bool> *cancel) const;
    // Items in the levels that compose() would have to lay out (not cached).
    std::int64_t uncachedItems(const Expansion &expanded, const LevelCache &cache) const;

    LevelCache::Key cacheKey(GroupId g, const Expansion &expanded) const;
    // The direct child of `level` on the way to group g (g itself if a child), -1 if g is not below level.
    GroupId childToward(GroupId level, GroupId g) const;
    // How many items a level of g shows (direct nodes + child groups).
    std::size_t directItemCount(GroupId g) const;

private:
    Level buildLevel(GroupId g, const Expansion &expanded, const std::vector<QSizeF> &childSizes, int dotLimit) const;
    using LevelMap = std::unordered_map<GroupId, std::shared_ptr<const Level>>;
    std::shared_ptr<const Level> levelFor(GroupId g, const Expansion &expanded, LevelCache &cache, int dotLimit,
                                          Composition &stats, LevelMap &got, const std::atomic<bool> *cancel) const;

    std::shared_ptr<const Graph> m_graph;
    std::shared_ptr<const Hierarchy> m_hierarchy;
};

inline bool isExpanded(const Expansion &e, GroupId g)
{
    return g == 0 || (static_cast<std::size_t>(g) < e.size() && e[static_cast<std::size_t>(g)]);
}

} // namespace tessera::layout
