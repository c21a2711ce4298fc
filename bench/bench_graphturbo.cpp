// bench_graphturbo: GraphTurbo's §5.3 variants (llb, l1, split, full) against
// layer-fusion (the paper's TVM baseline) and astitch (its AStitch baseline),
// simulated (backends/sim, timing only) on STCP920, on graphturbo-osdi23
// Table 2's five networks at the table's batch sizes (ResNet-50 b64,
// BERT-base-128 b32, MobileNet-v2 b128, DenseNet-121 b32, ViT-B/16 b32).
//
// Per network and scheduler: tasks, scheduling wall time, simulated time,
// items/s, the speedup over layer-fusion measured in the same run, and the
// Table 3 style scope counts. Next to them the paper's numbers: Fig. 14/15
// give per-model bars only as figures, so the text's means are printed
// (GraphTurbo 11.15× over TVM, 6.16× over AStitch; Fig. 15: l1 3.67× over
// TVM, split 2.20× over l1, full 1.72× over split), and Table 3's counts for
// the models it lists.
// Scope counts (the issue's reading of Table 3: "how many tensors live in
// DDR, LLB, L1"): distinct graph tensors with a buffer at each level, graph
// inputs and scratch space left out; a tensor whose slices live at several
// levels counts at each. For layer-fusion that is every kernel output (in
// DDR).
//
// Usage: bench_graphturbo [--dtype f32|f16] [--size-f32] [--breakdown] [--where] [--tune-batches] [--gt-option K=V]...
// [network...]
//   default dtype f16 (the MME's type; in f32 STCP920 runs convolutions on
//   the VME); every scheduler is handed the graph at that precision
//   (core/ir/precision.h), so its plan's buffers, capacities and traffic are
//   the run's bytes; --size-f32 hands it the f32 graph instead and lets the
//   simulator scale the bytes it moves (sim option dtype: what this bench did
//   before 2026-11-27; buffers and capacities then count f32 bytes);
//   default networks: all five (names as `tessera-cli sample --list`);
//   --gt-option is passed to every GraphTurbo variant (e.g. batches_per_cluster=4,
//   §5.1's allocation; default: the batch spread over the four clusters).
//   --breakdown prints, under each row, where the simulated time went: per
//   task kind the tasks, their summed durations and the simulated time during
//   which at least one of them ran (the union of their intervals), and
//   compute tasks × the device's kernel launch (the host's issue time if
//   every task were its own launch; instances of one kernel share one), the
//   FLOPs the plan computes against the graph's (above 1: recomputation) and
//   the bytes the simulator moved at each level, and the plan's own estimate of
//   its last level's (DDR) bytes per task kind, weight promotions apart.
//   --where prints the plan's DDR bytes and summed simulated time by task
//   shape (compute by output and working-set level; data movement by the
//   levels it reads and writes) and the twelve kernels with the most DDR bytes.
//   --tune-batches adds, under each GraphTurbo variant, its row at the fastest
//   §5.1 allocation (batches per cluster, the rest as in-cluster iterations)
//   found by simulating every one that divides a cluster's share: the paper's
//   Fig. 14/15 numbers are each scheduler at its autotuned allocation (§5.1).
//   layer-fusion has no allocation to tune (its kernels span the batch).
// Re-runnable after a device recalibration: everything comes from the
// stcp920 preset the build ships.
// Links: tessera_app_common tessera_samples onnx_proto (besides tessera_core).
#include "app/registerbuiltins.h"
#include "core/backend/backend.h"
#include "core/hw/deviceregistry.h"
#include "core/ir/precision.h"
#include "core/onnx/importer.h"
#include "core/ops/ops.h"
#include "core/plan/taskwork.h"
#include "core/plan/tiles.h"
#include "core/sched/scheduler.h"
#include "core/sched/session.h"
#include "samples/catalog.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <onnx/onnx_pb.h>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include "bench/benchsample.h"

using namespace tessera;

