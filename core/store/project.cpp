// Project: opening (checks before any write), creation (temporary file +
// rename), and one short transaction per write. See project.h.
//
// Open runs in stages; a failing stage returns before anything is written:
//   S1 file      exists, regular, starts with the SQLite header
//   S2 connect   read-only if asked or the file or its folder cannot be
//                written (immutable when not even the WAL index can be made)
//   S3 validate  application id, schema version (newer → refused), tables,
//                PRAGMA quick_check
//   S4 configure WAL, synchronous=FULL, foreign keys
//   S5 migrate   an older schema: in the file, or in memory when read-only
#include "core/store/project.h"

#include "core/ir/precision.h"
#include "core/store/schema.h"
#include "core/store/sqlite.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera {

namespace fs = std::filesystem;
using store::Db;
using store::Stmt;

namespace {

#define TS_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

Location at(const std::string &path)
{
    return {.file = path};
}

// ProjectSetup's cost source: estimated (no meter) or measured (any meter
// name; the backend is looked up by whoever schedules).
Status checkCost(const std::string &cost, const std::string &meter)
{
    if (cost == kCostMeasured)
        return Status::ok();
    if (cost != kCostEstimated)
        return Status::invalid("unknown cost source '" + cost + "' (expected " + std::string(kCostEstimated) + " or " +
                               std::string(kCostMeasured) + ")");
    if (!meter.empty())
        return Status::invalid("estimated costs with a meter ('" + meter + "'): only measured costs have one");
    return Status::ok();
}

// S1: look at the bytes ourselves before SQLite opens anything.
Status checkFile(const std::string &path)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st))
        return Status::error(ErrorCode::Io, "no such project file", at(path));
    if (!fs::is_regular_file(st))
        return Status::invalid("not a tessera project (not a regular file)", at(path));
    std::ifstream in(path, std::ios_base::binary);
    if (!in)
        return Status::error(ErrorCode::Io, std::string("cannot read project file: ") + std::strerror(errno), at(path));
    std::array<char, 16> header{};
    in.read(header.data(), header.size());
    if (in.gcount() == 0)
        return Status::invalid("not a tessera project (empty file)", at(path));
    if (in.gcount() < 16 || std::memcmp(header.data(), "SQLite format 3", 16) != 0)
        return Status::invalid("not a tessera project (not an SQLite database)", at(path));
    return Status::ok();
}

// WAL needs the file and, for its -wal/-shm files, the folder.
bool canWrite(const fs::path &file)
{
    return ::access(file.c_str(), W_OK) == 0 && ::access(file.parent_path().c_str(), W_OK) == 0;
}

std::string fileUri(const fs::path &file, std::string_view query)
{
    std::string uri = "file:";
    for (const char c : file.string()) {
        if (c == '%' || c == '?' || c == '#' || static_cast<unsigned char>(c) < 0x20) {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
            uri += hex;
        } else {
            uri += c;
        }
    }
    return uri + "?" + std::string(query);
}

void syncFolder(const fs::path &folder)
{
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// A file about to be replaced may have a -wal beside it, left by a writer that
// was killed before it checkpointed. SQLite pairs a -wal with whatever database
// file has its name, so renaming a new file over the old one would replay the
// old project's pages into the new one ("mispairing database files and hot
// journals", sqlite.org/howtocorrupt.html). The -wal is folded into the old
// file first, so a crash before the rename still leaves the old project
// complete; a -wal beside a file that is no database is removed.
Status retireWal(const fs::path &target, const std::string &name, int busyTimeoutMs)
{
    std::error_code ec;
    const std::string wal = target.string() + "-wal", shm = target.string() + "-shm";
    if (!fs::exists(wal, ec) && !fs::exists(shm, ec))
        return Status::ok();
    if (fs::is_regular_file(target, ec)) {
        auto db = Db::open(target.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, name, busyTimeoutMs);
        if (db) {
            auto busy = db->queryInt("PRAGMA wal_checkpoint(TRUNCATE)");
            if (busy && *busy != 0)
                return Status::error(ErrorCode::Io, "project is locked by another Tessera", at(name));
            if (!busy && busy.status().code() != ErrorCode::InvalidInput)
                return busy.status(); // locked or unreadable: leave the old project alone
            TS_TRY(db->close());
        }
    }
    fs::remove(wal, ec);
    fs::remove(shm, ec);
    return Status::ok();
}

// FNV-1a 64 over the model file's bytes, then each data file's name and
// bytes, as 16 hex digits: what ModelRef::contentHash records.
Expected<std::string> contentHashOf(const fs::path &model, const std::vector<std::string> &dataFiles)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    const auto mix = [&h](const char *p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            h ^= static_cast<unsigned char>(p[i]);
            h *= 0x100000001b3ULL;
        }
    };
    std::vector<char> buffer(1 << 20);
    std::vector<fs::path> files{model};
    for (const std::string &name : dataFiles)
        files.push_back(model.parent_path() / name);
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (i > 0)
            mix(dataFiles[i - 1].data(), dataFiles[i - 1].size() + 1); // with its NUL: names cannot run together
        std::ifstream in(files[i], std::ios_base::binary);
        if (!in)
            return Status::error(ErrorCode::Io, std::string("cannot read model: ") + std::strerror(errno),
                                 at(files[i].string()));
        while (in) {
            in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
            mix(buffer.data(), static_cast<std::size_t>(in.gcount()));
        }
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return std::string(hex);
}

