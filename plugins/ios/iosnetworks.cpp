// IOS graph config → ONNX (see iosnetworks.h for the mapping and the names).
//
// S1 parse: the JSON becomes Units (one per IOS schedule unit; a Sequential
//    keeps its inner nodes as kernels) grouped in Blocks; every field is
//    type-checked and every error names its unit.
// S2 check references: names are unique, every input names an earlier node of
//    the same block (or its enter node); a backward edge is reported as the
//    cycle it closes, or as an out-of-order reference when there is none.
// S3 emit: units in config order, each kernel as gather(inputs) → op, with
//    shapes from IOS's ir.py formulas (floor division, symmetric padding)
//    compared against the config's output_shape.
// The IOS artifact's model definitions list units in topological order and
// Graph.from_config() relies on it, so no reordering is attempted.
#include "plugins/ios/iosnetworks.h"

#include "core/onnx/modelbuilder.h"
#include "core/support/assert.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <onnx/onnx_pb.h>
#include <optional>
#include <unordered_map>

// Q_INIT_RESOURCE must run outside any namespace; it also keeps the linker
// from dropping ios.qrc's object file out of the static library.
static void initIosResources()
{
    static std::once_flag once;
    std::call_once(once, [] { Q_INIT_RESOURCE(ios); });
}

namespace tessera {

namespace {

struct Chw {
    std::int64_t c = 0, h = 0, w = 0;
    friend bool operator==(const Chw &, const Chw &) = default;
    std::string str() const { return std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w); }
};

// ---- S1: the config as data ------------------------------------------------

struct ValueRef {
    std::string node;
    std::int64_t begin = 0, end = 0; // channel slice [begin, end)
};
using Term = std::vector<ValueRef>;

enum class Kind : std::uint8_t { Conv, Pool, Identity, Relu, Activation, Element, Sequential };

// IOS's node types (ir.py Node.from_config), placeholder aside.
constexpr std::pair<std::string_view, Kind> kKinds[] = {
    {"activation", Kind::Activation}, {"conv", Kind::Conv}, {"element", Kind::Element},
    {"identity", Kind::Identity},     {"pool", Kind::Pool}, {"relu", Kind::Relu},
    {"sequential", Kind::Sequential},
};

// One IOS node: a unit, or a node inside a Sequential unit.
struct Kernel {
    Kind kind = Kind::Identity;
    std::string name;
    std::vector<Term> inputs;
    std::string variant; // conv act, activation act_type, pool pool_type, element op_type
    std::int64_t outChannels = 0, groups = 1;
    std::array<std::int64_t, 2> kernel{}, stride{}, padding{};
    std::optional<Chw> declared; // output_shape, when the config gives one
};

struct Unit {
    std::string name;
    bool sequential = false;
    std::vector<Kernel> kernels; // the unit itself, or a Sequential's nodes in order
    std::optional<Chw> declared;
    int block = 0;
};

struct Block {
    std::string enter;
    std::vector<int> units; // indices into IosGraph::units; the last is the exit
    std::vector<std::int64_t> parts;
};

struct IosGraph {
    std::string name;
    std::string input;
    Chw inputShape;
    std::vector<Unit> units;
    std::vector<Block> blocks;
    std::string source; // diagnostics' file
};

Status unitError(const std::string &unit, const std::string &message, const std::string &file,
                 ErrorCode code = ErrorCode::InvalidInput)
{
    return Status::error(code, "unit '" + unit + "': " + message, Location{file, -1, unit, {}});
}

// Reads the fields of one config object; the first error sticks in status()
// and later reads return defaults, so a parser reads all fields, then checks once.
class Fields
{
public:
    // `subject` starts the messages ("unit 'a'", "block 2"); `node` is their location.
    Fields(const QJsonObject &obj, std::string subject, std::string node, std::string file)
        : m_obj(obj), m_subject(std::move(subject)), m_node(std::move(node)), m_file(std::move(file))
    {}
    const Status &status() const { return m_status; }

    bool has(const char *key) const { return m_obj.contains(QLatin1String(key)); }

    std::string string(const char *key)
    {
        const QJsonValue v = m_obj.value(QLatin1String(key));
        if (!v.isString())
            fail(std::string("'") + key + "' must be a string");
        return v.toString().toStdString();
    }

    std::int64_t integer(const char *key, std::int64_t min) { return toInt(m_obj.value(QLatin1String(key)), key, min); }

    std::array<std::int64_t, 2> pair(const char *key, std::int64_t min)
    {
        const QJsonArray a = m_obj.value(QLatin1String(key)).toArray();
        if (a.size() != 2) {
            fail(std::string("'") + key + "' must be an array of 2 integers");
            return {};
        }
        return {toInt(a[0], key, min), toInt(a[1], key, min)};
    }

