// A thin RAII layer over the SQLite C API for the project store: one
// connection (Db), prepared statements with typed bind/column (Stmt), and the
// one place where SQLite result codes become Status:
//   BUSY/LOCKED          → Io "project is locked by another Tessera"
//   CORRUPT/NOTADB       → InvalidInput "project file is corrupt" / "not an SQLite database"
//   READONLY             → Io "project is read-only"
//   anything else        → Io with SQLite's own message
// Every Status names the project file. Nothing here throws.
#pragma once

#include "core/support/status.h"

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace tessera::store {

class Db
{
public:
    Db() = default;
    Db(sqlite3 *db, std::string path) : m_db(db), m_path(std::move(path)) {}
    Db(Db &&other) noexcept;
    Db &operator=(Db &&other) noexcept;
    Db(const Db &) = delete;
    Db &operator=(const Db &) = delete;
    ~Db();

    // Opens `path` with sqlite3_open_v2 `flags`; `name` is the file Status names
    // (it differs from `path` for URI and in-memory connections).
    static Expected<Db> open(const std::string &path, int flags, std::string name, int busyTimeoutMs);

    sqlite3 *get() const { return m_db; }
    const std::string &path() const { return m_path; }
    explicit operator bool() const { return m_db != nullptr; }

    // One or more statements, results ignored; `what` names the action in errors.
    Status exec(std::string_view sql, std::string_view what = {});
    Expected<std::int64_t> queryInt(std::string_view sql); // first column of the first row
    Expected<std::string> queryText(std::string_view sql);
    std::int64_t lastInsertId() const;

    // The Status for SQLite result code `rc` while doing `what` ("saving overrides").
    Status error(int rc, std::string_view what) const;
    Status close();

    int busyTimeoutMs() const { return m_busyTimeoutMs; }

private:
    sqlite3 *m_db = nullptr;
    std::string m_path;
    int m_busyTimeoutMs = 0;
};

class Stmt
{
public:
    static Expected<Stmt> prepare(const Db &db, std::string_view sql);
    Stmt(Stmt &&other) noexcept;
    Stmt &operator=(Stmt &&other) noexcept;
    Stmt(const Stmt &) = delete;
    Stmt &operator=(const Stmt &) = delete;
    ~Stmt();

    // Parameters are 1-based, as in SQL "?1".
    Stmt &bind(int index, std::int64_t value);
    Stmt &bind(int index, double value);
    Stmt &bind(int index, std::string_view text);
    Stmt &bindBlob(int index, std::string_view bytes); // a BLOB, not TEXT (read back with text())
    Stmt &bindNull(int index);

    Expected<bool> step(); // true: a row is ready
    Status run();          // steps until done (INSERT/UPDATE/DELETE)
    // Calls row(*this) for every result row.
    template <typename F> Status each(F &&row)
    {
        for (;;) {
            auto ready = step();
            if (!ready)
                return ready.status();
            if (!*ready)
                return Status::ok();
            row(*this);
        }
    }
    void reset(); // keeps the bindings

    std::int64_t int64(int column) const; // 0-based
    double real(int column) const;
    std::string text(int column) const;
    std::string blob(int column) const;
    bool isNull(int column) const;

private:
    Stmt(const Db *db, sqlite3_stmt *stmt) : m_db(db), m_stmt(stmt) {}
    const Db *m_db = nullptr;
    sqlite3_stmt *m_stmt = nullptr;
};

} // namespace tessera::store
