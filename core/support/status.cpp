#include "core/support/status.h"

namespace tessera {

std::string Location::str() const
{
    std::string out;
    auto append = [&out](const std::string &part) {
        if (!out.empty())
            out += ": ";
        out += part;
    };
    if (!file.empty())
        append(offset >= 0 ? file + "@" + std::to_string(offset) : file);
    else if (offset >= 0)
        append("offset " + std::to_string(offset));
    if (!node.empty())
        append("node '" + node + "'");
    if (!tensor.empty())
        append("tensor '" + tensor + "'");
    return out;
}

std::string Diagnostic::str() const
{
    const char *sev = severity == Severity::Error ? "error" : severity == Severity::Warning ? "warning" : "note";
    std::string where = location.str();
    return (where.empty() ? std::string() : where + ": ") + sev + ": " + message;
}

Status Status::error(ErrorCode code, std::string message, Location location)
{
    Status s;
    s.m_code = code == ErrorCode::Ok ? ErrorCode::Internal : code;
    s.m_diag.severity = Severity::Error;
    s.m_diag.code = s.m_code;
    s.m_diag.message = std::move(message);
    s.m_diag.location = std::move(location);
    return s;
}

Status &Status::at(const Location &outer)
{
    if (isOk())
        return *this;
    Location &l = m_diag.location;
    if (l.file.empty())
        l.file = outer.file;
    if (l.offset < 0)
        l.offset = outer.offset;
    if (l.node.empty())
        l.node = outer.node;
    if (l.tensor.empty())
        l.tensor = outer.tensor;
    return *this;
}

Status &Status::prefix(const std::string &context)
{
    if (!isOk())
        m_diag.message = context + ": " + m_diag.message;
    return *this;
}

int exitCodeFor(ErrorCode code)
{
    switch (code) {
    case ErrorCode::Ok: return 0;
    case ErrorCode::Usage: return 2;
    case ErrorCode::InvalidInput:
    case ErrorCode::Io: return 3;
    case ErrorCode::Unavailable: return 4;
    default: return 1;
    }
}

void DiagnosticLog::warn(std::string message, Location loc)
{
    m_items.push_back({Severity::Warning, ErrorCode::Ok, std::move(message), std::move(loc)});
}

void DiagnosticLog::note(std::string message, Location loc)
{
    m_items.push_back({Severity::Note, ErrorCode::Ok, std::move(message), std::move(loc)});
}

} // namespace tessera
