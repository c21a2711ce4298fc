// Device files: parsing, one negative twin per error class, and round trips.
#include "core/hw/devicejson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <functional>
#include <gtest/gtest.h>

using namespace tessera;

namespace {

const char *kMinimal = R"({
  "id": "mini",
  "name": "Mini DSA",
  "kind": "dsa",
  "source": "test",
  "clock": "1 GHz",
  "topology": {"clusters": 1, "coresPerCluster": 2, "unitsPerCore": 1},
  "levels": [
    {"name": "L1", "scope": "per-core", "capacity": "64 KiB", "bandwidth": "1 TB/s",
     "transaction": {"read": 128, "write": 32}, "latency": "2 ns", "energyPerBytePj": 0.5},
    {"name": "DDR", "scope": "shared", "capacity": "4 GiB", "bandwidth": 50000000000}
  ],
  "units": [{"name": "MME", "kind": "matrix", "peak": {"f16": "8 TFLOP/s", "i8": "16 TOP/s"}, "ops": ["gemm"]}],
  "overheads": {"kernelLaunch": "5 us"},
  "calibration": {"computeEfficiency": 0.8, "memoryEfficiency": 0.9, "source": "test"},
  "power": {"tdpWatts": 20, "staticWatts": 3},
  "estimated": ["levels[1].bandwidth"]
})";

// kMinimal with one edit applied to its JSON object.
QByteArray edited(const std::function<void(QJsonObject &)> &edit)
{
    QJsonObject o = QJsonDocument::fromJson(kMinimal).object();
    edit(o);
    return QJsonDocument(o).toJson();
}

// Replaces o[array][index][key] (removes it when value is undefined).
void setIn(QJsonObject &o, const char *array, int index, const char *key, const QJsonValue &value)
{
    QJsonArray a = o[array].toArray();
    QJsonObject e = a[index].toObject();
    if (value.isUndefined())
        e.remove(key);
    else
        e[key] = value;
    a[index] = e;
    o[array] = a;
}

std::string errorOf(const QByteArray &json)
{
    Expected<Device> d = parseDevice(json, "test.json");
    EXPECT_FALSE(d.isOk());
    if (d.isOk())
        return {};
    EXPECT_EQ(d.status().location().file, "test.json");
    EXPECT_EQ(d.status().code(), ErrorCode::InvalidInput);
    return d.status().message();
}

} // namespace

TEST(DeviceJson, ParsesMinimalDevice)
{
    Expected<Device> d = parseDevice(kMinimal, "mini.json");
    ASSERT_TRUE(d.isOk()) << d.status().str();
    EXPECT_EQ(d->id, "mini");
    EXPECT_EQ(d->clockHz, 1e9);
    EXPECT_EQ(d->levels[0].capacityBytes, 65536);
    EXPECT_EQ(d->levels[0].readTransactionBytes, 128);
    EXPECT_EQ(d->levels[0].writeTransactionBytes, 32);
    EXPECT_EQ(d->levels[1].bandwidthBytesPerSec, 50e9);
    EXPECT_EQ(d->levels[1].readTransactionBytes, 1); // default
    EXPECT_EQ(d->units[0].peakOpsPerSec.at(DType::Int8), 16e12);
    EXPECT_EQ(d->units[0].opClasses, std::vector<OpClass>{OpClass::Gemm});
    EXPECT_EQ(d->units[0].countPerCore, 1);
    EXPECT_EQ(d->overheads.kernelLaunchNs, 5000);
    EXPECT_EQ(d->overheads.syncNs, 0);
    EXPECT_TRUE(d->isEstimated("levels[1].bandwidth"));
    EXPECT_FALSE(d->gpu.has_value());
}

TEST(DeviceJson, OmittedOpsMeanEveryClass)
{
    Expected<Device> d =
        parseDevice(edited([](QJsonObject &o) { setIn(o, "units", 0, "ops", QJsonValue::Undefined); }), "x.json");
    ASSERT_TRUE(d.isOk()) << d.status().str();
    EXPECT_EQ(d->units[0].opClasses, allOpClasses());
}

