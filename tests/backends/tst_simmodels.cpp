// The simulator backend on real plans: every registered scheduler (the
// built-in plugins: sequential, greedy, layer-fusion, ios, and any later one)
// on sample networks, on a DSA, a GPU and the host preset. Checks that the
// simulated timeline respects every dependency, accounts for every task and
// ends at the reported time, and that functional mode returns exactly the
// reference backend's outputs; negative twins: a plan run against another
// device is refused, timing-only runs return no outputs.
#include "app/registerbuiltins.h"
#include "core/backend/backend.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/scheduler.h"
#include "core/sched/session.h"
#include "samples/catalog.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include "tests/backends/planutil.h"
#include "tests/common/testsamples.h"

namespace fs = std::filesystem;

namespace tessera {
namespace {

class SimModels : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        s_dir = fs::temp_directory_path() / ("tessera-sim-models-" + std::to_string(::getpid()));
        fs::create_directories(s_dir);
    }
    static void TearDownTestSuite() { fs::remove_all(s_dir); }

    void SetUp() override
    {
        registerBuiltinSchedulers(schedulers);
        registerBuiltinBackends(backends);
        sim = backends.find("sim");
        reference = backends.find("reference");
        ASSERT_NE(sim, nullptr);
        ASSERT_NE(reference, nullptr);
    }

    static Expected<Graph> sample(const std::string &name, int imageSize)
    {
        samples::SampleOptions o;
        o.imageSize = imageSize;
        auto m = test::buildRegisteredSample(name, o);
        if (!m)
            return m.status();
        const std::string path = (s_dir / (name + ".onnx")).string();
        TS_TRY(samples::saveModel(**m, path, false));
        auto r = importModel(path);
        if (!r)
            return r.status();
        return std::move(r->graph);
    }

    Expected<RunResult> simulate(const Graph &g, const ExecutionPlan &plan, const Device &d,
                                 const std::vector<HostTensor> &inputs, bool functional = false)
    {
        CompileContext ctx;
        ctx.device = &d;
        if (functional)
            ctx.options["functional"] = "1";
        auto c = sim->compileFor(g, plan, ctx);
        if (!c)
            return c.status();
        return sim->run(**c, inputs);
    }

    // The timeline is a valid execution of the plan.
    static void checkTimeline(const ExecutionPlan &plan, const RunResult &r, const std::string &what)
    {
        ASSERT_EQ(r.timeline.size(), plan.tasks.size()) << what;
        double end = 0;
        for (const Task &t : plan.tasks) {
            const TaskTiming &tt = r.timeline[static_cast<std::size_t>(t.id)];
            EXPECT_EQ(tt.task, t.id) << what;
            EXPECT_LE(tt.startNs, tt.endNs) << what;
            for (TaskId d : t.deps)
                EXPECT_GE(tt.startNs, r.timeline[static_cast<std::size_t>(d)].endNs - 1e-6)
                    << what << ": task " << t.id << " started before its dependency " << d << " ended";
            ASSERT_GE(tt.lane, 0);
            ASSERT_LT(static_cast<std::size_t>(tt.lane), r.laneNames.size()) << what;
            end = std::max(end, tt.endNs);
        }
        EXPECT_NEAR(r.metrics.at("sim_time_ms"), end / 1e6, 1e-9) << what;
        EXPECT_GT(end, 0) << what;
    }

    inline static fs::path s_dir;
    SchedulerRegistry schedulers;
    BackendRegistry backends;
    IBackend *sim = nullptr;
    IBackend *reference = nullptr;
};

