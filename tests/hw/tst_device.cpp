// Device model: quantities, op classes, helpers and validateDevice.
#include "core/hw/device.h"

#include <gtest/gtest.h>

using namespace tessera;

namespace {

// Two clusters of two cores; each core has a vector and a matrix unit.
Device sampleDevice()
{
    Device d;
    d.id = "sample";
    d.name = "Sample DSA";
    d.kind = DeviceKind::Dsa;
    d.topology = {2, 2, 2};
    d.levels = {
        {.name = "L1", .scope = MemoryScope::PerCore, .capacityBytes = 64 << 10, .bandwidthBytesPerSec = 4e12},
        {.name = "LLB", .scope = MemoryScope::PerCluster, .capacityBytes = 8 << 20, .bandwidthBytesPerSec = 1e12},
        {.name = "DDR",
         .scope = MemoryScope::Shared,
         .capacityBytes = std::int64_t(16) << 30,
         .bandwidthBytesPerSec = 100e9},
    };
    ComputeUnit vec{.kind = UnitKind::Vector,
                    .name = "VME",
                    .countPerCore = 1,
                    .peakOpsPerSec = {{DType::Float32, 2e12}, {DType::Float16, 4e12}},
                    .opClasses = {OpClass::Elementwise, OpClass::Reduction},
                    .energyPerOpPj = {{DType::Float16, 4}}};
    ComputeUnit mat{.kind = UnitKind::Matrix,
                    .name = "MME",
                    .countPerCore = 1,
                    .peakOpsPerSec = {{DType::Float16, 64e12}},
                    .opClasses = {OpClass::Gemm},
                    .energyPerOpPj = {{DType::Float16, 0.5}}};
    d.units = {vec, mat};
    return d;
}

} // namespace

TEST(Quantity, ParsesUnits)
{
    EXPECT_EQ(parseQuantity("64 KiB", Quantity::Bytes), 65536.0);
    EXPECT_EQ(parseQuantity("8MiB", Quantity::Bytes), 8.0 * 1024 * 1024);
    EXPECT_EQ(parseQuantity("16 GB", Quantity::Bytes), 16e9);
    EXPECT_EQ(parseQuantity("136 GB/s", Quantity::Bandwidth), 136e9);
    EXPECT_EQ(parseQuantity("15.7 TFLOP/s", Quantity::OpsRate), 15.7e12); // one rounding, not two
    EXPECT_EQ(parseQuantity("256 TOP/s", Quantity::OpsRate), 256e12);
    EXPECT_EQ(parseQuantity("5 us", Quantity::TimeNs), 5000.0);
    EXPECT_EQ(parseQuantity("87.45 ns", Quantity::TimeNs), 87.45);
    EXPECT_EQ(parseQuantity("1.53 GHz", Quantity::Frequency), 1.53e9);
    EXPECT_EQ(parseQuantity("1e9", Quantity::Frequency), 1e9);
    EXPECT_EQ(parseQuantity("1.5e3 MHz", Quantity::Frequency), 1.5e9);
    EXPECT_EQ(parseQuantity("-64 KiB", Quantity::Bytes), -65536.0);
}

TEST(Quantity, RejectsUnknownUnitsAndText)
{
    EXPECT_FALSE(parseQuantity("64 KiBs", Quantity::Bytes));
    EXPECT_FALSE(parseQuantity("64 GB/s", Quantity::Bytes)); // a bandwidth unit is no size
    EXPECT_FALSE(parseQuantity("fast", Quantity::Bandwidth));
    EXPECT_FALSE(parseQuantity("", Quantity::TimeNs));
    EXPECT_FALSE(parseQuantity("1..5 ns", Quantity::TimeNs));
    EXPECT_FALSE(parseQuantity("inf GB/s", Quantity::Bandwidth));
}

