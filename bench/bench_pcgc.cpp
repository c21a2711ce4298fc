// bench_pcgc: PCGC (issue 17, plugins/pcgc) against layer-fusion and greedy on
// the simulator backend (backends/sim), the table issue 17 asks for.
//
// Per device (default stcp920, jetson-nano, nvidia-v100):
//   1. trains PCGC's learned cost model from scratch (pcgc §3.5, Algorithm 1)
//      on the simulator, timed: the training alone and with importing the
//      samples (target: < 30 s). Training set (--train): the default set of
//      `tessera-cli pcgc-train` (resnet50, mobilenetv2, densenet121, bert)
//      plus inception-v3, so that every scheduled model's ops are in P as
//      in the paper (Algorithm 1's P: the ops of the graph being compiled);
//      a model outside the training set gets splits its model cannot judge
//      (BENCHMARKS.md, 2026-11-27);
//   2. per model (default resnet50, inception-v3 — the GoogLeNet family the
//      paper's Example 3 is from — and bert): schedules layer-fusion, greedy,
//      and PCGC with the learned model for target=time and target=power
//      (default options otherwise), timing PCGC's static fusion + re-cutting
//      (with loading the learned model: the trace's last re-cut step, since
//      the run began; target < 1 s) and its whole scheduling (with the
//      hierarchy, cross-boundary rewrites, §3.4 parallel processing,
//      lowering and verification),
//      and runs every plan on the simulator: simulated time and energy, and
//      the ratios against layer-fusion of the same run.
// With --confirm, every split PCGC's re-cutting made (pcgc.split decisions
// not "keep") is checked against the simulator: the group and its two parts
// as kernels alone (what Algorithm 2 compares: predicted vs simulated gain),
// and the whole plan with that one split overridden back to "keep".
//
// --margin X passes PCGC's margin option (recut.h; 0 = the paper's exact
// "cost < min"; default: the learned model's held-back error).
//
// Usage: bench_pcgc [--devices a,b] [--models a,b] [--confirm] [--margin X] [--train a,b]
// Links: tessera_app_common tessera_plugin_pcgc tessera_samples onnx_proto.
#include "app/registerbuiltins.h"
#include "core/backend/backend.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/scheduler.h"
#include "core/sched/session.h"
#include "plugins/pcgc/costlearn.h"
#include "plugins/pcgc/learnedcost.h"
#include "plugins/pcgc/pcgccommands.h"
#include "plugins/pcgc/staticfusion.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <unistd.h>
#include <unordered_set>
#include <vector>

using namespace tessera;

namespace {

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

using pcgc::splitList;

// The sample `name` with its default options, as pcgc-train imports it, named `name`.
Expected<Graph> importSample(const Extensions &extensions, const std::string &name)
{
    auto imported = pcgc::importSample(extensions, name, {});
    if (!imported)
        return imported.status();
    imported->graph.name = name;
    return std::move(imported->graph);
}

// Every sample of `names` (importSample); nothing, after saying which failed on stderr, if one fails.
std::optional<std::vector<Graph>> importSamples(const Extensions &extensions, const std::vector<std::string> &names)
{
    std::vector<Graph> graphs;
    for (const std::string &name : names) {
        auto g = importSample(extensions, name);
        if (!g) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), g.status().str().c_str());
            return std::nullopt;
        }
        graphs.push_back(std::move(*g));
    }
    return graphs;
}

struct SimResult {
    double ms = 0;
    double mj = 0;
};

Expected<SimResult> simulate(IBackend &sim, const Graph &g, const ExecutionPlan &plan, const Device &device)
{
    std::vector<HostTensor> inputs;
    for (TensorId id : g.inputs)
        inputs.push_back({.name = g.tensor(id).name});
    CompileContext ctx{&device, {}};
    auto compiled = sim.compileFor(g, plan, ctx);
    if (!compiled)
        return compiled.status();
    auto r = sim.run(**compiled, inputs);
    if (!r)
        return r.status();
    return SimResult{r->metrics.at("sim_time_ms"), r->metrics.at("energy_j") * 1e3};
}

