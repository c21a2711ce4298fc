// Device files: a path-tracking reader over QJsonDocument, then validateDevice.
// The first problem wins; later reads still run but cannot replace it, so the
// parsing code reads straight through without checking after every field.
#include "core/hw/devicejson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>

namespace tessera {

namespace {

std::string describe(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null: return "null";
    case QJsonValue::Bool: return v.toBool() ? "true" : "false";
    case QJsonValue::Double: return QString::number(v.toDouble()).toStdString();
    case QJsonValue::String: return "'" + v.toString().toStdString() + "'";
    case QJsonValue::Array: return "an array";
    case QJsonValue::Object: return "an object";
    case QJsonValue::Undefined: break;
    }
    return "nothing";
}

template <typename Range> std::string joined(const Range &names)
{
    std::string out;
    for (const auto &n : names)
        out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

std::vector<std::string_view> arithmeticDTypeNames()
{
    std::vector<std::string_view> names;
    for (int i = 0; i <= static_cast<int>(DType::String); ++i)
        if (dtypeSize(static_cast<DType>(i)) > 0)
            names.push_back(dtypeName(static_cast<DType>(i)));
    return names;
}

const char *exampleOf(Quantity q)
{
    switch (q) {
    case Quantity::Bytes: return "'64 KiB'";
    case Quantity::Bandwidth: return "'900 GB/s'";
    case Quantity::OpsRate: return "'125 TFLOP/s'";
    case Quantity::TimeNs: return "'5 us'";
    case Quantity::Frequency: return "'1.53 GHz'";
    }
    return "";
}

class Context
{
public:
    explicit Context(std::string file) : m_file(std::move(file)) {}
    void fail(const std::string &path, const std::string &message)
    {
        if (m_error.isOk())
            m_error = Status::invalid(path + ": " + message, Location{.file = m_file});
    }
    const Status &status() const { return m_error; }

private:
    std::string m_file;
    Status m_error;
};

// One JSON object at a path. Every key asked for becomes known; finish()
// rejects the others.
class ObjectReader
{
public:
    ObjectReader(Context &c, const QJsonValue &v, std::string path) : m_c(c), m_path(std::move(path))
    {
        if (v.isObject())
            m_o = v.toObject();
        else if (!v.isUndefined())
            m_c.fail(m_path.empty() ? "document" : m_path, "expected an object, got " + describe(v));
    }

    std::string path(std::string_view key) const
    {
        return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
    }

    QJsonValue raw(const char *key, bool required)
    {
        m_known.push_back(key);
        const QJsonValue v = m_o.value(QLatin1String(key));
        if (v.isUndefined() && required)
            m_c.fail(path(key), "required field is missing");
        return v;
    }

    std::string text(const char *key, bool required)
    {
        const QJsonValue v = raw(key, required);
        if (v.isUndefined())
            return {};
        if (!v.isString())
            m_c.fail(path(key), "expected a string, got " + describe(v));
        return v.toString().toStdString();
    }

    int integer(const char *key, std::optional<int> fallback)
    {
        const QJsonValue v = raw(key, !fallback);
        if (v.isUndefined())
            return fallback.value_or(0);
        const double d = v.toDouble();
        if (!v.isDouble() || d != std::floor(d) || std::fabs(d) > 1e9) {
            m_c.fail(path(key), "expected an integer, got " + describe(v));
            return 0;
        }
        return static_cast<int>(d);
    }

    double number(const char *key, std::optional<double> fallback)
    {
        const QJsonValue v = raw(key, !fallback);
        if (v.isUndefined())
            return fallback.value_or(0);
        if (!v.isDouble())
            m_c.fail(path(key), "expected a number, got " + describe(v));
        return v.toDouble();
    }

    double quantity(const char *key, Quantity q, std::optional<double> fallback)
    {
        return quantityOf(raw(key, !fallback), path(key), q, fallback.value_or(0));
    }

    std::int64_t bytes(const char *key, std::optional<std::int64_t> fallback)
    {
        const double v =
            quantity(key, Quantity::Bytes, fallback ? std::optional<double>(double(*fallback)) : std::nullopt);
        if (v != std::floor(v) || std::fabs(v) > 9e15) {
            m_c.fail(path(key), "expected a whole number of bytes, got " + formatQuantity(v, Quantity::Bytes));
            return 0;
        }
        return static_cast<std::int64_t>(v);
    }

    double quantityOf(const QJsonValue &v, const std::string &where, Quantity q, double fallback)
    {
        if (v.isUndefined())
            return fallback;
        std::optional<double> value;
        if (v.isDouble())
            value = v.toDouble();
        else if (v.isString())
            value = parseQuantity(v.toString().toStdString(), q);
        // A value that overflows in its unit ("1e308 TB/s") would be written
        // back as "inf B/s", which no reader accepts (fuzz_device's finding 4).
        if (value && !std::isfinite(*value)) {
            m_c.fail(where, "expected a finite quantity, got " + describe(v));
            return 0;
        }
        if (value)
            return *value;
        m_c.fail(where, std::string("expected a number or a string like ") + exampleOf(q) + ", got " + describe(v));
        return 0;
    }

    template <typename E, typename FromName>
    E choice(const char *key, FromName fromName, const std::vector<std::string_view> &names, const char *what)
    {
        const std::string s = text(key, true);
        if (auto e = fromName(s))
            return *e;
        if (!s.empty() || m_o.contains(QLatin1String(key)))
            m_c.fail(path(key), "unknown " + std::string(what) + " '" + s + "'; known: " + joined(names));
        return E{};
    }

    // A { "<dtype>": value } map.
    std::map<DType, double> dtypeMap(const char *key, bool required, std::optional<Quantity> q)
    {
        std::map<DType, double> out;
        const QJsonValue v = raw(key, required);
        if (v.isUndefined())
            return out;
        if (!v.isObject()) {
            m_c.fail(path(key), "expected an object of dtype → value, got " + describe(v));
            return out;
        }
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const std::string name = it.key().toStdString();
            const std::string where = path(key) + "." + name;
            const auto t = dtypeFromName(name);
            if (!t || dtypeSize(*t) == 0) {
                m_c.fail(where, "unknown dtype '" + name + "'; known: " + joined(arithmeticDTypeNames()));
                continue;
            }
            if (q)
                out[*t] = quantityOf(it.value(), where, *q, 0);
            else if (it.value().isDouble())
                out[*t] = it.value().toDouble();
            else
                m_c.fail(where, "expected a number, got " + describe(it.value()));
        }
        return out;
    }

    // An optional { "<name>": number } map; names are checked by validateDevice.
    std::map<std::string, double, std::less<>> numberMap(const char *key)
    {
        std::map<std::string, double, std::less<>> out;
        const QJsonValue v = raw(key, false);
        if (v.isUndefined())
            return out;
        if (!v.isObject()) {
            m_c.fail(path(key), "expected an object of name → number, got " + describe(v));
            return out;
        }
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (it.value().isDouble())
                out[it.key().toStdString()] = it.value().toDouble();
            else
                m_c.fail(path(key) + "." + it.key().toStdString(), "expected a number, got " + describe(it.value()));
        }
        return out;
    }

