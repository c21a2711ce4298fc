// The workbench's unsaved overrides, kept on disk until a project holds them
// (issue 19: an override is never lost to a crash, a kill or a closed window).
//
// While no project is open (or the open one is read-only), every change of the
// overrides rewrites one small JSON file in the user's data folder:
// the model (the sample's name, or the file's path), the scheduler setup and
// the overrides. An empty set of overrides, or a project that now holds them,
// removes the file. On the next start without a model or project on the
// command line the workbench offers to restore it (MainWindow::offerUnsavedSession).
//
// The file is replaced atomically (QSaveFile: write beside, rename over), so a
// kill leaves the old complete file or the new one. A file that no longer reads
// is moved aside to "<file>.broken" with the reason, never deleted.
#pragma once

#include "core/sched/decision.h"
#include "core/support/status.h"

#include <QString>

#include <map>
#include <optional>
#include <string>

namespace tessera::gui {

struct UnsavedSession {
    QString sample; // the sample's registered name, or empty for a file
    QString model;  // the model file (for a sample: where it was built)
    QString algorithm;
    QString device;
    std::map<std::string, std::string> options;
    Overrides overrides;
    QString saved; // ISO 8601, when it was written
};

// <AppDataLocation>/unsaved-session.json
QString unsavedSessionPath();

Status saveUnsavedSession(const UnsavedSession &session, const QString &path = unsavedSessionPath());
// Nothing stored: an empty optional. A broken file: an InvalidInput error
// naming it; the file is moved to "<path>.broken".
Expected<std::optional<UnsavedSession>> loadUnsavedSession(const QString &path = unsavedSessionPath());
void discardUnsavedSession(const QString &path = unsavedSessionPath());

} // namespace tessera::gui
