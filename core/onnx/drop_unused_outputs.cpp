// S2b: optional outputs nothing reads are dropped before anything looks at
// their declared types. Old-opset Dropout declares a `mask` (the model zoo's
// AlexNet, GoogLeNet, SqueezeNet and VGG declare it as an undefined scalar),
// MaxPool an `Indices`, BatchNormalization its training statistics and the
// recurrent ops Y_h/Y_c; inference never reads them. For the default-domain
// ops of the table below, an output at or past the op's first optional slot
// whose name no node (including nodes of subgraphs, which may read outer
// names) reads and that is not a graph output becomes the empty name ONNX uses
// for an omitted output; trailing omitted outputs are trimmed and their
// value_info entries removed. One note lists what was dropped.
// Assumes S2 ran (a parsed model); runs before S3 builds the Graph, so no
// later step sees the dropped tensors.
#include "core/onnx/internal.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace tessera::onnximport {

namespace {

struct OptionalOutputs {
    std::string_view op;
    int first; // first output slot that is optional for inference
};
constexpr OptionalOutputs kOptional[] = {
    {"Dropout", 1},            // mask
    {"MaxPool", 1},            // Indices
    {"BatchNormalization", 1}, // mean/var (training), saved_mean/saved_var (opset < 9)
    {"LSTM", 1},               // Y_h, Y_c
    {"GRU", 1},                // Y_h
    {"RNN", 1},                // Y_h
};

int firstOptional(const ::onnx::NodeProto &n)
{
    if (!normalDomain(n.domain()).empty())
        return -1;
    for (const OptionalOutputs &o : kOptional)
        if (o.op == n.op_type())
            return o.first;
    return -1;
}

void collectReads(const ::onnx::GraphProto &g, std::set<std::string, std::less<>> &reads)
{
    for (const auto &n : g.node()) {
        for (const auto &i : n.input())
            reads.insert(i);
        for (const auto &a : n.attribute()) {
            if (a.has_g())
                collectReads(a.g(), reads);
            for (const auto &sub : a.graphs())
                collectReads(sub, reads);
        }
    }
    for (const auto &o : g.output())
        reads.insert(o.name());
}

} // namespace

void dropUnusedOptionalOutputs(::onnx::GraphProto &g, const ImportContext &ctx)
{
    std::set<std::string, std::less<>> reads;
    collectReads(g, reads);
    std::set<std::string, std::less<>> dropped;
    std::string list;
    for (auto &n : *g.mutable_node()) {
        const int first = firstOptional(n);
        if (first < 0)
            continue;
        for (int i = first; i < n.output_size(); ++i) {
            const std::string &name = n.output(i);
            if (name.empty() || reads.count(name))
                continue;
            list += (list.empty() ? "" : ", ") + n.op_type() + " '" + name + "'";
            dropped.insert(name);
            n.set_output(i, "");
        }
        while (n.output_size() > 1 && n.output(n.output_size() - 1).empty())
            n.mutable_output()->RemoveLast();
    }
    if (dropped.empty())
        return;
    auto *infos = g.mutable_value_info();
    for (int i = infos->size() - 1; i >= 0; --i)
        if (dropped.count(infos->Get(i).name()))
            infos->DeleteSubrange(i, 1);
    ctx.log.note("dropped " + std::to_string(dropped.size()) + " optional output(s) nothing reads: " + list, ctx.at());
}

} // namespace tessera::onnximport
