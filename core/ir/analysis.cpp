// Topological order, reachability and exact DAG width (analysis.h).
//
// Width is the inter-operator scheduling thesis's d (§3.3.1, Definition 3) computed through its
// Corollary 1 (Dilworth): a maximum antichain has n - |M| nodes, M a maximum
// matching in the bipartite graph "left copy of a -> right copy of b iff a
// reaches b" (minimum chain cover = minimum path cover of the closure).
//
//   S1  transitive closure restricted to the considered nodes, as bitset rows
//       in topological order (paths through other nodes count);
//   S2  greedy matching: each node takes its nearest free successor;
//   S3  Hopcroft–Karp phases on the bitset rows;
//   S4  König: from the free left nodes, follow alternating paths; the nodes
//       whose left copy is reached and right copy is not form a maximum
//       antichain (the complement of a minimum vertex cover).
//
// Cost with k considered nodes, W = ceil(k/64) words per row and s nodes in
// the topological span of the subset (s = n for the whole graph):
//   memory  s·W·8 bytes of closure (20,000 nodes: 50 MB) plus at most as much
//           again for the per-layer bitsets of one Hopcroft–Karp phase (in
//           practice a few rows: phases after the greedy start are short);
//   time    O(E·W) for the closure, O(k·W) per phase, O(√k) phases.
// Every scan of a row visits each right node at most once per phase because a
// right node is cleared from its layer bitset the first time it is tried.
#include "core/ir/analysis.h"

#include "core/ir/adjacency.h"
#include "core/support/assert.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace tessera {

namespace {

using Word = std::uint64_t;

constexpr std::size_t wordsFor(std::size_t bits)
{
    return (bits + 63) / 64;
}
inline void setBit(Word *row, std::size_t i)
{
    row[i / 64] |= Word(1) << (i % 64);
}
inline bool testBit(const Word *row, std::size_t i)
{
    return (row[i / 64] >> (i % 64)) & 1;
}
inline void clearBit(Word *row, std::size_t i)
{
    row[i / 64] &= ~(Word(1) << (i % 64));
}

// The lowest set bit of a[w] & b[w] at or after word `from`, or -1.
inline std::int64_t firstCommon(const Word *a, const Word *b, std::size_t words, std::size_t &from)
{
    for (; from < words; ++from)
        if (const Word x = a[from] & b[from])
            return static_cast<std::int64_t>(from * 64 + static_cast<std::size_t>(std::countr_zero(x)));
    return -1;
}

// A node on a cycle, found by walking back from a node Kahn could not order:
// every such node has an unordered predecessor, so the walk must repeat.
std::vector<NodeId> findCycle(const Adjacency &adj, const std::vector<NodeId> &partialOrder)
{
    std::vector<bool> ordered(adj.nodeCount(), false);
    for (NodeId v : partialOrder)
        ordered[static_cast<std::size_t>(v)] = true;
    NodeId v = static_cast<NodeId>(std::find(ordered.begin(), ordered.end(), false) - ordered.begin());
    std::vector<std::int32_t> seenAt(adj.nodeCount(), -1);
    std::vector<NodeId> walk;
    while (seenAt[static_cast<std::size_t>(v)] < 0) {
        seenAt[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(walk.size());
        walk.push_back(v);
        for (NodeId p : adj.predecessors(v))
            if (!ordered[static_cast<std::size_t>(p)]) {
                v = p;
                break;
            }
    }
    // walk[seenAt[v]..] is the cycle backwards; return it forwards from v.
    std::vector<NodeId> cycle(walk.rbegin(), walk.rend() - seenAt[static_cast<std::size_t>(v)]);
    std::rotate(cycle.begin(), cycle.end() - 1, cycle.end());
    return cycle;
}

} // namespace

Expected<std::vector<NodeId>> topologicalOrder(const Graph &g)
{
    const Adjacency adj(g);
    std::vector<NodeId> order = kahnOrder(adj);
    if (order.size() == g.nodeCount())
        return order;
    const std::vector<NodeId> cycle = findCycle(adj, order);
    std::string path;
    for (std::size_t i = 0; i < cycle.size() && i < 8; ++i)
        path += g.node(cycle[i]).name + " -> ";
    path += cycle.size() > 8 ? "…" : g.node(cycle.front()).name;
    const std::string &at = g.node(cycle.front()).name;
    return Status::invalid("graph has a cycle through node '" + at + "' (" + path + ")", {.node = at});
}

// --- Reachability ------------------------------------------------------------

Reachability::Reachability(const Graph &g) : m_n(g.nodeCount()), m_words(wordsFor(g.nodeCount()))
{
    const Adjacency adj(g);
    const std::vector<NodeId> order = kahnOrder(adj);
    TS_ASSERT_MSG(order.size() == m_n, "Reachability needs an acyclic graph");
    m_bits.assign(m_n * m_words, 0);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        Word *row = &m_bits[static_cast<std::size_t>(*it) * m_words];
        for (NodeId s : adj.successors(*it)) {
            const Word *succ = &m_bits[static_cast<std::size_t>(s) * m_words];
            for (std::size_t w = 0; w < m_words; ++w)
                row[w] |= succ[w];
            setBit(row, static_cast<std::size_t>(s));
        }
    }
}

