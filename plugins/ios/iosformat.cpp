// IOS artifact interop (iosformat.h). One section per concern: units, the
// merge rule, schedule checking and lowering, the artifact's JSON.
#include "plugins/ios/iosformat.h"

#include "core/hw/device.h"
#include "core/ir/analysis.h"
#include "core/sched/planbuilder.h"
#include "plugins/ios/iosnetworks.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QStringList>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <onnx/onnx_pb.h>

namespace tessera {

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}
std::string str(const QJsonValue &v)
{
    return v.toString().toStdString();
}

Status unitError(const std::string &unit, const std::string &message)
{
    return Status::invalid("unit '" + unit + "': " + message, Location{.node = unit});
}

Expected<QJsonDocument> parseJson(std::string_view text, std::string_view source, const char *what)
{
    QJsonParseError error;
    QJsonDocument doc = QJsonDocument::fromJson(QByteArray(text.data(), static_cast<qsizetype>(text.size())), &error);
    if (error.error != QJsonParseError::NoError)
        return Status::invalid(std::string("malformed ") + what + ": " + error.errorString().toLower().toStdString(),
                               Location{std::string(source), error.offset, {}, {}});
    return doc;
}

} // namespace

// ---- units ------------------------------------------------------------------

std::int32_t IosUnitSet::findUnit(std::string_view name) const
{
    auto it = unitByName.find(name);
    return it == unitByName.end() ? -1 : it->second;
}

Status finalizeIosUnits(const Graph &g, IosUnitSet &set)
{
    const auto nodeCount = static_cast<NodeId>(g.nodeCount());
    set.unitOfNode.assign(g.nodeCount(), -1);
    set.unitByName.clear();
    auto order = topologicalOrder(g);
    if (!order)
        return order.status();
    std::vector<std::int32_t> rank(g.nodeCount());
    for (std::size_t i = 0; i < order->size(); ++i)
        rank[static_cast<std::size_t>((*order)[i])] = static_cast<std::int32_t>(i);

    for (std::size_t u = 0; u < set.units.size(); ++u) {
        const IosUnit &unit = set.units[u];
        if (unit.nodes.empty())
            return unitError(unit.name, "has no nodes");
        if (!set.unitByName.emplace(unit.name, static_cast<std::int32_t>(u)).second)
            return unitError(unit.name, "the name is used by two units");
        for (std::size_t i = 0; i < unit.nodes.size(); ++i) {
            const NodeId n = unit.nodes[i];
            if (n < 0 || n >= nodeCount)
                return unitError(unit.name, "names node id " + std::to_string(n) + ", which does not exist");
            auto &owner = set.unitOfNode[static_cast<std::size_t>(n)];
            if (owner >= 0)
                return unitError(unit.name, "node '" + g.node(n).name + "' is also in unit '" +
                                                set.units[static_cast<std::size_t>(owner)].name + "'");
            owner = static_cast<std::int32_t>(u);
            if (i && rank[static_cast<std::size_t>(n)] < rank[static_cast<std::size_t>(unit.nodes[i - 1])])
                return unitError(unit.name, "its nodes are not listed in a topological order");
        }
    }
    for (NodeId n = 0; n < nodeCount; ++n)
        if (set.unitOfNode[static_cast<std::size_t>(n)] < 0)
            return Status::invalid("node is in no ios unit", Location{.node = g.node(n).name});

    set.blockOfUnit.assign(set.units.size(), -1);
    std::vector<std::int32_t> position(set.units.size(), -1); // in the concatenated block lists
    std::int32_t next = 0;
    for (std::size_t b = 0; b < set.blocks.size(); ++b) {
        const IosBlock &block = set.blocks[b];
        if (block.units.empty())
            return Status::invalid("ios block '" + block.name + "' has no units");
        for (std::int32_t u : block.units) {
            if (u < 0 || static_cast<std::size_t>(u) >= set.units.size())
                return Status::invalid("ios block '" + block.name + "' names unit id " + std::to_string(u) +
                                       ", which does not exist");
            if (set.blockOfUnit[static_cast<std::size_t>(u)] >= 0)
                return unitError(set.units[static_cast<std::size_t>(u)].name, "is in two blocks");
            set.blockOfUnit[static_cast<std::size_t>(u)] = static_cast<std::int32_t>(b);
            position[static_cast<std::size_t>(u)] = next++;
        }
        std::int64_t covered = 0;
        for (std::int32_t p : block.parts) {
            if (p < 1)
                return Status::invalid("ios block '" + block.name + "' has a part of " + std::to_string(p) + " units");
            covered += p;
        }
        if (!block.parts.empty() && covered != static_cast<std::int64_t>(block.units.size()))
            return Status::invalid("ios block '" + block.name + "': its parts cover " + std::to_string(covered) +
                                   " units, it has " + std::to_string(block.units.size()));
    }
    for (std::size_t u = 0; u < set.units.size(); ++u)
        if (set.blockOfUnit[u] < 0)
            return unitError(set.units[u].name, "is in no block");

    set.predecessors.assign(set.units.size(), {});
    set.successors.assign(set.units.size(), {});
    for (std::size_t u = 0; u < set.units.size(); ++u) {
        auto &preds = set.predecessors[u];
        for (NodeId n : set.units[u].nodes)
            for (NodeId p : g.predecessors(n))
                if (const std::int32_t pu = set.unitOfNode[static_cast<std::size_t>(p)];
                    pu != static_cast<std::int32_t>(u))
                    preds.push_back(pu);
        std::sort(preds.begin(), preds.end());
        preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
        for (std::int32_t p : preds) {
            if (position[static_cast<std::size_t>(p)] > position[u])
                return unitError(set.units[u].name, "reads unit '" + set.units[static_cast<std::size_t>(p)].name +
                                                        "', which is listed after it");
            set.successors[static_cast<std::size_t>(p)].push_back(static_cast<std::int32_t>(u));
        }
    }
    return {};
}

