// Tests for plugins/ios/iosnetworks.h.
//
// The four IOS benchmark networks are checked against the IOS artifact's own
// numbers (plugins/ios/networks/model_summary.json and the per-unit output_shape of the
// *.ios.json configs): unit and block counts, parts, per-unit shapes, kernel
// counts and FLOPs as IOS's ir.py counts them. A small hand-written config
// covers what the four do not use (slices, Element mul, 3-value sums, a plain
// identity), and its broken variants are the negative twins.
#include "core/plugin/extensions.h"
#include "plugins/ios/ios.h"
#include "plugins/ios/iosnetworks.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <set>
#include <string>
#include <unordered_map>

namespace {

using tessera::buildFromIosConfig;
using tessera::buildIosNetwork;
using tessera::ErrorCode;
using tessera::SampleOptions;

QJsonDocument readJson(const QString &file)
{
    QFile f(QStringLiteral(TESSERA_SOURCE_DIR "/plugins/ios/networks/") + file);
    EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << file.toStdString();
    return QJsonDocument::fromJson(f.readAll());
}

QJsonDocument metadata(const onnx::ModelProto &m, const std::string &key)
{
    for (const auto &p : m.metadata_props())
        if (p.key() == key)
            return QJsonDocument::fromJson(QByteArray::fromStdString(p.value()));
    ADD_FAILURE() << "no metadata '" << key << "'";
    return {};
}

std::vector<std::string> strings(const QJsonValue &array)
{
    std::vector<std::string> out;
    for (const QJsonValue v : array.toArray())
        out.push_back(v.toString().toStdString());
    return out;
}

// The graph seen through the model's IOS metadata.
struct Model {
    const onnx::ModelProto &proto;
    std::unordered_map<std::string, const onnx::NodeProto *> producer; // by value
    std::unordered_map<std::string, std::vector<std::int64_t>> shape;  // by value, batch included
    std::map<std::string, std::vector<std::string>> units;             // ios.units
    std::unordered_map<std::string, std::string> unitOf;               // node name → unit

    explicit Model(const onnx::ModelProto &m) : proto(m)
    {
        const onnx::GraphProto &g = m.graph();
        for (const onnx::NodeProto &n : g.node())
            for (const std::string &o : n.output())
                producer[o] = &n;
        for (const auto *list : {&g.input(), &g.value_info(), &g.output()})
            for (const onnx::ValueInfoProto &vi : *list) {
                std::vector<std::int64_t> &dims = shape[vi.name()];
                for (const auto &d : vi.type().tensor_type().shape().dim())
                    dims.push_back(d.dim_value());
            }
        const QJsonObject obj = metadata(m, tessera::kIosUnitsKey).object();
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            units[it.key().toStdString()] = strings(it.value());
            for (const std::string &n : units[it.key().toStdString()])
                EXPECT_TRUE(unitOf.emplace(n, it.key().toStdString()).second) << n << " is in two units";
        }
    }

    const onnx::NodeProto *producerInUnit(const std::string &value, const std::string &unit) const
    {
        const auto it = producer.find(value);
        return it != producer.end() && unitOf.at(it->second->name()) == unit ? it->second : nullptr;
    }

    std::int64_t elems(const std::string &value) const // per sample
    {
        const std::vector<std::int64_t> &d = shape.at(value);
        std::int64_t n = 1;
        for (std::size_t i = 1; i < d.size(); ++i)
            n *= d[i];
        return n;
    }

    // IOS ir.py Node.input_flops(): every value of every term is read once.
    std::int64_t termFlops(const std::string &value, const std::string &unit) const
    {
        const onnx::NodeProto *p = producerInUnit(value, unit);
        static const std::set<std::string> sums{"Add", "Sum", "Mul", "Identity"};
        if (!p || !sums.count(p->op_type()))
            return elems(value);
        std::int64_t f = 0;
        for (const std::string &in : p->input())
            f += termFlops(in, unit);
        return f;
    }
    std::int64_t inputFlops(const std::string &value, const std::string &unit) const
    {
        const onnx::NodeProto *p = producerInUnit(value, unit);
        if (!p || p->op_type() != "Concat")
            return termFlops(value, unit);
        std::int64_t f = 0;
        for (const std::string &in : p->input())
            f += termFlops(in, unit);
        return f;
    }

