// The sample cache (see samplecache.h). Builds into a temporary folder beside
// the cache and renames into place, so a crash or a second workbench never
// leaves a half-written model under the final name.
#include "app/gui/samplecache.h"

#include "samples/catalog.h"

#include <onnx/onnx_pb.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace tessera::gui {

QString sampleCacheDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/samples");
}

bool isCachedSample(const QString &path)
{
    return QFileInfo(path).absolutePath() == QDir(sampleCacheDir()).absolutePath();
}

Expected<QString> materializeSample(const QString &name)
{
    const QString dir = sampleCacheDir();
    const QString file = name + QStringLiteral(".onnx");
    const QString path = dir + QLatin1Char('/') + file;
    const QFileInfo cached(path);
    const QFileInfo exe(QCoreApplication::applicationFilePath());
    if (cached.exists() && cached.size() > 0 && (!exe.exists() || cached.lastModified() >= exe.lastModified()))
        return path;

    auto model = samples::buildSample(name.toStdString(), samples::SampleOptions{});
    if (!model)
        return model.status();
    if (!QDir().mkpath(dir))
        return Status::error(ErrorCode::Io, "cannot create the sample cache folder", {dir.toStdString()});
    QTemporaryDir tmp(dir + QStringLiteral("/.build-XXXXXX"));
    if (!tmp.isValid())
        return Status::error(ErrorCode::Io, "cannot create a temporary folder in the sample cache", {dir.toStdString()});
    TS_TRY(samples::saveModel(**model, tmp.filePath(file).toStdString(), /*externalData=*/true));

    // Weights first, then the graph that refers to them.
    const QString data = file + QStringLiteral(".data");
    for (const QString &f : {data, file}) {
        if (!QFileInfo::exists(tmp.filePath(f)))
            continue;
        QFile::remove(dir + QLatin1Char('/') + f);
        if (!QFile::rename(tmp.filePath(f), dir + QLatin1Char('/') + f))
            return Status::error(ErrorCode::Io, "cannot move the built sample into the cache",
                                 {(dir + QLatin1Char('/') + f).toStdString()});
    }
    return path;
}

} // namespace tessera::gui
