// Status, Diagnostic and Expected<T>: the channel for user and model problems.
//
// A problem the user can fix (a corrupt model, a bad device file, a wrong plan)
// becomes a Diagnostic with a location and a one-line, lower-case message and is
// returned through Status or Expected<T>. Broken invariants are TS_ASSERT
// (assert.h). Nothing in Tessera throws across a plugin or backend boundary.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tessera {

// What went wrong, coarse enough to pick a CLI exit code (see exitCodeFor).
enum class ErrorCode : std::uint8_t {
    Ok = 0,
    InvalidInput, // the model, device file, plan or project is malformed
    Usage,        // the caller asked for something that makes no sense
    Unavailable,  // a backend or device is not present on this machine
    Io,           // a file could not be read or written
    Unsupported,  // valid input that Tessera does not handle (yet)
    Cancelled,
    Internal,
};

// Where a problem is: any subset of file, byte offset, node and tensor.
struct Location {
    std::string file;
    std::int64_t offset = -1; // byte offset in the file, -1 if unknown
    std::string node;
    std::string tensor;

    bool empty() const { return file.empty() && offset < 0 && node.empty() && tensor.empty(); }
    std::string str() const; // "file.onnx: node 'conv1': tensor 'x'"
};

enum class Severity : std::uint8_t { Note, Warning, Error };

struct Diagnostic {
    Severity severity = Severity::Error;
    ErrorCode code = ErrorCode::InvalidInput;
    std::string message; // one line, starts lower-case
    Location location;

    // "file.onnx: node 'conv1': error: kernel_shape has 3 entries, expected 2"
    std::string str() const;
};

// Result of an operation that produces no value. Cheap when ok.
class [[nodiscard]] Status
{
public:
    Status() = default;
    static Status ok() { return {}; }
    static Status error(ErrorCode code, std::string message, Location location = {});
    static Status invalid(std::string message, Location location = {})
    {
        return error(ErrorCode::InvalidInput, std::move(message), std::move(location));
    }

    bool isOk() const { return m_code == ErrorCode::Ok; }
    explicit operator bool() const { return isOk(); }
    ErrorCode code() const { return m_code; }
    const std::string &message() const { return m_diag.message; }
    const Location &location() const { return m_diag.location; }
    const Diagnostic &diagnostic() const { return m_diag; }
    std::string str() const { return isOk() ? std::string("ok") : m_diag.str(); }

    // Adds context while a status travels up: fills in location parts that are
    // still empty, keeps the ones already set (the innermost is most precise).
    Status &at(const Location &outer);
    Status &prefix(const std::string &context); // "context: message"

private:
    ErrorCode m_code = ErrorCode::Ok;
    Diagnostic m_diag;
};

// A value or the Status explaining why there is none.
template <typename T> class [[nodiscard]] Expected
{
public:
    Expected(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Expected(Status status) : m_v(std::in_place_index<1>, std::move(status)) {}

    bool isOk() const { return m_v.index() == 0; }
    explicit operator bool() const { return isOk(); }

    T &value() & { return std::get<0>(m_v); }
    const T &value() const & { return std::get<0>(m_v); }
    T &&value() && { return std::get<0>(std::move(m_v)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

    Status status() const { return isOk() ? Status::ok() : std::get<1>(m_v); }

private:
    std::variant<T, Status> m_v;
};

// Process exit codes shared by tessera-cli and tests: 0 ok, 2 usage,
// 3 invalid input, 4 backend unavailable, 1 anything else.
int exitCodeFor(ErrorCode code);

// Collects warnings and notes during a long operation (an import, a schedule)
// that does not fail but wants to tell the user something.
class DiagnosticLog
{
public:
    void add(Diagnostic d) { m_items.push_back(std::move(d)); }
    void warn(std::string message, Location loc = {});
    void note(std::string message, Location loc = {});
    const std::vector<Diagnostic> &items() const { return m_items; }
    bool empty() const { return m_items.empty(); }

private:
    std::vector<Diagnostic> m_items;
};

} // namespace tessera

// Propagates a failed Status out of the current function.
#define TS_TRY(expr)                                                                                                   \
    do {                                                                                                               \
        ::tessera::Status ts_status_ = (expr);                                                                         \
        if (!ts_status_.isOk())                                                                                        \
            return ts_status_;                                                                                         \
    } while (false)
