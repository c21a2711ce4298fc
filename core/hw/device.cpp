// Device helpers, names, quantity parsing and validateDevice (see device.h).
#include "core/hw/device.h"

#include "core/support/assert.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

namespace tessera {

namespace {

template <typename E> struct Named {
    E value;
    std::string_view name;
};

constexpr std::array<Named<DeviceKind>, 3> kDeviceKinds = {
    {{DeviceKind::Dsa, "dsa"}, {DeviceKind::Gpu, "gpu"}, {DeviceKind::Cpu, "cpu"}}};
constexpr std::array<Named<MemoryScope>, 4> kScopes = {{{MemoryScope::PerUnit, "per-unit"},
                                                        {MemoryScope::PerCore, "per-core"},
                                                        {MemoryScope::PerCluster, "per-cluster"},
                                                        {MemoryScope::Shared, "shared"}}};
constexpr std::array<Named<MemoryKind>, 3> kMemoryKinds = {
    {{MemoryKind::Memory, "memory"}, {MemoryKind::Cache, "cache"}, {MemoryKind::Host, "host"}}};
constexpr std::array<Named<UnitKind>, 4> kUnitKinds = {{{UnitKind::Scalar, "scalar"},
                                                        {UnitKind::Vector, "vector"},
                                                        {UnitKind::Matrix, "matrix"},
                                                        {UnitKind::Simt, "simt"}}};
constexpr std::array<Named<OpClass>, 5> kOpClasses = {{{OpClass::Gemm, "gemm"},
                                                       {OpClass::Elementwise, "elementwise"},
                                                       {OpClass::Reduction, "reduction"},
                                                       {OpClass::Movement, "movement"},
                                                       {OpClass::Other, "other"}}};

template <typename E, std::size_t N> std::string_view nameOf(const std::array<Named<E>, N> &table, E v)
{
    for (const auto &e : table)
        if (e.value == v)
            return e.name;
    TS_UNREACHABLE("enum value without a name");
}

template <typename E, std::size_t N>
std::optional<E> valueOf(const std::array<Named<E>, N> &table, std::string_view name)
{
    for (const auto &e : table)
        if (e.name == name)
            return e.value;
    return std::nullopt;
}

// ONNX operator types by class; anything not listed is Other.
struct OpClassRule {
    OpClass cls;
    std::vector<std::string_view> ops;
};
const std::array<OpClassRule, 4> kOpClassRules = {{
    {OpClass::Gemm,
     {"Conv", "ConvTranspose", "ConvInteger", "Gemm", "MatMul", "MatMulInteger", "QLinearConv", "QLinearMatMul",
      "Einsum", "RNN", "GRU", "LSTM"}},
    {OpClass::Elementwise,
     {"Abs",
      "Add",
      "And",
      "BatchNormalization",
      "Cast",
      "Ceil",
      "Clip",
      "Cos",
      "Div",
      "Elu",
      "Equal",
      "Erf",
      "Exp",
      "Floor",
      "Gelu",
      "Greater",
      "HardSigmoid",
      "HardSwish",
      "Identity",
      "LeakyRelu",
      "Less",
      "Log",
      "Max",
      "Mean",
      "Min",
      "Mod",
      "Mul",
      "Neg",
      "Not",
      "Or",
      "PRelu",
      "Pow",
      "Reciprocal",
      "Relu",
      "Round",
      "Selu",
      "Sigmoid",
      "Sign",
      "Sin",
      "Softplus",
      "Softsign",
      "Sqrt",
      "Sub",
      "Sum",
      "Tanh",
      "Where",
      "Xor",
      "QuantizeLinear",
      "DequantizeLinear"}},
    {OpClass::Reduction,
     {"ArgMax",
      "ArgMin",
      "AveragePool",
      "GlobalAveragePool",
      "GlobalMaxPool",
      "InstanceNormalization",
      "LayerNormalization",
      "LogSoftmax",
      "LpNormalization",
      "LRN",
      "MaxPool",
      "ReduceL1",
      "ReduceL2",
      "ReduceLogSumExp",
      "ReduceMax",
      "ReduceMean",
      "ReduceMin",
      "ReduceProd",
      "ReduceSum",
      "ReduceSumSquare",
      "Softmax",
      "TopK",
      "MeanVarianceNormalization",
      "DynamicQuantizeLinear",
      "Det"}},
    {OpClass::Movement, {"Concat",   "DepthToSpace",    "Expand",          "Flatten",
                         "Gather",   "GatherElements",  "GatherND",        "Pad",
                         "Reshape",  "Resize",          "ScatterElements", "ScatterND",
                         "Slice",    "SpaceToDepth",    "Split",           "Squeeze",
                         "Tile",     "Transpose",       "Unsqueeze",       "Upsample",
                         "Scatter",  "ReverseSequence", "Compress",        "GridSample",
                         "MaxUnpool"}},
}};

// Units of each quantity. value = number × 10^exp10, or number × binary when
// exp10 < 0. Aliases are accepted but never written.
struct UnitDef {
    std::string_view text;
    int exp10;
    double binary = 0;
    bool alias = false;
};

const std::vector<UnitDef> &unitsOf(Quantity q)
{
    static const std::vector<UnitDef> bytes = {
        {"B", 0},  {"KiB", -1, 0x1p10}, {"MiB", -1, 0x1p20}, {"GiB", -1, 0x1p30}, {"TiB", -1, 0x1p40},
        {"KB", 3}, {"kB", 3, 0, true},  {"MB", 6},           {"GB", 9},           {"TB", 12}};
    static const std::vector<UnitDef> bandwidth = {
        {"B/s", 0},   {"KB/s", 3},           {"kB/s", 3, 0, true},  {"MB/s", 6},           {"GB/s", 9},
        {"TB/s", 12}, {"KiB/s", -1, 0x1p10}, {"MiB/s", -1, 0x1p20}, {"GiB/s", -1, 0x1p30}, {"TiB/s", -1, 0x1p40}};
    static const std::vector<UnitDef> ops = {{"FLOP/s", 0},         {"KFLOP/s", 3},         {"MFLOP/s", 6},
                                             {"GFLOP/s", 9},        {"TFLOP/s", 12},        {"PFLOP/s", 15},
                                             {"OP/s", 0, 0, true},  {"KOP/s", 3, 0, true},  {"MOP/s", 6, 0, true},
                                             {"GOP/s", 9, 0, true}, {"TOP/s", 12, 0, true}, {"POP/s", 15, 0, true}};
    static const std::vector<UnitDef> time = {{"ns", 0}, {"us", 3}, {"µs", 3, 0, true}, {"ms", 6}, {"s", 9}};
    static const std::vector<UnitDef> freq = {{"Hz", 0}, {"kHz", 3}, {"MHz", 6}, {"GHz", 9}};
    switch (q) {
    case Quantity::Bytes: return bytes;
    case Quantity::Bandwidth: return bandwidth;
    case Quantity::OpsRate: return ops;
    case Quantity::TimeNs: return time;
    case Quantity::Frequency: return freq;
    }
    TS_UNREACHABLE("unknown quantity");
}

std::string shortest(double v)
{
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    TS_ASSERT(ec == std::errc());
    return std::string(buf, end);
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

double scaled(std::string_view number, const UnitDef &u, double value)
{
    if (u.exp10 < 0)
        return value * u.binary;
    if (number.find_first_of("eE") != std::string_view::npos)
        return value * std::pow(10.0, u.exp10);
    // Shift the decimal exponent instead of multiplying, so that "15.7 TFLOP/s"
    // is rounded once and equals 15.7e12.
    const std::string shifted = std::string(number) + "e" + std::to_string(u.exp10);
    double v = value;
    std::from_chars(shifted.data(), shifted.data() + shifted.size(), v);
    return v;
}

} // namespace

std::string_view deviceKindName(DeviceKind k)
{
    return nameOf(kDeviceKinds, k);
}
std::string_view memoryScopeName(MemoryScope s)
{
    return nameOf(kScopes, s);
}
std::string_view memoryKindName(MemoryKind k)
{
    return nameOf(kMemoryKinds, k);
}
std::string_view unitKindName(UnitKind k)
{
    return nameOf(kUnitKinds, k);
}
std::string_view opClassName(OpClass c)
{
    return nameOf(kOpClasses, c);
}
std::optional<DeviceKind> deviceKindFromName(std::string_view n)
{
    return valueOf(kDeviceKinds, n);
}
std::optional<MemoryScope> memoryScopeFromName(std::string_view n)
{
    return valueOf(kScopes, n);
}
std::optional<MemoryKind> memoryKindFromName(std::string_view n)
{
    return valueOf(kMemoryKinds, n);
}
std::optional<UnitKind> unitKindFromName(std::string_view n)
{
    return valueOf(kUnitKinds, n);
}
std::optional<OpClass> opClassFromName(std::string_view n)
{
    return valueOf(kOpClasses, n);
}

const std::vector<OpClass> &allOpClasses()
{
    static const std::vector<OpClass> all = [] {
        std::vector<OpClass> v;
        for (const auto &e : kOpClasses)
            v.push_back(e.value);
        return v;
    }();
    return all;
}

int opClassWeight(OpClass c)
{
    switch (c) {
    case OpClass::Gemm: return 4;
    case OpClass::Reduction: return 3;
    case OpClass::Elementwise: return 2;
    case OpClass::Movement: return 1;
    case OpClass::Other: return 0;
    }
    return 0;
}

OpClass opClassOf(std::string_view onnxOpType)
{
    for (const auto &rule : kOpClassRules)
        if (std::find(rule.ops.begin(), rule.ops.end(), onnxOpType) != rule.ops.end())
            return rule.cls;
    return OpClass::Other;
}

std::string_view efficiencyClassOf(std::string_view onnxOpType, std::int64_t group)
{
    const OpClass c = opClassOf(onnxOpType);
    if (c != OpClass::Gemm)
        return opClassName(c);
    if (onnxOpType.find("Conv") != std::string_view::npos)
        return group > 1 ? "grouped-conv" : "conv";
    return "matmul";
}

const std::vector<std::string_view> &efficiencyClassNames()
{
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> n{"conv", "grouped-conv", "matmul"};
        for (OpClass c : allOpClasses())
            n.push_back(opClassName(c));
        return n;
    }();
    return names;
}

double Calibration::computeEfficiencyFor(std::string_view efficiencyClass) const
{
    if (auto it = computeEfficiencyByClass.find(efficiencyClass); it != computeEfficiencyByClass.end())
        return it->second;
    if (efficiencyClass == "conv" || efficiencyClass == "grouped-conv" || efficiencyClass == "matmul")
        if (auto it = computeEfficiencyByClass.find(opClassName(OpClass::Gemm)); it != computeEfficiencyByClass.end())
            return it->second;
    return computeEfficiency;
}

double Calibration::memoryEfficiencyFor(std::string_view level) const
{
    auto it = memoryEfficiencyByLevel.find(level);
    return it == memoryEfficiencyByLevel.end() ? memoryEfficiency : it->second;
}

std::optional<double> parseQuantity(std::string_view text, Quantity q)
{
    text = trimmed(text);
    double value = 0;
    const char *end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || !std::isfinite(value))
        return std::nullopt;
    const std::string_view number(text.data(), static_cast<std::size_t>(stop - text.data()));
    const std::string_view unit = trimmed(std::string_view(stop, static_cast<std::size_t>(end - stop)));
    if (unit.empty())
        return value;
    for (const UnitDef &u : unitsOf(q))
        if (u.text == unit)
            return scaled(number, u, value);
    return std::nullopt;
}

