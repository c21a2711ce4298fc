// tessera-cli inspect MODEL [--json]: what is in a model.
#include "app/cli/command.h"
#include "core/ir/analysis.h"
#include "core/ops/ops.h"
#include "core/plugin/extensions.h"
#include "core/plugin/modelinput.h"
#include "core/support/units.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <map>

namespace tessera::cli {

namespace {

struct Summary {
    std::size_t nodes = 0, edges = 0, tensors = 0;
    std::map<std::string, int> ops;
    double flops = 0;
    std::int64_t params = 0;
    std::int64_t width = 0;
};

Summary summarize(const Graph &g)
{
    Summary s;
    s.nodes = g.nodeCount();
    s.edges = g.edgeCount();
    s.tensors = g.tensorCount();
    for (const Node &n : g.nodes()) {
        ++s.ops[n.opType];
        if (!n.opaque)
            s.flops += ops::opCost(g, n).flops;
    }
    for (const Tensor &t : g.tensors())
        if (t.kind == Tensor::Kind::Initializer)
            s.params += t.elements();
    s.width = dagWidth(g).width;
    return s;
}

QJsonArray ioJson(const Graph &g, const std::vector<TensorId> &ids)
{
    QJsonArray out;
    for (TensorId id : ids) {
        const Tensor &t = g.tensor(id);
        QJsonArray shape;
        for (auto d : t.shape)
            shape.append(static_cast<qint64>(d));
        out.append(QJsonObject{{"name", QString::fromStdString(t.name)},
                               {"dtype", QString::fromUtf8(dtypeName(t.dtype).data(), dtypeName(t.dtype).size())},
                               {"shape", shape}});
    }
    return out;
}

int run(const Args &args, const Extensions &extensions)
{
    if (args.positional().size() != 1)
        return fail(usageError("inspect needs exactly one MODEL"));
    auto model = loadModel(args.positional().front(), args, extensions);
    if (!model)
        return fail(model.status());
    const Graph &g = model->graph;
    const Summary s = summarize(g);

    if (args.has("json")) {
        QJsonObject ops;
        for (const auto &[op, n] : s.ops)
            ops[QString::fromStdString(op)] = n;
        QJsonObject root{{"model", QString::fromStdString(args.positional().front())},
                         {"nodes", static_cast<qint64>(s.nodes)},
                         {"edges", static_cast<qint64>(s.edges)},
                         {"tensors", static_cast<qint64>(s.tensors)},
                         {"ops", ops},
                         {"inputs", ioJson(g, g.inputs)},
                         {"outputs", ioJson(g, g.outputs)},
                         {"flops", s.flops},
                         {"params", static_cast<qint64>(s.params)},
                         {"width", static_cast<qint64>(s.width)},
                         {"opset", static_cast<qint64>(model->metadata.opsetVersion)}};
        QJsonArray warnings;
        for (const Diagnostic &d : model->log.items())
            warnings.append(QString::fromStdString(d.str()));
        root["diagnostics"] = warnings;
        std::fputs(QJsonDocument(root).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }

    std::printf("model    %s (%s, opset %lld)\n", args.positional().front().c_str(), g.name.c_str(),
                static_cast<long long>(model->metadata.opsetVersion));
    std::printf("nodes    %zu\nedges    %zu\ntensors  %zu\n", s.nodes, s.edges, s.tensors);
    std::printf("flops    %s\nparams   %s\nwidth    %lld\n", units::flops(s.flops).c_str(),
                units::count(static_cast<double>(s.params)).c_str(), static_cast<long long>(s.width));
    auto printIo = [&](const char *title, const std::vector<TensorId> &ids) {
        std::printf("%s\n", title);
        for (TensorId id : ids)
            std::printf("  %-32s %-5s %s\n", g.tensor(id).name.c_str(),
                        std::string(dtypeName(g.tensor(id).dtype)).c_str(), shapeStr(g.tensor(id).shape).c_str());
    };
    printIo("inputs", g.inputs);
    printIo("outputs", g.outputs);
    std::vector<std::pair<std::string, int>> hist(s.ops.begin(), s.ops.end());
    std::stable_sort(hist.begin(), hist.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    std::printf("ops\n");
    for (const auto &[op, n] : hist)
        std::printf("  %-24s %d\n", op.c_str(), n);
    for (const Diagnostic &d : model->log.items())
        std::fprintf(stderr, "tessera-cli: %s\n", d.str().c_str());
    return 0;
}

} // namespace

Command inspectCommand()
{
    auto options = modelOptions();
    options.push_back({"json", false, false, "--json           machine-readable output"});
    return {"inspect", "inspect MODEL [--json]",
            "counts, op histogram, inputs/outputs, FLOPs, parameters and DAG width of a model", options, run};
}

} // namespace tessera::cli
