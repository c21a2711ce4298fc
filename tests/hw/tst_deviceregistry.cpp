// Built-in presets (from the compiled-in resource), their consistency and
// published figures, user folders, and lookup.
#include "core/hw/devicejson.h"
#include "core/hw/deviceregistry.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using namespace tessera;

namespace {

const DeviceRegistry &builtins()
{
    static const DeviceRegistry r = [] {
        DeviceRegistry reg;
        const Status s = reg.loadBuiltins();
        EXPECT_TRUE(s.isOk()) << s.str();
        return reg;
    }();
    return r;
}

const Device &preset(const char *id)
{
    const Device *d = builtins().find(id);
    if (!d)
        ADD_FAILURE() << "no preset " << id;
    static const Device empty;
    return d ? *d : empty;
}

void writeFile(const QString &path, const QByteArray &data)
{
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(data);
}

} // namespace

TEST(Presets, AllBuiltinsLoadFromTheResource)
{
    const std::vector<std::string> expected = {"ascend-910",  "graphcore-ipu", "habana-goya",
                                               "jetson-nano", "nvidia-a100",   "nvidia-h100",
                                               "nvidia-v100", "rtx-3090",      "stcp920"};
    EXPECT_EQ(builtins().ids(), expected);
    EXPECT_TRUE(builtins().diagnostics().empty());
    for (const Device &d : builtins().devices())
        EXPECT_EQ(builtins().origin(d.id), "builtin");
}

TEST(Presets, ResourceListsEveryPresetFile)
{
    const QDir source(QStringLiteral(TESSERA_SOURCE_DIR "/resources/devices"));
    const QDir resource(DeviceRegistry::builtinPrefix());
    const QStringList filter{QStringLiteral("*.json")};
    EXPECT_EQ(resource.entryList(filter, QDir::Files, QDir::Name), source.entryList(filter, QDir::Files, QDir::Name))
        << "resources/devices/tessera_devices.qrc is out of date";
}

TEST(Presets, AreSelfConsistent)
{
    for (const Device &d : builtins().devices()) {
        SCOPED_TRACE(d.id);
        EXPECT_TRUE(validateDevice(d).isOk()) << validateDevice(d).str();
        EXPECT_FALSE(d.source.empty());
        EXPECT_GT(d.clockHz, 0);
        EXPECT_GT(d.power.tdpWatts, 0);
        EXPECT_GT(d.peakFlops(DType::Float16) + d.peakFlops(DType::Int8), 0);
        for (std::size_t i = 0; i < d.levels.size(); ++i) {
            const MemoryLevel &l = d.levels[i];
            EXPECT_GT(l.bandwidthBytesPerSec, 0) << l.name;
            EXPECT_GT(l.latencyNs, 0) << l.name;
            EXPECT_GT(l.energyPerBytePj, 0) << l.name;
            if (i > 0) {
                EXPECT_GE(l.capacityBytes, d.levels[i - 1].capacityBytes) << l.name;
                EXPECT_LE(l.bandwidthBytesPerSec, d.levels[i - 1].bandwidthBytesPerSec) << l.name;
                EXPECT_GE(l.latencyNs, d.levels[i - 1].latencyNs) << l.name;
            }
        }
        EXPECT_EQ(d.levels.back().scope, MemoryScope::Shared);
        for (const ComputeUnit &u : d.units)
            for (const auto &[t, peak] : u.peakOpsPerSec)
                EXPECT_GT(u.energyPerOpPj.count(t), 0u) << u.name << " " << dtypeName(t);
        EXPECT_EQ(d.kind == DeviceKind::Gpu, d.gpu.has_value());
    }
}

TEST(Presets, RoundTripThroughJson)
{
    for (const Device &d : builtins().devices()) {
        Expected<Device> back = parseDevice(toJson(d), QString::fromStdString(d.id + ".json"));
        ASSERT_TRUE(back.isOk()) << back.status().str();
        EXPECT_EQ(*back, d) << d.id;
    }
}

