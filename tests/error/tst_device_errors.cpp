// Must-fail device files (issue 10): missing or contradictory calibration is
// refused at load, naming the file and the field — never a silent default that
// changes every estimate. Each case edits the V100 preset as a user would and
// loads it from a user folder.
#include "core/hw/deviceregistry.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <functional>
#include <gtest/gtest.h>

using namespace tessera;

namespace {

// The diagnostic of loading the V100 preset with one edit applied.
std::string loadEdited(const std::function<void(QJsonObject &)> &edit)
{
    QFile preset(QStringLiteral(TESSERA_SOURCE_DIR "/resources/devices/nvidia-v100.json"));
    EXPECT_TRUE(preset.open(QIODevice::ReadOnly));
    QJsonObject o = QJsonDocument::fromJson(preset.readAll()).object();
    o["id"] = "lab-gpu";
    edit(o);
    QTemporaryDir dir;
    QFile out(dir.filePath("lab-gpu.json"));
    EXPECT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(o).toJson());
    out.close();
    DeviceRegistry registry;
    EXPECT_EQ(registry.loadFolder(dir.path()), 0);
    EXPECT_EQ(registry.find("lab-gpu"), nullptr);
    if (registry.diagnostics().size() != 1)
        return "expected one diagnostic";
    return registry.diagnostics()[0].str();
}

QJsonObject &calibration(QJsonObject &o, QJsonObject &scratch)
{
    scratch = o["calibration"].toObject();
    return scratch;
}

} // namespace

TEST(DeviceErrors, UneditedPresetLoads)
{
    // The positive twin: the same path without an edit loads.
    QFile preset(QStringLiteral(TESSERA_SOURCE_DIR "/resources/devices/nvidia-v100.json"));
    ASSERT_TRUE(preset.open(QIODevice::ReadOnly));
    QTemporaryDir dir;
    QFile out(dir.filePath("v100.json"));
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(preset.readAll());
    out.close();
    DeviceRegistry registry;
    EXPECT_EQ(registry.loadFolder(dir.path()), 1);
    EXPECT_TRUE(registry.diagnostics().empty());
}

TEST(DeviceErrors, EfficiencyOverOne)
{
    const std::string m = loadEdited([](QJsonObject &o) {
        QJsonObject c;
        calibration(o, c)["computeEfficiency"] = 1.2;
        o["calibration"] = c;
    });
    EXPECT_NE(m.find("lab-gpu.json"), std::string::npos) << m;
    EXPECT_NE(m.find("calibration.computeEfficiency: must be in (0, 1], got 1.2"), std::string::npos) << m;
}

TEST(DeviceErrors, MissingCalibration)
{
    const std::string m = loadEdited([](QJsonObject &o) { o.remove("calibration"); });
    EXPECT_NE(m.find("calibration: required field is missing"), std::string::npos) << m;
}

TEST(DeviceErrors, ZeroBandwidth)
{
    const std::string m = loadEdited([](QJsonObject &o) {
        QJsonArray levels = o["levels"].toArray();
        QJsonObject hbm = levels[2].toObject();
        hbm["bandwidth"] = "0 GB/s";
        levels[2] = hbm;
        o["levels"] = levels;
    });
    EXPECT_NE(m.find("levels[2].bandwidth: must be positive"), std::string::npos) << m;
}

TEST(DeviceErrors, GpuWithoutSmCount)
{
    const std::string m = loadEdited([](QJsonObject &o) {
        o["topology"] = QJsonObject{{"clusters", 1}, {"unitsPerCore", 2}};
    });
    EXPECT_NE(m.find("topology.coresPerCluster: required field is missing"), std::string::npos) << m;
}

TEST(DeviceErrors, GpuWithoutLaunchOverhead)
{
    const std::string m = loadEdited([](QJsonObject &o) { o["overheads"] = QJsonObject{{"sync", "5 us"}}; });
    EXPECT_NE(m.find("overheads.kernelLaunch: must be positive, got 0"), std::string::npos) << m;
}