Expected<IosUnitSet> iosUnitsFromMetadata(const Graph &g, const std::map<std::string, std::string> &properties)
{
    const auto unitsIt = properties.find(kIosUnitsKey);
    const auto blocksIt = properties.find(kIosBlocksKey);
    if (unitsIt == properties.end() || blocksIt == properties.end())
        return Status::error(ErrorCode::Unsupported, "the model has no ios.units/ios.blocks metadata");
    auto unitsDoc = parseJson(unitsIt->second, "ios.units", "ios.units metadata");
    if (!unitsDoc)
        return unitsDoc.status();
    auto blocksDoc = parseJson(blocksIt->second, "ios.blocks", "ios.blocks metadata");
    if (!blocksDoc)
        return blocksDoc.status();
    const QJsonObject unitNodes = unitsDoc->object();

    IosUnitSet set;
    set.source = "metadata";
    for (const QJsonValue b : blocksDoc->array()) {
        const QJsonObject block = b.toObject();
        IosBlock &out = set.blocks.emplace_back();
        out.name = "block" + std::to_string(set.blocks.size() - 1);
        for (const QJsonValue p : block.value(QLatin1String("parts")).toArray())
            out.parts.push_back(static_cast<std::int32_t>(p.toInteger()));
        for (const QJsonValue u : block.value(QLatin1String("units")).toArray()) {
            IosUnit unit{u.toString().toStdString(), {}};
            if (!unitNodes.contains(u.toString()))
                return unitError(unit.name, "is listed in ios.blocks but not in ios.units");
            for (const QJsonValue n : unitNodes.value(u.toString()).toArray()) {
                const NodeId id = g.findNode(n.toString().toStdString());
                if (id == kInvalidId)
                    return unitError(unit.name, "ios.units names node '" + n.toString().toStdString() +
                                                    "', which the graph does not have");
                unit.nodes.push_back(id);
            }
            out.units.push_back(static_cast<std::int32_t>(set.units.size()));
            set.units.push_back(std::move(unit));
        }
    }
    if (set.units.size() != static_cast<std::size_t>(unitNodes.size()))
        return Status::invalid("ios.units lists " + std::to_string(unitNodes.size()) + " units, ios.blocks " +
                               std::to_string(set.units.size()));
    TS_TRY(finalizeIosUnits(g, set));
    return set;
}

namespace {

// "block<B>/cell<C>/<unit>/..." (a big block read in cells) → "block<B>/<unit>/...".
// A cell scope has a unit after it: "block0/cell3/8/Conv", not "block0/cell3/Conv".
std::string withoutCellScope(const std::string &name)
{
    const auto first = name.find('/');
    if (first == std::string::npos || name.compare(first + 1, 4, "cell") != 0)
        return name;
    const auto second = name.find('/', first + 1);
    if (second == std::string::npos || second == first + 5 || name.find('/', second + 1) == std::string::npos)
        return name;
    for (auto i = first + 5; i < second; ++i)
        if (name[i] < '0' || name[i] > '9')
            return name;
    return name.substr(0, first + 1) + name.substr(second + 1);
}

} // namespace

