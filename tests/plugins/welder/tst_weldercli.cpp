// Issue 15 item 5: `tessera-cli schedule MODEL --algo welder --device nvidia-v100 --option topk=20`
// reports the kernel count, the traffic per memory level and the estimated latency in its JSON,
// with Welder's statistics (traffic before/after connecting, SetConnect trials); the §5.2
// ablation variant welder-none (option variant=none) gives more kernels and more HBM traffic.
// Twin: an option out of range or an unknown variant is a usage error (exit 2) naming the option
// (overrides beyond a capacity: tst_welderschedule WelderOverride).
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct Result {
    int code = -1;
    std::string out, err;
};

std::string slurp(const fs::path &p)
{
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

class WelderCli : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        s_dir = fs::temp_directory_path() / ("tessera-weldercli-" + std::to_string(::getpid()));
        fs::create_directories(s_dir);
    }
    static void TearDownTestSuite() { fs::remove_all(s_dir); }
    static Result run(const std::string &args)
    {
        const fs::path out = s_dir / "stdout", err = s_dir / "stderr";
        const std::string cmd =
            std::string(TESSERA_BINARY_DIR) + "/app/tessera-cli " + args + " >" + out.string() + " 2>" + err.string();
        const int status = std::system(cmd.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
    }
    static QJsonObject json(const Result &r)
    {
        return QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).object();
    }
    // MobileNetV2 at 64×64: every block of the network, small enough to schedule in a test.
    static std::string model()
    {
        const fs::path p = s_dir / "mobilenetv2.onnx";
        if (!fs::exists(p)) {
            const Result r = run("sample mobilenetv2 --image-size 64 --out " + p.string());
            EXPECT_EQ(r.code, 0) << r.err;
        }
        return p.string();
    }
    static inline fs::path s_dir;
};

TEST_F(WelderCli, ScheduleReportsKernelsTrafficPerLevelAndLatency)
{
    const Result r = run("schedule " + model() + " --algo welder --device nvidia-v100 --option topk=20 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonObject o = json(r);
    EXPECT_EQ(o["algorithm"].toString(), "welder");
    EXPECT_EQ(o["device"].toString(), "nvidia-v100");
    const int kernels = o["kernels"].toInt();
    EXPECT_GT(kernels, 0);
    EXPECT_GT(o["est_latency_ms"].toDouble(), 0.0);
    const QJsonObject traffic = o["traffic_bytes"].toObject();
    EXPECT_GT(traffic["HBM"].toDouble(), 0.0) << QJsonDocument(traffic).toJson().constData();
    const QJsonObject stats = o["stats"].toObject();
    EXPECT_EQ(stats["kernels"].toDouble(), kernels);
    for (const char *key : {"traffic_before_HBM", "traffic_after_HBM", "traffic_before_SMEM", "traffic_after_SMEM",
                            "connect_trials", "global_traffic_bytes", "estimated_latency_ns"})
        EXPECT_TRUE(stats.contains(key)) << key;
    // Connecting moves traffic off the HBM (§3.2).
    EXPECT_LT(stats["traffic_after_HBM"].toDouble(), stats["traffic_before_HBM"].toDouble());

    // §5.2 ablation: welder-none connects nothing — more kernels, more HBM traffic, slower.
    const Result none = run("schedule " + model() + " --algo welder --device nvidia-v100 --option variant=none --json");
    ASSERT_EQ(none.code, 0) << none.err;
    const QJsonObject n = json(none);
    EXPECT_GT(n["kernels"].toInt(), kernels);
    EXPECT_GT(n["traffic_bytes"].toObject()["HBM"].toDouble(), traffic["HBM"].toDouble());
    EXPECT_GT(n["est_latency_ms"].toDouble(), o["est_latency_ms"].toDouble());
}

// Twin: bad input on the command line is refused with its reason.
TEST_F(WelderCli, BadOptionsAndOverridesAreRefusedWithTheReason)
{
    const Result topk = run("schedule " + model() + " --algo welder --device nvidia-v100 --option topk=0");
    EXPECT_EQ(topk.code, 2);
    EXPECT_NE(topk.err.find("topk"), std::string::npos) << topk.err;
    const Result variant = run("schedule " + model() + " --algo welder --device nvidia-v100 --option variant=most");
    EXPECT_EQ(variant.code, 2);
    EXPECT_NE(variant.err.find("variant"), std::string::npos) << variant.err;
}

} // namespace