std::string formatQuantity(double value, Quantity q)
{
    // The largest unit that keeps the number short (at most 7 significant
    // digits) and exact; the base unit otherwise.
    const auto significant = [](const std::string &n) {
        int digits = 0;
        bool leading = true;
        for (char c : n) {
            if (c == 'e')
                break;
            if (c >= '1' && c <= '9')
                leading = false;
            if (std::isdigit(static_cast<unsigned char>(c)) && !leading)
                ++digits;
        }
        return digits;
    };
    const auto &units = unitsOf(q); // units[0] is the base unit: always exact
    std::string best = shortest(value) + " " + std::string(units[0].text);
    double bestScale = 1;
    for (const UnitDef &u : units) {
        const double scale = u.exp10 >= 0 ? std::pow(10.0, u.exp10) : u.binary;
        if (u.alias || scale <= bestScale || std::fabs(value) < scale)
            continue;
        const std::string number = shortest(value / scale);
        std::string text = number + " " + std::string(u.text);
        if (significant(number) <= 7 && parseQuantity(text, q) == value) {
            best = std::move(text);
            bestScale = scale;
        }
    }
    return best;
}

bool ComputeUnit::supports(OpClass c) const
{
    return std::find(opClasses.begin(), opClasses.end(), c) != opClasses.end();
}

