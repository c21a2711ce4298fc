// Host CPU detection and its estimates; the formulas are in hostdevice.h.
#include "core/hw/hostdevice.h"

#include "core/support/assert.h"

#include <QDir>
#include <QFile>

#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

namespace tessera {

namespace {

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// "0-3,8-11" → 8
int countCpuList(const QByteArray &list)
{
    int n = 0;
    for (const QByteArray &part : list.trimmed().split(',')) {
        if (part.isEmpty())
            continue;
        const auto range = part.split('-');
        n += range.size() == 2 ? range[1].toInt() - range[0].toInt() + 1 : 1;
    }
    return n;
}

// "48K", "2048K", "32M" → bytes
std::int64_t parseCacheSize(const QByteArray &text)
{
    QByteArray t = text.trimmed();
    std::int64_t scale = 1;
    if (t.endsWith('K'))
        scale = 1024;
    else if (t.endsWith('M'))
        scale = 1024 * 1024;
    if (scale > 1)
        t.chop(1);
    return t.toLongLong() * scale;
}

struct Estimates {
    int flopsPerCycleF32;
    const char *unitName;
};

Estimates vectorEstimate(const HostCpuInfo &info)
{
    const bool fma = info.hasFlag("fma");
    if (info.hasFlag("avx512f") && fma)
        return {64, "AVX-512"};
    if (info.hasFlag("avx2") && fma)
        return {32, "AVX2"};
    if (info.hasFlag("avx"))
        return {16, "AVX"};
    if (info.hasFlag("asimd"))
        return {16, "NEON"};
    if (info.hasFlag("sse2"))
        return {8, "SSE"};
    return {2, "scalar FPU"};
}

} // namespace

bool HostCpuInfo::hasFlag(std::string_view f) const
{
    return std::find(flags.begin(), flags.end(), f) != flags.end();
}

HostCpuInfo readHostCpuInfo(const QString &root)
{
    const QDir dir(root);
    HostCpuInfo info;
    std::set<std::pair<int, int>> cores; // (physical id, core id)
    std::set<int> sockets;
    int physicalId = 0;
    double mhz = 0;
    for (const QByteArray &line : readFile(dir.filePath("proc/cpuinfo")).split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon < 0)
            continue;
        const QByteArray key = line.left(colon).trimmed();
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (key == "processor") {
            ++info.logicalCpus;
            physicalId = 0;
        } else if (key == "model name" && info.modelName.empty()) {
            info.modelName = value.toStdString();
        } else if (key == "vendor_id" && info.vendor.empty()) {
            info.vendor = value == "GenuineIntel" ? "Intel" : value == "AuthenticAMD" ? "AMD" : value.toStdString();
        } else if (key == "physical id") {
            physicalId = value.toInt();
            sockets.insert(physicalId);
        } else if (key == "core id") {
            cores.insert({physicalId, value.toInt()});
        } else if (key == "cpu MHz" && mhz == 0) {
            mhz = value.toDouble();
        } else if (key == "cache_alignment") {
            info.cacheLineBytes = std::max(1, value.toInt());
        } else if ((key == "flags" || key == "Features") && info.flags.empty()) {
            for (const QByteArray &f : value.split(' '))
                if (!f.isEmpty())
                    info.flags.push_back(f.toStdString());
        }
    }
    info.physicalCores = cores.empty() ? info.logicalCpus : static_cast<int>(cores.size());
    info.sockets = sockets.empty() ? (info.logicalCpus > 0 ? 1 : 0) : static_cast<int>(sockets.size());

    const QByteArray maxKHz = readFile(dir.filePath("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"));
    info.clockHz = !maxKHz.trimmed().isEmpty() ? maxKHz.trimmed().toDouble() * 1e3 : mhz * 1e6;

    const QDir cacheDir(dir.filePath("sys/devices/system/cpu/cpu0/cache"));
    for (const QString &index : cacheDir.entryList({QStringLiteral("index*")}, QDir::Dirs, QDir::Name)) {
        const QDir c(cacheDir.filePath(index));
        if (readFile(c.filePath("type")).trimmed() == "Instruction")
            continue;
        HostCpuInfo::Cache cache;
        cache.level = readFile(c.filePath("level")).trimmed().toInt();
        cache.bytes = parseCacheSize(readFile(c.filePath("size")));
        cache.sharedBy = std::max(1, countCpuList(readFile(c.filePath("shared_cpu_list"))));
        if (cache.level > 0 && cache.bytes > 0)
            info.caches.push_back(cache);
    }
    std::sort(info.caches.begin(), info.caches.end(), [](const auto &a, const auto &b) { return a.level < b.level; });

    for (const QByteArray &line : readFile(dir.filePath("proc/meminfo")).split('\n'))
        if (line.startsWith("MemTotal:"))
            info.memoryBytes = line.mid(9).trimmed().split(' ').front().toLongLong() * 1024;
    return info;
}