    std::vector<std::int64_t> integers(const char *key, std::int64_t min)
    {
        const QJsonValue v = m_obj.value(QLatin1String(key));
        if (!v.isArray())
            fail(std::string("'") + key + "' must be an array of integers");
        std::vector<std::int64_t> out;
        for (const QJsonValue e : v.toArray())
            out.push_back(toInt(e, key, min));
        return out;
    }

    std::optional<Chw> shape()
    {
        if (!has("output_shape"))
            return std::nullopt;
        const QJsonArray a = m_obj.value(QLatin1String("output_shape")).toArray();
        if (a.size() != 3) {
            fail("'output_shape' must be [channels, height, width]");
            return std::nullopt;
        }
        return Chw{toInt(a[0], "output_shape", 1), toInt(a[1], "output_shape", 1), toInt(a[2], "output_shape", 1)};
    }

    // [[["name", begin, end], ...], ...]: terms of values.
    std::vector<Term> inputs()
    {
        const QJsonArray terms = m_obj.value(QLatin1String("inputs")).toArray();
        if (terms.isEmpty())
            fail("'inputs' must hold at least one term");
        std::vector<Term> out;
        for (const QJsonValue t : terms) {
            const QJsonArray values = t.toArray();
            if (values.isEmpty())
                fail("every input term must hold at least one value");
            Term &term = out.emplace_back();
            for (const QJsonValue v : values) {
                const QJsonArray ref = v.toArray();
                if (ref.size() != 3 || !ref[0].isString()) {
                    fail("an input value must be [name, begin, end]");
                    continue;
                }
                term.push_back(
                    {ref[0].toString().toStdString(), toInt(ref[1], "inputs", 0), toInt(ref[2], "inputs", 0)});
            }
        }
        return out;
    }

    void fail(const std::string &message)
    {
        if (m_status)
            m_status = Status::invalid(m_subject + ": " + message, Location{m_file, -1, m_node, {}});
    }

private:
    std::int64_t toInt(const QJsonValue &v, const char *key, std::int64_t min)
    {
        const double d = v.toDouble(std::nan(""));
        if (!v.isDouble() || d != std::floor(d) || d < static_cast<double>(min) || d > 1e15) {
            fail(std::string("'") + key + "' must hold integers >= " + std::to_string(min));
            return min;
        }
        return static_cast<std::int64_t>(d);
    }

    const QJsonObject &m_obj;
    std::string m_subject, m_node, m_file;
    Status m_status;
};

std::string validKinds()
{
    std::string s;
    for (const auto &[name, kind] : kKinds)
        s += (s.empty() ? "" : ", ") + std::string(name);
    return s;
}

Expected<Kernel> parseKernel(const QJsonObject &obj, const std::string &unit, const std::string &file)
{
    Kernel k;
    Fields f(obj, "unit '" + unit + "'", unit, file);
    k.name = f.string("name");
    const std::string type = f.string("type");
    TS_TRY(f.status());
    const auto *kind = std::find_if(std::begin(kKinds), std::end(kKinds), [&](auto &e) { return e.first == type; });
    if (kind == std::end(kKinds))
        return unitError(unit, "unknown unit type '" + type + "' (valid: " + validKinds() + ")", file,
                         ErrorCode::Unsupported);
    k.kind = kind->second;
    k.declared = f.shape();
    if (k.kind == Kind::Sequential)
        return f.status().isOk() ? Expected<Kernel>(std::move(k)) : Expected<Kernel>(f.status());
    k.inputs = f.inputs();
    auto oneOf = [&](const char *key, std::initializer_list<std::string_view> valid) {
        k.variant = f.string(key);
        if (f.status() && std::find(valid.begin(), valid.end(), k.variant) == valid.end()) {
            std::string list;
            for (std::string_view v : valid)
                list += (list.empty() ? "" : ", ") + std::string(v);
            f.fail(std::string("'") + key + "' is '" + k.variant + "' (valid: " + list + ")");
        }
    };
    switch (k.kind) {
    case Kind::Conv:
        k.outChannels = f.integer("out_channels", 1);
        k.groups = f.integer("groups", 1);
        k.kernel = f.pair("kernel", 1);
        k.stride = f.pair("stride", 1);
        k.padding = f.pair("padding", 0);
        oneOf("act", {"relu", "sigmoid", "tanh", "identity"});
        break;
    case Kind::Pool:
        oneOf("pool_type", {"max", "avg", "global_max", "global_avg"});
        if (k.variant.rfind("global", 0) != 0) { // a global pool's window is its input
            k.kernel = f.pair("kernel", 1);
            k.stride = f.pair("stride", 1);
            k.padding = f.pair("padding", 0);
        }
        break;
    case Kind::Activation: oneOf("act_type", {"relu", "tanh", "sigmoid"}); break;
    case Kind::Element: oneOf("op_type", {"add", "mul"}); break;
    case Kind::Identity:
    case Kind::Relu:
    case Kind::Sequential: break;
    }
    TS_TRY(f.status());
    return k;
}

Expected<Unit> parseUnit(const QJsonValue &value, int block, const std::string &file)
{
    const QJsonObject obj = value.toObject();
    const std::string name = obj.value(QLatin1String("name")).toString().toStdString();
    if (!value.isObject() || name.empty())
        return Status::invalid("block " + std::to_string(block) + ": every unit must be an object with a \"name\"",
                               Location{file, -1, {}, {}});
    Unit u{name, false, {}, std::nullopt, block};
    Expected<Kernel> head = parseKernel(obj, name, file);
    if (!head)
        return head.status();
    u.declared = head->declared;
    if (head->kind != Kind::Sequential) {
        u.kernels.push_back(std::move(*head));
        return u;
    }
    u.sequential = true;
    const QJsonArray nodes = obj.value(QLatin1String("nodes")).toArray();
    if (nodes.isEmpty())
        return unitError(name, "a sequential unit needs a non-empty 'nodes' array", file);
    for (const QJsonValue n : nodes) {
        Expected<Kernel> k = parseKernel(n.toObject(), name, file);
        if (!k)
            return k.status();
        if (k->kind == Kind::Sequential)
            return unitError(name, "sequential node '" + k->name + "' nests another sequential", file,
                             ErrorCode::Unsupported);
        u.kernels.push_back(std::move(*k));
    }
    return u;
}

Expected<IosGraph> parseConfig(std::string_view json, std::string_view source)
{
    IosGraph g;
    g.source = std::string(source);
    QJsonParseError error;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray(json.data(), static_cast<qsizetype>(json.size())), &error);
    if (error.error != QJsonParseError::NoError)
        return Status::invalid("malformed ios config: " + error.errorString().toLower().toStdString(),
                               Location{g.source, error.offset, {}, {}});
    const QJsonObject root = doc.object();
    if (!doc.isObject() || !root.value(QLatin1String("blocks")).isArray())
        return Status::invalid("an ios config is an object with \"input\" and \"blocks\"",
                               Location{g.source, -1, {}, {}});

