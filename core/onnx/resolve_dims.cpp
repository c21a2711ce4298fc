// S5: Tessera's shapes are static, so every symbolic or unknown dimension of a
// graph input becomes a number before shape inference (S6) propagates it:
// ImportOptions::dims by exact name first, then batch-like names get batchSize
// and sequence-like names seqLen; an unnamed unknown axis 0 counts as batch.
// Anything else is an error naming the input and the symbol. The same symbols
// are substituted in value_info and graph outputs so declared and inferred
// shapes agree. Each resolved symbol leaves a note in the log.
#include "core/onnx/internal.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

namespace tessera::onnximport {

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

bool isBatchName(const std::string &s)
{
    static const std::set<std::string, std::less<>> names{"n",         "b",      "bs",        "batch",    "batch_size",
                                                          "batchsize", "nbatch", "num_batch", "batch_dim"};
    return names.count(s) || s.rfind("batch", 0) == 0;
}

bool isSequenceName(const std::string &s)
{
    static const std::set<std::string, std::less<>> names{
        "t",        "s",   "len",    "length",  "time",       "tokens",         "num_tokens",
        "sequence", "seq", "seqlen", "seq_len", "seq_length", "sequence_length"};
    return names.count(s) || s.find("seq") != std::string::npos;
}

} // namespace

Status resolveSymbolicDims(::onnx::GraphProto &gp, const ImportContext &ctx)
{
    const ImportOptions &o = ctx.options;
    for (const auto &[name, value] : o.dims)
        if (value < 0)
            return Status::error(ErrorCode::Usage, "ImportOptions::dims gives symbol '" + name +
                                                       "' the negative value " + std::to_string(value));
    auto valueOf = [&o](const std::string &symbol) -> std::optional<std::int64_t> {
        if (auto it = o.dims.find(symbol); it != o.dims.end())
            return it->second;
        const std::string s = lower(symbol);
        if (isBatchName(s))
            return o.batchSize;
        if (isSequenceName(s))
            return o.seqLen;
        return std::nullopt;
    };

    std::unordered_set<std::string> initializers;
    for (const auto &t : gp.initializer())
        initializers.insert(t.name());
    std::map<std::string, std::int64_t> resolved;
    for (auto &in : *gp.mutable_input()) {
        if (initializers.count(in.name()))
            continue;
        const Location loc = ctx.at({}, in.name());
        if (!in.type().has_tensor_type())
            return Status::error(ErrorCode::Unsupported,
                                 "graph input is not a tensor (sequence, map and optional inputs "
                                 "are not supported)",
                                 loc);
        if (!in.type().tensor_type().has_shape())
            return Status::invalid("graph input has no shape", loc);
        auto &dims = *in.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim();
        for (int i = 0; i < dims.size(); ++i) {
            auto &d = dims[i];
            if (d.has_dim_value())
                continue;
            if (d.has_dim_param()) {
                const std::string symbol = d.dim_param();
                const auto v = valueOf(symbol);
                if (!v)
                    return Status::invalid("graph input has symbolic dimension '" + symbol + "' (axis " +
                                               std::to_string(i) + "); give it a value in ImportOptions::dims",
                                           loc);
                resolved[symbol] = *v;
                d.set_dim_value(*v);
            } else if (i == 0) {
                ctx.log.note("unnamed first dimension taken as batch size " + std::to_string(o.batchSize), loc);
                d.set_dim_value(o.batchSize);
            } else {
                return Status::invalid("graph input has an unknown dimension (axis " + std::to_string(i) + ")", loc);
            }
        }
    }
    if (resolved.empty())
        return Status::ok();
    for (const auto &[symbol, value] : resolved)
        ctx.log.note("symbolic dimension '" + symbol + "' set to " + std::to_string(value), ctx.at());

    auto substitute = [&resolved](::onnx::ValueInfoProto &v) {
        if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
            return;
        for (auto &d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
            if (d.has_dim_param())
                if (auto it = resolved.find(d.dim_param()); it != resolved.end())
                    d.set_dim_value(it->second);
    };
    for (auto &v : *gp.mutable_value_info())
        substitute(v);
    for (auto &v : *gp.mutable_output())
        substitute(v);
    return Status::ok();
}

} // namespace tessera::onnximport