    void finish()
    {
        for (auto it = m_o.begin(); it != m_o.end(); ++it) {
            const std::string key = it.key().toStdString();
            if (std::find(m_known.begin(), m_known.end(), key) == m_known.end())
                m_c.fail(path(key), "unknown field; known: " + joined(m_known));
        }
    }

private:
    Context &m_c;
    QJsonObject m_o;
    std::string m_path;
    std::vector<std::string> m_known;
};

template <typename E, std::size_t N>
std::vector<std::string_view> namesOf(std::string_view (*name)(E), const E (&values)[N])
{
    std::vector<std::string_view> out;
    for (E v : values)
        out.push_back(name(v));
    return out;
}

const std::vector<std::string_view> &deviceKindNames()
{
    static const auto n = namesOf(deviceKindName, {DeviceKind::Dsa, DeviceKind::Gpu, DeviceKind::Cpu});
    return n;
}
const std::vector<std::string_view> &scopeNames()
{
    static const auto n = namesOf(
        memoryScopeName, {MemoryScope::PerUnit, MemoryScope::PerCore, MemoryScope::PerCluster, MemoryScope::Shared});
    return n;
}
const std::vector<std::string_view> &memoryKindNames()
{
    static const auto n = namesOf(memoryKindName, {MemoryKind::Memory, MemoryKind::Cache, MemoryKind::Host});
    return n;
}
const std::vector<std::string_view> &unitKindNames()
{
    static const auto n = namesOf(unitKindName, {UnitKind::Scalar, UnitKind::Vector, UnitKind::Matrix, UnitKind::Simt});
    return n;
}