    Fields graph(root, "the config", {}, g.source);
    g.name = root.contains(QLatin1String("name")) ? graph.string("name") : std::string("ios");
    const QJsonObject input = root.value(QLatin1String("input")).toObject();
    Fields in(input, "the graph input", {}, g.source);
    g.input = in.string("name");
    const std::optional<Chw> inputShape = in.shape();
    if (in.status() && !inputShape)
        in.fail("the graph input needs an 'output_shape'");
    TS_TRY(graph.status());
    TS_TRY(in.status());
    g.inputShape = *inputShape;

    const QJsonArray blocks = root.value(QLatin1String("blocks")).toArray();
    if (blocks.isEmpty())
        return Status::invalid("an ios config needs at least one block", Location{g.source, -1, {}, {}});
    for (const QJsonValue b : blocks) {
        const QJsonObject obj = b.toObject();
        const int index = static_cast<int>(g.blocks.size());
        Block &block = g.blocks.emplace_back();
        Fields f(obj, "block " + std::to_string(index), {}, g.source);
        block.enter = f.string("enter_name");
        if (obj.contains(QLatin1String("parts")) && !obj.value(QLatin1String("parts")).isNull())
            block.parts = f.integers("parts", 1);
        TS_TRY(f.status());
        QJsonArray nodes = obj.value(QLatin1String("inner_nodes")).toArray();
        nodes.append(obj.value(QLatin1String("exit_node")));
        for (const QJsonValue n : nodes) {
            Expected<Unit> u = parseUnit(n, index, g.source);
            if (!u)
                return u.status();
            block.units.push_back(static_cast<int>(g.units.size()));
            g.units.push_back(std::move(*u));
        }
    }
    return g;
}

// ---- S2: references --------------------------------------------------------

// Who defines each name: -1 for the graph input, else the unit index; plus, for
// a kernel inside a Sequential, its position there.
struct Definition {
    int unit = -1;
    int position = 0;
};

// A cycle through the unit-level dependency graph as "a -> b -> a", or "".
std::string findCycle(const IosGraph &g, const std::unordered_map<std::string, Definition> &defs)
{
    std::vector<std::vector<int>> reads(g.units.size());
    for (std::size_t u = 0; u < g.units.size(); ++u)
        for (std::size_t k = 0; k < g.units[u].kernels.size(); ++k)
            for (const Term &t : g.units[u].kernels[k].inputs)
                for (const ValueRef &r : t)
                    if (auto it = defs.find(r.node);
                        it != defs.end() && it->second.unit >= 0 &&
                        (it->second.unit != static_cast<int>(u) || it->second.position >= static_cast<int>(k)))
                        reads[u].push_back(it->second.unit);
    enum : std::uint8_t { White, Grey, Black };
    std::vector<std::uint8_t> colour(g.units.size(), White);
    std::vector<int> path;
    std::function<std::string(int)> visit = [&](int u) -> std::string {
        colour[u] = Grey;
        path.push_back(u);
        for (int v : reads[u]) {
            if (colour[v] == Grey) {
                std::string cycle;
                for (auto it = std::find(path.begin(), path.end(), v); it != path.end(); ++it)
                    cycle += g.units[*it].name + " -> ";
                return cycle + g.units[v].name;
            }
            if (colour[v] == White)
                if (std::string c = visit(v); !c.empty())
                    return c;
        }
        path.pop_back();
        colour[u] = Black;
        return {};
    };
    for (std::size_t u = 0; u < g.units.size(); ++u)
        if (colour[u] == White)
            if (std::string c = visit(static_cast<int>(u)); !c.empty())
                return c;
    return {};
}

