// ProjectSession: the workbench's open project — a *.tessera file
// (core/store/project.h) — and what keeps it in step with the window, so
// MainWindow only forwards menu actions and model-load events to it.
//
// Opening. open() checks everything it can before touching the session:
// Project::open (SQLite header, application id, schema version, quick_check),
// a probe of the write lock (a project another Tessera is writing is
// refused), the stored model reference, device and algorithm, and that the
// model file exists (Project::modelPath). It then loads the model through the
// window's ModelLoader with the stored import settings and structure hash
// (importOptionsOf, LoadOptions::expectedHash). Only when that load succeeds
// does the project replace the current one (opened()): dock layout, device,
// algorithm and options are restored, then the overrides
// (ScheduleController::loadOverrides) and the expanded groups; once the first
// schedule and layout land, the selected step and the zoom and centre
// (restored()). Any failure before opened() is reported (errorReported) and
// leaves the session on screen and the file on disk as they were. A file that
// cannot be written opens read-only with a notice(); nothing is saved then.
//
// Saving, while a project is open and writable:
//  - overrides: every change is saved at once as one history step, labelled
//    with the undo command's text. The project's undo cursor follows the
//    controller's QUndoStack: undo/redo there move the project's cursor, a
//    push records a step (both drop their redo tail). Replacing the overrides
//    outright (loadOverrides: a new algorithm, a new model) records one step
//    at the end of the current event. After reopening, the QUndoStack starts
//    empty (loadOverrides clears it): the older steps stay in the file but
//    cannot be undone from the window.
//  - setup (algorithm, device id, options): saved when it changed; the window
//    calls syncSetup() after its pickers change, and every schedule start
//    checks as well (options set by other panels).
//  - plans: every finished schedule of the project's model adds its schedule
//    document (schedulejson.h) and PlanSummary, written on a worker thread in
//    finishing order.
//  - runs: recordRun() stores a backend run of a plan (for a run panel).
//  - UI state — "selected_step", "expanded_groups" (group paths), "view"
//    (zoom and scene centre), "dock_state" and "pinned_runs" (the Comparison
//    dock's pins as schedule documents, given back once the session is
//    restored; a pin that no longer reads against the model is dropped with a
//    notice) — goes through one Autosaver.
// A failed save is reported with saveFailed() and changes nothing else.
//
// Closing (closeProject(), another model or project replacing it, the window
// closing, the destructor) saves pending overrides and state, then closes.
#pragma once

#include "app/gui/modelloader.h"
#include "core/store/autosaver.h"
#include "core/store/project.h"
#include "views/models/runresultmodel.h" // RunResult and its metatype, for runRestored

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QMainWindow;
class QUndoCommand;

namespace tessera {
class DeviceRegistry;
class Extensions;
class GraphView;
struct ScheduleRun;
namespace views {
class RunComparisonWidget;
class StepperWidget;
struct ModelData;
} // namespace views
} // namespace tessera

namespace tessera::gui {

class ScheduleController;

// What the session follows and restores. All must outlive the session.
struct SessionViews {
    QMainWindow *window = nullptr; // dock layout
    ModelLoader *loader = nullptr; // loads a project's model
    ScheduleController *controller = nullptr;
    views::StepperWidget *stepper = nullptr;          // selected step
    GraphView *graph = nullptr;                       // expanded groups, zoom, centre
    const DeviceRegistry *devices = nullptr;          // the window's, built once; a project's device is looked up here
    const Extensions *extensions = nullptr;           // the window's: a project's sample is rebuilt from it
    views::RunComparisonWidget *comparison = nullptr; // optional: its pins are kept in the project
};

class ProjectSession final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDockStateVersion = 1;

    explicit ProjectSession(const SessionViews &views, QObject *parent = nullptr);
    ~ProjectSession() override; // closes the project (see close())

    bool isOpen() const { return m_project != nullptr; }
    bool isOpening() const { return m_pending != nullptr; } // its model is loading
    bool isRestoring() const { return m_restore.active; }   // waiting for the first schedule and layout
    bool isReadOnly() const;
    QString path() const;                                    // of the open project, empty when none
    QString displayName() const;                             // file name without ".tessera"
    Project *project() const { return m_project.get(); }     // owned; nullptr when none
    std::int64_t lastPlanId() const { return m_lastPlanId; } // 0 when none stored

    // The project's busy timeout for writes and the open-time lock probe.
    void setBusyTimeout(int ms) { m_busyTimeoutMs = ms; }

    // --- the window's model-load events ------------------------------------
    // A model finished loading and is about to replace the one on screen:
    // an open project is closed unless this is the model of the project
    // being opened.
    void modelAboutToChange();
    // The model on screen now; completes a pending open().
    void modelChanged(std::shared_ptr<const views::ModelData> model);
    // The load failed or was cancelled: a pending open() is dropped and, unless
    // cancelled, reported.
    void modelLoadFailed(const Diagnostic &diagnostic);