double Device::peakFlops(DType t) const
{
    double best = 0;
    for (const ComputeUnit &u : units)
        if (auto it = u.peakOpsPerSec.find(t); it != u.peakOpsPerSec.end())
            best = std::max(best, it->second);
    return best;
}

double Device::peakFlops(DType t, UnitKind kind) const
{
    double best = 0;
    for (const ComputeUnit &u : units)
        if (u.kind == kind)
            if (auto it = u.peakOpsPerSec.find(t); it != u.peakOpsPerSec.end())
                best = std::max(best, it->second);
    return best;
}

const MemoryLevel *Device::level(std::string_view name) const
{
    const int i = levelIndex(name);
    return i < 0 ? nullptr : &levels[static_cast<std::size_t>(i)];
}

int Device::levelIndex(std::string_view name) const
{
    for (std::size_t i = 0; i < levels.size(); ++i)
        if (levels[i].name == name)
            return static_cast<int>(i);
    return -1;
}

int Device::instances(const MemoryLevel &l) const
{
    switch (l.scope) {
    case MemoryScope::PerUnit: return totalCores() * topology.unitsPerCore;
    case MemoryScope::PerCore: return totalCores();
    case MemoryScope::PerCluster: return topology.clusters;
    case MemoryScope::Shared: return 1;
    }
    TS_UNREACHABLE("unknown memory scope");
}