Status checkReferences(const IosGraph &g)
{
    std::unordered_map<std::string, Definition> defs{{g.input, {}}};
    auto define = [&](const std::string &name, Definition d, const std::string &unit) -> Status {
        if (!defs.emplace(name, d).second)
            return unitError(unit, "the name '" + name + "' is defined twice", g.source);
        return {};
    };
    for (std::size_t u = 0; u < g.units.size(); ++u) {
        const Unit &unit = g.units[u];
        TS_TRY(define(unit.name, {static_cast<int>(u), static_cast<int>(unit.kernels.size()) - 1}, unit.name));
        if (unit.sequential)
            for (std::size_t k = 0; k < unit.kernels.size(); ++k)
                TS_TRY(define(unit.kernels[k].name, {static_cast<int>(u), static_cast<int>(k)}, unit.name));
    }

    std::string previousExit = g.input;
    for (std::size_t b = 0; b < g.blocks.size(); ++b) {
        const Block &block = g.blocks[b];
        const std::string where = "block " + std::to_string(b);
        if (block.enter != previousExit)
            return Status::invalid(where + ": enter_name '" + block.enter + "' is not " +
                                       (b == 0 ? "the graph input '" : "the exit of the previous block '") +
                                       previousExit + "'",
                                   Location{g.source, -1, block.enter, {}});
        if (!block.parts.empty()) {
            std::int64_t sum = 0;
            for (std::int64_t p : block.parts)
                sum += p;
            if (sum != static_cast<std::int64_t>(block.units.size()))
                return Status::invalid(where + ": its parts cover " + std::to_string(sum) + " units, it has " +
                                           std::to_string(block.units.size()),
                                       Location{g.source, -1, {}, {}});
        }
        previousExit = g.units[block.units.back()].name;
    }

    for (std::size_t u = 0; u < g.units.size(); ++u) {
        const Unit &unit = g.units[u];
        const Block &block = g.blocks[unit.block];
        for (std::size_t k = 0; k < unit.kernels.size(); ++k)
            for (const Term &t : unit.kernels[k].inputs)
                for (const ValueRef &r : t) {
                    const auto it = defs.find(r.node);
                    if (it == defs.end()) {
                        // The names this unit may read, the most recent last, clipped.
                        std::vector<std::string> names{block.enter};
                        for (auto v = block.units.begin(); *v != static_cast<int>(u); ++v)
                            names.push_back(g.units[*v].name);
                        std::string known = names.front();
                        if (names.size() > 12)
                            known += ", ...";
                        for (std::size_t i = names.size() > 12 ? names.size() - 10 : 1; i < names.size(); ++i)
                            known += ", " + names[i];
                        return unitError(unit.name,
                                         "input '" + r.node + "' is not defined (block " + std::to_string(unit.block) +
                                             " can read: " + known + ")",
                                         g.source);
                    }
                    const Definition d = it->second;
                    const bool earlier = d.unit < static_cast<int>(u) ||
                                         (d.unit == static_cast<int>(u) && d.position < static_cast<int>(k));
                    if (!earlier) {
                        if (const std::string cycle = findCycle(g, defs); !cycle.empty())
                            return unitError(unit.name, "the config has a cycle: " + cycle, g.source);
                        return unitError(unit.name,
                                         "input '" + r.node +
                                             "' is listed after it (ios configs list "
                                             "units in topological order)",
                                         g.source);
                    }
                    if (r.node != block.enter && (d.unit < 0 || g.units[d.unit].block != unit.block))
                        return unitError(unit.name,
                                         "input '" + r.node + "' lies outside block " + std::to_string(unit.block) +
                                             ", which reads only its enter '" + block.enter + "' and its own units",
                                         g.source);
                }
    }
    return {};
}

// ---- S3: emission ----------------------------------------------------------

std::int64_t windowOut(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad)
{
    return in + 2 * pad < kernel ? 0 : 1 + (in + 2 * pad - kernel) / stride;
}

class Converter
{
public:
    // IOS's biggest network, NASNet-A large, holds 8.9·10^7 weights; a config
    // asking for more than 1.5 times that is refused before they are synthesized.
    static constexpr std::int64_t kParameterLimit = std::int64_t{1} << 27;

