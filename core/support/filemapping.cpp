// FileMapping: one PROT_READ/MAP_PRIVATE mapping per unchanged file, cached
// through weak_ptrs keyed by (device, inode, size, mtime) so tensors of one
// file share it; the last owner's destructor unmaps. The whole file is mapped
// from offset 0, so callers' offsets need no page alignment.
#include "core/support/filemapping.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace tessera {

namespace {

using Key = std::tuple<dev_t, ino_t, off_t, std::int64_t, std::int64_t>; // dev, inode, size, mtime s, ns

std::mutex g_mutex;
std::map<Key, std::weak_ptr<const FileMapping>> g_cache; // guarded by g_mutex
std::atomic<std::size_t> g_live{0};

} // namespace

FileMapping::~FileMapping()
{
    if (m_data)
        ::munmap(const_cast<std::uint8_t *>(m_data), static_cast<std::size_t>(m_size));
    g_live.fetch_sub(1, std::memory_order_relaxed);
}

Expected<std::shared_ptr<const FileMapping>> mapFile(const std::string &path)
{
    const Location loc{.file = path};
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Status::error(ErrorCode::Io, std::string("cannot open file to map: ") + std::strerror(errno), loc);
    struct stat st {
    };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Status::error(ErrorCode::Io, "cannot map a file that is not a regular file", loc);
    }
    const Key key{st.st_dev, st.st_ino, st.st_size, static_cast<std::int64_t>(st.st_mtim.tv_sec),
                  static_cast<std::int64_t>(st.st_mtim.tv_nsec)};
    std::lock_guard lock(g_mutex);
    if (auto it = g_cache.find(key); it != g_cache.end()) {
        if (auto live = it->second.lock()) {
            ::close(fd);
            return live;
        }
    }
    const std::uint8_t *data = nullptr;
    if (st.st_size > 0) {
        void *p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            return Status::error(ErrorCode::Io, std::string("cannot map file: ") + std::strerror(err), loc);
        }
        data = static_cast<const std::uint8_t *>(p);
    }
    ::close(fd); // the mapping stays valid without the descriptor
    g_live.fetch_add(1, std::memory_order_relaxed);
    std::shared_ptr<const FileMapping> mapping(new FileMapping(path, data, static_cast<std::int64_t>(st.st_size)));
    // Drop expired entries so the cache stays as small as the set of live mappings.
    std::erase_if(g_cache, [](const auto &e) { return e.second.expired(); });
    g_cache[key] = mapping;
    return mapping;
}

std::size_t liveFileMappings()
{
    return g_live.load(std::memory_order_relaxed);
}

} // namespace tessera