    bool fusedActivation(const onnx::NodeProto &n, const std::string &unit) const
    {
        static const std::set<std::string> acts{"Relu", "Tanh", "Sigmoid"};
        const onnx::NodeProto *p = producerInUnit(n.input(0), unit);
        return acts.count(n.op_type()) && p && p->op_type() == "Conv";
    }

    bool consumedInUnit(const onnx::NodeProto &n, const std::string &unit) const
    {
        for (const onnx::NodeProto &m : proto.graph().node())
            if (unitOf.at(m.name()) == unit)
                for (const std::string &in : m.input())
                    if (in == n.output(0))
                        return true;
        return false;
    }

    struct Flops {
        std::int64_t total = 0, conv = 0;
    };
    // FLOPs of one unit as IOS's ir.py counts them (conv: out × (1 + kh·kw·Cin/g);
    // pool: in × kh·kw, global: in; relu: 4 × in; plus input_flops of every kernel).
    Flops unitFlops(const std::string &unit) const
    {
        Flops f;
        for (const std::string &name : units.at(unit)) {
            const onnx::NodeProto &n = *producer.at(name);
            const std::string &op = n.op_type();
            if (op == "Conv") {
                const std::vector<std::int64_t> w = initializer(n.input(1)); // [Cout, Cin/g, kh, kw]
                const std::int64_t c = elems(n.output(0)) * (1 + w[1] * w[2] * w[3]);
                f.conv += c;
                f.total += c + inputFlops(n.input(0), unit);
            } else if (op == "MaxPool" || op == "AveragePool") {
                std::int64_t window = 1;
                for (const auto &a : n.attribute())
                    if (a.name() == "kernel_shape")
                        for (std::int64_t k : a.ints())
                            window *= k;
                f.total += elems(n.input(0)) * window + inputFlops(n.input(0), unit);
            } else if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
                f.total += elems(n.input(0)) + inputFlops(n.input(0), unit);
            } else if ((op == "Relu" || op == "Tanh" || op == "Sigmoid") && !fusedActivation(n, unit)) {
                f.total += 4 * elems(n.input(0)) + inputFlops(n.input(0), unit);
            } else if ((op == "Concat" || op == "Add" || op == "Sum" || op == "Mul" || op == "Identity") &&
                       !consumedInUnit(n, unit)) {
                f.total += inputFlops(n.output(0), unit); // an identity/element unit: only its gathering
            }
        }
        return f;
    }

    std::vector<std::int64_t> initializer(const std::string &name) const
    {
        for (const onnx::TensorProto &t : proto.graph().initializer())
            if (t.name() == name)
                return {t.dims().begin(), t.dims().end()};
        ADD_FAILURE() << "no initializer " << name;
        return {0, 0, 0, 0};
    }
};

struct Reference {
    const char *network;
    const char *config;
    const char *summaryKey;
    int units;
};

void PrintTo(const Reference &r, std::ostream *os)
{
    *os << r.network;
}

class IosNetworkTest : public ::testing::TestWithParam<Reference>
{
};