// graphturbo-osdi23 §5 eq. (2): d=4, c=8, u=3; 64 KB L1, 8 MB LLB, 136 GB/s DDR.
TEST(Presets, Stcp920MatchesGraphTurbo)
{
    const Device &d = preset("stcp920");
    EXPECT_EQ(d.kind, DeviceKind::Dsa);
    EXPECT_EQ(d.topology, (Topology{4, 8, 3}));
    EXPECT_EQ(d.totalCores(), 32);
    ASSERT_EQ(d.levels.size(), 3u);
    EXPECT_EQ(d.levels[0].name, "L1");
    EXPECT_EQ(d.levels[0].scope, MemoryScope::PerCore);
    EXPECT_EQ(d.levels[0].capacityBytes, 64 * 1024);
    EXPECT_EQ(d.levels[1].name, "LLB");
    EXPECT_EQ(d.levels[1].scope, MemoryScope::PerCluster);
    EXPECT_EQ(d.levels[1].capacityBytes, 8 * 1024 * 1024);
    EXPECT_EQ(d.instances(d.levels[1]), 4);
    EXPECT_EQ(d.levels[2].name, "DDR");
    EXPECT_EQ(d.levels[2].bandwidthBytesPerSec, 136e9);
    EXPECT_FALSE(d.isEstimated("levels[2].bandwidth"));
    EXPECT_TRUE(d.isEstimated("levels[0].bandwidth"));
    // Issue 12 item 6: DDR's efficiency is fitted to Table 2's TVM column, the rest is an estimate.
    EXPECT_EQ(d.calibration.memoryEfficiencyFor("DDR"), 0.35);
    EXPECT_EQ(d.calibration.memoryEfficiencyFor("L1"), 0.8);
    EXPECT_FALSE(d.isEstimated("calibration.memoryEfficiencyByLevel.DDR"));
    EXPECT_TRUE(d.isEstimated("calibration.computeEfficiency"));
    ASSERT_EQ(d.units.size(), 3u);
    EXPECT_EQ(d.bestUnit(OpClass::Gemm, DType::Float16), d.unit("MME"));
    EXPECT_EQ(d.bestUnit(OpClass::Elementwise, DType::Float16), d.unit("VME"));
    EXPECT_EQ(d.bestUnit(OpClass::Movement, DType::Float32), d.unit("vector core"));
    EXPECT_EQ(d.peakFlops(DType::Float16), 128e12);
    EXPECT_EQ(d.peakFlops(DType::Int8), 256e12);
    EXPECT_EQ(deviceSummary(d), "Streaming Computing STCP920 (NeuralScale P920); dsa; 4x8x3; f16 128 TFLOP/s; "
                                "i8 256 TOP/s; DDR 16 GiB @ 136 GB/s");
}

TEST(Presets, FigureOneCustomisations)
{
    const Device &goya = preset("habana-goya"); // d=1, c=9 (8 TPC + 1 GEMM), u=1
    EXPECT_EQ(goya.topology, (Topology{1, 9, 1}));
    EXPECT_EQ(goya.unitInstances(*goya.unit("TPC")), 8);
    EXPECT_EQ(goya.unitInstances(*goya.unit("GEMM engine")), 1);
    EXPECT_EQ(goya.level("GB")->capacityBytes, 0x32A0000);

    const Device &ipu = preset("graphcore-ipu"); // 1472 tiles, ~900 MB of SRAM
    EXPECT_EQ(ipu.totalCores(), 1472);
    const double sram = double(ipu.totalCapacity(ipu.levels.front()));
    EXPECT_NEAR(sram / 1e6, 900, 45);
    EXPECT_EQ(ipu.peakFlops(DType::Float16), 250e12);

    const Device &ascend = preset("ascend-910");
    EXPECT_EQ(ascend.totalCores(), 32);
    EXPECT_EQ(ascend.peakFlops(DType::Float16), 256e12);
    EXPECT_EQ(ascend.level("HBM")->bandwidthBytesPerSec, 1.2e12);
}

// welder arch_configs: V100 smem_cap 49152, 80 SMs, warp 32, 4 partitions,
// transactions [32 write, 128 read], max_smem_usage 98304, smem 12080 GB/s.
TEST(Presets, GpusMatchWelderAndDataSheets)
{
    const Device &v100 = preset("nvidia-v100");
    ASSERT_TRUE(v100.gpu.has_value());
    EXPECT_EQ(v100.smCount(), 80);
    EXPECT_EQ(v100.gpu->warpSize, 32);
    EXPECT_EQ(v100.gpu->smPartitions, 4);
    EXPECT_EQ(v100.gpu->maxSharedMemPerBlock, 49152);
    EXPECT_EQ(v100.gpu->sharedMemPerSm, 98304);
    const MemoryLevel *smem = v100.level("SMEM");
    ASSERT_NE(smem, nullptr);
    EXPECT_EQ(smem->bandwidthBytesPerSec, 12080e9);
    EXPECT_EQ(smem->readTransactionBytes, 128);
    EXPECT_EQ(smem->writeTransactionBytes, 32);
    EXPECT_EQ(v100.level("HBM")->bandwidthBytesPerSec, 900e9);
    EXPECT_EQ(v100.peakFlops(DType::Float16), 125e12);
    EXPECT_EQ(v100.peakFlops(DType::Float32), 15.7e12);

    const Device &a100 = preset("nvidia-a100");
    EXPECT_EQ(a100.smCount(), 108);
    EXPECT_EQ(a100.overheads.atomicNs, 87.45); // brickdl-icpp24 §3.2.2
    EXPECT_FALSE(a100.isEstimated("overheads.atomic"));
    EXPECT_EQ(a100.overheads.deviceLaunchNs, 210); // fitted to brickdl-icpp24 Fig. 11
    EXPECT_TRUE(a100.isEstimated("overheads.deviceLaunch"));
    EXPECT_EQ(preset("nvidia-v100").overheads.deviceLaunchNs, 0); // unknown there
    EXPECT_EQ(a100.level("L2")->capacityBytes, 40 << 20);

    EXPECT_EQ(preset("nvidia-h100").smCount(), 132);
    EXPECT_EQ(preset("rtx-3090").gpu->maxThreadsPerSm, 1536);
    EXPECT_EQ(preset("jetson-nano").peakFlops(DType::Float16), 471.8592e9);
}