Expected<IosUnitSet> iosUnitsFromNodeNames(const Graph &g)
{
    // Node order is the converter's unit order (ONNX lists nodes topologically).
    IosUnitSet set;
    set.source = "node names";
    std::vector<long> blockIndexOfUnit;
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n) {
        const std::string name = withoutCellScope(g.node(n).name);
        const auto slash = name.find('/');
        const auto slash2 = slash == std::string::npos ? slash : name.find('/', slash + 1);
        long index = -1;
        const bool ok = name.rfind("block", 0) == 0 && slash != std::string::npos && slash > 5 &&
                        slash2 != std::string::npos && slash2 > slash + 1 &&
                        std::from_chars(name.data() + 5, name.data() + slash, index).ptr == name.data() + slash;
        if (!ok)
            return Status::error(ErrorCode::Unsupported,
                                 "node name does not follow the ios converter's block<B>/<unit>/<op> convention",
                                 Location{.node = name});
        const std::string unit = name.substr(slash + 1, slash2 - slash - 1);
        std::int32_t u = set.findUnit(unit);
        if (u < 0) {
            u = static_cast<std::int32_t>(set.units.size());
            set.units.push_back({unit, {}});
            set.unitByName.emplace(unit, u);
            blockIndexOfUnit.push_back(index);
        } else if (blockIndexOfUnit[static_cast<std::size_t>(u)] != index) {
            return unitError(unit, "its nodes are named in two blocks");
        }
        set.units[static_cast<std::size_t>(u)].nodes.push_back(n);
    }
    std::map<long, std::vector<std::int32_t>> members; // block index -> units in first-appearance order
    for (std::size_t u = 0; u < set.units.size(); ++u)
        members[blockIndexOfUnit[u]].push_back(static_cast<std::int32_t>(u));
    for (auto &[index, list] : members)
        set.blocks.push_back({"block" + std::to_string(index), std::move(list), {}});
    TS_TRY(finalizeIosUnits(g, set));
    return set;
}

Expected<IosUnitSet> iosUnitsOf(const ImportResult &model)
{
    if (model.metadata.properties.count(kIosUnitsKey))
        return iosUnitsFromMetadata(model.graph, model.metadata.properties);
    return iosUnitsFromNodeNames(model.graph);
}

// ---- the merge rule -----------------------------------------------------------

std::optional<IosConvInfo> iosConvUnit(const Graph &g, const IosUnit &unit)
{
    std::size_t i = 0;
    const Node *slice = nullptr;
    if (unit.nodes.size() > 1 && g.node(unit.nodes[0]).opType == "Slice")
        slice = &g.node(unit.nodes[i++]);
    if (i >= unit.nodes.size())
        return std::nullopt;
    const Node &conv = g.node(unit.nodes[i]);
    if (conv.opType != "Conv" || conv.inputs.size() < 2)
        return std::nullopt;
    const Tensor *x = g.input(conv, 0), *w = g.input(conv, 1), *y = g.output(conv, 0);
    if (!x || !w || !y || !w->isConstant() || x->shape.size() != 4 || w->shape.size() != 4 || y->shape.size() != 4)
        return std::nullopt;
    if (conv.attrString("auto_pad", "NOTSET") != "NOTSET")
        return std::nullopt;
    for (std::int64_t d : conv.attrInts("dilations", {1, 1}))
        if (d != 1)
            return std::nullopt;
    const auto pads = conv.attrInts("pads", {0, 0, 0, 0});
    const auto strides = conv.attrInts("strides", {1, 1});
    if (pads.size() != 4 || strides.size() != 2 || pads[0] != pads[2] || pads[1] != pads[3])
        return std::nullopt; // IOS convolutions pad symmetrically

    IosConvInfo info;
    info.conv = unit.nodes[i];
    info.dtype = y->dtype;
    info.batch = x->shape[0];
    info.inChannels = x->shape[1];
    info.inH = x->shape[2];
    info.inW = x->shape[3];
    info.outChannels = y->shape[1];
    info.outH = y->shape[2];
    info.outW = y->shape[3];
    info.groups = conv.attrInt("group", 1);
    info.kernelH = w->shape[2];
    info.kernelW = w->shape[3];
    info.strideH = strides[0];
    info.strideW = strides[1];
    info.padH = pads[0];
    info.padW = pads[1];
    if (slice) {
        const Tensor *src = g.input(*slice, 0);
        if (!src || slice->outputs.empty() || conv.inputs[0] != slice->outputs[0])
            return std::nullopt;
        info.input = "slice:" + src->name;
        for (std::size_t k = 1; k < slice->inputs.size(); ++k) {
            const Tensor *t = g.input(*slice, k);
            if (!t || !t->isConstant())
                return std::nullopt;
            info.input += ":";
            for (std::int64_t e = 0; e < t->elements(); ++e)
                info.input += std::to_string(t->data->intAt(e).value_or(0)) + ",";
        }
    } else {
        info.input = "tensor:" + x->name;
    }
    // The activation: unary element-wise ops chained after the conv.
    TensorId prev = conv.outputs[0];
    for (++i; i < unit.nodes.size(); ++i) {
        const Node &n = g.node(unit.nodes[i]);
        if (opClassOf(n.opType) != OpClass::Elementwise || n.inputs.empty() || n.inputs[0] != prev)
            return std::nullopt;
        for (std::size_t k = 1; k < n.inputs.size(); ++k)
            if (n.inputs[k] != kInvalidId && !g.tensor(n.inputs[k]).isConstant())
                return std::nullopt;
        info.activation += (info.activation.empty() ? "" : ",") + n.opType;
        prev = n.outputs.empty() ? kInvalidId : n.outputs[0];
    }
    return info;
}

