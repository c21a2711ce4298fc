// The test plugin's contributions show up (docs/plugins.md): its CLI
// subcommand runs, its schedule format is listed and writes, and the workbench
// creates its dock and enables its action when a testalgo plan is shown — and
// none of them exists in the production set (tessera, tessera-cli).
#include "app/gui/mainwindow.h"
#include "app/gui/schedulecontroller.h"
#include "core/plugin/extensions.h"
#include "core/support/fileio.h"
#include "views/widgets/graphview.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QListWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>

#include "registeralltestplugins.h"
#include "registeralltestpluginviews.h"
#include "tests/common/widgettestmain.h"
#include "tests/plugins/testalgo/testalgo.h"
#include "tests/views/smallmodel.h"

using namespace tessera;
using tessera::gui::MainWindow;

namespace {

constexpr int kTimeoutMs = 60000;

struct Result {
    int code = -1;
    std::string out, err;
};

// Runs `cli args` with stdout and stderr captured in files of `dir`.
Result runCli(const std::string &cli, const std::string &args, const QString &dir)
{
    const std::string out = (dir + "/stdout").toStdString(), err = (dir + "/stderr").toStdString();
    const int status = std::system((cli + " " + args + " >" + out + " 2>" + err).c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = readFile(out).isOk() ? *readFile(out) : std::string();
    r.err = readFile(err).isOk() ? *readFile(err) : std::string();
    return r;
}

std::size_t lines(const std::string &text)
{
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class TestPlugin : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        m_model = m_dir.filePath(QStringLiteral("small.onnx"));
        testmodels::writeSmallModel(m_model);
    }

    static bool load(MainWindow &w, const QString &path)
    {
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        w.openFile(path);
        return QTest::qWaitFor([&] { return loaded.count() == 1; }, kTimeoutMs);
    }

    static bool scheduledWith(MainWindow &w, const QString &algorithm)
    {
        const int i = w.algorithmCombo()->findData(algorithm);
        if (i < 0)
            return false;
        w.algorithmCombo()->setCurrentIndex(i);
        return QTest::qWaitFor(
            [&] {
                auto *c = w.scheduleController();
                return c->lastRun() && !c->isBusy() && c->lastRun()->result.plan.algorithm == algorithm.toStdString();
            },
            kTimeoutMs);
    }

    QTemporaryDir m_dir;
    QString m_model;
};

TEST_F(TestPlugin, CliSubcommandRunsAndItsFormatIsListed)
{
    const std::string cli = TEST_CLI;
    const Result help = runCli(cli, "help", m_dir.path());
    ASSERT_EQ(help.code, 0) << help.err;
    EXPECT_NE(help.out.find("testalgo-order MODEL --out FILE"), std::string::npos) << help.out;
    const Result formats = runCli(cli, "formats", m_dir.path());
    ASSERT_EQ(formats.code, 0) << formats.err;
    EXPECT_NE(formats.out.find("testalgo-order"), std::string::npos) << formats.out;
    EXPECT_NE(formats.out.find("ios"), std::string::npos) << "the built-in plugins stay: " << formats.out;

    const QString order = m_dir.filePath(QStringLiteral("small.order.txt"));
    const Result ran =
        runCli(cli, "testalgo-order " + m_model.toStdString() + " --out " + order.toStdString(), m_dir.path());
    ASSERT_EQ(ran.code, 0) << ran.err;
    auto text = readFile(order.toStdString());
    ASSERT_TRUE(text.isOk()) << text.status().str();
    EXPECT_EQ(text->substr(0, 2), "0 ");
    EXPECT_GT(lines(*text), 10u) << "one line per operator of the small resnet";
    EXPECT_NE(ran.out.find("kernels        " + std::to_string(lines(*text))), std::string::npos) << ran.out;

    // Negative twins: a usage error of the plugin's command; the command is
    // not in the production tessera-cli.
    EXPECT_EQ(runCli(cli, "testalgo-order " + m_model.toStdString(), m_dir.path()).code, 2);
    const Result production =
        runCli(std::string(TESSERA_BINARY_DIR) + "/app/tessera-cli", "testalgo-order x --out y", m_dir.path());
    EXPECT_EQ(production.code, 2);
    EXPECT_NE(production.err.find("unknown command 'testalgo-order'"), std::string::npos) << production.err;
}

TEST_F(TestPlugin, FormatIsRegisteredForItsAlgorithmOnly)
{
    SchedulerRegistry schedulers;
    Extensions extensions(schedulers);
    registerAllTestPlugins(extensions);
    EXPECT_NE(schedulers.find("testalgo"), nullptr);
    EXPECT_NE(schedulers.find("ios"), nullptr) << "the built-in plugins are registered too";
    const ScheduleFormat *format = extensions.findScheduleFormat("testalgo-order");
    ASSERT_NE(format, nullptr);
    EXPECT_TRUE(format->accepts("testalgo"));
    EXPECT_FALSE(format->accepts("sequential"));
    EXPECT_NE(format->checkAlgorithm("sequential").message().find("not testalgo"), std::string::npos);
    EXPECT_FALSE(extensions.scheduleFormat("no-such-format").isOk());
}

TEST_F(TestPlugin, WorkbenchShowsTheDockActionAndFormatWithItsPlan)
{
    MainWindow w(nullptr, {&registerAllTestPlugins, &registerAllTestPluginViews});
    w.setInteractive(false);
    ASSERT_TRUE(load(w, m_model));
    ASSERT_TRUE(scheduledWith(w, QStringLiteral("sequential")));
    EXPECT_EQ(w.pluginDock(QStringLiteral("testalgoDock")), nullptr) << "not before a testalgo plan is shown";
    QAction *count = w.pluginAction(QStringLiteral("testalgoCountAction"));
    QAction *exportOrder = w.exportFormatAction(QStringLiteral("testalgo-order"));
    ASSERT_NE(count, nullptr);
    ASSERT_NE(exportOrder, nullptr) << "listed in File > Export";
    EXPECT_FALSE(count->isEnabled());
    EXPECT_FALSE(exportOrder->isEnabled());
    const QString refused = m_dir.filePath(QStringLiteral("refused.txt"));
    const Status s = w.exportSchedule(QStringLiteral("testalgo-order"), refused);
    EXPECT_NE(s.message().find("not testalgo"), std::string::npos) << s.str();
    EXPECT_FALSE(QFile::exists(refused));

    ASSERT_TRUE(scheduledWith(w, QStringLiteral("testalgo")));
    const auto run = w.scheduleController()->lastRun();
    QDockWidget *dock = w.pluginDock(QStringLiteral("testalgoDock"));
    ASSERT_NE(dock, nullptr) << "created when its plan is shown";
    EXPECT_FALSE(dock->isHidden());
    EXPECT_EQ(dock->windowTitle(), QStringLiteral("Kernel Order"));
    auto *list = qobject_cast<QListWidget *>(dock->widget());
    ASSERT_NE(list, nullptr);
    EXPECT_EQ(list->count(), int(run->result.plan.kernels.size()));
    EXPECT_TRUE(count->isEnabled());
    count->trigger();
    EXPECT_EQ(w.statusTip(), QStringLiteral("%1 kernels").arg(run->result.plan.kernels.size()));
    EXPECT_TRUE(exportOrder->isEnabled());
    const QString written = m_dir.filePath(QStringLiteral("small_testalgo.order.txt"));
    ASSERT_TRUE(w.exportSchedule(QStringLiteral("testalgo-order"), written).isOk());
    EXPECT_EQ(*readFile(written.toStdString()), testalgoOrder(run->result.plan));

    // Another algorithm's plan: the dock hides, the action and the format are off.
    ASSERT_TRUE(scheduledWith(w, QStringLiteral("sequential")));
    EXPECT_TRUE(dock->isHidden());
    EXPECT_EQ(w.pluginDock(QStringLiteral("testalgoDock")), dock) << "created once";
    EXPECT_FALSE(count->isEnabled());
    EXPECT_FALSE(exportOrder->isEnabled());
}

TEST_F(TestPlugin, TheProductionWorkbenchHasNoneOfIt)
{
    MainWindow w;
    w.setInteractive(false);
    EXPECT_LT(w.algorithmCombo()->findData(QStringLiteral("testalgo")), 0);
    EXPECT_GE(w.algorithmCombo()->findData(QStringLiteral("ios")), 0);
    EXPECT_EQ(w.exportFormatAction(QStringLiteral("testalgo-order")), nullptr);
    EXPECT_NE(w.exportFormatAction(QStringLiteral("ios")), nullptr);
    EXPECT_EQ(w.pluginAction(QStringLiteral("testalgoCountAction")), nullptr);
}

} // namespace

int main(int argc, char **argv)
{
    return tessera::test::runWidgetTests(argc, argv, "tst_testalgo");
}
