// tessera-cli end to end: exit codes, JSON keys, one-line errors.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <string>

#include "tests/common/clirun.h"

namespace fs = std::filesystem;

namespace {

class Cli : public tessera::test::CliSuite<Cli>
{
public:
    static constexpr const char *kDirName = "tessera-cli-test";
};

} // namespace

TEST_F(Cli, UsageErrorsExitWithTwo)
{
    EXPECT_EQ(run("").code, 2);
    Result r = run("frobnicate");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("unknown command 'frobnicate'; known: inspect"), std::string::npos) << r.err;
    EXPECT_EQ(run("inspect").code, 2);
    EXPECT_EQ(run("inspect a.onnx --bogus").code, 2);
    EXPECT_EQ(run("help").code, 0);
    EXPECT_EQ(run("inspect --help").code, 0);
}

TEST_F(Cli, InspectPrintsTheDocumentedJsonKeys)
{
    Result r = run("inspect " + sample("squeezenet") + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonObject o = json(r);
    for (const char *key : {"nodes", "edges", "tensors", "ops", "inputs", "outputs", "flops", "params", "width"})
        EXPECT_TRUE(o.contains(key)) << key;
    EXPECT_GT(o["nodes"].toInt(), 50);
    EXPECT_GT(o["width"].toInt(), 1);
    EXPECT_GT(o["ops"].toObject()["Conv"].toInt(), 20);
    EXPECT_EQ(o["inputs"].toArray().size(), 1);
    EXPECT_GT(o["flops"].toDouble(), 1e8);
}

TEST_F(Cli, InspectTextOutputHasTheHistogram)
{
    Result r = run("inspect " + sample("squeezenet"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("width"), std::string::npos);
    EXPECT_NE(r.out.find("Conv"), std::string::npos);
    // Issue 18 item 5: FLOPs and parameters through the one helper, no raw twin.
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(flops +[0-9.]+ [kMGT]?FLOP\n)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(params +[0-9.]+( [kM])?\n)"))) << r.out;
    EXPECT_FALSE(std::regex_search(r.out, std::regex(R"(flops +[0-9.]+e\+)"))) << r.out;
}

// Scheduler statistics in the text summary read by their unit: a latency in
// ns is a duration, a count a plain number — never a bare "%g" value.
TEST_F(Cli, ScheduleTextStatsHaveUnits)
{
    Result r = run("schedule " + sample("squeezenet") + " --algo layer-fusion --device stcp920");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(stat kernels +[0-9]+\n)"))) << r.out;
    EXPECT_FALSE(std::regex_search(r.out, std::regex(R"(stat \S+ +[0-9.]+e[+-])"))) << r.out;
}

TEST_F(Cli, BadModelsExitWithThreeAndOneLine)
{
    Result missing = run("inspect " + (s_dir / "nope.onnx").string());
    EXPECT_EQ(missing.code, 3);
    EXPECT_NE(missing.err.find("nope.onnx"), std::string::npos) << missing.err;

    const fs::path garbage = s_dir / "garbage.onnx";
    std::ofstream(garbage) << "this is not a protobuf \x01\x02\x03";
    Result bad = run("inspect " + garbage.string());
    EXPECT_EQ(bad.code, 3);
    EXPECT_NE(bad.err.find("garbage.onnx"), std::string::npos) << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST_F(Cli, DevicesListsPresets)
{
    Result r = run("devices --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonArray list = QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).array();
    QStringList ids;
    for (const auto &d : list)
        ids << d.toObject()["id"].toString();
    for (const char *id : {"stcp920", "nvidia-v100", "nvidia-a100", "host"})
        EXPECT_TRUE(ids.contains(id)) << id;
}

TEST_F(Cli, BrokenDeviceFileExitsWithThree)
{
    const fs::path dir = s_dir / "devices";
    fs::create_directories(dir);
    std::ofstream(dir / "broken.json") << "{ \"id\": \"x\", ";
    Result r = run("devices --dir " + dir.string());
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("broken.json"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("stcp920"), std::string::npos); // the others still list
}

TEST_F(Cli, SampleRejectsUnknownNamesAndBadOptions)
{
    Result unknown = run("sample alexnet --out " + (s_dir / "x.onnx").string());
    EXPECT_NE(unknown.code, 0);
    EXPECT_NE(unknown.err.find("known:"), std::string::npos) << unknown.err;
    EXPECT_EQ(run("sample resnet50 --batch 0 --out " + (s_dir / "x.onnx").string()).code, 2);
    EXPECT_EQ(run("sample resnet50").code, 2);
}

TEST_F(Cli, ScheduleReportsThePlan)
{
    const fs::path planFile = s_dir / "plan.json", traceFile = s_dir / "trace.json";
    Result r = run("schedule " + sample("squeezenet") + " --algo layer-fusion --device stcp920 --json --out " +
                   planFile.string() + " --trace " + traceFile.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonObject o = json(r);
    for (const char *key : {"algorithm", "device", "kernels", "steps", "decisions", "search_ms", "est_latency_ms",
                            "traffic_bytes", "stats"})
        EXPECT_TRUE(o.contains(key)) << key;
    EXPECT_EQ(o["algorithm"].toString(), "layer-fusion");
    EXPECT_GT(o["kernels"].toInt(), 10);
    EXPECT_TRUE(o["traffic_bytes"].toObject().contains("DDR"));
    EXPECT_TRUE(fs::file_size(planFile) > 100);
    EXPECT_NE(slurp(traceFile).find("traceEvents"), std::string::npos);
}

// Issue 18: names users type match without regard to case; the output keeps
// the registered spelling.
TEST_F(Cli, NamesMatchWithoutRegardToCase)
{
    Result r = run("schedule " + sample("squeezenet") + " --algo IOS --device NVIDIA-V100 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonObject o = json(r);
    EXPECT_EQ(o["algorithm"].toString(), "ios");
    EXPECT_EQ(o["device"].toString(), "nvidia-v100");
    Result text = run("schedule " + sample("squeezenet") + " --algo Sequential --device STCP920");
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("algorithm      sequential on stcp920"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("est. latency   "), std::string::npos) << text.out;
    EXPECT_EQ(run("sample ResNet50 --out " + (s_dir / "upper.onnx").string()).code, 0);
    EXPECT_EQ(run("schedule " + sample("squeezenet") + " --algo I-O-S").code, 2); // not a looser match
}

TEST_F(Cli, ScheduleUsageAndOverrideErrors)
{
    const std::string model = sample("squeezenet");
    EXPECT_EQ(run("schedule " + model + " --algo magic").code, 2);
    EXPECT_EQ(run("schedule " + model + " --algo greedy --device nodevice").code, 2);
    EXPECT_EQ(run("schedule " + model + " --algo greedy --option nosuch=1").code, 2);
    const fs::path overrides = s_dir / "overrides.json";
    std::ofstream(overrides) << R"({"layer-fusion.fuse:no-such-node": "separate"})";
    Result stale = run("schedule " + model + " --algo layer-fusion --override " + overrides.string());
    EXPECT_EQ(stale.code, 3);
    EXPECT_NE(stale.err.find("stale"), std::string::npos) << stale.err;
    std::ofstream(overrides) << "{ not json";
    EXPECT_EQ(run("schedule " + model + " --algo layer-fusion --override " + overrides.string()).code, 3);
}

// Issue 16's command line: BrickDL on the A100 with a forced brick size; a size
// that is not one of §3.3.3's is a usage error naming the valid ones; a
// matmul-only model runs as library kernels (no merged sub-graph).
TEST_F(Cli, BrickdlScheduleWithBrickOption)
{
    const std::string model = sample("resnet18-tailor");
    Result r = run("schedule " + model + " --algo brickdl --device nvidia-a100 --option brick=8 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonObject stats = json(r)["stats"].toObject();
    EXPECT_GT(stats["subgraphs"].toDouble(), 0);
    EXPECT_GT(stats["brick_tasks"].toDouble(), 0);
    Result bad = run("schedule " + model + " --algo brickdl --device nvidia-a100 --option brick=5");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("valid: auto, 4, 8, 16, 32"), std::string::npos) << bad.err;
    Result mlp = run("schedule " + sample("nerf-mlp") + " --algo brickdl --device nvidia-a100 --json");
    ASSERT_EQ(mlp.code, 0) << mlp.err;
    EXPECT_EQ(json(mlp)["stats"].toObject()["subgraphs"].toDouble(), 0);
    EXPECT_GT(json(mlp)["stats"].toObject()["library_nodes"].toDouble(), 0);
}

TEST_F(Cli, RunWritesOutputsAndAgreesAcrossSchedules)
{
    const std::string model = sample("nerf-mlp", "--batch 4");
    const fs::path outDir = s_dir / "run-out";
    Result seq = run("run " + model + " --algo sequential --backend reference --json --output-dir " + outDir.string());
    ASSERT_EQ(seq.code, 0) << seq.err;
    const QJsonObject a = json(seq);
    for (const char *key : {"backend", "latency_ms", "outputs", "metrics"})
        EXPECT_TRUE(a.contains(key)) << key;
    EXPECT_EQ(a["backend"].toString(), "reference");
    ASSERT_GE(a["outputs"].toArray().size(), 1);
    EXPECT_TRUE(fs::exists(outDir / "output_0.pb"));

    Result fused = run("run " + model + " --algo layer-fusion --backend reference --json");
    ASSERT_EQ(fused.code, 0) << fused.err;
    const QJsonObject b = json(fused);
    EXPECT_LT(b["kernels"].toInt(), a["kernels"].toInt());
    EXPECT_DOUBLE_EQ(a["outputs"].toArray()[0].toObject()["sum"].toDouble(),
                     b["outputs"].toArray()[0].toObject()["sum"].toDouble());

    // Feeding an output file back as an input is refused by name when it is not an input.
    Result badInput = run("run " + model + " --input nosuch=" + (outDir / "output_0.pb").string());
    EXPECT_EQ(badInput.code, 2);
    EXPECT_NE(badInput.err.find("not a graph input"), std::string::npos) << badInput.err;
    EXPECT_EQ(run("run " + model + " --backend warp-drive").code, 2);
}

// `run` schedules what `schedule` schedules: the model's metadata reaches the
// scheduler (NasNet-A's IOS units and blocks; without them IOS cut the graph
// into its own, larger blocks and `run` refused the model: "more than
// 20000000 stage candidates").
TEST_F(Cli, RunSchedulesWithTheModelsMetadataAsScheduleDoes)
{
    const std::string model = sample("nasnet-a");
    Result scheduled = run("schedule " + model + " --algo ios --device host --json");
    ASSERT_EQ(scheduled.code, 0) << scheduled.err;
    Result ran = run("run " + model + " --algo ios --device host --backend sim --json");
    ASSERT_EQ(ran.code, 0) << ran.err;
    const QJsonObject a = json(scheduled), b = json(ran);
    EXPECT_EQ(a["kernels"].toInt(), b["kernels"].toInt());
    EXPECT_DOUBLE_EQ(a["est_latency_ms"].toDouble(), b["est_latency_ms"].toDouble());
}

// --cost measured: every kernel of the plan timed on the CPU backend (the
// host's meter), the plan's costs measured, the meter reported.
TEST_F(Cli, ScheduleWithMeasuredCostsTimesEveryKernelOnTheCpuBackend)
{
    const std::string model = sample("nerf-mlp", "--batch 4");
    Result r = run("schedule " + model + " --algo sequential --device host --cost measured --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonObject o = json(r);
    EXPECT_EQ(o["cost_kind"].toString(), "measured");
    const QJsonObject meter = o["meter"].toObject();
    EXPECT_EQ(meter["backend"].toString(), "cpu");
    EXPECT_EQ(meter["kernels_measured"].toInt(), o["kernels"].toInt());
    Result estimated = run("schedule " + model + " --algo sequential --device host --json");
    ASSERT_EQ(estimated.code, 0) << estimated.err;
    EXPECT_EQ(json(estimated)["cost_kind"].toString(), "estimated");
    EXPECT_FALSE(json(estimated).contains("meter"));
}

// Twins: an unknown cost kind, a meter that reports no time and --meter
// without --cost measured are usage errors naming the problem.
TEST_F(Cli, MeasuredCostsNeedABackendThatTimes)
{
    const std::string model = sample("nerf-mlp", "--batch 4");
    Result bogus = run("schedule " + model + " --algo sequential --device host --cost guessed");
    EXPECT_EQ(bogus.code, 2);
    EXPECT_NE(bogus.err.find("--cost expects estimated or measured"), std::string::npos) << bogus.err;
    Result null = run("schedule " + model + " --algo sequential --device host --cost measured --meter null");
    EXPECT_EQ(null.code, 2);
    EXPECT_NE(null.err.find("reports no time"), std::string::npos) << null.err;
    Result lonely = run("schedule " + model + " --algo sequential --device host --meter cpu");
    EXPECT_EQ(lonely.code, 2);
    EXPECT_NE(lonely.err.find("--meter needs --cost measured"), std::string::npos) << lonely.err;
}

// The null backend runs any plan through the same command: zero-filled outputs of
// the reference backend's names and shapes, in zero time. Its twin: an unknown
// backend is a usage error naming the registered ones.
TEST_F(Cli, RunOnTheNullBackendWritesZeroOutputs)
{
    const std::string model = sample("nerf-mlp", "--batch 4");
    const fs::path outDir = s_dir / "null-out";
    Result ref = run("run " + model + " --json");
    ASSERT_EQ(ref.code, 0) << ref.err;
    EXPECT_EQ(json(ref)["backend"].toString(), "reference"); // the option spec's default
    Result null = run("run " + model + " --backend null --json --output-dir " + outDir.string());
    ASSERT_EQ(null.code, 0) << null.err;
    const QJsonObject a = json(ref), b = json(null);
    EXPECT_EQ(b["backend"].toString(), "null");
    EXPECT_EQ(b["latency_ms"].toDouble(), 0);
    const QJsonArray ao = a["outputs"].toArray(), bo = b["outputs"].toArray();
    ASSERT_EQ(bo.size(), ao.size());
    for (qsizetype i = 0; i < bo.size(); ++i) {
        EXPECT_EQ(bo[i].toObject()["name"], ao[i].toObject()["name"]);
        EXPECT_EQ(bo[i].toObject()["shape"], ao[i].toObject()["shape"]);
        EXPECT_EQ(bo[i].toObject()["sum"].toDouble(), 0);
    }
    EXPECT_TRUE(fs::exists(outDir / "output_0.pb"));

    Result unknown = run("run " + model + " --backend warp-drive");
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.err.find("unknown backend 'warp-drive'; known: reference, null"), std::string::npos)
        << unknown.err;
}

// The cpu backend through `run`: --threads caps its workers, --repeat N reports
// the median run and the fastest, every kernel carries its engine, and the
// outputs match the reference backend's. Twin: bad counts are usage errors.
TEST_F(Cli, RunOnTheCpuBackendRepeatsAndReportsKernels)
{
    const std::string model = sample("nerf-mlp", "--batch 4");
    Result ref = run("run " + model + " --algo layer-fusion --json");
    ASSERT_EQ(ref.code, 0) << ref.err;
    Result cpu = run("run " + model + " --algo layer-fusion --backend cpu --threads 1 --repeat 3 --json");
    ASSERT_EQ(cpu.code, 0) << cpu.err;
    const QJsonObject a = json(ref), b = json(cpu);
    EXPECT_EQ(b["backend"].toString(), "cpu");
    const QJsonObject metrics = b["metrics"].toObject();
    EXPECT_EQ(metrics["runs"].toDouble(), 3);
    EXPECT_EQ(metrics["threads"].toDouble(), 1);
    EXPECT_LE(metrics["min_ms"].toDouble(), b["latency_ms"].toDouble());
    int kernelTimes = 0; // "kernel/<task> <engines>/wall_ms" (beside /gflops and /gbps)
    for (const QString &key : metrics["kernel"].toObject().keys())
        kernelTimes += key.endsWith("/wall_ms");
    EXPECT_EQ(kernelTimes, b["kernels"].toInt());
    const double want = a["outputs"].toArray()[0].toObject()["sum"].toDouble();
    const double got = b["outputs"].toArray()[0].toObject()["sum"].toDouble();
    EXPECT_NEAR(got, want, 1e-3 * std::max(1.0, std::abs(want)));
    Result text = run("run " + model + " --algo layer-fusion --backend cpu --repeat 2");
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("(median of 2 runs, fastest "), std::string::npos) << text.out;
    // Event counters: counted, or the reason they are not (issue 13 item 2).
    EXPECT_TRUE(
        std::regex_search(text.out, std::regex(R"(\ncounter    (page_faults [0-9.]+|unavailable: .*page_faults))")))
        << text.out;
    // Issue 18 item 5: times through the one helper (four figures, a prefix), not "%.3f ms".
    const std::string latency = text.out.substr(text.out.find("latency    "));
    EXPECT_NE(latency.find(" measured, "), std::string::npos) << latency;
    EXPECT_TRUE(std::regex_search(
        latency, std::regex(R"(^latency    [0-9.]+ (ns|µs|ms|s) measured, [0-9.]+ (ns|µs|ms|s) estimated)")))
        << latency;

    Result zero = run("run " + model + " --backend cpu --threads 0");
    EXPECT_EQ(zero.code, 2);
    EXPECT_NE(zero.err.find("--threads"), std::string::npos) << zero.err;
    EXPECT_EQ(run("run " + model + " --backend cpu --repeat many").code, 2);
}

// `bench`: warm-up runs, then --repeat measured runs with median, spread and
// CPU time. `--check` compares every output with the reference backend's and
// passes within the tolerance. Twins: a tolerance the float arithmetic cannot
// meet fails the check (exit 1, MISMATCH per output); bad counts are usage errors.
TEST_F(Cli, BenchReportsSpreadAndCheckComparesWithTheReference)
{
    const std::string model = sample("nerf-mlp", "--batch 4");
    Result r = run("bench " + model + " --algo layer-fusion --backend cpu --warmup 1 --repeat 4 --check --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonObject b = json(r);
    const QJsonObject bench = b["bench"].toObject();
    EXPECT_EQ(bench["runs"].toInt(), 4);
    EXPECT_EQ(bench["warmup"].toInt(), 1);
    EXPECT_LE(bench["min_ms"].toDouble(), bench["median_ms"].toDouble());
    EXPECT_LE(bench["median_ms"].toDouble(), bench["max_ms"].toDouble());
    EXPECT_LE(bench["p10_ms"].toDouble(), bench["p90_ms"].toDouble());
    EXPECT_GT(bench["cpu_median_ms"].toDouble(), 0);
    const QJsonObject check = b["check"].toObject();
    EXPECT_TRUE(check["ok"].toBool());
    ASSERT_EQ(check["outputs"].toArray().size(), b["outputs"].toArray().size());
    EXPECT_LT(check["outputs"].toArray()[0].toObject()["rel_l2"].toDouble(), 1e-4);

    Result text = run("bench " + model + " --backend cpu --repeat 3 --check");
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("runs       3 after 3 warm-up; min "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("cpu time   "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("(tolerance 0.0001): ok"), std::string::npos) << text.out;

    // The reference backend against itself is exact; the cpu backend's
    // reordered float sums are not, so a tolerance of 1e-15 fails.
    Result strict = run("run " + model + " --algo layer-fusion --backend cpu --check --tolerance 1e-15");
    EXPECT_EQ(strict.code, 1) << strict.out;
    EXPECT_NE(strict.out.find("MISMATCH"), std::string::npos) << strict.out;
    EXPECT_NE(strict.err.find("--check: cpu differs from the reference backend"), std::string::npos) << strict.err;
    Result exact = run("run " + model + " --algo layer-fusion --backend reference --check --tolerance 1e-15");
    EXPECT_EQ(exact.code, 0) << exact.out << exact.err;

    EXPECT_EQ(run("bench " + model + " --backend cpu --warmup -1").code, 2);
    EXPECT_EQ(run("run " + model + " --backend cpu --check --tolerance zero").code, 2);
}

TEST_F(Cli, BackendsListsCapabilities)
{
    Result r = run("backends --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonArray list = QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).array();
    ASSERT_EQ(list.size(), 4);
    const QJsonObject ref = list[0].toObject(), null = list[1].toObject(), sim = list[2].toObject(),
                      cpu = list[3].toObject();
    EXPECT_EQ(sim["name"].toString(), "sim");
    EXPECT_TRUE(sim["timing"].toBool());
    EXPECT_EQ(cpu["name"].toString(), "cpu");
    EXPECT_TRUE(cpu["functional"].toBool());
    EXPECT_TRUE(cpu["measured"].toBool());
    EXPECT_EQ(ref["name"].toString(), "reference");
    EXPECT_TRUE(ref["functional"].toBool());
    EXPECT_TRUE(ref["measured"].toBool());
    EXPECT_EQ(null["name"].toString(), "null");
    EXPECT_FALSE(null["functional"].toBool());
    EXPECT_FALSE(null["timing"].toBool());
    EXPECT_EQ(null["device_kinds"].toArray().first().toString(), "any");
    EXPECT_EQ(run("backends extra").code, 2);
}

TEST_F(Cli, DecisionKeysAreStableAcrossImports)
{
    // Two separate imports (two processes) of the same model ask the same decisions.
    const std::string model = sample("squeezenet");
    const fs::path a = s_dir / "keys-a.json", b = s_dir / "keys-b.json";
    ASSERT_EQ(run("schedule " + model + " --algo greedy --out " + a.string()).code, 0);
    ASSERT_EQ(run("schedule " + model + " --algo greedy --out " + b.string()).code, 0);
    auto keys = [](const fs::path &p) {
        QStringList out;
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(slurp(p))).object();
        for (const auto &d : o["decisions"].toArray())
            out << d.toObject()["key"].toString();
        return out;
    };
    const QStringList ka = keys(a);
    EXPECT_GT(ka.size(), 5);
    EXPECT_EQ(ka, keys(b));
    EXPECT_EQ(QJsonDocument::fromJson(QByteArray::fromStdString(slurp(a))).object()["model_hash"],
              QJsonDocument::fromJson(QByteArray::fromStdString(slurp(b))).object()["model_hash"]);
}

// Scheduler plugins from TESSERA_PLUGIN_PATH: listed and usable like built-ins;
// a misfit is one warning line and changes nothing else.
TEST_F(Cli, PluginSchedulersLoadFromThePluginPath)
{
    const fs::path good = s_dir / "plugins-good", bad = s_dir / "plugins-bad";
    fs::create_directories(good);
    fs::create_directories(bad);
    fs::copy_file(EXAMPLE_PLUGIN, good / "libexample.so", fs::copy_options::overwrite_existing);
    fs::copy_file(BAD_ABI_PLUGIN, bad / "libbad.so", fs::copy_options::overwrite_existing);
    const std::string env = "TESSERA_PLUGIN_PATH=" + good.string() + ":" + bad.string();

    Result listed = run("algorithms");
    EXPECT_EQ(listed.out.find("example-chain"), std::string::npos) << "not without the path";
    auto withPlugins = [&](const std::string &args) { return tessera::test::runCli(s_dir, args, env); };
    listed = withPlugins("algorithms");
    ASSERT_EQ(listed.code, 0) << listed.err;
    EXPECT_NE(listed.out.find("example-chain"), std::string::npos);
    EXPECT_NE(listed.err.find("libbad.so"), std::string::npos);
    EXPECT_NE(listed.err.find("another Tessera"), std::string::npos);

    Result scheduled = withPlugins("schedule " + sample("squeezenet") + " --algo example-chain --json");
    ASSERT_EQ(scheduled.code, 0) << scheduled.err;
    EXPECT_EQ(json(scheduled)["algorithm"].toString(), "example-chain");
    EXPECT_GT(json(scheduled)["kernels"].toInt(), 10);
}

// --- issue 18: the model a project references ---------------------------------------------------

// A project of a bundled sample names it (and its version), stores no path, and replays from any folder.
TEST_F(Cli, AProjectOfASampleNamesItAndReplaysAnywhere)
{
    const fs::path dir = s_dir / "sample-project";
    fs::create_directories(dir / "moved");
    const fs::path project = dir / "s.tessera";
    Result created = run("project create " + project.string() + " --sample SqueezeNet --algo greedy");
    ASSERT_EQ(created.code, 0) << created.err;
    Result shown = run("project show " + project.string() + " --json");
    ASSERT_EQ(shown.code, 0) << shown.err;
    const QJsonObject o = json(shown);
    EXPECT_EQ(o["model"].toString(), "sample:squeezenet");
    EXPECT_EQ(o["model_sample"].toString(), "squeezenet");
    EXPECT_EQ(o["model_sample_version"].toInt(), 1);
    EXPECT_EQ(o["model_content_hash"].toString(), "");
    EXPECT_EQ(slurp(project).find("tessera-cli-models"), std::string::npos) << "no scratch path is stored";
    fs::rename(project, dir / "moved" / "s.tessera");
    Result replayed = run("replay " + (dir / "moved" / "s.tessera").string() + " --json");
    ASSERT_EQ(replayed.code, 0) << replayed.err;
    EXPECT_TRUE(json(replayed)["reproduced"].toBool()) << replayed.out;
}

// Negative twin: an unknown sample, or --embed with a sample, is a usage error and writes nothing.
TEST_F(Cli, AProjectOfAnUnknownSampleIsRefused)
{
    const fs::path project = s_dir / "unknown-sample.tessera";
    Result unknown = run("project create " + project.string() + " --sample alexnet --algo greedy");
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.err.find("unknown sample 'alexnet'; known:"), std::string::npos) << unknown.err;
    EXPECT_EQ(run("project create " + project.string() + " --sample squeezenet --embed --algo greedy").code, 2);
    EXPECT_EQ(run("project create " + project.string() + " --sample squeezenet --model x.onnx --algo greedy").code, 2);
    EXPECT_FALSE(fs::exists(project));
}

// An embedded model replays after its file is gone; a changed file with the same structure replays with a note.
TEST_F(Cli, AnEmbeddedModelOutlivesItsFile)
{
    const fs::path dir = s_dir / "embedded";
    fs::create_directories(dir);
    const fs::path model = dir / "sq.onnx", project = dir / "e.tessera";
    ASSERT_EQ(run("sample squeezenet --external-data --out " + model.string()).code, 0);
    ASSERT_TRUE(fs::exists(dir / "sq.onnx.data"));
    ASSERT_EQ(run("project create " + project.string() + " --model " + model.string() + " --embed --algo greedy").code,
              0);
    const QJsonObject o = json(run("project show " + project.string() + " --json"));
    EXPECT_TRUE(o["model_embedded"].toBool());
    EXPECT_EQ(o["model"].toString(), "sq.onnx");
    EXPECT_EQ(o["model_content_hash"].toString().size(), 16);
    fs::remove(model);
    fs::remove(dir / "sq.onnx.data");
    Result r = run("replay " + project.string() + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(json(r)["reproduced"].toBool());
    EXPECT_NE(r.err.find("using the copy embedded in the project"), std::string::npos) << r.err;
}

// Negative twin: without --embed a missing model is exit 3 naming where it was looked for; other weights of
// the same structure are noticed (content hash) but replay.
TEST_F(Cli, AModelThatIsNotEmbeddedIsLookedForAndChecked)
{
    const fs::path dir = s_dir / "referenced";
    fs::create_directories(dir);
    const fs::path model = dir / "sq.onnx", project = dir / "r.tessera";
    ASSERT_EQ(run("sample squeezenet --out " + model.string()).code, 0);
    ASSERT_EQ(run("project create " + project.string() + " --model " + model.string() + " --algo greedy").code, 0);
    EXPECT_FALSE(json(run("project show " + project.string() + " --json"))["model_embedded"].toBool());
    ASSERT_EQ(run("sample squeezenet --seed 7 --out " + model.string()).code, 0); // other weights
    Result changed = run("replay " + project.string());
    EXPECT_EQ(changed.code, 0) << changed.err;
    EXPECT_NE(changed.err.find("the model file changed on disk but its structure did not"), std::string::npos)
        << changed.err;
    fs::remove(model);
    Result missing = run("replay " + project.string());
    EXPECT_EQ(missing.code, 3);
    EXPECT_NE(missing.err.find("model not found (looked for '" + model.string()), std::string::npos) << missing.err;
}

// --- issue 18: every documented exit code (README "Exit codes"; tessera-cli --help) ----------------

TEST_F(Cli, ExitCodeZeroOnSuccess)
{
    Result r = run("devices");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(Cli, ExitCodeTwoOnAUsageError)
{
    Result r = run("schedule " + sample("squeezenet") + " --algo greedy --no-such-flag");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
}

TEST_F(Cli, ExitCodeThreeOnInvalidInput)
{
    Result r = run("inspect " + (s_dir / "no-such-model.onnx").string());
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("no-such-model.onnx"), std::string::npos) << r.err;
}

// 4: a backend that is not available here (TESSERA_DISABLE_BACKENDS switches one off, as on a
// machine without it); the twin runs the same command with the backend present.
TEST_F(Cli, ExitCodeFourOnAnUnavailableBackend)
{
    const std::string command = "run " + sample("squeezenet") + " --algo greedy --backend cpu --json";
    ::setenv("TESSERA_DISABLE_BACKENDS", "cpu", 1);
    Result off = run(command);
    Result listed = run("backends --json");
    ::unsetenv("TESSERA_DISABLE_BACKENDS");
    EXPECT_EQ(off.code, 4) << off.err;
    EXPECT_NE(off.err.find("backend 'cpu' is unavailable: switched off by TESSERA_DISABLE_BACKENDS"), std::string::npos)
        << off.err;
    EXPECT_NE(listed.out.find("switched off by TESSERA_DISABLE_BACKENDS"), std::string::npos) << listed.out;
    Result on = run(command);
    EXPECT_EQ(on.code, 0) << on.err;
}