namespace {

struct Network {
    const char *sample;
    const char *title;
    std::int64_t batch;
    std::int64_t seqLen; // BERT only
    const char *table3;  // graphturbo-osdi23 Table 3: TVM DDR; GraphTurbo DDR/LLB/L1
};

const Network kNetworks[] = {
    {"resnet50", "ResNet-50", 64, 0, "58; 1/11/284"},       {"bert", "BERT-base-128", 32, 128, "242; 1/0/305"},
    {"mobilenetv2", "MobileNet-v2", 128, 0, "56; 0/3/608"}, {"densenet121", "DenseNet-121", 32, 0, "247; 0/3/389"},
    {"vit", "ViT-B/16", 32, 0, "214; 24/60/340"},
};

struct Variant {
    const char *label;
    const char *scheduler;
    std::map<std::string, std::string> options;
    const char *paper; // the paper's mean speedup over TVM, where the text gives one
};

const Variant kVariants[] = {
    {"layer-fusion", "layer-fusion", {}, "1 (TVM)"},
    {"astitch", "astitch", {}, "1.81 (11.15 / 6.16)"},
    {"gt llb", "graphturbo", {{"variant", "llb"}}, "not always > 1"},
    {"gt l1", "graphturbo", {{"variant", "l1"}}, "3.67"},
    {"gt split", "graphturbo", {{"variant", "split"}}, "8.07 (3.67 × 2.20)"},
    {"gt full", "graphturbo", {{"variant", "full"}}, "11.15 (3.67 × 2.20 × 1.72 = 13.9)"},
};

// Distinct tensors per level, in the device's level order.
std::vector<int> scopeCounts(const Graph &g, const ExecutionPlan &p, const Device &d)
{
    std::vector<std::set<TensorId>> seen(d.levels.size());
    for (const Buffer &b : p.buffers) {
        if (b.tensor == kInvalidId || g.tensor(b.tensor).kind == Tensor::Kind::Input)
            continue;
        std::size_t li = 0;
        while (li < d.levels.size() && d.levels[li].name != b.level)
            ++li;
        seen[std::min(li, d.levels.size() - 1)].insert(b.tensor); // "" = the slowest
    }
    std::vector<int> out;
    for (const auto &s : seen)
        out.push_back(static_cast<int>(s.size()));
    return out;
}

// --breakdown: per task kind, tasks, summed durations and the union of their
// intervals (simulated time with at least one of them running).
// FLOPs the plan's compute tasks compute: per task, every kernel node over the region
// taskRegions infers from the task's tiles (recomputed halos and unsplit producers
// included), as a fraction of the node's whole output.
double computedFlops(const Graph &g, const ExecutionPlan &p)
{
    double sum = 0;
    for (const Task &t : p.tasks)
        sum += taskWork(g, p, t).flops;
    return sum;
}

// The simulated FLOPs (tile fractions included) against the graph's own: above 1 the
// plan recomputes.
void printBreakdown(const Graph &g, const ExecutionPlan &p, const RunResult &r, const Device &d,
                    const std::map<std::string, double> &stats)
{
    std::map<std::string, std::vector<std::pair<double, double>>> byKind;
    std::size_t launched = 0;
    for (const TaskTiming &t : r.timeline) {
        const Task &task = p.tasks[static_cast<std::size_t>(t.task)];
        byKind[std::string(taskKindName(task.kind))].push_back({t.startNs, t.endNs});
        launched += task.kind == TaskKind::Compute;
    }
    std::string line;
    for (auto &[kind, spans] : byKind) {
        std::sort(spans.begin(), spans.end());
        double sum = 0, covered = 0, end = -1;
        for (const auto &[a, b] : spans) {
            sum += b - a;
            if (b > end) {
                covered += b - std::max(a, end);
                end = b;
            }
        }
        char buf[160];
        std::snprintf(buf, sizeof buf, " %s %zu (sum %.2f ms, union %.2f ms);", kind.c_str(), spans.size(), sum / 1e6,
                      covered / 1e6);
        line += buf;
    }
    double graphFlops = 0;
    for (std::size_t n = 0; n < g.nodeCount(); ++n)
        graphFlops += ops::opCost(g, g.node(static_cast<NodeId>(n))).flops;
    const auto flops = r.metrics.find("flops");
    const double simFlops = flops == r.metrics.end() ? 0.0 : flops->second;
    const double planFlops = computedFlops(g, p);
    std::string traffic;
    for (const MemoryLevel &level : d.levels) {
        const auto bytes = r.metrics.find("bytes_by_level/" + level.name);
        if (bytes != r.metrics.end()) {
            char buf[64];
            std::snprintf(buf, sizeof buf, " %s %.2f GB", level.name.c_str(), bytes->second / 1e9);
            traffic += buf;
        }
    }
    // The plan's own estimate of its last level's bytes per task kind (weight promotions apart):
    // where the DDR traffic comes from.
    std::map<std::string, double> ddrByKind;
    const std::string &ddr = d.levels.back().name;
    for (const Task &t : p.tasks) {
        const auto it = t.cost.bytesByLevel.find(ddr);
        if (it == t.cost.bytesByLevel.end() || it->second <= 0)
            continue;
        const bool promote = t.kind == TaskKind::Copy && t.label.rfind("promote", 0) == 0;
        ddrByKind[promote ? "promote" : std::string(taskKindName(t.kind))] += double(it->second);
    }
    std::string planDdr;
    for (const auto &[kind, bytes] : ddrByKind) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " %s %.2f GB", kind.c_str(), bytes / 1e9);
        planDdr += buf;
    }
    // GraphTurbo's statistics: weights its instances read from GB (kept) and from DDR.
    const auto fromGb = stats.find("weight_mb_from_gb"), fromDdr = stats.find("weight_mb_from_ddr");
    if (fromGb != stats.end() && fromDdr != stats.end()) {
        char buf[96];
        std::snprintf(buf, sizeof buf, " (weights read from GB %.2f GB, from DDR %.2f GB)", fromGb->second / 1e3,
                      fromDdr->second / 1e3);
        planDdr += buf;
    }
    std::printf("|  | breakdown |%s compute tasks × launch %.2f ms (%zu); FLOPs: graph %.1f G, plan %.1f G (× %.2f), "
                "simulated %.1f G; moved:%s; plan's %s estimate by kind:%s |\n",
                line.c_str(), static_cast<double>(launched) * d.overheads.kernelLaunchNs / 1e6, launched,
                graphFlops / 1e9, planFlops / 1e9, graphFlops > 0 ? planFlops / graphFlops : 0.0, simFlops / 1e9,
                traffic.c_str(), ddr.c_str(), planDdr.c_str());
}

