#include "core/support/fileio.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace tessera {

Expected<std::string> readFile(const std::string &path, std::int64_t maxBytes)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Status::error(ErrorCode::Io, "is a directory, not a file", {.file = path});
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return Status::error(ErrorCode::Io, std::string("cannot open: ") + std::strerror(errno), {.file = path});
    std::string data;
    char buf[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        if (static_cast<std::int64_t>(data.size() + n) > maxBytes) {
            std::fclose(f);
            return Status::invalid("file is larger than " + std::to_string(maxBytes) + " bytes", {.file = path});
        }
        data.append(buf, n);
    }
    const bool failed = std::ferror(f);
    std::fclose(f);
    if (failed)
        return Status::error(ErrorCode::Io, "read error", {.file = path});
    return data;
}

Status writeFileAtomic(const std::string &path, std::string_view data)
{
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return Status::error(ErrorCode::Io, std::string("cannot write: ") + std::strerror(errno), {.file = path});
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            const int err = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            return Status::error(ErrorCode::Io, std::string("cannot write: ") + std::strerror(err), {.file = path});
        }
        done += static_cast<std::size_t>(w);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        return Status::error(ErrorCode::Io, std::string("cannot flush: ") + std::strerror(err), {.file = path});
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        return Status::error(ErrorCode::Io, std::string("cannot replace: ") + std::strerror(err), {.file = path});
    }
    return Status::ok();
}

} // namespace tessera
