#include "core/io/schedulejson.h"

#include "core/ir/graphhash.h"
#include "core/ir/precision.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <algorithm>
#include <cmath>
#include <map>

namespace tessera {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}
QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// --- writing -----------------------------------------------------------------

QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

QJsonArray regionJson(const ops::Region &r)
{
    QJsonArray out;
    for (const ops::Interval &i : r)
        out.append(QJsonArray{static_cast<qint64>(i.begin), static_cast<qint64>(i.end)});
    return out;
}

QJsonObject costJson(const TaskCost &c)
{
    QJsonObject bytes;
    for (const auto &[level, n] : c.bytesByLevel)
        bytes[qs(level)] = static_cast<qint64>(n);
    return {{"time_ns", c.timeNs},
            {"compute_ns", c.computeNs},
            {"memory_ns", c.memoryNs},
            {"launch_ns", c.launchNs},
            {"contention_ns", c.contentionNs},
            {"sync_ns", c.syncNs},
            {"kind", qs(std::string(costKindName(c.kind)))},
            {"energy_j", c.energyJ},
            {"bytes", bytes}};
}

QJsonObject planJson(const ExecutionPlan &p, const Graph &g)
{
    auto nodeName = [&](NodeId n) { return qs(g.node(n).name); };
    QJsonArray kernels;
    for (const Kernel &k : p.kernels) {
        QJsonArray nodes;
        for (NodeId n : k.nodes)
            nodes.append(nodeName(n));
        QJsonObject kj{{"id", k.id}, {"name", qs(k.name)}, {"nodes", nodes}, {"strategy", qs(k.strategy)}};
        if (!k.assigned.empty()) {
            QJsonArray assigned;
            for (const NodeAssignment &a : k.assigned)
                assigned.append(QJsonObject{{"node", nodeName(a.node)}, {"from", nodeName(a.from)}});
            kj["assigned"] = assigned;
        }
        kernels.append(kj);
    }
    QJsonArray tasks;
    for (const Task &t : p.tasks) {
        QJsonArray deps, reads, writes, tiles;
        for (TaskId d : t.deps)
            deps.append(d);
        for (BufferId b : t.reads)
            reads.append(b);
        for (BufferId b : t.writes)
            writes.append(b);
        for (const NodeTile &tile : t.tiles)
            tiles.append(QJsonObject{
                {"node", nodeName(tile.node)}, {"output", tile.output}, {"region", regionJson(tile.region)}});
        const Binding &b = t.binding;
        tasks.append(QJsonObject{
            {"id", t.id},
            {"kind", qs(taskKindName(t.kind))},
            {"kernel", t.kernel},
            {"tiles", tiles},
            {"deps", deps},
            {"binding", QJsonObject{{"cluster", b.cluster},
                                    {"core", b.core},
                                    {"core_count", b.coreCount},
                                    {"unit", b.unit},
                                    {"stream", b.stream}}},
            {"stage", t.stage},
            {"reads", reads},
            {"writes", writes},
            {"recompute", t.recompute},
            {"label", qs(t.label)},
            {"cost", costJson(t.cost)},
        });
    }
    QJsonArray buffers;
    for (const Buffer &b : p.buffers)
        buffers.append(
            QJsonObject{{"id", b.id},
                        {"tensor", b.tensor == kInvalidId ? QJsonValue() : QJsonValue(qs(g.tensor(b.tensor).name))},
                        {"level", qs(b.level)},
                        {"scope", b.scopeIndex},
                        {"region", regionJson(b.region)},
                        {"bytes", static_cast<qint64>(b.bytes)},
                        {"offset", static_cast<qint64>(b.offset)}});
    return {{"graph", qs(p.graphName)},
            {"algorithm", qs(p.algorithm)},
            {"device", qs(p.device)},
            {"model_hash", qs(p.modelHash)},
            {"precision", qs(std::string(precisionName(p.precision)))},
            {"kernels", kernels},
            {"tasks", tasks},
            {"buffers", buffers},
            {"est_latency_ns", p.estimatedLatencyNs()},
            {"est_energy_j", p.totalCost().energyJ}};
}

// --- reading -----------------------------------------------------------------