bool Reachability::reaches(NodeId from, NodeId to) const
{
    TS_ASSERT(from >= 0 && to >= 0 && static_cast<std::size_t>(from) < m_n && static_cast<std::size_t>(to) < m_n);
    return testBit(&m_bits[static_cast<std::size_t>(from) * m_words], static_cast<std::size_t>(to));
}

// --- DAG width ---------------------------------------------------------------

namespace {

constexpr std::int32_t kFree = -1;
constexpr std::int32_t kUnseen = std::numeric_limits<std::int32_t>::max();

// Maximum matching of the closure's bipartite graph. Left node i may match
// right node j when bit j of row(i) is set.
class ClosureMatching
{
public:
    ClosureMatching(std::size_t k, std::size_t words, std::vector<const Word *> rows)
        : m_k(k), m_words(words), m_rows(std::move(rows)), m_matchL(k, kFree), m_matchR(k, kFree), m_dist(k)
    {}

    std::size_t run()
    {
        greedy();
        while (bfs())
            dfsPhase();
        return m_size;
    }

    // S4: left copies reached from a free left node by alternating paths, and
    // right copies not reached; both together are a maximum antichain.
    std::vector<std::size_t> koenigAntichain() const
    {
        std::vector<Word> unseenR = allRight();
        std::vector<bool> seenL(m_k, false);
        std::vector<std::size_t> queue;
        for (std::size_t i = 0; i < m_k; ++i)
            if (m_matchL[i] == kFree) {
                seenL[i] = true;
                queue.push_back(i);
            }
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const Word *row = m_rows[queue[q]];
            std::size_t w = 0;
            for (std::int64_t j; (j = firstCommon(row, unseenR.data(), m_words, w)) >= 0;) {
                clearBit(unseenR.data(), static_cast<std::size_t>(j));
                const std::int32_t partner = m_matchR[static_cast<std::size_t>(j)];
                TS_ASSERT_MSG(partner != kFree, "augmenting path left after a maximum matching");
                if (!seenL[static_cast<std::size_t>(partner)]) {
                    seenL[static_cast<std::size_t>(partner)] = true;
                    queue.push_back(static_cast<std::size_t>(partner));
                }
            }
        }
        std::vector<std::size_t> antichain;
        for (std::size_t i = 0; i < m_k; ++i)
            if (seenL[i] && testBit(unseenR.data(), i))
                antichain.push_back(i);
        return antichain;
    }

private:
    std::vector<Word> allRight() const
    {
        std::vector<Word> bits(m_words, ~Word(0));
        if (m_k % 64)
            bits.back() = (Word(1) << (m_k % 64)) - 1;
        return bits;
    }

    void match(std::size_t i, std::size_t j)
    {
        m_matchL[i] = static_cast<std::int32_t>(j);
        m_matchR[j] = static_cast<std::int32_t>(i);
    }

    // S2: rows are in topological order, so the first free bit is the
    // nearest free successor. Exact on chains and trees of chains.
    void greedy()
    {
        std::vector<Word> freeR = allRight();
        for (std::size_t i = 0; i < m_k; ++i) {
            std::size_t w = (i + 1) / 64;
            if (const std::int64_t j = firstCommon(m_rows[i], freeR.data(), m_words, w); j >= 0) {
                clearBit(freeR.data(), static_cast<std::size_t>(j));
                match(i, static_cast<std::size_t>(j));
                ++m_size;
            }
        }
    }

