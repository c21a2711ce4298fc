// A stable hash of a model's structure: node names, op types, attributes,
// wiring, tensor names, shapes and dtypes — not weight values. Two imports
// of the same file hash equal; a plan or an override file records it so a
// document made for another model is recognised. 16 hex digits (FNV-1a 64).
#pragma once

#include "core/ir/graph.h"

#include <string>

namespace tessera {
std::string modelStructureHash(const Graph &graph);
}