// Reads a JSON tree with a path for every error ("plan.tasks[3].deps[0]").
class Reader
{
public:
    Reader(std::string source) : m_source(std::move(source)) {}

    Status error(const std::string &path, const std::string &what) const
    {
        return Status::invalid(path + ": " + what, {.file = m_source});
    }

    Expected<QJsonObject> object(const QJsonObject &o, const char *key, const std::string &path) const
    {
        if (!o.contains(key) || !o[key].isObject())
            return error(path + key, o.contains(key) ? "expected an object" : "missing");
        return o[key].toObject();
    }
    Expected<QJsonArray> array(const QJsonObject &o, const char *key, const std::string &path) const
    {
        if (!o.contains(key) || !o[key].isArray())
            return error(path + key, o.contains(key) ? "expected an array" : "missing");
        return o[key].toArray();
    }
    Expected<std::string> string(const QJsonObject &o, const char *key, const std::string &path,
                                 bool optional = false) const
    {
        if (!o.contains(key) && optional)
            return std::string();
        if (!o[key].isString())
            return error(path + key, o.contains(key) ? "expected a string" : "missing");
        return o[key].toString().toStdString();
    }
    Expected<std::int64_t> integer(const QJsonValue &v, const std::string &path, std::int64_t min,
                                   std::int64_t max) const
    {
        if (!v.isDouble())
            return error(path, v.isUndefined() ? "missing" : "expected an integer");
        const double d = v.toDouble();
        if (d != std::floor(d) || d < static_cast<double>(min) || d > static_cast<double>(max))
            return error(path, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
        return static_cast<std::int64_t>(d);
    }
    Expected<double> real(const QJsonValue &v, const std::string &path) const
    {
        if (v.isNull())
            return std::nan("");
        if (!v.isDouble())
            return error(path, v.isUndefined() ? "missing" : "expected a number");
        return v.toDouble();
    }

private:
    std::string m_source;
};

#define TS_READ(var, expr)                                                                                             \
    auto var##_ = (expr);                                                                                              \
    if (!var##_)                                                                                                       \
        return var##_.status();                                                                                        \
    auto var = std::move(*var##_)

Expected<ops::Region> readRegion(const Reader &r, const QJsonValue &v, const std::string &path)
{
    if (!v.isArray())
        return r.error(path, "expected an array of [begin, end] pairs");
    ops::Region out;
    const QJsonArray a = v.toArray();
    for (qsizetype i = 0; i < a.size(); ++i) {
        const std::string p = path + "[" + std::to_string(i) + "]";
        const QJsonArray pair = a[i].toArray();
        if (!a[i].isArray() || pair.size() != 2)
            return r.error(p, "expected [begin, end]");
        TS_READ(b, r.integer(pair[0], p + "[0]", INT64_MIN / 2, INT64_MAX / 2));
        TS_READ(e, r.integer(pair[1], p + "[1]", INT64_MIN / 2, INT64_MAX / 2));
        out.push_back({b, e});
    }
    return out;
}

Expected<std::vector<std::int32_t>> readIds(const Reader &r, const QJsonValue &v, const std::string &path,
                                            std::int64_t max)
{
    if (!v.isArray())
        return r.error(path, "expected an array");
    std::vector<std::int32_t> out;
    const QJsonArray a = v.toArray();
    for (qsizetype i = 0; i < a.size(); ++i) {
        TS_READ(id, r.integer(a[i], path + "[" + std::to_string(i) + "]", 0, max));
        out.push_back(static_cast<std::int32_t>(id));
    }
    return out;
}

Expected<NodeId> resolveNode(const Reader &r, const Graph &g, const QJsonValue &v, const std::string &path)
{
    if (!v.isString())
        return r.error(path, "expected a node name");
    const NodeId n = g.findNode(v.toString().toStdString());
    if (n == kInvalidId)
        return r.error(path,
                       "unknown node '" + v.toString().toStdString() + "' (the schedule was made for another model?)");
    return n;
}

Expected<ExecutionPlan> readPlan(const Reader &r, const QJsonObject &o, const Graph &g)
{
    ExecutionPlan p;
    TS_READ(graphName, r.string(o, "graph", "plan.", true));
    TS_READ(algorithm, r.string(o, "algorithm", "plan.", true));
    TS_READ(device, r.string(o, "device", "plan.", true));
    TS_READ(hash, r.string(o, "model_hash", "plan.", true));
    p.graphName = graphName;
    p.algorithm = algorithm;
    p.device = device;
    p.modelHash = hash;
    TS_READ(precision, r.string(o, "precision", "plan.", true)); // absent before: fp32
    if (!precision.empty()) {
        const auto t = precisionFromName(precision);
        if (!t)
            return r.error("plan.precision", "unknown precision '" + precision + "' (expected one of " +
                                                 std::string(precisionNames()) + ")");
        p.precision = *t;
    }

    TS_READ(kernels, r.array(o, "kernels", "plan."));
    for (qsizetype i = 0; i < kernels.size(); ++i) {
        const std::string path = "plan.kernels[" + std::to_string(i) + "].";
        const QJsonObject k = kernels[i].toObject();
        TS_READ(name, r.string(k, "name", path));
        TS_READ(strategy, r.string(k, "strategy", path, true));
        TS_READ(nodes, r.array(k, "nodes", path));
        std::vector<NodeId> ids;
        for (qsizetype j = 0; j < nodes.size(); ++j) {
            TS_READ(n, resolveNode(r, g, nodes[j], path + "nodes[" + std::to_string(j) + "]"));
            ids.push_back(n);
        }
        const KernelId kid = p.addKernel(name, std::move(ids), strategy);
        if (k.contains("assigned")) {
            TS_READ(assigned, r.array(k, "assigned", path));
            for (qsizetype j = 0; j < assigned.size(); ++j) {
                const std::string ap = path + "assigned[" + std::to_string(j) + "].";
                const QJsonObject a = assigned[j].toObject();
                TS_READ(node, resolveNode(r, g, a["node"], ap + "node"));
                TS_READ(from, resolveNode(r, g, a["from"], ap + "from"));
                p.kernels[static_cast<std::size_t>(kid)].assigned.push_back({node, from});
            }
        }
    }

    TS_READ(buffers, r.array(o, "buffers", "plan."));
    for (qsizetype i = 0; i < buffers.size(); ++i) {
        const std::string path = "plan.buffers[" + std::to_string(i) + "].";
        const QJsonObject b = buffers[i].toObject();
        Buffer buf;
        if (b["tensor"].isString()) {
            buf.tensor = g.findTensor(b["tensor"].toString().toStdString());
            if (buf.tensor == kInvalidId)
                return r.error(path + "tensor", "unknown tensor '" + b["tensor"].toString().toStdString() + "'");
        } else if (!b["tensor"].isNull() && !b["tensor"].isUndefined()) {
            return r.error(path + "tensor", "expected a tensor name or null");
        }
        TS_READ(level, r.string(b, "level", path, true));
        TS_READ(scope, r.integer(b["scope"], path + "scope", -1, INT32_MAX));
        TS_READ(bytes, r.integer(b["bytes"], path + "bytes", 0, INT64_MAX / 2));
        TS_READ(offset,
                r.integer(b.contains("offset") ? b["offset"] : QJsonValue(-1), path + "offset", -1, INT64_MAX / 2));
        TS_READ(region, readRegion(r, b.contains("region") ? b["region"] : QJsonValue(QJsonArray()), path + "region"));
        buf.level = level;
        buf.scopeIndex = static_cast<std::int32_t>(scope);
        buf.bytes = bytes;
        buf.offset = offset;
        buf.region = std::move(region);
        p.addBuffer(std::move(buf));
    }

    TS_READ(tasks, r.array(o, "tasks", "plan."));
    const auto nbuf = static_cast<std::int64_t>(p.buffers.size()) - 1;
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        const std::string path = "plan.tasks[" + std::to_string(i) + "].";
        const QJsonObject t = tasks[i].toObject();
        Task task;
        TS_READ(kind, r.string(t, "kind", path));
        bool known = false;
        for (TaskKind k : {TaskKind::Compute, TaskKind::Copy, TaskKind::Concat, TaskKind::Split, TaskKind::Redistribute,
                           TaskKind::Barrier})
            if (taskKindName(k) == kind) {
                task.kind = k;
                known = true;
            }
        if (!known)
            return r.error(path + "kind", "unknown task kind '" + kind +
                                              "'; valid: compute, copy, concat, split, "
                                              "redistribute, barrier");
        TS_READ(kernel, r.integer(t["kernel"], path + "kernel", -1, static_cast<std::int64_t>(p.kernels.size()) - 1));
        task.kernel = static_cast<KernelId>(kernel);
        if (task.kind == TaskKind::Compute && task.kernel < 0)
            return r.error(path + "kernel", "a compute task needs a kernel");
        TS_READ(deps, readIds(r, t["deps"], path + "deps", i - 1));
        TS_READ(reads, readIds(r, t.contains("reads") ? t["reads"] : QJsonValue(QJsonArray()), path + "reads", nbuf));
        TS_READ(writes,
                readIds(r, t.contains("writes") ? t["writes"] : QJsonValue(QJsonArray()), path + "writes", nbuf));
        task.deps = std::move(deps);
        task.reads = std::move(reads);
        task.writes = std::move(writes);
        if (t.contains("tiles")) {
            if (!t["tiles"].isArray())
                return r.error(path + "tiles", "expected an array");
            const QJsonArray tiles = t["tiles"].toArray();
            for (qsizetype j = 0; j < tiles.size(); ++j) {
                const std::string tp = path + "tiles[" + std::to_string(j) + "].";
                const QJsonObject tile = tiles[j].toObject();
                TS_READ(node, resolveNode(r, g, tile["node"], tp + "node"));
                TS_READ(output,
                        r.integer(tile.contains("output") ? tile["output"] : QJsonValue(0), tp + "output", 0, 64));
                TS_READ(region, readRegion(r, tile["region"], tp + "region"));
                task.tiles.push_back({node, static_cast<std::int32_t>(output), std::move(region)});
            }
        }
        const QJsonObject b = t["binding"].toObject();
        auto field = [&](const char *key, std::int32_t def) -> Expected<std::int32_t> {
            if (!b.contains(key))
                return def;
            auto v = r.integer(b[key], path + "binding." + key, -1, 1 << 20);
            if (!v)
                return v.status();
            return static_cast<std::int32_t>(*v);
        };
        TS_READ(cluster, field("cluster", -1));
        TS_READ(core, field("core", -1));
        TS_READ(coreCount, field("core_count", 1));
        TS_READ(unit, field("unit", -1));
        TS_READ(stream, field("stream", -1));
        task.binding = {cluster, core, coreCount, unit, stream};
        TS_READ(stage, r.integer(t.contains("stage") ? t["stage"] : QJsonValue(-1), path + "stage", -1, INT32_MAX));
        task.stage = static_cast<std::int32_t>(stage);
        task.recompute = t["recompute"].toBool(false);
        task.label = t["label"].toString().toStdString();
        const QJsonObject c = t["cost"].toObject();
        TS_READ(time, r.real(c.contains("time_ns") ? c["time_ns"] : QJsonValue(0.0), path + "cost.time_ns"));
        TS_READ(compute,
                r.real(c.contains("compute_ns") ? c["compute_ns"] : QJsonValue(0.0), path + "cost.compute_ns"));
        TS_READ(energy, r.real(c.contains("energy_j") ? c["energy_j"] : QJsonValue(0.0), path + "cost.energy_j"));
        auto part = [&](const char *key) { return c.contains(key) ? c[key] : QJsonValue(0.0); };
        TS_READ(memory, r.real(part("memory_ns"), path + "cost.memory_ns"));
        TS_READ(launch, r.real(part("launch_ns"), path + "cost.launch_ns"));
        TS_READ(contention, r.real(part("contention_ns"), path + "cost.contention_ns"));
        TS_READ(sync, r.real(part("sync_ns"), path + "cost.sync_ns"));
        task.cost.timeNs = time;
        task.cost.computeNs = compute;
        task.cost.memoryNs = memory;
        task.cost.launchNs = launch;
        task.cost.contentionNs = contention;
        task.cost.syncNs = sync;
        task.cost.energyJ = energy;
        // Documents written before cost kinds existed hold estimates.
        if (c.contains("kind")) {
            const std::string kind = c["kind"].toString().toStdString();
            const auto k = costKindFromName(kind);
            if (!k)
                return r.error(path + "cost.kind",
                               "unknown cost kind '" + kind + "'; known: estimated, measured, simulated");
            task.cost.kind = *k;
        }
        const QJsonObject bytes = c["bytes"].toObject();
        for (auto it = bytes.begin(); it != bytes.end(); ++it) {
            TS_READ(n, r.integer(it.value(), path + "cost.bytes." + it.key().toStdString(), 0, INT64_MAX / 2));
            task.cost.bytesByLevel[it.key().toStdString()] = n;
        }
        p.addTask(std::move(task));
    }
    return p;
}

Expected<QJsonObject> parseObject(std::string_view json, const std::string &source)
{
    QJsonParseError err;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray(json.data(), static_cast<qsizetype>(json.size())), &err);
    if (err.error != QJsonParseError::NoError)
        return Status::invalid("malformed JSON: " + err.errorString().toStdString(),
                               {.file = source, .offset = err.offset});
    if (!doc.isObject())
        return Status::invalid("expected a JSON object at the top level", {.file = source});
    return doc.object();
}

} // namespace