    // S3a: layers of the alternating BFS from the free left nodes. A right
    // node reached from a left node of layer d goes into m_layers row d; the
    // search stops after the first layer that reaches a free right node.
    bool bfs()
    {
        std::vector<Word> unseenR = allRight();
        std::vector<std::size_t> queue;
        for (std::size_t i = 0; i < m_k; ++i) {
            m_dist[i] = m_matchL[i] == kFree ? 0 : kUnseen;
            if (m_matchL[i] == kFree)
                queue.push_back(i);
        }
        m_limit = kUnseen;
        m_layers.clear();
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const std::size_t u = queue[q];
            const std::int32_t d = m_dist[u];
            if (d > m_limit)
                break;
            if (m_layers.size() < (static_cast<std::size_t>(d) + 1) * m_words)
                m_layers.resize((static_cast<std::size_t>(d) + 1) * m_words, 0);
            Word *layer = &m_layers[static_cast<std::size_t>(d) * m_words];
            std::size_t w = 0;
            for (std::int64_t j; (j = firstCommon(m_rows[u], unseenR.data(), m_words, w)) >= 0;) {
                clearBit(unseenR.data(), static_cast<std::size_t>(j));
                setBit(layer, static_cast<std::size_t>(j));
                const std::int32_t partner = m_matchR[static_cast<std::size_t>(j)];
                if (partner == kFree)
                    m_limit = d;
                else if (m_limit == kUnseen) {
                    m_dist[static_cast<std::size_t>(partner)] = d + 1;
                    queue.push_back(static_cast<std::size_t>(partner));
                }
            }
        }
        return m_limit != kUnseen;
    }

    // S3b: vertex-disjoint shortest augmenting paths, by an iterative DFS (a
    // path can be thousands of nodes long). A left node whose search fails is
    // dead for the phase; a right node leaves its layer once tried.
    void dfsPhase()
    {
        struct Frame {
            std::size_t left;
            std::size_t word = 0;  // scan cursor in row & layer
            std::size_t right = 0; // right node taken towards the next frame
        };
        std::vector<Frame> stack;
        for (std::size_t root = 0; root < m_k; ++root) {
            if (m_matchL[root] != kFree || m_dist[root] != 0)
                continue;
            stack.assign(1, Frame{root});
            while (!stack.empty()) {
                Frame &f = stack.back();
                const std::int32_t d = m_dist[f.left];
                Word *layer = &m_layers[static_cast<std::size_t>(d) * m_words];
                const std::int64_t j = firstCommon(m_rows[f.left], layer, m_words, f.word);
                if (j < 0) { // dead end
                    m_dist[f.left] = kUnseen;
                    stack.pop_back();
                    continue;
                }
                clearBit(layer, static_cast<std::size_t>(j));
                f.right = static_cast<std::size_t>(j);
                const std::int32_t partner = m_matchR[f.right];
                if (partner == kFree) { // d == m_limit: augment along the stack
                    for (const Frame &g : stack)
                        match(g.left, g.right);
                    ++m_size;
                    break;
                }
                if (d < m_limit && m_dist[static_cast<std::size_t>(partner)] == d + 1)
                    stack.push_back(Frame{static_cast<std::size_t>(partner)});
            }
        }
    }

    std::size_t m_k, m_words;
    std::vector<const Word *> m_rows;
    std::vector<std::int32_t> m_matchL, m_matchR, m_dist;
    std::vector<Word> m_layers; // one bitset of right nodes per BFS layer
    std::int32_t m_limit = kUnseen;
    std::size_t m_size = 0;
};

} // namespace