bool iosMergeable(const IosConvInfo &a, const IosConvInfo &b)
{
    return a.groups == 1 && b.groups == 1 && a.input == b.input && a.strideH == b.strideH && a.strideW == b.strideW &&
           a.activation == b.activation && a.inH == b.inH && a.inW == b.inW && a.outH == b.outH && a.outW == b.outW &&
           a.dtype == b.dtype && a.batch == b.batch;
}

// ---- schedules ----------------------------------------------------------------

std::string_view iosStrategyName(IosStrategy s)
{
    return s == IosStrategy::Merge ? "merge" : "concurrent";
}

Status checkIosSchedule(const Graph &g, const IosUnitSet &units, const IosSchedule &schedule)
{
    struct Place {
        std::int32_t stage = -1, group = -1, index = -1;
    };
    std::vector<Place> place(units.units.size());
    auto name = [&](std::int32_t u) { return "'" + units.units[static_cast<std::size_t>(u)].name + "'"; };
    for (std::size_t s = 0; s < schedule.stages.size(); ++s) {
        const IosStage &stage = schedule.stages[s];
        const std::string where = "stage " + std::to_string(s);
        if (stage.groups.empty())
            return Status::invalid(where + " is empty");
        if (stage.strategy == IosStrategy::Merge && stage.groups.size() != 1)
            return Status::invalid(where + " merges " + std::to_string(stage.groups.size()) +
                                   " groups; a merge stage is one group of convolutions");
        for (std::size_t gi = 0; gi < stage.groups.size(); ++gi) {
            if (stage.groups[gi].empty())
                return Status::invalid(where + " has an empty group");
            for (std::size_t i = 0; i < stage.groups[gi].size(); ++i) {
                const std::int32_t u = stage.groups[gi][i];
                if (u < 0 || static_cast<std::size_t>(u) >= units.units.size())
                    return Status::invalid(where + " names unit id " + std::to_string(u) + ", which does not exist");
                Place &p = place[static_cast<std::size_t>(u)];
                if (p.stage >= 0)
                    return Status::invalid("unit " + name(u) + " is scheduled twice (stages " +
                                               std::to_string(p.stage) + " and " + std::to_string(s) + ")",
                                           Location{.node = units.units[static_cast<std::size_t>(u)].name});
                p = {static_cast<std::int32_t>(s), static_cast<std::int32_t>(gi), static_cast<std::int32_t>(i)};
            }
        }
    }
    for (std::size_t u = 0; u < units.units.size(); ++u)
        if (place[u].stage < 0)
            return Status::invalid("unit '" + units.units[u].name + "' is not in the schedule",
                                   Location{.node = units.units[u].name});

    for (std::size_t u = 0; u < units.units.size(); ++u) {
        const Place &p = place[u];
        const IosStage &stage = schedule.stages[static_cast<std::size_t>(p.stage)];
        for (std::int32_t pred : units.predecessors[u]) {
            const Place &q = place[static_cast<std::size_t>(pred)];
            if (q.stage < p.stage)
                continue;
            const std::string where = "stage " + std::to_string(p.stage) + ": ";
            const Location loc{.node = units.units[u].name};
            if (q.stage > p.stage)
                return Status::invalid(where + "unit '" + units.units[u].name + "' runs before " + name(pred) +
                                           " (stage " + std::to_string(q.stage) + "), which it reads",
                                       loc);
            if (stage.strategy == IosStrategy::Merge)
                return Status::invalid(
                    where + "merged unit '" + units.units[u].name + "' reads " + name(pred) + ", merged with it", loc);
            if (q.group != p.group)
                return Status::invalid(where + "unit '" + units.units[u].name + "' reads " + name(pred) +
                                           ", which runs concurrently in another group",
                                       loc);
            if (q.index > p.index)
                return Status::invalid(where + "unit '" + units.units[u].name + "' runs before " + name(pred) +
                                           " in its group, but reads it",
                                       loc);
        }
    }

    for (std::size_t s = 0; s < schedule.stages.size(); ++s) {
        const IosStage &stage = schedule.stages[s];
        if (stage.strategy != IosStrategy::Merge || stage.groups[0].size() < 2)
            continue;
        const auto &merged = stage.groups[0];
        std::optional<IosConvInfo> first;
        for (std::int32_t u : merged) {
            auto info = iosConvUnit(g, units.units[static_cast<std::size_t>(u)]);
            if (!info)
                return Status::invalid("stage " + std::to_string(s) + ": cannot merge " + name(u) +
                                           ": it is not a plain convolution",
                                       Location{.node = units.units[static_cast<std::size_t>(u)].name});
            if (!first)
                first = info;
            else if (!iosMergeable(*first, *info))
                return Status::invalid("stage " + std::to_string(s) + ": cannot merge " + name(merged[0]) + " and " +
                                           name(u) + ": they differ in input, stride, activation, groups or size",
                                       Location{.node = units.units[static_cast<std::size_t>(u)].name});
        }
    }
    return {};
}

