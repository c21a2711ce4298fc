// DeviceRegistry: the devices Tessera knows — built-in presets compiled into
// tessera_hw as the Qt resource :/tessera/devices/*.json (so a relocated binary
// has them), the detected `host`, and user files from a folder.
//
// Precedence: a user file whose id equals a built-in replaces it (a note says
// so); a second user file with an id already loaded from the folder is skipped
// with a warning. A broken user file becomes an error diagnostic and never
// blocks the others. Built-in presets are tested to parse; one that does not is
// an internal error.
#pragma once

#include "core/hw/device.h"
#include "core/support/status.h"

#include <QString>

#include <string>
#include <string_view>
#include <vector>

namespace tessera {

class DeviceRegistry
{
public:
    // Built-in presets + host + the default user folder (if it exists).
    static DeviceRegistry standard();

    // Resource path of the presets and the default user folder:
    // $TESSERA_DEVICE_PATH if set, else <GenericConfigLocation>/tessera/devices
    // (~/.config/tessera/devices on Linux).
    static QString builtinPrefix() { return QStringLiteral(":/tessera/devices"); }
    static QString defaultUserFolder();

    Status loadBuiltins();
    void addHost();
    // Loads every *.json in `dir` (sorted by file name). Returns the number of
    // devices added; problems go to diagnostics(). A missing folder is no error.
    int loadFolder(const QString &dir);
    // Adds or replaces by id; origin is "builtin", "host" or a file path.
    void add(Device d, std::string origin);

    const std::vector<Device> &devices() const { return m_devices; } // in load order
    std::vector<std::string> ids() const;
    const Device *find(std::string_view id) const;
    // The device or "unknown device 'x'; known: a, b, c" (ErrorCode::Usage).
    Expected<Device> lookup(std::string_view id) const;
    std::string origin(std::string_view id) const; // "" if unknown

    const std::vector<Diagnostic> &diagnostics() const { return m_diagnostics; }

private:
    std::vector<Device> m_devices;
    std::vector<std::string> m_origins;
    std::vector<Diagnostic> m_diagnostics;
};

} // namespace tessera
