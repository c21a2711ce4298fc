#include "plugins/pcgc/learnedcost.h"

#include "core/hw/devicejson.h"
#include "core/support/fileio.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <cmath>

namespace tessera::pcgc {

namespace {

constexpr const char *kFormat = "tessera-pcgc-cost-model";
constexpr int kVersion = 1;

QJsonObject accuracyJson(const Accuracy &a)
{
    return {{"count", a.count}, {"mape", a.mape}, {"r2", a.r2}, {"analyticMape", a.analyticMape}};
}

Accuracy accuracyFrom(const QJsonObject &o)
{
    Accuracy a;
    a.count = o.value("count").toInt();
    a.mape = o.value("mape").toDouble();
    a.r2 = o.value("r2").toDouble();
    a.analyticMape = o.value("analyticMape").toDouble();
    return a;
}

Expected<QJsonObject> targetJson(const TargetModel &t)
{
    auto bytes = t.regressor.save();
    if (!bytes)
        return bytes.status();
    QJsonArray points;
    for (const ScatterPoint &p : t.heldBack)
        points.append(QJsonArray{p.measured, p.predicted, p.analytic});
    return QJsonObject{{"model", QString::fromLatin1(QByteArray::fromStdString(*bytes).toBase64())},
                       {"accuracy", accuracyJson(t.accuracy)},
                       {"heldBack", points}};
}

Expected<TargetModel> targetFrom(const QJsonValue &v, const std::string &what)
{
    if (!v.isObject() || !v.toObject().value("model").isString())
        return Status::invalid("the " + what + " model is missing");
    const QJsonObject o = v.toObject();
    const QByteArray raw =
        QByteArray::fromBase64(o.value("model").toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (raw.isEmpty())
        return Status::invalid("the " + what + " model is not base64");
    auto r = Regressor::load(std::string_view(raw.constData(), static_cast<std::size_t>(raw.size())),
                             static_cast<int>(featureNames().size()));
    if (!r)
        return Status::error(r.status().code(), "the " + what + " model: " + r.status().message());
    TargetModel t;
    t.regressor = std::move(*r);
    t.accuracy = accuracyFrom(o.value("accuracy").toObject());
    for (const QJsonValue &p : o.value("heldBack").toArray()) {
        const QJsonArray a = p.toArray();
        if (a.size() != 3)
            return Status::invalid("the " + what + " model's held-back points are malformed");
        t.heldBack.push_back({a[0].toDouble(), a[1].toDouble(), a[2].toDouble()});
    }
    return t;
}

QJsonArray strings(const std::vector<std::string> &v)
{
    QJsonArray a;
    for (const auto &s : v)
        a.append(QString::fromStdString(s));
    return a;
}

std::vector<ScatterPoint> pointsFrom(const QJsonValue &target)
{
    std::vector<ScatterPoint> out;
    for (const QJsonValue &p : target.toObject().value("heldBack").toArray()) {
        const QJsonArray a = p.toArray();
        if (a.size() == 3)
            out.push_back({a[0].toDouble(), a[1].toDouble(), a[2].toDouble()});
    }
    return out;
}

TrainingSummary summaryFrom(const QJsonObject &t)
{
    TrainingSummary s;
    s.backend = t.value("backend").toString().toStdString();
    for (const QJsonValue &v : t.value("graphs").toArray())
        s.graphs.push_back(v.toString().toStdString());
    s.ops = t.value("ops").toInt();
    s.measured = t.value("measured").toInt();
    s.heldBack = t.value("heldBack").toInt();
    s.pseudoLabelled = t.value("pseudoLabelled").toInt();
    s.rounds = t.value("rounds").toInt();
    s.skipped = t.value("skipped").toInt();
    s.ac = t.value("ac").toDouble();
    s.seconds = t.value("seconds").toDouble();
    s.created = t.value("created").toString().toStdString();
    return s;
}

// The document's root object after the format and version checks; `path`
// names where the text came from (a file, or a project's plugin data).
Expected<QJsonObject> parseRoot(std::string_view text, const std::string &path)
{
    auto fail = [&](const std::string &why) {
        return Status::invalid("PCGC cost model '" + path + "' refused: " + why, Location{path});
    };
    QJsonParseError error;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray(text.data(), static_cast<qsizetype>(text.size())), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return fail("not JSON (" + error.errorString().toStdString() + " at byte " + std::to_string(error.offset) +
                    ")");
    const QJsonObject root = doc.object();
    if (root.value("format").toString() != QLatin1String(kFormat))
        return fail("not a PCGC cost model (format '" + root.value("format").toString().toStdString() + "')");
    if (root.value("version").toInt() != kVersion)
        return fail("version " + std::to_string(root.value("version").toInt()) + ", this build reads " +
                    std::to_string(kVersion));
    return root;
}

// The file's root object after the format and version checks.
Expected<QJsonObject> readRoot(const std::string &path)
{
    auto text = readFile(path, std::int64_t(64) << 20);
    if (!text)
        return text.status();
    return parseRoot(*text, path);
}

} // namespace

Expected<ModelReport> readModelReport(const std::string &path)
{
    auto root = readRoot(path);
    if (!root)
        return root.status();
    ModelReport r;
    r.device = root->value("device").toString().toStdString();
    r.time = accuracyFrom(root->value("time").toObject().value("accuracy").toObject());
    r.timePoints = pointsFrom(root->value("time"));
    if (root->contains("power")) {
        r.power = accuracyFrom(root->value("power").toObject().value("accuracy").toObject());
        r.powerPoints = pointsFrom(root->value("power"));
    }
    r.summary = summaryFrom(root->value("training").toObject());
    r.powerNote = root->value("powerNote").toString().toStdString();
    return r;
}

bool hasPowerModel(const Device &device)
{
    if (device.power.staticWatts > 0)
        return true;
    for (const ComputeUnit &u : device.units)
        for (const auto &[dt, pj] : u.energyPerOpPj)
            if (pj > 0)
                return true;
    for (const MemoryLevel &l : device.levels)
        if (l.energyPerBytePj > 0)
            return true;
    return false;
}

std::string deviceFingerprint(const Device &device)
{
    return QCryptographicHash::hash(toJson(device), QCryptographicHash::Sha256).toHex().left(16).toStdString();
}

std::string defaultModelPath(const std::string &deviceId)
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation).toStdString() + "/tessera/pcgc/" +
           deviceId + ".json";
}

