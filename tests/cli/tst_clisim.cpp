// tessera-cli run on the simulator backend: the metrics JSON, the Perfetto
// trace, --functional against the reference backend, the "dsa" alias, stored
// plans with --plan, and the one-line exit-3 refusals of bad plans.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <string>

#include "tests/common/clirun.h"

namespace fs = std::filesystem;

namespace {

class CliSim : public tessera::test::CliSuite<CliSim>
{
public:
    static constexpr const char *kDirName = "tessera-clisim-test";

protected:
    // A stored layer-fusion plan for stcp920 written to `name`; edit "core"
    // binds its first task to core 40.
    static std::string plan(const std::string &model, const std::string &name, const std::string &edit = {})
    {
        const fs::path p = s_dir / name;
        Result r = run("schedule " + model + " --algo layer-fusion --device stcp920 --out " + p.string());
        EXPECT_EQ(r.code, 0) << r.err;
        if (!edit.empty()) {
            QJsonObject d = json(slurp(p));
            QJsonObject planObj = d["plan"].toObject();
            QJsonArray tasks = planObj["tasks"].toArray();
            QJsonObject t0 = tasks[0].toObject();
            QJsonObject binding = t0["binding"].toObject();
            if (edit == "core")
                binding["core"] = 40;
            t0["binding"] = binding;
            tasks[0] = t0;
            planObj["tasks"] = tasks;
            d["plan"] = planObj;
            std::ofstream(p) << QJsonDocument(d).toJson().toStdString();
        }
        return p.string();
    }
};

TEST_F(CliSim, RunReportsMetricsAndWritesATrace)
{
    const std::string model = sample("squeezenet");
    const fs::path trace = s_dir / "sim-trace.json";
    Result r =
        run("run " + model + " --algo layer-fusion --backend sim --device stcp920 --json --trace " + trace.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonObject o = json(r.out);
    EXPECT_EQ(o["backend"].toString(), "sim");
    const QJsonObject m = o["metrics"].toObject();
    for (const char *key : {"sim_time_ms", "throughput", "bytes_by_level", "peak_occupancy_by_level",
                            "utilisation_by_unit", "energy_j", "avg_power_w"})
        EXPECT_TRUE(m.contains(key)) << key;
    EXPECT_DOUBLE_EQ(o["latency_ms"].toDouble(), m["sim_time_ms"].toDouble());
    EXPECT_GT(m["bytes_by_level"].toObject()["DDR"].toDouble(), 0);
    EXPECT_TRUE(m["utilisation_by_unit"].toObject().contains("MME"));
    // Batch 1: throughput is one image per simulated time.
    EXPECT_NEAR(m["throughput"].toDouble(), 1e3 / m["sim_time_ms"].toDouble(), 1e-6);
    EXPECT_TRUE(o["outputs"].toArray().isEmpty()); // timing only

    const QJsonArray events = json(slurp(trace))["traceEvents"].toArray();
    bool unitTrack = false, occupancy = false;
    for (const auto &v : events) {
        const QJsonObject e = v.toObject();
        if (e["name"] == "thread_name" && e["args"].toObject()["name"].toString().contains(" cores 0-31"))
            unitTrack = true;
        if (e["ph"] == "C" && e["name"] == "occupancy/DDR")
            occupancy = true;
    }
    EXPECT_TRUE(unitTrack);
    EXPECT_TRUE(occupancy);
}

// --dtype f16 times float32 tensors as the deployment precision (issue 12 item 6: STCP920's MME has
// f16 rates only, so the convolutions move from the VME to the MME and the run is faster); twin: a
// type no device runs at is refused in one line, exit 2 (usage).
TEST_F(CliSim, DtypeOptionReachesTheSimulator)
{
    const std::string model = sample("squeezenet");
    const std::string base = "run " + model + " --algo layer-fusion --backend sim --device stcp920 --json";
    Result f32 = run(base);
    Result f16 = run(base + " --dtype f16");
    ASSERT_EQ(f32.code, 0) << f32.err;
    ASSERT_EQ(f16.code, 0) << f16.err;
    const double t32 = json(f32.out)["metrics"].toObject()["sim_time_ms"].toDouble();
    const double t16 = json(f16.out)["metrics"].toObject()["sim_time_ms"].toDouble();
    EXPECT_GT(t32, 0);
    EXPECT_LT(t16, t32);
    Result bad = run(base + " --dtype i64");
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_NE(bad.err.find("sim option dtype expects a precision (fp32, fp16, bf16, int8)"), std::string::npos)
        << bad.err;
}

// --precision sizes the plan as well as timing it: the summary names it, a
// stored plan keeps it (run --plan times it the same without options), and
// the plan at fp16 is faster on stcp920 than at fp32. Twins: an unknown
// precision, and --precision beside --plan, are usage errors (exit 2).
TEST_F(CliSim, PrecisionSizesAndTimesThePlan)
{
    const std::string model = sample("squeezenet");
    const std::string base = "run " + model + " --algo graphturbo --backend sim --device stcp920 --json";
    Result f32 = run(base);
    Result f16 = run(base + " --precision fp16");
    ASSERT_EQ(f32.code, 0) << f32.err;
    ASSERT_EQ(f16.code, 0) << f16.err;
    EXPECT_EQ(json(f32.out)["precision"].toString(), "fp32");
    EXPECT_EQ(json(f16.out)["precision"].toString(), "fp16");
    const double t16 = json(f16.out)["latency_ms"].toDouble();
    EXPECT_LT(t16, json(f32.out)["latency_ms"].toDouble());

    const fs::path stored = s_dir / "plan-f16.json";
    Result sched =
        run("schedule " + model + " --algo graphturbo --device stcp920 --precision fp16 --out " + stored.string());
    ASSERT_EQ(sched.code, 0) << sched.err;
    EXPECT_NE(sched.out.find("graphturbo on stcp920 at fp16"), std::string::npos) << sched.out;
    EXPECT_EQ(json(slurp(stored))["plan"].toObject()["precision"].toString(), "fp16");
    Result replay = run("run " + model + " --plan " + stored.string() + " --backend sim --device stcp920 --json");
    ASSERT_EQ(replay.code, 0) << replay.err;
    EXPECT_DOUBLE_EQ(json(replay.out)["latency_ms"].toDouble(), t16);

    Result unknown = run(base + " --precision int4");
    EXPECT_EQ(unknown.code, 2) << unknown.err;
    EXPECT_NE(unknown.err.find("--precision expects one of fp32, fp16, bf16, int8, got 'int4'"), std::string::npos)
        << unknown.err;
    Result both =
        run("run " + model + " --plan " + stored.string() + " --backend sim --device stcp920 --precision fp16");
    EXPECT_EQ(both.code, 2) << both.err;
}

// Issue 18 item 5: the text summary's numbers go through the one formatting
// helper (core/support/units.h), with their units.
TEST_F(CliSim, TextSummaryNumbersHaveUnits)
{
    Result r = run("run " + sample("squeezenet") + " --algo layer-fusion --backend sim --device stcp920");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::regex throughput(R"(throughput [0-9.]+ (k |M )?items/s)"), energy(R"(energy +[0-9.]+ (m|µ)?J)"),
        power(R"(avg power +[0-9.]+ (m)?W)");
    EXPECT_TRUE(std::regex_search(r.out, throughput)) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, energy)) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, power)) << r.out;
    // Twin: no bare %g number, as the summary printed before ("energy_j 0.0123").
    EXPECT_EQ(r.out.find("energy_j"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("avg_power_w"), std::string::npos) << r.out;
}

