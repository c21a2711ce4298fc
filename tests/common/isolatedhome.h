// Gives a test process folders of its own: HOME and the XDG cache, config and
// data folders point into one temporary folder, removed at exit. ctest runs
// test processes in parallel (and gtest_discover_tests runs each test case as
// its own process), so anything a test writes under the user's folders --
// sample cache, settings, autosaves, plugins -- must not be shared by accident.
// Call before the QCoreApplication is created.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtGlobal>

#include <cstdio>
#include <cstdlib>

namespace tessera::test {

class IsolatedHome
{
public:
    IsolatedHome()
    {
        if (!m_dir.isValid()) {
            std::fprintf(stderr, "cannot create a temporary home folder\n");
            std::abort();
        }
        const QByteArray root = QFile::encodeName(m_dir.path());
        qputenv("HOME", root);
        qputenv("XDG_CACHE_HOME", root + "/.cache");
        qputenv("XDG_CONFIG_HOME", root + "/.config");
        qputenv("XDG_DATA_HOME", root + "/.local/share");
        qputenv("XDG_STATE_HOME", root + "/.local/state");
    }
    QString path() const { return m_dir.path(); }

private:
    QTemporaryDir m_dir{QDir::tempPath() + QStringLiteral("/tessera-home-XXXXXX")};
};

} // namespace tessera::test
