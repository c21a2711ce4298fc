// TensorProto <-> TensorData, with every size checked before anything is
// allocated: a 100-byte file that claims a 10^12-element initializer is refused
// by arithmetic, not by running out of memory. Data comes from exactly one of
// raw_data, the typed field for the element type (ONNX packs 8/16-bit types,
// bool and the 16-bit floats into int32_data), or an external file.
#include "core/onnx/external_data.h"
#include "core/onnx/internal.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <sys/mman.h>
#include <unistd.h>

namespace tessera::onnximport {

std::string normalDomain(const std::string &domain)
{
    return domain == "ai.onnx" ? std::string() : domain;
}

Expected<std::int64_t> checkedTensorBytes(DType dtype, const Shape &shape, const ImportOptions &options,
                                          std::string_view what)
{
    const std::string w(what);
    if (static_cast<std::int64_t>(shape.size()) > options.maxRank)
        return Status::invalid(w + " has rank " + std::to_string(shape.size()) + ", more than the limit of " +
                               std::to_string(options.maxRank));
    for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] < 0)
            return Status::invalid(w + " has negative dimension " + std::to_string(shape[i]) + " (axis " +
                                   std::to_string(i) + ")");
    const auto n = numElements(shape);
    if (!n)
        return Status::invalid(w + " shape " + shapeStr(shape) + " overflows the int64 element count");
    const auto size = static_cast<std::int64_t>(dtypeSize(dtype));
    if (size > 0 && *n > options.maxTensorBytes / size)
        return Status::invalid(w + " of shape " + shapeStr(shape) + " " + std::string(dtypeName(dtype)) +
                               " is larger than the limit of " + std::to_string(options.maxTensorBytes) + " bytes");
    return *n * size;
}

namespace {

// Elements in the typed field that holds `type`'s values.
int typedCount(const ::onnx::TensorProto &t, int type)
{
    using TP = ::onnx::TensorProto;
    switch (type) {
    case TP::FLOAT: return t.float_data_size();
    case TP::DOUBLE: return t.double_data_size();
    case TP::INT64: return t.int64_data_size();
    case TP::UINT32:
    case TP::UINT64: return t.uint64_data_size();
    case TP::STRING: return t.string_data_size();
    default: return t.int32_data_size();
    }
}

Expected<std::int64_t> parseInt(const std::string &s, std::string_view key)
{
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v < 0)
        return Status::invalid("external data " + std::string(key) + " '" + s + "' is not a non-negative integer");
    return v;
}

Expected<TensorData::External> resolveExternal(const ::onnx::TensorProto &t, std::int64_t bytes,
                                               const ImportContext &ctx)
{
    const std::string *location = nullptr;
    std::int64_t offset = 0, length = -1;
    for (const auto &e : t.external_data()) {
        if (e.key() == "location") {
            location = &e.value();
        } else if (e.key() == "offset" || e.key() == "length") {
            auto v = parseInt(e.value(), e.key());
            if (!v)
                return v.status();
            (e.key() == "offset" ? offset : length) = *v;
        }
    }
    if (!location)
        return Status::invalid("tensor is stored externally but has no location");
    if (ctx.modelDir.empty())
        return Status::invalid("external data '" + *location +
                               "' needs the model's folder; import the model from a file");
    return resolveExternalData(ctx.modelDir, *location, offset, length, bytes);
}

template <typename Src, typename Dst> void pack(const Src *src, std::int64_t n, std::vector<std::uint8_t> &out)
{
    out.resize(static_cast<std::size_t>(n) * sizeof(Dst));
    auto *dst = out.data();
    for (std::int64_t i = 0; i < n; ++i) {
        const Dst v = static_cast<Dst>(src[i]);
        std::memcpy(dst + i * static_cast<std::int64_t>(sizeof(Dst)), &v, sizeof(Dst));
    }
}

// Appends `raw` to `out` slice by slice, dropping the whole pages of each
// slice of `raw` once it is copied (their contents become zeros, and `raw` is
// not read again), so a large tensor is not held twice while it moves.
void moveBytes(std::string &raw, std::vector<std::uint8_t> &out)
{
    constexpr std::size_t kSlice = std::size_t(1) << 20;
    static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    out.reserve(out.size() + raw.size());
    const auto *src = reinterpret_cast<const std::uint8_t *>(raw.data());
    std::uintptr_t dropped = (reinterpret_cast<std::uintptr_t>(src) + page - 1) / page * page;
    for (std::size_t at = 0; at < raw.size(); at += kSlice) {
        const std::size_t n = std::min(kSlice, raw.size() - at);
        out.insert(out.end(), src + at, src + at + n);
        const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(src) + at + n) / page * page;
        if (end > dropped) {
            ::madvise(reinterpret_cast<void *>(dropped), end - dropped, MADV_DONTNEED);
            dropped = end;
        }
    }
    raw.clear();
    raw.shrink_to_fit();
}

} // namespace

