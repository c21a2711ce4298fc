// Nested layout composer and its cache (graphlayout.h). Stages of compose():
//   S0 engine choice: dot within the item budget, else layered for every new level;
//   S1 post-order over the expanded tree: a level's key is its group plus the
//      expanded groups reachable through expanded children;
//   S2 cache lookup, or buildLevel: items, aggregated edges, flat layout;
//   S3 pre-order placement: each expanded child's frame is its item's rect
//      in the parent level, shifted to the parent's origin.
#include "views/models/graphlayout.h"

#include "views/models/layoutnodes.h"

#include <QElapsedTimer>

#include <algorithm>
#include <unordered_map>

namespace tessera::layout {

int Level::itemOfNode(NodeId n) const
{
    const auto end = items.begin() + nodeItems;
    const auto it = std::lower_bound(items.begin(), end, n, [](const LevelItem &i, NodeId v) { return i.id < v; });
    return it != end && it->id == n ? static_cast<int>(it - items.begin()) : -1;
}

int Level::itemOfGroup(GroupId g) const
{
    for (std::size_t i = static_cast<std::size_t>(nodeItems); i < items.size(); ++i)
        if (items[i].kind == LevelItem::Kind::Group && items[i].id == g)
            return static_cast<int>(i);
    return -1;
}

QSizeF frameSize(QSizeF content)
{
    return {std::max(content.width(), BoxMetrics::kMinGroupWidth) + 2 * BoxMetrics::kPadding,
            content.height() + BoxMetrics::kHeader + BoxMetrics::kPadding};
}

QPointF contentOffset()
{
    return {BoxMetrics::kPadding, BoxMetrics::kHeader};
}

std::shared_ptr<const Level> LevelCache::find(const Key &key) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_levels.find(key);
    ++(it == m_levels.end() ? m_misses : m_hits);
    return it == m_levels.end() ? nullptr : it->second;
}

bool LevelCache::contains(const Key &key) const
{
    std::lock_guard lock(m_mutex);
    return m_levels.count(key) > 0;
}

void LevelCache::insert(Key key, std::shared_ptr<const Level> level)
{
    std::lock_guard lock(m_mutex);
    m_levels.insert_or_assign(std::move(key), std::move(level));
}

void LevelCache::clear()
{
    std::lock_guard lock(m_mutex);
    m_levels.clear();
    m_hits = m_misses = 0;
}

std::size_t LevelCache::size() const
{
    std::lock_guard lock(m_mutex);
    return m_levels.size();
}

std::size_t LevelCache::hits() const
{
    std::lock_guard lock(m_mutex);
    return m_hits;
}

std::size_t LevelCache::misses() const
{
    std::lock_guard lock(m_mutex);
    return m_misses;
}

NestedLayout::NestedLayout(std::shared_ptr<const Graph> graph, std::shared_ptr<const Hierarchy> hierarchy)
    : m_graph(std::move(graph)), m_hierarchy(std::move(hierarchy))
{}

LevelCache::Key NestedLayout::cacheKey(GroupId g, const Expansion &expanded) const
{
    LevelCache::Key key{g, {}};
    std::vector<GroupId> stack{g};
    while (!stack.empty()) {
        const GroupId cur = stack.back();
        stack.pop_back();
        for (GroupId c : m_hierarchy->group(cur).children)
            if (isExpanded(expanded, c)) {
                key.second.push_back(c);
                stack.push_back(c);
            }
    }
    std::sort(key.second.begin(), key.second.end());
    return key;
}

GroupId NestedLayout::childToward(GroupId level, GroupId g) const
{
    while (g >= 0) {
        const GroupId p = m_hierarchy->group(g).parent;
        if (p == level)
            return g;
        g = p;
    }
    return -1;
}

std::size_t NestedLayout::directItemCount(GroupId g) const
{
    const Group &grp = m_hierarchy->group(g);
    return grp.nodes.size() + grp.children.size();
}

