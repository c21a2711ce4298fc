#include "core/backend/backend.h"

#include "core/support/assert.h"

namespace tessera {

std::string_view backendKindName(BackendKind kind)
{
    switch (kind) {
    case BackendKind::Unknown:
        return "unknown";
    case BackendKind::Reference:
        return "reference";
    case BackendKind::Cpu:
        return "cpu";
    case BackendKind::Cuda:
        return "cuda";
    case BackendKind::DsaSim:
        return "dsa-sim";
    case BackendKind::External:
        return "external";
    }
    return "unknown";
}

void BackendRegistry::add(std::unique_ptr<IBackend> backend)
{
    TS_ASSERT(backend);
    TS_ASSERT_MSG(!find(backend->info().name), "duplicate backend name");
    m_backends.push_back(std::move(backend));
}

IBackend *BackendRegistry::find(std::string_view name) const
{
    for (const auto &b : m_backends)
        if (b->info().name == name)
            return b.get();
    return nullptr;
}

Expected<IBackend *> BackendRegistry::get(std::string_view name) const
{
    IBackend *b = find(name);
    if (!b) {
        std::string known;
        for (const auto &x : m_backends)
            known += (known.empty() ? "" : ", ") + x->info().name;
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

} // namespace tessera
