// ModelLoader: loads a model off the GUI thread (Hotspot PerfParser style).
//
// load = import (core/onnx) + inferHierarchy + metrics, run on the global
// thread pool; loadSample first builds the sample into the cache. A project's
// model is loaded with the project's import settings and its recorded
// structure hash (LoadOptions): a model whose structure changed fails like a
// corrupt file, before anything on screen is replaced. The loader
// reports started → progress(stage)* → finished(model) | failed(diagnostic),
// or cancelled() at once when cancel() is called (the abandoned job's token
// is set: the sample builder stops at its next layer, the importer at its
// next node or step, and its result is dropped). Starting a new load
// cancels the running one. All signals are emitted on the loader's thread.
#pragma once

#include "core/onnx/importer.h"
#include "core/support/status.h"
#include "views/models/modeldata.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

template <typename T> class QFutureWatcher;

namespace tessera {
class Extensions;
}

namespace tessera::gui {

// The synchronous pipeline behind ModelLoader. `stage` is told each step
// ("importing", "analysing": hierarchy and metrics) and returns false to stop, which
// fails with ErrorCode::Cancelled. Failures carry the file in their location.
using StageCallback = std::function<bool(const QString &stage)>;

struct LoadOptions {
    ImportOptions import;
    // Non-empty: the model's modelStructureHash() must equal it, else the load
    // fails with replay.h's kModelChangedMessage naming both hashes.
    std::string expectedHash;
    // The plugins' model formats (by suffix); null or no match: an ONNX model.
    const Extensions *extensions = nullptr;
};

Expected<std::shared_ptr<const views::ModelData>> loadModelFile(const QString &path, const LoadOptions &options,
                                                                const StageCallback &stage = {});
inline Expected<std::shared_ptr<const views::ModelData>> loadModelFile(const QString &path,
                                                                       const StageCallback &stage = {})
{
    return loadModelFile(path, LoadOptions{}, stage);
}

// Model Summary's rows for the file: "File size" counts the external weights
// too ("6.08 MiB"); a model with external weights adds "External weights"
// ("5.97 MiB", or "5.97 MiB in 3 files").
std::vector<std::pair<std::string, std::string>> modelFileSizeRows(const std::string &path, std::int64_t modelBytes,
                                                                   const Graph &graph);

class ModelLoader final : public QObject
{
    Q_OBJECT
public:
    explicit ModelLoader(QObject *parent = nullptr);
    ~ModelLoader() override;

    void load(const QString &path, const LoadOptions &options = {});
    void loadSample(const QString &name, const LoadOptions &options = {}); // options: as for load()
    void cancel();                                                         // no-op when idle
    // Model formats for every later load whose options name none (MainWindow: its plugins').
    void setExtensions(const Extensions *extensions) { m_extensions = extensions; }
    bool isLoading() const { return m_watcher != nullptr; }
    QString source() const { return m_source; } // path or "sample NAME" of the running load

signals:
    void started(const QString &source);
    void progress(const QString &stage);
    void finished(std::shared_ptr<const tessera::views::ModelData> model);
    void failed(const tessera::Diagnostic &diagnostic);
    void cancelled();

private:
    struct Outcome;
    // `job` gets the load's cancel token, set when the load is abandoned.
    void start(const QString &source,
               std::function<Outcome(const StageCallback &, const std::atomic<bool> *cancel)> job);
    void abandon();

    QFutureWatcher<Outcome> *m_watcher = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel; // the running job's
    QString m_source;
    const Extensions *m_extensions = nullptr;
};

} // namespace tessera::gui
