// The `host` device: the CPU Tessera runs on, read from the OS at run time.
//
// Read (Linux): /proc/cpuinfo (model name, vendor, sockets, physical cores,
// cpu MHz, flags or ARM Features, cache_alignment), /proc/meminfo (MemTotal),
// /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq (preferred clock) and
// /sys/devices/system/cpu/cpu0/cache/index*/ (level, type, size, shared_cpu_list).
//
// Estimated (listed in Device::estimated, formulas in Device::notes):
//  - peak f32 = physical cores × clock × f32 FLOPs/cycle/core, where FLOPs/cycle
//    assume two FMA pipes: AVX-512+FMA 64, AVX2+FMA 32, AVX 16, SSE 8, NEON 16,
//    none 2. f64 is half; bf16 (avx512_bf16) and f16 (avx512_fp16) double it;
//    i8 (avx512_vnni / avx_vnni) quadruples it. Unknown clock: 2 GHz.
//  - cache bandwidth = bytes/cycle/core × cores × clock with L1 128, L2 64,
//    L3+ 32 B/cycle; latency 4, 14, 50 cycles; DRAM 10 GB/s per core up to
//    100 GB/s, 90 ns. Missing MemTotal: 1 GiB.
#pragma once

#include "core/hw/device.h"

#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

struct HostCpuInfo {
    struct Cache {
        int level = 0;
        std::int64_t bytes = 0;
        int sharedBy = 1; // logical CPUs sharing one instance
    };
    std::string modelName;
    std::string vendor;
    int logicalCpus = 0;
    int physicalCores = 0;
    int sockets = 0;
    double clockHz = 0;
    int cacheLineBytes = 64;
    std::vector<std::string> flags; // "avx2", "avx512f", "fma", "asimd", ...
    std::vector<Cache> caches;      // data and unified caches of cpu0, by level
    std::int64_t memoryBytes = 0;
    bool hasFlag(std::string_view f) const;
};

// Reads the files above under `root` ("/" on a live system; tests pass a folder
// laid out like one). Missing files leave fields at zero/empty.
HostCpuInfo readHostCpuInfo(const QString &root = QStringLiteral("/"));

// The host Device from what was read; always valid (validateDevice passes).
Device hostDevice(const HostCpuInfo &info);

// hostDevice(readHostCpuInfo()), falling back to std::thread::hardware_concurrency
// when /proc gives no CPU count.
Device detectHostDevice();

} // namespace tessera