// Twin of the timing-only run: --functional (through the "dsa" alias) returns
// the reference backend's outputs.
TEST_F(CliSim, FunctionalRunMatchesTheReferenceBackend)
{
    const std::string model = sample("nerf-mlp", "--batch 4");
    Result ref = run("run " + model + " --algo greedy --backend reference --device stcp920 --json");
    ASSERT_EQ(ref.code, 0) << ref.err;
    Result sim = run("run " + model + " --algo greedy --backend dsa --device stcp920 --functional --json");
    ASSERT_EQ(sim.code, 0) << sim.err;
    const QJsonArray a = json(ref.out)["outputs"].toArray(), b = json(sim.out)["outputs"].toArray();
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GE(a.size(), 1);
    for (qsizetype i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i].toObject()["sum"].toDouble(), b[i].toObject()["sum"].toDouble());
    EXPECT_EQ(json(sim.out)["backend"].toString(), "sim");
}

TEST_F(CliSim, StoredPlanRunsOnItsDevice)
{
    const std::string model = sample("squeezenet");
    Result r = run("run " + model + " --plan " + plan(model, "good.json") + " --backend sim --device stcp920 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json(r.out)["algorithm"].toString(), "layer-fusion");
}

// Twins: the same plan on another device, and bound to a core stcp920 does not
// have: exit 3, one line naming the problem (and the task).
TEST_F(CliSim, BadPlansExitThreeWithOneLine)
{
    const std::string model = sample("squeezenet");
    Result other = run("run " + model + " --plan " + plan(model, "p.json") + " --backend sim --device nvidia-v100");
    EXPECT_EQ(other.code, 3);
    EXPECT_EQ(other.err, "tessera-cli: error: the plan was made for device 'stcp920', not for 'nvidia-v100'\n");
    Result core =
        run("run " + model + " --plan " + plan(model, "bad.json", "core") + " --backend sim --device stcp920");
    EXPECT_EQ(core.code, 3);
    EXPECT_NE(core.err.find("error: bound to cores [40, 41) but stcp920 has 32"), std::string::npos) << core.err;
    EXPECT_NE(core.err.find("node '"), std::string::npos) << core.err; // the task
    EXPECT_EQ(std::count(core.err.begin(), core.err.end(), '\n'), 1);
}

} // namespace