namespace {

// A stage that carries the scheduler's latency estimate gets its tasks' times
// scaled so that the stage spans exactly that estimate in the plan's
// timeline: the cost model sets the proportions of the tasks, the stage
// latency model (which knows about concurrent streams sharing SMs, occupancy
// and the per-stage synchronisation) sets the stage's length. So the plan, the
// stage view and the DP agree on every stage's latency.
void scaleToStageLatencies(ExecutionPlan &plan, const IosSchedule &schedule)
{
    std::map<std::int32_t, std::map<std::int32_t, double>> streamNs; // stage -> stream -> Σ time
    std::map<std::int32_t, double> barrierNs;                        // the stage's synchronisation
    for (const Task &t : plan.tasks) {
        if (t.kind == TaskKind::Compute && t.stage >= 0)
            streamNs[t.stage][t.binding.stream] += t.cost.timeNs;
        else if (t.kind == TaskKind::Barrier && t.stage >= 0)
            barrierNs[t.stage] += t.cost.timeNs;
    }
    std::map<std::int32_t, double> factor;
    for (const auto &[stage, streams] : streamNs) {
        const double target = schedule.stages[static_cast<std::size_t>(stage)].latencyNs - barrierNs[stage];
        double span = 0;
        for (const auto &[stream, ns] : streams)
            span = std::max(span, ns);
        if (std::isfinite(target) && target > 0 && span > 0)
            factor[stage] = target / span;
    }
    for (Task &t : plan.tasks) {
        const auto f = factor.find(t.stage);
        if (t.kind != TaskKind::Compute || f == factor.end())
            continue;
        t.cost.timeNs *= f->second;
        t.cost.computeNs *= f->second;
    }
}

} // namespace

Expected<ExecutionPlan> lowerIosSchedule(const Graph &g, const IosUnitSet &units, const IosSchedule &schedule,
                                         const CostModel &cost)
{
    TS_TRY(checkIosSchedule(g, units, schedule));
    PlanBuilder builder(g, cost);
    for (std::size_t s = 0; s < schedule.stages.size(); ++s) {
        const IosStage &stage = schedule.stages[s];
        const auto stageIndex = static_cast<std::int32_t>(s);
        if (stage.strategy == IosStrategy::Merge && stage.groups[0].size() > 1) {
            std::string name = "merge:";
            std::vector<NodeId> nodes;
            for (std::int32_t u : stage.groups[0]) {
                const IosUnit &unit = units.units[static_cast<std::size_t>(u)];
                name += (nodes.empty() ? "" : "+") + unit.name;
                nodes.insert(nodes.end(), unit.nodes.begin(), unit.nodes.end());
            }
            Binding b;
            b.stream = 0;
            builder.addKernel(std::move(name), std::move(nodes), {}, b, stageIndex, "merge");
        } else {
            for (std::size_t gi = 0; gi < stage.groups.size(); ++gi)
                for (std::int32_t u : stage.groups[gi]) {
                    const IosUnit &unit = units.units[static_cast<std::size_t>(u)];
                    Binding b;
                    b.stream = static_cast<std::int32_t>(gi);
                    builder.addKernel(unit.name, unit.nodes, {}, b, stageIndex, "concurrent");
                }
        }
        builder.addBarrier(stageIndex);
    }
    ExecutionPlan plan = builder.finish();
    scaleToStageLatencies(plan, schedule);
    return plan;
}