AnalyticEstimate analyticEstimate(const CostModel &cost, const Graph &g, const std::vector<NodeId> &nodes,
                                  int deviceCores)
{
    const KernelEstimate k = cost.estimateKernel(g, nodes, {});
    AnalyticEstimate a;
    a.timeNs = k.cost.timeNs;
    a.energyJ = k.cost.energyJ;
    a.launchNs = k.cost.launchNs;
    a.computeNs = k.cost.computeNs;
    a.memoryNs = k.cost.memoryNs;
    a.launches = double(k.launches.size());
    for (const Launch &l : k.launches) {
        a.blocks += double(l.blocks);
        a.coreShare += l.demandCores / double(std::max(1, deviceCores));
        a.memoryBound += l.memoryBound ? 1.0 / double(k.launches.size()) : 0.0;
    }
    return a;
}

LearnedCostModel::LearnedCostModel(const Device &device, TargetModel time, std::optional<TargetModel> power,
                                   TrainingSummary summary, std::string powerNote)
    : m_device(device), m_analytic(device), m_time(std::move(time)), m_power(std::move(power)),
      m_summary(std::move(summary)), m_powerNote(std::move(powerNote))
{}

Expected<AnalyticEstimate> LearnedCostModel::predict(const Graph &g, const std::vector<NodeId> &nodes) const
{
    const AnalyticEstimate a = analyticEstimate(m_analytic, g, nodes, m_device.totalCores());
    const std::vector<std::vector<float>> row{groupFeatures(g, nodes, a)};
    auto t = m_time.regressor.predict(row);
    if (!t)
        return t.status();
    AnalyticEstimate out;
    out.timeNs = a.timeNs * std::exp(double((*t)[0]));
    if (!m_power) {
        out.energyJ = a.energyJ; // no power model: the analytic energy (documented)
        return out;
    }
    auto p = m_power->regressor.predict(row);
    if (!p)
        return p.status();
    out.energyJ = a.powerW() * std::exp(double((*p)[0])) * out.timeNs * 1e-9;
    return out;
}