    Converter(const IosGraph &g, const SampleOptions &opts) : m_g(g), m_batch(opts.batch), m_b(g.name, opts.seed)
    {
        m_b.setParameterLimit(kParameterLimit);
        m_b.setCancel(opts.cancel);
        nameCells();
    }

    Expected<std::unique_ptr<onnx::ModelProto>> run()
    {
        m_values[m_g.input] = {m_b.input(m_g.input, dims(m_g.inputShape)), m_g.inputShape};
        for (const Unit &u : m_g.units) {
            if (m_b.status().code() == ErrorCode::Cancelled)
                return m_b.status();
            TS_TRY(emitUnit(u));
        }
        m_b.output(m_values.at(m_g.units.back().name).onnx);
        Expected<std::unique_ptr<onnx::ModelProto>> model = m_b.finish();
        if (!model)
            return model;
        writeMetadata(**model);
        return model;
    }

private:
    struct Value {
        std::string onnx;
        Chw shape;
    };

    std::vector<std::int64_t> dims(const Chw &s) const { return {m_batch, s.c, s.h, s.w}; }

    // Adds a node named "<prefix>/<op>" ("_N" when repeated) to the current unit.
    std::string node(const std::string &op, const std::vector<std::string> &inputs, const Chw &shape,
                     const std::vector<ModelBuilder::Attr> &attrs = {})
    {
        return m_b.node(op, nextName(op), inputs, attrs, {dims(shape)}).front();
    }
    std::string nextName(const std::string &op)
    {
        const int n = m_opCount[m_prefix + "/" + op]++;
        const std::string name = m_prefix + "/" + op + (n ? "_" + std::to_string(n) : "");
        m_unitNodes->push_back(name);
        return name;
    }

    Status fail(const std::string &message) const { return unitError(m_unit->name, message, m_g.source); }

    // IOS's input: slice values, sum (or multiply) within a term, concatenate terms.
    Expected<Value> gather(const Kernel &k, bool multiply)
    {
        std::vector<Value> terms;
        for (std::size_t t = 0; t < k.inputs.size(); ++t) {
            std::vector<Value> values;
            for (const ValueRef &r : k.inputs[t]) {
                const Value &v = m_values.at(r.node);
                if (r.begin >= r.end || r.end > v.shape.c)
                    return fail("input " + r.node + "[" + std::to_string(r.begin) + ":" + std::to_string(r.end) +
                                "] is not a channel range of its " + std::to_string(v.shape.c) + " channels");
                if (r.begin == 0 && r.end == v.shape.c) {
                    values.push_back(v);
                    continue;
                }
                const Chw s{r.end - r.begin, v.shape.h, v.shape.w};
                const std::string name = nextName("Slice");
                const std::string starts = m_b.constantInts(name + ".starts", {r.begin});
                const std::string ends = m_b.constantInts(name + ".ends", {r.end});
                const std::string axes = m_b.constantInts(name + ".axes", {1});
                values.push_back({m_b.node("Slice", name, {v.onnx, starts, ends, axes}, {}, {dims(s)}).front(), s});
            }
            for (const Value &v : values)
                if (v.shape != values.front().shape)
                    return fail("input term " + std::to_string(t) + " combines values of shapes " +
                                values.front().shape.str() + " and " + v.shape.str());
            Value term = values.front();
            if (multiply) {
                for (std::size_t i = 1; i < values.size(); ++i)
                    term.onnx = node("Mul", {term.onnx, values[i].onnx}, term.shape);
            } else if (values.size() > 1) {
                std::vector<std::string> names;
                for (const Value &v : values)
                    names.push_back(v.onnx);
                term.onnx = node(values.size() == 2 ? "Add" : "Sum", names, term.shape);
            }
            terms.push_back(term);
        }
        if (terms.size() == 1)
            return terms.front();
        Value out{{}, {0, terms.front().shape.h, terms.front().shape.w}};
        std::vector<std::string> names;
        for (const Value &t : terms) {
            if (t.shape.h != out.shape.h || t.shape.w != out.shape.w)
                return fail("input terms have different spatial sizes, " + terms.front().shape.str() + " and " +
                            t.shape.str());
            out.shape.c += t.shape.c;
            names.push_back(t.onnx);
        }
        out.onnx = node("Concat", names, out.shape, {ModelBuilder::aInt("axis", 1)});
        return out;
    }