// One test per network does every check: building NasNet takes seconds, and
// CTest runs each test in its own process.
TEST_P(IosNetworkTest, MatchesIosArtifact)
{
    const Reference ref = GetParam();
    auto built = buildIosNetwork(ref.network, SampleOptions{});
    ASSERT_TRUE(built) << built.status().str();
    const onnx::ModelProto &proto = **built;
    EXPECT_NO_THROW(onnx::checker::check_model(proto));
    const Model m(proto);

    const QJsonObject summary = readJson("model_summary.json").object().value(ref.summaryKey).toObject();
    const QJsonObject config = readJson(ref.config).object();
    const QJsonArray blocks = metadata(proto, tessera::kIosBlocksKey).array();
    const QJsonArray perBlock = summary.value("per_block").toArray();

    // Units and blocks: the paper's #operators, the artifact's block counts and parts.
    EXPECT_EQ(static_cast<int>(m.units.size()), ref.units);
    EXPECT_EQ(m.units.size(), static_cast<std::size_t>(summary.value("schedule_units").toInt()));
    ASSERT_EQ(blocks.size(), summary.value("blocks").toInt());
    ASSERT_EQ(blocks.size(), perBlock.size());

    // Every node belongs to exactly one unit, named "block<B>/<unit>/...".
    std::size_t listed = 0;
    for (const auto &[unit, nodes] : m.units)
        listed += nodes.size();
    EXPECT_EQ(listed, static_cast<std::size_t>(proto.graph().node_size()));
    for (const onnx::NodeProto &n : proto.graph().node())
        EXPECT_TRUE(m.unitOf.count(n.name())) << n.name() << " belongs to no unit";

    std::int64_t kernels = 0, totalFlops = 0, convFlops = 0;
    for (qsizetype b = 0; b < blocks.size(); ++b) {
        const QJsonObject block = blocks[b].toObject();
        const QJsonObject cfg = config.value("blocks").toArray()[b].toObject();
        const QJsonObject expected = perBlock[b].toObject();
        const std::vector<std::string> units = strings(block.value("units"));
        SCOPED_TRACE("block " + std::to_string(b));

        EXPECT_EQ(units.size(), static_cast<std::size_t>(expected.value("units").toInt()));
        EXPECT_EQ(block.value("enter").toString(), cfg.value("enter_name").toString());
        EXPECT_EQ(block.value("exit").toString(), cfg.value("exit_node").toObject().value("name").toString());
        EXPECT_EQ(block.value("parts").toArray(), expected.value("parts").toArray());

        // Config order, and each unit's output C×H×W is the artifact's output_shape.
        QJsonArray cfgUnits = cfg.value("inner_nodes").toArray();
        cfgUnits.append(cfg.value("exit_node"));
        ASSERT_EQ(units.size(), static_cast<std::size_t>(cfgUnits.size()));
        std::int64_t blockFlops = 0;
        for (std::size_t i = 0; i < units.size(); ++i) {
            const QJsonObject u = cfgUnits[static_cast<qsizetype>(i)].toObject();
            const std::string &unit = units[i];
            ASSERT_EQ(unit, u.value("name").toString().toStdString());
            ASSERT_TRUE(m.units.count(unit)) << unit;
            const std::vector<std::string> &nodes = m.units.at(unit);
            ASSERT_FALSE(nodes.empty()) << unit;
            for (const std::string &n : nodes) { // "block<B>/<unit>/…", or "block<B>/cell<C>/<unit>/…" in a big block
                const std::string block = "block" + std::to_string(b) + "/";
                const auto cellEnd = n.rfind(block + "cell", 0) == 0 ? n.find('/', block.size()) + 1 : block.size();
                EXPECT_EQ(n.rfind(block, 0), 0u) << n;
                EXPECT_EQ(n.compare(cellEnd, unit.size() + 1, unit + "/"), 0) << n;
            }
            const QJsonArray out = u.value("output_shape").toArray();
            const std::vector<std::int64_t> want{1, out[0].toInt(), out[1].toInt(), out[2].toInt()};
            EXPECT_EQ(m.shape.at(m.producer.at(nodes.back())->output(0)), want) << "unit " << unit;

            for (const std::string &n : nodes) {
                const onnx::NodeProto &node = *m.producer.at(n);
                kernels += node.op_type() != "Slice" && node.op_type() != "Identity" && !m.fusedActivation(node, unit);
            }
            const Model::Flops f = m.unitFlops(unit);
            blockFlops += f.total;
            convFlops += f.conv;
        }
        // IOS's FLOPs are integer arithmetic on the shapes: equal, not close.
        EXPECT_EQ(blockFlops, std::llround(expected.value("flops").toDouble()));
        totalFlops += blockFlops;
    }
    EXPECT_EQ(totalFlops, std::llround(summary.value("flops").toDouble()));
    // IOS kernels: convs (activation fused), pools, relus, one per multi-value term, one per concat.
    EXPECT_EQ(kernels, summary.value("kernels").toInt());
    // Convolutions carry 96.3 % (NasNet) to 98.9 % (Inception V3) of the total; the rest is
    // ReLU (4 FLOPs per element), pooling and the term sums/concats. 95 % leaves room for
    // rounding without admitting a missing convolution (the smallest weighs far less, but
    // the exact per-block totals above catch those).
    EXPECT_LE(convFlops, totalFlops);
    EXPECT_GE(static_cast<double>(convFlops), 0.95 * static_cast<double>(totalFlops));
}

