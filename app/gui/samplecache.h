// The sample cache: `tessera --sample NAME` and File ▸ Open Sample build a
// catalog network (samples/catalog.h) into
// QStandardPaths::CacheLocation/samples/NAME.onnx (weights in NAME.onnx.data)
// and open that file. A cached file is reused until the executable is newer
// than it, so a rebuilt workbench never shows a stale sample.
#pragma once

#include "core/support/status.h"

#include <QString>

namespace tessera::gui {

QString sampleCacheDir();
bool isCachedSample(const QString &path);

// Builds the sample unless a fresh copy is cached; returns the .onnx path.
// Unknown names fail with ErrorCode::Usage listing the known ones.
Expected<QString> materializeSample(const QString &name);

} // namespace tessera::gui
