// The device model shared by every scheduler: what the hardware has, not how
// a schedule uses it.
//
// One small model covers the five algorithms' needs:
//  - GraphTurbo (graphturbo-osdi23 §1, Fig. 1): d clusters × c cores × u compute
//    units, a local buffer (LB) per core, a global buffer (GB) per cluster, DDR.
//    STCP920 (§5, eq. 2) is d=4, c=8, u=3 with 64 KB L1, 8 MB LLB, 136 GB/s DDR.
//  - inter-operator scheduling and Welder (welder-osdi23 §4): SMs, warp size, thread/block/register/
//    shared-memory limits, transaction sizes (32 B write, 128 B read) and
//    per-level bandwidths.
//  - BrickDL (brickdl-icpp24 §4): HBM bandwidth, DRAM transaction size, the cost
//    of one atomic operation.
//  - PCGC: time and power — energy per op per unit, per byte per level, static power.
//
// Units: capacities are bytes of ONE instance of a level (64 KiB of L1 per core);
// bandwidths and peak rates are for the WHOLE device (all instances together),
// because that is what data sheets publish; per-instance figures are derived
// (bandwidthPerInstance, unitPeakPerInstance). Times are nanoseconds, energies
// picojoules, power watts, clock hertz. Integer ops count as FLOPs in peak maps
// (i8 → TOP/s); a fused multiply-add counts as 2.
//
// Memory levels are ordered fast → slow: per-instance capacity never shrinks and
// scope never narrows along the list (validateDevice checks this). GPU registers
// are not a level (256 KB/SM would break that order); they are GpuParams.
//
// Parsing and the JSON schema: devicejson.h. Presets: resources/devices/.
#pragma once

#include "core/ir/types.h"
#include "core/support/status.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

enum class DeviceKind : std::uint8_t { Dsa, Gpu, Cpu };

// Who shares one instance of a memory level.
enum class MemoryScope : std::uint8_t { PerUnit, PerCore, PerCluster, Shared };

// What a memory level is to a schedule (device files: levels[].kind, default memory).
enum class MemoryKind : std::uint8_t {
    Memory, // a memory schedules place buffers in: scratchpads, shared memory, DRAM/HBM
    Cache,  // a hardware-managed cache (a GPU's L2): holds what is re-read, never placed in; not the slowest level
    Host,   // host memory reached over a link, below the device memory (welder-osdi23 §5.4); only the slowest
            // level of a device that has a memory above it
};

enum class UnitKind : std::uint8_t {
    Scalar, // a scalar/control core (STCP920's RISC-V, Ascend's scalar unit)
    Vector, // SIMD/vector engines (TPC, VME, AVX, Ascend vector unit)
    Matrix, // matrix/tensor engines (MME, GEMM engine, cube, tensor core)
    Simt,   // GPU CUDA cores scheduled per warp
};

// Coarse operator classes that decide which compute unit may run a node.
enum class OpClass : std::uint8_t {
    Gemm,        // Conv, MatMul, Gemm, ConvTranspose
    Elementwise, // Add, Relu, Mul, Sigmoid, BatchNormalization, ...
    Reduction,   // ReduceMean, Softmax, pooling, ...
    Movement,    // Reshape, Transpose, Concat, Slice, Gather, Pad, ...
    Other,       // everything else (control, scalar work)
};

std::string_view deviceKindName(DeviceKind k);   // "dsa", "gpu", "cpu"
std::string_view memoryScopeName(MemoryScope s); // "per-unit", "per-core", "per-cluster", "shared"
std::string_view memoryKindName(MemoryKind k);   // "memory", "cache", "host"
std::string_view unitKindName(UnitKind k);       // "scalar", "vector", "matrix", "simt"
std::string_view opClassName(OpClass c);         // "gemm", "elementwise", ...
std::optional<DeviceKind> deviceKindFromName(std::string_view name);
std::optional<MemoryScope> memoryScopeFromName(std::string_view name);
std::optional<MemoryKind> memoryKindFromName(std::string_view name);
std::optional<UnitKind> unitKindFromName(std::string_view name);
std::optional<OpClass> opClassFromName(std::string_view name);
const std::vector<OpClass> &allOpClasses();

// The class of an ONNX operator type; unknown types are Other.
OpClass opClassOf(std::string_view onnxOpType);
// Gemm 4 > Reduction 3 > Elementwise 2 > Movement 1 > Other 0: how scarce the
// units a class needs are (a fused group runs on the units of its heaviest op).
int opClassWeight(OpClass c);

