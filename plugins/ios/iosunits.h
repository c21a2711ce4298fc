// The units and blocks IOS schedules, for any graph (ios thesis §4.1: "IOS
// supports the user-defined schedule unit"; Table 4.1's Conv-Relu and
// Relu-SepConv units).
//
// iosUnitsForGraph() takes, in order:
//  0. the model's "ios.units"/"ios.blocks" metadata (plugins/ios/iosnetworks.h),
//     when the model carries it — the IOS artifact's units and blocks with
//     their explicit parts (NasNet's cells); broken metadata is an error, not
//     a silent fallback;
//  1. the node names of samples' IOS converter ("block<B>/<unit>/<op>"): the
//     IOS artifact's own units and blocks (iosUnitsFromNodeNames), when every
//     node follows it and the units it names are consistent;
//  2. otherwise the structural rule of formIosUnits():
//     Units. Nodes are visited in topological order. A node joins the unit of
//     the producer p of one of its inputs when it is element-wise (Relu, Add,
//     BatchNormalization, ...) or only re-describes a tensor (Identity,
//     Reshape, Flatten, Squeeze, Unsqueeze, Dropout), p is the last node of its
//     unit, every output of p is read by this node only, and every other input
//     of the node is produced upstream of p (joining then adds no dependency
//     between units). Of several such producers the latest is taken. So Conv →
//     BN → Relu → Add(residual) → Relu is one unit, while a branch point ends
//     one and the Add joining two parallel branches is a unit of its own.
//     Everything else starts a unit named after its first node.
//     Blocks. Units are ordered topologically (Kahn, ties by first node); a block
//     ends after unit i when every later unit depends on it — no unit before i
//     is read after i and no later unit reads graph inputs only: a cut point
//     such as the output of a residual block or an Inception module. Blocks
//     bigger than the search's part size are cut into parts by the search.
#pragma once

#include "plugins/ios/iosformat.h"

#include <map>
#include <string>

namespace tessera {

Expected<IosUnitSet> iosUnitsForGraph(const Graph &g, const std::map<std::string, std::string> &modelProperties = {});
Expected<IosUnitSet> formIosUnits(const Graph &g);

} // namespace tessera
