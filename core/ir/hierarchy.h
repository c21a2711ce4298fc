// A hierarchy of groups (stages ⊃ blocks ⊃ layers) over a graph's nodes, so
// that big graphs can be shown collapsed and schedulers can work per block.
//
// Inferred from node names when they carry scopes ("/layer1/layer1.0/conv1/Conv",
// "bert.encoder.layer.3.attention...", "stage2_block1_conv") and from
// structure when they do not (single-entry/single-exit regions between
// articulation points of the DAG, then chunks of bounded size), so every graph
// with more than a handful of nodes can be collapsed.
#pragma once

#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tessera {

using GroupId = std::int32_t;

struct Group {
    enum class Kind : std::uint8_t { Root, Stage, Block, Layer };
    std::string name; // short label, e.g. "layer1.0"
    std::string path; // full path from the root, e.g. "layer1/layer1.0"; stable across imports
    Kind kind = Kind::Block;
    GroupId parent = -1;
    std::vector<GroupId> children;
    std::vector<NodeId> nodes;   // nodes directly in this group (not in a child)
    std::int64_t totalNodes = 0; // nodes in this group and all descendants
};

class Hierarchy
{
public:
    // Group 0 is the root. Every node belongs to exactly one group (directly).
    const std::vector<Group> &groups() const { return m_groups; }
    const Group &group(GroupId id) const { return m_groups[static_cast<std::size_t>(id)]; }
    GroupId groupOf(NodeId n) const { return m_groupOf[static_cast<std::size_t>(n)]; }
    // All nodes under a group, including descendants, ascending.
    std::vector<NodeId> nodesUnder(GroupId id) const;
    // Ancestor chain of a group from the root down to id (inclusive).
    std::vector<GroupId> ancestry(GroupId id) const;

    // Building blocks for inferHierarchy and tests.
    GroupId addGroup(std::string name, Group::Kind kind, GroupId parent);
    void assign(NodeId n, GroupId g);
    void reset(std::size_t nodeCount); // a root group only
    void finalize();                   // sorts node lists, computes totals

private:
    std::vector<Group> m_groups;
    std::vector<GroupId> m_groupOf;
};

struct HierarchyOptions {
    std::size_t maxGroupSize = 64; // structural chunks are cut at this many nodes
    std::size_t minGroupSize = 3;  // name scopes with fewer nodes are merged upward
};

// Infers the hierarchy. Deterministic: the same graph gives the same groups and paths.
Hierarchy inferHierarchy(const Graph &g, const HierarchyOptions &opts = {});

} // namespace tessera
