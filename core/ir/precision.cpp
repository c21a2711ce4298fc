#include "core/ir/precision.h"

namespace tessera {

Graph atPrecision(const Graph &graph, DType dtype)
{
    Graph g = graph;
    if (dtype != DType::Float16 && dtype != DType::BFloat16 && dtype != DType::Float32)
        return g;
    for (std::size_t t = 0; t < g.tensorCount(); ++t) {
        Tensor &tensor = g.tensor(static_cast<TensorId>(t));
        if (tensor.dtype == DType::Float32)
            tensor.dtype = dtype;
    }
    return g;
}

} // namespace tessera
