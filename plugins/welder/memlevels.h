// The memory hierarchy Welder schedules on (welder-osdi23 §3.3, Table 1 MemLevels; §4: "for
// CUDA and ROCm GPUs, Welder schedules data tiles on three memory layers: global memory, shared
// memory, and register").
//
// Level 0 is the device's slowest level (global memory, where every unconnected tensor lives);
// higher numbers are faster levels, as in Fig. 7 ("0 represents the lowest memory level").
// Which device levels take part (choices the paper leaves to the device description):
//   - the slowest level is level 0;
//   - every faster level that a compute task owns (scope per-core, per-unit or per-cluster:
//     a GPU's shared memory, a DSA's L1 and LLB) is a level a tile-graph can be connected at;
//     levels of kind cache, and shared-scope levels other than the slowest (a GPU's L2: the
//     preset files do not state a kind for it), are hardware caches, not managed by a
//     schedule, and are skipped (the one nearest the slowest level is remembered
//     as the cache re-reads come from);
//   - GPUs add a register level on top (registers are not a device level, docs: device.h);
//     its capacity is the register file of one SM (GpuParams::registersPerSm × 4 bytes),
//     its transactions 4 bytes.
// §5.4 host memory: a device "extended with host memory as a new device" (§3.3) states it — its
// slowest level has kind MemoryKind::Host (device files: "kind": "host"; validateDevice allows it
// on the slowest level only, below a memory of the device's own). Then that level is level 0 and the device
// memory above it (the nearest faster level, shared though it is) is level 1, a memory tiles are connected at: a
// level-0 tile is a chunk loaded from host memory into device memory, computed by the level-1 tile-graphs inside it and
// stored back (Table 7). The hardware cache in front of the device memory is skipped as before, and no cache is assumed
// in front of host memory. Capacities are per tile-graph instance: a GPU's shared memory gives one thread block at most
// GpuParams::maxSharedMemPerBlock (Welder's smem_cap, 48 KiB on a V100), other levels their
// per-instance capacity.
#pragma once

#include "core/hw/device.h"
#include "core/support/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::welder {

struct WelderLevel {
    std::string name;        // shown name: the device level's, or "REG"
    std::string deviceLevel; // device level name; empty for the register level
    std::int64_t capacityBytes = 0;
    int readTransactionBytes = 1;
    int writeTransactionBytes = 1;
    double bandwidthBytesPerSec = 0; // whole device
};

struct WelderLevels {
    std::vector<WelderLevel> levels; // [0] slowest ... back() fastest
    // The hardware cache in front of level 0 (a GPU's L2), if any: not a level a schedule
    // manages, but where tiles re-read by many tiles come from (subgraphtiling.h, the cost).
    std::string cacheLevel;
    std::int64_t cacheCapacityBytes = 0;
    bool host = false; // level 0 is host memory, level 1 the device memory (§5.4)
    int top() const { return static_cast<int>(levels.size()) - 1; }
    const WelderLevel &at(int level) const { return levels[static_cast<std::size_t>(level)]; }
};

// Is `level` the §5.4 host-memory level (its kind says so; the name does not matter)?
bool isHostLevel(const MemoryLevel &level);

// The levels of `device`; an error when it has fewer than two (nothing to connect at).
Expected<WelderLevels> memLevels(const Device &device);

} // namespace tessera::welder
