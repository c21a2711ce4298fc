// The import pipeline of importer.h: S1 (reading the file) lives here, the
// other steps in one file each; this file only runs them in order.
#include "core/onnx/importer.h"

#include "core/onnx/internal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tessera {

namespace {

using namespace onnximport;

ModelMetadata metadataOf(const ::onnx::ModelProto &m, std::string path, std::int64_t fileBytes)
{
    ModelMetadata md{.path = std::move(path),
                     .fileBytes = fileBytes,
                     .producerName = m.producer_name(),
                     .producerVersion = m.producer_version(),
                     .domain = m.domain(),
                     .docString = m.doc_string(),
                     .irVersion = m.ir_version(),
                     .modelVersion = m.model_version()};
    for (const auto &op : m.opset_import())
        md.opsetImports[normalDomain(op.domain())] = op.version();
    for (const auto &p : m.metadata_props())
        md.properties[p.key()] = p.value();
    if (auto it = md.opsetImports.find(""); it != md.opsetImports.end())
        md.opsetVersion = it->second;
    return md;
}

// One warning per distinct op that ends up opaque, at its first node.
void reportOpaque(const Graph &g, const ImportContext &ctx)
{
    std::map<std::string, std::pair<int, std::string>> ops; // "domain:op" -> (count, first node)
    for (const Node &n : g.nodes())
        if (n.opaque) {
            auto &entry = ops[n.domain.empty() ? n.opType : n.domain + ":" + n.opType];
            if (entry.first++ == 0)
                entry.second = n.name;
        }
    // Random draws are refused on purpose (docs/conformance.md, "Decisions").
    auto isRandom = [](const std::string &op) {
        return op == "Bernoulli" || op == "Multinomial" || op.starts_with("RandomNormal") ||
               op.starts_with("RandomUniform");
    };
    for (const auto &[op, entry] : ops)
        ctx.log.warn(
            "op '" + op + "' " +
                (isRandom(op) ? "draws random numbers, which tessera does not generate" : "is not known to tessera") +
                "; " + std::to_string(entry.first) + (entry.first == 1 ? " node" : " nodes") + " imported as opaque",
            ctx.at(entry.second));
}

// "folded 5 constant nodes (3 evaluated): Shape_0, Gather_1, ..." (the first 20 names).
std::string foldNote(const FoldReport &f)
{
    const std::int64_t n = f.stats.foldedNodes;
    std::string s = "folded " + std::to_string(n) + " constant node" + (n == 1 ? "" : "s") + " (" +
                    std::to_string(f.evaluatedNodes) + " evaluated";
    if (f.inferredTensors > 0)
        s += ", " + std::to_string(f.inferredTensors) + " shapes computed";
    s += "):";
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < f.folded.size() && i < kShown; ++i)
        s += (i ? ", " : " ") + f.folded[i];
    if (f.folded.size() > kShown)
        s += ", ... (" + std::to_string(f.folded.size() - kShown) + " more)";
    return s;
}

Expected<ImportResult> run(std::string_view bytes, const std::string &path, fs::path modelDir,
                           const ImportOptions &options, const ConsumedBytes &consumed = {})
{
    ImportResult r;
    const ImportContext ctx{options, path.empty() ? "<memory>" : path, std::move(modelDir), r.log};
    ::onnx::ModelProto model;
    TS_TRY(ctx.cancelled());
    TS_TRY(parseModel(bytes, ctx, model, consumed)); // S2
    TS_TRY(ctx.cancelled());
    r.metadata = metadataOf(model, path, static_cast<std::int64_t>(bytes.size()));
    dropUnusedOptionalOutputs(*model.mutable_graph(), ctx); // S2b
    inlineControlFlow(model, ctx);                          // S2c
    resolveSequences(model, ctx);                           // S2d
    TS_TRY(ctx.cancelled());
    auto g = buildStructure(model, ctx); // S3
    if (!g)
        return g.status();
    TS_TRY(validateProto(model, ctx));                        // S4
    TS_TRY(resolveSymbolicDims(*model.mutable_graph(), ctx)); // S5
    TS_TRY(ctx.cancelled());
    TS_TRY(checkAndInferShapes(model, ctx)); // S6
    TS_TRY(ctx.cancelled());
    std::vector<PendingShape> pending;                   // dims S9 may compute
    TS_TRY(applyTypes(*g, model.graph(), ctx, pending)); // S7
    TS_TRY(attachData(*g, *model.mutable_graph(), ctx)); // S8
    channelwiseLegacyPRelu(*g, ctx);                     // S8b
    model.Clear();
    TS_TRY(ctx.cancelled());
    if (options.foldConstants) { // S9
        FoldOptions fold = options.fold;
        if (!fold.cancel)
            fold.cancel = options.cancel;
        auto folded = foldConstants(*g, fold, pending);
        if (!folded) // a cancel stays ErrorCode::Cancelled
            return folded.status().at(ctx.at());
        r.fold = folded->stats;
        if (r.fold.foldedNodes > 0)
            ctx.log.note(foldNote(*folded), ctx.at());
    } else if (!pending.empty()) {
        const Tensor &t = g->tensor(pending.front().tensor);
        return Status::invalid("tensor " + pending.front().reason +
                                   "; constant folding, which might compute it, is off",
                               ctx.at(g->node(t.producer).name, t.name));
    }
    TS_TRY(ctx.cancelled());
    if (options.checkShapes) // S10
        TS_TRY(checkShapes(*g, ctx));
    TS_TRY(ctx.cancelled());
    reportOpaque(*g, ctx);
    Status verified = g->verify();
    if (!verified)
        return verified.at(ctx.at());
    r.graph = std::move(*g);
    return r;
}

