// Synthetic graphs with hand-built hierarchies, shaped like the models the
// graph view must handle fast: a residual chain (small), ResNet-50 with
// explicit BatchNorm/Relu (~175 nodes), BERT-base as ONNX exports it with
// decomposed LayerNorm/Gelu and shape subgraphs (~1,000 nodes), and a layered
// random DAG of any size in stages ⊃ blocks. Node names carry realistic scopes.
// Fixtures for the layout tests and bench/bench_graphview.cpp; they need no
// importer and no ops library, only core/ir.
#pragma once

#include "core/ir/graph.h"
#include "core/ir/hierarchy.h"

#include <cstdint>
#include <memory>

namespace tessera::layout {

struct SyntheticGraph {
    std::shared_ptr<Graph> graph;
    Hierarchy hierarchy;
};

SyntheticGraph residualChain(int blocks);     // stem, `blocks` basic blocks (one group each), an opaque op, head
SyntheticGraph resnet50Like();                // stages layer1..layer4 ⊃ bottleneck blocks
SyntheticGraph bertBaseLike(int layers = 12); // embeddings, encoder ⊃ layer.i ⊃ attention/ffn, pooler
SyntheticGraph layeredDag(int nodes, int blockSize = 50, int blocksPerStage = 10, std::uint64_t seed = 1);

} // namespace tessera::layout
