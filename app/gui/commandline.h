// The workbench's command line:
//   tessera [MODEL.onnx] [--sample NAME] [--project FILE.tessera] [--screenshot FILE.png] [--quit-after-load]
//           [--watch-stalls]
// MODEL, --sample and --project exclude each other; with none, the window
// opens the most recent file, or the ResNet-50 sample when there is none.
#pragma once

#include "core/support/status.h"

#include <QString>
#include <QStringList>

namespace tessera::gui {

struct CommandLine {
    QString model;      // positional MODEL.onnx
    QString sample;     // --sample NAME (one of `sampleNames`, in its registered spelling)
    QString project;    // --project FILE.tessera
    QString screenshot; // --screenshot FILE.png: save the window after layout, then exit
    bool quitAfterLoad = false;
    bool watchStalls = false; // --watch-stalls: print GUI stalls over 50 ms on stderr (stallwatchdog.h)
    QString exitText;         // --help / --version: print this and exit 0
};

// `arguments` as QCoreApplication::arguments() (the program first);
// `sampleNames` the registered samples (Extensions::samples()). Errors are
// ErrorCode::Usage with a one-line message.
Expected<CommandLine> parseCommandLine(const QStringList &arguments, const QStringList &sampleNames);

} // namespace tessera::gui