INSTANTIATE_TEST_SUITE_P(Networks, IosNetworkTest,
                         ::testing::Values(Reference{"inception_v3", "inception_v3.ios.json", "inception_v3", 119},
                                           Reference{"squeezenet", "squeezenet.ios.json", "squeezenet", 50},
                                           Reference{"randwire", "randwire_large.ios.json", "randwire_large", 120},
                                           Reference{"nasnet", "nasnet_large.ios.json", "nasnet_large", 374}),
                         [](const auto &info) { return std::string(info.param.network); });

TEST(IosNetworks, EmbeddedConfigsAreTheArtifactsFiles)
{
    for (const auto &[name, file] :
         {std::pair{"squeezenet", "squeezenet.ios.json"}, {"nasnet", "nasnet_large.ios.json"}}) {
        QFile f(QStringLiteral(TESSERA_SOURCE_DIR "/plugins/ios/networks/") + file);
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        auto embedded = tessera::iosNetworkConfig(name);
        ASSERT_TRUE(embedded) << embedded.status().str();
        EXPECT_EQ(*embedded, f.readAll().toStdString()) << name;
    }
}

TEST(IosNetworks, UnknownNetworkListsTheValidNames)
{
    auto built = buildIosNetwork("resnet50", SampleOptions{});
    ASSERT_FALSE(built);
    EXPECT_EQ(built.status().code(), ErrorCode::Usage);
    EXPECT_NE(built.status().message().find("inception_v3, squeezenet, randwire, nasnet"), std::string::npos)
        << built.status().message();
    EXPECT_FALSE(tessera::iosNetworkConfig("resnet50"));
}

TEST(IosNetworks, BatchAndNativeImageSizeAreHonoured)
{
    SampleOptions opts;
    opts.batch = 3;
    opts.imageSize = 224;
    auto built = buildIosNetwork("squeezenet", opts);
    ASSERT_TRUE(built) << built.status().str();
    const Model m(**built);
    for (const onnx::NodeProto &n : (*built)->graph().node())
        EXPECT_EQ(m.shape.at(n.output(0)).front(), 3) << n.name();
}

TEST(IosNetworks, OtherImageSizesAndEmptyBatchesAreRejected)
{
    SampleOptions opts;
    opts.imageSize = 256;
    auto built = buildIosNetwork("squeezenet", opts);
    ASSERT_FALSE(built);
    EXPECT_EQ(built.status().code(), ErrorCode::Usage);
    EXPECT_NE(built.status().message().find("224x224"), std::string::npos) << built.status().message();

    opts = {};
    opts.batch = 0;
    built = buildIosNetwork("squeezenet", opts);
    ASSERT_FALSE(built);
    EXPECT_EQ(built.status().code(), ErrorCode::Usage);
}

// ---- A hand-written config and its broken twins -----------------------------