Level NestedLayout::buildLevel(GroupId g, const Expansion &expanded, const std::vector<QSizeF> &childSizes,
                               int dotLimit) const
{
    const Graph &graph = *m_graph;
    const Group &grp = m_hierarchy->group(g);
    Level level;
    level.group = g;
    level.nodeItems = static_cast<int>(grp.nodes.size());
    Input in;
    for (NodeId n : grp.nodes) {
        level.items.push_back({LevelItem::Kind::Node, n, {}, false});
        in.sizes.push_back(nodeBoxSize(graph, graph.node(n)));
    }
    std::unordered_map<GroupId, int> childItem;
    for (std::size_t i = 0; i < grp.children.size(); ++i) {
        const GroupId c = grp.children[i];
        childItem[c] = static_cast<int>(level.items.size());
        level.items.push_back({LevelItem::Kind::Group, c, {}, isExpanded(expanded, c)});
        in.sizes.push_back(childSizes[i]);
    }

    // Item at this level holding node n, or -1 if n lies outside the group.
    const auto itemOf = [&](NodeId n) {
        const GroupId owner = m_hierarchy->groupOf(n);
        if (owner == g)
            return level.itemOfNode(n);
        const GroupId c = childToward(g, owner);
        return c < 0 ? -1 : childItem.at(c);
    };
    int inPort = -1, outPort = -1;
    const auto port = [&](int &slot, LevelItem::Kind kind) {
        if (slot < 0) {
            slot = static_cast<int>(level.items.size());
            level.items.push_back({kind, -1, {}, false});
            in.sizes.push_back({BoxMetrics::kPortSize, BoxMetrics::kPortSize});
        }
        return slot;
    };
    std::unordered_map<std::uint64_t, std::size_t> edgeIndex;
    const auto addEdge = [&](int a, int b) {
        const std::uint64_t key =
            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
        const auto [it, fresh] = edgeIndex.try_emplace(key, level.edges.size());
        if (fresh)
            level.edges.push_back({a, b, 1, {}});
        else
            ++level.edges[it->second].count;
    };
    const std::vector<NodeId> under = g == 0 ? std::vector<NodeId>{} : m_hierarchy->nodesUnder(g);
    const auto forEachUnder = [&](auto &&f) {
        if (g == 0)
            for (std::size_t n = 0; n < graph.nodeCount(); ++n)
                f(static_cast<NodeId>(n));
        else
            for (NodeId n : under)
                f(n);
    };
    forEachUnder([&](NodeId u) {
        const int iu = itemOf(u);
        const Node &node = graph.node(u);
        for (TensorId t : node.outputs) {
            if (t == kInvalidId)
                continue;
            for (NodeId v : graph.tensor(t).consumers) {
                const int iv = itemOf(v);
                if (iv < 0)
                    addEdge(iu, port(outPort, LevelItem::Kind::OutPort));
                else if (iv != iu)
                    addEdge(iu, iv);
            }
        }
        if (g == 0)
            return;
        for (TensorId t : node.inputs) {
            if (t == kInvalidId)
                continue;
            const NodeId p = graph.tensor(t).producer;
            if (p != kInvalidId && itemOf(p) < 0)
                addEdge(port(inPort, LevelItem::Kind::InPort), iu);
        }
    });

    in.pins.assign(level.items.size(), Pin::None);
    if (inPort >= 0)
        in.pins[static_cast<std::size_t>(inPort)] = Pin::First;
    if (outPort >= 0)
        in.pins[static_cast<std::size_t>(outPort)] = Pin::Last;
    for (const LevelEdge &e : level.edges)
        in.edges.push_back({e.from, e.to, e.count});

    QElapsedTimer timer;
    timer.start();
    Output out = layoutAuto(in, dotLimit);
    level.ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    level.engine = out.engine;
    level.size = out.size;
    for (std::size_t i = 0; i < level.items.size(); ++i)
        level.items[i].rect = out.boxes[i];
    for (std::size_t k = 0; k < level.edges.size(); ++k)
        level.edges[k].path = std::move(out.edges[k]);
    return level;
}

