// ModelData: one loaded model as the workbench sees it — the graph, its group
// hierarchy, per-node metrics and the import's diagnostics. Built once off the
// GUI thread by the loader, then shared read-only (shared_ptr<const>) by every
// model and view, so a new load never disturbs the one on screen.
#pragma once

#include "core/ir/graph.h"
#include "core/ir/hierarchy.h"
#include "core/support/status.h"
#include "views/models/metrics.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tessera::views {

struct ModelData {
    std::shared_ptr<const Graph> graph;
    Hierarchy hierarchy;
    GraphMetrics metrics;
    std::vector<Diagnostic> diagnostics;                       // import warnings and notes
    std::vector<std::pair<std::string, std::string>> metadata; // producer, opset, ... for the summary
    std::map<std::string, std::string> properties;             // metadata_props, handed to schedulers
    std::string path;                                          // file it came from, empty if built in memory
};

// Completes a ModelData from a graph: infers the hierarchy (falling back to
// one flat root group if inference yields none) and computes the metrics.
std::shared_ptr<ModelData> makeModelData(std::shared_ptr<const Graph> graph);

// A hierarchy with only the root group holding every node.
Hierarchy flatHierarchy(const Graph &g);

} // namespace tessera::views