QJsonArray arrayField(Context &c, ObjectReader &r, const char *key)
{
    const QJsonValue v = r.raw(key, true);
    if (!v.isArray() && !v.isUndefined())
        c.fail(r.path(key), "expected an array, got " + describe(v));
    return v.toArray();
}

MemoryLevel readLevel(Context &c, const QJsonValue &v, const std::string &path)
{
    ObjectReader r(c, v, path);
    MemoryLevel l;
    l.name = r.text("name", true);
    l.scope = r.choice<MemoryScope>("scope", memoryScopeFromName, scopeNames(), "scope");
    l.capacityBytes = r.bytes("capacity", std::nullopt);
    l.bandwidthBytesPerSec = r.quantity("bandwidth", Quantity::Bandwidth, std::nullopt);
    const QJsonValue t = r.raw("transaction", false);
    if (t.isObject()) {
        ObjectReader tr(c, t, r.path("transaction"));
        l.readTransactionBytes = tr.integer("read", std::nullopt);
        l.writeTransactionBytes = tr.integer("write", std::nullopt);
        tr.finish();
    } else if (!t.isUndefined()) {
        if (!t.isDouble() || t.toDouble() != std::floor(t.toDouble()) || std::fabs(t.toDouble()) > 1e9)
            c.fail(r.path("transaction"), "expected bytes or {\"read\": n, \"write\": n}, got " + describe(t));
        l.readTransactionBytes = l.writeTransactionBytes = static_cast<int>(t.toDouble());
    }
    l.latencyNs = r.quantity("latency", Quantity::TimeNs, 0.0);
    l.energyPerBytePj = r.number("energyPerBytePj", 0.0);
    if (!r.raw("kind", false).isUndefined())
        l.kind = r.choice<MemoryKind>("kind", memoryKindFromName, memoryKindNames(), "memory kind");
    r.finish();
    return l;
}

ComputeUnit readUnit(Context &c, const QJsonValue &v, const std::string &path)
{
    ObjectReader r(c, v, path);
    ComputeUnit u;
    u.name = r.text("name", true);
    u.kind = r.choice<UnitKind>("kind", unitKindFromName, unitKindNames(), "unit kind");
    u.countPerCore = r.integer("countPerCore", 1);
    u.cores = r.integer("cores", 0);
    u.peakOpsPerSec = r.dtypeMap("peak", true, Quantity::OpsRate);
    u.energyPerOpPj = r.dtypeMap("energyPerOpPj", false, std::nullopt);
    const QJsonValue ops = r.raw("ops", false);
    if (ops.isUndefined()) {
        u.opClasses = allOpClasses();
    } else if (!ops.isArray()) {
        c.fail(r.path("ops"), "expected an array of op classes, got " + describe(ops));
    } else {
        const QJsonArray a = ops.toArray();
        for (qsizetype i = 0; i < a.size(); ++i) {
            const auto cls = opClassFromName(a[i].toString().toStdString());
            if (!a[i].isString() || !cls) {
                std::vector<std::string_view> names;
                for (OpClass k : allOpClasses())
                    names.push_back(opClassName(k));
                c.fail(r.path("ops") + "[" + std::to_string(i) + "]",
                       "unknown op class " + describe(a[i]) + "; known: " + joined(names));
            } else if (!u.supports(*cls)) {
                u.opClasses.push_back(*cls);
            }
        }
        std::sort(u.opClasses.begin(), u.opClasses.end());
    }
    r.finish();
    return u;
}