TEST(DeviceJson, MalformedJsonReportsOffset)
{
    const QByteArray json = R"({"id": "x",, "name": "y"})";
    Expected<Device> d = parseDevice(json, "broken.json");
    ASSERT_FALSE(d.isOk());
    EXPECT_EQ(d.status().location().file, "broken.json");
    const auto offset = d.status().location().offset; // at or just past the second comma
    EXPECT_GE(offset, 10);
    EXPECT_LE(offset, 12);
    EXPECT_EQ(d.status().message().rfind("malformed json: ", 0), 0u) << d.status().message();
    EXPECT_NE(d.status().str().find("broken.json@" + std::to_string(offset) + ": error: malformed json"),
              std::string::npos)
        << d.status().str();
}

TEST(DeviceJson, TopLevelMustBeAnObject)
{
    EXPECT_EQ(errorOf("[1, 2]"), "expected a json object at the top level");
}

TEST(DeviceJson, MissingField)
{
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 1, "bandwidth", QJsonValue::Undefined); })),
              "levels[1].bandwidth: required field is missing");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { o.remove("source"); })), "source: required field is missing");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { o.remove("topology"); })), "topology: required field is missing");
}

TEST(DeviceJson, WrongType)
{
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 0, "capacity", true); })),
              "levels[0].capacity: expected a number or a string like '64 KiB', got true");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) {
                  o["topology"] = QJsonObject{{"clusters", 1.5}, {"coresPerCluster", 2}, {"unitsPerCore", 1}};
              })),
              "topology.clusters: expected an integer, got 1.5");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { o["levels"] = QJsonObject(); })),
              "levels: expected an array, got an object");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { o["name"] = 7; })), "name: expected a string, got 7");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 0, "bandwidth", "1 TB/sec"); })),
              "levels[0].bandwidth: expected a number or a string like '900 GB/s', got '1 TB/sec'");
}

TEST(DeviceJson, NegativeCapacity)
{
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 0, "capacity", "-64 KiB"); })),
              "levels[0].capacity: must be positive, got -65536");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 0, "capacity", "0.5 B"); })),
              "levels[0].capacity: expected a whole number of bytes, got 0.5 B");
}

TEST(DeviceJson, UnknownKinds)
{
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "units", 0, "kind", "tensor"); })),
              "units[0].kind: unknown unit kind 'tensor'; known: scalar, vector, matrix, simt");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { o["kind"] = "tpu"; })),
              "kind: unknown device kind 'tpu'; known: dsa, gpu, cpu");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 1, "scope", "global"); })),
              "levels[1].scope: unknown scope 'global'; known: per-unit, per-core, per-cluster, shared");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) {
                  setIn(o, "units", 0, "ops", QJsonArray{"gemm", "conv"});
              })),
              "units[0].ops[1]: unknown op class 'conv'; known: gemm, elementwise, reduction, movement, other");
}

// levels[].kind (welder-osdi23 §5.4's host memory, hardware caches): parsed, written back when
// not the default, and absent means memory.
TEST(DeviceJson, MemoryKindIsParsedAndRoundTrips)
{
    Expected<Device> plain = parseDevice(kMinimal, "mini.json");
    ASSERT_TRUE(plain.isOk());
    EXPECT_EQ(plain->levels[1].kind, MemoryKind::Memory);
    EXPECT_EQ(toJson(*plain).indexOf("\"kind\": \"memory\""), -1); // the default is not written
    Expected<Device> host = parseDevice(edited([](QJsonObject &o) {
                                            QJsonArray a = o["levels"].toArray();
                                            a.append(QJsonObject{{"name", "PCIe"},
                                                                 {"scope", "shared"},
                                                                 {"capacity", "64 GiB"},
                                                                 {"bandwidth", "16 GB/s"},
                                                                 {"kind", "host"}});
                                            o["levels"] = a;
                                        }),
                                        "host.json");
    ASSERT_TRUE(host.isOk()) << host.status().str();
    EXPECT_EQ(host->levels[2].kind, MemoryKind::Host);
    EXPECT_EQ(host->levels[1].kind, MemoryKind::Memory);
    Expected<Device> back = parseDevice(toJson(*host), "back.json");
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_EQ(*back, *host);
    EXPECT_NE(*back, *plain);
}

