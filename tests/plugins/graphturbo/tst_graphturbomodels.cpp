// GraphTurbo on a real sample: ResNet-50 (torchvision v1.5 from the sample
// catalog, batch 1, 64×64 so the reference backend runs it in seconds) on
// STCP920. The plan verifies against the device, groups the ~170 nodes into
// far fewer sub-graphs, and the reference backend computes the sequential
// plan's outputs from it bit for bit.
#include "backends/reference/reference.h"
#include "backends/sim/sim.h"
#include "core/hw/deviceregistry.h"
#include "core/ir/precision.h"
#include "core/onnx/importer.h"
#include "core/plan/verify.h"
#include "core/sched/session.h"
#include "plugins/graphturbo/graphturbo.h"
#include "plugins/layerfusion/layerfusion.h"
#include "samples/builder.h"
#include "samples/catalog.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <onnx/onnx_pb.h>
#include <optional>
#include <tuple>
#include <unistd.h>

#include "tests/backends/planutil.h"

namespace fs = std::filesystem;
using namespace tessera;

namespace {

// The model and its external weights live in a temporary folder while the test runs.
struct TempDir {
    fs::path path = fs::temp_directory_path() / ("tessera-gt-models-" + std::to_string(::getpid()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
};

Expected<Graph> importSample(const TempDir &dir, const std::string &name, const samples::SampleOptions &o)
{
    auto m = samples::buildSample(name, o);
    if (!m)
        return m.status();
    const std::string path = (dir.path / (name + ".onnx")).string();
    TS_TRY(samples::saveModel(**m, path, true));
    auto r = importModel(path);
    if (!r)
        return r.status();
    return std::move(r->graph);
}

TEST(GraphTurboModels, ResNet50GroupsSplitsAndComputesTheSequentialOutputs)
{
    samples::SampleOptions o;
    o.imageSize = 64;
    const TempDir dir;
    auto g = importSample(dir, "resnet50", o);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const Device d = *DeviceRegistry::standard().lookup("stcp920");
    auto gt = scheduleGraph(*g, d, *createGraphTurboScheduler(), {});
    ASSERT_TRUE(gt.isOk()) << gt.status().str();
    const ExecutionPlan &p = gt->result.plan;
    EXPECT_TRUE(verifyPlan(p, *g, &d).isOk());
    const auto &stats = gt->result.stats;
    EXPECT_LT(stats.at("subgraphs"), double(g->nodeCount()) / 4) << "grouping beyond layers";
    EXPECT_GT(stats.at("instances"), stats.at("subgraphs")) << "some sub-graph is split";
    std::cout << "resnet50@64: " << g->nodeCount() << " nodes, " << stats.at("subgraphs") << " sub-graphs, "
              << stats.at("instances") << " instances, " << stats.at("redundant_edges") << " redundant edges, "
              << stats.at("spills") << " spills, LB share " << stats.at("lb_share") << ", " << p.tasks.size()
              << " tasks; schedule " << gt->searchMs << " ms, verify " << gt->verifyMs << " ms, est. "
              << p.estimatedLatencyNs() / 1e6 << " ms\n";

    auto backend = createReferenceBackend();
    const Status same = planutil::sameOutputsAsSequential(*backend, *g, p, 21);
    EXPECT_TRUE(same.isOk()) << same.str();
}

} // namespace

namespace {

// The Table 2 models at Table 2's batch sizes (ResNet-50 64, MobileNet-v2
// 128, BERT-384 8; spread over STCP920's four clusters that is the paper's
// 16, 32 and 2 per cluster) schedule into verified plans (scheduleGraph
// verifies). The times are printed; the speed target (under a
// second each) is checked by bench_graphturbo, not here.
void schedulesAndVerifies(const std::string &name, const samples::SampleOptions &o)
{
    const TempDir dir;
    auto g = importSample(dir, name, o);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const Device d = *DeviceRegistry::standard().lookup("stcp920");
    auto gt = scheduleGraph(*g, d, *createGraphTurboScheduler(), {});
    ASSERT_TRUE(gt.isOk()) << gt.status().str();
    const auto &stats = gt->result.stats;
    std::cout << name << " (batch " << o.batch << "): " << g->nodeCount() << " nodes, " << stats.at("subgraphs")
              << " sub-graphs, " << stats.at("instances") << " instances, " << stats.at("spills")
              << " spills, LB share " << stats.at("lb_share") << "; schedule " << gt->searchMs << " ms, verify "
              << gt->verifyMs << " ms, est. " << gt->result.plan.estimatedLatencyNs() / 1e6 << " ms\n";
    EXPECT_GT(stats.at("instances"), stats.at("subgraphs")); // split into instances
}

TEST(GraphTurboModels, Table2ModelsScheduleIntoVerifiedPlans)
{
    samples::SampleOptions o;
    o.batch = 64;
    schedulesAndVerifies("resnet50", o);
    o.batch = 128;
    schedulesAndVerifies("mobilenetv2", o);
    o.batch = 8;
    o.seqLen = 384;
    schedulesAndVerifies("bert", o);
}

// Sized at the run's precision (core/ir/precision.h, as bench_graphturbo schedules): ViT-B/16
// (197 tokens, ragged splits; batch 4, one image per cluster) at f16 schedules into a verified
// plan whose buffers the simulator fits into STCP920's levels, and its instances read most of
// their weight bytes from GB. Not all: the instances of the MLP's two MatMuls interleave
// (depth-first), so both 4.7 MB weights would have to sit in the 8 MiB LLB together; the second
// is read from DDR by each of its instances (BENCHMARKS.md 2026-11-27).
Expected<ScheduleRun> vitAt(const TempDir &dir, std::optional<DType> precision, double &simMs)
{
    samples::SampleOptions o;
    o.batch = 4;
    auto g = importSample(dir, "vit", o);
    if (!g)
        return g.status();
    const Graph graph = precision ? atPrecision(*g, *precision) : *g;
    const Device d = *DeviceRegistry::standard().lookup("stcp920");
    auto gt = scheduleGraph(graph, d, *createGraphTurboScheduler(), {});
    if (!gt)
        return gt;
    auto sim = createSimBackend(nullptr);
    CompileContext ctx{&d, {}};
    if (!precision)
        ctx.options["dtype"] = "f16";
    auto c = sim->compileFor(graph, gt->result.plan, ctx);
    if (!c)
        return c.status();
    auto run = sim->run(**c, planutil::makeInputs(graph, 1));
    if (!run)
        return run.status();
    simMs = run->metrics.at("sim_time_ms");
    return gt;
}

TEST(GraphTurboModels, VitAtF16ReadsMostWeightsFromGbAndSimulates)
{
    const TempDir dir;
    double ms = 0;
    auto gt = vitAt(dir, DType::Float16, ms);
    ASSERT_TRUE(gt.isOk()) << gt.status().str();
    const auto &stats = gt->result.stats;
    std::cout << "vit@4 f16: " << stats.at("instances") << " instances, weights from GB "
              << stats.at("weight_mb_from_gb") << " MB, from DDR " << stats.at("weight_mb_from_ddr") << " MB, sim "
              << ms << " ms\n";
    EXPECT_GT(stats.at("weight_mb_from_gb"), stats.at("weight_mb_from_ddr"));
    EXPECT_GT(ms, 0.0);
}

TEST(GraphTurboModels, VitSizedAtF32ReadsMostWeightsFromDdr)
{
    // Negative twin: the f32 graph (9.4 MB FFN weights, over the 8 MiB LLB), the simulator
    // scaling its bytes to f16: most weight bytes come from DDR.
    const TempDir dir;
    double ms = 0;
    auto gt = vitAt(dir, std::nullopt, ms);
    ASSERT_TRUE(gt.isOk()) << gt.status().str();
    std::cout << "vit@4 f32: weights from GB " << gt->result.stats.at("weight_mb_from_gb") << " MB, from DDR "
              << gt->result.stats.at("weight_mb_from_ddr") << " MB, sim " << ms << " ms\n";
    EXPECT_GT(gt->result.stats.at("weight_mb_from_ddr"), gt->result.stats.at("weight_mb_from_gb"));
    EXPECT_GT(ms, 0.0);
}

} // namespace

namespace {

// The simulator runs GraphTurbo's plans (every variant) on each kind of device the workbench
// ships — a DSA, a GPU (one cluster of SMs), the host — and in functional mode computes the
// reference backend's outputs from them (what tst_simmodels asks of every scheduler).
TEST(GraphTurboModels, SimulatorRunsEveryVariantOnEveryKindOfDevice)
{
    const TempDir dir;
    samples::SampleOptions o;
    o.imageSize = 32;
    auto reference = createReferenceBackend();
    auto sim = createSimBackend(reference.get());
    // ResNet-50 on every device kind and variant; DenseNet-121 (concatenations) on STCP920.
    for (const auto &[model, id, v] :
         std::vector<std::tuple<std::string, std::string, std::string>>{{"resnet50", "stcp920", "llb"},
                                                                        {"resnet50", "stcp920", "split"},
                                                                        {"resnet50", "stcp920", "full"},
                                                                        {"resnet50", "nvidia-v100", "llb"},
                                                                        {"resnet50", "nvidia-v100", "split"},
                                                                        {"resnet50", "nvidia-v100", "full"},
                                                                        {"resnet50", "host", "llb"},
                                                                        {"resnet50", "host", "split"},
                                                                        {"resnet50", "host", "full"},
                                                                        {"densenet121", "stcp920", "full"}}) {
        auto g = importSample(dir, model, o);
        ASSERT_TRUE(g.isOk()) << g.status().str();
        const auto inputs = planutil::makeInputs(*g, 3);
        {
            const std::string what = model + " " + v + " on " + id;
            const Device d = *DeviceRegistry::standard().lookup(id);
            ScheduleSetup s;
            s.options = {{"variant", v}};
            auto gt = scheduleGraph(*g, d, *createGraphTurboScheduler(), s);
            ASSERT_TRUE(gt.isOk()) << what << ": " << gt.status().str();
            CompileContext ctx{&d, {{"functional", "1"}}};
            auto c = sim->compileFor(*g, gt->result.plan, ctx);
            ASSERT_TRUE(c.isOk()) << what << ": " << c.status().str();
            auto r = sim->run(**c, inputs);
            ASSERT_TRUE(r.isOk()) << what << ": " << r.status().str();
            EXPECT_GT(r->metrics.at("sim_time_ms"), 0) << what;
            // The timeline keeps every dependency; utilisations are fractions (what tst_simmodels checks).
            const ExecutionPlan &plan = gt->result.plan;
            ASSERT_EQ(r->timeline.size(), plan.tasks.size()) << what;
            for (const Task &t : plan.tasks)
                for (TaskId dep : t.deps)
                    ASSERT_GE(r->timeline[static_cast<std::size_t>(t.id)].startNs,
                              r->timeline[static_cast<std::size_t>(dep)].endNs - 1e-6)
                        << what << ": task " << t.id << " before its dependency " << dep;
            for (const auto &[k, v] : r->metrics)
                if (k.rfind("utilisation_by_unit/", 0) == 0) {
                    EXPECT_LE(v, 1 + 1e-9) << what << " " << k;
                }
            auto ref = planutil::compileAndRun(*reference, *g, gt->result.plan, inputs);
            ASSERT_TRUE(ref.isOk()) << what << ": " << ref.status().str();
            ASSERT_EQ(r->outputs.size(), ref->outputs.size()) << what;
            for (std::size_t i = 0; i < ref->outputs.size(); ++i)
                EXPECT_TRUE(planutil::bitEqual(r->outputs[i], ref->outputs[i])) << what << " output " << i;
        }
    }
}

// §5.3 / Fig. 15 on ResNet-50 (64×64, batch 8: two images per cluster), simulated in f32:
// each variant keeps more of the instance outputs on the cores than the one before (LB share)
// and moves fewer bytes off the cores (DDR + LLB), as the paper's breakdown implies; across-layer
// scheduling (full) is no slower than split. Where the model disagrees (written down in
// BENCHMARKS.md, not asserted): split is not faster than l1 in simulated time — the convolutions
// are compute-bound on the VME in f32, and in f16 the host's 10 µs launch per instance part
// dominates.
TEST(GraphTurboModels, Fig15VariantsKeepMoreOnTheCoresInTurn)
{
    samples::SampleOptions o;
    o.imageSize = 64;
    o.batch = 8;
    const TempDir dir;
    auto g = importSample(dir, "resnet50", o);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const Device d = *DeviceRegistry::standard().lookup("stcp920");
    auto sim = createSimBackend(nullptr);
    struct Result {
        double lbShare = 0, offCore = 0, ms = 0, ddr = 0;
    };
    std::map<std::string, Result> r;
    for (const std::string v : {"llb", "l1", "split", "full"}) {
        ScheduleSetup s;
        s.options = {{"variant", v}};
        auto gt = scheduleGraph(*g, d, *createGraphTurboScheduler(), s);
        ASSERT_TRUE(gt.isOk()) << v << ": " << gt.status().str();
        CompileContext ctx{&d, {}};
        auto c = sim->compileFor(*g, gt->result.plan, ctx);
        ASSERT_TRUE(c.isOk()) << v << ": " << c.status().str();
        auto run = sim->run(**c, planutil::makeInputs(*g, 1));
        ASSERT_TRUE(run.isOk()) << v << ": " << run.status().str();
        r[v] = {gt->result.stats.at("lb_share"),
                run->metrics.at("bytes_by_level/DDR") + run->metrics.at("bytes_by_level/LLB"),
                run->metrics.at("sim_time_ms"), run->metrics.at("bytes_by_level/DDR")};
        std::cout << v << ": LB share " << r[v].lbShare << ", off-core " << r[v].offCore / 1e6 << " MB (DDR "
                  << r[v].ddr / 1e6 << " MB), sim " << r[v].ms << " ms\n";
    }
    EXPECT_LT(r["llb"].lbShare, r["l1"].lbShare);
    EXPECT_LT(r["l1"].lbShare, r["split"].lbShare);
    // §4.4 double-buffers the working sets (loads run while the instance before computes), so
    // full keeps two of them in LB at a time and may keep less of the rest there than split.
    EXPECT_LE(r["full"].lbShare, r["split"].lbShare);
    // Every variant keeps the weights in GB across their instances (weights.h) and reads them
    // there, so the off-core bytes include the same weight reads from LLB in each; what a
    // variant keeps off DDR is its activations.
    EXPECT_GE(r["llb"].ddr, r["l1"].ddr);
    EXPECT_GT(r["l1"].offCore, r["split"].offCore);
    EXPECT_GE(r["split"].ddr, r["full"].ddr);
    // Here all four variants move the same DDR bytes (the weights once, the graph's input and
    // output): full's overlap has nothing to hide and its double-buffered working sets may cost
    // it a little against split (BENCHMARKS.md 2026-11-27), within 1 %.
    EXPECT_LE(r["full"].ms, r["split"].ms * 1.01);
}

TEST(GraphTurboModels, Fig15VariantsWithoutSplitRunOneInstancePerSubGraph)
{
    // Negative twin: the variants without instance split (llb, l1) make one instance per
    // sub-graph; split and full the same instances as each other.
    samples::SampleOptions o;
    o.imageSize = 64;
    o.batch = 8;
    const TempDir dir;
    auto g = importSample(dir, "resnet50", o);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const Device d = *DeviceRegistry::standard().lookup("stcp920");
    std::map<std::string, double> instances, subgraphs;
    for (const std::string v : {"llb", "l1", "split", "full"}) {
        ScheduleSetup s;
        s.options = {{"variant", v}};
        auto gt = scheduleGraph(*g, d, *createGraphTurboScheduler(), s);
        ASSERT_TRUE(gt.isOk()) << v << ": " << gt.status().str();
        instances[v] = gt->result.stats.at("instances");
        subgraphs[v] = gt->result.stats.at("subgraphs");
    }
    EXPECT_EQ(instances["llb"], subgraphs["llb"]);
    EXPECT_EQ(instances["l1"], subgraphs["l1"]);
    EXPECT_GT(instances["split"], subgraphs["split"]);
    EXPECT_EQ(instances["split"], instances["full"]);
}

TEST(GraphTurboModels, DISABLED_VariantsMeasure)
{
    const Device d = *DeviceRegistry::standard().lookup("stcp920");
    for (const auto &[name, batch] :
         std::vector<std::pair<std::string, int>>{{"resnet50", 8}, {"mobilenetv2", 8}, {"bert", 2}}) {
        samples::SampleOptions o;
        o.batch = batch;
        if (name == "bert")
            o.seqLen = 128;
        const TempDir dir;
        auto g = importSample(dir, name, o);
        ASSERT_TRUE(g.isOk()) << g.status().str();
        auto lf = scheduleGraph(*g, d, *createLayerFusionScheduler(), {});
        ASSERT_TRUE(lf.isOk());
        auto sim = createSimBackend(nullptr);
        auto simMs = [&](const ExecutionPlan &p) {
            CompileContext ctx{&d, {}};
            if (const char *dt = std::getenv("GT_DTYPE"))
                ctx.options["dtype"] = dt;
            auto c = sim->compileFor(*g, p, ctx);
            if (!c) {
                std::cout << c.status().str() << "\n";
                return -1.0;
            }
            auto r = sim->run(**c, planutil::makeInputs(*g, 1));
            if (!r) {
                std::cout << r.status().str() << "\n";
                return -1.0;
            }
            std::cout << "    [flops " << r->metrics["flops"] / 1e9 << " G, DDR "
                      << r->metrics["bytes_by_level/DDR"] / 1e6 << " MB, LLB " << r->metrics["bytes_by_level/LLB"] / 1e6
                      << " MB, L1 " << r->metrics["bytes_by_level/L1"] / 1e6 << " MB, tasks " << r->metrics["tasks"]
                      << ", util VME " << r->metrics["utilisation_by_unit/VME"] << "]\n";
            return r->metrics.at("sim_time_ms");
        };
        std::cout << name << " b" << batch << " layer-fusion sim " << simMs(lf->result.plan) << " ms est "
                  << lf->result.plan.estimatedLatencyNs() / 1e6 << "\n";
        for (const std::string v : {"llb", "l1", "split", "full"}) {
            ScheduleSetup s;
            s.options = {{"variant", v}};
            auto gt = scheduleGraph(*g, d, *createGraphTurboScheduler(), s);
            ASSERT_TRUE(gt.isOk()) << gt.status().str();
            const auto &st = gt->result.stats;
            {
                std::map<std::string, double> by;
                const ExecutionPlan &pl = gt->result.plan;
                for (const Task &t : pl.tasks) {
                    const std::string kind = t.kind == TaskKind::Copy && t.label.rfind("promote", 0) == 0 ? "promote"
                                             : t.kind == TaskKind::Copy && t.label.find("input") != std::string::npos
                                                 ? "incopy"
                                                 : std::string(taskKindName(t.kind));
                    if (t.kind == TaskKind::Compute)
                        for (const auto &[l, b] : t.cost.bytesByLevel)
                            by[kind + "/" + l] += double(b);
                    else {
                        for (BufferId b : t.reads)
                            by[kind + "/r/" + pl.buffers[b].level] += double(pl.buffers[b].bytes);
                        for (BufferId b : t.writes)
                            by[kind + "/w/" + pl.buffers[b].level] += double(pl.buffers[b].bytes);
                    }
                    by["n/" + kind] += 1;
                    by["ns/" + kind] += t.cost.timeNs;
                }
                for (const auto &[k, v] : by)
                    std::cout << "      " << k << " " << (k[0] == 'n' ? v : v / 1e6) << "\n";
            }
            std::cout << "  " << v << ": sim " << simMs(gt->result.plan) << " ms, est "
                      << gt->result.plan.estimatedLatencyNs() / 1e6 << " ms, sg " << st.at("subgraphs") << " inst "
                      << st.at("instances") << " spills " << st.at("spills") << " lb_share " << st.at("lb_share")
                      << " gb_scopes " << st.at("gb_scopes") << " redis " << st.at("redistributes") << " ahead "
                      << st.at("overlapped_promotions") << " sched " << gt->searchMs << " ms\n";
        }
    }
}

} // namespace

namespace {

// Measurement harness for BENCHMARKS.md (not run by default): scheduling times of Table 2's
// networks at its batch sizes, with the time at which each pipeline step ended (trace).
TEST(GraphTurboModels, DISABLED_ScheduleTimes)
{
    const Device d = *DeviceRegistry::standard().lookup("stcp920");
    for (const auto &[name, batch] : std::vector<std::pair<std::string, int>>{
             {"resnet50", 64}, {"bert", 8}, {"mobilenetv2", 128}, {"densenet121", 32}, {"vit", 32}}) {
        samples::SampleOptions o;
        o.batch = batch;
        if (name == "bert")
            o.seqLen = 384;
        const TempDir dir;
        auto g = importSample(dir, name, o);
        ASSERT_TRUE(g.isOk()) << g.status().str();
        auto gt = scheduleGraph(*g, d, *createGraphTurboScheduler(), {});
        ASSERT_TRUE(gt.isOk()) << gt.status().str();
        std::cout << name << " b" << batch << ": schedule " << gt->searchMs << " ms, verify " << gt->verifyMs << " ms, "
                  << gt->result.stats.at("instances") << " instances, " << gt->result.plan.tasks.size()
                  << " tasks; steps ended at";
        std::string phase;
        double at = 0;
        for (const TraceStep &s : gt->trace.steps()) {
            if (s.phase != phase && !phase.empty())
                std::cout << " [" << phase.substr(0, phase.find(':')) << " " << at << "]";
            phase = s.phase;
            at = s.elapsedMs;
        }
        std::cout << " [" << phase.substr(0, phase.find(':')) << " " << at << "]\n";
    }
}

} // namespace