GpuParams readGpu(Context &c, const QJsonValue &v)
{
    ObjectReader r(c, v, "gpu");
    GpuParams g;
    g.warpSize = r.integer("warpSize", std::nullopt);
    g.smPartitions = r.integer("smPartitions", std::nullopt);
    g.maxThreadsPerSm = r.integer("maxThreadsPerSm", std::nullopt);
    g.maxThreadsPerBlock = r.integer("maxThreadsPerBlock", std::nullopt);
    g.maxBlocksPerSm = r.integer("maxBlocksPerSm", std::nullopt);
    g.registersPerSm = r.integer("registersPerSm", std::nullopt);
    g.maxRegistersPerThread = r.integer("maxRegistersPerThread", std::nullopt);
    g.sharedMemPerSm = r.bytes("sharedMemPerSm", std::nullopt);
    g.maxSharedMemPerBlock = r.bytes("maxSharedMemPerBlock", std::nullopt);
    r.finish();
    return g;
}

QJsonObject dtypeObject(const std::map<DType, double> &m, bool asRate)
{
    QJsonObject o;
    for (const auto &[t, v] : m)
        o.insert(QString::fromUtf8(dtypeName(t)),
                 asRate ? QJsonValue(QString::fromStdString(formatOpsRate(v, t))) : QJsonValue(v));
    return o;
}

QJsonValue q(double v, Quantity quantity)
{
    return QString::fromStdString(formatQuantity(v, quantity));
}
QJsonValue s(const std::string &text)
{
    return QString::fromStdString(text);
}

} // namespace