// --where: where the plan's last-level (DDR) bytes go, by task shape: compute tasks by the
// level of their output and of their working set (scratch buffers), data movement by the levels
// it reads and writes and whether it reads a graph input; per group tasks, DDR GB and summed
// simulated ms. Then the sub-graphs (kernels) with the most DDR bytes.
void printWhere(const Graph &g, const ExecutionPlan &p, const RunResult &r, const Device &d)
{
    const std::string &ddr = d.levels.back().name;
    std::vector<double> simNs(p.tasks.size(), 0.0);
    for (const TaskTiming &t : r.timeline)
        simNs[static_cast<std::size_t>(t.task)] += t.endNs - t.startNs;
    auto levelsOf = [&](const std::vector<BufferId> &ids, bool scratch) {
        std::set<std::string> ls;
        for (BufferId b : ids) {
            const Buffer &buf = p.buffers[static_cast<std::size_t>(b)];
            if ((buf.tensor == kInvalidId) == scratch)
                ls.insert(buf.level.empty() ? ddr : buf.level);
        }
        std::string out;
        for (const std::string &l : ls)
            out += (out.empty() ? "" : "+") + l;
        return out.empty() ? std::string("-") : out;
    };
    struct Sum {
        std::size_t tasks = 0;
        double ddr = 0, ns = 0;
    };
    std::map<std::string, Sum> byShape;
    std::map<KernelId, Sum> byKernel;
    for (const Task &t : p.tasks) {
        const auto it = t.cost.bytesByLevel.find(ddr);
        const double bytes = it == t.cost.bytesByLevel.end() ? 0.0 : double(it->second);
        std::string key;
        if (t.kind == TaskKind::Compute) {
            key = "compute out " + levelsOf(t.writes, false) + " work " + levelsOf(t.writes, true);
        } else {
            bool input = false;
            for (BufferId b : t.reads) {
                const TensorId tt = p.buffers[static_cast<std::size_t>(b)].tensor;
                input = input || (tt != kInvalidId && g.tensor(tt).kind == Tensor::Kind::Input);
            }
            const bool promote = t.label.rfind("promote", 0) == 0;
            key = std::string(taskKindName(t.kind)) +
                  (promote ? " promote"
                   : input ? " input"
                           : "") +
                  " " + levelsOf(t.reads, false) +
                  (levelsOf(t.reads, true) == "-" ? "" : "+" + levelsOf(t.reads, true)) + "→" +
                  levelsOf(t.writes, true) + (levelsOf(t.writes, false) == "-" ? "" : "+" + levelsOf(t.writes, false));
        }
        Sum &s = byShape[key];
        ++s.tasks;
        s.ddr += bytes;
        s.ns += simNs[static_cast<std::size_t>(&t - p.tasks.data())];
        Sum &k = byKernel[t.kind == TaskKind::Compute ? t.kernel : t.stage];
        ++k.tasks;
        k.ddr += bytes;
        k.ns += simNs[static_cast<std::size_t>(&t - p.tasks.data())];
    }
    // Per cluster: the union of its compute tasks' and of its data movements' intervals, their
    // overlap, and when its last task ends (clusters in step contend for DDR at the same time).
    auto unionOf = [](std::vector<std::pair<double, double>> v) {
        std::sort(v.begin(), v.end());
        std::vector<std::pair<double, double>> out;
        for (const auto &iv : v)
            if (!out.empty() && iv.first <= out.back().second)
                out.back().second = std::max(out.back().second, iv.second);
            else
                out.push_back(iv);
        return out;
    };
    auto length = [](const std::vector<std::pair<double, double>> &v) {
        double sum = 0;
        for (const auto &[a, b] : v)
            sum += b - a;
        return sum;
    };
    std::map<int, std::pair<std::vector<std::pair<double, double>>, std::vector<std::pair<double, double>>>> perCluster;
    for (const TaskTiming &t : r.timeline) {
        const Task &task = p.tasks[static_cast<std::size_t>(t.task)];
        auto &[compute, moves] = perCluster[task.binding.cluster];
        (task.kind == TaskKind::Compute ? compute : moves).push_back({t.startNs, t.endNs});
    }
    std::string clusters;
    for (auto &[c, cm] : perCluster) {
        const auto compute = unionOf(cm.first), moves = unionOf(cm.second);
        auto both = compute;
        both.insert(both.end(), moves.begin(), moves.end());
        const double busy = length(unionOf(both));
        const double end =
            std::max(compute.empty() ? 0.0 : compute.back().second, moves.empty() ? 0.0 : moves.back().second);
        char buf[200];
        std::snprintf(buf, sizeof buf, " c%d: compute %.2f, moves %.2f, overlap %.2f, ends %.2f;", c,
                      length(compute) / 1e6, length(moves) / 1e6, (length(compute) + length(moves) - busy) / 1e6,
                      end / 1e6);
        clusters += buf;
    }
    std::printf("|  | where | per cluster (ms):%s |\n", clusters.c_str());
    // Copies out of DDR against the tensors they read: above 1, slices read more than once (halos,
    // several consumers).
    std::map<TensorId, double> copiedFrom;
    for (const Task &t : p.tasks) {
        if (t.kind == TaskKind::Compute || t.label.rfind("promote", 0) == 0)
            continue;
        const auto it = t.cost.bytesByLevel.find(ddr);
        if (it == t.cost.bytesByLevel.end())
            continue;
        for (BufferId b : t.reads) {
            const Buffer &buf = p.buffers[static_cast<std::size_t>(b)];
            if (buf.tensor != kInvalidId && (buf.level.empty() || buf.level == ddr)) {
                copiedFrom[buf.tensor] += double(it->second);
                break;
            }
        }
    }
    double copied = 0, tensors = 0;
    for (const auto &[t, bytes] : copiedFrom) {
        copied += bytes;
        tensors += double(g.tensor(t).bytes());
    }
    std::printf("|  | where | copies out of %s: %.3f GB for %zu tensors of %.3f GB (× %.2f) |\n", ddr.c_str(),
                copied / 1e9, copiedFrom.size(), tensors / 1e9, tensors > 0 ? copied / tensors : 0.0);
    for (const auto &[key, s] : byShape)
        std::printf("|  | where | %s | %zu tasks | %s %.3f GB | %.2f ms summed |\n", key.c_str(), s.tasks, ddr.c_str(),
                    s.ddr / 1e9, s.ns / 1e6);
    std::vector<std::pair<double, KernelId>> top;
    for (const auto &[k, s] : byKernel)
        top.push_back({s.ddr, k});
    std::sort(top.rbegin(), top.rend());
    for (std::size_t i = 0; i < std::min<std::size_t>(12, top.size()); ++i) {
        const KernelId k = top[i].second;
        const Sum &s = byKernel[k];
        const std::string name =
            k >= 0 && k < static_cast<KernelId>(p.kernels.size()) ? p.kernels[static_cast<std::size_t>(k)].name : "?";
        std::printf("|  | top | %s | %zu tasks | %s %.3f GB | %.2f ms summed |\n", name.substr(0, 90).c_str(), s.tasks,
                    ddr.c_str(), s.ddr / 1e9, s.ns / 1e6);
    }
}

} // namespace