std::shared_ptr<const Level> NestedLayout::levelFor(GroupId g, const Expansion &expanded, LevelCache &cache,
                                                    int dotLimit, Composition &stats, LevelMap &got,
                                                    const std::atomic<bool> *cancel) const
{
    if (const auto seen = got.find(g); seen != got.end())
        return seen->second;
    LevelCache::Key key = cacheKey(g, expanded);
    if (auto hit = cache.find(key)) {
        ++stats.levelsReused;
        return got[g] = hit;
    }
    std::vector<QSizeF> childSizes;
    for (GroupId c : m_hierarchy->group(g).children) {
        if (!isExpanded(expanded, c)) {
            childSizes.push_back(groupBoxSize(m_hierarchy->group(c)));
            continue;
        }
        const auto child = levelFor(c, expanded, cache, dotLimit, stats, got, cancel);
        if (!child)
            return nullptr; // cancelled
        childSizes.push_back(frameSize(child->size));
    }
    if (cancel && cancel->load(std::memory_order_relaxed))
        return nullptr;
    auto level = std::make_shared<const Level>(buildLevel(g, expanded, childSizes, dotLimit));
    ++stats.levelsLaidOut;
    cache.insert(std::move(key), level);
    return got[g] = level;
}

std::int64_t NestedLayout::uncachedItems(const Expansion &expanded, const LevelCache &cache) const
{
    std::int64_t items = 0;
    std::vector<GroupId> todo{0};
    while (!todo.empty()) {
        const GroupId g = todo.back();
        todo.pop_back();
        if (cache.contains(cacheKey(g, expanded)))
            continue; // its expanded children were cached with it
        items += static_cast<std::int64_t>(directItemCount(g));
        for (GroupId c : m_hierarchy->group(g).children)
            if (isExpanded(expanded, c))
                todo.push_back(c);
    }
    return items;
}

Composition NestedLayout::compose(const Expansion &expanded, LevelCache &cache, int dotLimit, int dotBudget) const
{
    return compose(expanded, cache, dotLimit, dotBudget, nullptr);
}

Composition NestedLayout::compose(const Expansion &expanded, LevelCache &cache, int dotLimit, int dotBudget,
                                  const std::atomic<bool> *cancel) const
{
    QElapsedTimer timer;
    timer.start();
    Composition comp;
    if (m_hierarchy->groups().empty())
        return comp;
    // S0: one engine for all new levels when there are too many for dot.
    if (uncachedItems(expanded, cache) > dotBudget)
        dotLimit = -1;
    // S1+S2: the root level pulls in every expanded descendant it needs (cached or new).
    LevelMap got;
    auto root = levelFor(0, expanded, cache, dotLimit, comp, got, cancel);
    if (!root)
        return Composition{}; // cancelled
    // S3: a cache hit for the root does not put the children in hand; they are fetched as placed.
    comp.levels.push_back({root, QPointF(0, 0), QRectF(), -1, 0});
    for (std::size_t i = 0; i < comp.levels.size(); ++i) {
        const PlacedLevel placed = comp.levels[i];
        for (const LevelItem &item : placed.level->items) {
            if (item.kind != LevelItem::Kind::Group || !item.expanded)
                continue;
            auto child = levelFor(item.id, expanded, cache, dotLimit, comp, got, cancel);
            if (!child)
                return Composition{}; // cancelled
            const QRectF frame = item.rect.translated(placed.origin);
            comp.levels.push_back(
                {child, frame.topLeft() + contentOffset(), frame, static_cast<int>(i), placed.depth + 1});
        }
    }
    comp.bounds = QRectF(QPointF(0, 0), root->size);
    comp.ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return comp;
}

} // namespace tessera::layout