const ComputeUnit *Device::unit(std::string_view name) const
{
    for (const ComputeUnit &u : units)
        if (u.name == name)
            return &u;
    return nullptr;
}

int Device::unitInstances(const ComputeUnit &u) const
{
    return u.countPerCore * (u.cores > 0 ? u.cores : totalCores());
}

double Device::unitPeakPerInstance(const ComputeUnit &u, DType t) const
{
    auto it = u.peakOpsPerSec.find(t);
    return it == u.peakOpsPerSec.end() ? 0.0 : it->second / unitInstances(u);
}

const ComputeUnit *Device::bestUnit(OpClass c, DType t) const
{
    const ComputeUnit *best = nullptr;
    double bestPeak = 0;
    for (const ComputeUnit &u : units) {
        auto it = u.peakOpsPerSec.find(t);
        if (u.supports(c) && it != u.peakOpsPerSec.end() && it->second > bestPeak) {
            best = &u;
            bestPeak = it->second;
        }
    }
    return best;
}

double Device::energyPerOpPj(DType t, UnitKind kind) const
{
    const ComputeUnit *best = nullptr;
    for (const ComputeUnit &u : units)
        if (u.kind == kind && u.peakOpsPerSec.count(t) && (!best || u.peakOpsPerSec.at(t) > best->peakOpsPerSec.at(t)))
            best = &u;
    if (!best)
        return 0;
    auto it = best->energyPerOpPj.find(t);
    return it == best->energyPerOpPj.end() ? 0.0 : it->second;
}

bool Device::isEstimated(std::string_view path) const
{
    for (const std::string &e : estimated)
        if (path.substr(0, e.size()) == e &&
            (path.size() == e.size() || path[e.size()] == '.' || path[e.size()] == '['))
            return true;
    return false;
}

