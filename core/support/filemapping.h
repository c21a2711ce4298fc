// A read-only memory mapping of a whole file, shared and reference-counted.
//
// mapFile() opens the file, fstat()s it and maps all of it PROT_READ,
// MAP_PRIVATE. Mappings are cached per file identity (device, inode, size,
// modification time) through weak references: every caller asking for the
// same unchanged file while a mapping is alive gets that same mapping, and the
// file is unmapped when the last shared_ptr goes. A file that changed (other
// size or mtime, or replaced by another inode) gets a fresh mapping; holders of
// the old one keep theirs.
//
// The mapping covers [0, size()) with size() taken by fstat at map time, so
// callers check their ranges against size() and never touch a page past the
// end of the file as it was then. Residual risk: a file truncated by someone
// else WHILE it is mapped makes reads of the vanished pages raise SIGBUS; POSIX
// offers no way to guard a mapping against that short of copying. Files Tessera
// maps (external weights) are only read, never truncated, by Tessera itself.
#pragma once

#include "core/support/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tessera {

class FileMapping
{
public:
    FileMapping(const FileMapping &) = delete;
    FileMapping &operator=(const FileMapping &) = delete;
    ~FileMapping();

    const std::uint8_t *data() const { return m_data; } // nullptr for an empty file
    std::int64_t size() const { return m_size; }
    const std::string &path() const { return m_path; }

private:
    friend Expected<std::shared_ptr<const FileMapping>> mapFile(const std::string &path);
    FileMapping(std::string path, const std::uint8_t *data, std::int64_t size)
        : m_path(std::move(path)), m_data(data), m_size(size)
    {}
    std::string m_path;
    const std::uint8_t *m_data = nullptr;
    std::int64_t m_size = 0;
};

// The live mapping of `path`, or a new one. Io errors name the path.
Expected<std::shared_ptr<const FileMapping>> mapFile(const std::string &path);

// How many mappings are alive in this process (for tests and diagnostics).
std::size_t liveFileMappings();

} // namespace tessera