TEST(Quantity, FormatsShortestExactText)
{
    EXPECT_EQ(formatQuantity(65536, Quantity::Bytes), "64 KiB");
    EXPECT_EQ(formatQuantity(16e9, Quantity::Bytes), "16 GB");
    EXPECT_EQ(formatQuantity(0x32A0000, Quantity::Bytes), "50.625 MiB");
    EXPECT_EQ(formatQuantity(136e9, Quantity::Bandwidth), "136 GB/s");
    EXPECT_EQ(formatQuantity(15.7e12, Quantity::OpsRate), "15.7 TFLOP/s");
    EXPECT_EQ(formatQuantity(5000, Quantity::TimeNs), "5 us");
    EXPECT_EQ(formatQuantity(235.9296e9, Quantity::OpsRate), "235.9296 GFLOP/s");
    EXPECT_EQ(formatQuantity(0, Quantity::TimeNs), "0 ns");
    for (double v : {1.0, 123457.0, 1.23456789e13, 3.35e12, 921.6e6, 87.45, 0.1})
        for (Quantity q :
             {Quantity::Bytes, Quantity::Bandwidth, Quantity::OpsRate, Quantity::TimeNs, Quantity::Frequency})
            EXPECT_EQ(parseQuantity(formatQuantity(v, q), q), v) << formatQuantity(v, q);
}

TEST(Quantity, FallsBackWhenNoPrefixIsShortAndExact)
{
    EXPECT_EQ(formatQuantity(123457, Quantity::Bytes), "123.457 KB");
    EXPECT_EQ(formatQuantity(1.23456789e13, Quantity::OpsRate), "12345678900000 FLOP/s");
    EXPECT_EQ(formatQuantity(999, Quantity::Bandwidth), "999 B/s");
}

TEST(OpClass, ClassifiesOnnxOps)
{
    EXPECT_EQ(opClassOf("Conv"), OpClass::Gemm);
    EXPECT_EQ(opClassOf("MatMul"), OpClass::Gemm);
    EXPECT_EQ(opClassOf("Relu"), OpClass::Elementwise);
    EXPECT_EQ(opClassOf("Softmax"), OpClass::Reduction);
    EXPECT_EQ(opClassOf("MaxPool"), OpClass::Reduction);
    EXPECT_EQ(opClassOf("Reshape"), OpClass::Movement);
    // issue 11's ops: recurrent layers are matrix products, MVN a reduction, GridSample a gather.
    EXPECT_EQ(opClassOf("LSTM"), OpClass::Gemm);
    EXPECT_EQ(opClassOf("QLinearConv"), OpClass::Gemm);
    EXPECT_EQ(opClassOf("MeanVarianceNormalization"), OpClass::Reduction);
    EXPECT_EQ(opClassOf("GridSample"), OpClass::Movement);
    EXPECT_EQ(opClassOf("NonMaxSuppression"), OpClass::Other); // data-dependent selection
}

TEST(OpClass, UnknownOpsAreOther)
{
    EXPECT_EQ(opClassOf("MyCustomOp"), OpClass::Other);
    EXPECT_EQ(opClassOf("conv"), OpClass::Other); // ONNX op types are case-sensitive
}

TEST(Names, RoundTripAndRejectUnknown)
{
    for (UnitKind k : {UnitKind::Scalar, UnitKind::Vector, UnitKind::Matrix, UnitKind::Simt})
        EXPECT_EQ(unitKindFromName(unitKindName(k)), k);
    for (MemoryScope s : {MemoryScope::PerUnit, MemoryScope::PerCore, MemoryScope::PerCluster, MemoryScope::Shared})
        EXPECT_EQ(memoryScopeFromName(memoryScopeName(s)), s);
    for (OpClass c : allOpClasses())
        EXPECT_EQ(opClassFromName(opClassName(c)), c);
    EXPECT_FALSE(unitKindFromName("tensor"));
    EXPECT_FALSE(memoryScopeFromName("global"));
    EXPECT_FALSE(deviceKindFromName("tpu"));
}

TEST(Device, Helpers)
{
    const Device d = sampleDevice();
    EXPECT_EQ(d.totalCores(), 4);
    EXPECT_EQ(d.peakFlops(DType::Float16), 64e12); // the fastest unit, not the sum
    EXPECT_EQ(d.peakFlops(DType::Float16, UnitKind::Vector), 4e12);
    EXPECT_EQ(d.peakFlops(DType::Float32), 2e12);
    ASSERT_NE(d.level("LLB"), nullptr);
    EXPECT_EQ(d.levelIndex("DDR"), 2);
    EXPECT_EQ(d.instances(*d.level("L1")), 4);
    EXPECT_EQ(d.instances(*d.level("LLB")), 2);
    EXPECT_EQ(d.totalCapacity(*d.level("L1")), 256 << 10);
    EXPECT_EQ(d.bandwidthPerInstance(*d.level("L1")), 1e12);
    EXPECT_EQ(d.unitInstances(*d.unit("MME")), 4);
    EXPECT_EQ(d.unitPeakPerInstance(*d.unit("MME"), DType::Float16), 16e12);
    EXPECT_EQ(d.bestUnit(OpClass::Gemm, DType::Float16), d.unit("MME"));
    EXPECT_EQ(d.bestUnit(OpClass::Elementwise, DType::Float16), d.unit("VME"));
    EXPECT_EQ(d.energyPerOpPj(DType::Float16, UnitKind::Matrix), 0.5);
    EXPECT_TRUE(validateDevice(d).isOk()) << validateDevice(d).str();
}

