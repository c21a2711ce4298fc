// tessera: the workbench. Parses the command line (commandline.h), opens the
// requested model (or the default one) and, for --screenshot and
// --quit-after-load, exits once loading is done with 0 or the error's exit code.
// --help and --version print and exit without a display: they are answered by
// a QCoreApplication, before any QApplication would connect to an X server.
#include "app/gui/commandline.h"
#include "app/gui/mainwindow.h"
#include "app/gui/stallwatchdog.h"
#include "app/registerbuiltins.h"
#include "core/sched/scheduler.h"

#include <QApplication>
#include <QTimer>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace {

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Tessera"));
    QCoreApplication::setApplicationName(QStringLiteral("Tessera"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TESSERA_VERSION));
}

bool asksOnlyForText(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i)
        for (const char *flag : {"--help", "-h", "--help-all", "--version", "-v"})
            if (std::strcmp(argv[i], flag) == 0)
                return true;
    return false;
}

// Parses the command line; prints help, version or the usage error. Returns
// the exit code when the program should stop now.
std::optional<int> handleCommandLine(tessera::Expected<tessera::gui::CommandLine> &cl)
{
    // The samples the plugins contribute (problems of loadable plugins are the window's to show).
    tessera::SchedulerRegistry schedulers;
    tessera::Extensions extensions(schedulers);
    std::vector<tessera::Diagnostic> ignored;
    tessera::registerBuiltins(extensions, &ignored);
    QStringList sampleNames;
    for (const tessera::SampleNetwork &s : extensions.samples())
        sampleNames << QString::fromStdString(s.info.name);
    cl = tessera::gui::parseCommandLine(QCoreApplication::arguments(), sampleNames);
    if (!cl) {
        std::fprintf(stderr, "tessera: %s\n", cl.status().str().c_str());
        return tessera::exitCodeFor(cl.status().code());
    }
    if (!cl->exitText.isEmpty()) {
        std::fputs(qPrintable(cl->exitText), stdout);
        return 0;
    }
    return std::nullopt;
}

} // namespace

int main(int argc, char **argv)
{
    tessera::Expected<tessera::gui::CommandLine> cl = tessera::gui::CommandLine{};
    if (asksOnlyForText(argc, argv)) {
        const QCoreApplication core(argc, argv);
        setApplicationNames();
        return handleCommandLine(cl).value_or(0);
    }

    QApplication app(argc, argv);
    setApplicationNames();
    if (const auto code = handleCommandLine(cl))
        return *code;

    tessera::gui::MainWindow window;
    const bool batch = cl->quitAfterLoad || !cl->screenshot.isEmpty();
    if (batch) {
        // Errors go to stderr (MainWindow prints them when not interactive). A
        // failed load is reported twice (loadFailed, then errorReported): the
        // first exit code wins.
        window.setInteractive(false);
        const auto exitOnce = [done = std::make_shared<bool>(false)](int code) {
            if (!std::exchange(*done, true))
                QApplication::exit(code);
        };
        QObject::connect(&window, &tessera::gui::MainWindow::loadFailed, &app,
                         [exitOnce](const tessera::Diagnostic &d) { exitOnce(tessera::exitCodeFor(d.code)); });
        // Deferred: a refused project reports errorReported first and then
        // loadFailed with the error's kind, which decides the exit code.
        QObject::connect(&window, &tessera::gui::MainWindow::errorReported, &app,
                         [exitOnce] { QTimer::singleShot(0, [exitOnce] { exitOnce(1); }); });
    }
    if (!cl->screenshot.isEmpty()) {
        window.setScreenshotOnLoad(cl->screenshot);
        QObject::connect(&window, &tessera::gui::MainWindow::screenshotSaved, &app, [](const QString &path) {
            std::fprintf(stderr, "tessera: wrote %s\n", qPrintable(path));
            QApplication::exit(0);
        });
    } else if (cl->quitAfterLoad) {
        QObject::connect(&window, &tessera::gui::MainWindow::modelLoaded, &app, [] { QApplication::exit(0); });
    }
    tessera::gui::StallWatchdog watchdog;
    if (cl->watchStalls) {
        QObject::connect(&watchdog, &tessera::gui::StallWatchdog::stalled, [](const tessera::gui::Stall &s) {
            std::fprintf(stderr, "tessera: the interface stalled %s\n", qPrintable(tessera::gui::describeStall(s)));
        });
        watchdog.start();
    }
    window.show();

    // Once the event loop runs: a file that fails at once must be able to exit it.
    QTimer::singleShot(0, &window, [&window, &cl] {
        if (!cl->project.isEmpty())
            window.openProject(cl->project);
        else if (!cl->model.isEmpty())
            window.openFile(cl->model);
        else if (!cl->sample.isEmpty())
            window.openSample(cl->sample);
        else if (!window.offerUnsavedSession())
            window.openDefault();
    });
    return app.exec();
}