// A read-only mapping of a whole file; the kernel's page cache is the only copy.
// Pages of a prefix the parser is done with leave the process with release().
class MappedFile
{
public:
    ~MappedFile()
    {
        if (m_data)
            ::munmap(m_data, m_size);
    }
    Status open(const std::string &path, std::int64_t maxBytes)
    {
        const Location loc{.file = path};
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return Status::error(ErrorCode::Io, std::string("cannot open model: ") + std::strerror(errno), loc);
        struct stat st {
        };
        Status s;
        if (::fstat(fd, &st) != 0)
            s = Status::error(ErrorCode::Io, std::string("cannot stat model: ") + std::strerror(errno), loc);
        else if (!S_ISREG(st.st_mode))
            s = Status::error(ErrorCode::Io, "not a regular file", loc);
        else if (st.st_size > maxBytes)
            s = Status::invalid("file is " + std::to_string(st.st_size) + " bytes, more than the import limit of " +
                                    std::to_string(maxBytes),
                                loc);
        else if (st.st_size > 0) {
            void *p =
                ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            if (p == MAP_FAILED)
                s = Status::error(ErrorCode::Io, std::string("cannot map model: ") + std::strerror(errno), loc);
            else {
                m_data = p;
                m_size = static_cast<std::size_t>(st.st_size);
                ::madvise(p, m_size, MADV_SEQUENTIAL);
            }
        }
        ::close(fd);
        return s;
    }
    std::string_view bytes() const { return {static_cast<const char *>(m_data), m_size}; }

    // Drops the whole pages of [0, n) from this process's memory (they would be
    // read from the file again if touched; S2 never does).
    void release(std::size_t n)
    {
        static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        const std::size_t end = std::min(n, m_size) / page * page;
        if (end > m_released) {
            ::madvise(static_cast<char *>(m_data) + m_released, end - m_released, MADV_DONTNEED);
            m_released = end;
        }
    }

private:
    void *m_data = nullptr;
    std::size_t m_size = 0;
    std::size_t m_released = 0; // [0, m_released) dropped
};

} // namespace

Expected<ImportResult> importModel(const std::string &path, const ImportOptions &options)
{
    MappedFile file;
    TS_TRY(file.open(path, options.maxFileBytes)); // S1
    std::error_code ec;
    fs::path dir = fs::canonical(path, ec).parent_path();
    if (ec)
        return Status::error(ErrorCode::Io, "cannot resolve the model's folder: " + ec.message(), {.file = path});
    return run(file.bytes(), path, std::move(dir), options, [&file](std::size_t n) { file.release(n); });
}

Expected<ImportResult> importModelFromBytes(std::string_view bytes, std::string virtualPath,
                                            const ImportOptions &options)
{
    fs::path dir;
    if (!virtualPath.empty()) {
        std::error_code ec;
        const fs::path parent = fs::path(virtualPath).parent_path();
        dir = fs::canonical(parent.empty() ? fs::path(".") : parent, ec);
        if (ec)
            dir.clear(); // no folder: external data is refused with a clear message
    }
    return run(bytes, virtualPath, std::move(dir), options);
}

} // namespace tessera