Expected<std::string> readWhole(const fs::path &file)
{
    std::ifstream in(file, std::ios_base::binary);
    if (!in)
        return Status::error(ErrorCode::Io, std::string("cannot read model: ") + std::strerror(errno),
                             at(file.string()));
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        return Status::error(ErrorCode::Io, "cannot read model", at(file.string()));
    return bytes;
}

std::string joinLines(const std::vector<std::string> &items)
{
    std::string out;
    for (const std::string &item : items)
        out += (out.empty() ? "" : "\n") + item;
    return out;
}

std::vector<std::string> splitLines(const std::string &text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        if (end > start)
            out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

// Tables each schema version must have (a file with our id but missing tables
// was damaged or hand-edited).
struct RequiredTable {
    int since;
    const char *name;
};
constexpr RequiredTable kTables[] = {
    {1, "project"},     {1, "import_options"}, {1, "scheduler_options"}, {1, "override_steps"}, {1, "override_items"},
    {1, "plans"},       {1, "runs"},           {1, "schema_history"},    {2, "session_state"},  {2, "run_metrics"},
    {3, "model_files"},
};

} // namespace

struct Project::Impl {
    mutable std::recursive_mutex mutex;
    Db db;
    std::string path;
    fs::path folder; // absolute folder of the project file
    bool readOnly = false;
    int version = 0;
    int txnDepth = 0;
    std::vector<Diagnostic> notes;

    void note(std::string message) { notes.push_back({Severity::Note, ErrorCode::Ok, std::move(message), at(path)}); }

    Status usable() const { return db ? Status::ok() : Status::error(ErrorCode::Usage, "project is closed", at(path)); }

    // One IMMEDIATE transaction, or a savepoint inside transaction(). The lock
    // is taken up front so a concurrent writer makes us wait (busy timeout)
    // instead of failing half-way.
    template <typename F> Status write(std::string_view what, F &&body)
    {
        TS_TRY(usable());
        if (readOnly)
            return Status::error(ErrorCode::Io, "project is read-only (" + std::string(what) + " refused)", at(path));
        const bool outer = txnDepth == 0;
        TS_TRY(db.exec(outer ? "BEGIN IMMEDIATE" : "SAVEPOINT w", what));
        ++txnDepth;
        Status s = body();
        --txnDepth;
        if (s.isOk()) {
            s = db.exec(outer ? "COMMIT" : "RELEASE w", what);
            if (s.isOk())
                return s;
        }
        (void)db.exec(outer ? "ROLLBACK" : "ROLLBACK TO w; RELEASE w");
        return s;
    }