// Block 0: a = conv+relu(x); b = avgpool(x); c = a[0:8] * a[8:16] (Element mul);
// d = Sequential(relu(b + c + x), depthwise conv stride 2); e = concat(d, d[0:4]).
// Block 1: g = identity(e); f = global avg pool(g).
const std::string kTiny = R"({"name": "tiny",
 "input": {"type": "placeholder", "name": "x", "hint_name": "x", "output_shape": [8, 16, 16]},
 "blocks": [
  {"enter_name": "x", "stages": null, "inner_nodes": [
    {"type": "conv", "name": "a", "hint_name": "a", "inputs": [[["x", 0, 8]]], "out_channels": 16,
     "kernel": [3, 3], "stride": [1, 1], "padding": [1, 1], "groups": 1, "act": "relu", "output_shape": [16, 16, 16]},
    {"type": "pool", "name": "b", "hint_name": "b", "inputs": [[["x", 0, 8]]], "pool_type": "avg",
     "kernel": [3, 3], "stride": [1, 1], "padding": [1, 1], "output_shape": [8, 16, 16]},
    {"type": "element", "name": "c", "hint_name": "c", "inputs": [[["a", 0, 8], ["a", 8, 16]]], "op_type": "mul",
     "output_shape": [8, 16, 16]},
    {"type": "sequential", "name": "d", "hint_name": "ReluSepConv", "output_shape": [8, 8, 8], "nodes": [
      {"type": "relu", "name": "d1", "hint_name": "d1", "inputs": [[["b", 0, 8], ["c", 0, 8], ["x", 0, 8]]],
       "output_shape": [8, 16, 16]},
      {"type": "conv", "name": "d2", "hint_name": "d2", "inputs": [[["d1", 0, 8]]], "out_channels": 8,
       "kernel": [3, 3], "stride": [2, 2], "padding": [1, 1], "groups": 8, "act": "identity", "output_shape": [8, 8, 8]}]}],
   "exit_node": {"type": "identity", "name": "e", "hint_name": "e", "inputs": [[["d", 0, 8]], [["d", 0, 4]]],
     "output_shape": [12, 8, 8]}},
  {"enter_name": "e", "stages": null, "inner_nodes": [
    {"type": "identity", "name": "g", "hint_name": "g", "inputs": [[["e", 0, 12]]], "output_shape": [12, 8, 8]}],
   "exit_node": {"type": "pool", "name": "f", "hint_name": "f", "inputs": [[["g", 0, 12]]], "pool_type": "global_avg",
     "kernel": [8, 8], "stride": [1, 1], "padding": [0, 0], "output_shape": [12, 1, 1]}}]})";

