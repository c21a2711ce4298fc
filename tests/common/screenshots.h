// Where widget tests save the screenshots people look at:
// <build>/screenshots/<name> (the folder is created on first use).
// Header-only; needs TESSERA_BINARY_DIR defined by the test's CMake target.
#pragma once

#include <QDir>
#include <QString>

namespace tessera::testshots {

inline QString screenshotPath(const QString &name)
{
    const QString dir = QStringLiteral(TESSERA_BINARY_DIR "/screenshots");
    QDir().mkpath(dir);
    return dir + QLatin1Char('/') + name;
}

} // namespace tessera::testshots