// What Calibration::computeEfficiencyByClass is keyed by: the op class, with
// the GEMM class refined by how an op maps onto a matrix unit — "conv" (a
// convolution with group 1), "grouped-conv" (group > 1, depthwise included:
// each group's small reduction fills little of a matrix unit), "matmul"
// (MatMul, Gemm, Einsum, recurrent cells) — and "elementwise", "reduction",
// "movement", "other". "gemm" is also a key: the fallback of its three refinements
// (and the class of a launch that only knows OpClass::Gemm).
std::string_view efficiencyClassOf(std::string_view onnxOpType, std::int64_t group);
const std::vector<std::string_view> &efficiencyClassNames(); // every key, "gemm" included

struct MemoryLevel {
    std::string name; // "L1", "LLB", "DDR", "SMEM", "L2", "HBM", ...
    MemoryScope scope = MemoryScope::Shared;
    std::int64_t capacityBytes = 0;  // of one instance
    double bandwidthBytesPerSec = 0; // all instances together
    int readTransactionBytes = 1;    // accesses round up to whole transactions
    int writeTransactionBytes = 1;
    double latencyNs = 0;
    double energyPerBytePj = 0;
    MemoryKind kind = MemoryKind::Memory;
    friend bool operator==(const MemoryLevel &, const MemoryLevel &) = default;
};

struct ComputeUnit {
    UnitKind kind = UnitKind::Vector;
    std::string name; // "MME", "Tensor Core", "TPC"
    int countPerCore = 1;
    int cores = 0;                         // cores that carry this unit; 0 = every core
    std::map<DType, double> peakOpsPerSec; // all instances together
    std::vector<OpClass> opClasses;        // sorted, unique; what the unit may run
    std::map<DType, double> energyPerOpPj; // PCGC's power model; empty = unknown
    bool supports(OpClass c) const;
    friend bool operator==(const ComputeUnit &, const ComputeUnit &) = default;
};

// GraphTurbo's d × c × u. GPUs are 1 × smCount × (unit kinds per SM).
struct Topology {
    int clusters = 1;
    int coresPerCluster = 1;
    int unitsPerCore = 1; // compute units per core as the source counts them
    friend bool operator==(const Topology &, const Topology &) = default;
};

// What Welder's and the inter-operator search need beyond the levels (welder arch_configs).
struct GpuParams {
    int warpSize = 32;
    int smPartitions = 4; // warp schedulers per SM
    int maxThreadsPerSm = 2048;
    int maxThreadsPerBlock = 1024;
    int maxBlocksPerSm = 32;
    int registersPerSm = 65536; // 32-bit registers
    int maxRegistersPerThread = 255;
    std::int64_t sharedMemPerSm = 0;
    std::int64_t maxSharedMemPerBlock = 0;
    friend bool operator==(const GpuParams &, const GpuParams &) = default;
};

struct Overheads {
    double kernelLaunchNs = 0; // one kernel/task launch
    double syncNs = 0;         // a stage or cluster barrier (an inter-operator stage, GraphTurbo instance)
    double dmaSetupNs = 0;     // programming one DMA transfer
    double atomicNs = 0;       // one atomic operation (BrickDL memoized bricks)
    // One kernel or library call issued from device code (CUDA dynamic parallelism: a call per
    // BrickDL brick, brickdl-icpp24 §3.3.4), as the device's issue capacity: calls serialise.
    double deviceLaunchNs = 0;
    friend bool operator==(const Overheads &, const Overheads &) = default;
};

// How much of the data sheet a kernel reaches, and where that figure comes
// from (docs/cost-model.md). Every device file states it; the cost model
// (core/cost/devicecost.h) reads nothing else to calibrate itself.
struct Calibration {
    double computeEfficiency = 1.0; // fraction of a unit's peak a well-shaped kernel sustains, (0, 1]
    double memoryEfficiency = 1.0;  // fraction of a level's bandwidth a streaming kernel sustains, (0, 1]
    // GPU only: fraction of an SM's warp slots whose warps hide the latency of
    // ILP-rich code; fewer resident warps leave the SM latency-bound. (0, 1]
    double latencyHidingOccupancy = 0.25;
    // Optional overrides, each in (0, 1] (docs/cost-model.md, "Calibration"): per efficiency
    // class (efficiencyClassOf) instead of computeEfficiency, and per memory level (by name)
    // instead of memoryEfficiency. Empty maps: one pair for every op and level, as before.
    std::map<std::string, double, std::less<>> computeEfficiencyByClass;
    std::map<std::string, double, std::less<>> memoryEfficiencyByLevel;
    std::string source; // where the numbers come from (a paper's table, a micro-benchmark)