int main(int argc, char **argv)
{
    std::string dtype = "f16";
    std::vector<std::string> wanted;
    std::map<std::string, std::string> gtOptions;
    bool breakdown = false;
    bool where = false;
    bool tuneBatches = false;
    bool sizeF32 = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--breakdown") {
            breakdown = true;
        } else if (a == "--where") {
            where = true;
        } else if (a == "--tune-batches") {
            tuneBatches = true;
        } else if (a == "--size-f32") {
            sizeF32 = true;
        } else if (a == "--dtype" && i + 1 < argc) {
            dtype = argv[++i];
        } else if (a == "--gt-option" && i + 1 < argc) {
            const std::string kv = argv[++i];
            const auto eq = kv.find('=');
            if (eq == std::string::npos) {
                std::fprintf(stderr, "bench_graphturbo: --gt-option wants K=V, got '%s'\n", kv.c_str());
                return 2;
            }
            gtOptions[kv.substr(0, eq)] = kv.substr(eq + 1);
        } else {
            wanted.push_back(a);
        }
    }
    const std::optional<DType> runType = dtypeFromName(dtype);
    if (!runType || (*runType != DType::Float16 && *runType != DType::BFloat16 && *runType != DType::Float32)) {
        std::fprintf(stderr, "bench_graphturbo: --dtype expects f16, bf16 or f32, got '%s'\n", dtype.c_str());
        return 2;
    }
    SchedulerRegistry schedulers;
    registerBuiltinSchedulers(schedulers);
    BackendRegistry backends;
    registerBuiltinBackends(backends);
    IBackend *sim = backends.find("sim");
    auto device = DeviceRegistry::standard().lookup("stcp920");
    if (!sim || !device) {
        std::fprintf(stderr, "bench_graphturbo: missing the sim backend or stcp920\n");
        return 1;
    }
    for (const Variant &v : kVariants)
        if (!schedulers.find(v.scheduler)) {
            std::fprintf(stderr, "bench_graphturbo: scheduler %s not registered\n", v.scheduler);
            return 1;
        }
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("tessera-bench-gt-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);

    std::string levels;
    for (std::size_t i = device->levels.size(); i-- > 0;)
        levels += device->levels[i].name + (i ? "/" : "");
    std::string gt;
    for (const auto &[k, v] : gtOptions)
        gt += " " + k + "=" + v;
    std::printf("dtype %s (%s); GraphTurbo options:%s; scope counts %s (distinct tensors with a buffer at each "
                "level)\n\n",
                dtype.c_str(), sizeF32 ? "plans sized at f32, bytes scaled by the simulator" : "plans sized at it",
                gt.empty() ? " defaults" : gt.c_str(), levels.c_str());
    std::printf("| network | batch | scheduler | tasks | schedule ms | sim ms | items/s | speedup over layer-fusion | "
                "paper mean over TVM | scopes %s | paper Table 3 (TVM DDR; GT DDR/LLB/L1) |\n",
                levels.c_str());
    std::printf("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |\n");
    int status = 0;
    for (const Network &n : kNetworks) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), n.sample) == wanted.end())
            continue;
        samples::SampleOptions o;
        o.batch = n.batch;
        if (n.seqLen > 0)
            o.seqLen = n.seqLen;
        auto imported = bench::importSample(n.sample, o, dir);
        if (!imported) {
            std::fprintf(stderr, "%s: %s\n", n.sample, imported.status().str().c_str());
            status = 1;
            continue;
        }
        // Every scheduler sees the graph at the run's precision (core/ir/precision.h), so its plan's
        // bytes are the run's; with --size-f32 it sees the f32 graph and the simulator scales bytes.
        const Graph g = sizeF32 ? imported->graph : atPrecision(imported->graph, *runType);
        std::vector<HostTensor> inputs;
        for (TensorId id : g.inputs)
            inputs.push_back({.name = g.tensor(id).name});
        double baselineMs = 0;
        // One scheduler run on the simulator; printed as a row (and its breakdowns) when `label`
        // is given. Returns the simulated ms, or a negative number when it failed.
        auto runOne = [&](const Variant &v, const std::map<std::string, std::string> &extra,
                          const std::string &label) -> double {
            ScheduleSetup setup;
            setup.options = v.options;
            if (std::string(v.scheduler) == "graphturbo") {
                setup.options.insert(gtOptions.begin(), gtOptions.end());
                for (const auto &[k, val] : extra)
                    setup.options[k] = val;
            }
            auto t0 = std::chrono::steady_clock::now();
            auto run = scheduleGraph(g, *device, *schedulers.find(v.scheduler), setup);
            const double scheduleMs = bench::msSince(t0);
            if (!run) {
                if (!label.empty())
                    std::fprintf(stderr, "%s %s: %s\n", n.sample, label.c_str(), run.status().str().c_str());
                return -1;
            }
            CompileContext ctx{&*device, {}};
            if (sizeF32)
                ctx.options["dtype"] = dtype;
            auto compiled = sim->compileFor(g, run->result.plan, ctx);
            Expected<RunResult> r = compiled ? sim->run(**compiled, inputs) : Expected<RunResult>(compiled.status());
            if (!r) {
                if (!label.empty())
                    std::fprintf(stderr, "%s %s: %s\n", n.sample, label.c_str(), r.status().str().c_str());
                return -1;
            }
            const double simMs = r->metrics.at("sim_time_ms");
            if (std::string(v.scheduler) == "layer-fusion")
                baselineMs = simMs;
            if (label.empty())
                return simMs;
            std::string scopes;
            const std::vector<int> counts = scopeCounts(g, run->result.plan, *device);
            for (std::size_t i = counts.size(); i-- > 0;)
                scopes += std::to_string(counts[i]) + (i ? "/" : "");
            std::printf("| %s | %lld | %s | %zu | %.0f | %.2f | %.0f | %s | %s | %s | %s |\n", n.title,
                        static_cast<long long>(n.batch), label.c_str(), run->result.plan.tasks.size(), scheduleMs,
                        simMs, r->metrics.at("throughput"),
                        baselineMs > 0 ? std::to_string(baselineMs / simMs).substr(0, 5).c_str() : "-", v.paper,
                        scopes.c_str(), n.table3);
            if (breakdown)
                printBreakdown(g, run->result.plan, *r, *device, run->result.stats);
            if (where)
                printWhere(g, run->result.plan, *r, *device);
            std::fflush(stdout);
            return simMs;
        };
        for (const Variant &v : kVariants) {
            const double simMs = runOne(v, {}, v.label);
            if (simMs < 0) {
                status = 1;
                continue;
            }
            if (!tuneBatches || std::string(v.scheduler) != "graphturbo")
                continue;
            // §5.1: "both optimal batch allocation strategies are obtained after a round of
            // beforehand autotuning executions": every batches_per_cluster that divides one
            // cluster's share of the batch, simulated, the fastest kept (the default above is the
            // largest, one iteration).
            const std::int64_t share = n.batch / std::max(1, device->topology.clusters);
            std::int64_t best = 0;
            double bestMs = simMs;
            for (std::int64_t b = 1; b < share; ++b) {
                if (share % b)
                    continue;
                const double ms = runOne(v, {{"batches_per_cluster", std::to_string(b)}}, {});
                if (ms > 0 && ms < bestMs) {
                    bestMs = ms;
                    best = b;
                }
            }
            if (best > 0)
                runOne(v, {{"batches_per_cluster", std::to_string(best)}},
                       std::string(v.label) + " §5.1 tuned: " + std::to_string(best) + "/cluster × " +
                           std::to_string(share / best) + " iter.");
            else
                std::printf("|  | tuned | %s: the default allocation (%lld per cluster) is the fastest |\n", v.label,
                            static_cast<long long>(share));
        }
    }
    std::filesystem::remove_all(dir);
    return status;
}