TEST_F(SimModels, EverySchedulerOnEveryKindOfDevice)
{
    auto g = sample("squeezenet", 0);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const auto inputs = planutil::makeInputs(*g, 3);
    const DeviceRegistry devices = DeviceRegistry::standard();
    std::vector<std::string> names;
    for (const IScheduler *s : schedulers.all())
        names.push_back(s->info().name);
    for (const char *expected : {"sequential", "greedy", "layer-fusion", "ios"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    for (const IScheduler *s : schedulers.all())
        for (const char *id : {"stcp920", "nvidia-v100", "host"}) {
            const std::string what = s->info().name + " on " + id;
            const Device *d = devices.find(id);
            ASSERT_NE(d, nullptr) << id;
            auto run = scheduleGraph(*g, *d, *s, {});
            ASSERT_TRUE(run.isOk()) << what << ": " << run.status().str();
            auto r = simulate(*g, run->result.plan, *d, inputs);
            ASSERT_TRUE(r.isOk()) << what << ": " << r.status().str();
            checkTimeline(run->result.plan, *r, what);
            // Every level reports its traffic; the plan's traffic moved somewhere.
            double bytes = 0;
            for (const MemoryLevel &l : d->levels)
                bytes += r->metrics.at("bytes_by_level/" + l.name);
            EXPECT_GT(bytes, 0) << what;
            // Energy at least the static part; utilisations are fractions.
            EXPECT_GE(r->metrics.at("energy_j"), d->power.staticWatts * r->metrics.at("sim_time_ms") / 1e3) << what;
            for (const auto &[k, v] : r->metrics)
                if (k.rfind("utilisation_by_unit/", 0) == 0) {
                    EXPECT_GE(v, 0) << what << " " << k;
                    EXPECT_LE(v, 1 + 1e-9) << what << " " << k;
                }
            EXPECT_GT(r->metrics.at("throughput"), 0) << what;
            EXPECT_FALSE(r->counters.empty()) << what;
        }
}

// Twin: the stcp920 plan against the V100 model is refused in one line.
TEST_F(SimModels, APlanForAnotherDeviceIsRefused)
{
    auto g = sample("squeezenet", 0);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const DeviceRegistry devices = DeviceRegistry::standard();
    auto run = scheduleGraph(*g, *devices.find("stcp920"), *schedulers.find("layer-fusion"), {});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    auto r = simulate(*g, run->result.plan, *devices.find("nvidia-v100"), planutil::makeInputs(*g, 3));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_EQ(r.status().message(), "the plan was made for device 'stcp920', not for 'nvidia-v100'");
}

// ScheduleSetup::precision: a plan scheduled at f16 is sized at f16 (every
// float buffer half its f32 size), keeps the model's hash, and the simulator
// times it at f16 without options: the same traffic and time as the f32 plan
// of the same schedule timed with dtype=f16. Its functional run computes the
// model's float32 outputs, equal to the reference backend's.
TEST_F(SimModels, APlanAtAPrecisionIsSizedAndTimedAtIt)
{
    auto g = sample("squeezenet", 0);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const DeviceRegistry devices = DeviceRegistry::standard();
    const Device &d = *devices.find("stcp920");
    const IScheduler &sequential = *schedulers.find("sequential");
    const auto inputs = planutil::makeInputs(*g, 3);
    ScheduleSetup half;
    half.precision = DType::Float16;
    auto f32 = scheduleGraph(*g, d, sequential, {});
    auto f16 = scheduleGraph(*g, d, sequential, half);
    ASSERT_TRUE(f32.isOk() && f16.isOk());
    const ExecutionPlan &p32 = f32->result.plan, &p16 = f16->result.plan;
    EXPECT_EQ(p32.precision, DType::Float32);
    EXPECT_EQ(p16.precision, DType::Float16);
    EXPECT_EQ(p16.modelHash, p32.modelHash);
    ASSERT_EQ(p16.buffers.size(), p32.buffers.size());
    for (std::size_t i = 0; i < p32.buffers.size(); ++i) {
        const TensorId t = p32.buffers[i].tensor;
        if (t != kInvalidId && g->tensor(t).dtype == DType::Float32) {
            EXPECT_EQ(p16.buffers[i].bytes * 2, p32.buffers[i].bytes) << g->tensor(t).name;
        }
    }

    CompileContext scaled;
    scaled.device = &d;
    scaled.options["dtype"] = "f16";
    auto c32 = sim->compileFor(*g, p32, scaled);
    ASSERT_TRUE(c32.isOk()) << c32.status().str();
    auto a = sim->run(**c32, inputs);
    auto b = simulate(*g, p16, d, inputs, true);
    ASSERT_TRUE(a.isOk() && b.isOk());
    EXPECT_DOUBLE_EQ(b->metrics.at("bytes_by_level/DDR"), a->metrics.at("bytes_by_level/DDR"));
    EXPECT_NEAR(b->metrics.at("sim_time_ms"), a->metrics.at("sim_time_ms"), 1e-9 * a->metrics.at("sim_time_ms"));
    auto ref = planutil::compileAndRun(*reference, *g, p32, inputs);
    ASSERT_TRUE(ref.isOk()) << ref.status().str();
    ASSERT_EQ(b->outputs.size(), ref->outputs.size());
    for (std::size_t i = 0; i < ref->outputs.size(); ++i)
        EXPECT_EQ(b->outputs[i].bytes, ref->outputs[i].bytes);
}

// Negative twin: a plan already at a precision refuses dtype= (it would count
// its bytes twice), naming the precision.
TEST_F(SimModels, DtypeOnAPlanAtAPrecisionIsRefused)
{
    auto g = sample("squeezenet", 0);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const DeviceRegistry devices = DeviceRegistry::standard();
    const Device &d = *devices.find("stcp920");
    ScheduleSetup half;
    half.precision = DType::Float16;
    auto run = scheduleGraph(*g, d, *schedulers.find("sequential"), half);
    ASSERT_TRUE(run.isOk());
    CompileContext ctx;
    ctx.device = &d;
    ctx.options["dtype"] = "f16";
    auto c = sim->compileFor(*g, run->result.plan, ctx);
    ASSERT_FALSE(c.isOk());
    EXPECT_EQ(c.status().code(), ErrorCode::Usage);
    EXPECT_NE(c.status().message().find("sized and timed at fp16 already"), std::string::npos) << c.status().str();
}

// int8 (a fully quantized deployment): one byte per element, and STCP920's
// matrix unit at its int8 rate — the cost model and the simulator both faster
// than at f16, the simulated DDR traffic half of f16's.
TEST_F(SimModels, Int8HalvesTrafficAndRunsAtTheInt8Rate)
{
    auto g = sample("resnet50", 64);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const DeviceRegistry devices = DeviceRegistry::standard();
    const Device &d = *devices.find("stcp920");
    const auto inputs = planutil::makeInputs(*g, 3);
    const IScheduler &sequential = *schedulers.find("sequential");
    ScheduleSetup half, quarter;
    half.precision = DType::Float16;
    quarter.precision = DType::Int8;
    auto f16 = scheduleGraph(*g, d, sequential, half);
    auto i8 = scheduleGraph(*g, d, sequential, quarter);
    ASSERT_TRUE(f16.isOk() && i8.isOk());
    const TaskCost c16 = f16->result.plan.totalCost(), c8 = i8->result.plan.totalCost();
    EXPECT_NEAR(c8.computeNs * 2, c16.computeNs, 0.2 * c16.computeNs); // MME: 256 TOP/s int8, 128 TFLOP/s f16
    EXPECT_LT(c8.timeNs, c16.timeNs);
    auto a = simulate(*g, f16->result.plan, d, inputs);
    auto b = simulate(*g, i8->result.plan, d, inputs);
    ASSERT_TRUE(a.isOk() && b.isOk());
    EXPECT_LT(b->metrics.at("sim_time_ms"), a->metrics.at("sim_time_ms"));
    EXPECT_NEAR(b->metrics.at("bytes_by_level/DDR") * 2, a->metrics.at("bytes_by_level/DDR"),
                0.01 * a->metrics.at("bytes_by_level/DDR"));
}

// Layer fusion beats one kernel per op on the simulator as on the cost model:
// fewer launches, less DDR traffic (ResNet-50 64×64 on stcp920).
TEST_F(SimModels, FusionIsNotSlowerThanOneKernelPerOp)
{
    auto g = sample("resnet50", 64);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const DeviceRegistry devices = DeviceRegistry::standard();
    const Device &d = *devices.find("stcp920");
    const auto inputs = planutil::makeInputs(*g, 3);
    auto seq = scheduleGraph(*g, d, *schedulers.find("sequential"), {});
    auto fused = scheduleGraph(*g, d, *schedulers.find("layer-fusion"), {});
    ASSERT_TRUE(seq.isOk() && fused.isOk());
    auto a = simulate(*g, seq->result.plan, d, inputs);
    auto b = simulate(*g, fused->result.plan, d, inputs);
    ASSERT_TRUE(a.isOk() && b.isOk());
    // One launch per kernel (10 us each on stcp920) alone makes the difference.
    EXPECT_LT(b->metrics.at("sim_time_ms"), a->metrics.at("sim_time_ms"));
    EXPECT_LT(b->metrics.at("bytes_by_level/DDR"), a->metrics.at("bytes_by_level/DDR"));
}

// Functional mode: for every scheduler, the simulator's outputs are the
// reference backend's, bit for bit (it runs the same plan with the same
// kernels), on two samples.
TEST_F(SimModels, FunctionalOutputsEqualTheReferenceBackend)
{
    const DeviceRegistry devices = DeviceRegistry::standard();
    const Device &d = *devices.find("stcp920");
    for (const auto &[name, size] : std::vector<std::pair<std::string, int>>{{"squeezenet", 0}, {"resnet50", 32}}) {
        auto g = sample(name, size);
        ASSERT_TRUE(g.isOk()) << g.status().str();
        const auto inputs = planutil::makeInputs(*g, 5);
        for (const IScheduler *s : schedulers.all()) {
            const std::string what = s->info().name + " on " + name;
            auto run = scheduleGraph(*g, d, *s, {});
            ASSERT_TRUE(run.isOk()) << what << ": " << run.status().str();
            auto ref = planutil::compileAndRun(*reference, *g, run->result.plan, inputs);
            ASSERT_TRUE(ref.isOk()) << what << ": " << ref.status().str();
            auto r = simulate(*g, run->result.plan, d, inputs, true);
            ASSERT_TRUE(r.isOk()) << what << ": " << r.status().str();
            ASSERT_EQ(r->outputs.size(), ref->outputs.size()) << what;
            ASSERT_FALSE(r->outputs.empty()) << what;
            for (std::size_t i = 0; i < ref->outputs.size(); ++i)
                EXPECT_TRUE(planutil::bitEqual(r->outputs[i], ref->outputs[i])) << what << " output " << i;
            EXPECT_GT(r->metrics.at("sim_time_ms"), 0) << what;
        }
    }
}

// Twin: timing-only runs compute nothing.
TEST_F(SimModels, TimingOnlyRunsReturnNoOutputs)
{
    auto g = sample("squeezenet", 0);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const DeviceRegistry devices = DeviceRegistry::standard();
    const Device &d = *devices.find("stcp920");
    auto run = scheduleGraph(*g, d, *schedulers.find("layer-fusion"), {});
    ASSERT_TRUE(run.isOk());
    auto r = simulate(*g, run->result.plan, d, planutil::makeInputs(*g, 5));
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_TRUE(r->outputs.empty());
    EXPECT_EQ(r->metrics.count("functional"), 0u);
}

// Metrics stream while the run goes and cancel stops it.
TEST_F(SimModels, MetricsStreamAndCancelStops)
{
    auto g = sample("squeezenet", 0);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const DeviceRegistry devices = DeviceRegistry::standard();
    const Device &d = *devices.find("stcp920");
    auto run = scheduleGraph(*g, d, *schedulers.find("sequential"), {});
    ASSERT_TRUE(run.isOk());
    CompileContext ctx{&d, {}};
    auto c = sim->compileFor(*g, run->result.plan, ctx);
    ASSERT_TRUE(c.isOk()) << c.status().str();
    const auto inputs = planutil::makeInputs(*g, 5);
    int updates = 0, finished = 0;
    double lastTime = -1;
    bool monotonic = true;
    RunObserver obs;
    obs.taskFinished = [&](TaskId, double) { ++finished; };
    obs.metricsUpdated = [&](const std::map<std::string, double> &m) {
        ++updates;
        monotonic = monotonic && m.at("sim_time_ms") >= lastTime;
        lastTime = m.at("sim_time_ms");
    };
    auto r = sim->run(**c, inputs, obs);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_EQ(finished, static_cast<int>(run->result.plan.tasks.size()));
    EXPECT_GT(updates, 10);
    EXPECT_TRUE(monotonic);
    EXPECT_EQ(lastTime, r->metrics.at("sim_time_ms"));

    std::atomic<bool> cancel{false};
    RunObserver stop;
    stop.cancel = &cancel;
    stop.taskFinished = [&](TaskId, double fraction) {
        if (fraction > 0.5)
            cancel = true;
    };
    auto cancelled = sim->run(**c, inputs, stop);
    ASSERT_FALSE(cancelled.isOk());
    EXPECT_EQ(cancelled.status().code(), ErrorCode::Cancelled);
}

} // namespace
} // namespace tessera
