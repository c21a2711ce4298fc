// The sample cache (see samplecache.h): one folder per sample and build,
// published with one rename(2).
#include "app/gui/samplecache.h"

#include "core/onnx/modelbuilder.h"
#include "core/plugin/extensions.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cerrno>
#include <cstdio>
#include <onnx/onnx_pb.h> // buildSample()'s ModelProto

namespace tessera::gui {
namespace {

// Version folders of other builds are removed once they are a day old. Weights
// are read on demand (ImportOptions::loadExternalData), so a workbench of an
// older build may still need its copy for a while after a rebuild.
constexpr qint64 kStaleAfterSecs = 24 * 3600;

// The build of the running executable: size and modification time.
QString buildKey()
{
    const QFileInfo exe(QCoreApplication::applicationFilePath());
    if (!exe.exists())
        return QStringLiteral("0");
    return QStringLiteral("%1%2").arg(exe.size(), 0, 36).arg(exe.lastModified().toMSecsSinceEpoch(), 0, 36);
}

void removeStaleVersions(const QDir &cache, const QString &name, const QString &current)
{
    const QDateTime cutoff = QDateTime::currentDateTimeUtc().addSecs(-kStaleAfterSecs);
    const auto folders = cache.entryInfoList({name + QStringLiteral("-*")}, QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QFileInfo &f : folders)
        if (f.fileName() != current && f.lastModified() < cutoff)
            QDir(f.absoluteFilePath()).removeRecursively();
}

} // namespace

QString sampleCacheDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/samples");
}

bool isCachedSample(const QString &path)
{
    const QDir versionDir = QFileInfo(path).absoluteDir();
    return QFileInfo(versionDir.absolutePath()).absolutePath() == QDir(sampleCacheDir()).absolutePath();
}

QString sampleNameOfCachePath(const QString &path, const QStringList &known)
{
    const QStringList parts = QDir::cleanPath(QDir::fromNativeSeparators(path)).split(QLatin1Char('/'));
    if (parts.size() < 3 || !parts.last().endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive))
        return {};
    const QString base = parts.last().chopped(5);
    const QString &parent = parts[parts.size() - 2];
    const QString &grandparent = parts[parts.size() - 3];
    const bool versioned =
        grandparent == QLatin1String("samples") && parent.startsWith(base + QLatin1Char('-'), Qt::CaseInsensitive);
    const bool flat = parent == QLatin1String("samples");
    // A user's own ".../samples/x/x.onnx" is no cache: a folder above "samples" must be one.
    const qsizetype samples = parts.size() - (versioned ? 3 : 2);
    bool inCache = isCachedSample(path);
    for (qsizetype i = 0; i < samples && !inCache; ++i)
        inCache = parts[i].contains(QStringLiteral("cache"), Qt::CaseInsensitive);
    if ((!versioned && !flat) || !inCache)
        return {};
    for (const QString &name : known)
        if (name.compare(base, Qt::CaseInsensitive) == 0)
            return name;
    return {};
}

Expected<QString> materializeSample(const Extensions &extensions, const QString &name, const std::atomic<bool> *cancel)
{
    const QString cacheDir = sampleCacheDir();
    const QString version = name + QLatin1Char('-') + buildKey();
    const QString finalDir = cacheDir + QLatin1Char('/') + version;
    const QString file = name + QStringLiteral(".onnx");
    const QString path = finalDir + QLatin1Char('/') + file;
    if (QFileInfo::exists(path))
        return path; // a version folder exists only whole (see the header)

    SampleOptions options;
    options.cancel = cancel;
    auto model = extensions.buildSample(name.toStdString(), options);
    if (!model)
        return model.status();
    if (cancel && cancel->load(std::memory_order_relaxed))
        return Status::error(ErrorCode::Cancelled, "building the sample was cancelled");
    if (!QDir().mkpath(cacheDir))
        return Status::error(ErrorCode::Io, "cannot create the sample cache folder", {cacheDir.toStdString()});
    QTemporaryDir tmp(cacheDir + QStringLiteral("/.build-XXXXXX"));
    if (!tmp.isValid())
        return Status::error(ErrorCode::Io, "cannot create a temporary folder in the sample cache",
                             {cacheDir.toStdString()});
    TS_TRY(saveModel(**model, tmp.filePath(file).toStdString(), /*externalData=*/true));

    // Publish the whole folder at once. rename(2) of a directory onto an
    // existing non-empty one fails (EEXIST/ENOTEMPTY): another process won the
    // race and its complete copy is used; ours is discarded with `tmp`.
    const QByteArray from = QFile::encodeName(tmp.path());
    const QByteArray to = QFile::encodeName(finalDir);
    if (std::rename(from.constData(), to.constData()) == 0) {
        tmp.setAutoRemove(false);
        removeStaleVersions(QDir(cacheDir), name, version);
    } else if (!QFileInfo::exists(path)) {
        return Status::error(ErrorCode::Io, "cannot move the built sample into the cache", {finalDir.toStdString()});
    }
    return path;
}

} // namespace tessera::gui