Device hostDevice(const HostCpuInfo &info)
{
    Device d;
    d.id = "host";
    d.name = info.modelName.empty() ? "host cpu" : info.modelName;
    d.kind = DeviceKind::Cpu;
    d.vendor = info.vendor;
    d.description = "the machine Tessera runs on, read from the operating system at start-up";
    d.source = "/proc/cpuinfo, /proc/meminfo, /sys/devices/system/cpu/cpu0/{cpufreq,cache} (read at run time)";

    const int cores = std::max(1, info.physicalCores);
    const int sockets = std::max(1, std::min(info.sockets, cores));
    const int threadsPerCore = std::max(1, info.logicalCpus / cores);
    const bool clockKnown = info.clockHz > 0;
    d.clockHz = clockKnown ? info.clockHz : 2e9;
    d.topology = {sockets, (cores + sockets - 1) / sockets, 1};

    const Estimates est = vectorEstimate(info);
    d.notes = "estimates: peak f32 = " + std::to_string(d.totalCores()) + " cores x " +
              formatQuantity(d.clockHz, Quantity::Frequency) + " x " + std::to_string(est.flopsPerCycleF32) +
              " FLOP/cycle (" + est.unitName +
              ", two FMA pipes assumed); cache bandwidth = B/cycle/core (L1 128, L2 64, L3+ 32) x cores x clock; "
              "latencies 4/14/50 cycles; DRAM 10 GB/s per core up to 100 GB/s, 90 ns";
    if (!clockKnown) {
        d.notes += "; clock unknown, 2 GHz assumed";
        d.estimated.push_back("clock");
    }

    const auto clock = d.clockHz;
    for (const HostCpuInfo::Cache &c : info.caches) {
        MemoryLevel l;
        l.name = "L" + std::to_string(c.level);
        l.scope = c.sharedBy <= threadsPerCore     ? MemoryScope::PerCore
                  : c.sharedBy >= info.logicalCpus ? MemoryScope::Shared
                                                   : MemoryScope::PerCluster;
        l.capacityBytes = c.bytes;
        const double bytesPerCycle = c.level == 1 ? 128 : c.level == 2 ? 64 : 32;
        l.bandwidthBytesPerSec = bytesPerCycle * d.totalCores() * clock;
        l.latencyNs = std::round((c.level == 1 ? 4 : c.level == 2 ? 14 : 50) / clock * 1e10) / 10; // 0.1 ns
        l.readTransactionBytes = l.writeTransactionBytes = info.cacheLineBytes;
        // Keep the fast → slow order even if the OS lists an odd cache.
        if (!d.levels.empty() && (l.capacityBytes < d.levels.back().capacityBytes || l.scope < d.levels.back().scope))
            continue;
        d.levels.push_back(l);
    }
    MemoryLevel dram;
    dram.name = "DRAM";
    dram.scope = MemoryScope::Shared;
    dram.capacityBytes = info.memoryBytes > 0 ? info.memoryBytes : std::int64_t(1) << 30;
    if (!d.levels.empty())
        dram.capacityBytes = std::max(dram.capacityBytes, d.levels.back().capacityBytes);
    dram.bandwidthBytesPerSec = std::min(100e9, 10e9 * d.totalCores());
    dram.latencyNs = 90;
    dram.readTransactionBytes = dram.writeTransactionBytes = info.cacheLineBytes;
    d.levels.push_back(dram);
    for (std::size_t i = 0; i < d.levels.size(); ++i) {
        const std::string p = "levels[" + std::to_string(i) + "]";
        d.estimated.push_back(p + ".bandwidth");
        d.estimated.push_back(p + ".latency");
    }
    if (info.memoryBytes <= 0) {
        d.estimated.push_back("levels[" + std::to_string(d.levels.size() - 1) + "].capacity");
        d.notes += "; MemTotal unknown, 1 GiB assumed";
    }

    ComputeUnit u;
    u.kind = UnitKind::Vector;
    u.name = est.unitName;
    const double f32 = double(d.totalCores()) * clock * est.flopsPerCycleF32;
    u.peakOpsPerSec[DType::Float32] = f32;
    u.peakOpsPerSec[DType::Float64] = f32 / 2;
    if (info.hasFlag("avx512_bf16"))
        u.peakOpsPerSec[DType::BFloat16] = 2 * f32;
    if (info.hasFlag("avx512_fp16"))
        u.peakOpsPerSec[DType::Float16] = 2 * f32;
    if (info.hasFlag("avx512_vnni") || info.hasFlag("avx_vnni"))
        u.peakOpsPerSec[DType::Int8] = 4 * f32;
    u.opClasses = allOpClasses();
    d.units.push_back(u);
    d.estimated.push_back("units[0].peak");

    d.overheads = {.kernelLaunchNs = 2000, .syncNs = 1000, .dmaSetupNs = 0, .atomicNs = 20};
    d.estimated.push_back("overheads");
    // docs/cost-model.md "host": vectorised loops of the reference backend reach
    // about half of the AVX peak and 70 % of the stream bandwidth.
    d.calibration = {.computeEfficiency = 0.5,
                     .memoryEfficiency = 0.7,
                     .latencyHidingOccupancy = 1.0,
                     .source = "estimate for compiler-vectorised loops (docs/cost-model.md)"};
    d.estimated.push_back("calibration");
    d.notes += "; overheads: 2 us task launch, 1 us barrier, 20 ns atomic (thread-pool figures)";

    const Status valid = validateDevice(d);
    TS_ASSERT_MSG(valid.isOk(), valid.message().c_str());
    return d;
}

Device detectHostDevice()
{
    HostCpuInfo info = readHostCpuInfo();
    if (info.logicalCpus <= 0) {
        info.logicalCpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        info.physicalCores = info.logicalCpus;
        info.sockets = 1;
    }
    return hostDevice(info);
}

} // namespace tessera