KernelEstimate LearnedCostModel::estimateKernel(const Graph &g, const std::vector<NodeId> &nodes,
                                                const KernelPlacement &p) const
{
    KernelEstimate est = m_analytic.estimateKernel(g, nodes, p);
    if (p.cores != 0 || p.workFraction != 1.0 || !p.ioLevel.empty() || !p.intermediateLevel.empty())
        return est; // trained on whole kernels with the model's placement only
    auto predicted = predict(g, nodes);
    if (!predicted || !(predicted->timeNs > 0))
        return est; // a prediction that fails keeps the analytic figure
    const double scale = est.cost.timeNs > 0 ? predicted->timeNs / est.cost.timeNs : 1.0;
    est.cost.computeNs *= scale;
    est.cost.memoryNs *= scale;
    est.cost.launchNs *= scale;
    est.cost.timeNs = predicted->timeNs;
    est.cost.energyJ = predicted->energyJ;
    est.cost.kind = CostKind::Estimated;
    return est;
}

Status LearnedCostModel::save(const std::string &path) const
{
    auto json = toJson();
    if (!json)
        return json.status();
    return writeFileAtomic(path, *json);
}

Expected<std::string> LearnedCostModel::toJson() const
{
    auto time = targetJson(m_time);
    if (!time)
        return time.status();
    QJsonObject root{{"format", kFormat},
                     {"version", kVersion},
                     {"device", QString::fromStdString(m_device.id)},
                     {"deviceFingerprint", QString::fromStdString(deviceFingerprint(m_device))},
                     {"features", strings(featureNames())},
                     {"time", *time},
                     {"powerNote", QString::fromStdString(m_powerNote)}};
    if (m_power) {
        auto power = targetJson(*m_power);
        if (!power)
            return power.status();
        root.insert("power", *power);
    }
    const TrainingSummary &s = m_summary;
    root.insert("training", QJsonObject{{"backend", QString::fromStdString(s.backend)},
                                        {"graphs", strings(s.graphs)},
                                        {"ops", s.ops},
                                        {"measured", s.measured},
                                        {"heldBack", s.heldBack},
                                        {"pseudoLabelled", s.pseudoLabelled},
                                        {"rounds", s.rounds},
                                        {"skipped", s.skipped},
                                        {"ac", s.ac},
                                        {"seconds", s.seconds},
                                        {"created", QString::fromStdString(s.created)}});
    return QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString();
}

Expected<std::unique_ptr<LearnedCostModel>> LearnedCostModel::load(const std::string &path, const Device &device)
{
    if (!Regressor::available())
        return Status::error(ErrorCode::Unavailable, Regressor::unavailableReason());
    auto text = readFile(path, std::int64_t(64) << 20);
    if (!text)
        return text.status();
    return fromJson(*text, device, path);
}

Expected<std::unique_ptr<LearnedCostModel>> LearnedCostModel::fromJson(std::string_view json, const Device &device,
                                                                       const std::string &source)
{
    const std::string &path = source;
    auto fail = [&](const std::string &why) {
        return Status::invalid("PCGC cost model '" + path + "' refused: " + why, Location{path});
    };
    if (!Regressor::available())
        return Status::error(ErrorCode::Unavailable, Regressor::unavailableReason());
    auto parsed = parseRoot(json, path);
    if (!parsed)
        return parsed.status();
    const QJsonObject &root = *parsed;
    const std::string id = root.value("device").toString().toStdString();
    if (id != device.id)
        return fail("trained for device '" + id + "', not '" + device.id + "'");
    if (root.value("deviceFingerprint").toString().toStdString() != deviceFingerprint(device))
        return fail("device '" + device.id +
                    "' changed since the model was trained; retrain with tessera-cli "
                    "pcgc-train --device " +
                    device.id);
    std::vector<std::string> names;
    for (const QJsonValue &v : root.value("features").toArray())
        names.push_back(v.toString().toStdString());
    if (names != featureNames())
        return fail("its features differ from this build's");
    auto time = targetFrom(root.value("time"), "time");
    if (!time)
        return fail(time.status().message());
    std::optional<TargetModel> power;
    if (root.contains("power")) {
        auto p = targetFrom(root.value("power"), "power");
        if (!p)
            return fail(p.status().message());
        power = std::move(*p);
    }
    TrainingSummary s = summaryFrom(root.value("training").toObject());
    return std::make_unique<LearnedCostModel>(device, std::move(*time), std::move(power), std::move(s),
                                              root.value("powerNote").toString().toStdString());
}

} // namespace tessera::pcgc