struct Column {
    const char *title;
    const char *scheduler;
    std::map<std::string, std::string> options; // model_file added for PCGC
};

std::string pct(double ratio)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f %%", (ratio - 1) * 100);
    return buf;
}

// --confirm: each split of `run` against the simulator.
void confirmSplits(const Graph &g, const Device &device, const IScheduler &pcgc, const ScheduleSetup &setup,
                   const ScheduleRun &run, const SimResult &withSplits, const pcgc::LearnedCostModel &learned,
                   IBackend &sim, bool power)
{
    // The records static fusion makes (deterministic: the scheduler made the same ones).
    DecisionContext ctx;
    Trace trace;
    const pcgc::Partition fused = pcgc::staticFusion(g, device, ctx, trace);
    for (const TraceStep &s : run.trace.steps()) {
        if (s.phase != "re-cut" || s.decision < 0)
            continue;
        const DecisionRecord &d = run.decisions.records()[static_cast<std::size_t>(s.decision)];
        if (d.role != "pcgc.split" || d.chosen == 0)
            continue;
        const std::string id = d.options[static_cast<std::size_t>(d.chosen)].id; // "split:A|B"
        const std::string labelA = id.substr(6, id.find('|') - 6);
        const std::unordered_set<NodeId> inside(s.touched.begin(), s.touched.end());
        std::vector<NodeId> a, b;
        for (const pcgc::FusionRecord &r : fused.records) {
            const std::unordered_set<NodeId> prod(r.producerSide.begin(), r.producerSide.end());
            std::vector<NodeId> sa, sb;
            for (NodeId n : s.touched)
                (prod.count(n) ? sa : sb).push_back(n);
            if (!r.stable && !sa.empty() && !sb.empty() && pcgc::groupLabel(g, sa) == labelA) {
                a = std::move(sa);
                b = std::move(sb);
                break;
            }
        }
        if (a.empty())
            continue;
        auto mw = pcgc::measureOp(g, s.touched, device, sim);
        auto ma = pcgc::measureOp(g, a, device, sim);
        auto mb = pcgc::measureOp(g, b, device, sim);
        auto pw = learned.predict(g, s.touched);
        auto pa = learned.predict(g, a);
        auto pb = learned.predict(g, b);
        if (!mw || !ma || !mb || !pw || !pa || !pb)
            continue;
        const auto metric = [&](double t, double e) { return power ? e : t; };
        const double predicted =
            metric(pa->timeNs + pb->timeNs, pa->energyJ + pb->energyJ) / metric(pw->timeNs, pw->energyJ);
        const double measured =
            metric(ma->timeNs + mb->timeNs, ma->energyJ + mb->energyJ) / metric(mw->timeNs, mw->energyJ);
        // The whole plan with this split kept fused instead.
        ScheduleSetup kept = setup;
        kept.overrides[d.key] = "keep";
        auto alt = scheduleGraph(g, device, pcgc, kept);
        std::string planEffect = "—";
        if (alt) {
            if (auto r = simulate(sim, g, alt->result.plan, device)) {
                char buf[64];
                if (power)
                    std::snprintf(buf, sizeof buf, "%+.3f mJ", withSplits.mj - r->mj);
                else
                    std::snprintf(buf, sizeof buf, "%+.1f µs", (withSplits.ms - r->ms) * 1e3);
                planEffect = buf;
            }
        }
        std::printf("|   split %s (%zu nodes) | %s | %s | %s | %s |\n", id.substr(6).c_str(), s.touched.size(),
                    power ? "energy" : "time", pct(predicted).c_str(), pct(measured).c_str(), planEffect.c_str());
    }
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::string> devices{"stcp920", "jetson-nano", "nvidia-v100"};
    std::vector<std::string> modelNames{"resnet50", "inception-v3", "bert"};
    bool confirm = false;
    std::string margin; // PCGC's margin option; empty: its default (auto)
    // pcgc-train's default set plus the models scheduled (Algorithm 1's P is
    // the ops of the graph being compiled, pcgc §3.5).
    std::vector<std::string> trainNames = splitList(pcgc::kDefaultTrainingModels);
    trainNames.push_back("inception-v3");
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--devices") && i + 1 < argc)
            devices = splitList(argv[++i]);
        else if (!std::strcmp(argv[i], "--models") && i + 1 < argc)
            modelNames = splitList(argv[++i]);
        else if (!std::strcmp(argv[i], "--confirm"))
            confirm = true;
        else if (!std::strcmp(argv[i], "--train") && i + 1 < argc)
            trainNames = splitList(argv[++i]);
        else if (!std::strcmp(argv[i], "--margin") && i + 1 < argc)
            margin = argv[++i];
        else {
            std::fprintf(stderr,
                         "usage: bench_pcgc [--devices a,b] [--models a,b] [--confirm] [--margin X] [--train a,b]\n");
            return 2;
        }
    }
    SchedulerRegistry schedulers;
    Extensions extensions(schedulers);
    registerBuiltins(extensions);
    BackendRegistry backends;
    registerBuiltinBackends(backends);
    IBackend *sim = backends.find("sim");
    const IScheduler *pcgcScheduler = schedulers.find("pcgc");
    if (!sim || !pcgcScheduler || !schedulers.find("layer-fusion") || !schedulers.find("greedy")) {
        std::fprintf(stderr, "bench_pcgc: missing the sim backend, pcgc, layer-fusion or greedy\n");
        return 1;
    }
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("tessera-bench-pcgc-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);

    const std::optional<std::vector<Graph>> evalGraphs = importSamples(extensions, modelNames);
    if (!evalGraphs)
        return 1;

    int status = 0;
    std::string trainingTable =
        "| device | ops (measured / held back / pseudo) | time MAPE | power MAPE | training | with importing |\n"
        "| --- | --- | ---: | ---: | ---: | ---: |\n";
    std::string table =
        "| model, device | layer-fusion sim | greedy sim | pcgc target=time: sim (vs LF) | pcgc "
        "target=power: sim (vs LF) | splits (time, power) | pcgc static fusion + re-cut ms (time, power) | "
        "pcgc whole scheduling ms (time, power) |\n"
        "| --- | --- | --- | --- | --- | ---: | ---: | ---: |\n";
    for (const std::string &deviceId : devices) {
        auto device = DeviceRegistry::standard().lookup(deviceId);
        if (!device) {
            std::fprintf(stderr, "%s: %s\n", deviceId.c_str(), device.status().str().c_str());
            return 1;
        }
        // 1. Training from scratch.
        auto t0 = std::chrono::steady_clock::now();
        const std::optional<std::vector<Graph>> training = importSamples(extensions, trainNames);
        if (!training)
            return 1;
        std::vector<const Graph *> pointers;
        for (const Graph &g : *training)
            pointers.push_back(&g);
        auto model = pcgc::trainCostModel(pointers, *device, *sim);
        const double wholeS = msSince(t0) / 1e3;
        if (!model) {
            std::fprintf(stderr, "%s: training: %s\n", deviceId.c_str(), model.status().str().c_str());
            status = 1;
            continue;
        }
        const std::string modelFile = (dir / (deviceId + ".json")).string();
        if (Status st = (*model)->save(modelFile); !st.isOk()) {
            std::fprintf(stderr, "%s: %s\n", deviceId.c_str(), st.str().c_str());
            return 1;
        }
        const pcgc::TrainingSummary &ts = (*model)->summary();
        char powerMape[32] = "none";
        if (const pcgc::TargetModel *p = (*model)->power())
            std::snprintf(powerMape, sizeof powerMape, "%.1f %%", p->accuracy.mape * 100);
        char line[512];
        std::snprintf(line, sizeof line, "| %s | %d (%d / %d / %d) | %.1f %% | %s | %.1f s | %.1f s |\n",
                      deviceId.c_str(), ts.ops, ts.measured, ts.heldBack, ts.pseudoLabelled,
                      (*model)->time().accuracy.mape * 100, powerMape, ts.seconds, wholeS);
        trainingTable += line;
        std::fputs(line, stderr);

        // 2. The plans on the simulator.
        const std::vector<Column> columns{
            {"layer-fusion", "layer-fusion", {}},
            {"greedy", "greedy", {}},
            {"pcgc time", "pcgc", {{"target", "time"}, {"cost_model", "learned"}, {"model_file", modelFile}}},
            {"pcgc power", "pcgc", {{"target", "power"}, {"cost_model", "learned"}, {"model_file", modelFile}}}};
        for (const Graph &g : *evalGraphs) {
            SimResult res[4];
            double pcgcMs[4] = {};
            int splits[4] = {};
            double recutMs[4] = {}; // static fusion + re-cutting: the last re-cut step, since the run began
            bool ok = true;
            for (std::size_t c = 0; c < columns.size() && ok; ++c) {
                ScheduleSetup setup;
                setup.options = columns[c].options;
                if (!margin.empty() && columns[c].scheduler == std::string("pcgc"))
                    setup.options["margin"] = margin;
                const IScheduler &s = *schedulers.find(columns[c].scheduler);
                t0 = std::chrono::steady_clock::now();
                auto run = scheduleGraph(g, *device, s, setup);
                pcgcMs[c] = msSince(t0);
                Expected<SimResult> r =
                    run ? simulate(*sim, g, run->result.plan, *device) : Expected<SimResult>(run.status());
                if (!r) {
                    std::fprintf(stderr, "%s, %s, %s: %s\n", g.name.c_str(), deviceId.c_str(), columns[c].title,
                                 r.status().str().c_str());
                    ok = false;
                    break;
                }
                res[c] = *r;
                if (columns[c].scheduler == std::string("pcgc")) {
                    splits[c] = static_cast<int>(run->result.stats.at("splits"));
                    for (const TraceStep &step : run->trace.steps())
                        if (step.phase == "re-cut")
                            recutMs[c] = step.elapsedMs;
                    if (run->result.stats.at("learned_model") != 1.0) {
                        std::fprintf(stderr, "%s: the learned model was not used\n", deviceId.c_str());
                        ok = false;
                    }
                    if (confirm && splits[c] > 0) {
                        char head[256];
                        std::snprintf(head, sizeof head, "| %s, %s, %s | | | | |\n", g.name.c_str(), deviceId.c_str(),
                                      columns[c].title);
                        std::fputs(head, stdout);
                        confirmSplits(g, *device, s, setup, *run, *r, **model, *sim, c == 3);
                        std::fflush(stdout);
                    }
                }
            }
            if (!ok) {
                status = 1;
                continue;
            }
            std::snprintf(line, sizeof line,
                          "| %s, %s | %.3f ms, %.2f mJ | %.3f ms, %.2f mJ | %.3f ms, %.2f mJ (%s, %s) | %.3f ms, "
                          "%.2f mJ (%s, %s) | %d, %d | %.0f, %.0f | %.0f, %.0f |\n",
                          g.name.c_str(), deviceId.c_str(), res[0].ms, res[0].mj, res[1].ms, res[1].mj, res[2].ms,
                          res[2].mj, pct(res[2].ms / res[0].ms).c_str(), pct(res[2].mj / res[0].mj).c_str(), res[3].ms,
                          res[3].mj, pct(res[3].ms / res[0].ms).c_str(), pct(res[3].mj / res[0].mj).c_str(), splits[2],
                          splits[3], recutMs[2], recutMs[3], pcgcMs[2], pcgcMs[3]);
            table += line;
            std::fputs(line, stderr);
        }
    }
    if (confirm)
        std::printf("(confirm rows: | split | target | predicted Σparts/whole − 1 | simulated kernels alone | "
                    "whole plan with the split vs kept |)\n\n");
    std::printf("%s\n%s", trainingTable.c_str(), table.c_str());
    std::filesystem::remove_all(dir);
    return status;
}
