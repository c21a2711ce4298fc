// Issue 15 item 5: `tessera-cli schedule MODEL --algo welder --device nvidia-v100 --option topk=20`
// reports the kernel count, the traffic per memory level and the estimated latency in its JSON,
// with Welder's statistics (traffic before/after connecting, SetConnect trials); the §5.2
// ablation variant welder-none (option variant=none) gives more kernels and more HBM traffic.
// Twin: an option out of range or an unknown variant is a usage error (exit 2) naming the option
// (overrides beyond a capacity: tst_welderschedule WelderOverride).
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>
#include <string>

#include "tests/common/clirun.h"

namespace {

class WelderCli : public tessera::test::CliSuite<WelderCli>
{
public:
    static constexpr const char *kDirName = "tessera-weldercli";

protected:
    // MobileNetV2 at 64×64: every block of the network, small enough to schedule in a test.
    static std::string model() { return sample("mobilenetv2", "--image-size 64"); }
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