Expected<Device> parseDevice(const QByteArray &json, const QString &sourceName)
{
    const std::string file = sourceName.toStdString();
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError)
        return Status::invalid("malformed json: " + pe.errorString().toStdString(),
                               Location{.file = file, .offset = pe.offset});
    if (!doc.isObject())
        return Status::invalid("expected a json object at the top level", Location{.file = file});

    Context c(file);
    ObjectReader top(c, doc.object(), "");
    Device d;
    if (const int schema = top.integer("schema", kDeviceSchemaVersion); schema != kDeviceSchemaVersion)
        c.fail("schema", "unsupported version " + std::to_string(schema) + "; this build reads version " +
                             std::to_string(kDeviceSchemaVersion));
    d.id = top.text("id", true);
    d.name = top.text("name", true);
    d.kind = top.choice<DeviceKind>("kind", deviceKindFromName, deviceKindNames(), "device kind");
    d.vendor = top.text("vendor", false);
    d.description = top.text("description", false);
    d.source = top.text("source", true);
    d.notes = top.text("notes", false);
    d.clockHz = top.quantity("clock", Quantity::Frequency, 0.0);

    ObjectReader topo(c, top.raw("topology", true), "topology");
    d.topology.clusters = topo.integer("clusters", std::nullopt);
    d.topology.coresPerCluster = topo.integer("coresPerCluster", std::nullopt);
    d.topology.unitsPerCore = topo.integer("unitsPerCore", std::nullopt);
    topo.finish();

    const QJsonArray levels = arrayField(c, top, "levels");
    for (qsizetype i = 0; i < levels.size(); ++i)
        d.levels.push_back(readLevel(c, levels[i], "levels[" + std::to_string(i) + "]"));
    const QJsonArray units = arrayField(c, top, "units");
    for (qsizetype i = 0; i < units.size(); ++i)
        d.units.push_back(readUnit(c, units[i], "units[" + std::to_string(i) + "]"));

    if (const QJsonValue g = top.raw("gpu", false); !g.isUndefined())
        d.gpu = readGpu(c, g);

    ObjectReader ov(c, top.raw("overheads", false), "overheads");
    d.overheads.kernelLaunchNs = ov.quantity("kernelLaunch", Quantity::TimeNs, 0.0);
    d.overheads.syncNs = ov.quantity("sync", Quantity::TimeNs, 0.0);
    d.overheads.dmaSetupNs = ov.quantity("dmaSetup", Quantity::TimeNs, 0.0);
    d.overheads.atomicNs = ov.quantity("atomic", Quantity::TimeNs, 0.0);
    d.overheads.deviceLaunchNs = ov.quantity("deviceLaunch", Quantity::TimeNs, 0.0);
    ov.finish();

    ObjectReader cal(c, top.raw("calibration", true), "calibration");
    d.calibration.computeEfficiency = cal.number("computeEfficiency", std::nullopt);
    d.calibration.memoryEfficiency = cal.number("memoryEfficiency", std::nullopt);
    d.calibration.latencyHidingOccupancy =
        cal.number("latencyHidingOccupancy", d.kind == DeviceKind::Gpu ? std::nullopt : std::optional<double>(1.0));
    d.calibration.computeEfficiencyByClass = cal.numberMap("computeEfficiencyByClass");
    d.calibration.memoryEfficiencyByLevel = cal.numberMap("memoryEfficiencyByLevel");
    d.calibration.source = cal.text("source", true);
    cal.finish();

    ObjectReader pw(c, top.raw("power", false), "power");
    d.power.tdpWatts = pw.number("tdpWatts", 0.0);
    d.power.staticWatts = pw.number("staticWatts", 0.0);
    pw.finish();

    const QJsonValue est = top.raw("estimated", false);
    if (!est.isUndefined() && !est.isArray())
        c.fail("estimated", "expected an array of field paths, got " + describe(est));
    const QJsonArray estimated = est.toArray();
    for (qsizetype i = 0; i < estimated.size(); ++i) {
        if (!estimated[i].isString())
            c.fail("estimated[" + std::to_string(i) + "]", "expected a string, got " + describe(estimated[i]));
        d.estimated.push_back(estimated[i].toString().toStdString());
    }
    top.finish();

    if (!c.status().isOk())
        return c.status();
    Status valid = validateDevice(d);
    if (!valid.isOk())
        return valid.at(Location{.file = file});
    return d;
}