ScheduleDocument makeScheduleDocument(const ScheduleRun &run, std::string model,
                                      std::map<std::string, std::string> options)
{
    const ExecutionPlan &plan = run.result.plan;
    ScheduleDocument doc;
    doc.model = std::move(model);
    doc.modelHash = plan.modelHash;
    doc.algorithm = plan.algorithm;
    doc.device = plan.device;
    doc.options = std::move(options);
    doc.overrides = run.decisions.overrides();
    doc.overrideReports = run.overrideReports;
    doc.decisions = run.decisions.records();
    doc.trace = run.trace.steps();
    doc.stats = run.result.stats;
    doc.searchMs = run.searchMs;
    doc.plan = plan;
    return doc;
}

std::string scheduleToJson(const ScheduleDocument &doc, const Graph &g)
{
    QJsonObject options, overrides, stats;
    for (const auto &[k, v] : doc.options)
        options[qs(k)] = qs(v);
    for (const auto &[k, v] : doc.overrides)
        overrides[qs(k)] = qs(v);
    for (const auto &[k, v] : doc.stats)
        stats[qs(k)] = number(v);
    QJsonArray reports;
    for (const OverrideReport &r : doc.overrideReports)
        reports.append(QJsonObject{{"key", qs(r.key)},
                                   {"option", qs(r.optionId)},
                                   {"outcome", qs(outcomeName(r.outcome))},
                                   {"reason", qs(r.reason)}});
    QJsonArray decisions;
    for (const DecisionRecord &d : doc.decisions) {
        QJsonArray opts;
        for (const DecisionOption &o : d.options)
            opts.append(QJsonObject{{"id", qs(o.id)},
                                    {"label", qs(o.label)},
                                    {"cost", number(o.cost)},
                                    {"detail", qs(o.detail)},
                                    {"illegal", qs(o.illegalReason)}});
        decisions.append(QJsonObject{{"key", qs(d.key)},
                                     {"role", qs(d.role)},
                                     {"preferred", d.preferred},
                                     {"chosen", d.chosen},
                                     {"overridden", d.overridden},
                                     {"step", d.step},
                                     {"options", opts}});
    }
    QJsonArray trace;
    for (const TraceStep &s : doc.trace) {
        QJsonArray numbers, touched, delta;
        for (const auto &[name, v] : s.numbers)
            numbers.append(QJsonArray{qs(name), number(v)});
        for (NodeId n : s.touched)
            touched.append(qs(g.node(n).name));
        for (const std::string &d : s.delta)
            delta.append(qs(d));
        trace.append(QJsonObject{{"index", s.index},
                                 {"phase", qs(s.phase)},
                                 {"title", qs(s.title)},
                                 {"conclusion", qs(s.conclusion)},
                                 {"why", qs(s.why)},
                                 {"numbers", numbers},
                                 {"touched", touched},
                                 {"delta", delta},
                                 {"decision", s.decision},
                                 {"elapsed_ms", s.elapsedMs}});
    }
    QJsonObject root{{"format", "tessera-schedule"},
                     {"format_version", ScheduleDocument::kFormatVersion},
                     {"model", qs(doc.model)},
                     {"model_hash", qs(doc.modelHash)},
                     {"algorithm", qs(doc.algorithm)},
                     {"device", qs(doc.device)},
                     {"options", options},
                     {"overrides", overrides},
                     {"override_reports", reports},
                     {"stats", stats},
                     {"search_ms", doc.searchMs},
                     {"decisions", decisions},
                     {"trace", trace},
                     {"plan", planJson(doc.plan, g)}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString();
}

Expected<ScheduleDocument> scheduleFromJson(std::string_view json, const Graph &g, std::string_view sourceName)
{
    const std::string source(sourceName);
    TS_READ(root, parseObject(json, source));
    const Reader r(source);
    if (root["format"].toString() != "tessera-schedule")
        return r.error("format", "not a Tessera schedule document (expected \"tessera-schedule\")");
    TS_READ(version, r.integer(root["format_version"], "format_version", 1, 1 << 20));
    if (version > ScheduleDocument::kFormatVersion)
        return r.error("format_version", "version " + std::to_string(version) + " is newer than this Tessera reads (" +
                                             std::to_string(ScheduleDocument::kFormatVersion) + ")");
    ScheduleDocument doc;
    TS_READ(model, r.string(root, "model", "", true));
    TS_READ(hash, r.string(root, "model_hash", ""));
    TS_READ(algorithm, r.string(root, "algorithm", ""));
    TS_READ(device, r.string(root, "device", ""));
    doc.model = model;
    doc.modelHash = hash;
    doc.algorithm = algorithm;
    doc.device = device;
    const std::string actual = modelStructureHash(g);
    if (!hash.empty() && hash != actual)
        return r.error("model_hash",
                       "the schedule was made for another model (hash " + hash + ", this model " + actual + ")");
    for (const char *key : {"options", "overrides"}) {
        const QJsonObject o = root[key].toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (!it.value().isString())
                return r.error(std::string(key) + "." + it.key().toStdString(), "expected a string");
            (std::string(key) == "options" ? doc.options : doc.overrides)[it.key().toStdString()] =
                it.value().toString().toStdString();
        }
    }
    const QJsonObject stats = root["stats"].toObject();
    for (auto it = stats.begin(); it != stats.end(); ++it)
        doc.stats[it.key().toStdString()] = it.value().toDouble(std::nan(""));
    doc.searchMs = root["search_ms"].toDouble();

    const QJsonArray decisions = root["decisions"].toArray();
    for (qsizetype i = 0; i < decisions.size(); ++i) {
        const std::string path = "decisions[" + std::to_string(i) + "].";
        const QJsonObject d = decisions[i].toObject();
        DecisionRecord rec;
        TS_READ(key, r.string(d, "key", path));
        TS_READ(role, r.string(d, "role", path, true));
        rec.key = key;
        rec.role = role;
        const QJsonArray opts = d["options"].toArray();
        for (const QJsonValue &ov : opts) {
            const QJsonObject o = ov.toObject();
            rec.options.push_back({o["id"].toString().toStdString(), o["label"].toString().toStdString(),
                                   o["cost"].isDouble() ? o["cost"].toDouble() : std::nan(""),
                                   o["detail"].toString().toStdString(), o["illegal"].toString().toStdString()});
        }
        const auto maxOption = static_cast<std::int64_t>(rec.options.size()) - 1;
        TS_READ(preferred, r.integer(d["preferred"], path + "preferred", 0, std::max<std::int64_t>(0, maxOption)));
        TS_READ(chosen, r.integer(d["chosen"], path + "chosen", 0, std::max<std::int64_t>(0, maxOption)));
        rec.preferred = static_cast<std::int32_t>(preferred);
        rec.chosen = static_cast<std::int32_t>(chosen);
        rec.overridden = d["overridden"].toBool();
        rec.step = d["step"].toInt(-1);
        doc.decisions.push_back(std::move(rec));
    }
    const QJsonArray trace = root["trace"].toArray();
    for (qsizetype i = 0; i < trace.size(); ++i) {
        const QJsonObject s = trace[i].toObject();
        TraceStep step;
        step.index = static_cast<std::int32_t>(i);
        step.phase = s["phase"].toString().toStdString();
        step.title = s["title"].toString().toStdString();
        step.conclusion = s["conclusion"].toString().toStdString();
        step.why = s["why"].toString().toStdString();
        const QJsonArray numbers = s["numbers"].toArray();
        for (qsizetype j = 0; j < numbers.size(); ++j) {
            // [name, value]; a shorter array must not be indexed past its end (fuzz finding).
            const QJsonArray nv = numbers[j].toArray();
            if (nv.size() != 2 || !nv.at(0).isString())
                return r.error("trace[" + std::to_string(i) + "].numbers[" + std::to_string(j) + "]",
                               "expected [name, number]");
            step.numbers.push_back({nv.at(0).toString().toStdString(), nv.at(1).toDouble(std::nan(""))});
        }
        const QJsonArray touched = s["touched"].toArray();
        for (qsizetype j = 0; j < touched.size(); ++j) {
            TS_READ(n, resolveNode(r, g, touched[j],
                                   "trace[" + std::to_string(i) + "].touched[" + std::to_string(j) + "]"));
            step.touched.push_back(n);
        }
        for (const QJsonValue &dv : s["delta"].toArray())
            step.delta.push_back(dv.toString().toStdString());
        step.decision = s["decision"].toInt(-1);
        step.elapsedMs = s["elapsed_ms"].toDouble();
        doc.trace.push_back(std::move(step));
    }
    TS_READ(planObj, r.object(root, "plan", ""));
    TS_READ(plan, readPlan(r, planObj, g));
    doc.plan = std::move(plan);
    return doc;
}