namespace {

// Every field path a device file can name, for checking `estimated`.
std::set<std::string> fieldPaths(const Device &d)
{
    std::set<std::string> p = {"id",
                               "name",
                               "kind",
                               "vendor",
                               "description",
                               "source",
                               "notes",
                               "clock",
                               "topology",
                               "topology.clusters",
                               "topology.coresPerCluster",
                               "topology.unitsPerCore",
                               "levels",
                               "units",
                               "overheads",
                               "overheads.kernelLaunch",
                               "overheads.sync",
                               "overheads.dmaSetup",
                               "overheads.atomic",
                               "overheads.deviceLaunch",
                               "calibration",
                               "calibration.computeEfficiency",
                               "calibration.memoryEfficiency",
                               "calibration.latencyHidingOccupancy",
                               "calibration.source",
                               "power",
                               "power.tdpWatts",
                               "power.staticWatts"};
    if (!d.calibration.computeEfficiencyByClass.empty())
        p.insert("calibration.computeEfficiencyByClass");
    for (const auto &[cls, v] : d.calibration.computeEfficiencyByClass)
        p.insert("calibration.computeEfficiencyByClass." + cls);
    if (!d.calibration.memoryEfficiencyByLevel.empty())
        p.insert("calibration.memoryEfficiencyByLevel");
    for (const auto &[level, v] : d.calibration.memoryEfficiencyByLevel)
        p.insert("calibration.memoryEfficiencyByLevel." + level);
    for (std::size_t i = 0; i < d.levels.size(); ++i) {
        const std::string l = "levels[" + std::to_string(i) + "]";
        for (const char *f : {"", ".name", ".scope", ".capacity", ".bandwidth", ".transaction", ".transaction.read",
                              ".transaction.write", ".latency", ".energyPerBytePj"})
            p.insert(l + f);
    }
    for (std::size_t i = 0; i < d.units.size(); ++i) {
        const std::string u = "units[" + std::to_string(i) + "]";
        for (const char *f : {"", ".name", ".kind", ".countPerCore", ".cores", ".peak", ".ops", ".energyPerOpPj"})
            p.insert(u + f);
        for (const auto &[t, v] : d.units[i].peakOpsPerSec)
            p.insert(u + ".peak." + std::string(dtypeName(t)));
        for (const auto &[t, v] : d.units[i].energyPerOpPj)
            p.insert(u + ".energyPerOpPj." + std::string(dtypeName(t)));
    }
    if (d.gpu)
        for (const char *f : {"gpu", "gpu.warpSize", "gpu.smPartitions", "gpu.maxThreadsPerSm",
                              "gpu.maxThreadsPerBlock", "gpu.maxBlocksPerSm", "gpu.registersPerSm",
                              "gpu.maxRegistersPerThread", "gpu.sharedMemPerSm", "gpu.maxSharedMemPerBlock"})
            p.insert(f);
    return p;
}

Status fieldError(const std::string &path, const std::string &message)
{
    return Status::invalid(path + ": " + message);
}

std::string num(double v)
{
    return shortest(v);
}

} // namespace

