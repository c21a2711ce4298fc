#include "core/backend/backend.h"

#include "core/support/assert.h"
#include "core/support/names.h"

#include <algorithm>

namespace tessera {

bool BackendCapabilities::supportsDeviceKind(std::string_view kind) const
{
    return std::find_if(deviceKinds.begin(), deviceKinds.end(),
                        [&](const std::string &k) { return k == "any" || k == kind; }) != deviceKinds.end();
}

void appendIncrement(RunResult &result, const RunIncrement &increment)
{
    result.timeline.insert(result.timeline.end(), increment.timeline.begin(), increment.timeline.end());
    if (!increment.laneNames.empty())
        result.laneNames = increment.laneNames;
    for (const CounterSeries &add : increment.counters) {
        auto it = std::find_if(result.counters.begin(), result.counters.end(),
                               [&](const CounterSeries &c) { return c.name == add.name; });
        if (it == result.counters.end()) {
            result.counters.push_back(add);
            continue;
        }
        it->points.insert(it->points.end(), add.points.begin(), add.points.end());
    }
}

Status checkCompiledBy(const CompiledPlan &compiled, const BackendInfo &backend)
{
    if (!compiled.backend().empty() && compiled.backend() == backend.name)
        return Status::ok();
    const std::string by = compiled.backend().empty() ? std::string("unknown") : compiled.backend();
    return Status::invalid("the plan was compiled by the '" + by + "' backend, not by the " + backend.name +
                           " backend; compile it here first");
}

void BackendRegistry::add(std::unique_ptr<IBackend> backend)
{
    TS_ASSERT(backend);
    TS_ASSERT_MSG(!find(backend->info().name), "duplicate backend name");
    m_backends.push_back(std::move(backend));
}

void BackendRegistry::addAlias(std::string alias, std::string_view name)
{
    TS_ASSERT_MSG(find(name) && !find(alias), "alias of an unknown backend or a taken name");
    m_aliases.emplace(std::move(alias), std::string(name));
}

IBackend *BackendRegistry::find(std::string_view name) const
{
    for (const auto &[alias, target] : m_aliases)
        if (sameName(alias, name)) {
            name = target;
            break;
        }
    for (const auto &b : m_backends)
        if (sameName(b->info().name, name))
            return b.get();
    return nullptr;
}

Expected<IBackend *> BackendRegistry::get(std::string_view name) const
{
    IBackend *b = find(name);
    if (!b) {
        std::string known;
        for (const std::string &n : names())
            known += (known.empty() ? "" : ", ") + n;
        return Status::error(ErrorCode::Usage, "unknown backend '" + std::string(name) + "'; known: " + known);
    }
    if (!b->info().available)
        return Status::error(ErrorCode::Unavailable,
                             "backend '" + std::string(name) + "' is unavailable: " + b->info().unavailableReason);
    return b;
}

std::vector<IBackend *> BackendRegistry::all() const
{
    std::vector<IBackend *> out;
    for (const auto &b : m_backends)
        out.push_back(b.get());
    return out;
}

std::vector<std::string> BackendRegistry::names() const
{
    std::vector<std::string> out;
    for (const auto &b : m_backends)
        out.push_back(b->info().name);
    return out;
}

std::vector<IBackend *> BackendRegistry::forDeviceKind(std::string_view deviceKind) const
{
    std::vector<IBackend *> out;
    for (const auto &b : m_backends)
        if (b->info().capabilities.supportsDeviceKind(deviceKind))
            out.push_back(b.get());
    return out;
}

} // namespace tessera