Status validateTensorProto(const ::onnx::TensorProto &t, const ImportContext &ctx, std::string_view what)
{
    const std::string w(what);
    const Location loc = ctx.at({}, t.name());
    const DType dtype = fromOnnxDType(t.data_type());
    if (dtype == DType::Undefined || dtype == DType::String)
        return Status::error(ErrorCode::Unsupported,
                             w + " has element type " + std::to_string(t.data_type()) + " (" +
                                 ::onnx::TensorProto_DataType_Name(t.data_type()) + "), which tessera does not support",
                             loc);
    const Shape shape(t.dims().begin(), t.dims().end());
    auto bytes = checkedTensorBytes(dtype, shape, ctx.options, what);
    if (!bytes)
        return bytes.status().at(loc);

    if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
        auto ext = resolveExternal(t, *bytes, ctx);
        if (!ext)
            return ext.status().prefix(w).at(loc);
        return Status::ok();
    }
    if (t.has_raw_data()) {
        if (static_cast<std::int64_t>(t.raw_data().size()) != *bytes)
            return Status::invalid(w + " has " + std::to_string(t.raw_data().size()) +
                                       " bytes of raw_data but its shape " + shapeStr(shape) + " " +
                                       std::string(dtypeName(dtype)) + " needs " + std::to_string(*bytes),
                                   loc);
        return Status::ok();
    }
    const std::int64_t n = *bytes / static_cast<std::int64_t>(dtypeSize(dtype));
    const int count = typedCount(t, t.data_type());
    if (count != n)
        return Status::invalid(w + " has " + std::to_string(count) + " values but its shape " + shapeStr(shape) +
                                   " needs " + std::to_string(n),
                               loc);
    return Status::ok();
}

Expected<std::shared_ptr<const TensorData>> takeTensorData(::onnx::TensorProto &t, const ImportContext &ctx)
{
    using TP = ::onnx::TensorProto;
    auto data = std::make_shared<TensorData>();
    data->dtype = fromOnnxDType(t.data_type());
    data->shape.assign(t.dims().begin(), t.dims().end());
    const std::int64_t n = numElements(data->shape).value_or(0);
    auto &out = data->bytes;

    if (t.data_location() == TP::EXTERNAL) {
        auto ext = resolveExternal(t, n * static_cast<std::int64_t>(dtypeSize(data->dtype)), ctx);
        if (!ext)
            return ext.status().at(ctx.at({}, t.name()));
        if (!ctx.options.loadExternalData) {
            data->external = std::move(*ext);
            return std::shared_ptr<const TensorData>(std::move(data));
        }
        auto bytes = readExternalData(*ext);
        if (!bytes)
            return bytes.status().at(ctx.at({}, t.name()));
        out = std::move(*bytes);
        return std::shared_ptr<const TensorData>(std::move(data));
    }
    if (t.has_raw_data()) {
        std::string raw;
        raw.swap(*t.mutable_raw_data()); // the proto lets go of its copy now
        moveBytes(raw, out);
        return std::shared_ptr<const TensorData>(std::move(data));
    }
    switch (t.data_type()) {
    case TP::FLOAT: pack<float, float>(t.float_data().data(), n, out); break;
    case TP::DOUBLE: pack<double, double>(t.double_data().data(), n, out); break;
    case TP::INT64: pack<std::int64_t, std::int64_t>(t.int64_data().data(), n, out); break;
    case TP::INT32: pack<std::int32_t, std::int32_t>(t.int32_data().data(), n, out); break;
    case TP::INT16: pack<std::int32_t, std::int16_t>(t.int32_data().data(), n, out); break;
    case TP::INT8: pack<std::int32_t, std::int8_t>(t.int32_data().data(), n, out); break;
    case TP::UINT8: pack<std::int32_t, std::uint8_t>(t.int32_data().data(), n, out); break;
    case TP::UINT16: pack<std::int32_t, std::uint16_t>(t.int32_data().data(), n, out); break;
    case TP::UINT32: pack<std::uint64_t, std::uint32_t>(t.uint64_data().data(), n, out); break;
    case TP::UINT64: pack<std::uint64_t, std::uint64_t>(t.uint64_data().data(), n, out); break;
    case TP::BOOL: {
        out.resize(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i)
            out[static_cast<std::size_t>(i)] = t.int32_data(static_cast<int>(i)) != 0;
        break;
    }
    case TP::FLOAT16:
    case TP::BFLOAT16: pack<std::int32_t, std::uint16_t>(t.int32_data().data(), n, out); break;
    default: return Status::error(ErrorCode::Unsupported, "unsupported element type", ctx.at({}, t.name()));
    }
    return std::shared_ptr<const TensorData>(std::move(data));
}

void fillTensorProto(const TensorData &data, ::onnx::TensorProto &t)
{
    t.set_data_type(onnxDType(data.dtype));
    t.clear_dims();
    for (std::int64_t d : data.shape)
        t.add_dims(d);
    t.set_raw_data(data.view().data(), data.view().size());
}

} // namespace tessera::onnximport
