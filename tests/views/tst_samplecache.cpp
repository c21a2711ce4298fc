// The sample cache shared by processes: eight processes materialise the same
// sample at once, twenty times, from a cold cache and from a cache holding
// another build's copy, and every one of them opens a complete model (graph
// and external weights). Before the cache published whole version folders, a
// process could see the new .onnx while the .onnx.data was being replaced.
//
// The test binary is its own worker: `tst_samplecache --materialize NAME`
// materialises NAME in $XDG_CACHE_HOME, imports it with every weight read, and
// prints the path.
#include "app/gui/samplecache.h"
#include "core/onnx/importer.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cstdio>
#include <ctime>
#include <gtest/gtest.h>
#include <memory>
#include <utime.h>
#include <vector>

#include "tests/common/isolatedhome.h"
#include "tests/common/testsamples.h"

using namespace tessera;

namespace {

int materializeAndOpen(const QString &name)
{
    auto path = gui::materializeSample(test::registeredExtensions(), name);
    if (!path) {
        std::fprintf(stderr, "%s\n", path.status().diagnostic().str().c_str());
        return 3;
    }
    ImportOptions options;
    options.loadExternalData = true; // a missing or short .onnx.data fails here
    auto model = importModel(path->toStdString(), options);
    if (!model) {
        std::fprintf(stderr, "%s\n", model.status().diagnostic().str().c_str());
        return 4;
    }
    if (!gui::isCachedSample(*path)) {
        std::fprintf(stderr, "not recognised as a cached sample: %s\n", qPrintable(*path));
        return 6;
    }
    if (model->graph.nodeCount() == 0) {
        std::fprintf(stderr, "empty graph at %s\n", qPrintable(*path));
        return 5;
    }
    std::printf("%s\n", qPrintable(*path));
    return 0;
}

// Starts `n` workers on one cache folder at once; returns their exit codes and outputs.
std::vector<std::pair<int, QString>> raceWorkers(const QString &cacheHome, const QString &sample, int n)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CACHE_HOME"), cacheHome);
    std::vector<std::unique_ptr<QProcess>> workers;
    for (int i = 0; i < n; ++i) {
        auto p = std::make_unique<QProcess>();
        p->setProcessEnvironment(env);
        p->setProgram(QCoreApplication::applicationFilePath());
        p->setArguments({QStringLiteral("--materialize"), sample});
        workers.push_back(std::move(p));
    }
    for (auto &p : workers)
        p->start();
    std::vector<std::pair<int, QString>> results;
    for (auto &p : workers) {
        const bool done = p->waitForFinished(120'000);
        const QString out = QString::fromLocal8Bit(p->readAllStandardOutput() + p->readAllStandardError()).trimmed();
        results.emplace_back(done && p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1, out);
    }
    return results;
}

QStringList versionFolders(const QString &cacheHome)
{
    // XDG_CACHE_HOME/<organisation>/<application>/samples/<name>-<key>
    QStringList found;
    const QString root = cacheHome;
    QDir dir(root);
    for (const QFileInfo &org : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot))
        for (const QFileInfo &app : QDir(org.absoluteFilePath()).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot))
            for (const QFileInfo &v : QDir(app.absoluteFilePath() + QStringLiteral("/samples"))
                                          .entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden))
                found << v.fileName();
    return found;
}

TEST(SampleCache, EightProcessesMaterialiseOneSampleTwentyTimes)
{
    constexpr int kRounds = 20;
    constexpr int kWorkers = 8;
    for (int round = 0; round < kRounds; ++round) {
        QTemporaryDir cache;
        ASSERT_TRUE(cache.isValid());
        if (round % 2 == 1) {
            // Another build's copy, old enough to be removed by the winner.
            const auto first = raceWorkers(cache.path(), QStringLiteral("squeezenet"), 1);
            ASSERT_EQ(first[0].first, 0) << qPrintable(first[0].second);
            const QString current = QFileInfo(QFileInfo(first[0].second).absolutePath()).absoluteFilePath();
            const QString old = QFileInfo(current).absolutePath() + QStringLiteral("/squeezenet-oldbuild");
            ASSERT_TRUE(QDir().rename(current, old));
            const std::time_t longAgo = std::time(nullptr) - 2 * 24 * 3600;
            const struct utimbuf times {
                longAgo, longAgo
            };
            ASSERT_EQ(::utime(QFile::encodeName(old).constData(), &times), 0);
        }
        const auto results = raceWorkers(cache.path(), QStringLiteral("squeezenet"), kWorkers);
        QString path;
        for (const auto &[code, out] : results) {
            ASSERT_EQ(code, 0) << "round " << round << ": " << qPrintable(out);
            if (path.isEmpty())
                path = out;
            EXPECT_EQ(out, path) << "round " << round << ": every process opens the same copy";
        }
        // One version folder is left: no temporary build folders, no other build's copy.
        EXPECT_EQ(versionFolders(cache.path()), QStringList{QFileInfo(QFileInfo(path).absolutePath()).fileName()})
            << "round " << round;
    }
}

TEST(SampleCache, WarmCacheIsReusedNotRebuilt)
{
    QTemporaryDir cache;
    const auto first = raceWorkers(cache.path(), QStringLiteral("squeezenet"), 1);
    ASSERT_EQ(first[0].first, 0) << qPrintable(first[0].second);
    const QFileInfo before(first[0].second);
    const auto second = raceWorkers(cache.path(), QStringLiteral("squeezenet"), 1);
    ASSERT_EQ(second[0].first, 0) << qPrintable(second[0].second);
    EXPECT_EQ(second[0].second, first[0].second);
    EXPECT_EQ(QFileInfo(second[0].second).lastModified(), before.lastModified());
}

TEST(SampleCache, UnknownSampleIsAUsageErrorAndLeavesNoFolder)
{
    QTemporaryDir cache;
    const auto results = raceWorkers(cache.path(), QStringLiteral("resnet51"), 1);
    EXPECT_EQ(results[0].first, 3);
    EXPECT_TRUE(results[0].second.contains(QStringLiteral("resnet50"))) << qPrintable(results[0].second);
    EXPECT_TRUE(versionFolders(cache.path()).isEmpty());
}

TEST(SampleCache, CachedSamplesAreRecognisedByTheirFolder)
{
    const QString dir = gui::sampleCacheDir();
    EXPECT_TRUE(gui::isCachedSample(dir + QStringLiteral("/squeezenet-abc/squeezenet.onnx")));
    EXPECT_FALSE(gui::isCachedSample(dir + QStringLiteral("/squeezenet.onnx")));
    EXPECT_FALSE(gui::isCachedSample(QDir::tempPath() + QStringLiteral("/squeezenet-abc/squeezenet.onnx")));
}

} // namespace

int main(int argc, char **argv)
{
    const bool worker = argc == 3 && QByteArray(argv[1]) == "--materialize";
    std::unique_ptr<test::IsolatedHome> home;
    if (!worker)
        home = std::make_unique<test::IsolatedHome>();
    QCoreApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("TesseraTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_samplecache"));
    if (worker)
        return materializeAndOpen(QString::fromLocal8Bit(argv[2]));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
