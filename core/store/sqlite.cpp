#include "core/store/sqlite.h"

#include <sqlite3.h>
#include <utility>

namespace tessera::store {

Db::Db(Db &&other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_path(std::move(other.m_path)), m_busyTimeoutMs(other.m_busyTimeoutMs)
{}

Db &Db::operator=(Db &&other) noexcept
{
    if (this != &other) {
        (void)close();
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
        m_busyTimeoutMs = other.m_busyTimeoutMs;
    }
    return *this;
}

Db::~Db()
{
    (void)close();
}

Expected<Db> Db::open(const std::string &path, int flags, std::string name, int busyTimeoutMs)
{
    sqlite3 *raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
    Db db(raw, std::move(name)); // closes `raw` on every path, also when open failed
    if (rc != SQLITE_OK)
        return db.error(rc, "opening the project");
    sqlite3_extended_result_codes(raw, 1);
    sqlite3_busy_timeout(raw, busyTimeoutMs);
    db.m_busyTimeoutMs = busyTimeoutMs;
    return db;
}

Status Db::exec(std::string_view sql, std::string_view what)
{
    const std::string text(sql);
    const int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK)
        return Status::ok();
    return error(rc, what.empty() ? "running \"" + text.substr(0, text.find_first_of("(;")) + "\"" : std::string(what));
}

Expected<std::int64_t> Db::queryInt(std::string_view sql)
{
    auto stmt = Stmt::prepare(*this, sql);
    if (!stmt)
        return stmt.status();
    auto row = stmt->step();
    if (!row)
        return row.status();
    return *row ? stmt->int64(0) : std::int64_t(0);
}

Expected<std::string> Db::queryText(std::string_view sql)
{
    auto stmt = Stmt::prepare(*this, sql);
    if (!stmt)
        return stmt.status();
    auto row = stmt->step();
    if (!row)
        return row.status();
    return *row ? stmt->text(0) : std::string();
}

std::int64_t Db::lastInsertId() const
{
    return sqlite3_last_insert_rowid(m_db);
}

Status Db::error(int rc, std::string_view what) const
{
    const Location loc{.file = m_path};
    const std::string detail = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return Status::error(ErrorCode::Io,
                             "project is locked by another Tessera (" + std::string(what) + " gave up after " +
                                 std::to_string(m_busyTimeoutMs) + " ms)",
                             loc);
    case SQLITE_CORRUPT: return Status::invalid("project file is corrupt (" + detail + ")", loc);
    case SQLITE_NOTADB: return Status::invalid("not a tessera project (not an SQLite database)", loc);
    case SQLITE_READONLY:
        return Status::error(ErrorCode::Io, "project is read-only (" + std::string(what) + " refused)", loc);
    case SQLITE_FULL: return Status::error(ErrorCode::Io, "disk full while " + std::string(what), loc);
    default: return Status::error(ErrorCode::Io, std::string(what) + " failed: " + detail, loc);
    }
}

Status Db::close()
{
    if (!m_db)
        return Status::ok();
    const int rc = sqlite3_close(m_db);
    if (rc != SQLITE_OK) // statements still open: a bug in this library, but never leak the handle
        sqlite3_close_v2(m_db);
    Status s = rc == SQLITE_OK ? Status::ok() : error(rc, "closing the project");
    m_db = nullptr;
    return s;
}

Expected<Stmt> Stmt::prepare(const Db &db, std::string_view sql)
{
    sqlite3_stmt *raw = nullptr;
    const int rc = sqlite3_prepare_v2(db.get(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
    if (rc != SQLITE_OK)
        return db.error(rc, "preparing a query");
    return Stmt(&db, raw);
}

Stmt::Stmt(Stmt &&other) noexcept : m_db(other.m_db), m_stmt(std::exchange(other.m_stmt, nullptr)) {}

Stmt &Stmt::operator=(Stmt &&other) noexcept
{
    if (this != &other) {
        sqlite3_finalize(m_stmt);
        m_db = other.m_db;
        m_stmt = std::exchange(other.m_stmt, nullptr);
    }
    return *this;
}

Stmt::~Stmt()
{
    sqlite3_finalize(m_stmt);
}

Stmt &Stmt::bind(int index, std::int64_t value)
{
    sqlite3_bind_int64(m_stmt, index, value);
    return *this;
}

Stmt &Stmt::bind(int index, double value)
{
    sqlite3_bind_double(m_stmt, index, value);
    return *this;
}

Stmt &Stmt::bind(int index, std::string_view text)
{
    sqlite3_bind_text64(m_stmt, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    return *this;
}

Stmt &Stmt::bindBlob(int index, std::string_view bytes)
{
    sqlite3_bind_blob64(m_stmt, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
    return *this;
}

Stmt &Stmt::bindNull(int index)
{
    sqlite3_bind_null(m_stmt, index);
    return *this;
}

Expected<bool> Stmt::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    return m_db->error(rc, "reading or writing the project");
}

Status Stmt::run()
{
    for (;;) {
        auto row = step();
        if (!row)
            return row.status();
        if (!*row)
            return Status::ok();
    }
}

void Stmt::reset()
{
    sqlite3_reset(m_stmt);
}

std::int64_t Stmt::int64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

double Stmt::real(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

std::string Stmt::text(int column) const
{
    const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))) : std::string();
}

bool Stmt::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

} // namespace tessera::store
