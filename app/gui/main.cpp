// tessera: the workbench. Parses the command line (commandline.h), opens the
// requested model (or the default one) and, for --screenshot and
// --quit-after-load, exits once loading is done with 0 or the error's exit code.
#include "app/gui/commandline.h"
#include "app/gui/mainwindow.h"

#include <QApplication>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <utility>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Tessera"));
    QApplication::setApplicationName(QStringLiteral("Tessera"));
    QApplication::setApplicationVersion(QStringLiteral(TESSERA_VERSION));

    const auto cl = tessera::gui::parseCommandLine(QApplication::arguments());
    if (!cl) {
        std::fprintf(stderr, "tessera: %s\n", cl.status().str().c_str());
        return tessera::exitCodeFor(cl.status().code());
    }
    if (!cl->exitText.isEmpty()) {
        std::fputs(qPrintable(cl->exitText), stdout);
        return 0;
    }

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
        QObject::connect(&window, &tessera::gui::MainWindow::errorReported, &app, [exitOnce] { exitOnce(1); });
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
    window.show();

    // Once the event loop runs: a file that fails at once must be able to exit it.
    QTimer::singleShot(0, &window, [&window, &cl] {
        if (!cl->project.isEmpty())
            window.openProject(cl->project);
        else if (!cl->model.isEmpty())
            window.openFile(cl->model);
        else if (!cl->sample.isEmpty())
            window.openSample(cl->sample);
        else
            window.openDefault();
    });
    return app.exec();
}