// Twins: an unknown kind, a host level that is not the slowest or the only one, a cache as the
// slowest level.
TEST(DeviceJson, MemoryKindIsChecked)
{
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 1, "kind", "disk"); })),
              "levels[1].kind: unknown memory kind 'disk'; known: memory, cache, host");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 0, "kind", "host"); })),
              "levels[0].kind: 'L1' is host memory: only the slowest level can be");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 1, "kind", "cache"); })),
              "levels[1].kind: 'DDR' is a cache: the slowest level must be a memory");
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) {
                  QJsonArray a = o["levels"].toArray();
                  a.removeFirst();
                  o["levels"] = a;
                  setIn(o, "levels", 0, "kind", "host");
              })),
              "levels[0].kind: 'DDR' is host memory: the device needs a memory of its own before it");
    // A cache in front of the slowest level is fine.
    EXPECT_TRUE(parseDevice(edited([](QJsonObject &o) { setIn(o, "levels", 0, "kind", "cache"); }), "c.json").isOk());
}

TEST(DeviceJson, UnknownDType)
{
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) {
                  setIn(o, "units", 0, "peak", QJsonObject{{"fp16", "8 TFLOP/s"}});
              })),
              "units[0].peak.fp16: unknown dtype 'fp16'; known: f32, f16, bf16, f64, i8, u8, i16, i32, i64, bool");
}

TEST(DeviceJson, UnknownFieldIsATypo)
{
    const std::string m = errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 0, "bandwith", "1 TB/s"); }));
    EXPECT_EQ(m.rfind("levels[0].bandwith: unknown field; known: name, scope, capacity, bandwidth", 0), 0u) << m;
}

TEST(DeviceJson, UnsupportedSchemaVersion)
{
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { o["schema"] = 2; })),
              "schema: unsupported version 2; this build reads version 1");
}

TEST(DeviceJson, GpuBlockIsChecked)
{
    const QJsonObject gpu{{"warpSize", 32},
                          {"smPartitions", 4},
                          {"maxThreadsPerSm", 2048},
                          {"maxThreadsPerBlock", 1024},
                          {"maxBlocksPerSm", 32},
                          {"registersPerSm", 65536},
                          {"maxRegistersPerThread", 255},
                          {"sharedMemPerSm", "96 KiB"},
                          {"maxSharedMemPerBlock", "48 KiB"}};
    // A GPU also states its occupancy calibration and its launch and sync overheads.
    auto asGpu = [](QJsonObject &o) {
        o["kind"] = "gpu";
        QJsonObject cal = o["calibration"].toObject();
        cal["latencyHidingOccupancy"] = 0.25;
        o["calibration"] = cal;
        o["overheads"] = QJsonObject{{"kernelLaunch", "5 us"}, {"sync", "5 us"}};
    };
    Expected<Device> d = parseDevice(edited([&](QJsonObject &o) {
                                         asGpu(o);
                                         o["gpu"] = gpu;
                                     }),
                                     "g.json");
    ASSERT_TRUE(d.isOk()) << d.status().str();
    EXPECT_EQ(d->gpu->maxSharedMemPerBlock, 49152);

    QJsonObject partial = gpu;
    partial.remove("warpSize");
    EXPECT_EQ(errorOf(edited([&](QJsonObject &o) {
                  asGpu(o);
                  o["gpu"] = partial;
              })),
              "gpu.warpSize: required field is missing");
    EXPECT_EQ(errorOf(edited([&](QJsonObject &o) { asGpu(o); })), "gpu: required for kind 'gpu'");

    // Missing or contradictory calibration of a GPU (issue 10): refused, naming the field.
    EXPECT_EQ(errorOf(edited([&](QJsonObject &o) {
                  asGpu(o);
                  o["gpu"] = gpu;
                  QJsonObject cal = o["calibration"].toObject();
                  cal.remove("latencyHidingOccupancy");
                  o["calibration"] = cal;
              })),
              "calibration.latencyHidingOccupancy: required field is missing");
    EXPECT_EQ(errorOf(edited([&](QJsonObject &o) {
                  asGpu(o);
                  o["gpu"] = gpu;
                  o["overheads"] = QJsonObject{{"kernelLaunch", "5 us"}};
              })),
              "overheads.sync: must be positive, got 0");
    // A GPU without its SM count.
    EXPECT_EQ(errorOf(edited([&](QJsonObject &o) {
                  asGpu(o);
                  o["gpu"] = gpu;
                  o["topology"] = QJsonObject{{"clusters", 1}, {"unitsPerCore", 2}};
              })),
              "topology.coresPerCluster: required field is missing");
}