    // The compute efficiency of an efficiency class: its own entry, else (for conv,
    // grouped-conv and matmul) the "gemm" entry, else computeEfficiency.
    double computeEfficiencyFor(std::string_view efficiencyClass) const;
    // The memory efficiency of a level: its own entry, else memoryEfficiency.
    double memoryEfficiencyFor(std::string_view level) const;
    friend bool operator==(const Calibration &, const Calibration &) = default;
};

struct PowerModel {
    double tdpWatts = 0;    // 0 = unknown
    double staticWatts = 0; // drawn whenever the device is on
    friend bool operator==(const PowerModel &, const PowerModel &) = default;
};

struct Device {
    std::string id; // "nvidia-v100"
    std::string name;
    DeviceKind kind = DeviceKind::Dsa;
    std::string vendor;
    std::string description;
    std::string source; // where the numbers come from
    std::string notes;  // how estimates were made
    double clockHz = 0;
    Topology topology;
    std::vector<MemoryLevel> levels; // fast → slow
    std::vector<ComputeUnit> units;
    std::optional<GpuParams> gpu; // present exactly when kind == Gpu
    Overheads overheads;
    Calibration calibration;
    PowerModel power;
    // Field paths ("levels[0].bandwidth", "units[1]") whose values are
    // estimates rather than published; a path covers everything below it.
    std::vector<std::string> estimated;

    int totalCores() const { return topology.clusters * topology.coresPerCluster; }
    int smCount() const { return totalCores(); }

    // Highest device-wide peak for dtype over all units (of one kind), 0 if none.
    double peakFlops(DType t) const;
    double peakFlops(DType t, UnitKind kind) const;

    const MemoryLevel *level(std::string_view name) const; // nullptr if absent
    int levelIndex(std::string_view name) const;           // -1 if absent
    int instances(const MemoryLevel &l) const;             // copies of the level on the device
    std::int64_t totalCapacity(const MemoryLevel &l) const { return l.capacityBytes * instances(l); }
    double bandwidthPerInstance(const MemoryLevel &l) const { return l.bandwidthBytesPerSec / instances(l); }

    const ComputeUnit *unit(std::string_view name) const;
    int unitInstances(const ComputeUnit &u) const;
    double unitPeakPerInstance(const ComputeUnit &u, DType t) const;
    // The unit with the highest peak for dtype that may run the op class.
    const ComputeUnit *bestUnit(OpClass c, DType t) const;
    // Energy of one op on the best unit of `kind` for dtype, 0 if unknown.
    double energyPerOpPj(DType t, UnitKind kind) const;

    bool isEstimated(std::string_view path) const;

    friend bool operator==(const Device &, const Device &) = default;
};

// Checks the invariants above: positive sizes and rates, level order, unique
// names, gpu block iff kind gpu, estimated paths that exist. Errors name the
// field path ("levels[2].capacity: must be positive, got -1").
Status validateDevice(const Device &d);

// Quantities with units, as device files write them. A plain number is in the
// base unit (bytes, bytes/s, ops/s, ns, Hz). Decimal prefixes are exact
// ("15.7 TFLOP/s" is the double nearest 15.7e12), binary ones are powers of two.
//   Bytes:     B KB MB GB TB KiB MiB GiB TiB (kB = KB)
//   Bandwidth: the same with "/s"
//   OpsRate:   FLOP/s KFLOP/s MFLOP/s GFLOP/s TFLOP/s PFLOP/s, or OP/s, GOP/s, TOP/s, POP/s
//   TimeNs:    ns us µs ms s
//   Frequency: Hz kHz MHz GHz
enum class Quantity : std::uint8_t { Bytes, Bandwidth, OpsRate, TimeNs, Frequency };
std::optional<double> parseQuantity(std::string_view text, Quantity q);
// Shortest text that parses back to exactly `value` ("64 KiB", "900 GB/s").
std::string formatQuantity(double value, Quantity q);
// formatQuantity for a peak of dtype t: integer dtypes say OP/s ("256 TOP/s").
std::string formatOpsRate(double opsPerSec, DType t);

// One line per device for listings (CLI `devices`, UI):
// "NVIDIA Tesla V100 SXM2 16 GB; gpu; 1x80x2; f16 125 TFLOP/s; HBM 16 GiB @ 900 GB/s"
// (best float peak, i8 peak if any, then the last level; 4 significant digits).
std::string deviceSummary(const Device &d);

} // namespace tessera