    // --- commands ------------------------------------------------------------
    // Checks `path` and starts loading its model; see the header comment.
    // A failure is also reported through errorReported. ReadOnly saves nothing
    // (ReadWrite falls back to it, with a notice, for a file we cannot write).
    Status open(const QString &path, OpenMode mode = OpenMode::ReadWrite);
    // New Project: the model on screen with the current setup, overrides, last
    // schedule (as the first plan) and view state, as a new file that becomes
    // the open project. Refuses the open project's own path.
    Status create(const QString &path, bool overwrite = false);
    // Save As: like create(), and also copies every plan, run and state entry
    // of the open project (its override history starts anew).
    Status saveAs(const QString &path, bool overwrite = false);
    // Saves pending overrides and state, then closes; closed() when one was open.
    Status close();

    // The open project's model: a sample (referenced by name and version) or a
    // file; a file may be embedded in the project (setModelEmbedded).
    bool modelIsSample() const { return m_project && !m_modelRef.sample.empty(); }
    bool modelIsEmbedded() const { return m_project && m_modelRef.embed; }
    // Keeps the model file and its data files in the project (or drops the
    // copy). Refused for a sample, a read-only project or none.
    Status setModelEmbedded(bool embed);

    // Saves the controller's algorithm, device and options if they changed.
    void syncSetup();
    // Stores a backend run of plan `run.planId` (0: lastPlanId()) with its
    // timeline JSON (perfettoTraceJson of the run); returns the run id. Waits
    // for plan writes in flight first, so lastPlanId() is the newest schedule.
    // Fails when no project is open, it is read-only, or there is no plan.
    Expected<std::int64_t> recordRun(const RunRecord &run, std::string_view timelineJson);
    // Writes pending overrides, plans and state now.
    Status flush();

signals:
    void opened(const QString &path);
    void restored(); // selected step and view applied after opened()
    void closed(const QString &path);
    // The window selects these in its pickers; the session sets the controller itself.
    void setupRestored(const QString &algorithm, const QString &deviceId, const QString &precision,
                       const QString &cost);                          // cost: ScheduleController::costMeter's choice
    void notice(const QString &message);                              // status bar: read-only, upgraded, ...
    void errorReported(const QString &title, const QString &message); // a refused open or command
    void saveFailed(const QString &message);
    void planStored(qint64 planId);
    // On reopening: the newest run stored for the plan now on show (read back
    // from the project; no outputs). `backend` is the backend's name.
    void runRestored(const QString &backend, std::shared_ptr<const tessera::RunResult> result, const QString &when);

private:
    struct Pending {
        ModelRef model;                   // path: the file to import here (empty for a sample: the loader builds it)
        bool sampleFromCachePath = false; // a project before v3 that stored a path into the sample cache
        QStringList notes;                // said after opened(): another sample version, the embedded copy used
        ProjectSetup setup;
        Overrides overrides;
        std::map<std::string, std::string> state;
    };
    struct Restore {
        bool active = false;
        bool scheduleDone = false;
        bool layoutDone = false;
        bool stepApplied = false;
        std::optional<int> step;
        std::optional<std::string> view;
    };

    Status refuse(const QString &title, Status status);
    void restoreNewestRun();
    void commit();
    void adopt(std::unique_ptr<Project> project, const ModelRef &model);
    Status closeCurrent(bool report);
    bool writable() const;
    Status reportSave(Status status);

    void onOverridesChanged();
    void syncOverrides();
    void onUndoIndexChanged(int index);
    Status moveHistory(int direction, int steps);
    void onScheduleFinished(std::shared_ptr<const ScheduleRun> run);
    void onScheduleFailed(const QString &message);
    void onLayoutFinished();
    void finishRestore();

    void storePlan(std::shared_ptr<const ScheduleRun> run, std::string label);
    void waitForPlans();
    void setState(const std::string &key, std::string value);
    void recordStep();
    void recordView();
    void recordExpansion();
    void recordDocks();
    void recordPins();
    void restorePins();
    void recordAll();
    std::string expansionState() const;
    std::string viewState() const;
    void applyExpansion(const std::string &json);
    void applyView(const std::string &json);

    SessionViews m_views;
    int m_busyTimeoutMs = 2000;
    std::unique_ptr<Project> m_project;
    std::unique_ptr<Autosaver> m_autosaver;
    ModelRef m_modelRef; // of the open project
    std::unique_ptr<Project> m_pending;
    Pending m_pendingData;

    std::shared_ptr<const views::ModelData> m_model; // on screen
    ImportOptions m_import;                          // how it was imported

    ProjectSetup m_savedSetup;
    // The reopened project's measured cost source this build cannot use (its
    // backend missing here): kept in the file while the workbench schedules
    // with estimates, until another cost source is picked.
    std::optional<std::pair<std::string, std::string>> m_unusableCost; // cost, meter
    Overrides m_savedOverrides;
    std::vector<const QUndoCommand *> m_stackCommands; // the QUndoStack as last seen
    int m_stackIndex = 0;
    bool m_syncQueued = false;
    bool m_applying = false; // restoring setup and overrides: nothing is saved
    Restore m_restore;
    std::map<std::string, std::string> m_stateCache; // last value handed to the autosaver
    QString m_lastSaveError;

    QThreadPool m_writer; // one thread: plan writes in order
    std::shared_ptr<std::atomic<std::int64_t>> m_writtenPlanId;
    std::int64_t m_lastPlanId = 0;
};

} // namespace tessera::gui