QByteArray toJson(const Device &d)
{
    QJsonObject o;
    o.insert("schema", kDeviceSchemaVersion);
    o.insert("id", s(d.id));
    o.insert("name", s(d.name));
    o.insert("kind", s(std::string(deviceKindName(d.kind))));
    o.insert("vendor", s(d.vendor));
    o.insert("description", s(d.description));
    o.insert("source", s(d.source));
    o.insert("notes", s(d.notes));
    o.insert("clock", q(d.clockHz, Quantity::Frequency));
    o.insert("topology", QJsonObject{{"clusters", d.topology.clusters},
                                     {"coresPerCluster", d.topology.coresPerCluster},
                                     {"unitsPerCore", d.topology.unitsPerCore}});
    QJsonArray levels;
    for (const MemoryLevel &l : d.levels) {
        QJsonObject lo{{"name", s(l.name)},
                       {"scope", s(std::string(memoryScopeName(l.scope)))},
                       {"capacity", q(double(l.capacityBytes), Quantity::Bytes)},
                       {"bandwidth", q(l.bandwidthBytesPerSec, Quantity::Bandwidth)},
                       {"latency", q(l.latencyNs, Quantity::TimeNs)},
                       {"energyPerBytePj", l.energyPerBytePj}};
        if (l.kind != MemoryKind::Memory) // the default is not written
            lo.insert("kind", s(std::string(memoryKindName(l.kind))));
        if (l.readTransactionBytes == l.writeTransactionBytes)
            lo.insert("transaction", l.readTransactionBytes);
        else
            lo.insert("transaction", QJsonObject{{"read", l.readTransactionBytes}, {"write", l.writeTransactionBytes}});
        levels.append(lo);
    }
    o.insert("levels", levels);
    QJsonArray units;
    for (const ComputeUnit &u : d.units) {
        QJsonArray ops;
        for (OpClass c : u.opClasses)
            ops.append(s(std::string(opClassName(c))));
        units.append(QJsonObject{{"name", s(u.name)},
                                 {"kind", s(std::string(unitKindName(u.kind)))},
                                 {"countPerCore", u.countPerCore},
                                 {"cores", u.cores},
                                 {"peak", dtypeObject(u.peakOpsPerSec, true)},
                                 {"ops", ops},
                                 {"energyPerOpPj", dtypeObject(u.energyPerOpPj, false)}});
    }
    o.insert("units", units);
    if (d.gpu) {
        const GpuParams &g = *d.gpu;
        o.insert("gpu", QJsonObject{{"warpSize", g.warpSize},
                                    {"smPartitions", g.smPartitions},
                                    {"maxThreadsPerSm", g.maxThreadsPerSm},
                                    {"maxThreadsPerBlock", g.maxThreadsPerBlock},
                                    {"maxBlocksPerSm", g.maxBlocksPerSm},
                                    {"registersPerSm", g.registersPerSm},
                                    {"maxRegistersPerThread", g.maxRegistersPerThread},
                                    {"sharedMemPerSm", q(double(g.sharedMemPerSm), Quantity::Bytes)},
                                    {"maxSharedMemPerBlock", q(double(g.maxSharedMemPerBlock), Quantity::Bytes)}});
    }
    o.insert("overheads", QJsonObject{{"kernelLaunch", q(d.overheads.kernelLaunchNs, Quantity::TimeNs)},
                                      {"sync", q(d.overheads.syncNs, Quantity::TimeNs)},
                                      {"dmaSetup", q(d.overheads.dmaSetupNs, Quantity::TimeNs)},
                                      {"atomic", q(d.overheads.atomicNs, Quantity::TimeNs)},
                                      {"deviceLaunch", q(d.overheads.deviceLaunchNs, Quantity::TimeNs)}});
    QJsonObject calibration{{"computeEfficiency", d.calibration.computeEfficiency},
                            {"memoryEfficiency", d.calibration.memoryEfficiency},
                            {"latencyHidingOccupancy", d.calibration.latencyHidingOccupancy},
                            {"source", s(d.calibration.source)}};
    const auto numbers = [](const std::map<std::string, double, std::less<>> &m) {
        QJsonObject o;
        for (const auto &[k, v] : m)
            o.insert(QString::fromStdString(k), v);
        return o;
    };
    if (!d.calibration.computeEfficiencyByClass.empty())
        calibration.insert("computeEfficiencyByClass", numbers(d.calibration.computeEfficiencyByClass));
    if (!d.calibration.memoryEfficiencyByLevel.empty())
        calibration.insert("memoryEfficiencyByLevel", numbers(d.calibration.memoryEfficiencyByLevel));
    o.insert("calibration", calibration);
    o.insert("power", QJsonObject{{"tdpWatts", d.power.tdpWatts}, {"staticWatts", d.power.staticWatts}});
    QJsonArray estimated;
    for (const std::string &e : d.estimated)
        estimated.append(s(e));
    o.insert("estimated", estimated);
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

} // namespace tessera
