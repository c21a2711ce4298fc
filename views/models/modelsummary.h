// The Model summary dock's key/value sections: file and graph facts, counts,
// totals (FLOPs, params, weights) and the graph's inputs and outputs with
// their shapes. The DAG width is slow on big graphs, so the caller computes
// it off the GUI thread and passes it in when ready (-1: still computing).
#pragma once

#include "views/models/modeldata.h"
#include "views/models/propertymodel.h"

#include <cstdint>
#include <vector>

namespace tessera::views {

std::vector<PropertyModel::Section> summarySections(const ModelData &data, std::int64_t dagWidth);

} // namespace tessera::views
