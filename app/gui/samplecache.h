// The sample cache: `tessera --sample NAME` and File ▸ Open Sample build a
// catalog network (samples/catalog.h) and open the built file.
//
// Layout: QStandardPaths::CacheLocation/samples/NAME-KEY/NAME.onnx, weights in
// NAME.onnx.data beside it. KEY names the build of the executable (its size
// and modification time), so a rebuilt workbench never shows a stale sample.
//
// Sharing: several processes (two workbenches, ctest -j) may materialise the
// same sample at once. A version folder appears only whole: each process
// builds into a private temporary folder and rename(2)s it to NAME-KEY; the
// first rename wins, later ones find the folder taken and use the winner's
// copy. A reader therefore sees either no folder or a complete model with its
// weights, never a graph without its .onnx.data.
#pragma once

#include "core/support/status.h"

#include <QString>
#include <QStringList>

#include <atomic>

namespace tessera {
class Extensions;
}

namespace tessera::gui {

QString sampleCacheDir();
bool isCachedSample(const QString &path);
// The sample a path into a sample cache names — this user's or another's, as
// older projects stored it: ".../samples/NAME-KEY/NAME.onnx" (this layout) or
// ".../.cache/.../samples/NAME.onnx" (the first one), with a folder named
// like a cache above "samples" (or this user's cache) — or empty. Matched
// against `known` (registered names) without regard to case; the registered
// spelling is returned.
QString sampleNameOfCachePath(const QString &path, const QStringList &known);

// Builds the sample (one of extensions.samples()) unless this build's copy is
// cached; returns the .onnx path. Unknown names fail with ErrorCode::Usage
// listing the known ones. `cancel` (may be null) reaches the builder
// (SampleOptions::cancel, per layer) and is looked at again before the model
// is written: set, the build stops with ErrorCode::Cancelled and nothing is cached.
Expected<QString> materializeSample(const Extensions &extensions, const QString &name,
                                    const std::atomic<bool> *cancel = nullptr);

} // namespace tessera::gui