DagWidth dagWidth(const Graph &g, const std::vector<NodeId> &subset)
{
    const Adjacency adj(g);
    const std::vector<NodeId> order = kahnOrder(adj);
    TS_ASSERT_MSG(order.size() == g.nodeCount(), "dagWidth needs an acyclic graph");
    const std::size_t n = g.nodeCount();
    std::vector<std::int32_t> pos(n);
    for (std::size_t p = 0; p < n; ++p)
        pos[static_cast<std::size_t>(order[p])] = static_cast<std::int32_t>(p);

    // The considered nodes, in topological order; col[v] is v's bit.
    std::vector<NodeId> nodes;
    if (subset.empty())
        nodes = order;
    else {
        nodes = subset;
        for (NodeId v : nodes)
            TS_ASSERT_MSG(v >= 0 && static_cast<std::size_t>(v) < n, "dagWidth subset id out of range");
        std::sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
            return pos[static_cast<std::size_t>(a)] < pos[static_cast<std::size_t>(b)];
        });
        nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    }
    const std::size_t k = nodes.size();
    if (k == 0)
        return {};
    std::vector<std::int32_t> col(n, -1);
    for (std::size_t i = 0; i < k; ++i)
        col[static_cast<std::size_t>(nodes[i])] = static_cast<std::int32_t>(i);

    // S1: only nodes between the first and last considered node (in
    // topological order) can lie on a path between two of them.
    const std::size_t lo = static_cast<std::size_t>(pos[static_cast<std::size_t>(nodes.front())]);
    const std::size_t hi = static_cast<std::size_t>(pos[static_cast<std::size_t>(nodes.back())]);
    const std::size_t words = wordsFor(k);
    std::vector<Word> closure((hi - lo + 1) * words, 0);
    for (std::size_t p = hi + 1; p-- > lo;) {
        Word *row = &closure[(p - lo) * words];
        for (NodeId s : adj.successors(order[p])) {
            const auto ps = static_cast<std::size_t>(pos[static_cast<std::size_t>(s)]);
            if (ps > hi)
                continue;
            const Word *succ = &closure[(ps - lo) * words];
            for (std::size_t w = 0; w < words; ++w)
                row[w] |= succ[w];
            if (col[static_cast<std::size_t>(s)] >= 0)
                setBit(row, static_cast<std::size_t>(col[static_cast<std::size_t>(s)]));
        }
    }
    std::vector<const Word *> rows(k);
    for (std::size_t i = 0; i < k; ++i)
        rows[i] = &closure[(static_cast<std::size_t>(pos[static_cast<std::size_t>(nodes[i])]) - lo) * words];

    ClosureMatching matching(k, words, std::move(rows));
    const std::size_t matched = matching.run();
    DagWidth result;
    result.width = static_cast<std::int64_t>(k - matched);
    for (std::size_t i : matching.koenigAntichain())
        result.antichain.push_back(nodes[i]);
    std::sort(result.antichain.begin(), result.antichain.end());
    TS_ASSERT(static_cast<std::int64_t>(result.antichain.size()) == result.width);
    return result;
}

std::vector<std::int32_t> topologicalRanks(const std::vector<NodeId> &order)
{
    std::vector<std::int32_t> rank(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        rank[static_cast<std::size_t>(order[i])] = static_cast<std::int32_t>(i);
    return rank;
}

bool sameComputation(const Graph &g, NodeId a, NodeId b)
{
    const Node &x = g.node(a);
    const Node &y = g.node(b);
    if (x.opaque || y.opaque || x.opType != y.opType || x.domain != y.domain || x.inputs != y.inputs ||
        x.outputs.size() != y.outputs.size())
        return false;
    // Ops whose every evaluation differs (ONNX's generators) are never the same computation.
    for (std::string_view random :
         {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial", "Bernoulli"})
        if (x.opType == random)
            return false;
    for (std::size_t i = 0; i < x.outputs.size(); ++i) {
        if ((x.outputs[i] == kInvalidId) != (y.outputs[i] == kInvalidId))
            return false;
        if (x.outputs[i] == kInvalidId)
            continue;
        const Tensor &tx = g.tensor(x.outputs[i]);
        const Tensor &ty = g.tensor(y.outputs[i]);
        if (tx.dtype != ty.dtype || tx.shape != ty.shape)
            return false;
    }
    if (x.attrs.size() != y.attrs.size())
        return false;
    for (auto ix = x.attrs.begin(), iy = y.attrs.begin(); ix != x.attrs.end(); ++ix, ++iy) {
        if (ix->first != iy->first || ix->second.kind() != iy->second.kind())
            return false;
        if (ix->second.kind() == Attribute::Kind::Tensor) {
            const auto &dx = std::get<std::shared_ptr<const TensorData>>(ix->second.value);
            const auto &dy = std::get<std::shared_ptr<const TensorData>>(iy->second.value);
            if (dx != dy && (!dx || !dy || dx->isExternal() || dy->isExternal() || dx->dtype != dy->dtype ||
                             dx->shape != dy->shape || !std::ranges::equal(dx->view(), dy->view())))
                return false;
        } else if (ix->second.value != iy->second.value) {
            return false;
        }
    }
    return true;
}

} // namespace tessera