Expected<Overrides> overridesFromJson(std::string_view json, std::string_view sourceName)
{
    const std::string source(sourceName);
    TS_READ(root, parseObject(json, source));
    QJsonObject map = root;
    if (root["format"].toString() == "tessera-schedule")
        map = root["overrides"].toObject();
    Overrides out;
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (!it.value().isString())
            return Status::invalid("override '" + it.key().toStdString() + "': expected an option id string",
                                   {.file = source});
        out[it.key().toStdString()] = it.value().toString().toStdString();
    }
    return out;
}

std::string overridesToJson(const Overrides &overrides)
{
    QJsonObject o;
    for (const auto &[k, v] : overrides)
        o[qs(k)] = qs(v);
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

std::string perfettoTraceJson(const ExecutionPlan &plan, const Graph &g, const RunResult *run)
{
    const std::vector<TaskTiming> timeline = run ? run->timeline : plan.estimatedTimeline();
    QJsonArray events;
    std::map<std::int32_t, bool> lanes;
    for (const TaskTiming &t : timeline) {
        if (t.task < 0 || static_cast<std::size_t>(t.task) >= plan.tasks.size())
            continue;
        const Task &task = plan.tasks[static_cast<std::size_t>(t.task)];
        lanes[t.lane] = true;
        QJsonObject args{{"task", task.id}, {"stage", task.stage}};
        if (task.kernel >= 0) {
            QJsonArray nodes;
            for (NodeId n : plan.kernels[static_cast<std::size_t>(task.kernel)].nodes)
                nodes.append(qs(g.node(n).name));
            args["nodes"] = nodes;
        }
        for (const auto &[level, bytes] : task.cost.bytesByLevel)
            args["bytes_" + qs(level)] = static_cast<qint64>(bytes);
        events.append(QJsonObject{{"name", qs(task.label.empty() ? std::string(taskKindName(task.kind)) : task.label)},
                                  {"cat", qs(taskKindName(task.kind))},
                                  {"ph", "X"},
                                  {"ts", t.startNs / 1000.0},
                                  {"dur", (t.endNs - t.startNs) / 1000.0},
                                  {"pid", 1},
                                  {"tid", t.lane},
                                  {"args", args}});
    }
    events.append(QJsonObject{
        {"name", "process_name"},
        {"ph", "M"},
        {"pid", 1},
        {"args",
         QJsonObject{{"name", qs(plan.algorithm + (run ? (run->counters.empty() ? " (measured)" : " (simulated)")
                                                       : " (estimated)"))}}}});
    for (const auto &[lane, unused] : lanes) {
        const bool named = run && lane >= 0 && static_cast<std::size_t>(lane) < run->laneNames.size();
        events.append(
            QJsonObject{{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", 1},
                        {"tid", lane},
                        {"args", QJsonObject{{"name", named ? qs(run->laneNames[static_cast<std::size_t>(lane)])
                                                            : "lane " + QString::number(lane)}}}});
        events.append(QJsonObject{{"name", "thread_sort_index"},
                                  {"ph", "M"},
                                  {"pid", 1},
                                  {"tid", lane},
                                  {"args", QJsonObject{{"sort_index", lane}}}});
    }
    // Counter tracks (occupancy, utilisation): one "C" event per point.
    if (run)
        for (const CounterSeries &c : run->counters)
            for (const auto &[ns, value] : c.points)
                events.append(
                    QJsonObject{{"name", qs(c.name)},
                                {"ph", "C"},
                                {"ts", ns / 1000.0},
                                {"pid", 1},
                                {"args", QJsonObject{{qs(c.unit.empty() ? std::string("value") : c.unit), value}}}});
    return QJsonDocument(QJsonObject{{"traceEvents", events}, {"displayTimeUnit", "ns"}})
        .toJson(QJsonDocument::Compact)
        .toStdString();
}

Expected<RunResult> runFromPerfettoTraceJson(std::string_view json, std::size_t taskCount, std::string_view sourceName)
{
    const std::string source(sourceName);
    auto root = parseObject(json, source);
    if (!root)
        return root.status();
    if (!(*root)["traceEvents"].isArray())
        return Status::invalid("a trace needs a \"traceEvents\" array", {.file = source});
    const QJsonArray events = (*root)["traceEvents"].toArray();
    RunResult run;
    std::map<std::string, std::size_t> counterIndex;
    for (qsizetype i = 0; i < events.size(); ++i) {
        const std::string at = "traceEvents[" + std::to_string(i) + "]";
        const QJsonObject e = events[i].toObject();
        const QString ph = e["ph"].toString();
        const QJsonObject args = e["args"].toObject();
        if (ph == QLatin1String("X")) {
            const double task = args["task"].toDouble(-1), ts = e["ts"].toDouble(NAN), dur = e["dur"].toDouble(NAN);
            const double lane = e["tid"].toDouble(-1);
            if (task < 0 || task >= static_cast<double>(taskCount) || task != std::floor(task))
                return Status::invalid(at + ": task " + std::to_string(static_cast<long long>(task)) +
                                           " is not one of the plan's " + std::to_string(taskCount),
                                       {.file = source});
            if (!std::isfinite(ts) || !std::isfinite(dur) || dur < 0 || lane < 0 || lane > 1e6 ||
                lane != std::floor(lane))
                return Status::invalid(at + ": expected finite ts, dur >= 0 and a lane", {.file = source});
            run.timeline.push_back(
                {static_cast<TaskId>(task), ts * 1000.0, (ts + dur) * 1000.0, static_cast<std::int32_t>(lane)});
        } else if (ph == QLatin1String("M") && e["name"].toString() == QLatin1String("thread_name")) {
            const double lane = e["tid"].toDouble(-1);
            if (lane < 0 || lane > 1e6 || lane != std::floor(lane))
                return Status::invalid(at + ": a lane name needs a lane number", {.file = source});
            const auto index = static_cast<std::size_t>(lane);
            if (run.laneNames.size() <= index)
                run.laneNames.resize(index + 1);
            run.laneNames[index] = args["name"].toString().toStdString();
        } else if (ph == QLatin1String("C")) {
            if (args.size() != 1 || !args.begin()->isDouble() || !e["ts"].isDouble())
                return Status::invalid(at + ": a counter point needs a ts and one numeric value", {.file = source});
            const std::string name = e["name"].toString().toStdString();
            auto [it, added] = counterIndex.try_emplace(name, run.counters.size());
            if (added)
                run.counters.push_back({name, args.begin().key().toStdString(), {}});
            run.counters[it->second].points.emplace_back(e["ts"].toDouble() * 1000.0, args.begin()->toDouble());
        }
    }
    // Lanes named by default ("lane 3") were unnamed in the run.
    for (std::size_t lane = 0; lane < run.laneNames.size(); ++lane)
        if (run.laneNames[lane] == "lane " + std::to_string(lane))
            run.laneNames[lane].clear();
    if (std::all_of(run.laneNames.begin(), run.laneNames.end(), [](const std::string &n) { return n.empty(); }))
        run.laneNames.clear();
    return run;
}

} // namespace tessera
