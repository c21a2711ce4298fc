// DeviceRegistry (see deviceregistry.h).
#include "core/hw/deviceregistry.h"

#include "core/hw/devicejson.h"
#include "core/hw/hostdevice.h"
#include "core/support/names.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <algorithm>

// The presets live in a static library: referencing the resource's init
// function from code that is always linked keeps the linker from dropping it.
// Q_INIT_RESOURCE must be used outside any namespace.
static void initDeviceResources()
{
    Q_INIT_RESOURCE(tessera_devices);
}

namespace tessera {

DeviceRegistry DeviceRegistry::standard()
{
    DeviceRegistry r;
    const Status builtins = r.loadBuiltins();
    if (!builtins.isOk())
        r.m_diagnostics.push_back(builtins.diagnostic());
    r.addHost();
    r.loadFolder(defaultUserFolder());
    return r;
}

QString DeviceRegistry::defaultUserFolder()
{
    const QString env = qEnvironmentVariable("TESSERA_DEVICE_PATH");
    if (!env.isEmpty())
        return env;
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/tessera/devices");
}

Status DeviceRegistry::loadBuiltins()
{
    initDeviceResources();
    const QDir dir(builtinPrefix());
    const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    if (files.isEmpty())
        return Status::error(ErrorCode::Internal,
                             "no built-in device presets in the resource " + builtinPrefix().toStdString());
    for (const QString &name : files) {
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::ReadOnly))
            return Status::error(ErrorCode::Internal, "cannot open built-in preset",
                                 {.file = f.fileName().toStdString()});
        Expected<Device> d = parseDevice(f.readAll(), f.fileName());
        if (!d) {
            Status s = d.status();
            return Status::error(ErrorCode::Internal, "built-in preset is invalid: " + s.message(), s.location());
        }
        add(std::move(d).value(), "builtin");
    }
    return Status::ok();
}

void DeviceRegistry::addHost()
{
    add(detectHostDevice(), "host");
}

int DeviceRegistry::loadFolder(const QString &path)
{
    const QDir dir(path);
    if (path.isEmpty() || !dir.exists())
        return 0;
    int added = 0;
    std::vector<std::string> seen; // ids loaded from this folder
    for (const QString &name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        const QString file = dir.filePath(name);
        const Location loc{.file = file.toStdString()};
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly)) {
            m_diagnostics.push_back({Severity::Error, ErrorCode::Io,
                                     "cannot read device file: " + f.errorString().toLower().toStdString(), loc});
            continue;
        }
        Expected<Device> d = parseDevice(f.readAll(), file);
        if (!d) {
            m_diagnostics.push_back(d.status().diagnostic());
            continue;
        }
        const std::string id = d->id;
        if (std::find(seen.begin(), seen.end(), id) != seen.end()) {
            m_diagnostics.push_back({Severity::Warning, ErrorCode::InvalidInput,
                                     "device '" + id + "' is already defined by another file in this folder; skipped",
                                     loc});
            continue;
        }
        if (find(id))
            m_diagnostics.push_back(
                {Severity::Note, ErrorCode::Ok, "device '" + id + "' replaces the " + origin(id) + " definition", loc});
        seen.push_back(id);
        add(std::move(d).value(), file.toStdString());
        ++added;
    }
    return added;
}

void DeviceRegistry::add(Device d, std::string origin)
{
    for (std::size_t i = 0; i < m_devices.size(); ++i)
        if (m_devices[i].id == d.id) {
            m_devices[i] = std::move(d);
            m_origins[i] = std::move(origin);
            return;
        }
    m_devices.push_back(std::move(d));
    m_origins.push_back(std::move(origin));
}

std::vector<std::string> DeviceRegistry::ids() const
{
    std::vector<std::string> out;
    for (const Device &d : m_devices)
        out.push_back(d.id);
    return out;
}

const Device *DeviceRegistry::find(std::string_view id) const
{
    for (const Device &d : m_devices)
        if (sameName(d.id, id))
            return &d;
    return nullptr;
}

Expected<Device> DeviceRegistry::lookup(std::string_view id) const
{
    if (const Device *d = find(id))
        return *d;
    std::string known;
    for (const Device &d : m_devices)
        known += (known.empty() ? "" : ", ") + d.id;
    return Status::error(ErrorCode::Usage,
                         "unknown device '" + std::string(id) + "'; known: " + (known.empty() ? "none" : known));
}

std::string DeviceRegistry::origin(std::string_view id) const
{
    for (std::size_t i = 0; i < m_devices.size(); ++i)
        if (m_devices[i].id == id)
            return m_origins[i];
    return {};
}

} // namespace tessera
