// Test fixtures: hand-built onnx::ModelProto models, including broken ones.
// Only tests include this (they link onnx/onnx_proto themselves); it says
// exactly what each fixture contains, with no shape inference or checking.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <onnx/onnx_pb.h>
#include <random>
#include <string>
#include <vector>

namespace tessera::onnxtest {

// One dimension of a declared shape: a number or a symbol.
struct Dim {
    Dim(std::int64_t v) : value(v) {}
    Dim(const char *p) : param(p) {}
    std::int64_t value = 0;
    std::string param;
};

class ProtoBuilder
{
public:
    explicit ProtoBuilder(std::int64_t opset = 17, std::int64_t irVersion = 8)
    {
        model.set_ir_version(irVersion);
        model.set_producer_name("tessera-tests");
        auto *op = model.add_opset_import();
        op->set_domain("");
        op->set_version(opset);
        graph().set_name("test");
    }

    ::onnx::GraphProto &graph() { return *model.mutable_graph(); }

    static void setType(::onnx::ValueInfoProto &v, const std::string &name, const std::vector<Dim> &dims, int elem)
    {
        v.set_name(name);
        auto *tt = v.mutable_type()->mutable_tensor_type();
        tt->set_elem_type(elem);
        auto *shape = tt->mutable_shape();
        for (const Dim &d : dims) {
            auto *dim = shape->add_dim();
            if (d.param.empty())
                dim->set_dim_value(d.value);
            else
                dim->set_dim_param(d.param);
        }
    }
    void input(const std::string &name, const std::vector<Dim> &dims, int elem = ::onnx::TensorProto::FLOAT)
    {
        setType(*graph().add_input(), name, dims, elem);
    }
    void output(const std::string &name, const std::vector<Dim> &dims, int elem = ::onnx::TensorProto::FLOAT)
    {
        setType(*graph().add_output(), name, dims, elem);
    }
    void valueInfo(const std::string &name, const std::vector<Dim> &dims, int elem = ::onnx::TensorProto::FLOAT)
    {
        setType(*graph().add_value_info(), name, dims, elem);
    }

    static void fillTensor(::onnx::TensorProto &t, const std::string &name, const std::vector<std::int64_t> &dims,
                           int elem, const void *raw, std::size_t bytes)
    {
        t.set_name(name);
        t.set_data_type(elem);
        for (std::int64_t d : dims)
            t.add_dims(d);
        t.set_raw_data(raw, bytes);
    }
    ::onnx::TensorProto &floats(const std::string &name, const std::vector<std::int64_t> &dims,
                                const std::vector<float> &values)
    {
        auto *t = graph().add_initializer();
        fillTensor(*t, name, dims, ::onnx::TensorProto::FLOAT, values.data(), values.size() * sizeof(float));
        return *t;
    }
    ::onnx::TensorProto &ints(const std::string &name, const std::vector<std::int64_t> &dims,
                              const std::vector<std::int64_t> &values)
    {
        auto *t = graph().add_initializer();
        fillTensor(*t, name, dims, ::onnx::TensorProto::INT64, values.data(), values.size() * sizeof(std::int64_t));
        return *t;
    }

    ::onnx::NodeProto &node(const std::string &op, const std::vector<std::string> &inputs,
                            const std::vector<std::string> &outputs, const std::string &name = {})
    {
        auto *n = graph().add_node();
        n->set_op_type(op);
        n->set_name(name);
        for (const auto &i : inputs)
            n->add_input(i);
        for (const auto &o : outputs)
            n->add_output(o);
        return *n;
    }
    static void attr(::onnx::NodeProto &n, const std::string &name, std::int64_t v)
    {
        auto *a = n.add_attribute();
        a->set_name(name);
        a->set_type(::onnx::AttributeProto::INT);
        a->set_i(v);
    }
    static void attr(::onnx::NodeProto &n, const std::string &name, const std::vector<std::int64_t> &v)
    {
        auto *a = n.add_attribute();
        a->set_name(name);
        a->set_type(::onnx::AttributeProto::INTS);
        for (std::int64_t x : v)
            a->add_ints(x);
    }
    static void attr(::onnx::NodeProto &n, const std::string &name, float v)
    {
        auto *a = n.add_attribute();
        a->set_name(name);
        a->set_type(::onnx::AttributeProto::FLOAT);
        a->set_f(v);
    }
    static void attr(::onnx::NodeProto &n, const std::string &name, const std::string &v)
    {
        auto *a = n.add_attribute();
        a->set_name(name);
        a->set_type(::onnx::AttributeProto::STRING);
        a->set_s(v);
    }
    // A Constant node holding int64 values.
    ::onnx::NodeProto &constantInts(const std::string &out, const std::vector<std::int64_t> &dims,
                                    const std::vector<std::int64_t> &values)
    {
        auto &n = node("Constant", {}, {out});
        auto *a = n.add_attribute();
        a->set_name("value");
        a->set_type(::onnx::AttributeProto::TENSOR);
        fillTensor(*a->mutable_t(), out, dims, ::onnx::TensorProto::INT64, values.data(),
                   values.size() * sizeof(std::int64_t));
        return n;
    }

    std::string bytes() const { return model.SerializeAsString(); }
    void write(const std::filesystem::path &path) const
    {
        std::ofstream out(path, std::ios::binary);
        model.SerializeToOstream(&out);
    }

    ::onnx::ModelProto model;
};

// A fresh, empty directory under the system temp folder.
inline std::filesystem::path makeTempDir(const std::string &tag)
{
    std::random_device rd;
    const auto dir =
        std::filesystem::temp_directory_path() / ("tessera-" + tag + "-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir);
    return dir;
}

inline void writeFile(const std::filesystem::path &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string readFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// libonnx-testdata's node tests (Debian package libonnx-testdata).
inline std::string nodeTestModel(const std::string &name)
{
    return "/usr/share/libonnx-testdata/data/node/" + name + "/model.onnx";
}

} // namespace tessera::onnxtest