TEST(Device, HelpersReportAbsence)
{
    const Device d = sampleDevice();
    EXPECT_EQ(d.level("HBM"), nullptr);
    EXPECT_EQ(d.levelIndex("HBM"), -1);
    EXPECT_EQ(d.unit("TPC"), nullptr);
    EXPECT_EQ(d.peakFlops(DType::Int64), 0);
    EXPECT_EQ(d.bestUnit(OpClass::Gemm, DType::Float32), nullptr); // the MME has no f32
    EXPECT_EQ(d.energyPerOpPj(DType::Float32, UnitKind::Matrix), 0);
}

TEST(Device, EstimatedPathsCoverTheirChildren)
{
    Device d = sampleDevice();
    d.estimated = {"levels[1]", "units[0].peak"};
    EXPECT_TRUE(d.isEstimated("levels[1].bandwidth"));
    EXPECT_TRUE(d.isEstimated("units[0].peak.f16"));
    EXPECT_FALSE(d.isEstimated("levels[10].bandwidth"));
    EXPECT_FALSE(d.isEstimated("units[0].name"));
    EXPECT_TRUE(validateDevice(d).isOk());
}

TEST(Validate, RejectsLevelsOutOfOrder)
{
    Device d = sampleDevice();
    std::swap(d.levels[0], d.levels[1]);
    const Status s = validateDevice(d);
    ASSERT_FALSE(s.isOk());
    EXPECT_EQ(s.message(), "levels[1].capacity: 'L1' (64 KiB) is smaller than 'LLB' (8 MiB) before it; levels go fast "
                           "to slow");
}

TEST(Validate, RejectsNarrowingScope)
{
    Device d = sampleDevice();
    d.levels[1].scope = MemoryScope::PerUnit;
    EXPECT_EQ(validateDevice(d).message().rfind("levels[1].scope: 'per-unit' is narrower than 'per-core'", 0), 0u);
}

TEST(Validate, RejectsBadValues)
{
    auto messageOf = [](auto mutate) {
        Device d = sampleDevice();
        mutate(d);
        return validateDevice(d).message();
    };
    EXPECT_EQ(messageOf([](Device &d) { d.levels[2].bandwidthBytesPerSec = 0; }),
              "levels[2].bandwidth: must be positive, got 0");
    EXPECT_EQ(messageOf([](Device &d) { d.units[1].name = "VME"; }), "units[1].name: duplicate unit 'VME'");
    EXPECT_EQ(messageOf([](Device &d) { d.units[0].cores = 5; }),
              "units[0].cores: must be between 0 and the 4 cores of the topology, got 5");
    EXPECT_EQ(messageOf([](Device &d) { d.kind = DeviceKind::Gpu; }), "gpu: required for kind 'gpu'");
    EXPECT_EQ(messageOf([](Device &d) { d.gpu = GpuParams{}; }), "gpu: only allowed for kind 'gpu'");
    EXPECT_EQ(messageOf([](Device &d) { d.estimated = {"levels[7].bandwidth"}; }),
              "estimated[0]: no field 'levels[7].bandwidth'");
    EXPECT_EQ(messageOf([](Device &d) { d.id = "Big GPU"; }).rfind("id: 'Big GPU' must be", 0), 0u);
    EXPECT_EQ(messageOf([](Device &d) { d.power = {.tdpWatts = 10, .staticWatts = 20}; }),
              "power.staticWatts: exceeds power.tdpWatts");
}

TEST(Summary, NamesPeakAndLastLevel)
{
    EXPECT_EQ(deviceSummary(sampleDevice()), "Sample DSA; dsa; 2x2x2; f16 64 TFLOP/s; DDR 16 GiB @ 100 GB/s");
}