Status validateDevice(const Device &d)
{
    auto positive = [](const std::string &path, double v) {
        return v > 0 ? Status::ok() : fieldError(path, "must be positive, got " + num(v));
    };
    auto nonNegative = [](const std::string &path, double v) {
        return v >= 0 ? Status::ok() : fieldError(path, "must not be negative, got " + num(v));
    };

    if (d.id.empty() || !std::all_of(d.id.begin(), d.id.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        }))
        return fieldError("id", "'" + d.id + "' must be non-empty lower-case letters, digits, '-', '_' or '.'");
    if (d.name.empty())
        return fieldError("name", "must not be empty");
    TS_TRY(nonNegative("clock", d.clockHz));
    TS_TRY(positive("topology.clusters", d.topology.clusters));
    TS_TRY(positive("topology.coresPerCluster", d.topology.coresPerCluster));
    TS_TRY(positive("topology.unitsPerCore", d.topology.unitsPerCore));

    if (d.levels.empty())
        return fieldError("levels", "a device needs at least one memory level");
    for (std::size_t i = 0; i < d.levels.size(); ++i) {
        const MemoryLevel &l = d.levels[i];
        const std::string p = "levels[" + std::to_string(i) + "]";
        if (l.name.empty())
            return fieldError(p + ".name", "must not be empty");
        if (d.levelIndex(l.name) != static_cast<int>(i))
            return fieldError(p + ".name", "duplicate level '" + l.name + "'");
        TS_TRY(positive(p + ".capacity", static_cast<double>(l.capacityBytes)));
        TS_TRY(positive(p + ".bandwidth", l.bandwidthBytesPerSec));
        TS_TRY(positive(p + ".transaction.read", l.readTransactionBytes));
        TS_TRY(positive(p + ".transaction.write", l.writeTransactionBytes));
        TS_TRY(nonNegative(p + ".latency", l.latencyNs));
        TS_TRY(nonNegative(p + ".energyPerBytePj", l.energyPerBytePj));
        const bool slowest = i + 1 == d.levels.size();
        if (l.kind == MemoryKind::Host && !slowest)
            return fieldError(p + ".kind", "'" + l.name + "' is host memory: only the slowest level can be");
        if (l.kind == MemoryKind::Host && i == 0)
            return fieldError(p + ".kind", "'" + l.name +
                                               "' is host memory: the device needs a memory of its own "
                                               "before it");
        if (l.kind == MemoryKind::Cache && slowest)
            return fieldError(p + ".kind", "'" + l.name + "' is a cache: the slowest level must be a memory");
        if (i == 0)
            continue;
        const MemoryLevel &prev = d.levels[i - 1];
        if (l.capacityBytes < prev.capacityBytes)
            return fieldError(p + ".capacity", "'" + l.name + "' (" +
                                                   formatQuantity(double(l.capacityBytes), Quantity::Bytes) +
                                                   ") is smaller than '" + prev.name + "' (" +
                                                   formatQuantity(double(prev.capacityBytes), Quantity::Bytes) +
                                                   ") before it; levels go fast to slow");
        if (l.scope < prev.scope)
            return fieldError(p + ".scope", "'" + std::string(memoryScopeName(l.scope)) + "' is narrower than '" +
                                                std::string(memoryScopeName(prev.scope)) + "' of '" + prev.name +
                                                "' before it; levels go fast to slow");
    }

    if (d.units.empty())
        return fieldError("units", "a device needs at least one compute unit");
    for (std::size_t i = 0; i < d.units.size(); ++i) {
        const ComputeUnit &u = d.units[i];
        const std::string p = "units[" + std::to_string(i) + "]";
        if (u.name.empty())
            return fieldError(p + ".name", "must not be empty");
        if (d.unit(u.name) != &u)
            return fieldError(p + ".name", "duplicate unit '" + u.name + "'");
        TS_TRY(positive(p + ".countPerCore", u.countPerCore));
        if (u.cores < 0 || u.cores > d.totalCores())
            return fieldError(p + ".cores", "must be between 0 and the " + std::to_string(d.totalCores()) +
                                                " cores of the topology, got " + std::to_string(u.cores));
        if (u.peakOpsPerSec.empty())
            return fieldError(p + ".peak", "needs the peak rate of at least one dtype");
        for (const auto &[t, v] : u.peakOpsPerSec)
            TS_TRY(positive(p + ".peak." + std::string(dtypeName(t)), v));
        for (const auto &[t, v] : u.energyPerOpPj)
            TS_TRY(nonNegative(p + ".energyPerOpPj." + std::string(dtypeName(t)), v));
        if (u.opClasses.empty())
            return fieldError(p + ".ops", "needs at least one op class");
    }

    if (d.gpu.has_value() != (d.kind == DeviceKind::Gpu))
        return fieldError("gpu", d.gpu ? "only allowed for kind 'gpu'" : "required for kind 'gpu'");
    if (d.gpu) {
        const GpuParams &g = *d.gpu;
        TS_TRY(positive("gpu.warpSize", g.warpSize));
        TS_TRY(positive("gpu.smPartitions", g.smPartitions));
        TS_TRY(positive("gpu.maxThreadsPerSm", g.maxThreadsPerSm));
        TS_TRY(positive("gpu.maxThreadsPerBlock", g.maxThreadsPerBlock));
        TS_TRY(positive("gpu.maxBlocksPerSm", g.maxBlocksPerSm));
        TS_TRY(positive("gpu.registersPerSm", g.registersPerSm));
        TS_TRY(positive("gpu.maxRegistersPerThread", g.maxRegistersPerThread));
        TS_TRY(positive("gpu.sharedMemPerSm", static_cast<double>(g.sharedMemPerSm)));
        TS_TRY(positive("gpu.maxSharedMemPerBlock", static_cast<double>(g.maxSharedMemPerBlock)));
        if (g.maxThreadsPerBlock > g.maxThreadsPerSm)
            return fieldError("gpu.maxThreadsPerBlock", "exceeds gpu.maxThreadsPerSm");
        if (g.maxSharedMemPerBlock > g.sharedMemPerSm)
            return fieldError("gpu.maxSharedMemPerBlock", "exceeds gpu.sharedMemPerSm");
    }

    TS_TRY(nonNegative("overheads.kernelLaunch", d.overheads.kernelLaunchNs));
    TS_TRY(nonNegative("overheads.sync", d.overheads.syncNs));
    TS_TRY(nonNegative("overheads.dmaSetup", d.overheads.dmaSetupNs));
    TS_TRY(nonNegative("overheads.atomic", d.overheads.atomicNs));
    TS_TRY(nonNegative("overheads.deviceLaunch", d.overheads.deviceLaunchNs));
    auto fraction = [](const std::string &path, double v) {
        return v > 0 && v <= 1 ? Status::ok() : fieldError(path, "must be in (0, 1], got " + num(v));
    };
    TS_TRY(fraction("calibration.computeEfficiency", d.calibration.computeEfficiency));
    TS_TRY(fraction("calibration.memoryEfficiency", d.calibration.memoryEfficiency));
    TS_TRY(fraction("calibration.latencyHidingOccupancy", d.calibration.latencyHidingOccupancy));
    for (const auto &[cls, v] : d.calibration.computeEfficiencyByClass) {
        const auto &known = efficiencyClassNames();
        if (std::find(known.begin(), known.end(), cls) == known.end()) {
            std::string list;
            for (std::string_view k : known)
                list += (list.empty() ? "" : ", ") + std::string(k);
            return fieldError("calibration.computeEfficiencyByClass." + cls, "unknown class; known: " + list);
        }
        TS_TRY(fraction("calibration.computeEfficiencyByClass." + cls, v));
    }
    for (const auto &[level, v] : d.calibration.memoryEfficiencyByLevel) {
        if (!d.level(level))
            return fieldError("calibration.memoryEfficiencyByLevel." + level, "the device has no such level");
        TS_TRY(fraction("calibration.memoryEfficiencyByLevel." + level, v));
    }
    if (d.kind == DeviceKind::Gpu) {
        // The GPU model's launch and stage terms (docs/cost-model.md): a GPU
        // without them would look free to launch and to synchronise.
        TS_TRY(positive("overheads.kernelLaunch", d.overheads.kernelLaunchNs));
        TS_TRY(positive("overheads.sync", d.overheads.syncNs));
    }
    TS_TRY(nonNegative("power.tdpWatts", d.power.tdpWatts));
    TS_TRY(nonNegative("power.staticWatts", d.power.staticWatts));
    if (d.power.tdpWatts > 0 && d.power.staticWatts > d.power.tdpWatts)
        return fieldError("power.staticWatts", "exceeds power.tdpWatts");

    const std::set<std::string> paths = fieldPaths(d);
    for (std::size_t i = 0; i < d.estimated.size(); ++i)
        if (!paths.count(d.estimated[i]))
            return fieldError("estimated[" + std::to_string(i) + "]", "no field '" + d.estimated[i] + "'");
    return Status::ok();
}