    Expected<Value> emitKernel(const Kernel &k)
    {
        const std::size_t before = m_unitNodes->size();
        Expected<Value> gathered = gather(k, k.kind == Kind::Element && k.variant == "mul");
        if (!gathered)
            return gathered;
        const Value in = *gathered;
        Value out = in;
        auto activation = [&](const std::string &act) {
            if (act != "identity")
                out.onnx = node(act == "relu" ? "Relu" : act == "tanh" ? "Tanh" : "Sigmoid", {out.onnx}, out.shape);
        };
        switch (k.kind) {
        case Kind::Conv: {
            if (in.shape.c % k.groups || k.outChannels % k.groups)
                return fail("groups " + std::to_string(k.groups) + " does not divide its " +
                            std::to_string(in.shape.c) + " input and " + std::to_string(k.outChannels) +
                            " output channels");
            out.shape = {k.outChannels, windowOut(in.shape.h, k.kernel[0], k.stride[0], k.padding[0]),
                         windowOut(in.shape.w, k.kernel[1], k.stride[1], k.padding[1])};
            if (out.shape.h < 1 || out.shape.w < 1)
                break; // reported below with the shapes
            out.onnx = m_b.conv2d(in.onnx, nextName("Conv"), k.outChannels, {k.kernel[0], k.kernel[1]},
                                  {k.stride[0], k.stride[1]}, {k.padding[0], k.padding[1], k.padding[0], k.padding[1]},
                                  k.groups);
            activation(k.variant);
            break;
        }
        case Kind::Pool: {
            const bool global = k.variant.rfind("global", 0) == 0, max = k.variant.find("max") != std::string::npos;
            if (global) {
                out.shape = {in.shape.c, 1, 1};
                out.onnx = node(max ? "GlobalMaxPool" : "GlobalAveragePool", {in.onnx}, out.shape);
                break;
            }
            out.shape = {in.shape.c, windowOut(in.shape.h, k.kernel[0], k.stride[0], k.padding[0]),
                         windowOut(in.shape.w, k.kernel[1], k.stride[1], k.padding[1])};
            if (out.shape.h < 1 || out.shape.w < 1)
                break;
            std::vector<ModelBuilder::Attr> attrs{
                ModelBuilder::aInts("kernel_shape", {k.kernel[0], k.kernel[1]}),
                ModelBuilder::aInts("pads", {k.padding[0], k.padding[1], k.padding[0], k.padding[1]}),
                ModelBuilder::aInts("strides", {k.stride[0], k.stride[1]})};
            if (!max) // IOS's runtime averages with CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                attrs.push_back(ModelBuilder::aInt("count_include_pad", 1));
            out.onnx = node(max ? "MaxPool" : "AveragePool", {in.onnx}, out.shape, attrs);
            break;
        }
        case Kind::Relu: activation("relu"); break;
        case Kind::Activation: activation(k.variant); break;
        case Kind::Identity:
        case Kind::Element:
            if (m_unitNodes->size() == before) // nothing to gather: still one node for the unit
                out.onnx = node("Identity", {in.onnx}, out.shape);
            break;
        case Kind::Sequential: TS_UNREACHABLE("sequential units are flattened into kernels by the parser");
        }
        if (out.shape.h < 1 || out.shape.w < 1)
            return fail("window " + std::to_string(k.kernel[0]) + "x" + std::to_string(k.kernel[1]) +
                        " does not fit its padded " + in.shape.str() + " input");
        if (k.declared && *k.declared != out.shape)
            return fail((m_unit->sequential ? "node '" + k.name + "': " : std::string()) + "output_shape " +
                        k.declared->str() + " in the config, " + out.shape.str() + " from its inputs");
        return out;
    }

    Status emitUnit(const Unit &u)
    {
        m_unit = &u;
        m_unitNodes = &m_unitMap[u.name];
        Value out;
        for (const Kernel &k : u.kernels) {
            const int cell = m_cellOf[static_cast<std::size_t>(&u - m_g.units.data())];
            m_prefix = "block" + std::to_string(u.block) + "/" +
                       (cell >= 0 ? "cell" + std::to_string(cell) + "/" : "") + u.name +
                       (u.sequential ? "/" + k.name : "");
            Expected<Value> v = emitKernel(k);
            if (!v)
                return v.status();
            if (m_b.status().code() == ErrorCode::Cancelled)
                return m_b.status();
            if (!m_b.status().isOk())
                return fail((u.sequential ? "node '" + k.name + "': " : std::string()) + "its weights exceed " +
                            std::to_string(kParameterLimit) + " parameters in all");
            out = *v;
            m_values[k.name] = out;
        }
        if (u.declared && *u.declared != out.shape)
            return fail("output_shape " + u.declared->str() + " in the config, " + out.shape.str() +
                        " from its inputs");
        m_values[u.name] = out;
        return {};
    }

