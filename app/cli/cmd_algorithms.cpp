// tessera-cli algorithms [--json]: the registered schedulers and their options.
#include "app/cli/command.h"
#include "core/plugin/extensions.h"
#include "core/sched/scheduler.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace tessera::cli {

namespace {

int run(const Args &args, const Extensions &extensions)
{
    const SchedulerRegistry &reg = extensions.schedulers();
    if (args.has("json")) {
        QJsonArray list;
        for (const IScheduler *s : reg.all()) {
            const SchedulerInfo &i = s->info();
            QJsonArray options;
            for (const tessera::OptionSpec &o : i.options)
                options.append(QJsonObject{{"key", QString::fromStdString(o.key)},
                                           {"default", QString::fromStdString(optionValueStr(o.defaultValue))},
                                           {"help", QString::fromStdString(o.help)}});
            list.append(QJsonObject{{"name", QString::fromStdString(i.name)},
                                    {"title", QString::fromStdString(i.title)},
                                    {"summary", QString::fromStdString(i.summary)},
                                    {"paper", QString::fromStdString(i.paper)},
                                    {"options", options}});
        }
        std::fputs(QJsonDocument(list).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    for (const IScheduler *s : reg.all()) {
        const SchedulerInfo &i = s->info();
        std::printf("%-14s %s\n               %s\n", i.name.c_str(), i.summary.c_str(), i.paper.c_str());
        for (const tessera::OptionSpec &o : i.options)
            std::printf("               --option %s=%s  %s\n", o.key.c_str(), optionValueStr(o.defaultValue).c_str(),
                        o.help.c_str());
    }
    return 0;
}

} // namespace

Command algorithmsCommand()
{
    return {"algorithms",
            "algorithms [--json]",
            "list the scheduling algorithms and their options",
            {ArgSpec{"json", false, false, "--json           machine-readable output"}},
            run};
}

} // namespace tessera::cli