TEST(DeviceJson, CalibrationIsChecked)
{
    Expected<Device> d = parseDevice(kMinimal, "test.json");
    ASSERT_TRUE(d.isOk()) << d.status().str();
    EXPECT_EQ(d->calibration.computeEfficiency, 0.8);
    EXPECT_EQ(d->calibration.memoryEfficiency, 0.9);
    EXPECT_EQ(d->calibration.source, "test");

    auto setCal = [](const char *key, const QJsonValue &v) {
        return edited([&](QJsonObject &o) {
            QJsonObject cal = o["calibration"].toObject();
            if (v.isUndefined())
                cal.remove(key);
            else
                cal[key] = v;
            o["calibration"] = cal;
        });
    };
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { o.remove("calibration"); })),
              "calibration: required field is missing");
    EXPECT_EQ(errorOf(setCal("computeEfficiency", 1.5)), "calibration.computeEfficiency: must be in (0, 1], got 1.5");
    EXPECT_EQ(errorOf(setCal("memoryEfficiency", 0)), "calibration.memoryEfficiency: must be in (0, 1], got 0");
    EXPECT_EQ(errorOf(setCal("memoryEfficiency", QJsonValue::Undefined)),
              "calibration.memoryEfficiency: required field is missing");
    EXPECT_EQ(errorOf(setCal("source", QJsonValue::Undefined)), "calibration.source: required field is missing");
    EXPECT_EQ(errorOf(setCal("efficiency", 0.5)).rfind("calibration.efficiency", 0), 0u); // a typo
    // Zero bandwidth: no silent default.
    EXPECT_EQ(errorOf(edited([](QJsonObject &o) { setIn(o, "levels", 1, "bandwidth", 0); })),
              "levels[1].bandwidth: must be positive, got 0");
}