Expected<IosSchedule> iosScheduleFromPlan(const ExecutionPlan &plan, const Graph &g, const IosUnitSet &units)
{
    IosSchedule out;
    struct Seen {
        std::int32_t stage = -1, group = -1;
    };
    std::vector<Seen> seen(units.units.size());
    std::map<std::int32_t, std::int32_t> groupOfStream; // of the open stage
    bool open = false;
    std::int32_t lastStageTag = -1;
    auto close = [&] {
        open = false;
        groupOfStream.clear();
    };
    for (const Task &t : plan.tasks) {
        if (t.kind == TaskKind::Barrier) {
            close();
            continue;
        }
        if (t.kind != TaskKind::Compute)
            continue;
        if (open && t.stage >= 0 && t.stage != lastStageTag)
            close();
        lastStageTag = t.stage;
        const Kernel &k = plan.kernels[static_cast<std::size_t>(t.kernel)];
        const bool merge = k.strategy == "merge";
        if (!open || merge || out.stages.back().strategy == IosStrategy::Merge) {
            if (open && (merge || out.stages.back().strategy == IosStrategy::Merge))
                close();
            out.stages.push_back({merge ? IosStrategy::Merge : IosStrategy::Concurrent, {}, -1, std::nan("")});
            open = true;
        }
        IosStage &stage = out.stages.back();
        const auto stageIndex = static_cast<std::int32_t>(out.stages.size() - 1);
        const std::int32_t stream = merge ? 0 : std::max(t.binding.stream, 0);
        auto [it, added] = groupOfStream.emplace(stream, static_cast<std::int32_t>(stage.groups.size()));
        if (added)
            stage.groups.emplace_back();
        std::vector<std::int32_t> &group = stage.groups[static_cast<std::size_t>(it->second)];
        for (NodeId n : k.nodes) {
            const std::int32_t u = units.unitOfNode[static_cast<std::size_t>(n)];
            Seen &s = seen[static_cast<std::size_t>(u)];
            if (s.stage < 0) {
                s = {stageIndex, it->second};
                group.push_back(u);
                continue;
            }
            if (s.stage != stageIndex || s.group != it->second || group.back() != u)
                return Status::invalid("unit '" + units.units[static_cast<std::size_t>(u)].name +
                                           "' is split over stages or groups of the plan",
                                       Location{.node = g.node(n).name});
        }
    }
    for (IosStage &stage : out.stages)
        if (!stage.groups.empty() && !stage.groups[0].empty())
            stage.block = units.blockOfUnit[static_cast<std::size_t>(stage.groups[0][0])];
    TS_TRY(checkIosSchedule(g, units, out));
    return out;
}

// ---- the artifact's JSON ------------------------------------------------------

Expected<IosSchedule> parseIosSchedule(std::string_view json, const Graph &g, const IosUnitSet &units,
                                       std::string_view sourceName)
{
    const std::string file(sourceName);
    auto doc = parseJson(json, sourceName, "ios schedule");
    if (!doc)
        return doc.status();
    const QJsonArray blocks = doc->object().value(QLatin1String("blocks")).toArray();
    if (!doc->isObject() || blocks.isEmpty())
        return Status::invalid("an ios schedule is an object with \"blocks\"", Location{.file = file});

    IosSchedule out;
    for (qsizetype b = 0; b < blocks.size(); ++b) {
        const QJsonObject block = blocks[b].toObject();
        const std::string where = "block " + std::to_string(b);
        // Node name -> the units it stands for.
        std::map<std::string, std::vector<std::int32_t>> nodes;
        QJsonArray list = block.value(QLatin1String("inner_nodes")).toArray();
        list.append(block.value(QLatin1String("exit_node")));
        for (const QJsonValue v : list) {
            const QJsonObject node = v.toObject();
            const std::string name = str(node.value(QLatin1String("name")));
            std::vector<std::int32_t> originals;
            const QStringList hints = node.value(QLatin1String("hint_name")).toString().split(' ', Qt::SkipEmptyParts);
            if (hints.size() > 1)
                for (const QString &h : hints)
                    if (const std::int32_t u = units.findUnit(h.toStdString()); u >= 0)
                        originals.push_back(u);
            if (originals.size() != static_cast<std::size_t>(hints.size()) || hints.size() < 2) {
                originals.clear();
                if (const std::int32_t u = units.findUnit(name); u >= 0)
                    originals.push_back(u);
            }
            if (originals.empty())
                return Status::invalid(where + ": node '" + name + "' names no operator of the model",
                                       Location{.file = file, .node = name});
            nodes[name] = std::move(originals);
        }
        const QJsonValue stages = block.value(QLatin1String("stages"));
        if (!stages.isArray())
            return Status::invalid(where + " has no \"stages\": not a schedule (an unscheduled ios graph config?)",
                                   Location{.file = file});
        for (const QJsonValue s : stages.toArray()) {
            IosStage stage;
            stage.block = static_cast<std::int32_t>(b);
            const std::string at = where + " stage " + std::to_string(out.stages.size());
            for (const QJsonValue grp : s.toArray()) {
                auto &group = stage.groups.emplace_back();
                for (const QJsonValue n : grp.toArray()) {
                    const std::string name = str(n);
                    auto it = nodes.find(name);
                    if (it == nodes.end())
                        return Status::invalid(at + " names '" + name + "', which is not a node of its block",
                                               Location{.file = file, .node = name});
                    if (it->second.size() > 1) {
                        if (s.toArray().size() != 1 || grp.toArray().size() != 1)
                            return Status::invalid(at + ": merged node '" + name + "' must be alone in its stage",
                                                   Location{.file = file, .node = name});
                        stage.strategy = IosStrategy::Merge;
                    }
                    group.insert(group.end(), it->second.begin(), it->second.end());
                }
            }
            out.stages.push_back(std::move(stage));
        }
    }
    if (Status s = checkIosSchedule(g, units, out); !s.isOk())
        return s.at(Location{.file = file});
    return out;
}

