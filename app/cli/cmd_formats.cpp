// tessera-cli formats [--json]: the model and schedule formats plugins add
// (core/plugin/extensions.h), besides ONNX models and schedule documents.
#include "app/cli/command.h"
#include "core/plugin/extensions.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace tessera::cli {

namespace {

std::string joined(const std::vector<std::string> &items, const char *empty)
{
    std::string out;
    for (const std::string &s : items)
        out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? empty : out;
}

QJsonArray jsonList(const std::vector<std::string> &items)
{
    QJsonArray out;
    for (const std::string &s : items)
        out.append(QString::fromStdString(s));
    return out;
}

int run(const Args &args, const Extensions &extensions)
{
    if (args.has("json")) {
        QJsonArray models, schedules;
        for (const ModelFormat &f : extensions.modelFormats())
            models.append(QJsonObject{{"name", QString::fromStdString(f.name)},
                                      {"title", QString::fromStdString(f.title)},
                                      {"suffixes", jsonList(f.suffixes)}});
        for (const ScheduleFormat &f : extensions.scheduleFormats())
            schedules.append(QJsonObject{{"name", QString::fromStdString(f.name)},
                                         {"title", QString::fromStdString(f.title)},
                                         {"summary", QString::fromStdString(f.summary)},
                                         {"suffix", QString::fromStdString(f.suffix)},
                                         {"algorithms", jsonList(f.algorithms)}});
        const QJsonObject doc{{"model_formats", models}, {"schedule_formats", schedules}};
        std::fputs(QJsonDocument(doc).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf("model formats (besides ONNX):\n");
    for (const ModelFormat &f : extensions.modelFormats())
        std::printf("  %-14s %s (%s)\n", f.name.c_str(), f.title.c_str(), joined(f.suffixes, "-").c_str());
    std::printf("schedule formats (besides the schedule document):\n");
    for (const ScheduleFormat &f : extensions.scheduleFormats())
        std::printf("  %-14s %s (*%s; plans of %s)\n", f.name.c_str(), f.summary.c_str(), f.suffix.c_str(),
                    joined(f.algorithms, "any algorithm").c_str());
    return 0;
}

} // namespace

Command formatsCommand()
{
    return {"formats",
            "formats [--json]",
            "list the model and schedule formats plugins add",
            {ArgSpec{"json", false, false, "--json           machine-readable output"}},
            run};
}

} // namespace tessera::cli