TEST(Registry, LookupUnknownListsKnownIds)
{
    Expected<Device> d = builtins().lookup("tpu-v9");
    ASSERT_FALSE(d.isOk());
    EXPECT_EQ(d.status().code(), ErrorCode::Usage);
    EXPECT_EQ(d.status().message(),
              "unknown device 'tpu-v9'; known: ascend-910, graphcore-ipu, habana-goya, jetson-nano, nvidia-a100, "
              "nvidia-h100, nvidia-v100, rtx-3090, stcp920");
    EXPECT_EQ(builtins().origin("tpu-v9"), "");
}

TEST(Registry, DeviceIdsMatchWithoutRegardToCase)
{
    Expected<Device> d = builtins().lookup("NVIDIA-V100");
    ASSERT_TRUE(d.isOk()) << d.status().str();
    EXPECT_EQ(d->id, "nvidia-v100");
    EXPECT_FALSE(builtins().lookup("nvidia_v100").isOk()); // case, not punctuation
}

TEST(Registry, LookupKnown)
{
    Expected<Device> d = builtins().lookup("nvidia-v100");
    ASSERT_TRUE(d.isOk());
    EXPECT_EQ(d->name, "NVIDIA Tesla V100 SXM2 16 GB");
}

TEST(Registry, UserFolderWithOneGoodAndOneBadFile)
{
    DeviceRegistry r;
    ASSERT_TRUE(r.loadBuiltins().isOk());
    const QString folder = QStringLiteral(TESSERA_TEST_DATA "/hw/data/user");
    EXPECT_EQ(r.loadFolder(folder), 1);
    ASSERT_NE(r.find("lab-npu"), nullptr);
    EXPECT_EQ(r.find("lab-npu")->peakFlops(DType::Int8), 32e12);
    EXPECT_EQ(r.origin("lab-npu"), (folder + "/good.json").toStdString());
    EXPECT_EQ(r.find("broken-npu"), nullptr);
    ASSERT_EQ(r.diagnostics().size(), 1u);
    const Diagnostic &diag = r.diagnostics()[0];
    EXPECT_EQ(diag.severity, Severity::Error);
    EXPECT_EQ(diag.location.file, (folder + "/zz-bad.json").toStdString());
    EXPECT_EQ(diag.message, "levels[0].capacity: must be positive, got -131072");
    EXPECT_NE(r.find("stcp920"), nullptr); // built-ins are untouched
}

TEST(Registry, MissingUserFolderIsNoError)
{
    DeviceRegistry r;
    EXPECT_EQ(r.loadFolder(QStringLiteral(TESSERA_TEST_DATA "/hw/data/no-such-folder")), 0);
    EXPECT_TRUE(r.diagnostics().empty());
    EXPECT_TRUE(r.devices().empty());
}

TEST(Registry, UserFileOverridesBuiltinAndDuplicatesAreSkipped)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    Device mine = preset("nvidia-v100");
    mine.name = "V100 as measured in our lab";
    mine.levels.back().bandwidthBytesPerSec = 750e9; // Welder's measured figure
    writeFile(dir.filePath("a.json"), toJson(mine));
    mine.name = "a second definition";
    writeFile(dir.filePath("b.json"), toJson(mine));

    DeviceRegistry r;
    ASSERT_TRUE(r.loadBuiltins().isOk());
    EXPECT_EQ(r.loadFolder(dir.path()), 1);
    EXPECT_EQ(r.devices().size(), 9u);
    EXPECT_EQ(r.find("nvidia-v100")->name, "V100 as measured in our lab");
    EXPECT_EQ(r.find("nvidia-v100")->level("HBM")->bandwidthBytesPerSec, 750e9);
    ASSERT_EQ(r.diagnostics().size(), 2u);
    EXPECT_EQ(r.diagnostics()[0].severity, Severity::Note);
    EXPECT_EQ(r.diagnostics()[0].message, "device 'nvidia-v100' replaces the builtin definition");
    EXPECT_EQ(r.diagnostics()[1].severity, Severity::Warning);
    EXPECT_EQ(r.diagnostics()[1].location.file, dir.filePath("b.json").toStdString());
}

TEST(Registry, StandardHasPresetsAndHost)
{
    qputenv("TESSERA_DEVICE_PATH", TESSERA_TEST_DATA "/hw/data/user");
    const DeviceRegistry r = DeviceRegistry::standard();
    qunsetenv("TESSERA_DEVICE_PATH");
    EXPECT_NE(r.find("stcp920"), nullptr);
    ASSERT_NE(r.find("host"), nullptr);
    EXPECT_EQ(r.origin("host"), "host");
    EXPECT_NE(r.find("lab-npu"), nullptr);
    EXPECT_EQ(r.diagnostics().size(), 1u); // zz-bad.json
}
