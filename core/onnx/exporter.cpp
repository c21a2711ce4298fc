// Graph → onnx::ModelProto → file (see exporter.h). One walk over the graph
// builds the proto; a DataWriter, when external data is on, appends each large
// initializer to the data file as it goes and records location/offset/length.
#include "core/onnx/exporter.h"

#include "core/onnx/external_data.h"
#include "core/onnx/internal.h"

#include <cstdio>
#include <fstream>
#include <limits>
#include <set>

namespace fs = std::filesystem;

namespace tessera {

namespace {

// What protobuf can serialize, less headroom for the graph itself.
constexpr std::int64_t kInlineLimit = std::numeric_limits<int>::max() - (std::int64_t(64) << 20);

// Appends initializer bytes to the external data file.
class DataWriter
{
public:
    DataWriter(std::string fileName, const fs::path &tmpPath)
        : m_fileName(std::move(fileName)), m_out(tmpPath, std::ios_base::binary | std::ios_base::trunc)
    {}
    bool good() const { return m_out.good(); }

    void append(std::span<const std::uint8_t> bytes, ::onnx::TensorProto &t)
    {
        m_out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        t.set_data_location(::onnx::TensorProto::EXTERNAL);
        auto entry = [&t](const std::string &key, const std::string &value) {
            auto *e = t.add_external_data();
            e->set_key(key);
            e->set_value(value);
        };
        entry("location", m_fileName);
        entry("offset", std::to_string(m_offset));
        entry("length", std::to_string(bytes.size()));
        m_offset += static_cast<std::int64_t>(bytes.size());
    }
    Status close()
    {
        m_out.close();
        return m_out ? Status::ok() : Status::error(ErrorCode::Io, "cannot write external data", {.file = m_fileName});
    }

private:
    std::string m_fileName;
    std::ofstream m_out;
    std::int64_t m_offset = 0;
};

Status fillData(const std::shared_ptr<const TensorData> &data, const std::string &name, ::onnx::TensorProto &t,
                DataWriter *writer, std::int64_t threshold)
{
    auto loaded = loadTensorData(data);
    if (!loaded)
        return loaded.status().at({.tensor = name});
    const TensorData &d = **loaded;
    t.set_name(name);
    if (writer && d.byteSize() >= threshold) {
        t.set_data_type(onnxDType(d.dtype));
        for (std::int64_t dim : d.shape)
            t.add_dims(dim);
        writer->append(d.view(), t);
    } else {
        onnximport::fillTensorProto(d, t);
    }
    return Status::ok();
}

void fillValueInfo(const Tensor &t, ::onnx::ValueInfoProto &v)
{
    v.set_name(t.name);
    auto *tt = v.mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnxDType(t.dtype));
    auto *shape = tt->mutable_shape();
    for (std::int64_t d : t.shape)
        shape->add_dim()->set_dim_value(d);
}

Status fillAttribute(const std::string &key, const Attribute &a, ::onnx::AttributeProto &p)
{
    using AP = ::onnx::AttributeProto;
    p.set_name(key);
    switch (a.kind()) {
    case Attribute::Kind::Int:
        p.set_type(AP::INT);
        p.set_i(std::get<std::int64_t>(a.value));
        break;
    case Attribute::Kind::Float:
        p.set_type(AP::FLOAT);
        p.set_f(static_cast<float>(std::get<double>(a.value)));
        break;
    case Attribute::Kind::String:
        p.set_type(AP::STRING);
        p.set_s(std::get<std::string>(a.value));
        break;
    case Attribute::Kind::Ints:
        p.set_type(AP::INTS);
        for (std::int64_t v : std::get<std::vector<std::int64_t>>(a.value))
            p.add_ints(v);
        break;
    case Attribute::Kind::Floats:
        p.set_type(AP::FLOATS);
        for (double v : std::get<std::vector<double>>(a.value))
            p.add_floats(static_cast<float>(v));
        break;
    case Attribute::Kind::Strings:
        p.set_type(AP::STRINGS);
        for (const auto &v : std::get<std::vector<std::string>>(a.value))
            p.add_strings(v);
        break;
    case Attribute::Kind::Tensor:
        p.set_type(AP::TENSOR);
        return fillData(std::get<std::shared_ptr<const TensorData>>(a.value), {}, *p.mutable_t(), nullptr, 0);
    }
    return Status::ok();
}

Status build(const Graph &g, const ExportOptions &o, DataWriter *writer, ::onnx::ModelProto &m)
{
    m.set_ir_version(o.irVersion);
    m.set_producer_name(o.producerName);
    m.set_producer_version(o.producerVersion.empty() ? TESSERA_VERSION : o.producerVersion);
    std::map<std::string, std::int64_t, std::less<>> opsets = o.opsetImports;
    opsets.try_emplace("", g.opsetVersion);
    for (const Node &n : g.nodes())
        opsets.try_emplace(n.domain, 1);
    for (const auto &[domain, version] : opsets) {
        auto *op = m.add_opset_import();
        op->set_domain(domain);
        op->set_version(version);
    }

    auto &gp = *m.mutable_graph();
    gp.set_name(g.name);
    for (TensorId id : g.inputs)
        fillValueInfo(g.tensor(id), *gp.add_input());
    for (TensorId id : g.outputs)
        fillValueInfo(g.tensor(id), *gp.add_output());
    const std::set<TensorId> outputs(g.outputs.begin(), g.outputs.end());
    for (std::size_t id = 0; id < g.tensorCount(); ++id) {
        const Tensor &t = g.tensor(static_cast<TensorId>(id));
        if (t.isConstant())
            TS_TRY(fillData(t.data, t.name, *gp.add_initializer(), writer, o.externalThreshold));
        else if (t.producer != kInvalidId && !outputs.count(static_cast<TensorId>(id)) && t.dtype != DType::Undefined)
            fillValueInfo(t, *gp.add_value_info());
    }
    for (const Node &n : g.nodes()) {
        auto &p = *gp.add_node();
        p.set_name(n.name);
        p.set_op_type(n.opType);
        p.set_domain(n.domain);
        for (TensorId t : n.inputs)
            p.add_input(t == kInvalidId ? std::string() : g.tensor(t).name);
        for (TensorId t : n.outputs)
            p.add_output(t == kInvalidId ? std::string() : g.tensor(t).name);
        for (const auto &[key, attr] : n.attrs) {
            Status s = fillAttribute(key, attr, *p.add_attribute());
            if (!s)
                return s.at({.node = n.name});
        }
    }
    return Status::ok();
}

std::int64_t constantBytes(const Graph &g)
{
    std::int64_t total = 0;
    for (const Tensor &t : g.tensors())
        if (t.data)
            total += t.data->byteSize();
    return total;
}

// A tensor whose lazy data lives in `dataPath`, which an export is about to replace.
std::string lazySource(const Graph &g, const fs::path &dataPath)
{
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(dataPath, ec);
    for (const Tensor &t : g.tensors())
        if (t.data && t.data->isExternal() && fs::path(t.data->external->path) == target)
            return t.name;
    return {};
}

Status tooLarge(const ::onnx::ModelProto &m, const std::string &file)
{
    if (m.ByteSizeLong() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        return Status::invalid("the model is larger than protobuf's 2 GiB limit; use external data", {.file = file});
    return Status::ok();
}

} // namespace

Status exportModel(const Graph &g, const std::string &path, const ExportOptions &options)
{
    using ED = ExportOptions::ExternalData;
    const fs::path target(path);
    const bool external =
        options.externalData == ED::Always || (options.externalData == ED::Auto && constantBytes(g) > kInlineLimit);
    const std::string dataName =
        options.externalFile.empty() ? target.filename().string() + ".data" : options.externalFile;
    if (external && (dataName.empty() || fs::path(dataName).has_parent_path() || dataName == "." || dataName == ".."))
        return Status::error(ErrorCode::Usage, "external data file must be a plain file name next to the model",
                             {.file = dataName});
    const fs::path dataPath = target.parent_path() / dataName;
    const fs::path dataTmp = dataPath.string() + ".tmp", modelTmp = path + ".tmp";
    if (external)
        if (const std::string reading = lazySource(g, dataPath); !reading.empty())
            return Status::error(ErrorCode::Usage,
                                 "the graph reads weights lazily from this file; call loadExternalData() before "
                                 "overwriting it",
                                 {.file = dataPath.string(), .tensor = reading});

    ::onnx::ModelProto m;
    std::optional<DataWriter> writer;
    if (external) {
        writer.emplace(dataName, dataTmp);
        if (!writer->good())
            return Status::error(ErrorCode::Io, "cannot create external data file", {.file = dataTmp.string()});
    }
    auto cleanup = [&](Status s) {
        std::error_code ec;
        fs::remove(modelTmp, ec);
        fs::remove(dataTmp, ec);
        return s;
    };
    Status built = build(g, options, writer ? &*writer : nullptr, m);
    if (!built)
        return cleanup(built);
    if (writer)
        if (Status s = writer->close(); !s)
            return cleanup(s);
    if (Status s = tooLarge(m, path); !s)
        return cleanup(s);
    {
        std::ofstream out(modelTmp, std::ios_base::binary | std::ios_base::trunc);
        if (!out || !m.SerializeToOstream(&out) || !out.flush())
            return cleanup(Status::error(ErrorCode::Io, "cannot write model", {.file = path}));
    }
    std::error_code ec;
    if (writer)
        fs::rename(dataTmp, dataPath, ec);
    if (!ec)
        fs::rename(modelTmp, target, ec);
    if (ec)
        return cleanup(
            Status::error(ErrorCode::Io, "cannot rename the written model: " + ec.message(), {.file = path}));
    return Status::ok();
}

Expected<std::string> exportModelToBytes(const Graph &g, const ExportOptions &options)
{
    if (options.externalData == ExportOptions::ExternalData::Always)
        return Status::error(ErrorCode::Usage, "external data needs a file; use exportModel");
    ::onnx::ModelProto m;
    TS_TRY(build(g, options, nullptr, m));
    TS_TRY(tooLarge(m, {}));
    std::string bytes;
    if (!m.SerializeToString(&bytes))
        return Status::error(ErrorCode::Internal, "cannot serialize the model");
    return bytes;
}

} // namespace tessera
