// Host CPU detection: the live machine, a fixed fake /proc + /sys, and nothing.
#include "core/hw/devicejson.h"
#include "core/hw/hostdevice.h"

#include <gtest/gtest.h>

using namespace tessera;

TEST(HostDevice, DetectsThisMachine)
{
    const Device d = detectHostDevice();
    EXPECT_EQ(d.id, "host");
    EXPECT_EQ(d.kind, DeviceKind::Cpu);
    EXPECT_GE(d.totalCores(), 1);
    EXPECT_GT(d.peakFlops(DType::Float32), 0);
    EXPECT_EQ(d.levels.back().name, "DRAM");
    EXPECT_TRUE(validateDevice(d).isOk()) << validateDevice(d).str();
    Expected<Device> back = parseDevice(toJson(d), "host.json");
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_EQ(*back, d);
}

// tests/hw/data/hostroot: 4 logical CPUs on 2 cores (SMT 2), AVX-512 + FMA +
// VNNI, 2.0 GHz max clock, 32K L1d and 1M L2 per core, 16M L3 shared, 16000 MiB.
TEST(HostDevice, ReadsFakeProcAndSys)
{
    const HostCpuInfo info = readHostCpuInfo(QStringLiteral(TESSERA_TEST_DATA "/hw/data/hostroot"));
    EXPECT_EQ(info.modelName, "Test Xeon @ 2.00GHz");
    EXPECT_EQ(info.vendor, "Intel");
    EXPECT_EQ(info.logicalCpus, 4);
    EXPECT_EQ(info.physicalCores, 2);
    EXPECT_EQ(info.sockets, 1);
    EXPECT_EQ(info.clockHz, 2e9);      // cpuinfo_max_freq wins over "cpu MHz"
    ASSERT_EQ(info.caches.size(), 3u); // the instruction cache is skipped
    EXPECT_EQ(info.caches[2].bytes, 16 << 20);
    EXPECT_EQ(info.caches[2].sharedBy, 4);
    EXPECT_EQ(info.memoryBytes, std::int64_t(16384000) * 1024);

    const Device d = hostDevice(info);
    EXPECT_EQ(d.name, "Test Xeon @ 2.00GHz");
    EXPECT_EQ(d.topology, (Topology{1, 2, 1}));
    ASSERT_EQ(d.levels.size(), 4u);
    EXPECT_EQ(d.levels[0].name, "L1");
    EXPECT_EQ(d.levels[0].scope, MemoryScope::PerCore);
    EXPECT_EQ(d.levels[0].capacityBytes, 32 << 10);
    EXPECT_EQ(d.levels[0].bandwidthBytesPerSec, 128 * 2 * 2e9);
    EXPECT_EQ(d.levels[1].scope, MemoryScope::PerCore);
    EXPECT_EQ(d.levels[2].scope, MemoryScope::Shared);
    EXPECT_EQ(d.levels[3].capacityBytes, std::int64_t(16384000) * 1024);
    EXPECT_EQ(d.peakFlops(DType::Float32), 2 * 2e9 * 64); // cores × clock × AVX-512 FMA
    EXPECT_EQ(d.peakFlops(DType::Int8), 4 * 2 * 2e9 * 64);
    EXPECT_EQ(d.units[0].name, "AVX-512");
    EXPECT_TRUE(d.isEstimated("units[0].peak.f32"));
    EXPECT_FALSE(d.isEstimated("clock"));
}

TEST(HostDevice, NothingReadableStillGivesAValidDevice)
{
    const HostCpuInfo info = readHostCpuInfo(QStringLiteral(TESSERA_TEST_DATA "/hw/data/no-such-root"));
    EXPECT_EQ(info.logicalCpus, 0);
    EXPECT_TRUE(info.caches.empty());
    const Device d = hostDevice(info);
    EXPECT_EQ(d.totalCores(), 1);
    EXPECT_EQ(d.levels.size(), 1u);
    EXPECT_EQ(d.levels[0].capacityBytes, std::int64_t(1) << 30);
    EXPECT_TRUE(d.isEstimated("clock"));
    EXPECT_TRUE(d.isEstimated("levels[0].capacity"));
    EXPECT_EQ(d.peakFlops(DType::Float32), 2e9 * 2); // scalar FPU, 2 GHz assumed
    EXPECT_TRUE(validateDevice(d).isOk()) << validateDevice(d).str();
}
