// The workbench's command line (see commandline.h).
#include "app/gui/commandline.h"

#include "core/support/names.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace tessera::gui {

namespace {
Status usage(const QString &message)
{
    return Status::error(ErrorCode::Usage, message.toStdString());
}
} // namespace

Expected<CommandLine> parseCommandLine(const QStringList &arguments, const QStringList &sampleNames)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Tessera: a workbench for scheduling DNN graphs onto accelerators."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const QCommandLineOption sample(
        QStringLiteral("sample"),
        QStringLiteral("Open a sample network: %1.").arg(sampleNames.join(QStringLiteral(", "))),
        QStringLiteral("NAME"));
    const QCommandLineOption project(QStringLiteral("project"),
                                     QStringLiteral("Open a project (a *.tessera file) and restore its session."),
                                     QStringLiteral("FILE.tessera"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a picture of the window once the graph is laid out, then exit."),
        QStringLiteral("FILE.png"));
    const QCommandLineOption quit(
        QStringLiteral("quit-after-load"),
        QStringLiteral("Exit once the model is loaded (status 0, or the error's exit code)."));
    const QCommandLineOption watchStalls(
        QStringLiteral("watch-stalls"),
        QStringLiteral("Print every stall of the user interface over 50 ms, with what was running, on stderr."));
    parser.addOptions({sample, project, screenshot, quit, watchStalls});
    parser.addPositionalArgument(QStringLiteral("MODEL.onnx"), QStringLiteral("The model to open."),
                                 QStringLiteral("[MODEL.onnx]"));

    if (!parser.parse(arguments))
        return usage(parser.errorText().toLower());
    CommandLine cl;
    if (parser.isSet(help)) {
        cl.exitText = parser.helpText() +
                      QStringLiteral("\nExit codes: 0 ok, 2 usage, 3 a model or project that cannot be opened "
                                     "(the window runs nothing from its command line, so never 4).\n");
        return cl;
    }
    if (parser.isSet(version)) {
        cl.exitText =
            QStringLiteral("%1 %2\n").arg(QCoreApplication::applicationName(), QCoreApplication::applicationVersion());
        return cl;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1)
        return usage(QStringLiteral("expected at most one model, got %1").arg(positional.size()));
    cl.model = positional.value(0);
    cl.sample = parser.value(sample);
    cl.project = parser.value(project);
    cl.screenshot = parser.value(screenshot);
    cl.quitAfterLoad = parser.isSet(quit);
    cl.watchStalls = parser.isSet(watchStalls);
    if (!cl.model.isEmpty() && !cl.sample.isEmpty())
        return usage(QStringLiteral("give either a model or --sample, not both"));
    if (!cl.project.isEmpty() && (!cl.model.isEmpty() || !cl.sample.isEmpty()))
        return usage(QStringLiteral("--project opens its own model; give no model or --sample with it"));
    if (!cl.sample.isEmpty()) {
        // Names match without regard to case; the catalog's spelling is kept.
        QString known;
        for (const QString &name : sampleNames)
            if (sameName(name.toStdString(), cl.sample.toStdString()))
                known = name;
        if (known.isEmpty())
            return usage(QStringLiteral("unknown sample '%1'; known: %2")
                             .arg(cl.sample, sampleNames.join(QStringLiteral(", "))));
        cl.sample = known;
    }
    return cl;
}

} // namespace tessera::gui