TEST(DeviceJson, PerClassAndPerLevelEfficiencies)
{
    // Without the optional maps every class and level takes the one pair.
    Expected<Device> plain = parseDevice(kMinimal, "test.json");
    ASSERT_TRUE(plain.isOk()) << plain.status().str();
    EXPECT_EQ(plain->calibration.computeEfficiencyFor("grouped-conv"), 0.8);
    EXPECT_EQ(plain->calibration.memoryEfficiencyFor("DDR"), 0.9);

    auto withMaps = [](const QJsonValue &byClass, const QJsonValue &byLevel) {
        return edited([&](QJsonObject &o) {
            QJsonObject cal = o["calibration"].toObject();
            cal["computeEfficiencyByClass"] = byClass;
            cal["memoryEfficiencyByLevel"] = byLevel;
            o["calibration"] = cal;
        });
    };
    Expected<Device> d = parseDevice(
        withMaps(QJsonObject{{"gemm", 0.5}, {"grouped-conv", 0.1}, {"reduction", 0.3}}, QJsonObject{{"DDR", 0.4}}),
        "test.json");
    ASSERT_TRUE(d.isOk()) << d.status().str();
    const Calibration &c = d->calibration;
    EXPECT_EQ(c.computeEfficiencyFor("grouped-conv"), 0.1); // its own entry
    EXPECT_EQ(c.computeEfficiencyFor("conv"), 0.5);         // the "gemm" fallback
    EXPECT_EQ(c.computeEfficiencyFor("matmul"), 0.5);
    EXPECT_EQ(c.computeEfficiencyFor("reduction"), 0.3);
    EXPECT_EQ(c.computeEfficiencyFor("elementwise"), 0.8); // computeEfficiency
    EXPECT_EQ(c.memoryEfficiencyFor("DDR"), 0.4);
    EXPECT_EQ(c.memoryEfficiencyFor("L1"), 0.9);
    // The maps survive a round trip, and a file without them writes none.
    Expected<Device> back = parseDevice(toJson(*d), "roundtrip.json");
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_EQ(back->calibration, c);
    EXPECT_EQ(toJson(*plain).indexOf("EfficiencyBy"), -1);

    // Negative twins: an unknown class, a level the device lacks, a value outside (0, 1], not a number.
    EXPECT_EQ(errorOf(withMaps(QJsonObject{{"depthwise", 0.1}}, QJsonObject{}))
                  .rfind("calibration.computeEfficiencyByClass.depthwise: unknown class; known: conv, grouped-conv", 0),
              0u);
    EXPECT_EQ(errorOf(withMaps(QJsonObject{}, QJsonObject{{"HBM", 0.5}})),
              "calibration.memoryEfficiencyByLevel.HBM: the device has no such level");
    EXPECT_EQ(errorOf(withMaps(QJsonObject{{"conv", 1.5}}, QJsonObject{})),
              "calibration.computeEfficiencyByClass.conv: must be in (0, 1], got 1.5");
    EXPECT_EQ(errorOf(withMaps(QJsonObject{}, QJsonObject{{"DDR", 0}})),
              "calibration.memoryEfficiencyByLevel.DDR: must be in (0, 1], got 0");
    EXPECT_EQ(errorOf(withMaps(QJsonObject{{"conv", "fast"}}, QJsonObject{})),
              "calibration.computeEfficiencyByClass.conv: expected a number, got 'fast'");
    EXPECT_EQ(errorOf(withMaps(QJsonValue(0.5), QJsonObject{}))
                  .rfind("calibration.computeEfficiencyByClass: expected an object", 0),
              0u);
}

TEST(DeviceJson, EfficiencyClassOfAnOp)
{
    EXPECT_EQ(efficiencyClassOf("Conv", 1), "conv");
    EXPECT_EQ(efficiencyClassOf("Conv", 32), "grouped-conv");
    EXPECT_EQ(efficiencyClassOf("ConvTranspose", 1), "conv");
    EXPECT_EQ(efficiencyClassOf("MatMul", 1), "matmul");
    EXPECT_EQ(efficiencyClassOf("Gemm", 4), "matmul"); // group means nothing to a GEMM
    EXPECT_EQ(efficiencyClassOf("Softmax", 1), "reduction");
    EXPECT_EQ(efficiencyClassOf("Relu", 1), "elementwise");
    EXPECT_EQ(efficiencyClassOf("NoSuchOp", 1), "other");
}

TEST(DeviceJson, RoundTrip)
{
    Expected<Device> d = parseDevice(kMinimal, "mini.json");
    ASSERT_TRUE(d.isOk());
    const QByteArray json = toJson(*d);
    Expected<Device> back = parseDevice(json, "roundtrip.json");
    ASSERT_TRUE(back.isOk()) << back.status().str() << "\n" << json.toStdString();
    EXPECT_EQ(*back, *d);
    EXPECT_NE(json.indexOf("\"64 KiB\""), -1) << json.toStdString();
}

TEST(DeviceJson, RoundTripDetectsAChange)
{
    Expected<Device> d = parseDevice(kMinimal, "mini.json");
    ASSERT_TRUE(d.isOk());
    Device changed = *d;
    changed.levels[0].latencyNs = 3;
    Expected<Device> back = parseDevice(toJson(changed), "changed.json");
    ASSERT_TRUE(back.isOk());
    EXPECT_NE(*back, *d);
    EXPECT_EQ(back->levels[0].latencyNs, 3);
}