    // A block of more than kCellBlockUnits units (NASNet's config is one block
    // of 373) is cut into cells for reading: a cell ends with the unit that
    // concatenates four or more hidden states, as every NASNet cell does. The
    // cells only name scopes ("block0/cell3/..."); units and blocks stay the
    // config's.
    static constexpr std::size_t kCellBlockUnits = 64;
    void nameCells()
    {
        m_cellOf.assign(m_g.units.size(), -1);
        for (const Block &b : m_g.blocks) {
            if (b.units.size() <= kCellBlockUnits)
                continue;
            int cell = 0;
            std::vector<int> cells(b.units.size());
            for (std::size_t i = 0; i < b.units.size(); ++i) {
                cells[i] = cell;
                const Unit &u = m_g.units[static_cast<std::size_t>(b.units[i])];
                if (!u.sequential && u.kernels.size() == 1 && u.kernels[0].kind == Kind::Identity &&
                    u.kernels[0].inputs.size() >= 4)
                    ++cell;
            }
            if (cell < 2)
                continue; // no cells to tell apart
            for (std::size_t i = 0; i < b.units.size(); ++i)
                m_cellOf[static_cast<std::size_t>(b.units[i])] = cells[i];
        }
    }

    void writeMetadata(onnx::ModelProto &model) const
    {
        QJsonObject units;
        for (const auto &[unit, nodes] : m_unitMap) {
            QJsonArray list;
            for (const std::string &n : nodes)
                list.append(QString::fromStdString(n));
            units.insert(QString::fromStdString(unit), list);
        }
        QJsonArray blocks;
        for (const Block &b : m_g.blocks) {
            QJsonArray members, parts;
            for (int u : b.units)
                members.append(QString::fromStdString(m_g.units[u].name));
            QJsonObject o{{"enter", QString::fromStdString(b.enter)},
                          {"exit", QString::fromStdString(m_g.units[b.units.back()].name)},
                          {"units", members}};
            for (std::int64_t p : b.parts)
                parts.append(static_cast<qint64>(p));
            if (!b.parts.empty())
                o.insert("parts", parts);
            blocks.append(o);
        }
        auto put = [&model](const char *key, const QByteArray &value) {
            auto *p = model.add_metadata_props();
            p->set_key(key);
            p->set_value(value.toStdString());
        };
        put(kIosUnitsKey, QJsonDocument(units).toJson(QJsonDocument::Compact));
        put(kIosBlocksKey, QJsonDocument(blocks).toJson(QJsonDocument::Compact));
        model.mutable_graph()->set_doc_string("IOS network '" + m_g.name + "': " + std::to_string(m_g.units.size()) +
                                              " schedule units in " + std::to_string(m_g.blocks.size()) +
                                              " blocks, converted from its IOS graph config");
    }

    const IosGraph &m_g;
    std::vector<int> m_cellOf; // per unit: its cell in a big block, or -1
    std::int64_t m_batch;
    ModelBuilder m_b;
    std::unordered_map<std::string, Value> m_values; // by IOS node name
    std::map<std::string, std::vector<std::string>> m_unitMap;
    std::unordered_map<std::string, int> m_opCount;
    const Unit *m_unit = nullptr;
    std::vector<std::string> *m_unitNodes = nullptr;
    std::string m_prefix;
};

Status checkOptions(const IosGraph &g, const SampleOptions &opts)
{
    if (opts.batch < 1)
        return Status::error(ErrorCode::Usage, "batch must be at least 1, got " + std::to_string(opts.batch));
    if (opts.imageSize != 0 && (opts.imageSize != g.inputShape.h || opts.imageSize != g.inputShape.w))
        return Status::error(ErrorCode::Usage, "ios network '" + g.name + "' has a fixed " +
                                                   std::to_string(g.inputShape.h) + "x" +
                                                   std::to_string(g.inputShape.w) + " input; image size " +
                                                   std::to_string(opts.imageSize) + " is not available");
    return {};
}

Expected<std::unique_ptr<onnx::ModelProto>> convert(const IosGraph &g, const SampleOptions &opts)
{
    TS_TRY(checkOptions(g, opts));
    TS_TRY(checkReferences(g));
    return Converter(g, opts).run();
}

// The built-in networks: name, embedded config, key in model_summary.json, and
// the sample they are registered as (iosSampleNetworks).
struct Network {
    const char *name;
    const char *config;
    const char *summaryKey;
    const char *sample;
    const char *title;
    const char *paper;
    const char *description;
};
constexpr Network kNetworks[] = {
    {"inception_v3", "inception_v3.ios.json", "inception_v3", "inception-v3", "Inception V3 (IOS benchmark)",
     "Szegedy et al.: Rethinking the Inception Architecture for Computer Vision. CVPR 2016; "
     "Ding et al.: IOS: Inter-Operator Scheduler for CNN Acceleration. MLSys 2021",
     "The exact Inception V3 of the IOS experiments (no auxiliary head, no final FC), 299×299."},
    {"squeezenet", "squeezenet.ios.json", "squeezenet", "squeezenet", "SqueezeNet (IOS benchmark)",
     "Iandola et al.: SqueezeNet: AlexNet-level accuracy with 50x fewer parameters. 2016; IOS, MLSys 2021",
     "SqueezeNet with residual bypasses as in the IOS experiments, 224×224."},
    {"randwire", "randwire_large.ios.json", "randwire_large", "randwire", "RandWire-large (IOS benchmark)",
     "Xie, Kirillov, Girshick, He: Exploring Randomly Wired Neural Networks for Image Recognition. ICCV 2019; "
     "IOS, MLSys 2021",
     "The randomly wired network of the IOS experiments: ReLU, depthwise 3×3, pointwise 1×1 units summing "
     "their predecessors, 224×224."},
    {"nasnet", "nasnet_large.ios.json", "nasnet_large", "nasnet-a", "NasNet-A large (IOS benchmark)",
     "Zoph, Vasudevan, Shlens, Le: Learning Transferable Architectures for Scalable Image Recognition. CVPR 2018; "
     "IOS, MLSys 2021",
     "The NasNet-A large block of the IOS experiments, split into per-cell parts, 331×331."},
};

