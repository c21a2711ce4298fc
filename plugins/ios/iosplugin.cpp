// The IOS plugin's registration (ios.h): the scheduler, the IOS graph config
// as a model format, the IOS schedule as a schedule format, the
// import-ios / export-ios subcommands, and the four IOS benchmark networks as
// samples.
#include "core/plugin/extensions.h"
#include "core/support/fileio.h"
#include "plugins/ios/ios.h"
#include "plugins/ios/ioscommands.h"
#include "plugins/ios/iosexport.h"
#include "plugins/ios/iosimport.h"
#include "plugins/ios/iosnetworks.h"

namespace tessera {

void registerIosPlugin(Extensions &extensions)
{
    extensions.schedulers().add(createIosScheduler());
    extensions.addModelFormat({"ios-config",
                               "IOS graph config",
                               {".json"},
                               [](const std::string &path, const ImportOptions &options) -> Expected<ImportResult> {
                                   auto text = readFile(path, std::int64_t(256) << 20);
                                   if (!text)
                                       return text.status();
                                   return importIosConfig(*text, path, options.batchSize);
                               }});
    extensions.addScheduleFormat(iosScheduleFormat());
    extensions.addCommand(importIosCommand());
    extensions.addCommand(exportIosCommand());
    for (SampleNetwork &sample : iosSampleNetworks())
        extensions.addSample(std::move(sample));
}

} // namespace tessera
