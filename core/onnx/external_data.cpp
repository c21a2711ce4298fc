// External data: resolve untrusted locations safely, read on demand.
// The containment check runs on weakly_canonical paths, so "..", "." and
// symlinks (in every existing component) are resolved before comparing with
// the canonical model folder; only then is the file's existence and size
// looked at. Loading maps the file (see the header) and views into the
// mapping; only data at a misaligned offset is copied with pread.
#include "core/onnx/external_data.h"

#include "core/support/filemapping.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tessera {

namespace {

bool isInside(const fs::path &p, const fs::path &dir)
{
    auto [d, q] = std::mismatch(dir.begin(), dir.end(), p.begin(), p.end());
    return d == dir.end() && q != p.end();
}

std::string quoted(std::string_view s)
{
    return "'" + std::string(s) + "'";
}

} // namespace

Expected<TensorData::External> resolveExternalData(const fs::path &modelDir, std::string_view location,
                                                   std::int64_t offset, std::int64_t length, std::int64_t expectedBytes)
{
    if (location.empty() || location.find('\0') != std::string_view::npos)
        return Status::invalid("external data location is empty or malformed");
    const fs::path rel(location);
    if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
        return Status::invalid("external data location " + quoted(location) +
                               " is an absolute path; it must be relative to the model's folder");
    std::error_code ec;
    const fs::path path = fs::weakly_canonical(modelDir / rel, ec);
    if (ec)
        return Status::invalid("external data location " + quoted(location) + " cannot be resolved: " + ec.message());
    if (!isInside(path, modelDir))
        return Status::invalid("external data location " + quoted(location) + " escapes the model's folder");
    if (!fs::is_regular_file(path, ec))
        return Status::invalid("external data file " + quoted(location) + " does not exist or is not a regular file");
    const auto size = static_cast<std::int64_t>(fs::file_size(path, ec));
    if (ec)
        return Status::error(ErrorCode::Io, "cannot stat external data file " + quoted(location) + ": " + ec.message());
    if (offset < 0 || offset > size)
        return Status::invalid("external data offset " + std::to_string(offset) + " is beyond the end of " +
                               quoted(location) + " (" + std::to_string(size) + " bytes)");
    if (length < 0)
        length = size - offset;
    if (length > size - offset)
        return Status::invalid("external data [" + std::to_string(offset) + ", +" + std::to_string(length) +
                               ") runs past the end of " + quoted(location) + " (" + std::to_string(size) + " bytes)");
    if (length != expectedBytes)
        return Status::invalid("external data length " + std::to_string(length) + " does not match the " +
                               std::to_string(expectedBytes) + " bytes the tensor's shape needs");
    return TensorData::External{path.string(), offset, length};
}

Expected<std::vector<std::uint8_t>> readExternalData(const TensorData::External &ext)
{
    const Location loc{.file = ext.path};
    const int fd = ::open(ext.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Status::error(ErrorCode::Io, std::string("cannot open external data: ") + std::strerror(errno), loc);
    struct stat st {
    };
    if (::fstat(fd, &st) != 0 || st.st_size < ext.offset + ext.length) {
        ::close(fd);
        return Status::error(ErrorCode::Io, "external data file is shorter than recorded at import", loc);
    }
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(ext.length));
    std::int64_t done = 0;
    while (done < ext.length) {
        const ssize_t r = ::pread(fd, bytes.data() + done, static_cast<std::size_t>(ext.length - done),
                                  static_cast<off_t>(ext.offset + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ::close(fd);
            return Status::error(ErrorCode::Io, "cannot read external data",
                                 {.file = ext.path, .offset = ext.offset + done});
        }
        done += r;
    }
    ::close(fd);
    return bytes;
}

namespace {

// The view of `ext` in `file`, refused when the file (as mapped) is too short for it.
Expected<TensorData::Mapped> viewOf(std::shared_ptr<const FileMapping> file, const TensorData::External &ext)
{
    if (ext.offset < 0 || ext.length < 0 || file->size() < ext.offset || file->size() - ext.offset < ext.length)
        return Status::error(ErrorCode::Io, "external data file is shorter than recorded at import",
                             {.file = ext.path});
    return TensorData::Mapped{std::move(file), ext.offset, ext.length};
}

} // namespace

Expected<TensorData::Mapped> mapExternalData(const TensorData::External &ext)
{
    auto file = mapFile(ext.path);
    if (!file)
        return file.status();
    return viewOf(std::move(*file), ext);
}

Expected<std::shared_ptr<const TensorData>> loadTensorData(const std::shared_ptr<const TensorData> &data)
{
    if (!data || !data->isExternal())
        return data;
    auto loaded = std::make_shared<TensorData>();
    loaded->dtype = data->dtype;
    loaded->shape = data->shape;
    const std::size_t align = std::max<std::size_t>(dtypeSize(data->dtype), 1);
    if (data->external->offset % static_cast<std::int64_t>(align) == 0) {
        // A file that cannot be mapped (open or mmap failed) falls through to
        // pread, which reports its own error; a short file is refused here.
        if (auto file = mapFile(data->external->path)) {
            auto view = viewOf(std::move(*file), *data->external);
            if (!view)
                return view.status();
            loaded->mapped = std::move(*view);
            return std::shared_ptr<const TensorData>(std::move(loaded));
        }
    }
    auto bytes = readExternalData(*data->external);
    if (!bytes)
        return bytes.status();
    loaded->bytes = std::move(*bytes);
    return std::shared_ptr<const TensorData>(std::move(loaded));
}

Status loadExternalData(Graph &g)
{
    auto load = [](std::shared_ptr<const TensorData> &d, const Location &loc) {
        auto loaded = loadTensorData(d);
        if (!loaded)
            return loaded.status().at(loc);
        d = std::move(*loaded);
        return Status::ok();
    };
    for (std::size_t i = 0; i < g.tensorCount(); ++i) {
        Tensor &t = g.tensor(static_cast<TensorId>(i));
        TS_TRY(load(t.data, {.tensor = t.name}));
    }
    for (std::size_t i = 0; i < g.nodeCount(); ++i) {
        Node &n = g.node(static_cast<NodeId>(i));
        for (auto &[key, attr] : n.attrs)
            if (auto *d = std::get_if<std::shared_ptr<const TensorData>>(&attr.value))
                TS_TRY(load(*d, {.node = n.name}));
    }
    return Status::ok();
}

} // namespace tessera
