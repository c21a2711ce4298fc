// ModelLoader (see modelloader.h).
#include "app/gui/modelloader.h"

#include "app/gui/samplecache.h"
#include "core/ir/graphhash.h"
#include "core/onnx/importer.h"
#include "core/plugin/extensions.h"
#include "core/store/replay.h"
#include "core/support/assert.h"
#include "core/support/threadpriority.h"
#include "views/models/format.h"
#include "views/models/workerpool.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

namespace tessera::gui {

struct ModelLoader::Outcome {
    std::shared_ptr<const views::ModelData> model;
    Diagnostic error;
};

Expected<std::shared_ptr<const views::ModelData>> loadModelFile(const QString &path, const LoadOptions &options,
                                                                const StageCallback &stage)
{
    const auto proceed = [&stage](const char *name) { return !stage || stage(QString::fromLatin1(name)); };
    const auto cancelled = [] { return Status::error(ErrorCode::Cancelled, "loading cancelled"); };

    if (!proceed("importing"))
        return cancelled();
    auto imported = options.extensions ? options.extensions->importModel(path.toStdString(), options.import)
                                       : importModel(path.toStdString(), options.import);
    if (!imported) {
        Status s = imported.status();
        s.at(Location{path.toStdString(), -1, {}, {}});
        return s;
    }
    if (!options.expectedHash.empty()) {
        const std::string hash = modelStructureHash(imported->graph);
        if (hash != options.expectedHash)
            return Status::invalid(std::string(kModelChangedMessage) + " (structure hash " + options.expectedHash +
                                       ", now " + hash + ")",
                                   Location{path.toStdString(), -1, {}, {}});
    }
    if (!proceed("analysing"))
        return cancelled();
    ImportResult &r = *imported;
    const auto data = views::makeModelData(std::make_shared<const Graph>(std::move(r.graph)));
    data->diagnostics = r.log.items();
    data->properties = r.metadata.properties;
    data->path = QFileInfo(path).absoluteFilePath().toStdString();

    const ModelMetadata &m = r.metadata;
    if (!m.producerName.empty())
        data->metadata.emplace_back("Producer",
                                    m.producerName + (m.producerVersion.empty() ? "" : " " + m.producerVersion));
    if (m.irVersion > 0)
        data->metadata.emplace_back("IR version", std::to_string(m.irVersion));
    if (!m.domain.empty())
        data->metadata.emplace_back("Domain", m.domain);
    if (m.fileBytes > 0)
        for (auto &row : modelFileSizeRows(data->path, m.fileBytes, *data->graph))
            data->metadata.push_back(std::move(row));
    return std::shared_ptr<const views::ModelData>(std::move(data));
}

std::vector<std::pair<std::string, std::string>> modelFileSizeRows(const std::string &path, std::int64_t modelBytes,
                                                                   const Graph &graph)
{
    const std::vector<std::string> data = externalDataFiles(graph, path);
    std::int64_t dataBytes = 0;
    for (const std::string &name : data) {
        const QFileInfo f(QFileInfo(QString::fromStdString(path)).absoluteDir().filePath(QString::fromStdString(name)));
        dataBytes += f.exists() ? f.size() : 0;
    }
    std::vector<std::pair<std::string, std::string>> rows{
        {"File size", views::formatBytes(modelBytes + dataBytes).toStdString()}};
    if (data.size() == 1)
        rows.emplace_back("External weights", views::formatBytes(dataBytes).toStdString());
    else if (!data.empty())
        rows.emplace_back("External weights", views::formatBytes(dataBytes).toStdString() + " in " +
                                                  std::to_string(data.size()) + " files");
    return rows;
}

ModelLoader::ModelLoader(QObject *parent) : QObject(parent) {}

ModelLoader::~ModelLoader()
{
    abandon();
}

void ModelLoader::load(const QString &path, const LoadOptions &loadOptions)
{
    LoadOptions options = loadOptions;
    if (!options.extensions)
        options.extensions = m_extensions;
    start(path, [path, options](const StageCallback &stage, const std::atomic<bool> *cancel) {
        Outcome out;
        LoadOptions opts = options;
        opts.import.cancel = cancel;
        auto loaded = loadModelFile(path, opts, stage);
        if (loaded)
            out.model = std::move(*loaded);
        else
            out.error = loaded.status().diagnostic();
        return out;
    });
}

void ModelLoader::loadSample(const QString &name, const LoadOptions &options)
{
    TS_ASSERT_MSG(m_extensions, "ModelLoader::loadSample needs the window's extensions");
    LoadOptions opts = options;
    if (!opts.extensions)
        opts.extensions = m_extensions;
    start(QStringLiteral("sample %1").arg(name),
          [name, extensions = m_extensions, opts](const StageCallback &stage, const std::atomic<bool> *cancel) {
              Outcome out;
              if (!stage(QStringLiteral("building sample %1").arg(name))) {
                  out.error = Status::error(ErrorCode::Cancelled, "loading cancelled").diagnostic();
                  return out;
              }
              auto path = materializeSample(*extensions, name, cancel);
              if (!path) {
                  out.error = path.status().diagnostic();
                  return out;
              }
              LoadOptions load = opts;
              load.import.cancel = cancel;
              auto loaded = loadModelFile(*path, load, stage);
              if (loaded)
                  out.model = std::move(*loaded);
              else
                  out.error = loaded.status().diagnostic();
              return out;
          });
}

void ModelLoader::start(const QString &source,
                        std::function<Outcome(const StageCallback &, const std::atomic<bool> *cancel)> job)
{
    if (isLoading()) {
        abandon();
        emit cancelled();
    }
    m_source = source;
    m_watcher = new QFutureWatcher<Outcome>(this);
    connect(m_watcher, &QFutureWatcher<Outcome>::progressTextChanged, this, &ModelLoader::progress);
    connect(m_watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher = m_watcher] {
        m_watcher = nullptr;
        watcher->deleteLater();
        const Outcome out = watcher->result();
        if (out.model)
            emit finished(out.model);
        else if (out.error.code == ErrorCode::Cancelled)
            emit cancelled();
        else
            emit failed(out.error);
    });
    emit started(source);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_watcher->setFuture(
        QtConcurrent::run(views::workerPool(), [job = std::move(job), token = m_cancel](QPromise<Outcome> &promise) {
            useBackgroundPriority();
            int step = 0;
            promise.setProgressRange(0, 3); // building (samples only), importing, analysing
            const StageCallback stage = [&promise, &step](const QString &name) {
                promise.setProgressValueAndText(step++, name);
                return !promise.isCanceled();
            };
            promise.addResult(job(stage, token.get()));
        }));
}

void ModelLoader::cancel()
{
    if (!isLoading())
        return;
    abandon();
    emit cancelled();
}

void ModelLoader::abandon()
{
    if (!m_watcher)
        return;
    m_watcher->disconnect(this);
    m_watcher->cancel(); // the job sees isCanceled() at its next stage
    if (m_cancel)
        *m_cancel = true; // and its token within the builder's layers and the importer's nodes
    m_cancel.reset();
    m_watcher->deleteLater();
    m_watcher = nullptr;
}

} // namespace tessera::gui
