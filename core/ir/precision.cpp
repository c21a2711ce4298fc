#include "core/ir/precision.h"

namespace tessera {

bool isDeploymentPrecision(DType dtype)
{
    return dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Float32 || dtype == DType::Int8;
}

Graph atPrecision(const Graph &graph, DType dtype)
{
    Graph g = graph;
    if (!isDeploymentPrecision(dtype))
        return g;
    for (std::size_t t = 0; t < g.tensorCount(); ++t) {
        Tensor &tensor = g.tensor(static_cast<TensorId>(t));
        if (tensor.dtype == DType::Float32)
            tensor.dtype = dtype;
    }
    return g;
}

std::optional<DType> precisionFromName(std::string_view name)
{
    if (name == "fp32" || name == "f32")
        return DType::Float32;
    if (name == "fp16" || name == "f16")
        return DType::Float16;
    if (name == "bf16")
        return DType::BFloat16;
    if (name == "int8" || name == "i8")
        return DType::Int8;
    return std::nullopt;
}

std::string_view precisionNames()
{
    return "fp32, fp16, bf16, int8";
}

std::string_view precisionName(DType dtype)
{
    switch (dtype) {
    case DType::Float16: return "fp16";
    case DType::BFloat16: return "bf16";
    case DType::Int8: return "int8";
    default: return "fp32";
    }
}

} // namespace tessera