namespace {

// Rewrites every input value ["x", b, e] of a node (and of a Sequential's
// nodes) through `moved`: x -> (merged node, channel offset).
void rewriteInputs(QJsonObject &node, const std::map<QString, std::pair<QString, qint64>> &moved)
{
    if (node.contains(QLatin1String("inputs"))) {
        QJsonArray terms = node.value(QLatin1String("inputs")).toArray();
        for (qsizetype t = 0; t < terms.size(); ++t) {
            QJsonArray values = terms[t].toArray();
            for (qsizetype v = 0; v < values.size(); ++v) {
                QJsonArray ref = values[v].toArray();
                if (auto it = moved.find(ref[0].toString()); it != moved.end() && ref.size() == 3)
                    values[v] = QJsonArray{it->second.first, it->second.second + ref[1].toInteger(),
                                           it->second.second + ref[2].toInteger()};
            }
            terms[t] = values;
        }
        node.insert(QLatin1String("inputs"), terms);
    }
    if (node.contains(QLatin1String("nodes"))) {
        QJsonArray inner = node.value(QLatin1String("nodes")).toArray();
        for (qsizetype i = 0; i < inner.size(); ++i) {
            QJsonObject o = inner[i].toObject();
            rewriteInputs(o, moved);
            inner[i] = o;
        }
        node.insert(QLatin1String("nodes"), inner);
    }
}

QJsonArray maxPair(const QJsonArray &a, const QJsonArray &b)
{
    return {std::max(a[0].toInteger(), b[0].toInteger()), std::max(a[1].toInteger(), b[1].toInteger())};
}

} // namespace