std::string readResource(const char *file)
{
    initIosResources();
    QFile f(QStringLiteral(":/ios/") + QLatin1String(file));
    TS_ASSERT_MSG(f.open(QIODevice::ReadOnly), "ios.qrc is not linked into this binary");
    return f.readAll().toStdString();
}

const Network *findNetwork(std::string_view name)
{
    for (const Network &n : kNetworks)
        if (name == n.name)
            return &n;
    return nullptr;
}

Status unknownNetwork(std::string_view name)
{
    std::string valid;
    for (const Network &n : kNetworks)
        valid += (valid.empty() ? "" : ", ") + std::string(n.name);
    return Status::error(ErrorCode::Usage, "unknown ios network '" + std::string(name) + "' (valid: " + valid + ")");
}

} // namespace

const std::vector<std::string> &iosNetworkNames()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const Network &n : kNetworks)
            v.emplace_back(n.name);
        return v;
    }();
    return names;
}

std::vector<SampleNetwork> iosSampleNetworks()
{
    std::vector<SampleNetwork> samples;
    for (const Network &n : kNetworks)
        samples.push_back({{n.sample, n.title, n.paper, n.description},
                           [name = std::string(n.name)](const SampleOptions &o) { return buildIosNetwork(name, o); }});
    return samples;
}

std::string iosNetworkOfSample(std::string_view sampleName)
{
    for (const Network &n : kNetworks)
        if (sampleName == n.sample || sampleName == n.name)
            return n.name;
    return {};
}

Expected<std::string> iosNetworkConfig(std::string_view name)
{
    const Network *n = findNetwork(name);
    if (!n)
        return unknownNetwork(name);
    return readResource(n->config);
}

namespace {

// The artifact keeps NasNet's per-cell parts in Python, not in the config; its
// model summary lists them per block. A config of one of the four networks —
// the embedded one or the same network read from a file — gets them when its
// name and per-block unit counts match the summary; any other config keeps
// none (blocks are then cut into runs of the search's part size).
void attachKnownParts(IosGraph &g)
{
    for (const Network &n : kNetworks) {
        if (g.name != n.summaryKey)
            continue;
        const QJsonArray perBlock =
            QJsonDocument::fromJson(QByteArray::fromStdString(readResource("model_summary.json")))
                .object()
                .value(QLatin1String(n.summaryKey))
                .toObject()
                .value(QLatin1String("per_block"))
                .toArray();
        if (perBlock.size() != static_cast<qsizetype>(g.blocks.size()))
            return;
        for (qsizetype b = 0; b < perBlock.size(); ++b)
            if (perBlock[b].toObject().value(QLatin1String("units")).toInteger() !=
                static_cast<qint64>(g.blocks[static_cast<std::size_t>(b)].units.size()))
                return;
        for (qsizetype b = 0; b < perBlock.size(); ++b) {
            Block &block = g.blocks[static_cast<std::size_t>(b)];
            if (!block.parts.empty())
                continue; // the config's own parts win
            for (const QJsonValue p : perBlock[b].toObject().value(QLatin1String("parts")).toArray())
                block.parts.push_back(p.toInteger());
        }
        return;
    }
}

} // namespace

Expected<std::unique_ptr<onnx::ModelProto>> buildIosNetwork(std::string_view name, const SampleOptions &opts)
{
    const Network *n = findNetwork(name);
    if (!n)
        return unknownNetwork(name);
    Expected<IosGraph> g = parseConfig(readResource(n->config), n->config);
    TS_ASSERT_MSG(g.isOk(), "an embedded ios config does not parse");
    attachKnownParts(*g);
    return convert(*g, opts);
}

Expected<std::unique_ptr<onnx::ModelProto>> buildFromIosConfig(std::string_view json, const SampleOptions &opts,
                                                               std::string_view sourceName)
{
    Expected<IosGraph> g = parseConfig(json, sourceName);
    if (!g)
        return g.status();
    attachKnownParts(*g);
    return convert(*g, opts);
}

} // namespace tessera