namespace {

// Four significant digits in the largest unit that keeps the number >= 1, for
// people rather than files: binary units for sizes ("23.54 GiB"), decimal ones
// up to tera for rates, as data sheets write them ("1979 TOP/s").
std::string display(double value, Quantity q)
{
    const UnitDef *best = &unitsOf(q)[0];
    double bestScale = 1;
    for (const UnitDef &u : unitsOf(q)) {
        const bool binary = u.exp10 < 0;
        if (u.alias || u.exp10 > 12 || (u.exp10 > 0 && q == Quantity::Bytes) || (binary && q != Quantity::Bytes))
            continue;
        const double scale = binary ? u.binary : std::pow(10.0, u.exp10);
        if (scale > bestScale && std::fabs(value) >= scale) {
            best = &u;
            bestScale = scale;
        }
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", value / bestScale);
    return std::string(buf) + " " + std::string(best->text);
}

// Integer dtypes count operations, not floating-point ones: "256 TOP/s".
std::string integerOps(std::string rate, DType t)
{
    if (const auto at = rate.find("FLOP/s"); isInteger(t) && at != std::string::npos)
        rate.replace(at, 6, "OP/s");
    return rate;
}

} // namespace

std::string formatOpsRate(double opsPerSec, DType t)
{
    return integerOps(formatQuantity(opsPerSec, Quantity::OpsRate), t);
}

std::string deviceSummary(const Device &d)
{
    std::string out = d.name + "; " + std::string(deviceKindName(d.kind)) + "; " + std::to_string(d.topology.clusters) +
                      "x" + std::to_string(d.topology.coresPerCluster) + "x" + std::to_string(d.topology.unitsPerCore);
    DType best = DType::Float32;
    for (DType t : {DType::Float16, DType::BFloat16})
        if (d.peakFlops(t) > d.peakFlops(best))
            best = t;
    for (DType t : {best, DType::Int8})
        if (d.peakFlops(t) > 0)
            out += "; " + std::string(dtypeName(t)) + " " + integerOps(display(d.peakFlops(t), Quantity::OpsRate), t);
    if (!d.levels.empty()) {
        const MemoryLevel &m = d.levels.back();
        out += "; " + m.name + " " + display(double(d.totalCapacity(m)), Quantity::Bytes) + " @ " +
               display(m.bandwidthBytesPerSec, Quantity::Bandwidth);
    }
    return out;
}

} // namespace tessera
