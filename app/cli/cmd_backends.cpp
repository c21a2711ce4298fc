// tessera-cli backends [--json]: the registered backends (registerBuiltinBackends)
// with their capabilities and availability.
#include "app/cli/command.h"
#include "app/registerbuiltins.h"
#include "core/backend/backend.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace tessera::cli {

namespace {

std::string capabilityText(const BackendCapabilities &c)
{
    std::string out;
    for (const auto &[on, name] :
         {std::pair{c.functional, "functional"}, {c.timing, "timing"}, {c.measured, "measured"}})
        if (on)
            out += (out.empty() ? "" : ",") + std::string(name);
    std::string kinds;
    for (const std::string &k : c.deviceKinds)
        kinds += (kinds.empty() ? "" : ",") + k;
    return (out.empty() ? std::string("-") : out) + "  devices " + kinds;
}

int run(const Args &args, const Extensions &)
{
    if (!args.positional().empty())
        return fail(usageError("backends takes no positional arguments"));
    BackendRegistry backends;
    registerBuiltinBackends(backends);
    if (args.has("json")) {
        QJsonArray list;
        for (const IBackend *b : backends.all()) {
            const BackendInfo &info = b->info();
            QJsonArray kinds;
            for (const std::string &k : info.capabilities.deviceKinds)
                kinds.append(QString::fromStdString(k));
            QJsonObject o{
                {"name", QString::fromStdString(info.name)},       {"title", QString::fromStdString(info.title)},
                {"summary", QString::fromStdString(info.summary)}, {"available", info.available},
                {"functional", info.capabilities.functional},      {"timing", info.capabilities.timing},
                {"measured", info.capabilities.measured},          {"device_kinds", kinds}};
            if (!info.available)
                o["unavailable_reason"] = QString::fromStdString(info.unavailableReason);
            list.append(o);
        }
        std::fputs(QJsonDocument(list).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    for (const IBackend *b : backends.all()) {
        const BackendInfo &info = b->info();
        std::printf("%-12s %-40s %s\n", info.name.c_str(), capabilityText(info.capabilities).c_str(),
                    info.available ? info.summary.c_str() : ("unavailable: " + info.unavailableReason).c_str());
    }
    return 0;
}

} // namespace

Command backendsCommand()
{
    return {"backends",
            "backends [--json]",
            "list the backends, their capabilities and availability",
            {{"json", false, false, "--json           machine-readable output"}},
            &run};
}

} // namespace tessera::cli