std::string replaced(std::string s, const std::string &from, const std::string &to)
{
    const std::size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

TEST(IosConfig, TinyConfigMapsEveryUnitToItsNodes)
{
    SampleOptions opts;
    opts.batch = 2;
    auto built = buildFromIosConfig(kTiny, opts, "tiny.json");
    ASSERT_TRUE(built) << built.status().str();
    const Model m(**built);
    const std::map<std::string, std::vector<std::string>> want{
        {"a", {"block0/a/Conv", "block0/a/Relu"}},
        {"b", {"block0/b/AveragePool"}},
        {"c", {"block0/c/Slice", "block0/c/Slice_1", "block0/c/Mul"}},
        {"d", {"block0/d/d1/Sum", "block0/d/d1/Relu", "block0/d/d2/Conv"}},
        {"e", {"block0/e/Slice", "block0/e/Concat"}},
        {"g", {"block1/g/Identity"}},
        {"f", {"block1/f/GlobalAveragePool"}},
    };
    EXPECT_EQ(m.units, want);
    EXPECT_EQ(m.shape.at((*built)->graph().output(0).name()), (std::vector<std::int64_t>{2, 12, 1, 1}));
    EXPECT_EQ(m.shape.at("block0/d/d2/Conv"), (std::vector<std::int64_t>{2, 8, 8, 8}));
    EXPECT_EQ(m.initializer("block0/d/d2/Conv.weight"), (std::vector<std::int64_t>{8, 1, 3, 3}));
    int countIncludePad = 0;
    for (const auto &a : m.producer.at("block0/b/AveragePool")->attribute())
        if (a.name() == "count_include_pad")
            countIncludePad = static_cast<int>(a.i());
    EXPECT_EQ(countIncludePad, 1);
    const QJsonArray blocks = metadata(**built, tessera::kIosBlocksKey).array();
    ASSERT_EQ(blocks.size(), 2);
    EXPECT_EQ(strings(blocks[0].toObject().value("units")), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
    EXPECT_EQ(blocks[1].toObject().value("enter").toString(), "e");
    EXPECT_EQ(blocks[1].toObject().value("exit").toString(), "f");
    EXPECT_FALSE(blocks[0].toObject().contains("parts"));
}

// Each broken twin must fail with InvalidInput (or Unsupported) and name the unit.
void expectRejected(const std::string &json, const std::string &unit, const std::string &detail,
                    ErrorCode code = ErrorCode::InvalidInput)
{
    auto built = buildFromIosConfig(json, SampleOptions{}, "tiny.json");
    ASSERT_FALSE(built) << "accepted; expected an error about unit " << unit;
    const tessera::Status s = built.status();
    EXPECT_EQ(s.code(), code) << s.str();
    EXPECT_EQ(s.location().node, unit) << s.str();
    EXPECT_EQ(s.location().file, "tiny.json");
    EXPECT_NE(s.message().find("unit '" + unit + "'"), std::string::npos) << s.str();
    EXPECT_NE(s.message().find(detail), std::string::npos) << s.str();
}

TEST(IosConfig, MalformedJsonIsRejectedWithItsOffset)
{
    auto built = buildFromIosConfig(kTiny.substr(0, 200), SampleOptions{}, "tiny.json");
    ASSERT_FALSE(built);
    EXPECT_EQ(built.status().code(), ErrorCode::InvalidInput);
    EXPECT_EQ(built.status().message().rfind("malformed ios config", 0), 0u) << built.status().str();
    EXPECT_GT(built.status().location().offset, 0);
}

TEST(IosConfig, CycleIsRejected)
{
    // a reads c, c reads a.
    expectRejected(replaced(kTiny, R"("name": "a", "hint_name": "a", "inputs": [[["x", 0, 8]]])",
                            R"("name": "a", "hint_name": "a", "inputs": [[["c", 0, 8]]])"),
                   "a", "cycle: a -> c -> a");
}

TEST(IosConfig, OutOfOrderReferenceIsRejected)
{
    // a reads b, which comes later but does not depend on a.
    expectRejected(replaced(kTiny, R"("name": "a", "hint_name": "a", "inputs": [[["x", 0, 8]]])",
                            R"("name": "a", "hint_name": "a", "inputs": [[["b", 0, 8]]])"),
                   "a", "input 'b' is listed after it");
}

TEST(IosConfig, UnknownInputIsRejected)
{
    expectRejected(replaced(kTiny, R"([["b", 0, 8], ["c", 0, 8], ["x", 0, 8]])", R"([["b", 0, 8], ["zz", 0, 8]])"), "d",
                   "input 'zz' is not defined (block 0 can read: x, a, b, c)");
}

TEST(IosConfig, InputFromAnotherBlockIsRejected)
{
    expectRejected(replaced(kTiny, R"("inputs": [[["g", 0, 12]]])", R"("inputs": [[["a", 0, 16]]])"), "f",
                   "input 'a' lies outside block 1");
}

TEST(IosConfig, UnknownUnitTypeIsRejected)
{
    expectRejected(replaced(kTiny, R"("type": "pool", "name": "b")", R"("type": "softmax", "name": "b")"), "b",
                   "unknown unit type 'softmax' (valid: activation, conv, element, identity, pool, relu, sequential)",
                   ErrorCode::Unsupported);
}

TEST(IosConfig, WrongOutputShapeIsRejected)
{
    expectRejected(replaced(kTiny, R"("act": "identity", "output_shape": [8, 8, 8])",
                            R"("act": "identity", "output_shape": [8, 16, 16])"),
                   "d", "node 'd2': output_shape 8x16x16 in the config, 8x8x8 from its inputs");
}

TEST(IosConfig, SliceOutsideTheChannelsIsRejected)
{
    expectRejected(replaced(kTiny, R"([["d", 0, 4]])", R"([["d", 4, 9]])"), "e", "input d[4:9]");
}

TEST(IosConfig, MismatchedTermValuesAreRejected)
{
    expectRejected(replaced(kTiny, R"([["a", 0, 8], ["a", 8, 16]])", R"([["a", 0, 8], ["a", 4, 16]])"), "c",
                   "combines values of shapes 8x16x16 and 12x16x16");
}

TEST(IosConfig, DuplicateNameIsRejected)
{
    expectRejected(replaced(kTiny, R"("name": "b", "hint_name": "b")", R"("name": "a", "hint_name": "b")"), "a",
                   "the name 'a' is defined twice");
}

TEST(IosConfig, MissingOrInvalidFieldIsRejected)
{
    expectRejected(replaced(kTiny, R"("kernel": [3, 3], "stride": [2, 2])", R"("kernel": [3], "stride": [2, 2])"), "d",
                   "'kernel' must be an array of 2 integers");
    expectRejected(replaced(kTiny, R"("groups": 8)", R"("groups": 3)"), "d", "groups 3 does not divide");
}

} // namespace

// The plugin contributes the four networks as samples (Extensions::addSample):
// what `tessera-cli sample`, File ▸ Open Sample and `tessera --sample` list.
TEST(IosSamples, RegisteredByThePluginAndBuildCheckerClean)
{
    tessera::SchedulerRegistry schedulers;
    tessera::Extensions extensions(schedulers);
    tessera::registerIosPlugin(extensions);
    std::vector<std::string> names;
    for (const tessera::SampleNetwork &s : extensions.samples()) {
        names.push_back(s.info.name);
        EXPECT_FALSE(s.info.title.empty() || s.info.paper.empty() || s.info.description.empty()) << s.info.name;
        const auto m = extensions.buildSample(s.info.name);
        ASSERT_TRUE(m) << s.info.name << ": " << m.status().str();
        EXPECT_GT((*m)->graph().node_size(), 40) << s.info.name;
        EXPECT_NO_THROW(onnx::checker::check_model(**m)) << s.info.name;
    }
    EXPECT_EQ(names, (std::vector<std::string>{"inception-v3", "squeezenet", "randwire", "nasnet-a"}));
    EXPECT_TRUE(extensions.buildSample("SqueezeNet")) << "sample names match without regard to case";
}

TEST(IosSamples, UnknownNameAndBadOptionsAreUsageErrors)
{
    tessera::SchedulerRegistry schedulers;
    tessera::Extensions extensions(schedulers);
    tessera::registerIosPlugin(extensions);
    const auto unknown = extensions.buildSample("squeezenet2");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.status().code(), ErrorCode::Usage);
    EXPECT_NE(unknown.status().message().find("known: inception-v3, squeezenet, randwire, nasnet-a"), std::string::npos)
        << unknown.status().message();
    SampleOptions o;
    o.batch = 0;
    const auto badBatch = extensions.buildSample("squeezenet", o);
    ASSERT_FALSE(badBatch);
    EXPECT_NE(badBatch.status().message().find("batch must be at least 1"), std::string::npos);
    EXPECT_EQ(tessera::iosNetworkOfSample("nasnet-a"), "nasnet");
    EXPECT_EQ(tessera::iosNetworkOfSample("resnet50"), "");
}