Expected<std::string> writeIosSchedule(const IosSchedule &schedule, const IosUnitSet &units,
                                       std::string_view configJson, std::string_view scheduleName)
{
    auto doc = parseJson(configJson, "ios config", "ios config");
    if (!doc)
        return doc.status();
    const QJsonObject root = doc->object();
    const QJsonArray blocks = root.value(QLatin1String("blocks")).toArray();
    if (static_cast<std::size_t>(blocks.size()) != units.blocks.size())
        return Status::invalid("the ios config has " + std::to_string(blocks.size()) + " blocks, the model " +
                               std::to_string(units.blocks.size()));
    // Config nodes by unit, checked against the model's units.
    std::vector<QJsonObject> config(units.units.size());
    for (qsizetype b = 0; b < blocks.size(); ++b) {
        QJsonArray list = blocks[b].toObject().value(QLatin1String("inner_nodes")).toArray();
        list.append(blocks[b].toObject().value(QLatin1String("exit_node")));
        for (const QJsonValue v : list) {
            const std::string name = str(v.toObject().value(QLatin1String("name")));
            const std::int32_t u = units.findUnit(name);
            if (u < 0 || units.blockOfUnit[static_cast<std::size_t>(u)] != b)
                return Status::invalid("ios config node '" + name + "' (block " + std::to_string(b) +
                                           ") is not a unit of that block of the model",
                                       Location{.node = name});
            config[static_cast<std::size_t>(u)] = v.toObject();
        }
    }
    for (std::size_t u = 0; u < units.units.size(); ++u)
        if (config[u].isEmpty())
            return unitError(units.units[u].name, "is not in the ios config");

    std::vector<int> scheduled(units.units.size(), 0);
    for (const IosStage &stage : schedule.stages)
        for (const auto &group : stage.groups)
            for (std::int32_t u : group) {
                if (u < 0 || static_cast<std::size_t>(u) >= units.units.size())
                    return Status::invalid("the schedule names unit id " + std::to_string(u) +
                                           ", which does not exist");
                ++scheduled[static_cast<std::size_t>(u)];
            }
    for (std::size_t u = 0; u < units.units.size(); ++u)
        if (scheduled[u] != 1)
            return unitError(units.units[u].name, scheduled[u] ? "is scheduled twice" : "is not in the schedule");

    std::vector<std::vector<const IosStage *>> stagesOfBlock(units.blocks.size());
    for (std::size_t s = 0; s < schedule.stages.size(); ++s) {
        const IosStage &stage = schedule.stages[s];
        std::int32_t block = -1;
        for (const auto &group : stage.groups)
            for (std::int32_t u : group) {
                const std::int32_t b = units.blockOfUnit[static_cast<std::size_t>(u)];
                if (block >= 0 && b != block)
                    return Status::invalid("stage " + std::to_string(s) + " mixes blocks " + std::to_string(block) +
                                           " and " + std::to_string(b) + "; ios schedules stay within a block");
                block = b;
            }
        if (block >= 0)
            stagesOfBlock[static_cast<std::size_t>(block)].push_back(&stage);
    }

    std::map<QString, std::pair<QString, qint64>> moved; // merged unit -> (merged node, channel offset)
    QJsonArray outBlocks;
    QJsonObject enterNode = blocks[0].toObject().value(QLatin1String("enter_node")).toObject();
    for (qsizetype b = 0; b < blocks.size(); ++b) {
        const QJsonObject block = blocks[b].toObject();
        const QString exitName =
            block.value(QLatin1String("exit_node")).toObject().value(QLatin1String("name")).toString();
        QJsonArray inner, stages;
        QJsonObject exitNode;
        auto place = [&](QJsonObject node) {
            if (node.value(QLatin1String("name")).toString() == exitName)
                exitNode = node;
            else
                inner.append(node);
        };
        for (const IosStage *stage : stagesOfBlock[static_cast<std::size_t>(b)]) {
            QJsonArray groups;
            if (stage->strategy == IosStrategy::Merge && stage->groups[0].size() > 1) {
                QJsonObject merged = config[static_cast<std::size_t>(stage->groups[0][0])];
                rewriteInputs(merged, moved);
                QStringList hints;
                qint64 channels = 0;
                for (std::int32_t u : stage->groups[0]) {
                    const QJsonObject &c = config[static_cast<std::size_t>(u)];
                    if (c.value(QLatin1String("type")).toString() != QLatin1String("conv"))
                        return unitError(units.units[static_cast<std::size_t>(u)].name,
                                         "is merged but its ios config node is not a conv");
                    merged.insert(QLatin1String("kernel"), maxPair(merged.value(QLatin1String("kernel")).toArray(),
                                                                   c.value(QLatin1String("kernel")).toArray()));
                    merged.insert(QLatin1String("padding"), maxPair(merged.value(QLatin1String("padding")).toArray(),
                                                                    c.value(QLatin1String("padding")).toArray()));
                    const qint64 oc = c.value(QLatin1String("out_channels")).toInteger();
                    moved[c.value(QLatin1String("name")).toString()] = {merged.value(QLatin1String("name")).toString(),
                                                                        channels};
                    channels += oc;
                    hints.append(qs(units.units[static_cast<std::size_t>(u)].name));
                }
                merged.insert(QLatin1String("hint_name"), hints.join(' '));
                merged.insert(QLatin1String("out_channels"), channels);
                QJsonArray shape = merged.value(QLatin1String("output_shape")).toArray();
                if (shape.size() == 3)
                    shape[0] = channels;
                merged.insert(QLatin1String("output_shape"), shape);
                groups.append(QJsonArray{merged.value(QLatin1String("name"))});
                place(merged);
            } else {
                for (const auto &group : stage->groups) {
                    QJsonArray names;
                    for (std::int32_t u : group) {
                        QJsonObject node = config[static_cast<std::size_t>(u)];
                        rewriteInputs(node, moved);
                        names.append(node.value(QLatin1String("name")));
                        place(node);
                    }
                    groups.append(names);
                }
            }
            stages.append(groups);
        }
        QJsonObject out{{"enter_name", block.value(QLatin1String("enter_name"))},
                        {"enter_node", enterNode},
                        {"inner_nodes", inner},
                        {"exit_node", exitNode},
                        {"stages", stages}};
        outBlocks.append(out);
        enterNode = exitNode;
    }
    QJsonObject result{
        {"name", qs(scheduleName)}, {"input", root.value(QLatin1String("input"))}, {"blocks", outBlocks}};
    return QJsonDocument(result).toJson(QJsonDocument::Indented).toStdString();
}

} // namespace tessera
