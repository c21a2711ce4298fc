// tessera-cli devices [--json] [--dir DIR]: the device presets.
#include "app/cli/command.h"
#include "core/hw/devicejson.h"
#include "core/hw/deviceregistry.h"
#include "core/plugin/extensions.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace tessera::cli {

namespace {

int run(const Args &args, const Extensions &extensions)
{
    if (!args.positional().empty())
        return fail(usageError("devices takes no positional arguments"));
    DeviceRegistry reg = DeviceRegistry::standard();
    if (auto dir = args.value("dir"))
        reg.loadFolder(QString::fromStdString(*dir));
    for (const Diagnostic &d : reg.diagnostics())
        std::fprintf(stderr, "tessera-cli: %s\n", d.str().c_str());

    if (args.has("json")) {
        QJsonArray list;
        for (const Device &d : reg.devices()) {
            QJsonObject o = QJsonDocument::fromJson(toJson(d)).object();
            o["origin"] = QString::fromStdString(reg.origin(d.id));
            list.append(o);
        }
        std::fputs(QJsonDocument(list).toJson(QJsonDocument::Indented).constData(), stdout);
    } else {
        for (const Device &d : reg.devices()) {
            const std::string origin = reg.origin(d.id);
            std::printf("%-14s %-8s %s\n", d.id.c_str(),
                        origin == "builtin" || origin == "host" ? origin.c_str() : "user", deviceSummary(d).c_str());
        }
    }
    // A broken user file is bad input even though the others listed fine.
    for (const Diagnostic &d : reg.diagnostics())
        if (d.severity == Severity::Error)
            return 3;
    return 0;
}

} // namespace

Command devicesCommand()
{
    return {"devices",
            "devices [--json] [--dir DIR]",
            "list the device presets, the host CPU and user device files",
            {{"json", false, false, "--json           machine-readable output"},
             {"dir", true, false, "--dir DIR        also load device files from DIR"}},
            run};
}

} // namespace tessera::cli