    // A writable file gets a read-write connection even in read-only mode
    // (writes are refused here and by PRAGMA query_only): only then does
    // closing remove the -wal and -shm files SQLite makes while reading.
    Status connect(bool writable, const OpenOptions &options)
    {
        const int flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
        auto opened = Db::open(path, flags, path, options.busyTimeoutMs);
        if (!opened)
            return opened.status();
        db = std::move(*opened);
        // The first read finds out whether SQLite can use the file at all.
        int rc = sqlite3_exec(db.get(), "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
        if (!writable && ((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY)) {
            // A WAL file in a folder we cannot write: no WAL index can be made,
            // so read it as immutable (the file was checkpointed on close).
            auto immutable =
                Db::open(fileUri(fs::absolute(path), "immutable=1"),
                         SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, path, options.busyTimeoutMs);
            if (!immutable)
                return immutable.status();
            db = std::move(*immutable);
            note("the project's folder is read-only; reading the file as it was last closed");
            rc = sqlite3_exec(db.get(), "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
        }
        return rc == SQLITE_OK ? Status::ok() : db.error(rc, "reading the project");
    }

    Status validate()
    {
        auto appId = db.queryInt("PRAGMA application_id");
        auto ver = db.queryInt("PRAGMA user_version");
        auto tables = db.queryInt("SELECT count(*) FROM sqlite_master");
        for (const Status &s : {appId.status(), ver.status(), tables.status()})
            TS_TRY(s);
        if (*appId != store::kApplicationId)
            return Status::invalid(*appId == 0 && *ver == 0 && *tables == 0
                                       ? "not a tessera project (an empty SQLite database)"
                                       : "not a tessera project (an SQLite database of another application)",
                                   at(path));
        if (*ver > store::kSchemaVersion)
            return Status::invalid("project was saved by a newer Tessera (schema v" + std::to_string(*ver) +
                                       "; this build reads up to v" + std::to_string(store::kSchemaVersion) + ")",
                                   at(path));
        if (*ver < 1)
            return Status::invalid("not a tessera project (it has no schema version)", at(path));
        version = static_cast<int>(*ver);

        auto check = db.queryText("PRAGMA quick_check(1)");
        if (!check)
            return check.status();
        if (*check != "ok") { // "*** in database main ***\nPage 2: ..." → its first finding
            std::string first = check->substr(check->rfind('\n') + 1);
            return Status::invalid("project file is corrupt (" + first + ")", at(path));
        }
        auto find = Stmt::prepare(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1");
        if (!find)
            return find.status();
        for (const RequiredTable &t : kTables) {
            if (t.since > version)
                continue;
            find->reset();
            auto row = find->bind(1, std::string_view(t.name)).step();
            if (!row)
                return row.status();
            if (find->int64(0) != 1)
                return Status::invalid(std::string("project file is incomplete (no table '") + t.name + "')", at(path));
        }
        auto rows = db.queryInt("SELECT count(*) FROM project");
        if (!rows)
            return rows.status();
        if (*rows != 1)
            return Status::invalid("project file is incomplete (no project record)", at(path));
        return Status::ok();
    }

    Status configure()
    {
        if (!readOnly) {
            auto mode = db.queryText("PRAGMA journal_mode = WAL");
            if (!mode)
                return mode.status();
            if (*mode != "wal")
                note("the file system does not support WAL; saving with a rollback journal");
            TS_TRY(db.exec("PRAGMA synchronous = FULL"));
        }
        return db.exec("PRAGMA foreign_keys = ON");
    }

    Status upgrade(const OpenOptions &options)
    {
        if (version == store::kSchemaVersion)
            return Status::ok();
        const std::string what = "schema v" + std::to_string(version) + " to v" + std::to_string(store::kSchemaVersion);
        if (!readOnly) {
            TS_TRY(store::migrate(db, version, store::kSchemaVersion));
            note("upgraded the project from " + what);
        } else {
            // Migrate a copy in memory; the read-only file keeps its version.
            auto mem = Db::open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, path, options.busyTimeoutMs);
            if (!mem)
                return mem.status();
            sqlite3_backup *copy = sqlite3_backup_init(mem->get(), "main", db.get(), "main");
            if (!copy)
                return mem->error(sqlite3_errcode(mem->get()), "reading the project");
            const int stepRc = sqlite3_backup_step(copy, -1);
            const int rc = sqlite3_backup_finish(copy);
            if (stepRc != SQLITE_DONE)
                return db.error(stepRc, "reading the project");
            if (rc != SQLITE_OK)
                return mem->error(rc, "reading the project");
            TS_TRY(store::migrate(*mem, version, store::kSchemaVersion));
            TS_TRY(mem->exec("PRAGMA foreign_keys = ON"));
            db = std::move(*mem);
            note("upgraded " + what + " in memory only (the file is read-only)");
        }
        version = store::kSchemaVersion;
        return Status::ok();
    }

    Expected<std::int64_t> cursor() { return db.queryInt("SELECT override_cursor FROM project WHERE id = 1"); }

    Expected<Overrides> overridesAt(std::int64_t step)
    {
        auto q = Stmt::prepare(db, "SELECT key, option FROM override_items WHERE step = ?1");
        if (!q)
            return q.status();
        q->bind(1, step);
        Overrides out;
        TS_TRY(q->each([&](const Stmt &r) { out.emplace(r.text(0), r.text(1)); }));
        return out;
    }

    // Moves the cursor to the nearest step before (-1) or after (+1) it.
    Expected<Overrides> moveCursor(int direction)
    {
        const char *what = direction < 0 ? "undoing overrides" : "redoing overrides";
        Overrides result;
        Status s = write(what, [&]() -> Status {
            auto cur = cursor();
            if (!cur)
                return cur.status();
            auto next = Stmt::prepare(db, direction < 0 ? "SELECT max(step) FROM override_steps WHERE step < ?1"
                                                        : "SELECT min(step) FROM override_steps WHERE step > ?1");
            if (!next)
                return next.status();
            auto row = next->bind(1, *cur).step();
            if (!row)
                return row.status();
            if (next->isNull(0))
                return Status::error(ErrorCode::Usage, direction < 0 ? "nothing to undo" : "nothing to redo", at(path));
            const std::int64_t step = next->int64(0);
            auto set = Stmt::prepare(db, "UPDATE project SET override_cursor = ?1 WHERE id = 1");
            if (!set)
                return set.status();
            TS_TRY(set->bind(1, step).run());
            auto items = overridesAt(step);
            if (!items)
                return items.status();
            result = std::move(*items);
            return Status::ok();
        });
        if (!s.isOk())
            return s;
        return result;
    }

    template <typename T, typename F> Expected<T> query(F &&body) const
    {
        std::lock_guard lock(mutex);
        TS_TRY(usable());
        return body();
    }
};

Project::Project(std::unique_ptr<Impl> impl) : m_d(std::move(impl)) {}
Project::Project(Project &&) noexcept = default;
Project &Project::operator=(Project &&) noexcept = default;
Project::~Project()
{
    if (m_d)
        (void)close();
}

Expected<Project> Project::open(const std::string &path, OpenMode mode, const OpenOptions &options)
{
    TS_TRY(checkFile(path));
    auto d = std::make_unique<Impl>();
    d->path = path;
    const fs::path absolute = fs::absolute(path).lexically_normal();
    d->folder = absolute.parent_path();
    d->readOnly = mode == OpenMode::ReadOnly;
    const bool writable = canWrite(absolute);
    if (!d->readOnly && !writable) {
        d->readOnly = true;
        d->note("the project file or its folder is read-only; changes will not be saved");
    }
    TS_TRY(d->connect(writable, options));
    TS_TRY(d->validate());
    TS_TRY(d->configure());
    TS_TRY(d->upgrade(options));
    if (d->readOnly)
        TS_TRY(d->db.exec("PRAGMA query_only = ON"));
    return Project(std::move(d));
}

Expected<Project> Project::create(const std::string &path, const ProjectInfo &info, bool overwrite,
                                  const OpenOptions &options)
{
    std::error_code ec;
    if (!overwrite && fs::exists(path, ec))
        return Status::error(ErrorCode::Usage, "project file already exists", at(path));
    const fs::path target = fs::absolute(path).lexically_normal();
    const fs::path temp = target.string() + ".creating-" + std::to_string(::getpid());
    auto cleanup = [&] {
        for (const char *suffix : {"", "-wal", "-shm", "-journal"})
            fs::remove(temp.string() + suffix, ec);
    };
    cleanup();

    Status s = [&]() -> Status {
        auto db = Db::open(temp.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, path,
                           options.busyTimeoutMs);
        if (!db)
            return db.status();
        TS_TRY(db->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON"));
        TS_TRY(store::migrate(*db, 0, store::kSchemaVersion));
        auto d = std::make_unique<Impl>();
        d->db = std::move(*db);
        d->path = path;
        d->folder = target.parent_path();
        d->version = store::kSchemaVersion;
        Project project(std::move(d));
        TS_TRY(project.transaction([&]() -> Status {
            TS_TRY(project.m_d->db.exec("INSERT INTO project(id, model_relative, model_absolute, model_hash, "
                                        "model_bytes, model_mtime_ns, algorithm, device, created) "
                                        "VALUES (1, '', '', '', 0, 0, '', '', " TS_NOW ")"));
            TS_TRY(project.setModel(info.model));
            TS_TRY(project.setSetup(info.setup));
            return project.setOverrides(info.overrides, "created");
        }));
        return project.close(); // checkpoints: the temporary file is complete on its own
    }();
    if (s.isOk() && overwrite)
        s = retireWal(target, path, options.busyTimeoutMs);
    if (s.isOk()) {
        fs::rename(temp, target, ec);
        if (ec)
            s = Status::error(ErrorCode::Io, "cannot create project: " + ec.message(), at(path));
        else
            syncFolder(target.parent_path());
    }
    if (!s.isOk()) {
        cleanup();
        return s;
    }
    return open(path, OpenMode::ReadWrite, options);
}

const std::string &Project::path() const
{
    return m_d->path;
}

bool Project::readOnly() const
{
    return m_d->readOnly;
}

int Project::schemaVersion() const
{
    return m_d->version;
}

int Project::currentSchemaVersion()
{
    return store::kSchemaVersion;
}

const std::vector<Diagnostic> &Project::notes() const
{
    return m_d->notes;
}

Status Project::setModel(const ModelRef &model)
{
    const bool isSample = !model.sample.empty();
    struct stat st = {};
    std::string relative, absoluteText, contentHash;
    std::vector<std::pair<std::string, std::string>> files; // embedded: name, bytes (the model first)
    if (!isSample) {
        if (::stat(model.path.c_str(), &st) != 0)
            return Status::error(ErrorCode::Io, std::string("cannot read model: ") + std::strerror(errno),
                                 at(model.path));
        const fs::path absolute = fs::absolute(model.path).lexically_normal();
        absoluteText = absolute.string();
        relative = absolute.lexically_relative(m_d->folder).string();
        auto hash = contentHashOf(absolute, model.dataFiles);
        if (!hash)
            return hash.status();
        contentHash = *hash;
        if (model.embed) {
            std::vector<fs::path> paths{absolute};
            for (const std::string &name : model.dataFiles)
                paths.push_back(absolute.parent_path() / name);
            for (std::size_t i = 0; i < paths.size(); ++i) {
                auto bytes = readWhole(paths[i]);
                if (!bytes)
                    return bytes.status();
                if (bytes->size() >= (std::size_t(1) << 30))
                    return Status::invalid("cannot embed a file of 1 GiB or more in the project; keep the model "
                                           "beside it instead",
                                           at(paths[i].string()));
                files.emplace_back(i == 0 ? absolute.filename().string() : model.dataFiles[i - 1], std::move(*bytes));
            }
        }
    }
    std::lock_guard lock(m_d->mutex);
    return m_d->write("saving the model reference", [&]() -> Status {
        auto set = Stmt::prepare(m_d->db, "UPDATE project SET model_relative = ?1, model_absolute = ?2, "
                                          "model_hash = ?3, model_bytes = ?4, model_mtime_ns = ?5, "
                                          "model_sample = ?6, model_sample_version = ?7, model_content_hash = ?8, "
                                          "model_data_files = ?9 WHERE id = 1");
        if (!set)
            return set.status();
        const std::int64_t mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
        TS_TRY(set->bind(1, relative)
                   .bind(2, absoluteText)
                   .bind(3, model.structureHash)
                   .bind(4, std::int64_t(st.st_size))
                   .bind(5, mtimeNs)
                   .bind(6, model.sample)
                   .bind(7, isSample ? model.sampleVersion : std::int64_t(0))
                   .bind(8, contentHash)
                   .bind(9, isSample ? std::string() : joinLines(model.dataFiles))
                   .run());
        TS_TRY(m_d->db.exec("DELETE FROM model_files"));
        auto file = Stmt::prepare(m_d->db, "INSERT INTO model_files(name, is_model, content) VALUES (?1, ?2, ?3)");
        if (!file)
            return file.status();
        for (std::size_t i = 0; i < files.size(); ++i) {
            file->reset();
            TS_TRY(
                file->bind(1, files[i].first).bind(2, std::int64_t(i == 0 ? 1 : 0)).bindBlob(3, files[i].second).run());
        }
        TS_TRY(m_d->db.exec("DELETE FROM import_options"));
        auto add = Stmt::prepare(m_d->db, "INSERT INTO import_options(key, value) VALUES (?1, ?2)");
        if (!add)
            return add.status();
        std::map<std::string, std::int64_t> values{{"batch", model.batch}, {"seq_len", model.seqLen}};
        for (const auto &[name, value] : model.dims)
            values["dim:" + name] = value;
        for (const auto &[key, value] : values) {
            add->reset();
            TS_TRY(add->bind(1, key).bind(2, value).run());
        }
        return Status::ok();
    });
}

Expected<ModelRef> Project::model() const
{
    return m_d->query<ModelRef>([&]() -> Expected<ModelRef> {
        auto q = Stmt::prepare(m_d->db, "SELECT model_relative, model_absolute, model_hash, model_bytes, "
                                        "model_mtime_ns, model_sample, model_sample_version, model_content_hash, "
                                        "model_data_files, (SELECT count(*) FROM model_files) "
                                        "FROM project WHERE id = 1");
        if (!q)
            return q.status();
        auto row = q->step();
        if (!row)
            return row.status();
        ModelRef m;
        m.relativePath = q->text(0);
        m.absolutePath = q->text(1);
        m.structureHash = q->text(2);
        m.fileBytes = q->int64(3);
        m.mtimeNs = q->int64(4);
        m.sample = q->text(5);
        m.sampleVersion = q->int64(6);
        m.contentHash = q->text(7);
        m.dataFiles = splitLines(q->text(8));
        m.embed = q->int64(9) > 0;
        std::error_code ec;
        const fs::path relative = (m_d->folder / m.relativePath).lexically_normal();
        if (m.sample.empty())
            m.path = !m.relativePath.empty() && fs::exists(relative, ec) ? relative.string() : m.absolutePath;

        auto opts = Stmt::prepare(m_d->db, "SELECT key, value FROM import_options");
        if (!opts)
            return opts.status();
        TS_TRY(opts->each([&](const Stmt &r) {
            const std::string key = r.text(0);
            if (key == "batch")
                m.batch = r.int64(1);
            else if (key == "seq_len")
                m.seqLen = r.int64(1);
            else if (key.starts_with("dim:"))
                m.dims[key.substr(4)] = r.int64(1);
        }));
        return m;
    });
}

Expected<std::string> Project::modelPath() const
{
    auto m = model();
    if (!m)
        return m.status();
    if (!m->sample.empty())
        return Status::error(ErrorCode::Usage,
                             "the model is the sample '" + m->sample + "' (version " +
                                 std::to_string(m->sampleVersion) + "): build it rather than look for a file",
                             at(m_d->path));
    std::error_code ec;
    if (fs::exists(m->path, ec))
        return m->path;
    return Status::invalid("model not found (looked for '" +
                               (m_d->folder / m->relativePath).lexically_normal().string() + "' and '" +
                               m->absolutePath + "')",
                           at(m_d->path));
}

Status Project::checkModelContent(const std::string &path) const
{
    auto m = model();
    if (!m)
        return m.status();
    if (m->contentHash.empty())
        return Status::ok();
    auto now = contentHashOf(fs::path(path), m->dataFiles);
    if (!now)
        return now.status();
    if (*now != m->contentHash)
        return Status::invalid("model file changed since the project was saved (content hash " + m->contentHash +
                                   ", now " + *now + ")",
                               at(path));
    return Status::ok();
}

Expected<std::string> Project::extractModel(const std::string &folder) const
{
    std::vector<std::pair<std::string, std::string>> files; // the model first
    Status read = m_d->query<bool>([&]() -> Expected<bool> {
                         auto q = Stmt::prepare(m_d->db, "SELECT name, content FROM model_files ORDER BY is_model "
                                                         "DESC, name");
                         if (!q)
                             return q.status();
                         TS_TRY(q->each([&](const Stmt &r) { files.emplace_back(r.text(0), r.blob(1)); }));
                         return true;
                     })
                      .status();
    TS_TRY(read);
    if (files.empty())
        return Status::error(ErrorCode::Usage, "the project does not embed its model", at(m_d->path));
    std::error_code ec;
    const fs::path dir(folder);
    for (const auto &[name, bytes] : files) {
        const fs::path target = (dir / name).lexically_normal();
        if (fs::path(name).is_absolute() || name.find("..") != std::string::npos)
            return Status::invalid("embedded file name '" + name + "' leaves the folder", at(m_d->path));
        fs::create_directories(target.parent_path(), ec);
        const fs::path temp = target.string() + ".part-" + std::to_string(::getpid());
        {
            std::ofstream out(temp, std::ios_base::binary | std::ios_base::trunc);
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
            if (!out.flush())
                return Status::error(ErrorCode::Io, "cannot write the embedded model", at(temp.string()));
        }
        fs::rename(temp, target, ec);
        if (ec)
            return Status::error(ErrorCode::Io, "cannot write the embedded model: " + ec.message(),
                                 at(target.string()));
    }
    const std::string modelFile = (dir / files.front().first).lexically_normal().string();
    TS_TRY(checkModelContent(modelFile).prefix("the embedded model"));
    return modelFile;
}

Status Project::setSetup(const ProjectSetup &setup)
{
    std::lock_guard lock(m_d->mutex);
    return m_d->write("saving the scheduler setup", [&]() -> Status {
        TS_TRY(checkCost(setup.cost, setup.meter));
        auto set = Stmt::prepare(m_d->db, "UPDATE project SET algorithm = ?1, device = ?2, precision = ?3, cost = ?4, "
                                          "cost_meter = ?5 WHERE id = 1");
        if (!set)
            return set.status();
        TS_TRY(set->bind(1, setup.algorithm)
                   .bind(2, setup.device)
                   .bind(3, std::string(precisionName(setup.precision)))
                   .bind(4, setup.cost)
                   .bind(5, setup.meter)
                   .run());
        TS_TRY(m_d->db.exec("DELETE FROM scheduler_options"));
        auto add = Stmt::prepare(m_d->db, "INSERT INTO scheduler_options(key, value) VALUES (?1, ?2)");
        if (!add)
            return add.status();
        for (const auto &[key, value] : setup.options) {
            add->reset();
            TS_TRY(add->bind(1, key).bind(2, value).run());
        }
        return Status::ok();
    });
}

Expected<ProjectSetup> Project::setup() const
{
    return m_d->query<ProjectSetup>([&]() -> Expected<ProjectSetup> {
        auto q =
            Stmt::prepare(m_d->db, "SELECT algorithm, device, precision, cost, cost_meter FROM project WHERE id = 1");
        if (!q)
            return q.status();
        auto row = q->step();
        if (!row)
            return row.status();
        ProjectSetup s{q->text(0), q->text(1), {}};
        const auto precision = precisionFromName(q->text(2));
        if (!precision)
            return Status::invalid("unknown scheduling precision '" + q->text(2) + "' (expected one of " +
                                   std::string(precisionNames()) + ")");
        s.precision = *precision;
        s.cost = q->text(3);
        s.meter = q->text(4);
        TS_TRY(checkCost(s.cost, s.meter));
        auto opts = Stmt::prepare(m_d->db, "SELECT key, value FROM scheduler_options");
        if (!opts)
            return opts.status();
        TS_TRY(opts->each([&](const Stmt &r) { s.options.emplace(r.text(0), r.text(1)); }));
        return s;
    });
}

Status Project::setOverrides(const Overrides &overrides, std::string_view label)
{
    std::lock_guard lock(m_d->mutex);
    return m_d->write("saving overrides", [&]() -> Status {
        Db &db = m_d->db;
        auto cur = m_d->cursor();
        if (!cur)
            return cur.status();
        auto steps = db.queryInt("SELECT count(*) FROM override_steps");
        if (!steps)
            return steps.status();
        if (*steps > 0) {
            auto current = m_d->overridesAt(*cur);
            if (!current)
                return current.status();
            if (*current == overrides)
                return Status::ok();
        }
        // Drop the redo tail, append the new state, move the cursor, trim.
        auto tail = Stmt::prepare(db, "DELETE FROM override_items WHERE step > ?1");
        auto tailSteps = Stmt::prepare(db, "DELETE FROM override_steps WHERE step > ?1");
        if (!tail || !tailSteps)
            return !tail ? tail.status() : tailSteps.status();
        TS_TRY(tail->bind(1, *cur).run());
        TS_TRY(tailSteps->bind(1, *cur).run());
        auto step = Stmt::prepare(db, "INSERT INTO override_steps(label, created) VALUES (?1, " TS_NOW ")");
        if (!step)
            return step.status();
        TS_TRY(step->bind(1, label.empty() ? std::string_view("edit") : label).run());
        const std::int64_t id = db.lastInsertId();
        auto item = Stmt::prepare(db, "INSERT INTO override_items(step, key, option) VALUES (?1, ?2, ?3)");
        if (!item)
            return item.status();
        for (const auto &[key, option] : overrides) {
            item->reset();
            TS_TRY(item->bind(1, id).bind(2, key).bind(3, option).run());
        }
        auto set = Stmt::prepare(db, "UPDATE project SET override_cursor = ?1 WHERE id = 1");
        if (!set)
            return set.status();
        TS_TRY(set->bind(1, id).run());
        const std::string keep = std::to_string(id - kMaxHistory);
        return db.exec("DELETE FROM override_items WHERE step <= " + keep +
                       "; DELETE FROM override_steps WHERE step <= " + keep);
    });
}

Expected<Overrides> Project::overrides() const
{
    return m_d->query<Overrides>([&]() -> Expected<Overrides> {
        auto cur = m_d->cursor();
        if (!cur)
            return cur.status();
        return m_d->overridesAt(*cur);
    });
}

Expected<Overrides> Project::undoOverrides()
{
    std::lock_guard lock(m_d->mutex);
    return m_d->moveCursor(-1);
}

Expected<Overrides> Project::redoOverrides()
{
    std::lock_guard lock(m_d->mutex);
    return m_d->moveCursor(+1);
}

Expected<OverrideHistory> Project::overrideHistory() const
{
    return m_d->query<OverrideHistory>([&]() -> Expected<OverrideHistory> {
        OverrideHistory h;
        auto cur = m_d->cursor();
        if (!cur)
            return cur.status();
        h.current = *cur;
        auto q =
            Stmt::prepare(m_d->db, "SELECT s.step, s.label, s.created, count(i.key) FROM override_steps s "
                                   "LEFT JOIN override_items i ON i.step = s.step GROUP BY s.step ORDER BY s.step");
        if (!q)
            return q.status();
        TS_TRY(q->each([&](const Stmt &r) { h.steps.push_back({r.int64(0), r.text(1), r.text(2), r.int64(3)}); }));
        return h;
    });
}

Expected<std::int64_t> Project::addPlan(std::string_view scheduleJson, const PlanSummary &summary)
{
    std::lock_guard lock(m_d->mutex);
    std::int64_t id = 0;
    Status s = m_d->write("saving the plan", [&]() -> Status {
        auto add =
            Stmt::prepare(m_d->db, "INSERT INTO plans(created, algorithm, device, model_hash, est_latency_ms, "
                                   "kernels, label, schedule_json) VALUES (" TS_NOW ", ?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        if (!add)
            return add.status();
        TS_TRY(add->bind(1, summary.algorithm)
                   .bind(2, summary.device)
                   .bind(3, summary.modelHash)
                   .bind(4, summary.estLatencyMs)
                   .bind(5, summary.kernels)
                   .bind(6, summary.label)
                   .bind(7, scheduleJson)
                   .run());
        id = m_d->db.lastInsertId();
        return Status::ok();
    });
    if (!s.isOk())
        return s;
    return id;
}

Expected<std::vector<PlanSummary>> Project::plans() const
{
    using Plans = std::vector<PlanSummary>;
    return m_d->query<Plans>([&]() -> Expected<Plans> {
        auto q = Stmt::prepare(m_d->db, "SELECT id, created, algorithm, device, model_hash, est_latency_ms, kernels, "
                                        "label FROM plans ORDER BY id");
        if (!q)
            return q.status();
        Plans out;
        TS_TRY(q->each([&](const Stmt &r) {
            out.push_back({r.int64(0), r.text(1), r.text(2), r.text(3), r.text(4), r.real(5), r.int64(6), r.text(7)});
        }));
        return out;
    });
}

namespace {

// The text column `column` of the row `id` of `table`, or "no <thing> N".
Expected<std::string> textById(const Db &db, const std::string &path, const char *sql, std::int64_t id,
                               const char *thing)
{
    auto q = Stmt::prepare(db, sql);
    if (!q)
        return q.status();
    auto row = q->bind(1, id).step();
    if (!row)
        return row.status();
    if (!*row)
        return Status::error(ErrorCode::Usage,
                             std::string("no ") + thing + " " + std::to_string(id) + " in the project", at(path));
    return q->text(0);
}

} // namespace

Expected<std::string> Project::planJson(std::int64_t planId) const
{
    return m_d->query<std::string>(
        [&] { return textById(m_d->db, m_d->path, "SELECT schedule_json FROM plans WHERE id = ?1", planId, "plan"); });
}

Expected<std::int64_t> Project::addRun(std::int64_t planId, const RunRecord &run, std::string_view timelineJson)
{
    std::lock_guard lock(m_d->mutex);
    std::int64_t id = 0;
    Status s = m_d->write("saving the run", [&]() -> Status {
        auto plan = textById(m_d->db, m_d->path, "SELECT id FROM plans WHERE id = ?1", planId, "plan");
        if (!plan)
            return plan.status();
        auto add = Stmt::prepare(m_d->db, "INSERT INTO runs(plan_id, created, backend, latency_ms, timeline_json) "
                                          "VALUES (?1, " TS_NOW ", ?2, ?3, ?4)");
        if (!add)
            return add.status();
        TS_TRY(add->bind(1, planId).bind(2, run.backend).bind(3, run.latencyMs).bind(4, timelineJson).run());
        id = m_d->db.lastInsertId();
        auto metric = Stmt::prepare(m_d->db, "INSERT INTO run_metrics(run_id, name, value) VALUES (?1, ?2, ?3)");
        if (!metric)
            return metric.status();
        for (const auto &[name, value] : run.metrics) {
            metric->reset();
            TS_TRY(metric->bind(1, id).bind(2, name).bind(3, value).run());
        }
        return Status::ok();
    });
    if (!s.isOk())
        return s;
    return id;
}

Expected<std::vector<RunRecord>> Project::runs(std::int64_t planId) const
{
    using Runs = std::vector<RunRecord>;
    return m_d->query<Runs>([&]() -> Expected<Runs> {
        auto q = Stmt::prepare(m_d->db, "SELECT r.id, r.plan_id, r.created, r.backend, r.latency_ms, m.name, m.value "
                                        "FROM runs r LEFT JOIN run_metrics m ON m.run_id = r.id "
                                        "WHERE r.plan_id = ?1 ORDER BY r.id, m.name");
        if (!q)
            return q.status();
        q->bind(1, planId);
        Runs out;
        TS_TRY(q->each([&](const Stmt &r) {
            if (out.empty() || out.back().id != r.int64(0))
                out.push_back({r.int64(0), r.int64(1), r.text(2), r.text(3), r.real(4), {}});
            if (!r.isNull(5))
                out.back().metrics[r.text(5)] = r.real(6);
        }));
        return out;
    });
}

Expected<std::string> Project::runTimeline(std::int64_t runId) const
{
    return m_d->query<std::string>(
        [&] { return textById(m_d->db, m_d->path, "SELECT timeline_json FROM runs WHERE id = ?1", runId, "run"); });
}

namespace {

constexpr std::string_view kPluginPrefix = "plugin/";

Expected<std::string> pluginKey(std::string_view plugin, std::string_view key)
{
    if (plugin.empty() || plugin.find('/') != std::string_view::npos)
        return Status::error(ErrorCode::Usage,
                             "plugin data needs a plugin name without '/', got '" + std::string(plugin) + "'");
    return std::string(kPluginPrefix) + std::string(plugin) + "/" + std::string(key);
}

} // namespace

Status Project::setPluginData(std::string_view plugin, std::string_view key, std::string_view bytes)
{
    auto full = pluginKey(plugin, key);
    if (!full)
        return full.status();
    std::lock_guard lock(m_d->mutex);
    return m_d->write("saving " + std::string(plugin) + "'s data", [&]() -> Status {
        auto set = Stmt::prepare(m_d->db, "INSERT INTO session_state(key, value) VALUES (?1, ?2) "
                                          "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
        if (!set)
            return set.status();
        return set->bind(1, *full).bindBlob(2, bytes).run();
    });
}

Status Project::removePluginData(std::string_view plugin, std::string_view key)
{
    auto full = pluginKey(plugin, key);
    if (!full)
        return full.status();
    std::lock_guard lock(m_d->mutex);
    return m_d->write("saving " + std::string(plugin) + "'s data", [&]() -> Status {
        auto del = Stmt::prepare(m_d->db, "DELETE FROM session_state WHERE key = ?1");
        if (!del)
            return del.status();
        return del->bind(1, *full).run();
    });
}

Expected<std::optional<std::string>> Project::pluginData(std::string_view plugin, std::string_view key) const
{
    using Value = std::optional<std::string>;
    auto full = pluginKey(plugin, key);
    if (!full)
        return full.status();
    return m_d->query<Value>([&]() -> Expected<Value> {
        auto q = Stmt::prepare(m_d->db, "SELECT value FROM session_state WHERE key = ?1");
        if (!q)
            return q.status();
        auto row = q->bind(1, *full).step();
        if (!row)
            return row.status();
        return *row ? Value(q->text(0)) : Value();
    });
}

Expected<std::map<std::pair<std::string, std::string>, std::string>> Project::allPluginData() const
{
    using Data = std::map<std::pair<std::string, std::string>, std::string>;
    return m_d->query<Data>([&]() -> Expected<Data> {
        auto q = Stmt::prepare(m_d->db, "SELECT key, value FROM session_state WHERE substr(key, 1, 7) = 'plugin/'");
        if (!q)
            return q.status();
        Data out;
        TS_TRY(q->each([&](const Stmt &r) {
            const std::string key = r.text(0).substr(kPluginPrefix.size());
            const auto slash = key.find('/');
            if (slash != std::string::npos)
                out.emplace(std::pair{key.substr(0, slash), key.substr(slash + 1)}, r.text(1));
        }));
        return out;
    });
}

Status Project::setState(std::string_view key, std::string_view value)
{
    if (key.starts_with(kPluginPrefix))
        return Status::error(ErrorCode::Usage, "session state keys starting with 'plugin/' are reserved for plugin "
                                               "data (setPluginData)");
    std::lock_guard lock(m_d->mutex);
    return m_d->write("saving the session state", [&]() -> Status {
        auto set = Stmt::prepare(m_d->db, "INSERT INTO session_state(key, value) VALUES (?1, ?2) "
                                          "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
        if (!set)
            return set.status();
        return set->bind(1, key).bind(2, value).run();
    });
}

Status Project::removeState(std::string_view key)
{
    std::lock_guard lock(m_d->mutex);
    return m_d->write("saving the session state", [&]() -> Status {
        auto del = Stmt::prepare(m_d->db, "DELETE FROM session_state WHERE key = ?1");
        if (!del)
            return del.status();
        return del->bind(1, key).run();
    });
}

Expected<std::optional<std::string>> Project::state(std::string_view key) const
{
    using Value = std::optional<std::string>;
    return m_d->query<Value>([&]() -> Expected<Value> {
        auto q = Stmt::prepare(m_d->db, "SELECT value FROM session_state WHERE key = ?1");
        if (!q)
            return q.status();
        auto row = q->bind(1, key).step();
        if (!row)
            return row.status();
        return *row ? Value(q->text(0)) : Value();
    });
}

Expected<std::map<std::string, std::string>> Project::allState() const
{
    using State = std::map<std::string, std::string>;
    return m_d->query<State>([&]() -> Expected<State> {
        auto q = Stmt::prepare(m_d->db, "SELECT key, value FROM session_state WHERE substr(key, 1, 7) != 'plugin/'");
        if (!q)
            return q.status();
        State out;
        TS_TRY(q->each([&](const Stmt &r) { out.emplace(r.text(0), r.text(1)); }));
        return out;
    });
}

Status Project::transaction(const std::function<Status()> &body)
{
    std::lock_guard lock(m_d->mutex);
    return m_d->write("saving the project", body);
}

Status Project::close()
{
    std::lock_guard lock(m_d->mutex);
    return m_d->db.close();
}

} // namespace tessera
