#include "app/gui/unsavedsession.h"

#include "core/io/schedulejson.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

namespace tessera::gui {

namespace {

constexpr int kFormatVersion = 1;

Status brokenFile(const QString &path, const std::string &why)
{
    const QString aside = path + QStringLiteral(".broken");
    QFile::remove(aside);
    QFile::rename(path, aside);
    return Status::invalid("unsaved session cannot be read (" + why + "); kept as " + aside.toStdString(),
                           {.file = path.toStdString()});
}

} // namespace

QString unsavedSessionPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/unsaved-session.json");
}

Status saveUnsavedSession(const UnsavedSession &session, const QString &path)
{
    QJsonObject options;
    for (const auto &[key, value] : session.options)
        options.insert(QString::fromStdString(key), QString::fromStdString(value));
    const QJsonObject overrides =
        QJsonDocument::fromJson(QByteArray::fromStdString(overridesToJson(session.overrides))).object();
    const QJsonObject o{
        {"format_version", kFormatVersion}, {"sample", session.sample},
        {"model", session.model},           {"algorithm", session.algorithm},
        {"device", session.device},         {"options", options},
        {"overrides", overrides},           {"saved", QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(o).toJson()) < 0 || !file.commit())
        return Status::error(ErrorCode::Io, "cannot write the unsaved session: " + file.errorString().toStdString(),
                             {.file = path.toStdString()});
    return {};
}

Expected<std::optional<UnsavedSession>> loadUnsavedSession(const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return std::optional<UnsavedSession>();
    if (!file.open(QIODevice::ReadOnly))
        return Status::error(ErrorCode::Io, "cannot read the unsaved session", {.file = path.toStdString()});
    const QByteArray bytes = file.read(1 << 20);
    file.close();
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return brokenFile(path, "not a JSON object");
    const QJsonObject o = doc.object();
    if (o["format_version"].toInt() != kFormatVersion)
        return brokenFile(path, "format_version " + std::to_string(o["format_version"].toInt()) + ", expected " +
                                    std::to_string(kFormatVersion));
    UnsavedSession s;
    s.sample = o["sample"].toString();
    s.model = o["model"].toString();
    s.algorithm = o["algorithm"].toString();
    s.device = o["device"].toString();
    s.saved = o["saved"].toString();
    if ((s.sample.isEmpty() && s.model.isEmpty()) || s.algorithm.isEmpty() || s.device.isEmpty())
        return brokenFile(path, "no model or scheduler setup");
    const QJsonObject options = o["options"].toObject();
    for (auto it = options.begin(); it != options.end(); ++it)
        s.options[it.key().toStdString()] = it.value().toString().toStdString();
    auto overrides =
        overridesFromJson(QJsonDocument(o["overrides"].toObject()).toJson().toStdString(), path.toStdString());
    if (!overrides)
        return brokenFile(path, overrides.status().message());
    s.overrides = std::move(*overrides);
    return std::optional<UnsavedSession>(std::move(s));
}

void discardUnsavedSession(const QString &path)
{
    QFile::remove(path);
}

} // namespace tessera::gui
