// The main() of a GoogleTest binary that drives widgets: a home folder of its
// own (IsolatedHome), the offscreen platform unless QT_QPA_PLATFORM says
// otherwise, a settings folder of this process only (ctest runs tests in
// parallel) and QStandardPaths' test mode. Usage:
//     int main(int argc, char **argv) { return tessera::test::runWidgetTests(argc, argv, "tst_x"); }
#pragma once

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include "tests/common/isolatedhome.h"

namespace tessera::test {

inline int runWidgetTests(int argc, char **argv, const char *name)
{
    const IsolatedHome home; // before the application: it reads the folders once
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TesseraTest"));
    QApplication::setApplicationName(QString::fromUtf8(name));
    QTemporaryDir settingsDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QStandardPaths::setTestModeEnabled(true);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

} // namespace tessera::test
