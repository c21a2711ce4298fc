#include "plugins/welder/memlevels.h"

#include <algorithm>

namespace tessera::welder {

bool isHostLevel(const MemoryLevel &level)
{
    return level.kind == MemoryKind::Host;
}

Expected<WelderLevels> memLevels(const Device &device)
{
    WelderLevels out;
    if (device.levels.empty())
        return Status::invalid("device " + device.id + " has no memory levels");
    auto fromDevice = [&](const MemoryLevel &l) {
        WelderLevel w;
        w.name = l.name;
        w.deviceLevel = l.name;
        w.capacityBytes = l.capacityBytes;
        w.readTransactionBytes = std::max(1, l.readTransactionBytes);
        w.writeTransactionBytes = std::max(1, l.writeTransactionBytes);
        w.bandwidthBytesPerSec = l.bandwidthBytesPerSec;
        return w;
    };
    out.levels.push_back(fromDevice(device.levels.back()));
    auto it = device.levels.rbegin() + 1;
    if (isHostLevel(device.levels.back()) && it != device.levels.rend()) {
        out.host = true; // §5.4: the device memory is a level of its own
        out.levels.push_back(fromDevice(*it));
        out.levels.back().capacityBytes = device.totalCapacity(*it);
        ++it;
    }
    for (; it != device.levels.rend(); ++it) {
        if (it->kind == MemoryKind::Cache || it->scope == MemoryScope::Shared) { // a hardware cache (GPU L2)
            if (out.host)
                continue; // it serves the device memory, not host memory
            if (out.cacheLevel.empty()) {
                out.cacheLevel = it->name;
                out.cacheCapacityBytes = device.totalCapacity(*it);
            }
            continue;
        }
        WelderLevel w = fromDevice(*it);
        if (device.gpu && device.gpu->maxSharedMemPerBlock > 0 && it->scope == MemoryScope::PerCore)
            w.capacityBytes = std::min(w.capacityBytes, device.gpu->maxSharedMemPerBlock);
        out.levels.push_back(w);
    }
    if (device.gpu) {
        WelderLevel reg;
        reg.name = "REG";
        reg.capacityBytes = static_cast<std::int64_t>(device.gpu->registersPerSm) * 4;
        reg.readTransactionBytes = reg.writeTransactionBytes = 4;
        reg.bandwidthBytesPerSec = out.levels.back().bandwidthBytesPerSec * 8;
        out.levels.push_back(reg);
    }
    if (out.levels.size() < 2)
        return Status::invalid("device " + device.id + " has a single memory level: Welder has nothing to connect at");
    return out;
}

} // namespace tessera::welder
